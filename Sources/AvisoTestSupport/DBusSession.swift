import Foundation

/// A private D-Bus session bus (`dbus-daemon`) on a Unix socket in a temporary directory, for tests that need a real
/// bus without touching the user's.
///
/// The daemon is stopped by `stop()` or when the object is released. GLib caches the session bus connection for the
/// whole process (and libnotify keeps global state), so in-process code under test should use `DBusSession.shared`,
/// which also points `DBUS_SESSION_BUS_ADDRESS` at it; child processes can be given any session's `address`.
public final class DBusSession: @unchecked Sendable {
    /// The bus address, e.g. `unix:path=/tmp/aviso-dbus-XXXX/bus,guid=...`; pass it as `DBUS_SESSION_BUS_ADDRESS`.
    public let address: String
    /// The temporary directory holding the socket and configuration; removed by `stop()`.
    public let directory: String
    private let process: Process
    private let lock = NSLock()
    private var stopped = false

    /// Starts `dbus-daemon` and waits until it has printed its address (it is listening by then).
    ///
    /// Throws when `dbus-daemon` is missing or exits without printing an address.
    public init() throws {
        var template = Array((NSTemporaryDirectory() + "/aviso-dbus-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw BusFixtureError("mkdtemp failed: errno \(errno)") }
        directory = String(cString: made)
        let config = directory + "/session.conf"
        try DBusSession.configuration(socket: directory + "/bus").write(toFile: config, atomically: true, encoding: .utf8)

        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        process.arguments = ["--config-file=\(config)", "--nofork", "--print-address=1"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // dbus-daemon prints the address only after it listens, so one blocking line read is the readiness signal.
        var line = Data()
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { break }
            line.append(byte)
        }
        guard let text = String(data: line, encoding: .utf8), !text.isEmpty else {
            kill(process.processIdentifier, SIGKILL)
            throw BusFixtureError("dbus-daemon exited without printing its address")
        }
        address = text
    }

    deinit { stop() }

    /// Stops the daemon and removes its directory; idempotent.
    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        if stopped { return }
        stopped = true
        if process.isRunning {
            // SIGKILL, not terminate(): children inherit the test process's signal mask, and tests of signal
            // handling block SIGTERM process-wide, so a SIGTERM could stay pending forever.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The process-wide bus for in-process D-Bus clients: started once, exported as `DBUS_SESSION_BUS_ADDRESS`
    /// before any GLib code connects, and kept for the life of the test process.
    public static let shared: DBusSession = {
        do {
            let session = try DBusSession()
            setenv("DBUS_SESSION_BUS_ADDRESS", session.address, 1)
            // A static is never released, so stop the daemon when the test process exits normally.
            atexit { DBusSession.shared.stop() }
            return session
        } catch {
            fatalError("cannot start the shared test D-Bus session: \(error)")
        }
    }()

    private static func configuration(socket: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:path=\(socket)</listen>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>
        """
    }
}

/// A D-Bus test fixture (bus, test notification server) failed or timed out; the message says which and why.
public struct BusFixtureError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, for the test log.
    public var message: String
    /// Wraps a message.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}
