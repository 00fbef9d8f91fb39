/// Something a person does now and then and logs when they do (`[Item NAME]` in a reminder file): its reminders are
/// computed from that log, never from a fixed grid.
public struct Item: Hashable, Sendable {
    /// How an item's reminders follow from its log.
    public enum Kind: Hashable, Sendable {
        /// Due `days` after the day of the last log (`Kind=interval`, `Every=28d`).
        case interval(days: Int)
        /// Once a day until logged that day (`Kind=daily`); with `repeating`, during the day until a goal.
        case daily(Repeating?)
        /// On the last day of the week, when fewer than `times` were logged in it (`Kind=weekly`, `Times=3`).
        /// `weekStart` is a weekday, 0 = Sunday.
        case weekly(times: Int, weekStart: Int)
        /// When 1.5 × the average interval between logs has passed (`Kind=event`); needs three logs.
        case event

        /// "interval 28d", "daily", "daily every 1h30min 08:00-21:00", "weekly 3", "event".
        public var summary: String {
            switch self {
            case .interval(let days): "interval \(days)d"
            case .daily(nil): "daily"
            case .daily(let r?): "daily every \(TimeSpan.format(r.every)) \(r.from)-\(r.to)"
            case .weekly(let times, _): "weekly \(times)"
            case .event: "event"
            }
        }
    }

    /// Reminders during the day (`Repeat=90min`, `From=08:00`, `To=21:00`, `Goal=8`, `Unit=glasses`), counted from
    /// the last log of the day rather than from a grid.
    public struct Repeating: Hashable, Sendable {
        public var every: Span
        public var from: TimeOfDay
        public var to: TimeOfDay
        /// Silent for the rest of the day once the day's count reaches it; nil: never silent.
        public var goal: Int?
        /// What is counted ("glasses"), for the text.
        public var unit: String

        public init(every: Span, from: TimeOfDay = TimeOfDay(minutes: 8 * 60), to: TimeOfDay = TimeOfDay(minutes: 21 * 60),
                    goal: Int? = nil, unit: String = "") {
            self.every = every
            self.from = from
            self.to = to
            self.goal = goal
            self.unit = unit
        }
    }

    public var name: String
    public var title: String
    public var kind: Kind
    /// The person's hour, local time (floating: it follows the zone).
    public var at: TimeOfDay
    /// The body template (`Body=`, with `{days}`, `{streak}`, ...); nil: the kind's English default.
    public var body: String?
    /// The body before anything is logged (`NoLogBody=`), for `interval` and `daily`; nil: the default.
    public var noLogBody: String?
    public var category: String?
    public var priority: Int?

    public init(name: String, title: String = "", kind: Kind, at: TimeOfDay = TimeOfDay(minutes: 9 * 60),
                body: String? = nil, noLogBody: String? = nil, category: String? = nil, priority: Int? = nil) {
        self.name = name
        self.title = title.isEmpty ? name : title
        self.kind = kind
        self.at = at
        self.body = body
        self.noLogBody = noLogBody
        self.category = category
        self.priority = priority
    }

    /// The identifier prefix every item reminder has; requests under it belong to items alone.
    public static let requestPrefix = "item-"

    /// The request identifier of this item's reminder at `at`: unique per instant, so a re-plan that keeps a
    /// reminder keeps its identifier, and one that moves it never reuses the identifier of a popup already shown.
    public func requestID(at: WallTime) -> String {
        let c = CivilDateTime(secondsSinceEpoch: at.seconds)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return Self.requestPrefix + name + "-\(c.year)\(two(c.month))\(two(c.day))T\(two(c.hour))\(two(c.minute))\(two(c.second))Z"
    }

    /// The placeholders a template may use.
    public static let placeholders = ["days", "streak", "done", "goal", "unit", "average", "title"]

    /// Checks that `template` uses only known placeholders and closes its braces.
    public static func validateTemplate(_ template: String) throws(ValidationError) {
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else {
                throw ValidationError(.item, "'{' without its '}' in '\(template)'")
            }
            let name = String(rest[rest.index(after: open)..<close])
            guard placeholders.contains(name) else {
                throw ValidationError(.item, "unknown placeholder '{\(name)}'; known: "
                    + placeholders.map { "{\($0)}" }.joined(separator: ", "))
            }
            rest = rest[rest.index(after: close)...]
        }
    }

    /// `template` with each `{name}` replaced by its value; a placeholder without a value becomes "?".
    static func render(_ template: String, _ values: [String: String]) -> String {
        var out = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            out += rest[..<open]
            out += values[String(rest[rest.index(after: open)..<close])] ?? "?"
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }
}

/// One entry of an item's log: when it was done, and how many (`avisoctl log water --count 2`).
public struct ItemLogEntry: Hashable, Sendable {
    public var at: WallTime
    public var count: Int

    public init(at: WallTime, count: Int = 1) {
        self.at = at
        self.count = count
    }
}

extension ValidationError.Code {
    /// A mistake in an item or its log.
    public static let item = ValidationError.Code(rawValue: "item")
}
