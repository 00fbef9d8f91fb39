import AvisoCore
import AvisoProtocol
import Glibc
internal import CNotify

/// Reads `aviso.conf` (GLib key-file format) into a `Configuration`.
///
/// ```
/// [Scheduler]
/// Window=64
/// [Delivery]
/// RetryInitial=1s
/// RetryMaximum=1min
/// ```
public enum ConfigLoader {
    /// The largest configuration file read; anything bigger is surely not a configuration file.
    static let maximumFileSize = 1 << 20

    private static let knownKeys: [String: Set<String>] = [
        "Scheduler": ["Window"],
        "Delivery": ["RetryInitial", "RetryMaximum"],
    ]

    /// Reads and checks the file at `path`.
    ///
    /// A missing file gives the defaults and no problems. Any error makes `configuration` nil, so the caller keeps
    /// the configuration it had; warnings (unknown groups and keys) do not. Never traps, whatever the bytes.
    public static func load(path: String) -> ConfigLoadResult {
        let bytes: [UInt8]
        switch read(path) {
        case .missing: return ConfigLoadResult(configuration: .defaults)
        case .failed(let why): return ConfigLoadResult(configuration: nil, errors: [ConfigProblem(file: path, line: nil, message: why)])
        case .read(let b): bytes = b
        }
        return parse(bytes, file: path)
    }

    /// Checks key-file text; `file` only names it in problems.
    static func parse(_ bytes: [UInt8], file: String) -> ConfigLoadResult {
        var problems = Problems(file: file)
        let lines = KeyFileLines(bytes)
        if let line = lines.firstBinaryLine {
            problems.error(line, "the file is not UTF-8 text (line \(line) has invalid bytes); is it a configuration file?")
            return problems.result(nil)
        }
        guard let keyFile = KeyFile(bytes) else { return problems.result(nil) }
        defer { keyFile.free() }
        if let why = keyFile.loadError {
            let line = lines.firstBadLine
            problems.error(line, "syntax error: \(why); lines must be [Group], Key=Value or # comments")
            return problems.result(nil)
        }

        var configuration = Configuration.defaults
        for group in keyFile.groups() {
            guard let known = knownKeys[group] else {
                problems.warning(lines.line(ofGroup: group), "unknown group [\(group)] is ignored (known: [Scheduler], [Delivery])")
                continue
            }
            for key in keyFile.keys(in: group) {
                let line = lines.line(ofKey: key, in: group)
                guard known.contains(key) else {
                    problems.warning(line, "unknown key '\(key)' in [\(group)] is ignored (known: \(known.sorted().joined(separator: ", ")))")
                    continue
                }
                let value = (keyFile.value(group, key) ?? "").trimmed(" \t\r")
                switch key {
                case "Window":
                    guard let n = Int(value) else {
                        problems.error(line, "[\(group)] Window='\(value)' is not a whole number; give one from 1 to 64")
                        continue
                    }
                    guard Configuration.windowRange.contains(n) else {
                        problems.error(line, "[\(group)] Window=\(n) is out of range; give a number from 1 to 64")
                        continue
                    }
                    configuration.window = n
                case "RetryInitial", "RetryMaximum":
                    let span: Span
                    do throws(ValidationError) {
                        span = try TimeSpan.parse(value)
                    } catch {
                        problems.error(line, "[\(group)] \(key): \(error.message)")
                        continue
                    }
                    guard span > .zero else {
                        problems.error(line, "[\(group)] \(key)=\(value) must be longer than zero, like '1s'")
                        continue
                    }
                    if key == "RetryInitial" { configuration.retryInitial = span } else { configuration.retryMaximum = span }
                default:
                    break
                }
            }
        }
        if problems.errors.isEmpty && configuration.retryInitial > configuration.retryMaximum {
            problems.error(lines.line(ofKey: "RetryInitial", in: "Delivery"), """
                [Delivery] RetryInitial=\(TimeSpan.format(configuration.retryInitial)) is longer than \
                RetryMaximum=\(TimeSpan.format(configuration.retryMaximum)); make RetryMaximum at least RetryInitial
                """)
        }
        return problems.result(problems.errors.isEmpty ? configuration : nil)
    }

    private enum ReadResult {
        case missing
        case failed(String)
        case read([UInt8])
    }

    private static func read(_ path: String) -> ReadResult {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            let e = errno
            if e == ENOENT { return .missing }
            return .failed("cannot read the configuration file: \(String(cString: strerror(e)))")
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failed("cannot read the configuration file: \(String(cString: strerror(errno)))")
            }
            if n == 0 { return .read(bytes) }
            bytes.append(contentsOf: chunk[..<n])
            if bytes.count > maximumFileSize {
                return .failed("the configuration file is larger than \(maximumFileSize) bytes; is it the right file?")
            }
        }
    }

    /// Collects problems for one file.
    private struct Problems {
        let file: String
        var errors: [ConfigProblem] = []
        var warnings: [ConfigProblem] = []

        mutating func error(_ line: Int?, _ message: String) {
            errors.append(ConfigProblem(file: file, line: line, message: message))
        }

        mutating func warning(_ line: Int?, _ message: String) {
            warnings.append(ConfigProblem(file: file, line: line, message: message))
        }

        func result(_ configuration: Configuration?) -> ConfigLoadResult {
            ConfigLoadResult(configuration: configuration, errors: errors, warnings: warnings)
        }
    }
}

private extension String {
    func trimmed(_ set: String) -> String {
        var s = Substring(self)
        while let c = s.first, set.contains(c) { s = s.dropFirst() }
        while let c = s.last, set.contains(c) { s = s.dropLast() }
        return String(s)
    }
}
