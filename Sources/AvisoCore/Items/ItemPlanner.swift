/// An item's reminder: when, and what it says.
public struct ItemReminder: Hashable, Sendable {
    public var at: WallTime
    public var body: String

    public init(at: WallTime, body: String) {
        self.at = at
        self.body = body
    }
}

/// What an item's log says, as `avisoctl items` shows it.
public struct ItemSummary: Hashable, Sendable {
    public var last: WallTime?
    /// Whole local days from the day of the last log to today.
    public var daysSince: Int?
    /// Consecutive days with a log, ending today (or yesterday, when today has none yet).
    public var streak: Int
    /// The average interval between log entries; nil with fewer than two.
    public var averageInterval: Span?
    /// Today's count (entries weighted by their counts).
    public var today: Int
    /// This week's count, for a weekly item.
    public var thisWeek: Int?
    public var entries: Int
}

/// Computes an item's reminders from its log: a pure function of the item, the log, the instant and the zone.
///
/// Rules (the local day and the person's hour `At` are read in `zone`; a day's `At` in a DST gap is the first
/// instant after the gap, in a repeated hour the first of the two):
/// - `interval`: the `At` of the day of the last log plus N days; when that has passed, the next `At` after now.
///   Nothing logged: the next `At`.
/// - `daily`: today's `At` when nothing is logged today and it is still ahead, else tomorrow's.
/// - `daily` with `Repeat=`: while today's count is under the goal, every `Repeat` from the last log today (or from
///   `From`, before the first log), the first after now, up to `To`; then tomorrow from `From` to `To`.
/// - `weekly`: the `At` of the week's last day when fewer than `Times` are logged in the week and it is still ahead;
///   else the last day of next week.
/// - `event`: with three logs or more, the `At` of the day on which 1.5 × the average interval since the last log
///   has passed (the next `At` after now when that has passed); none with fewer.
///
/// Reminders cover the rest of today and tomorrow at most (one ahead, for the kinds with one), at most
/// `maximumPerItem`. A snooze (`snoozedUntil`, still ahead) puts a reminder then and drops the earlier ones.
/// Every answer lies within `WallTime.latestSupported`; none is returned past it.
public enum ItemPlanner {
    /// At most this many reminders per item are planned at once, so repeats never flood the 64-timer window.
    public static let maximumPerItem = 24

    /// The item's reminders after `now`, soonest first. `log` is in any order.
    public static func plan(_ item: Item, log: [ItemLogEntry], now: WallTime, zone: ZoneRules,
                            snoozedUntil: WallTime? = nil) -> [ItemReminder] {
        let day = Days(zone: zone, log: log)
        var times: [WallTime]
        switch item.kind {
        case .interval(let n):
            if let last = day.lastEntry {
                let due = day.slot(day.of(last.at) + Int64(n), item.at)
                times = [due.flatMap { $0 > now ? $0 : nil } ?? day.nextSlot(after: now, item.at)].compactMap { $0 }
            } else {
                times = [day.nextSlot(after: now, item.at)].compactMap { $0 }
            }
        case .daily(nil):
            let today = day.of(now)
            let first = day.count(on: today) == 0 ? today : today + 1
            times = [day.slot(first, item.at).flatMap { $0 > now ? $0 : nil } ?? day.slot(today + 1, item.at)].compactMap { $0 }
        case .daily(let r?):
            times = repeating(r, day: day, now: now)
        case .weekly(let goal, let weekStart):
            let today = day.of(now)
            let lastDay = day.weekStart(of: today, weekStart) + 6
            if day.count(from: lastDay - 6, through: lastDay) < goal, let t = day.slot(lastDay, item.at), t > now {
                times = [t]
            } else {
                times = [day.slot(lastDay + 7, item.at)].compactMap { $0 }
            }
        case .event:
            guard let average = day.averageInterval, log.count >= 3, let last = day.lastEntry else { return [] }
            let due = last.at + Span(nanoseconds: (average * 3).nanoseconds / 2)
            let onDueDay = day.slot(day.of(due), item.at)
            times = [onDueDay.flatMap { $0 > now ? $0 : nil } ?? day.nextSlot(after: now, item.at)].compactMap { $0 }
        }
        if let snoozed = snoozedUntil, snoozed > now, snoozed <= WallTime.latestSupported {
            times = [snoozed] + times.filter { $0 > snoozed }
        }
        return times.prefix(maximumPerItem).map { ItemReminder(at: $0, body: body(of: item, day: day, at: $0)) }
    }

    /// What the log says at `now`.
    public static func summary(_ item: Item, log: [ItemLogEntry], now: WallTime, zone: ZoneRules) -> ItemSummary {
        let day = Days(zone: zone, log: log)
        let today = day.of(now)
        var week: Int?
        if case .weekly(_, let start) = item.kind {
            let first = day.weekStart(of: today, start)
            week = day.count(from: first, through: first + 6)
        }
        let last = day.lastEntry?.at
        return ItemSummary(
            last: last, daysSince: last.map { Int(today - day.of($0)) },
            streak: day.streak(endingBefore: day.count(on: today) > 0 ? today + 1 : today),
            averageInterval: day.averageInterval, today: day.count(on: today), thisWeek: week, entries: log.count)
    }

    /// The repeats of a daily item with `Repeat=`: the rest of today (unless its goal is reached), then tomorrow.
    private static func repeating(_ r: Item.Repeating, day: Days, now: WallTime) -> [WallTime] {
        guard r.every > .zero else { return [] }
        let today = day.of(now)
        var times: [WallTime] = []
        for d in [today, today + 1] {
            guard let from = day.slot(d, r.from), let to = day.slot(d, r.to) else { continue }
            if d == today, let goal = r.goal, day.count(on: d) >= goal { continue }
            var t = from
            if d == today {
                if let last = day.lastEntry(on: d) { t = max(last.at + r.every, from) }
                while t <= now { t = t + r.every }
            }
            while t <= to, times.count < maximumPerItem {
                // To=24:00 is tomorrow's 00:00: an instant planned once, not twice.
                if let last = times.last, t <= last {
                    t = t + r.every
                    continue
                }
                times.append(t)
                t = t + r.every
            }
        }
        return times
    }

    /// The text of the reminder at `at`, with the values as they will be then.
    static func body(of item: Item, day: Days, at: WallTime) -> String {
        let d = day.of(at)
        let last = day.lastEntry
        let days = last.map { Int(d - day.of($0.at)) }
        let streak = day.streak(endingBefore: d)
        var values = ["title": item.title]
        values["days"] = days.map(String.init)
        values["streak"] = String(streak)
        values["average"] = day.averageInterval.map { String(averageDays($0)) }
        var done = day.count(on: d)
        var goal: Int?
        switch item.kind {
        case .weekly(let times, let start):
            let first = day.weekStart(of: d, start)
            done = day.count(from: first, through: first + 6)
            goal = times
        case .daily(let r?):
            goal = r.goal
            values["unit"] = r.unit
        default: break
        }
        values["done"] = String(done)
        values["goal"] = goal.map(String.init)
        if last == nil, let template = item.noLogBody { return Item.render(template, values) }
        if let template = item.body { return Item.render(template, values) }
        return defaultBody(item.kind, values: values, days: days, streak: streak, done: done, goal: goal)
    }

    /// The English texts of each kind.
    private static func defaultBody(_ kind: Item.Kind, values: [String: String], days: Int?, streak: Int, done: Int,
                                    goal: Int?) -> String {
        func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
        switch kind {
        case .interval:
            guard let days else { return "It's time. Nothing is logged yet." }
            return "It's time. Last time was \(plural(days, "day")) ago."
        case .daily(nil):
            return "Done it today? Your streak: \(streak)."
        case .daily(let r?):
            let unit = r.unit.isEmpty ? "" : " " + r.unit
            guard let goal else { return "\(done)\(unit) today. Log to add one." }
            return "\(done) of \(goal)\(unit) today. Log to add one."
        case .weekly:
            return "\(done) of \(goal ?? 0) this week. Today is the last day."
        case .event:
            let average = values["average"].flatMap { Int($0) } ?? 0
            return "Usually every \(plural(average, "day")), and it has been \(plural(days ?? 0, "day"))."
        }
    }

    /// An average interval in whole days, at least 1.
    static func averageDays(_ span: Span) -> Int {
        max(1, Int((span.nanoseconds + 43_200_000_000_000) / 86_400_000_000_000))
    }
}

/// Local days (days since the epoch, read in a zone) and the log's counts per day.
struct Days {
    let zone: ZoneRules
    /// The log, oldest first.
    let entries: [ItemLogEntry]
    /// Total count per local day.
    let perDay: [Int64: Int]

    init(zone: ZoneRules, log: [ItemLogEntry]) {
        self.zone = zone
        // The daemon keeps logs in order: sorting is only for callers that do not.
        entries = zip(log, log.dropFirst()).allSatisfy { $0.at <= $1.at } ? log : log.sorted { $0.at < $1.at }
        var perDay: [Int64: Int] = [:]
        for e in entries { perDay[Self.day(of: e.at, in: zone), default: 0] += e.count }
        self.perDay = perDay
    }

    /// The local day of `t`: its seconds shifted by the zone's offset then, in whole days since the epoch.
    static func day(of t: WallTime, in zone: ZoneRules) -> Int64 {
        CivilDateTime.floorDiv(t.seconds + Int64(zone.offset(at: t)), 86_400)
    }

    var lastEntry: ItemLogEntry? { entries.last }

    func of(_ t: WallTime) -> Int64 { Self.day(of: t, in: zone) }

    func count(on d: Int64) -> Int { perDay[d] ?? 0 }

    func count(from first: Int64, through last: Int64) -> Int {
        (first...last).reduce(0) { $0 + count(on: $1) }
    }

    func lastEntry(on d: Int64) -> ItemLogEntry? { entries.last { of($0.at) == d } }

    /// Consecutive days with a log, ending the day before `d`.
    func streak(endingBefore d: Int64) -> Int {
        var n = 0
        while perDay[d - 1 - Int64(n)] != nil { n += 1 }
        return n
    }

    /// Between the first and the last entry, divided by the intervals between them.
    var averageInterval: Span? {
        guard entries.count >= 2, let first = entries.first, let last = entries.last, last.at > first.at else { return nil }
        return Span(nanoseconds: (last.at - first.at).nanoseconds / Int64(entries.count - 1))
    }

    /// The first day of the week holding `d`, weeks starting on `weekStart` (0 = Sunday).
    func weekStart(of d: Int64, _ weekStart: Int) -> Int64 {
        let weekday = Int64(((d % 7) + 11) % 7)
        return d - (weekday - Int64(weekStart) + 7) % 7
    }

    /// The instant of `time` on day `d`: the first after a DST gap, the first of a repeated hour; nil past the
    /// supported range.
    func slot(_ d: Int64, _ time: TimeOfDay) -> WallTime? {
        guard let t = time.instants(on: CivilDateTime.civil(fromDays: d), in: zone).first, t.isSupported else { return nil }
        return t
    }

    /// The first `time` of a day strictly after `now`.
    func nextSlot(after now: WallTime, _ time: TimeOfDay) -> WallTime? {
        let today = of(now)
        for d in today...(today + 2) {
            if let t = slot(d, time), t > now { return t }
        }
        return nil
    }
}
