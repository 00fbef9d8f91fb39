import AvisoCore
import AvisoProtocol

/// An `[Item NAME]` group of a reminder file, with where it is.
public struct DeclaredItem: Hashable, Sendable {
    public var item: Item
    public var file: String
    /// The line of the `[Item NAME]` header.
    public var line: Int
    /// The line of `Category=`, for a category that nothing declares.
    public var categoryLine: Int

    public init(item: Item, file: String, line: Int, categoryLine: Int? = nil) {
        self.item = item
        self.file = file
        self.line = line
        self.categoryLine = categoryLine ?? line
    }
}

/// Turns the keys of one `[Item NAME]` group into an item, collecting every problem with its line.
///
/// ```
/// [Item water]
/// Title=Water
/// Kind=daily
/// Repeat=90min
/// From=08:00
/// To=21:00
/// Goal=8
/// Unit=glasses
/// ```
struct ItemBuilder {
    /// The keys an `[Item NAME]` group may hold.
    static let knownKeys: Set<String> = [
        "Title", "Kind", "At", "Body", "NoLogBody", "Category", "Priority", "Every", "Times", "WeekStart", "Repeat",
        "From", "To", "Goal", "Unit",
    ]
    static let groupPrefix = "Item "
    static let kinds = ["interval", "daily", "weekly", "event"]
    static let weekdays = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]

    let name: String
    let group: String
    let groupLine: Int?
    let values: GroupValues
    private(set) var problems: [ReminderBuilder.Problem] = []

    init(name: String, group: String, groupLine: Int?, values: GroupValues) {
        self.name = name
        self.group = group
        self.groupLine = groupLine
        self.values = values
    }

    /// The item, or nil when a problem was recorded.
    mutating func build() -> Item? {
        let at = timeOfDay("At") ?? TimeOfDay(minutes: 9 * 60)
        var priority: Int?
        if let (value, line) = entry("Priority") {
            if let p = Int(value), PriorityRules.classRange.contains(p) { priority = p } else {
                fail(line, "Priority='\(value)' is not a priority class; give a whole number from 0 (highest) to 99 (lowest)")
            }
        }
        for key in ["Body", "NoLogBody"] {
            guard let (value, line) = entry(key) else { continue }
            do throws(ValidationError) { try Item.validateTemplate(value) } catch { fail(line, "\(key)=: \(error.message)") }
        }
        guard let kindEntry = entry("Kind") else {
            fail(groupLine, "item '\(name)' has no Kind=; give one of \(Self.kinds.joined(separator: ", "))")
            return nil
        }
        let kind = buildKind(kindEntry.0.lowercased(), line: kindEntry.1)
        guard problems.isEmpty, let kind else { return nil }
        return Item(name: name, title: values["Title"]?.value ?? "", kind: kind, at: at, body: values["Body"]?.value,
                    noLogBody: values["NoLogBody"]?.value, category: optional("Category"), priority: priority)
    }

    private mutating func buildKind(_ kind: String, line: Int?) -> Item.Kind? {
        let perKind: [String: Set<String>] = [
            "interval": ["Every"], "weekly": ["Times", "WeekStart"],
            "daily": ["Repeat", "From", "To", "Goal", "Unit"], "event": [],
        ]
        guard let own = perKind[kind] else {
            fail(line, "Kind='\(kind)' is not one of \(Self.kinds.joined(separator: ", "))")
            return nil
        }
        for (other, keys) in perKind where other != kind {
            for key in keys.subtracting(own).sorted() where values[key] != nil {
                fail(values[key]?.line, "\(key)= applies to Kind=\(other), not Kind=\(kind)")
            }
        }
        switch kind {
        case "interval":
            guard let (value, everyLine) = entry("Every") else {
                fail(line, "Kind=interval needs Every=, a number of days like 28d")
                return nil
            }
            guard let span = try? TimeSpan.parse(value), span.nanoseconds > 0, span.nanoseconds % 86_400_000_000_000 == 0,
                  span.nanoseconds / 86_400_000_000_000 <= 36_500 else {
                fail(everyLine, "Every='\(value)' is not a whole number of days from 1d to 36500d, like 28d")
                return nil
            }
            return .interval(days: Int(span.nanoseconds / 86_400_000_000_000))
        case "weekly":
            let times = count("Times", range: 1...7) ?? 1
            var start = 1
            if let (value, startLine) = entry("WeekStart") {
                if let i = Self.weekdays.firstIndex(where: { $0 == value.lowercased() || $0.prefix(3) == value.lowercased() }) {
                    start = i
                } else {
                    fail(startLine, "WeekStart='\(value)' is not a weekday like Monday or Sun")
                }
            }
            return .weekly(times: times, weekStart: start)
        case "daily":
            guard values["Repeat"] != nil else {
                for key in ["From", "To", "Goal", "Unit"] where values[key] != nil {
                    fail(values[key]?.line, "\(key)= needs Repeat=, the span between reminders during the day")
                }
                return .daily(nil)
            }
            let (value, repeatLine) = entry("Repeat")!
            var every = Span.zero
            do throws(ValidationError) { every = try TimeSpan.parse(value) } catch { fail(repeatLine, "Repeat: \(error.message)") }
            if every.nanoseconds != 0, every < Request.minimumRepeatInterval || every > .seconds(86_400) {
                fail(repeatLine, "Repeat=\(value) must be from 1min to 24h")
            }
            let from = timeOfDay("From") ?? TimeOfDay(minutes: 8 * 60)
            let to = timeOfDay("To") ?? TimeOfDay(minutes: 21 * 60)
            if from >= to { fail(values["To"]?.line ?? values["From"]?.line, "From=\(from) must come before To=\(to) on the same day") }
            return .daily(Item.Repeating(every: every, from: from, to: to, goal: count("Goal", range: 1...1000),
                                         unit: values["Unit"]?.value ?? ""))
        default:
            return .event
        }
    }

    private mutating func timeOfDay(_ key: String) -> TimeOfDay? {
        guard let (value, line) = entry(key) else { return nil }
        do throws(ValidationError) { return try TimeOfDay.parse(value) } catch {
            fail(line, "\(key)=: \(error.message)")
            return nil
        }
    }

    private mutating func count(_ key: String, range: ClosedRange<Int>) -> Int? {
        guard let (value, line) = entry(key) else { return nil }
        guard let n = Int(value), range.contains(n) else {
            fail(line, "\(key)='\(value)' is not a whole number from \(range.lowerBound) to \(range.upperBound)")
            return nil
        }
        return n
    }

    private func entry(_ key: String) -> (String, Int?)? {
        values[key].map { ($0.value, $0.line) }
    }

    private func optional(_ key: String) -> String? {
        guard let v = values[key]?.value, !v.isEmpty else { return nil }
        return v
    }

    private mutating func fail(_ line: Int?, _ message: String) {
        problems.append(ReminderBuilder.Problem(line: line, message: "[\(group)] \(message)"))
    }
}
