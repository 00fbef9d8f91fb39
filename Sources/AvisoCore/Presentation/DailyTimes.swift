/// A time of day on the wall clock, "HH:MM": quiet hours and summary times are written in it.
public struct TimeOfDay: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Minutes since midnight, 0...1440 (24:00 ends a day).
    public var minutes: Int

    public init(minutes: Int) { self.minutes = minutes }

    /// "07:30"; "24:00" is accepted as the end of a day.
    public static func parse(_ text: String) throws(ValidationError) -> TimeOfDay {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let h = Int(parts[0]), let m = Int(parts[1]), parts[1].count == 2,
              (0...24).contains(h), (0...59).contains(m), h < 24 || m == 0 else {
            throw ValidationError(.dateTime, "'\(text)' is not a time of day like 07:30")
        }
        return TimeOfDay(minutes: h * 60 + m)
    }

    public static func < (a: TimeOfDay, b: TimeOfDay) -> Bool { a.minutes < b.minutes }

    public var description: String {
        let h = minutes / 60, m = minutes % 60
        return (h < 10 ? "0" : "") + "\(h):" + (m < 10 ? "0" : "") + "\(m)"
    }

    /// The instants this time of day names on `date` (year, month, day) in `zone`: one, or two in a repeated hour
    /// (both, so a boundary is not missed); in a DST gap, the first instant after it.
    func instants(on date: (year: Int, month: Int, day: Int), in zone: ZoneRules) -> [WallTime] {
        let days = CivilDateTime.days(fromCivil: date.year, date.month, date.day) + Int64(minutes / 1440)
        let (y, mo, d) = CivilDateTime.civil(fromDays: days)
        let civil = CivilDateTime(year: y, month: mo, day: d, hour: minutes % 1440 / 60, minute: minutes % 60)
        switch zone.resolve(civil) {
        case .unique(let t): return [t]
        case .gap(_, let firstAfter): return [firstAfter]
        case .overlap(let first, let second): return [first, second]
        }
    }
}

/// Times of the day, in local time (floating: they follow the zone), like `[Summary] At=08:00;18:00`.
public struct DailyTimes: Hashable, Sendable {
    public var times: [TimeOfDay]

    public init(_ times: [TimeOfDay]) { self.times = times.sorted() }

    /// "08:00;18:00" (';' or ',' between times).
    public static func parse(_ text: String) throws(ValidationError) -> DailyTimes {
        var times: [TimeOfDay] = []
        for part in text.split(whereSeparator: { $0 == ";" || $0 == "," }) {
            let t = try TimeOfDay.parse(String(part).trimmingSpaces)
            guard t.minutes < 1440 else { throw ValidationError(.dateTime, "'\(part)': give a time before 24:00") }
            times.append(t)
        }
        guard !times.isEmpty else { throw ValidationError(.dateTime, "give one or more times of day, like 08:00;18:00") }
        return DailyTimes(times)
    }

    /// The first of these times strictly after `after`, read in `zone`; nil when there are none.
    public func next(after: WallTime, in zone: ZoneRules) -> WallTime? {
        let today = zone.civil(at: after)
        for offset: Int64 in 0...2 {
            let days = CivilDateTime.days(fromCivil: today.year, today.month, today.day) + offset
            let date = CivilDateTime.civil(fromDays: days)
            let candidates = times.flatMap { $0.instants(on: date, in: zone) }.filter { $0 > after }.sorted()
            if let first = candidates.first { return first }
        }
        return nil
    }
}

extension String {
    /// Without leading and trailing spaces and tabs (the core has no Foundation).
    var trimmingSpaces: String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return String(s)
    }
}
