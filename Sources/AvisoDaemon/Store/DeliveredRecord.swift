import AvisoCore

/// A notification handed to the notification server and still tracked.
public struct DeliveredRecord: Hashable, Sendable {
    /// The request identifier.
    public var id: String
    /// What the popup says.
    public var content: Content
    /// When delivery began.
    public var delivered: WallTime
    /// The id the notification server gave the popup; nil until the server answered (or after it restarted).
    public var serverID: UInt32?
    /// The D-Bus unique name of the server that gave `serverID`; ids mean nothing to another server.
    public var serverOwner: String?

    /// A record; the store makes them in `beginDelivery`.
    public init(id: String, content: Content, delivered: WallTime, serverID: UInt32? = nil, serverOwner: String? = nil) {
        self.id = id
        self.content = content
        self.delivered = delivered
        self.serverID = serverID
        self.serverOwner = serverOwner
    }
}
