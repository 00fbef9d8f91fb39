/// A POSIX TZ rule string such as "CET-1CEST,M3.5.0,M10.5.0/3", as found in the footer of TZif files.
///
/// It says what happens after the last transition listed in the file. Offsets are kept as seconds east of UTC
/// (POSIX writes them west-positive). "Daylight" time may be behind standard time (Europe/Dublin's
/// "IST-1GMT0,M10.5.0,M3.5.0/1"); nothing here assumes otherwise.
struct PosixTimeZone: Hashable, Sendable {
    struct Zone: Hashable, Sendable {
        var abbreviation: String
        var offset: Int
    }

    /// Which day of the year a transition falls on.
    enum Day: Hashable, Sendable {
        /// `Jn`: 1...365, February 29 never counted.
        case julianNoLeap(Int)
        /// `n`: 0...365, February 29 counted.
        case zeroBased(Int)
        /// `Mm.w.d`: weekday `d` (0 = Sunday) of week `w` (5 = last) of month `m`.
        case monthWeekDay(month: Int, week: Int, weekday: Int)
    }

    struct Rule: Hashable, Sendable {
        var day: Day
        /// Seconds after local midnight (of the time in force before the transition); may be negative or > 24 h.
        var time: Int
    }

    var standard: Zone
    var daylight: Zone?
    var start: Rule?
    var end: Rule?

    struct Failure: Error {
        var reason: String
    }

    /// A zone that is always `standard`: no daylight time, no rules.
    init(standard: Zone) {
        self.standard = standard
    }

    /// Parses a TZ string; throws a reason on malformed input.
    init(parsing text: String) throws(Failure) {
        var s = Scanner(text)
        let stdName = try Self.name(&s)
        guard let stdOffset = Self.duration(&s, allowSign: true) else { throw Failure(reason: "missing standard offset") }
        standard = Zone(abbreviation: stdName, offset: -stdOffset)
        daylight = nil
        start = nil
        end = nil
        if s.atEnd { return }
        let dstName = try Self.name(&s)
        var dstOffset = standard.offset + 3_600
        if let p = s.peek, p != "," {
            guard let o = Self.duration(&s, allowSign: true) else { throw Failure(reason: "bad daylight offset") }
            dstOffset = -o
        }
        daylight = Zone(abbreviation: dstName, offset: dstOffset)
        if s.atEnd {
            // POSIX leaves the default rule to the implementation; glibc and tzcode use the US rule.
            start = Rule(day: .monthWeekDay(month: 3, week: 2, weekday: 0), time: 7_200)
            end = Rule(day: .monthWeekDay(month: 11, week: 1, weekday: 0), time: 7_200)
            return
        }
        guard s.take(",") else { throw Failure(reason: "expected ',' before the daylight rule") }
        start = try Self.rule(&s)
        guard s.take(",") else { throw Failure(reason: "expected ',' before the end of daylight time") }
        end = try Self.rule(&s)
        guard s.atEnd else { throw Failure(reason: "unexpected '\(s.rest)'") }
    }

    private static func name(_ s: inout Scanner) throws(Failure) -> String {
        var out = String.UnicodeScalarView()
        if s.take("<") {
            while let c = s.peek, c != ">" {
                out.append(c)
                s.index += 1
            }
            guard s.take(">") else { throw Failure(reason: "unterminated '<' in zone abbreviation") }
        } else {
            while let c = s.peek, (c >= "A" && c <= "Z") || (c >= "a" && c <= "z") {
                out.append(c)
                s.index += 1
            }
        }
        guard out.count >= 3 else { throw Failure(reason: "zone abbreviation '\(String(out))' is too short") }
        return String(out)
    }

    /// `[+-]hh[:mm[:ss]]` in seconds (sign as written).
    private static func duration(_ s: inout Scanner, allowSign: Bool) -> Int? {
        var sign = 1
        if allowSign {
            if s.take("-") { sign = -1 } else { _ = s.take("+") }
        }
        guard let h = s.number(), h.value <= 167 else { return nil }
        var total = h.value * 3_600
        if s.take(":") {
            guard let m = s.number(), m.value < 60 else { return nil }
            total += m.value * 60
            if s.take(":") {
                guard let sec = s.number(), sec.value < 60 else { return nil }
                total += sec.value
            }
        }
        return sign * total
    }

    private static func rule(_ s: inout Scanner) throws(Failure) -> Rule {
        let day: Day
        if s.take("J") {
            guard let n = s.number(), (1...365).contains(n.value) else { throw Failure(reason: "bad Jn day") }
            day = .julianNoLeap(n.value)
        } else if s.take("M") {
            guard let m = s.number(), (1...12).contains(m.value), s.take("."),
                  let w = s.number(), (1...5).contains(w.value), s.take("."),
                  let d = s.number(), (0...6).contains(d.value) else { throw Failure(reason: "bad Mm.w.d rule") }
            day = .monthWeekDay(month: m.value, week: w.value, weekday: d.value)
        } else {
            guard let n = s.number(), (0...365).contains(n.value) else { throw Failure(reason: "bad day of year") }
            day = .zeroBased(n.value)
        }
        var time = 7_200
        if s.take("/") {
            // TZif version 3 allows negative times and hours up to 167.
            guard let t = duration(&s, allowSign: true) else { throw Failure(reason: "bad transition time") }
            time = t
        }
        return Rule(day: day, time: time)
    }

    /// Days since the epoch of `day` in `year`.
    static func days(_ day: Day, year: Int) -> Int64 {
        let jan1 = CivilDateTime.days(fromCivil: year, 1, 1)
        switch day {
        case .julianNoLeap(let n):
            return jan1 + Int64(n - 1) + (CivilDateTime.isLeap(year) && n >= 60 ? 1 : 0)
        case .zeroBased(let n):
            return jan1 + Int64(n)
        case .monthWeekDay(let month, let week, let weekday):
            let first = CivilDateTime.days(fromCivil: year, month, 1)
            let firstWeekday = Int(((first % 7) + 11) % 7)
            var d = first + Int64((weekday - firstWeekday + 7) % 7) + Int64(7 * (week - 1))
            let length = Int64(CivilDateTime.daysIn(month: month, year: year))
            while d >= first + length { d -= 7 }
            return d
        }
    }

    /// The UTC instants (seconds) at which daylight time starts and ends in `year`, if the zone has daylight time.
    func transitions(year: Int) -> (start: Int64, end: Int64)? {
        // `daylight?.offset` reads in place; binding `daylight` would copy its abbreviation.
        guard let daylightOffset = daylight?.offset, let start, let end else { return nil }
        let s = Self.days(start.day, year: year) * 86_400 + Int64(start.time - standard.offset)
        let e = Self.days(end.day, year: year) * 86_400 + Int64(end.time - daylightOffset)
        return (s, e)
    }

    /// Whether daylight time is in force at `seconds` since the epoch (UTC).
    private func inDaylight(at seconds: Int64) -> Bool {
        let days = CivilDateTime.floorDiv(seconds &+ Int64(standard.offset), 86_400)
        guard let (s, e) = transitions(year: CivilDateTime.civil(fromDays: days).year) else { return false }
        return s < e ? (s <= seconds && seconds < e) : !(e <= seconds && seconds < s)
    }

    /// The offset in force at `seconds` and whether it differs from standard time, without copying an
    /// abbreviation (the calendar search asks this on every step).
    func offsetAndDaylightSaving(at seconds: Int64) -> (offset: Int, isDaylightSaving: Bool) {
        guard inDaylight(at: seconds), let offset = daylight?.offset else { return (standard.offset, false) }
        return (offset, offset != standard.offset)
    }

    /// The zone in force at `seconds` since the epoch (UTC).
    func zone(at seconds: Int64) -> Zone {
        guard let daylight, inDaylight(at: seconds) else { return standard }
        return daylight
    }

    /// The first instant after `seconds` at which the offset or abbreviation changes, if any.
    func nextChange(after seconds: Int64) -> Int64? {
        guard daylight != nil else { return nil }
        let year = CivilDateTime(secondsSinceEpoch: seconds &+ Int64(standard.offset)).year
        let current = zone(at: seconds)
        var candidates: [Int64] = []
        for y in (year - 1)...(year + 1) {
            if let (s, e) = transitions(year: y) { candidates += [s, e] }
        }
        for c in candidates.sorted() where c > seconds && zone(at: c) != current {
            return c
        }
        return nil
    }
}
