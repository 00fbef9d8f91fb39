import AvisoCore
import Foundation

/// The `aviso-test-notifyd` executable run as a child process: a real org.freedesktop.Notifications server on a
/// given bus that reports every call it receives, and can be told to close notifications.
///
/// Call `start()` before use; it returns once the server owns the name. Events arrive in order through `next(timeout:)`.
public final class TestNotificationServer: @unchecked Sendable {
    /// One line the server printed: which call arrived and with what arguments.
    public struct Event: Decodable, Hashable, Sendable {
        /// "ready", "notify", "close" (a CloseNotification call), "closed" (after a `close` command), "lost", "error".
        public var event: String
        /// The notification id ("notify": the id the server assigned; "close"/"closed": the id closed).
        public var id: UInt32?
        /// The server's unique bus name ("ready").
        public var unique: String?
        /// The Notify arguments, as sent ("notify" only).
        public var appName: String?
        /// Notify's `replaces_id`.
        public var replacesID: UInt32?
        /// Notify's `app_icon`.
        public var appIcon: String?
        /// Notify's `summary`.
        public var summary: String?
        /// Notify's `body`, markup and all.
        public var body: String?
        /// Notify's `actions`: key, label, key, label, ...
        public var actions: [String]?
        /// Hint values as JSON: bytes and integers are numbers, strings are strings.
        public var hints: [String: JSONValue]?
        /// Notify's `expire_timeout`: -1 server default, 0 never.
        public var expireTimeout: Int32?
        /// CLOCK_REALTIME nanoseconds when the Notify call arrived.
        public var atNs: Int64?
        /// The NotificationClosed reason ("closed").
        public var reason: UInt32?
        /// Why ("lost", "error").
        public var message: String?

        enum CodingKeys: String, CodingKey {
            case event, id, unique, summary, body, actions, hints, reason, message
            case appName = "app_name", replacesID = "replaces_id", appIcon = "app_icon"
            case expireTimeout = "expire_timeout", atNs = "at_ns"
        }
    }

    /// The server's unique bus name once started, e.g. ":1.7".
    public private(set) var unique: String = ""

    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let lock = NSLock()
    private var buffered: [Event] = []
    private var pending: Data = Data()
    private var waiter: (id: Int, continuation: CheckedContinuation<Event, any Error>)?
    private var nextWaiterID = 0
    private var ended = false
    /// Waiters whose timeout fired before they were installed.
    private var expired: Set<Int> = []

    /// Prepares (does not start) a server on the bus at `busAddress`.
    ///
    /// - Parameters:
    ///   - capabilities: what GetCapabilities reports; nil for the server's default (body, body-markup, actions,
    ///     persistence).
    ///   - name: the GetServerInformation name; nil for "aviso-test-notifyd".
    ///   - version: the GetServerInformation version; nil for "1.0".
    public init(busAddress: String, capabilities: [String]? = nil, name: String? = nil, version: String? = nil) {
        process.executableURL = URL(fileURLWithPath: Products.path("aviso-test-notifyd"))
        var arguments: [String] = []
        if let capabilities { arguments += ["--caps", capabilities.joined(separator: ",")] }
        if let name { arguments += ["--name", name] }
        if let version { arguments += ["--version", version] }
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = busAddress
        process.environment = environment
        process.standardInput = input
        process.standardOutput = output
    }

    deinit { stop() }

    /// Runs the server and waits until it owns org.freedesktop.Notifications.
    ///
    /// Throws when the name is already owned on that bus, the bus is unreachable, or nothing happens within `timeout`.
    public func start(timeout: Duration = .seconds(10)) async throws {
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            self?.received(handle.availableData)
        }
        try process.run()
        let first = try await next(timeout: timeout)
        guard first.event == "ready", let unique = first.unique else {
            stop()
            throw BusFixtureError("aviso-test-notifyd did not start: \(first)")
        }
        self.unique = unique
    }

    /// The next event the server reported, waiting at most `timeout` (a failure bound, not a delay).
    public func next(timeout: Duration = .seconds(5)) async throws -> Event {
        let id: Int = lock.withLock {
            nextWaiterID += 1
            return nextWaiterID
        }
        let timer = Task { [weak self] in
            try await Task.sleep(for: timeout)
            self?.fail(waiter: id, BusFixtureError("no event from aviso-test-notifyd within \(timeout)"))
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            lock.lock()
            if !buffered.isEmpty {
                let event = buffered.removeFirst()
                lock.unlock()
                continuation.resume(returning: event)
            } else if ended {
                lock.unlock()
                continuation.resume(throwing: BusFixtureError("aviso-test-notifyd exited"))
            } else if expired.remove(id) != nil {
                lock.unlock()
                continuation.resume(throwing: BusFixtureError("no event from aviso-test-notifyd within \(timeout)"))
            } else {
                precondition(waiter == nil, "one next() at a time")
                waiter = (id, continuation)
                lock.unlock()
            }
        }
    }

    /// The next event of the given kind ("notify", "close", ...), skipping others.
    public func next(_ kind: String, timeout: Duration = .seconds(5)) async throws -> Event {
        let deadline = ContinuousClock.now + timeout
        while true {
            let event = try await next(timeout: max(deadline - ContinuousClock.now, .zero))
            if event.event == kind { return event }
        }
    }

    /// Makes the server emit NotificationClosed(id, reason), as if the user (2) or a timeout (1) closed it.
    /// A "closed" event follows once the signal is out.
    public func close(id: UInt32, reason: UInt32) {
        send("close \(id) \(reason)\n")
    }

    /// Stops the server (its bus name is released when it exits) and waits for it; idempotent.
    public func stop() {
        guard process.isRunning else { return }
        send("quit\n")
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    private func send(_ line: String) {
        try? input.fileHandleForWriting.write(contentsOf: Data(line.utf8))
    }

    private func received(_ data: Data) {
        var ready: [Event] = []
        lock.lock()
        if data.isEmpty {
            ended = true
            output.fileHandleForReading.readabilityHandler = nil
        }
        pending.append(data)
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            let line = pending[pending.startIndex..<newline]
            pending = Data(pending[(newline + 1)...])
            if let event = try? JSONDecoder().decode(Event.self, from: line) { ready.append(event) }
        }
        buffered += ready
        let resume: (CheckedContinuation<Event, any Error>, Result<Event, any Error>)?
        if let waiter, !buffered.isEmpty {
            resume = (waiter.continuation, .success(buffered.removeFirst()))
            self.waiter = nil
        } else if let waiter, ended {
            resume = (waiter.continuation, .failure(BusFixtureError("aviso-test-notifyd exited")))
            self.waiter = nil
        } else {
            resume = nil
        }
        lock.unlock()
        resume.map { $0.0.resume(with: $0.1) }
    }

    private func fail(waiter id: Int, _ error: BusFixtureError) {
        lock.lock()
        guard let waiter, waiter.id == id else {
            expired.insert(id)
            return lock.unlock()
        }
        self.waiter = nil
        lock.unlock()
        waiter.continuation.resume(throwing: error)
    }
}
