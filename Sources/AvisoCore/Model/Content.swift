/// How strongly a notification may interrupt, as iOS's UNNotificationInterruptionLevel.
public enum InterruptionLevel: String, Hashable, Sendable, Codable, CaseIterable {
    case passive
    case active
    case timeSensitive = "time-sensitive"
    case critical
}

/// What a notification says, as UNNotificationContent has it.
///
/// The category and level are held inline, the title and body as two strings of their own or, for a content read
/// from a reminder file, in the file's `TextArena`; the fields most notifications leave empty (subtitle, thread,
/// relevance, user info, image, delivery mode) live in one box, shared by copies and copied on the first change, and
/// absent while they are all empty: a model of 100,000 reminders holds a content in every request.
public struct Content: Hashable, Sendable, Codable {
    private var text: ContentText

    public var title: String {
        get { text.title }
        set { text = ContentText(title: newValue, body: text.body) }
    }

    public var body: String {
        get { text.body }
        set { text = ContentText(title: text.title, body: newValue) }
    }

    /// The freedesktop `category` hint.
    public var categoryID: String?
    /// After `extras`, so that it takes the byte after it: a content is 57 bytes, not 64, inline in each request.
    private var extras: Extras?
    public var level: InterruptionLevel

    private final class Extras: @unchecked Sendable {
        var subtitle = ""
        var threadID: String?
        var relevance: Double?
        var userInfo: [String: JSONValue] = [:]
        var image: String?
        var delivery: DeliveryMode?

        var isEmpty: Bool {
            subtitle.isEmpty && threadID == nil && relevance == nil && userInfo.isEmpty && image == nil && delivery == nil
        }

        func copy() -> Extras {
            let c = Extras()
            (c.subtitle, c.threadID, c.relevance, c.userInfo, c.image, c.delivery) =
                (subtitle, threadID, relevance, userInfo, image, delivery)
            return c
        }
    }

    /// The box, to be changed: made, or copied first when another value shares it; dropped again when it ends up
    /// empty. `clears`: the change sets a field to its empty value, which changes nothing when there is no box (a
    /// box was made and dropped again for each reminder read without `Thread=`).
    private mutating func changeExtras(clears: Bool, _ change: (Extras) -> Void) {
        if extras == nil && clears { return }
        if extras == nil {
            extras = Extras()
        } else if !isKnownUniquelyReferenced(&extras!) {
            extras = extras!.copy()
        }
        change(extras!)
        if extras!.isEmpty { extras = nil }
    }

    public var subtitle: String {
        get { extras?.subtitle ?? "" }
        set { changeExtras(clears: newValue.isEmpty) { $0.subtitle = newValue } }
    }

    /// Notifications of one thread replace each other on screen (`x-dunst-stack-tag`, ...).
    public var threadID: String? {
        get { extras?.threadID }
        set { changeExtras(clears: newValue == nil) { $0.threadID = newValue } }
    }

    /// 0...1; nil when not given.
    public var relevance: Double? {
        get { extras?.relevance }
        set { changeExtras(clears: newValue == nil) { $0.relevance = newValue } }
    }

    public var userInfo: [String: JSONValue] {
        get { extras?.userInfo ?? [:] }
        set { changeExtras(clears: newValue.isEmpty) { $0.userInfo = newValue } }
    }

    /// A local image path (`image-path` hint).
    public var image: String? {
        get { extras?.image }
        set { changeExtras(clears: newValue == nil) { $0.image = newValue } }
    }

    /// How it reaches the screen; nil: as its category says, else at once.
    public var delivery: DeliveryMode? {
        get { extras?.delivery }
        set { changeExtras(clears: newValue == nil) { $0.delivery = newValue } }
    }

    public init(
        title: String = "", subtitle: String = "", body: String = "", threadID: String? = nil,
        categoryID: String? = nil, relevance: Double? = nil, level: InterruptionLevel = .active,
        userInfo: [String: JSONValue] = [:], image: String? = nil, delivery: DeliveryMode? = nil
    ) {
        text = ContentText(title: title, body: body)
        self.categoryID = categoryID
        self.level = level
        // Most contents have none of these: then no box is made at all.
        guard !subtitle.isEmpty || threadID != nil || relevance != nil || !userInfo.isEmpty || image != nil || delivery != nil
        else { return }
        let e = Extras()
        (e.subtitle, e.threadID, e.relevance, e.userInfo, e.image, e.delivery) =
            (subtitle, threadID, relevance, userInfo, image, delivery)
        extras = e
    }

    /// A content read from a reminder file, whose title and body are in the file's `arena`.
    public init(title: TextArena.Run, subtitle: String = "", body: TextArena.Run, in arena: TextArena) {
        self.init(subtitle: subtitle)
        text = ContentText(title: title, body: body, in: arena)
    }

    public static func == (a: Content, b: Content) -> Bool {
        a.text == b.text && a.categoryID == b.categoryID && a.level == b.level
            && (a.extras === b.extras
                || (a.subtitle == b.subtitle && a.threadID == b.threadID && a.relevance == b.relevance
                    && a.userInfo == b.userInfo && a.image == b.image && a.delivery == b.delivery))
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(title)
        hasher.combine(subtitle)
        hasher.combine(body)
        hasher.combine(threadID)
        hasher.combine(categoryID)
        hasher.combine(relevance)
        hasher.combine(level)
        hasher.combine(userInfo)
        hasher.combine(image)
        hasher.combine(delivery)
    }
}

extension Content {
    private enum Key: String, CodingKey {
        case title, subtitle, body, threadID, categoryID, relevance, level, userInfo, image, delivery
    }

    /// Every field may be left out of JSON (a request written by hand for `sync` names only what it needs): text
    /// fields default to empty, `level` to active, `userInfo` to empty.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        self.init(
            title: try c.decodeIfPresent(String.self, forKey: .title) ?? "",
            subtitle: try c.decodeIfPresent(String.self, forKey: .subtitle) ?? "",
            body: try c.decodeIfPresent(String.self, forKey: .body) ?? "",
            threadID: try c.decodeIfPresent(String.self, forKey: .threadID),
            categoryID: try c.decodeIfPresent(String.self, forKey: .categoryID),
            relevance: try c.decodeIfPresent(Double.self, forKey: .relevance),
            level: try c.decodeIfPresent(InterruptionLevel.self, forKey: .level) ?? .active,
            userInfo: try c.decodeIfPresent([String: JSONValue].self, forKey: .userInfo) ?? [:],
            image: try c.decodeIfPresent(String.self, forKey: .image),
            delivery: try c.decodeIfPresent(DeliveryMode.self, forKey: .delivery))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(title, forKey: .title)
        try c.encode(subtitle, forKey: .subtitle)
        try c.encode(body, forKey: .body)
        try c.encodeIfPresent(threadID, forKey: .threadID)
        try c.encodeIfPresent(categoryID, forKey: .categoryID)
        try c.encodeIfPresent(relevance, forKey: .relevance)
        try c.encode(level, forKey: .level)
        try c.encode(userInfo, forKey: .userInfo)
        try c.encodeIfPresent(image, forKey: .image)
        try c.encodeIfPresent(delivery, forKey: .delivery)
    }
}
