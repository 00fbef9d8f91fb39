import Foundation

/// A built test server (`aviso-test-notifyd`, `aviso-test-logind`) run as a child process that takes commands on
/// stdin and prints one JSON event per line on stdout, "ready" first.
///
/// Events are kept in order and awaited one by one with a timeout that is a failure bound, never a delay. Lines
/// that do not decode as `Event` are skipped. The server is stopped when this object goes away.
public final class JSONLineProcess<Event: JSONLineEvent>: @unchecked Sendable {
    /// The executable's name, for error messages.
    public let name: String

    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let lines = LineChannel()

    /// Prepares (does not start) the product `name` with `arguments`, in this process's environment plus `environment`.
    public init(_ name: String, arguments: [String] = [], environment: [String: String] = [:]) {
        self.name = name
        process.executableURL = URL(fileURLWithPath: Products.path(name))
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
        process.standardInput = input
        process.standardOutput = output
    }

    deinit { stop() }

    /// Runs the server and returns its first event, which must be "ready".
    ///
    /// Throws (and stops the server) when the first event is anything else, e.g. "lost" because the bus is
    /// unreachable or the name is taken, or when nothing arrives within `timeout`.
    public func start(timeout: Duration) async throws -> Event {
        lines.attach(output.fileHandleForReading)
        try process.run()
        let first = try await next(timeout: timeout)
        guard first.event == "ready" else {
            stop()
            throw BusFixtureError("\(name) did not start: \(first)")
        }
        return first
    }

    /// The next event, of the given kind when `kind` is not nil (others are consumed and skipped), waiting at most
    /// `timeout`; throws when the server exits or the time is up first.
    public func next(_ kind: String? = nil, timeout: Duration) async throws -> Event {
        do {
            let line = try await lines.next(timeout: timeout) { line in
                guard let event = Self.decode(line) else { return false }
                return kind == nil || event.event == kind
            }
            return Self.decode(line)!
        } catch let error as BusFixtureError {
            throw BusFixtureError("\(name), waiting for \(kind.map { "a \"\($0)\" event" } ?? "an event"): \(error)")
        }
    }

    /// Every event printed so far, consumed or not.
    public var events: [Event] {
        lines.all.compactMap(Self.decode)
    }

    /// Sends one command line (without its newline) to the server's stdin; ignored once the server has exited.
    public func send(_ command: String) {
        try? input.fileHandleForWriting.write(contentsOf: Data((command + "\n").utf8))
    }

    /// Sends `signal` to the server while it runs (SIGSTOP freezes it as a hung server would be; SIGCONT thaws it).
    public func signal(_ signal: Int32) {
        if process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// Stops the server (its bus name is released when it exits) and waits for it; idempotent.
    public func stop() {
        guard process.isRunning else { return }
        // A frozen server cannot read "quit".
        kill(process.processIdentifier, SIGCONT)
        send("quit")
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    private static func decode(_ line: String) -> Event? {
        try? JSONDecoder().decode(Event.self, from: Data(line.utf8))
    }
}
