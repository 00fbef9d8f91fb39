/// The `aviso-test-logind` executable run as a child process: a stand-in for systemd-logind's Manager on a test
/// system bus that hands out inhibitor fds, reports when they are closed, and emits PrepareForSleep on command.
///
/// Call `start()` before use; it returns once the server owns org.freedesktop.login1. Events arrive in order through
/// `next(_:timeout:)`.
public final class TestLogind: @unchecked Sendable {
    /// One line the server printed.
    public struct Event: JSONLineEvent, Hashable {
        /// "ready", "inhibit" (an Inhibit call), "released" (an inhibitor fd was closed by every holder),
        /// "sleep"/"resume" (PrepareForSleep true/false was emitted), "get-user" (a GetUser call), "locked"/"unlocked"
        /// (LockedHint changed), "lost", "error".
        public var event: String
        /// The inhibitor number, counting from 1 ("inhibit", "released").
        public var id: Int?
        /// The server's unique bus name ("ready").
        public var unique: String?
        /// Inhibit's arguments ("inhibit").
        public var what: String?
        /// Inhibit's `who`.
        public var who: String?
        /// Inhibit's `why`.
        public var why: String?
        /// Inhibit's `mode`: "delay" or "block".
        public var mode: String?
        /// Why ("lost", "error").
        public var message: String?
        /// Why the name was lost ("lost").
        public var reason: String?
    }

    /// The server's unique bus name once started, e.g. ":1.3".
    public private(set) var unique: String = ""
    /// The bus the server is on.
    public let busAddress: String

    private let child: JSONLineProcess<Event>

    /// Prepares (does not start) a server on the bus at `busAddress` (passed to it as `DBUS_SYSTEM_BUS_ADDRESS`).
    public init(busAddress: String) {
        self.busAddress = busAddress
        child = JSONLineProcess("aviso-test-logind", environment: ["DBUS_SYSTEM_BUS_ADDRESS": busAddress])
    }

    /// Runs the server and waits until it owns org.freedesktop.login1.
    ///
    /// Throws when the name is already owned on that bus, the bus is unreachable, or nothing happens within `timeout`.
    public func start(timeout: Duration = .seconds(10)) async throws {
        unique = try await child.start(timeout: timeout).unique ?? ""
    }

    /// The next event, of the given kind when `kind` is not nil (others are skipped), waiting at most `timeout`
    /// (a failure bound, not a delay).
    public func next(_ kind: String? = nil, timeout: Duration = .seconds(10)) async throws -> Event {
        try await child.next(kind, timeout: timeout)
    }

    /// Every event printed so far, consumed or not.
    public var events: [Event] { child.events }

    /// Emits PrepareForSleep(true), as logind does just before suspend; a "sleep" event follows once it is out.
    public func sleep() { child.send("sleep") }

    /// Emits PrepareForSleep(false), as logind does after resume; a "resume" event follows once it is out.
    public func resume() { child.send("resume") }

    /// Sets the graphical session's LockedHint (a screen locker locking) and emits PropertiesChanged; a "locked"
    /// event follows once it is out.
    public func lock() { child.send("lock") }

    /// Clears LockedHint; an "unlocked" event follows.
    public func unlock() { child.send("unlock") }

    /// Stops the server (its bus name is released when it exits) and waits for it; idempotent.
    public func stop() { child.stop() }
}
