/// A notification request: a stable identifier, content and a trigger (UNNotificationRequest).
///
/// Adding a request whose identifier exists replaces the old one.
public struct Request: Hashable, Sendable, Codable {
    public var id: String
    public var content: Content
    public var trigger: Trigger
    /// An occurrence delivered later than this after its due time is skipped (and the skip recorded); nil: the
    /// configured default applies.
    public var maxLate: Span?
    /// The priority class (0 highest ... 99 lowest) when set explicitly; nil: derived from the identifier's prefix.
    public var priority: Int?

    public init(id: String, content: Content, trigger: Trigger, maxLate: Span? = nil, priority: Int? = nil) {
        self.id = id
        self.content = content
        self.trigger = trigger
        self.maxLate = maxLate
        self.priority = priority
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
    /// The wall-clock time of the last firing, if any.
    public var lastFired: WallTime?
    /// Where the request comes from: nil for the control socket, else the reminder file that declares it.
    public var source: String?

    public init(
        request: Request, added: WallTime, next: Deadline?, fireCount: Int = 0, lastFired: WallTime? = nil,
        source: String? = nil
    ) {
        self.request = request
        self.added = added
        self.next = next
        self.fireCount = fireCount
        self.lastFired = lastFired
        self.source = source
    }
}
