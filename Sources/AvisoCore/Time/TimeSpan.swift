/// Time spans in systemd's syntax (systemd.time(7)): "90s", "1h 30min", "1.5h", "2weeks".
///
/// Parsing and formatting agree with `systemd-analyze timespan`: a bare number means seconds, groups add up,
/// a month is 30.44 days and a year 365.25 days. Spans are exact to the nanosecond.
public enum TimeSpan {
    private struct Unit {
        var names: [String]
        var nanoseconds: Int64
    }

    private static let nsPerSecond: Int64 = 1_000_000_000

    private static let units: [Unit] = [
        Unit(names: ["nsec", "ns"], nanoseconds: 1),
        Unit(names: ["usec", "us", "µs", "μs"], nanoseconds: 1_000),
        Unit(names: ["msec", "ms"], nanoseconds: 1_000_000),
        Unit(names: ["seconds", "second", "sec", "s"], nanoseconds: nsPerSecond),
        Unit(names: ["minutes", "minute", "min", "m"], nanoseconds: 60 * nsPerSecond),
        Unit(names: ["hours", "hour", "hr", "h"], nanoseconds: 3_600 * nsPerSecond),
        Unit(names: ["days", "day", "d"], nanoseconds: 86_400 * nsPerSecond),
        Unit(names: ["weeks", "week", "w"], nanoseconds: 604_800 * nsPerSecond),
        Unit(names: ["months", "month", "M"], nanoseconds: 2_629_800 * nsPerSecond),
        Unit(names: ["years", "year", "y"], nanoseconds: 31_557_600 * nsPerSecond),
    ]

    private static func unit(named name: String) -> Int64? {
        units.first { $0.names.contains(name) }?.nanoseconds
    }

    /// Parses a time span such as "7min", "1h 30min", "1.5h" or "500ms"; a bare number means seconds.
    ///
    /// Errors have code `.timeSpan` and quote the input, e.g. "time span '7mn': unknown unit 'mn'".
    /// Spans longer than about 292 years (the range of `Span`) are refused.
    public static func parse(_ text: String) throws(ValidationError) -> Span {
        func fail(_ why: String) -> ValidationError {
            ValidationError(.timeSpan, "time span '\(text)': \(why)")
        }
        let s = Array(text.unicodeScalars)
        var i = 0
        var total: Int64 = 0
        func skipSpace() { while i < s.count, s[i].properties.isWhitespace { i += 1 } }

        skipSpace()
        if i == s.count { throw fail("is empty; give a number and a unit, like '10min'") }
        while i < s.count {
            let start = i
            var whole: Int64 = 0
            var digits = 0
            while i < s.count, let d = digit(s[i]) {
                let (m, o1) = whole.multipliedReportingOverflow(by: 10)
                let (a, o2) = m.addingReportingOverflow(d)
                if o1 || o2 { throw fail("is too large (the limit is about 292 years)") }
                whole = a
                digits += 1
                i += 1
            }
            var fraction: [Int64] = []
            if i < s.count, s[i] == "." {
                i += 1
                while i < s.count, let d = digit(s[i]) {
                    fraction.append(d)
                    i += 1
                }
                if fraction.isEmpty {
                    throw fail("expected digits after the decimal point in '\(string(s[start..<i]))'")
                }
            }
            if digits == 0 && fraction.isEmpty {
                if s[start] == "-" { throw fail("a span cannot be negative") }
                throw fail("expected a number at '\(string(s[start...]))'")
            }
            if i < s.count, s[i] == "." { throw fail("unexpected '\(string(s[i...]))'") }
            skipSpace()
            let unitStart = i
            while i < s.count, isUnitScalar(s[i]) { i += 1 }
            let name = string(s[unitStart..<i])
            let perUnit: Int64
            if name.isEmpty {
                perUnit = nsPerSecond
            } else if let u = unit(named: name) {
                perUnit = u
            } else {
                throw fail("unknown unit '\(name)' (use ms, s, min, h, d, w, M or y)")
            }
            let (wholeNs, o1) = whole.multipliedReportingOverflow(by: perUnit)
            if o1 { throw fail("is too large (the limit is about 292 years)") }
            let (group, o2) = wholeNs.addingReportingOverflow(fractionNanoseconds(fraction, perUnit: perUnit))
            let (sum, o3) = total.addingReportingOverflow(group)
            if o2 || o3 { throw fail("is too large (the limit is about 292 years)") }
            total = sum
            skipSpace()
            if i < s.count, digit(s[i]) == nil, s[i] != "." {
                throw fail("unexpected '\(string(s[i...]))'")
            }
        }
        return Span(nanoseconds: total)
    }

    /// The nanoseconds that `0.<fraction>` of one unit stands for, truncated toward zero.
    private static func fractionNanoseconds(_ fraction: [Int64], perUnit: Int64) -> Int64 {
        // Eighteen digits resolve far below a nanosecond of any unit; more would overflow the numerator.
        var numerator: Int64 = 0
        var denominator: Int64 = 1
        for d in fraction.prefix(18) {
            numerator = numerator * 10 + d
            denominator *= 10
        }
        let product = numerator.multipliedFullWidth(by: perUnit)
        return denominator.dividingFullWidth(product).quotient
    }

    private static func digit(_ c: Unicode.Scalar) -> Int64? {
        c >= "0" && c <= "9" ? Int64(c.value - 48) : nil
    }

    private static func isUnitScalar(_ c: Unicode.Scalar) -> Bool {
        (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c == "µ" || c == "μ"
    }

    private static func string(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        var out = String.UnicodeScalarView()
        out.append(contentsOf: scalars)
        return String(out)
    }

    private static let formatTable: [(suffix: String, usec: Int64)] = [
        ("y", 31_557_600_000_000), ("month", 2_629_800_000_000), ("w", 604_800_000_000), ("d", 86_400_000_000),
        ("h", 3_600_000_000), ("min", 60_000_000), ("s", 1_000_000), ("ms", 1_000), ("us", 1),
    ]

    /// Formats a span as systemd does: "1min 30s", "1h 30min", "2d", "500ms", "1.500000s"; zero is "0".
    ///
    /// The result parses back to the same span. Sub-microsecond rests (which systemd cannot hold) are added
    /// as "ns"; negative spans get a leading "-" (they only arise as differences and do not parse).
    public static func format(_ span: Span) -> String {
        if span.nanoseconds == 0 { return "0" }
        if span.nanoseconds < 0 {
            if span.nanoseconds == Int64.min { return "-" + format(Span(nanoseconds: Int64.max)) }
            return "-" + format(Span(nanoseconds: -span.nanoseconds))
        }
        var t = span.nanoseconds / 1_000
        let nanos = span.nanoseconds % 1_000
        var parts: [String] = []
        for (suffix, usec) in formatTable where t > 0 {
            if t < usec { continue }
            let a = t / usec
            let b = t % usec
            // Like systemd: below a minute, a rest is shown as a decimal fraction of the unit.
            if t < 60_000_000 && b > 0 && usec > 1 {
                let width = String(usec).count - 1
                let fraction = String(b)
                let padded = String(repeating: "0", count: width - fraction.count) + fraction
                parts.append("\(a).\(padded)\(suffix)")
                t = 0
                break
            }
            parts.append("\(a)\(suffix)")
            t = b
        }
        if nanos > 0 { parts.append("\(nanos)ns") }
        return parts.joined(separator: " ")
    }
}
