/// How strongly a notification may interrupt, as iOS's UNNotificationInterruptionLevel.
public enum InterruptionLevel: String, Hashable, Sendable, Codable, CaseIterable {
    case passive
    case active
    case timeSensitive = "time-sensitive"
    case critical
}

/// What a notification says, as UNNotificationContent has it.
///
/// The level is held inline, the title and body as two strings of their own or, for a content read from a reminder
/// file, in the file's `TextArena`; the fields many notifications leave empty (subtitle, thread, category, relevance,
/// user info, image, delivery mode) live in one box, shared by copies and copied on the first change, absent while
/// they are all empty, and shared by the contents of one reminder file that have equal ones (`SharedExtras`): a model
/// of 100,000 reminders holds a content in every request.
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

    private var extras: Extras?
    /// Last, in the byte after `extras`: a content is 25 bytes inline in each request (41 with the category inline
    /// too, which made the request's box a 112-byte block of the heap, not a 96-byte one).
    public var level: InterruptionLevel

    /// The rarely set fields as one value: what a box holds, and what equal boxes are found by.
    fileprivate struct Extra: Hashable {
        var subtitle = ""
        var threadID: String?
        var categoryID: String?
        var relevance: Double?
        var userInfo: [String: JSONValue] = [:]
        var image: String?
        var delivery: DeliveryMode?

        var isEmpty: Bool {
            subtitle.isEmpty && threadID == nil && categoryID == nil && relevance == nil && userInfo.isEmpty
                && image == nil && delivery == nil
        }
    }

    fileprivate final class Extras: @unchecked Sendable {
        var value: Extra
        init(_ value: Extra) { self.value = value }
    }

    /// The box, to be changed: made, or copied first when another value shares it; dropped again when it ends up
    /// empty. `clears`: the change sets a field to its empty value, which changes nothing when there is no box (a
    /// box was made and dropped again for each reminder read without `Thread=`).
    private mutating func changeExtras(clears: Bool, _ change: (inout Extra) -> Void) {
        if extras == nil && clears { return }
        if extras == nil {
            extras = Extras(Extra())
        } else if !isKnownUniquelyReferenced(&extras!) {
            extras = Extras(extras!.value)
        }
        change(&extras!.value)
        if extras!.value.isEmpty { extras = nil }
    }

    public var subtitle: String {
        get { extras?.value.subtitle ?? "" }
        set { changeExtras(clears: newValue.isEmpty) { $0.subtitle = newValue } }
    }

    /// Notifications of one thread replace each other on screen (`x-dunst-stack-tag`, ...).
    public var threadID: String? {
        get { extras?.value.threadID }
        set { changeExtras(clears: newValue == nil) { $0.threadID = newValue } }
    }

    /// The freedesktop `category` hint.
    public var categoryID: String? {
        get { extras?.value.categoryID }
        set { changeExtras(clears: newValue == nil) { $0.categoryID = newValue } }
    }

    /// 0...1; nil when not given.
    public var relevance: Double? {
        get { extras?.value.relevance }
        set { changeExtras(clears: newValue == nil) { $0.relevance = newValue } }
    }

    public var userInfo: [String: JSONValue] {
        get { extras?.value.userInfo ?? [:] }
        set { changeExtras(clears: newValue.isEmpty) { $0.userInfo = newValue } }
    }

    /// A local image path (`image-path` hint).
    public var image: String? {
        get { extras?.value.image }
        set { changeExtras(clears: newValue == nil) { $0.image = newValue } }
    }

    /// How it reaches the screen; nil: as its category says, else at once.
    public var delivery: DeliveryMode? {
        get { extras?.value.delivery }
        set { changeExtras(clears: newValue == nil) { $0.delivery = newValue } }
    }

    public init(
        title: String = "", subtitle: String = "", body: String = "", threadID: String? = nil,
        categoryID: String? = nil, relevance: Double? = nil, level: InterruptionLevel = .active,
        userInfo: [String: JSONValue] = [:], image: String? = nil, delivery: DeliveryMode? = nil
    ) {
        text = ContentText(title: title, body: body)
        self.level = level
        let extra = Extra(subtitle: subtitle, threadID: threadID, categoryID: categoryID, relevance: relevance,
                          userInfo: userInfo, image: image, delivery: delivery)
        // Most contents have none of these: then no box is made at all.
        extras = extra.isEmpty ? nil : Extras(extra)
    }

    /// A content read from a reminder file, whose title and body are in the file's `arena`.
    public init(title: TextArena.Run, subtitle: String = "", body: TextArena.Run, in arena: TextArena) {
        self.init(subtitle: subtitle)
        text = ContentText(title: title, body: body, in: arena)
    }

    /// Shares the box of extras with the contents before it in `shared` that have equal ones.
    public mutating func shareExtras(in shared: SharedExtras) {
        guard let box = extras else { return }
        if let kept = shared.boxes[box.value] { extras = kept } else { shared.boxes[box.value] = box }
    }

    public static func == (a: Content, b: Content) -> Bool {
        a.text == b.text && a.level == b.level
            && (a.extras === b.extras || (a.extras?.value ?? Extra()) == (b.extras?.value ?? Extra()))
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

/// The boxes of extras of one reminder file's contents, each distinct one kept once: its reminders of one category
/// share one box. Used while the file is parsed, on its thread.
public final class SharedExtras {
    fileprivate var boxes: [Content.Extra: Content.Extras] = [:]

    public init() {}
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
