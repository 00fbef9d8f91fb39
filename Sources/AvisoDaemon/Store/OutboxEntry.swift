import AvisoCore

/// A notification that is due but not yet handed to the notification server.
///
/// It stays in the store until `Store.beginDelivery` moves it to the delivered table, so a due notification survives
/// a crash or a missing notification server.
public struct OutboxEntry: Hashable, Sendable {
    /// The request identifier.
    public var id: String
    /// What the popup says.
    public var content: Content
    /// When it became due (the deadline, not the moment it was noticed).
    public var due: WallTime
    /// Whether it was noticed late (after suspend, downtime or a clock step), so the popup can say so.
    public var late: Bool

    /// An entry as the scheduler records it when a request fires.
    public init(id: String, content: Content, due: WallTime, late: Bool) {
        self.id = id
        self.content = content
        self.due = due
        self.late = late
    }
}
