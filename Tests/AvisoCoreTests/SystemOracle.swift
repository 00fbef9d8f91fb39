import Foundation

/// Runs a system tool whose answer the tests compare against (systemd-analyze, zdump, date).
enum SystemOracle {
    /// The standard output of `executable arguments`, with `environment` added; nil if the tool is missing or fails.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) -> String? {
        guard FileManager.default.isExecutableFile(atPath: executable) else { return nil }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["LC_ALL"] = "C"
        for (k, v) in environment { env[k] = v }
        p.environment = env
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return nil }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// The bytes of a file, for tests that feed the tz database into the pure core.
    static func read(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }
}
