/// A calendar event in systemd's OnCalendar language (systemd.time(7)): "Mon..Fri 09:00", "*:0/15", "daily",
/// "*-*~1 18:00 Europe/Madrid".
///
/// Parsed and normalised exactly as systemd 252 does. The spec is pure data; `nextElapse(after:in:policy:)` takes
/// the zone rules as a value and never reads the clock or `TZ`.
public struct CalendarSpec: Hashable, Sendable, CustomStringConvertible {
    /// Weekdays as bits, Monday = bit 0; nil means any day.
    var weekdays: Int?
    var year: [CalendarComponent]?
    var month: [CalendarComponent]?
    var day: [CalendarComponent]?
    var hour: [CalendarComponent]?
    var minute: [CalendarComponent]?
    /// Seconds, in microseconds.
    var microsecond: [CalendarComponent]?
    /// `~` in the date: days are counted back from the end of the month.
    var endOfMonth = false
    /// The spec ends in " UTC" (any case) or names a time given as "@SECONDS".
    var utc = false

    /// The zone named at the end of the spec ("Europe/Madrid"), or nil when there is none or it is UTC.
    ///
    /// The core cannot check the name (no I/O): load it with the caller's zone database and refuse the spec
    /// when that fails. With a zone, the spec is anchored to it; without, it follows the zone the caller passes.
    public internal(set) var zone: String?

    init() {}

    /// Parses a calendar event; throws `.calendar` with a message that quotes the spec and points at the bad part,
    /// such as "OnCalendar: 'Mon..Fry' — unknown weekday 'Fry'".
    ///
    /// A trailing word is taken as a zone name when it is shaped like one (letters, digits, '/', '_', '-', '+')
    /// and `isZone` accepts it; pass a loader check (`{ ZoneDatabase.load($0, ...) != nil }`) to reject unknown
    /// names as systemd does, or rely on the default and check `zone` afterwards.
    public static func parse(_ text: String, isZone: (String) -> Bool = { _ in true }) throws(ValidationError)
        -> CalendarSpec
    {
        var parser = CalendarParser(text)
        return try parser.parse(isZone: isZone)
    }

    /// The normalised form, character for character as `systemd-analyze calendar` prints "Normalized form:".
    ///
    /// It parses back to an equal spec.
    public var normalized: String {
        var s = ""
        if let weekdays { s = Self.formatWeekdays(weekdays) + " " }
        s += CalendarComponent.format(year, width: 4, usec: false) + "-"
        s += CalendarComponent.format(month, width: 2, usec: false) + (endOfMonth ? "~" : "-")
        s += CalendarComponent.format(day, width: 2, usec: false) + " "
        s += CalendarComponent.format(hour, width: 2, usec: false) + ":"
        s += CalendarComponent.format(minute, width: 2, usec: false) + ":"
        s += CalendarComponent.format(microsecond, width: 2, usec: true)
        if utc { s += " UTC" } else if let zone { s += " " + zone }
        return s
    }

    /// Whether the spec is in UTC whatever zone is passed in.
    public var isUTC: Bool { utc }

    /// Whether the hour is `*`: the spec fires every hour (hourly, `*:30`, `*:0/15`, minutely).
    ///
    /// Under the `aviso` DST policy such specs keep their cadence through a repeated hour.
    public var repeatsEveryHour: Bool { hour == nil }

    /// The normalised form.
    public var description: String { normalized }

    static let weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// systemd's `format_weekdays`: runs of three or more days as ranges, pairs as lists.
    static func formatWeekdays(_ bits: Int) -> String {
        var s = ""
        var l = -1
        var needComma = false
        for x in 0...7 {
            if x < 7 && bits & (1 << x) != 0 {
                if l < 0 {
                    if needComma { s += "," } else { needComma = true }
                    s += weekdayNames[x]
                    l = x
                }
            } else if l >= 0 {
                if x > l + 1 { s += (x > l + 2 ? ".." : ",") + weekdayNames[x - 1] }
                l = -1
            }
        }
        return s
    }
}

extension ValidationError.Code {
    /// A calendar event (OnCalendar spec) that does not parse or cannot be used.
    public static let calendar = ValidationError.Code(rawValue: "calendar")
}
