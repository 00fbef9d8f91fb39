/// A notification request: a stable identifier, content and a trigger (UNNotificationRequest).
///
/// Adding a request whose identifier exists replaces the old one.
public struct Request: Hashable, Sendable, Codable {
    public var id: String
    public var content: Content
    public var trigger: Trigger

    public init(id: String, content: Content, trigger: Trigger) {
        self.id = id
        self.content = content
        self.trigger = trigger
    }
}

/// A request together with where it stands: its next deadline, as the scheduler keeps it.
public struct ScheduledRequest: Hashable, Sendable, Codable {
    public var request: Request
    /// When the request was added (wall and boot time of that moment).
    public var added: WallTime
    /// The next deadline; nil once a one-shot request has fired.
    public var next: Deadline?
    /// How many times it has fired.
    public var fireCount: Int

    public init(request: Request, added: WallTime, next: Deadline?, fireCount: Int = 0) {
        self.request = request
        self.added = added
        self.next = next
        self.fireCount = fireCount
    }
}
