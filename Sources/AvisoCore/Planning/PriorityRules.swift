/// Which priority class a request belongs to, and how many window slots each class may hold.
///
/// Classes run from 0 (highest) to 99 (lowest). A request's class comes from the longest configured prefix of its
/// identifier; an explicit `Priority=` (the request's `priority`) wins over any prefix; an identifier that matches no
/// prefix gets `unmatchedClass` (99). Budgets cap how many of the window's slots one class may hold.
public struct PriorityRules: Hashable, Sendable {
    /// One identifier prefix and the class it gives.
    public struct Prefix: Hashable, Sendable {
        /// Matched against the start of the identifier, case-sensitively ("alarm.").
        public var prefix: String { didSet { firstByte = Self.firstByte(of: prefix) } }
        /// 0...99.
        public var priorityClass: Int
        /// The byte an identifier must start with to start with the prefix, when its first character is one ASCII
        /// letter (an ASCII byte that no combining mark follows); nil when characters must be compared.
        private var firstByte: UInt8?

        /// A prefix rule; `priorityClass` should be in `PriorityRules.classRange`.
        public init(_ prefix: String, _ priorityClass: Int) {
            self.prefix = prefix
            self.priorityClass = priorityClass
            firstByte = Self.firstByte(of: prefix)
        }

        /// Whether an identifier whose first byte is `first` surely does not start with the prefix, without comparing
        /// characters: a start with 100,000 reminders classifies each one against every prefix.
        func cannotStart(_ first: UInt8?) -> Bool { firstByte.map { $0 != first } ?? false }

        private static func firstByte(of prefix: String) -> UInt8? {
            let p = Array(prefix.utf8.prefix(2))
            guard let a = p.first, a < 0x80, a != 0x0D, p.count == 1 || p[1] < 0x80 else { return nil }
            return a
        }
    }

    /// The valid classes.
    public static let classRange = 0...99
    /// The class of an identifier that matches no prefix: the lowest.
    public static let unmatchedClass = 99

    /// Longest prefix first, then alphabetical: the first match is the longest one, and the order is deterministic.
    public private(set) var prefixes: [Prefix]
    /// Class -> the most window slots it may hold; a class not listed has no budget.
    public var budgets: [Int: Int]

    /// Rules from prefix -> class and class -> budget; a prefix given twice keeps its last class.
    public init(prefixes: [String: Int] = [:], budgets: [Int: Int] = [:]) {
        self.prefixes = prefixes.map { Prefix($0.key, $0.value) }.sorted(by: Self.matchOrder)
        self.budgets = budgets
    }

    /// The shipped defaults: "set by the person > time-critical > engagement > ambient".
    ///
    /// | prefix | class | why |
    /// |---|---|---|
    /// | `user.` | 0 | set by the person by hand |
    /// | `alarm.`, `critical.` | 10 | time-critical: useless if late |
    /// | `calendar.`, `event.` | 20 | appointments from other programs |
    /// | `habit.`, `item-` | 50 | engagement: nudges that can wait (`item-`: items' reminders) |
    /// | `ambient.` | 90 | background information |
    /// | anything else | 99 | |
    ///
    /// No budgets by default. Declared reminders (files) are named by the person but carry no prefix: give them
    /// `Priority=` or a `user.` name if they must win ties against programs.
    public static let shipped = PriorityRules(prefixes: [
        "user.": 0,
        "alarm.": 10, "critical.": 10,
        "calendar.": 20, "event.": 20,
        "habit.": 50, "item-": 50,
        "ambient.": 90,
    ])

    /// The class of the request `id`: `override` when given (clamped to 0...99), else the class of the longest
    /// prefix of `id`, else 99.
    public func priorityClass(for id: String, override: Int? = nil) -> Int {
        if let override { return min(max(override, Self.classRange.lowerBound), Self.classRange.upperBound) }
        let first = id.utf8.first
        for rule in prefixes where !rule.cannotStart(first) && id.hasPrefix(rule.prefix) {
            return rule.priorityClass
        }
        return Self.unmatchedClass
    }

    /// The rules with `other`'s prefixes and budgets laid over these (a prefix or class in both takes `other`'s).
    public func merging(_ other: PriorityRules) -> PriorityRules {
        var byPrefix: [String: Int] = [:]
        for rule in prefixes { byPrefix[rule.prefix] = rule.priorityClass }
        for rule in other.prefixes { byPrefix[rule.prefix] = rule.priorityClass }
        return PriorityRules(prefixes: byPrefix, budgets: budgets.merging(other.budgets) { $1 })
    }

    private static func matchOrder(_ a: Prefix, _ b: Prefix) -> Bool {
        let (la, lb) = (a.prefix.utf8.count, b.prefix.utf8.count)
        return la != lb ? la > lb : a.prefix < b.prefix
    }
}
