import AvisoCore
import AvisoProtocol

/// Delivers notifications to the desktop's notification server through libnotify, and reports what the server does
/// on its own (closes, restarts).
///
/// All libnotify and GDBus work happens on a dedicated GLib thread, so awaiting `show` never blocks the caller's
/// executor on D-Bus. `onEvent` is called on that thread: keep it short (yield into an AsyncStream, send to an actor).
///
/// libnotify keeps process-wide state, so run one `Notifier` per process at a time; `start()` takes that state over.
public final class Notifier: Sendable {
    private let thread: GLibThread
    private let bus: NotificationBus

    /// Prepares a notifier; nothing touches D-Bus until `start()`.
    ///
    /// - Parameters:
    ///   - appName: the Notify `app_name` servers show and filter on (e.g. "aviso").
    ///   - desktopEntry: the `desktop-entry` hint, the desktop file name without ".desktop".
    ///   - onEvent: closes and server appearances; called on the GLib thread, in order.
    public init(appName: String, desktopEntry: String, onEvent: @escaping @Sendable (NotifierEvent) -> Void) {
        thread = GLibThread(name: "aviso-glib")
        bus = NotificationBus(appName: appName, desktopEntry: desktopEntry, onEvent: onEvent)
    }

    deinit { stop() }

    /// Connects to the session bus, watches org.freedesktop.Notifications and subscribes to NotificationClosed.
    ///
    /// Returns once it is known whether a server is present (`currentOwner`); when one is, `serverAppeared` has been
    /// sent. Without a session bus it returns at once and `show` reports `isNoServer`.
    public func start() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let queued = thread.perform { [bus] in bus.start { continuation.resume() } }
            if !queued { continuation.resume() }
        }
    }

    /// Shows `content` and returns the server's id for it and the unique name of the server that assigned it.
    ///
    /// `serverOwnerHint` is the owner the caller last heard of (from `serverAppeared`); when it differs from the
    /// owner whose capabilities are cached, they are fetched again before the body is formatted.
    /// Throws `DeliveryError` with `isNoServer` when no server is on the bus (then wait for `serverAppeared`).
    public func show(
        _ content: Content, serverOwnerHint: String? = nil
    ) async throws(DeliveryError) -> (serverID: UInt32, owner: String) {
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<(serverID: UInt32, owner: String), DeliveryError>, Never>) in
            let queued = thread.perform { [bus] in
                continuation.resume(returning: bus.show(content, ownerHint: serverOwnerHint))
            }
            if !queued { continuation.resume(returning: .failure(Notifier.stoppedError)) }
        }
        return try result.get()
    }

    /// Asks the server to close `serverID` (CloseNotification); errors are ignored, as the popup is gone or the server
    /// that knew the id is.
    public func close(serverID: UInt32) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let queued = thread.perform { [bus] in
                bus.close(serverID: serverID)
                continuation.resume()
            }
            if !queued { continuation.resume() }
        }
    }

    /// The server's name, vendor, version, spec version and capabilities; nil when no server answers.
    public func serverInfo() async -> ServerInfo? {
        return await withCheckedContinuation { (continuation: CheckedContinuation<ServerInfo?, Never>) in
            let queued = thread.perform { [bus] in continuation.resume(returning: bus.serverInfo()) }
            if !queued { continuation.resume(returning: nil) }
        }
    }

    /// The unique bus name of the current notification server (e.g. ":1.42"), nil when there is none.
    public var currentOwner: String? { bus.owner.withLock { $0 } }

    /// Unsubscribes, uninitialises libnotify and ends the GLib thread; afterwards `show` fails and no events arrive.
    /// Idempotent. Call it from outside `onEvent`.
    public func stop() {
        guard thread.perform({ [bus] in bus.stop() }) else { return }
        // From inside onEvent the thread cannot join itself; the queued teardown still runs, the thread idles.
        if !thread.isCurrent { thread.stop() }
    }

    private static let stoppedError = DeliveryError(isNoServer: false, message: "the notifier is stopped")
}
