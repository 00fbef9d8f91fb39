/// How strongly a notification may interrupt, as iOS's UNNotificationInterruptionLevel.
public enum InterruptionLevel: String, Hashable, Sendable, Codable, CaseIterable {
    case passive
    case active
    case timeSensitive = "time-sensitive"
    case critical
}

/// What a notification says, as UNNotificationContent has it.
public struct Content: Hashable, Sendable, Codable {
    public var title: String
    public var subtitle: String
    public var body: String
    /// Notifications of one thread replace each other on screen (`x-dunst-stack-tag`, ...).
    public var threadID: String?
    /// The freedesktop `category` hint.
    public var categoryID: String?
    /// 0...1; nil when not given.
    public var relevance: Double?
    public var level: InterruptionLevel
    public var userInfo: [String: JSONValue]
    /// A local image path (`image-path` hint).
    public var image: String?
    /// How it reaches the screen; nil: as its category says, else at once.
    public var delivery: DeliveryMode?

    public init(
        title: String = "", subtitle: String = "", body: String = "", threadID: String? = nil,
        categoryID: String? = nil, relevance: Double? = nil, level: InterruptionLevel = .active,
        userInfo: [String: JSONValue] = [:], image: String? = nil, delivery: DeliveryMode? = nil
    ) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.threadID = threadID
        self.categoryID = categoryID
        self.relevance = relevance
        self.level = level
        self.userInfo = userInfo
        self.image = image
        self.delivery = delivery
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
}
