/// When aviso holds back notifications: daily ranges in local time (`[Quiet] Hours=22:00-07:00`), and what the person
/// said with `avisoctl quiet on|off`.
///
/// While quiet, passive and active notifications are held and time-sensitive and critical ones are shown
/// (`InterruptionLevel.breaksThroughQuiet`). Ranges are floating: 22:00 stays 22:00 local after a zone change. A
/// range that ends at or before it starts crosses midnight. DST: a boundary in a gap takes effect at the first
/// instant after it; in a repeated hour, at its first occurrence.
public struct QuietHours: Hashable, Sendable {
    /// One daily range, start included, end excluded.
    public struct Range: Hashable, Sendable, CustomStringConvertible {
        public var start: TimeOfDay
        public var end: TimeOfDay

        public init(start: TimeOfDay, end: TimeOfDay) {
            self.start = start
            self.end = end
        }

        public var description: String { "\(start)-\(end)" }

        /// Whether the wall-clock minute `minutes` (0..<1440) lies in the range.
        func contains(_ minutes: Int) -> Bool {
            start < end ? (start.minutes...(end.minutes - 1)).contains(minutes)
                : minutes >= start.minutes || minutes < end.minutes
        }
    }

    public var ranges: [Range]

    public init(_ ranges: [Range] = []) { self.ranges = ranges }

    /// "22:00-07:00" or several, "22:00-07:00;12:30-13:30".
    public static func parse(_ text: String) throws(ValidationError) -> QuietHours {
        var ranges: [Range] = []
        for part in text.split(whereSeparator: { $0 == ";" || $0 == "," }) {
            let ends = part.split(separator: "-", omittingEmptySubsequences: false)
            guard ends.count == 2 else {
                throw ValidationError(.dateTime, "'\(part)' is not a range like 22:00-07:00")
            }
            let range = Range(start: try TimeOfDay.parse(String(ends[0]).trimmingSpaces),
                              end: try TimeOfDay.parse(String(ends[1]).trimmingSpaces))
            guard range.start != range.end else {
                throw ValidationError(.dateTime, "'\(part)' is empty: it starts where it ends")
            }
            ranges.append(range)
        }
        return QuietHours(ranges)
    }

    /// Whether the local time at `instant` lies in a range.
    public func contains(_ instant: WallTime, in zone: ZoneRules) -> Bool {
        let c = zone.civil(at: instant)
        let minute = c.hour * 60 + c.minute
        return ranges.contains { $0.contains(minute) }
    }

    /// The first instant after `after` at which `contains` changes; nil without ranges (or if it never changes).
    public func nextChange(after: WallTime, in zone: ZoneRules) -> WallTime? {
        guard !ranges.isEmpty else { return nil }
        let state = contains(after, in: zone)
        let today = zone.civil(at: after)
        var candidates: [WallTime] = []
        for offset: Int64 in 0...2 {
            let date = CivilDateTime.civil(fromDays: CivilDateTime.days(fromCivil: today.year, today.month, today.day) + offset)
            for r in ranges {
                candidates += r.start.instants(on: date, in: zone) + r.end.instants(on: date, in: zone)
            }
        }
        return candidates.filter { $0 > after }.sorted().first { contains($0, in: zone) != state }
    }
}

/// What the person said with `avisoctl quiet`, laid over the daily ranges.
public enum QuietOverride: Hashable, Sendable {
    /// Quiet until an instant, or (nil) until turned off.
    case on(until: WallTime?)
    /// Not quiet until an instant (the end of the daily range it was said in).
    case off(until: WallTime)
}

/// Whether it is quiet: the override while it lasts, else the daily ranges.
public struct QuietPolicy: Hashable, Sendable {
    public var hours: QuietHours
    public var override: QuietOverride?

    public init(hours: QuietHours, override: QuietOverride? = nil) {
        self.hours = hours
        self.override = override
    }

    /// The override if it still applies at `now`.
    public func activeOverride(at now: WallTime) -> QuietOverride? {
        switch override {
        case .on(let until?) where until <= now: nil
        case .off(let until) where until <= now: nil
        default: override
        }
    }

    public func isQuiet(at now: WallTime, in zone: ZoneRules) -> Bool {
        switch activeOverride(at: now) {
        case .on: true
        case .off: false
        case nil: hours.contains(now, in: zone)
        }
    }

    /// When `isQuiet` may next change: the override's end or the next boundary of the ranges, whichever is first.
    public func nextChange(after now: WallTime, in zone: ZoneRules) -> WallTime? {
        let ranges = hours.nextChange(after: now, in: zone)
        switch activeOverride(at: now) {
        case .on(let until?): return min(until, ranges ?? until)
        case .off(let until): return min(until, ranges ?? until)
        case .on(nil): return nil
        case nil: return ranges
        }
    }

    /// The override `avisoctl quiet off` sets at `now`: none, or "not quiet until this range ends" inside a range.
    public func turnedOff(at now: WallTime, in zone: ZoneRules) -> QuietOverride? {
        guard hours.contains(now, in: zone), let end = hours.nextChange(after: now, in: zone) else { return nil }
        return .off(until: end)
    }
}
