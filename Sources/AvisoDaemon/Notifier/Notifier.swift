import AvisoCore
import AvisoProtocol

/// Delivers notifications to the desktop's notification server (the freedesktop org.freedesktop.Notifications
/// interface, over GDBus) and reports what the server does on its own (closes, restarts).
///
/// All D-Bus work happens on a dedicated GLib thread with asynchronous calls, so no caller ever waits on D-Bus and a
/// frozen server holds up nothing but its own answers. `onEvent` is called on that thread: keep it short (yield into
/// an AsyncStream, send to an actor).
public final class Notifier: Sendable {
    private let thread: GLibThread
    /// Whether `stop()` ends the thread too (false when it was handed in and is shared).
    private let ownsThread: Bool
    private let bus: NotificationBus

    /// Prepares a notifier; nothing touches D-Bus until `start()`.
    ///
    /// - Parameters:
    ///   - appName: the Notify `app_name` servers show and filter on (e.g. "aviso").
    ///   - desktopEntry: the `desktop-entry` hint, the desktop file name without ".desktop".
    ///   - onEvent: closes, actions and server appearances; called on the GLib thread, in order.
    ///   - thread: the GLib thread to work on, shared with the other bus users; nil for one of its own.
    public init(
        appName: String, desktopEntry: String, thread: GLibThread? = nil,
        onEvent: @escaping @Sendable (NotifierEvent) -> Void
    ) {
        self.thread = thread ?? GLibThread(name: "aviso-glib")
        ownsThread = thread == nil
        bus = NotificationBus(appName: appName, desktopEntry: desktopEntry, thread: self.thread, onEvent: onEvent)
    }

    deinit { stop() }

    /// Connects to the session bus, watches org.freedesktop.Notifications and subscribes to NotificationClosed.
    ///
    /// Returns once it is known whether a server is present (`currentOwner`); when one is, `serverAppeared` has been
    /// sent. Without a session bus it returns at once and `show` reports `.notShown` with `isNoServer`.
    public func start() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let queued = thread.perform { [bus] in bus.start { continuation.resume() } }
            if !queued { continuation.resume() }
        }
    }

    /// Sends `content` to the notification server and calls `completion` once with the outcome, on the GLib thread.
    ///
    /// Returns at once: the call is queued behind earlier ones and leaves in order; a server that is slow or frozen
    /// delays only the answer. `serverOwnerHint` is the owner the caller last heard of (from `serverAppeared`); when it
    /// differs from the owner whose capabilities are cached, they are fetched again before the body is formatted.
    public func show(
        _ popup: Popup, serverOwnerHint: String? = nil, completion: @escaping @Sendable (DeliveryOutcome) -> Void
    ) {
        let queued = thread.perform { [bus] in bus.show(popup, ownerHint: serverOwnerHint, completion: completion) }
        if !queued { completion(.notShown(Notifier.stoppedError)) }
    }

    /// `show`, awaited: the server's id for the popup and the unique name of the server that assigned it.
    ///
    /// Throws `DeliveryError` (with `isNoServer` when no server is on the bus) when the popup was not shown, or
    /// when it is unknown whether it was.
    public func show(
        _ content: Content, serverOwnerHint: String? = nil
    ) async throws(DeliveryError) -> (serverID: UInt32, owner: String) {
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<DeliveryOutcome, Never>) in
            show(Popup(content: content), serverOwnerHint: serverOwnerHint) { continuation.resume(returning: $0) }
        }
        switch outcome {
        case .shown(let id, let owner): return (id, owner)
        case .notShown(let error): throw error
        case .unconfirmed(let why): throw DeliveryError(isNoServer: false, message: why)
        }
    }

    /// Asks the server to close `serverID` (CloseNotification) without waiting; errors are ignored, as the popup is
    /// gone or the server that knew the id is.
    public func close(serverID: UInt32) {
        thread.perform { [bus] in bus.close(serverID: serverID) }
    }

    /// The server's name, vendor, version, spec version and capabilities; nil when no server answers.
    public func serverInfo() async -> ServerInfo? {
        await withCheckedContinuation { (continuation: CheckedContinuation<ServerInfo?, Never>) in
            let queued = thread.perform { [bus] in bus.serverInfo { continuation.resume(returning: $0) } }
            if !queued { continuation.resume(returning: nil) }
        }
    }

    /// The unique bus name of the current notification server (e.g. ":1.42"), nil when there is none.
    public var currentOwner: String? { bus.owner.withLock { $0 } }

    /// Unsubscribes and ends the GLib thread; afterwards `show` fails and no events arrive.
    /// Idempotent. Call it from outside `onEvent`.
    public func stop() {
        guard thread.perform({ [bus] in bus.stop() }) else { return }
        // From inside onEvent the thread cannot join itself; the queued teardown still runs, the thread idles.
        if ownsThread && !thread.isCurrent { thread.stop() }
    }

    private static let stoppedError = DeliveryError(isNoServer: false, message: "the notifier is stopped")
}
