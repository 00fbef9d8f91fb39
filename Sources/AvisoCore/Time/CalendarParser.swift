/// The parser behind `CalendarSpec.parse`: a transcription of systemd 252's `calendar_spec_from_string`, with
/// messages that name the part that is wrong.
struct CalendarParser {
    private let text: String
    private var b: [UInt8] = []
    private var i = 0

    init(_ text: String) { self.text = text }

    private func fail(_ why: String) -> ValidationError {
        ValidationError(.calendar, "OnCalendar: '\(text)' — \(why)")
    }

    private var c: UInt8 { i < b.count ? b[i] : 0 }
    private func at(_ k: Int) -> UInt8 { k < b.count ? b[k] : 0 }
    private static func isDigit(_ x: UInt8) -> Bool { x >= 48 && x <= 57 }
    private static func isLetter(_ x: UInt8) -> Bool { (x | 0x20) >= 97 && (x | 0x20) <= 122 }

    /// The word at the cursor (up to a separator), for messages.
    private var word: String {
        var e = i
        while e < b.count, !" ,:-~".utf8.contains(b[e]), !(b[e] == 46 && at(e + 1) == 46) { e += 1 }
        let w = String(decoding: b[i..<e], as: UTF8.self)
        return w.isEmpty ? (i < b.count ? String(decoding: b[i...], as: UTF8.self) : "end of text") : w
    }

    private static let shorthands: [String: String] = [
        "minutely": "*-*-* *:*:00", "hourly": "*-*-* *:00:00", "daily": "*-*-* 00:00:00",
        "monthly": "*-*-01 00:00:00", "annually": "*-01-01 00:00:00", "yearly": "*-01-01 00:00:00",
        "anually": "*-01-01 00:00:00", "weekly": "Mon *-*-* 00:00:00", "quarterly": "*-01,04,07,10-01 00:00:00",
        "biannually": "*-01,07-01 00:00:00", "bi-annually": "*-01,07-01 00:00:00",
        "semiannually": "*-01,07-01 00:00:00", "semi-annually": "*-01,07-01 00:00:00",
    ]

    /// Whether `w` has the shape of a tz database name ("UTC", "Europe/Madrid", "Etc/GMT+3").
    static func looksLikeZone(_ w: Substring) -> Bool {
        guard let f = w.utf8.first, isLetter(f) else { return false }
        return w.utf8.allSatisfy { isLetter($0) || isDigit($0) || "/_-+".utf8.contains($0) }
    }

    mutating func parse(isZone: (String) -> Bool) throws(ValidationError) -> CalendarSpec {
        var spec = CalendarSpec()
        var body = Substring(text)
        if text.utf8.count >= 4, text.utf8.suffix(4).elementsEqual(" utc".utf8, by: { ($0 | 0x20) == $1 }) {
            spec.utc = true
            body = body.dropLast(4)
        } else if let space = body.utf8.lastIndex(of: 32) {
            let w = body[body.utf8.index(after: space)...]
            if Self.looksLikeZone(w), CalendarParser.shorthands[w.lowercased()] == nil, isZone(String(w)) {
                spec.zone = String(w)
                body = body[..<space]
            }
        }
        if body.isEmpty { throw fail("nothing before the time zone; give a date, a time or a shorthand like 'daily'") }
        // Shorthands are words: a spec that starts with a digit, '*' or '@' is not looked up.
        let expanded = body.utf8.first.map(Self.isLetter) == true ? Self.shorthands[body.lowercased()] : nil
        b = Array((expanded.map { Substring($0) } ?? body).utf8)
        i = 0
        try parseWeekdays(&spec)
        if try !parseDate(&spec) { try parseTime(&spec) }
        if i < b.count { throw fail("unexpected '\(String(decoding: b[i...], as: UTF8.self))'") }
        try Self.normalizeAndCheck(&spec, fail: fail)
        return spec
    }

    private static func normalizeAndCheck(_ s: inout CalendarSpec, fail: (String) -> ValidationError)
        throws(ValidationError)
    {
        if let w = s.weekdays, w <= 0 || w >= 127 { s.weekdays = nil }
        if s.endOfMonth && s.day == nil { s.endOfMonth = false }
        if let y = s.year {
            s.year = y.map { c in
                func century(_ v: Int) -> Int { v >= 0 && v < 70 ? v + 2000 : v >= 70 && v < 100 ? v + 1900 : v }
                return CalendarComponent(start: century(c.start), stop: century(c.stop), repeat: c.repeat)
            }
        }
        s.year = s.year.map(CalendarComponent.normalize)
        s.month = s.month.map(CalendarComponent.normalize)
        s.day = s.day.map(CalendarComponent.normalize)
        s.hour = s.hour.map(CalendarComponent.normalize)
        s.minute = s.minute.map(CalendarComponent.normalize)
        s.microsecond = s.microsecond.map(CalendarComponent.normalize)
        func check(_ chain: [CalendarComponent]?, _ field: String, _ from: Int, _ to: Int, eom: Bool = false,
                   unit: Int = 1) throws(ValidationError) {
            if let chain, let why = CalendarComponent.problem(in: chain, field: field, from: from, to: to, endOfMonth: eom,
                                                              unit: unit) {
                throw fail(why)
            }
        }
        try check(s.year, "year", 1970, 2199)
        try check(s.month, "month", 1, 12)
        try check(s.day, "day", 1, 31, eom: s.endOfMonth)
        try check(s.hour, "hour", 0, 23)
        try check(s.minute, "minute", 0, 59)
        try check(s.microsecond, "second", 0, 59_999_999, unit: 1_000_000)
    }

    private static let dayNames: [(String, Int)] = [
        ("monday", 0), ("mon", 0), ("tuesday", 1), ("tue", 1), ("wednesday", 2), ("wed", 2), ("thursday", 3),
        ("thu", 3), ("friday", 4), ("fri", 4), ("saturday", 5), ("sat", 5), ("sunday", 6), ("sun", 6),
    ]

    private mutating func skipSpaces() { while c == 32 { i += 1 } }

    private mutating func parseWeekdays(_ spec: inout CalendarSpec) throws(ValidationError) {
        var l = -1
        var first = true
        var bits = 0
        defer { if bits != 0 { spec.weekdays = bits } }
        // Day names are words: a spec that starts otherwise ("*-*-* 09:00", "09:00") names no weekday.
        guard Self.isLetter(c) else { return }
        while true {
            var found: (name: String, nr: Int)?
            for (name, nr) in Self.dayNames {
                let n = name.utf8
                if i + n.count <= b.count, b[i..<(i + n.count)].elementsEqual(n, by: { ($0 | 0x20) == $1 }) {
                    found = (name, nr)
                    break
                }
            }
            guard let (name, nr) = found else {
                if first { return }
                throw fail("unknown weekday '\(word)'")
            }
            let next = at(i + name.utf8.count)
            switch next {
            case 0, 45, 46, 44, 32: break
            default: throw fail("unknown weekday '\(word)'")
            }
            bits |= 1 << nr
            if l >= 0 {
                if l > nr {
                    throw fail("weekday range ends before it starts at '\(word)'; list wrapping days, as 'Sat,Sun,Mon'")
                }
                for j in (l + 1)..<max(l + 1, nr) { bits |= 1 << j }
            }
            i += name.utf8.count
            if c == 0 { return }
            if c == 32 { skipSpaces(); return }
            if c == 46 {
                if l >= 0 { throw fail("a weekday range cannot continue into another range") }
                if at(i + 1) != 46 { throw fail("'.' after a weekday; a range is written 'Mon..Fri'") }
                l = nr
                i += 2
            } else if c == 45 {
                if l >= 0 { throw fail("a weekday range cannot continue into another range") }
                l = nr
                i += 1
            } else if c == 44 {
                l = -1
                i += 1
            }
            if c == 0 || c == 32 {
                skipSpaces()
                if l >= 0 { throw fail("weekday range has no end") }
                return
            }
            first = false
        }
    }

    /// Returns true when the date was an "@SECONDS" timestamp, which has no time part.
    private mutating func parseDate(_ spec: inout CalendarSpec) throws(ValidationError) -> Bool {
        if c == 0 { return false }
        if c == 64 {  // '@'
            i += 1
            guard Self.isDigit(c) else { throw fail("'@' must be followed by seconds since the epoch") }
            var v: Int64 = 0
            while Self.isDigit(c) {
                let (m, o1) = v.multipliedReportingOverflow(by: 10)
                let (a, o2) = m.addingReportingOverflow(Int64(c - 48))
                if o1 || o2 { throw fail("timestamp after '@' is too large") }
                v = a
                i += 1
            }
            let civil = CivilDateTime(secondsSinceEpoch: v)
            spec.utc = true
            spec.year = [.init(start: civil.year, stop: -1, repeat: 0)]
            spec.month = [.init(start: civil.month, stop: -1, repeat: 0)]
            spec.day = [.init(start: civil.day, stop: -1, repeat: 0)]
            spec.hour = [.init(start: civil.hour, stop: -1, repeat: 0)]
            spec.minute = [.init(start: civil.minute, stop: -1, repeat: 0)]
            spec.microsecond = [.init(start: civil.second * 1_000_000, stop: -1, repeat: 0)]
            return true
        }
        let start = i
        let first = try parseChain(usec: false, field: "date or time")
        if c == 0 || c == 58 { i = start; return false }
        if c == 126 { spec.endOfMonth = true } else if c != 45 {
            throw fail("unexpected '\(word)' in the date; write dates as YYYY-MM-DD, MM-DD or with '~' for days from the month's end")
        }
        i += 1
        let second = try parseChain(usec: false, field: "date")
        if c == 0 || c == 32 {
            skipSpaces()
            spec.month = first
            spec.day = second
            return false
        } else if spec.endOfMonth {
            throw fail("'~' must come right before the day")
        }
        if c == 126 { spec.endOfMonth = true } else if c != 45 { throw fail("unexpected '\(word)' in the date") }
        i += 1
        let third = try parseChain(usec: false, field: "day")
        guard c == 0 || c == 32 else { throw fail("unexpected '\(word)' after the date") }
        skipSpaces()
        spec.year = first
        spec.month = second
        spec.day = third
        return false
    }

    private mutating func parseTime(_ spec: inout CalendarSpec) throws(ValidationError) {
        let zero = [CalendarComponent(start: 0, stop: -1, repeat: 0)]
        if c == 0 {
            spec.hour = zero
            spec.minute = zero
            spec.microsecond = zero
            return
        }
        spec.hour = try parseChain(usec: false, field: "hour")
        guard c == 58 else { throw fail("unexpected '\(word)' in the time; write times as HH:MM or HH:MM:SS") }
        i += 1
        spec.minute = try parseChain(usec: false, field: "minute")
        if c == 0 { spec.microsecond = zero; return }
        guard c == 58 else { throw fail("unexpected '\(word)' after the minutes") }
        i += 1
        spec.microsecond = try parseChain(usec: true, field: "second")
        guard c == 0 else { throw fail("unexpected '\(word)' after the seconds") }
    }

    /// `*` (nil: any value; for seconds "every whole second"), or a list of components.
    private mutating func parseChain(usec: Bool, field: String) throws(ValidationError) -> [CalendarComponent]? {
        if c == 42 {
            i += 1
            return usec ? [CalendarComponent(start: 0, stop: -1, repeat: 1_000_000)] : nil
        }
        var chain: [CalendarComponent] = []
        while true {
            if chain.count > 240 { throw fail("too many values in one field (at most 240)") }
            let start = try decimal(usec: usec, field: field)
            var stop = -1
            var rep = 0
            if c == 46 && at(i + 1) == 46 {
                i += 2
                stop = try decimal(usec: usec, field: field)
                rep = usec ? 1_000_000 : 1
            }
            if c == 47 {
                i += 1
                rep = try decimal(usec: usec, field: field)
                if rep == 0 { throw fail("repetition '/0' in the \(field) never advances") }
            } else {
                if start > Int(Int32.max) - rep { throw fail("\(field) value is too large") }
                if usec && stop >= 0 && start + rep > stop {
                    throw fail("seconds range is shorter than one second; give a repetition such as '/0.5'")
                }
            }
            switch c {
            case 0, 32, 44, 45, 126, 58: break
            default: throw fail("unexpected '\(word)' in the \(field)")
            }
            chain.append(CalendarComponent(start: start, stop: stop, repeat: rep))
            if c == 44 { i += 1 } else { return chain }
        }
    }

    /// A decimal number; for seconds, in microseconds, with up to six fraction digits (the seventh rounds).
    private mutating func decimal(usec: Bool, field: String) throws(ValidationError) -> Int {
        guard Self.isDigit(c) else {
            if c == 0 { throw fail("the \(field) is missing at the end") }
            if Self.isLetter(c) && field == "date or time" { throw fail("unknown weekday or shorthand '\(word)'") }
            throw fail("expected a number or '*' in the \(field) at '\(word)'")
        }
        var v = 0
        while Self.isDigit(c) {
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(Int(c - 48))
            if o1 || o2 || a > Int(Int32.max) { throw fail("\(field) value is too large at '\(word)'") }
            v = a
            i += 1
        }
        if usec {
            v *= 1_000_000
            if c == 46 && at(i + 1) != 46 {
                i += 1
                guard Self.isDigit(c) else { throw fail("a '.' in the seconds must be followed by digits") }
                var add = 0
                var n = 0
                while n < 6 {
                    if Self.isDigit(c) { add = add * 10 + Int(c - 48); i += 1 } else { add *= 10 }
                    n += 1
                }
                if c >= 53 && c <= 57 { add += 1 }
                while Self.isDigit(c) { i += 1 }
                v += add
            }
        }
        if v > Int(Int32.max) { throw fail("\(field) value is too large") }
        return v
    }
}
