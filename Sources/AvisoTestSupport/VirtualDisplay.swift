import Foundation

/// An Xvfb server on a free display number, for a real notification server (dunst) to draw on.
public final class VirtualDisplay: @unchecked Sendable {
    /// The DISPLAY value, like ":12".
    public let display: String
    private let process = Process()

    /// Starts Xvfb and returns once it accepts connections (`-displayfd` reports the number only then).
    public init() throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
        process.arguments = ["-displayfd", "1", "-screen", "0", "1024x768x24", "-nolisten", "tcp"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        while !text.hasSuffix("\n") {
            let byte = out.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty { throw BusFixtureError("Xvfb exited before reporting its display") }
            text += String(decoding: byte, as: UTF8.self)
        }
        display = ":" + text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    deinit { stop() }

    /// Saves a PNG screenshot of the whole screen (xwd piped through ImageMagick's convert).
    public func screenshot(to path: String) throws {
        let shell = "xwd -root -silent -display \(display) | convert xwd:- png:\(path)"
        let r = try DaemonProcess.run("/bin/sh", ["-c", shell])
        if r.status != 0 { throw BusFixtureError("screenshot failed: \(r.stderr)") }
    }

    /// Kills Xvfb. SIGKILL, because children spawned from the test's worker threads inherit a mask that blocks
    /// SIGTERM.
    public func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
