/// ISO 8601 / RFC 3339 timestamps, the form wall times take on the wire and in `--json` output.
public enum ISO8601 {
    /// "2026-12-01T08:00:00Z": UTC, whole seconds (truncated toward the past).
    public static func format(_ t: WallTime) -> String {
        let c = CivilDateTime(secondsSinceEpoch: t.seconds)
        return "\(CivilDateTime.pad(c.year, 4))-\(CivilDateTime.pad(c.month, 2))-\(CivilDateTime.pad(c.day, 2))T"
            + "\(CivilDateTime.pad(c.hour, 2)):\(CivilDateTime.pad(c.minute, 2)):\(CivilDateTime.pad(c.second, 2))Z"
    }

    /// "2026-12-01T08:00:00.125Z": UTC with milliseconds (truncated toward the past), for event times.
    public static func formatMilliseconds(_ t: WallTime) -> String {
        let ms = Int(CivilDateTime.floorDiv(t.nanoseconds, 1_000_000) - t.seconds * 1_000)
        let digits = String(ms)
        return String(format(t).dropLast()) + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    /// "2015-11-13T07:11:23.420000Z" when `t` has a fraction of a second (microseconds, truncated toward the past),
    /// else as `format`: for calendar elapses, whose specs may name fractions of seconds.
    public static func formatMicroseconds(_ t: WallTime) -> String {
        let us = Int(CivilDateTime.floorDiv(t.nanoseconds, 1_000) - t.seconds * 1_000_000)
        guard us != 0 else { return format(t) }
        let digits = String(us)
        return String(format(t).dropLast()) + "." + String(repeating: "0", count: 6 - digits.count) + digits + "Z"
    }

    /// Parses "YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)"; nil if it is not such a timestamp or names no real date.
    ///
    /// A space or lowercase "t" may separate date and time, "z" is accepted, and offsets may be written ±HHMM or ±HH.
    /// Fractions beyond nanoseconds are truncated.
    public static func parse(_ s: String) -> WallTime? {
        var scanner = Scanner(s)
        guard let year = scanner.number(digits: 4), scanner.take("-"),
              let month = scanner.number(digits: 2), scanner.take("-"),
              let day = scanner.number(digits: 2) else { return nil }
        guard scanner.take("T") || scanner.take("t") || scanner.take(" ") else { return nil }
        guard let hour = scanner.number(digits: 2), scanner.take(":"),
              let minute = scanner.number(digits: 2), scanner.take(":"),
              let second = scanner.number(digits: 2) else { return nil }
        var nanosecond = 0
        if scanner.take(".") || scanner.take(",") {
            guard let f = scanner.fraction() else { return nil }
            nanosecond = f
        }
        guard let offset = scanner.utcOffset(), scanner.atEnd else { return nil }
        let civil = CivilDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second,
                                  nanosecond: nanosecond)
        guard civil.isValid else { return nil }
        let (ns, overflow) = (civil.secondsSinceEpoch - Int64(offset)).multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return nil }
        return WallTime(nanoseconds: ns + Int64(nanosecond))
    }
}

/// A cursor over the Unicode scalars of a string, for the small fixed-format parsers of the core.
struct Scanner {
    let scalars: [Unicode.Scalar]
    var index = 0

    init(_ s: String) { scalars = Array(s.unicodeScalars) }

    var atEnd: Bool { index == scalars.count }
    var rest: String {
        var v = String.UnicodeScalarView()
        v.append(contentsOf: scalars[index...])
        return String(v)
    }
    var peek: Unicode.Scalar? { atEnd ? nil : scalars[index] }

    mutating func take(_ c: Unicode.Scalar) -> Bool {
        guard peek == c else { return false }
        index += 1
        return true
    }

    /// Exactly `digits` ASCII digits.
    mutating func number(digits: Int) -> Int? {
        guard index + digits <= scalars.count else { return nil }
        var n = 0
        for k in 0..<digits {
            guard let d = Self.digit(scalars[index + k]) else { return nil }
            n = n * 10 + d
        }
        index += digits
        return n
    }

    /// One or more ASCII digits, as a value (nil if none or absurdly many).
    mutating func number() -> (value: Int, digits: Int)? {
        var n = 0
        var count = 0
        while let c = peek, let d = Self.digit(c) {
            guard count < 18 else { return nil }
            n = n * 10 + d
            count += 1
            index += 1
        }
        return count == 0 ? nil : (n, count)
    }

    /// Digits after a decimal point, as nanoseconds (extra digits truncated).
    mutating func fraction() -> Int? {
        var ns = 0
        var count = 0
        while let c = peek, let d = Self.digit(c) {
            if count < 9 { ns = ns * 10 + d }
            count += 1
            index += 1
        }
        guard count > 0 else { return nil }
        for _ in count..<max(count, 9) { ns *= 10 }
        return ns
    }

    /// "Z", "z", "±HH:MM", "±HHMM" or "±HH", in seconds east of UTC; nil if none of these is here.
    mutating func utcOffset() -> Int? {
        if take("Z") || take("z") { return 0 }
        let sign: Int
        if take("+") { sign = 1 } else if take("-") || take("−") { sign = -1 } else { return nil }
        guard let h = number(digits: 2), h <= 23 else { return nil }
        var m = 0
        if take(":") {
            guard let mm = number(digits: 2) else { return nil }
            m = mm
        } else if let mm = number(digits: 2) {
            m = mm
        }
        guard m <= 59 else { return nil }
        return sign * (h * 3_600 + m * 60)
    }

    static func digit(_ c: Unicode.Scalar) -> Int? {
        c >= "0" && c <= "9" ? Int(c.value - 48) : nil
    }
}
