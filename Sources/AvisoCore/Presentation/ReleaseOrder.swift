/// The order of notifications released together (due in the same second, or let go at once after resume, quiet hours
/// or a server's return), and of a summary's lines: descending relevance, then level, then due time, then identifier.
public enum ReleaseOrder {
    /// What the order looks at.
    public struct Key: Hashable, Sendable {
        /// 0...1; a request that gives none counts as 0.
        public var relevance: Double
        public var level: InterruptionLevel
        public var due: WallTime
        public var id: String

        public init(relevance: Double?, level: InterruptionLevel, due: WallTime, id: String) {
            self.relevance = relevance ?? 0
            self.level = level
            self.due = due
            self.id = id
        }
    }

    /// Whether `a` is shown before `b`: more relevant first, then more interrupting (critical first), then due
    /// earlier, then by identifier.
    public static func precedes(_ a: Key, _ b: Key) -> Bool {
        if a.relevance != b.relevance { return a.relevance > b.relevance }
        if a.level != b.level { return a.level.rank > b.level.rank }
        if a.due != b.due { return a.due < b.due }
        return a.id < b.id
    }

    /// `items` in release order.
    public static func sorted<T>(_ items: [T], by key: (T) -> Key) -> [T] {
        items.map { ($0, key($0)) }.sorted { precedes($0.1, $1.1) }.map(\.0)
    }
}

extension InterruptionLevel {
    /// passive 0 < active 1 < time-sensitive 2 < critical 3.
    public var rank: Int {
        switch self {
        case .passive: 0
        case .active: 1
        case .timeSensitive: 2
        case .critical: 3
        }
    }

    /// Whether it is shown during quiet hours (time-sensitive and critical break through).
    public var breaksThroughQuiet: Bool { rank >= InterruptionLevel.timeSensitive.rank }

    /// How the level is said to the notification server.
    public var hints: LevelHints {
        switch self {
        case .passive: LevelHints(urgency: 0, transient: true, suppressSound: true, resident: false, expireTimeout: -1)
        case .active, .timeSensitive: LevelHints(urgency: 1, transient: false, suppressSound: false, resident: false, expireTimeout: -1)
        case .critical: LevelHints(urgency: 2, transient: false, suppressSound: false, resident: true, expireTimeout: 0)
        }
    }
}

/// The freedesktop hints and timeout an interruption level maps to.
public struct LevelHints: Hashable, Sendable {
    /// The `urgency` byte: 0 low, 1 normal, 2 critical.
    public var urgency: UInt8
    /// `transient`: not kept in the server's history.
    public var transient: Bool
    /// `suppress-sound`.
    public var suppressSound: Bool
    /// `resident`: stays after an action is invoked.
    public var resident: Bool
    /// Notify's `expire_timeout`: -1 the server decides, 0 never expires.
    public var expireTimeout: Int32

    public init(urgency: UInt8, transient: Bool, suppressSound: Bool, resident: Bool, expireTimeout: Int32) {
        self.urgency = urgency
        self.transient = transient
        self.suppressSound = suppressSound
        self.resident = resident
        self.expireTimeout = expireTimeout
    }
}
