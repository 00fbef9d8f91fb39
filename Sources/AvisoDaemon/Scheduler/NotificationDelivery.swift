import AvisoCore
import AvisoProtocol

/// What the scheduler needs from a notification server connection; `Notifier` is the real one.
///
/// Every call may take as long as D-Bus does: the scheduler awaits it and keeps serving other work meanwhile.
public protocol NotificationDelivery: Sendable {
    /// Shows a popup; returns the server's id for it and the bus name of the server that took it.
    ///
    /// `serverOwnerHint` is the server the caller last heard of, so that a new server's capabilities are fetched
    /// before the body is formatted.
    func show(_ content: Content, serverOwnerHint: String?) async throws(DeliveryError) -> (serverID: UInt32, owner: String)
    /// Closes a popup; errors are ignored (it may be gone already).
    func close(serverID: UInt32) async
    /// The current server's identity and capabilities; nil when there is none.
    func serverInfo() async -> ServerInfo?
}

extension Notifier: NotificationDelivery {}
