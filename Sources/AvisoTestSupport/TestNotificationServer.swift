import AvisoCore
import Glibc

/// The `aviso-test-notifyd` executable run as a child process: a real org.freedesktop.Notifications server on a
/// given bus that reports every call it receives, and can be told to close notifications.
///
/// Call `start()` before use; it returns once the server owns the name. Events arrive in order through `next(timeout:)`.
public final class TestNotificationServer: @unchecked Sendable {
    /// One line the server printed: which call arrived and with what arguments.
    public struct Event: JSONLineEvent, Hashable {
        /// "ready", "notify", "close" (a CloseNotification call), "closed" (after a `close` command), "invoked",
        /// "replied", "token" (after `invoke` and `reply`), "bad-reply" (with --bad-replies), "lost", "error".
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
        /// CLOCK_REALTIME nanoseconds when the Notify or CloseNotification call arrived, or when the signal of
        /// "invoked"/"replied"/"token" was about to go out.
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

    private let child: JSONLineProcess<Event>

    /// Prepares (does not start) a server on the bus at `busAddress`.
    ///
    /// - Parameters:
    ///   - capabilities: what GetCapabilities reports; nil for the server's default (body, body-markup, actions,
    ///     persistence).
    ///   - name: the GetServerInformation name; nil for "aviso-test-notifyd".
    ///   - version: the GetServerInformation version; nil for "1.0".
    ///   - badReplies: answer every call (but CloseNotification) with a `(s)` tuple, as a non-conforming server might;
    ///     a Notify is still reported as "notify" (its id is what it would have been), followed by "bad-reply".
    ///   - ignoreReplaces: answer each Notify with a new id, whatever its replaces_id.
    ///   - invokeBeforeReply: emit ActionInvoked(id, KEY) for each Notify before answering it.
    public init(
        busAddress: String, capabilities: [String]? = nil, name: String? = nil, version: String? = nil,
        badReplies: Bool = false, ignoreReplaces: Bool = false, invokeBeforeReply: String? = nil
    ) {
        var arguments: [String] = badReplies ? ["--bad-replies"] : []
        if ignoreReplaces { arguments.append("--ignore-replaces") }
        if let invokeBeforeReply { arguments += ["--invoke-before-reply", invokeBeforeReply] }
        if let capabilities { arguments += ["--caps", capabilities.joined(separator: ",")] }
        if let name { arguments += ["--name", name] }
        if let version { arguments += ["--version", version] }
        child = JSONLineProcess(
            "aviso-test-notifyd", arguments: arguments, environment: ["DBUS_SESSION_BUS_ADDRESS": busAddress])
    }

    /// Runs the server and waits until it owns org.freedesktop.Notifications.
    ///
    /// Throws when the name is already owned on that bus, the bus is unreachable, or nothing happens within `timeout`.
    public func start(timeout: Duration = .seconds(10)) async throws {
        unique = try await child.start(timeout: timeout).unique ?? ""
    }

    /// The next event the server reported, waiting at most `timeout` (a failure bound, not a delay).
    public func next(timeout: Duration = .seconds(5)) async throws -> Event {
        try await child.next(timeout: timeout)
    }

    /// The next event of the given kind ("notify", "close", ...), skipping others.
    public func next(_ kind: String, timeout: Duration = .seconds(5)) async throws -> Event {
        try await child.next(kind, timeout: timeout)
    }

    /// Every event the server reported so far, awaited or not.
    public var events: [Event] { child.events }

    /// Makes the server emit NotificationClosed(id, reason), as if the user (2) or a timeout (1) closed it.
    /// A "closed" event follows once the signal is out.
    public func close(id: UInt32, reason: UInt32) {
        child.send("close \(id) \(reason)")
    }

    /// Makes the server emit ActionInvoked(id, key), as when a person clicks a button ("default": the popup itself),
    /// after ActivationToken(id, token) when a token is given. An "invoked" event follows once the signal is out.
    public func invoke(id: UInt32, key: String, token: String? = nil) {
        if let token { child.send("token \(id) \(token)") }
        child.send("action \(id) \(key)")
    }

    /// Makes the server emit NotificationReplied(id, text), as when a person sends an inline reply. A "replied" event
    /// follows.
    public func reply(id: UInt32, text: String) {
        child.send("reply \(id) \(text)")
    }

    /// Sends a signal to the server process: SIGSTOP freezes it as a hung server would be, SIGCONT thaws it.
    public func signal(_ signal: Int32) { child.signal(signal) }

    /// Stops the server (its bus name is released when it exits) and waits for it; idempotent.
    public func stop() { child.stop() }
}
