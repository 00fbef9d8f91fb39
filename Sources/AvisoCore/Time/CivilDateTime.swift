/// A date and time of the proleptic Gregorian calendar, without a zone: what a clock on the wall shows.
///
/// Fields are not range-checked by the type; `isValid` tells whether they name a real date and time.
/// Conversions use Howard Hinnant's days-from-civil algorithms and work for any year that fits an `Int`.
public struct CivilDateTime: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The proleptic Gregorian year (1 BC is 0).
    public var year: Int
    /// 1...12.
    public var month: Int
    /// 1...31.
    public var day: Int
    /// 0...23.
    public var hour: Int
    /// 0...59.
    public var minute: Int
    /// 0...59 (leap seconds are not represented, as in TZif files without leap data).
    public var second: Int
    /// 0..<1_000_000_000.
    public var nanosecond: Int

    /// Creates a civil date and time; the fields are taken as given.
    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, nanosecond: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.nanosecond = nanosecond
    }

    /// The civil date and time `seconds` (plus `nanosecond`) after 1970-01-01T00:00:00, in the same frame.
    ///
    /// With UTC seconds since the epoch this is the UTC date; add a zone offset first for local time.
    public init(secondsSinceEpoch seconds: Int64, nanosecond: Int = 0) {
        let days = Self.floorDiv(seconds, 86_400)
        let rest = Int(seconds - days * 86_400)
        let (y, m, d) = Self.civil(fromDays: days)
        self.init(year: y, month: m, day: d, hour: rest / 3_600, minute: rest / 60 % 60, second: rest % 60,
                  nanosecond: nanosecond)
    }

    /// Seconds since 1970-01-01T00:00:00 in the same frame (ignoring `nanosecond`).
    public var secondsSinceEpoch: Int64 {
        Self.days(fromCivil: year, month, day) * 86_400 + Int64(hour * 3_600 + minute * 60 + second)
    }

    /// Days since 1970-01-01 of this date.
    public var daysSinceEpoch: Int64 { Self.days(fromCivil: year, month, day) }

    /// Day of the week, 0 = Sunday ... 6 = Saturday.
    public var weekday: Int { Self.weekday(days: daysSinceEpoch) }

    /// Day of the week, 0 = Sunday ... 6 = Saturday, of the day `days` after 1970-01-01 (a Thursday, 4).
    static func weekday(days: Int64) -> Int { Int(((days % 7) + 11) % 7) }

    /// Whether the fields name a real date (month length and leap years included) and time of day.
    public var isValid: Bool {
        (1...12).contains(month) && day >= 1 && day <= Self.daysIn(month: month, year: year)
            && (0...23).contains(hour) && (0...59).contains(minute) && (0...59).contains(second)
            && (0..<1_000_000_000).contains(nanosecond)
    }

    /// "2026-12-01 08:00:00" (with ".NNNNNNNNN" only when the nanoseconds are not zero).
    public var description: String {
        var s = "\(Self.pad(year, 4))-\(Self.pad(month, 2))-\(Self.pad(day, 2)) "
            + "\(Self.pad(hour, 2)):\(Self.pad(minute, 2)):\(Self.pad(second, 2))"
        if nanosecond != 0 { s += "." + Self.pad(nanosecond, 9) }
        return s
    }

    /// Chronological order of the fields, as if in one zone.
    public static func < (a: CivilDateTime, b: CivilDateTime) -> Bool {
        (a.year, a.month, a.day, a.hour, a.minute) < (b.year, b.month, b.day, b.hour, b.minute)
            || ((a.year, a.month, a.day, a.hour, a.minute) == (b.year, b.month, b.day, b.hour, b.minute)
                && (a.second, a.nanosecond) < (b.second, b.nanosecond))
    }

    /// Whether `year` is a leap year of the Gregorian calendar.
    public static func isLeap(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// The number of days in `month` (1...12) of `year`.
    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's `days_from_civil`).
    public static func days(fromCivil year: Int, _ month: Int, _ day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The proleptic Gregorian date `days` after 1970-01-01 (Hinnant's `civil_from_days`).
    public static func civil(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        return (Int(y), Int(m), Int(d))
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    static func pad(_ n: Int, _ width: Int) -> String {
        let digits = String(n.magnitude)
        let padded = String(repeating: "0", count: max(0, width - digits.count)) + digits
        return n < 0 ? "-" + padded : padded
    }
}
