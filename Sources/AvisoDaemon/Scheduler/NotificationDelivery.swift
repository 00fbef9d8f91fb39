import AvisoCore
import AvisoProtocol

/// What the scheduler needs from a notification server connection; `Notifier` is the real one.
///
/// Nothing here makes the scheduler wait on D-Bus: `show` and `close` return at once, and the answer to `show`
/// comes back through its completion.
public protocol NotificationDelivery: Sendable {
    /// Sends a popup; `completion` runs once with the outcome, on the delivery's own thread. Popups leave in the
    /// order `show` is called.
    ///
    /// `serverOwnerHint` is the server the caller last heard of, so that a new server's capabilities are fetched
    /// before the body is formatted.
    func show(_ popup: Popup, serverOwnerHint: String?, completion: @escaping @Sendable (DeliveryOutcome) -> Void)
    /// Closes a popup; errors are ignored (it may be gone already).
    func close(serverID: UInt32)
    /// The current server's identity and capabilities; nil when there is none.
    func serverInfo() async -> ServerInfo?
}

extension Notifier: NotificationDelivery {}
