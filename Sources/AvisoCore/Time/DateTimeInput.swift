/// Dates and times as people type them: "2026-12-01 09:00", "2026-12-01 09:00:30 Europe/Madrid",
/// "2026-12-01 09:00 +01:00".
public enum DateTimeInput {
    private static let expected = "expected 'YYYY-MM-DD HH:MM[:SS]', optionally followed by a zone name or a UTC offset"

    /// Parses a date and time into the instant it names.
    ///
    /// The time is read in `localZone` unless a zone name ("Europe/Madrid", "UTC", looked up with `loadZone`) or a
    /// UTC offset ("+01:00", "-0530", "Z") follows it. A local time that a DST change skips resolves to the first
    /// instant after the gap (02:30 on a spring-forward night becomes 03:00); one that happens twice resolves to its
    /// first occurrence. Years outside 1970...2199, and instants outside `WallTime.earliestSupported...latestSupported`,
    /// are refused. Errors: `.dateTime` ("time '2026-13-01 09:00': month 13 is out of range (1...12)") and
    /// `.timeZone` ("unknown time zone 'Europe/Madird'").
    /// "@EPOCH[.FRACTION]": seconds since the epoch, as systemd takes them (`systemd-analyze calendar
    /// --base-time=@1447398683.42`); nil when `text` does not start with '@'. Digits only, at most nine after the
    /// point; the instant must be within the supported range.
    public static func parseEpoch(_ text: String) throws(ValidationError) -> WallTime? {
        guard text.hasPrefix("@") else { return nil }
        let number = text.dropFirst()
        let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let digits: (Substring) -> Bool = { !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }
        guard digits(parts[0]), parts.count == 1 || (digits(parts[1]) && parts[1].count <= 9),
              parts[0].count <= 12, let seconds = Int64(parts[0]) else {
            throw ValidationError(.dateTime, "time '\(text)': expected '@' and seconds since 1970, like @1447398683.42 "
                + "(at most nine digits after the point)")
        }
        let fraction = parts.count == 2 ? Int64(parts[1] + String(repeating: "0", count: 9 - parts[1].count))! : 0
        let t = WallTime(seconds: seconds) + Span(nanoseconds: fraction)
        guard t.isSupported else {
            throw ValidationError(.dateTime, "time '\(text)' is after \(ISO8601.format(WallTime.latestSupported)), the last supported instant")
        }
        return t
    }

    public static func parse(
        _ text: String, localZone: ZoneRules, loadZone: (String) -> ZoneRules?
    ) throws(ValidationError) -> WallTime {
        func fail(_ why: String) -> ValidationError { ValidationError(.dateTime, "time '\(text)': \(why)") }

        var s = Scanner(text)
        func skipSpace() { while let c = s.peek, c.properties.isWhitespace { s.index += 1 } }
        skipSpace()
        guard let year = s.number(digits: 4), s.take("-"),
              let month = s.number(), month.digits <= 2, s.take("-"),
              let day = s.number(), day.digits <= 2 else { throw fail(expected) }
        guard s.take(" ") || s.take("T") else { throw fail(expected) }
        skipSpace()
        guard let hour = s.number(), hour.digits <= 2, s.take(":"),
              let minute = s.number(), minute.digits == 2 else { throw fail(expected) }
        var second = 0
        if s.take(":") {
            guard let sec = s.number(), sec.digits == 2 else { throw fail(expected) }
            second = sec.value
        }

        guard WallTime.supportedYears.contains(year) else {
            throw fail("year \(year) is outside the years aviso can schedule (\(Self.supportedYears))")
        }
        guard (1...12).contains(month.value) else {
            throw fail("month \(month.value) is out of range (1...12)")
        }
        let monthLength = CivilDateTime.daysIn(month: month.value, year: year)
        guard (1...monthLength).contains(day.value) else {
            throw fail("day \(day.value) is out of range for \(monthNames[month.value - 1]) \(year) (1...\(monthLength))")
        }
        guard (0...23).contains(hour.value) else { throw fail("hour \(hour.value) is out of range (0...23)") }
        guard (0...59).contains(minute.value) else { throw fail("minute \(minute.value) is out of range (0...59)") }
        guard (0...59).contains(second) else { throw fail("second \(second) is out of range (0...59)") }
        let civil = CivilDateTime(year: year, month: month.value, day: day.value, hour: hour.value,
                                  minute: minute.value, second: second)

        skipSpace()
        let zoneText = s.rest
        var end = zoneText.endIndex
        while end > zoneText.startIndex, zoneText[zoneText.index(before: end)].isWhitespace {
            end = zoneText.index(before: end)
        }
        let zoneName = String(zoneText[..<end])
        let zone: ZoneRules
        // Zone names start with a letter, offsets with a sign; anything else is left-over junk like ":00.5".
        if zoneName.isEmpty {
            zone = localZone
        } else if !zoneName.first!.isLetter && !"+-".contains(zoneName.first!) || zoneName.contains(where: \.isWhitespace) {
            throw fail("unexpected '\(zoneName)' after the time")
        } else if zoneName == "Z" || zoneName == "z" {
            zone = .utc
        } else if zoneName.hasPrefix("+") || zoneName.hasPrefix("-") {
            var o = Scanner(zoneName)
            guard let offset = o.utcOffset(), o.atEnd else {
                throw fail("'\(zoneName)' is not a UTC offset like +01:00 or -0530 (at most ±23:59)")
            }
            zone = .fixed(offsetSeconds: offset, name: zoneName)
        } else if let z = loadZone(zoneName) {
            zone = z
        } else {
            throw ValidationError(.timeZone, "unknown time zone '\(zoneName)'")
        }

        let instant: WallTime
        switch zone.resolve(civil) {
        case .unique(let t): instant = t
        case .gap(_, let firstAfter): instant = firstAfter
        case .overlap(let first, _): instant = first
        }
        // The year is in range, yet the offset can carry the instant over the edge (2199-12-31 23:30 -05:00).
        if instant < WallTime.earliestSupported {
            throw fail("it falls before \(ISO8601.format(WallTime.earliestSupported)), the first moment aviso can schedule")
        }
        if instant > WallTime.latestSupported {
            throw fail("it falls after \(ISO8601.format(WallTime.latestSupported)), the last moment aviso can schedule")
        }
        return instant
    }

    /// "1970 to 2199", for messages.
    static let supportedYears = "\(WallTime.supportedYears.lowerBound) to \(WallTime.supportedYears.upperBound)"

    private static let monthNames = ["January", "February", "March", "April", "May", "June", "July", "August",
                                     "September", "October", "November", "December"]
}
