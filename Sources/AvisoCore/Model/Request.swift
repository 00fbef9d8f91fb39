/// A notification request: a stable identifier, content and a trigger (UNNotificationRequest).
///
/// Adding a request whose identifier exists replaces the old one.
///
/// A value type whose fields live in one shared box, copied on the first change (as Array's elements): a model
/// holds each request in several places (its file's declarations, the directory's table, the scheduler's table), and
/// each copy costs a pointer, not the 300 bytes of the fields.
public struct Request: Hashable, Sendable, Codable {
    /// `maxLate` and `priority`, which few requests set, live in a box of their own, absent while both are nil: the
    /// box of fields is 88 bytes, a 96-byte block of the heap, which the two inline would make a 112-byte one.
    private final class Fields: @unchecked Sendable {
        var id: String
        var content: Content
        var trigger: Trigger
        private var rare: Rare?

        /// Never changed once made: a change makes a new one.
        private final class Rare: Sendable {
            let maxLate: Span?
            let priority: Int?

            init(maxLate: Span?, priority: Int?) {
                self.maxLate = maxLate
                self.priority = priority
            }
        }

        var maxLate: Span? {
            get { rare?.maxLate }
            set { setRare(maxLate: newValue, priority: priority) }
        }

        var priority: Int? {
            get { rare?.priority }
            set { setRare(maxLate: maxLate, priority: newValue) }
        }

        private func setRare(maxLate: Span?, priority: Int?) {
            rare = maxLate == nil && priority == nil ? nil : Rare(maxLate: maxLate, priority: priority)
        }

        init(id: String, content: Content, trigger: Trigger, maxLate: Span?, priority: Int?) {
            self.id = id
            self.content = content
            self.trigger = trigger
            setRare(maxLate: maxLate, priority: priority)
        }
    }

    private var fields: Fields

    public init(id: String, content: Content, trigger: Trigger, maxLate: Span? = nil, priority: Int? = nil) {
        fields = Fields(id: id, content: content, trigger: trigger, maxLate: maxLate, priority: priority)
    }

    /// The box, to be changed: copied first when another value shares it.
    private mutating func changing() -> Fields {
        if !isKnownUniquelyReferenced(&fields) {
            fields = Fields(id: fields.id, content: fields.content, trigger: fields.trigger, maxLate: fields.maxLate,
                            priority: fields.priority)
        }
        return fields
    }

    public var id: String {
        get { fields.id }
        set { changing().id = newValue }
    }

    public var content: Content {
        get { fields.content }
        set { changing().content = newValue }
    }

    public var trigger: Trigger {
        get { fields.trigger }
        set { changing().trigger = newValue }
    }

    /// `content.categoryID`, read without copying the whole content: a start reads it for 100,000 requests.
    public var categoryID: String? { fields.content.categoryID }

    /// `content.image`, likewise.
    public var image: String? { fields.content.image }

    /// An occurrence delivered later than this after its due time is skipped (and the skip recorded); nil: the
    /// configured default applies.
    public var maxLate: Span? {
        get { fields.maxLate }
        set { changing().maxLate = newValue }
    }

    /// The priority class (0 highest ... 99 lowest) when set explicitly; nil: derived from the identifier's prefix.
    public var priority: Int? {
        get { fields.priority }
        set { changing().priority = newValue }
    }

    public static func == (a: Request, b: Request) -> Bool {
        a.fields === b.fields
            || (a.id == b.id && a.content == b.content && a.trigger == b.trigger && a.maxLate == b.maxLate
                && a.priority == b.priority)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(content)
        hasher.combine(trigger)
        hasher.combine(maxLate)
        hasher.combine(priority)
    }

    private enum CodingKeys: String, CodingKey { case id, content, trigger, maxLate, priority }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try c.decode(String.self, forKey: .id), content: try c.decode(Content.self, forKey: .content),
                  trigger: try c.decode(Trigger.self, forKey: .trigger),
                  maxLate: try c.decodeIfPresent(Span.self, forKey: .maxLate),
                  priority: try c.decodeIfPresent(Int.self, forKey: .priority))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(content, forKey: .content)
        try c.encode(trigger, forKey: .trigger)
        try c.encodeIfPresent(maxLate, forKey: .maxLate)
        try c.encodeIfPresent(priority, forKey: .priority)
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
