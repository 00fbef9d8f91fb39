import AvisoCore
import Testing

struct DateTimeInputTests {
    static func zone(_ name: String) -> ZoneRules? {
        if name == "UTC" { return .utc }
        guard let bytes = SystemOracle.read("/usr/share/zoneinfo/\(name)") else { return nil }
        return try? ZoneRules.parse(tzif: bytes, name: name)
    }

    static func parse(_ text: String, local: String = "Europe/Madrid") throws -> WallTime {
        try DateTimeInput.parse(text, localZone: zone(local)!, loadZone: zone)
    }

    static let good: [(String, String, String)] = [
        // input, local zone, expected instant
        ("2026-12-01 09:00", "Europe/Madrid", "2026-12-01T08:00:00Z"),
        ("2026-07-01 09:00", "Europe/Madrid", "2026-07-01T07:00:00Z"),
        ("2026-12-01 09:00:30", "Europe/Madrid", "2026-12-01T08:00:30Z"),
        ("2026-12-01 09:00 UTC", "Europe/Madrid", "2026-12-01T09:00:00Z"),
        ("2026-12-01 09:00 Z", "Europe/Madrid", "2026-12-01T09:00:00Z"),
        ("2026-12-01 09:00 +01:00", "America/New_York", "2026-12-01T08:00:00Z"),
        ("2026-12-01 09:00 -0530", "Europe/Madrid", "2026-12-01T14:30:00Z"),
        ("2026-12-01 09:00 America/New_York", "Europe/Madrid", "2026-12-01T14:00:00Z"),
        ("  2026-12-01   9:00  ", "UTC", "2026-12-01T09:00:00Z"),
        ("2026-12-01T09:00", "UTC", "2026-12-01T09:00:00Z"),
        // Spring forward: 02:30 does not exist; the first instant after the gap is 03:00 local.
        ("2026-03-29 02:30", "Europe/Madrid", "2026-03-29T01:00:00Z"),
        ("2026-03-08 02:30", "America/New_York", "2026-03-08T07:00:00Z"),
        // Fall back: 02:30 happens twice; the first (still summer time) wins.
        ("2026-10-25 02:30", "Europe/Madrid", "2026-10-25T00:30:00Z"),
        ("2026-11-01 01:30", "America/New_York", "2026-11-01T05:30:00Z"),
        ("2024-02-29 12:00", "UTC", "2024-02-29T12:00:00Z"),
    ]

    @Test(arguments: good)
    func parsesPeoplesDates(text: String, local: String, expected: String) throws {
        #expect(try Self.parse(text, local: local) == ISO8601.parse(expected))
    }

    static let bad: [(String, ValidationError)] = [
        ("2026-13-01 09:00", .init(.dateTime, "time '2026-13-01 09:00': month 13 is out of range (1...12)")),
        ("2026-02-29 09:00", .init(.dateTime, "time '2026-02-29 09:00': day 29 is out of range for February 2026 (1...28)")),
        ("2026-04-31 09:00", .init(.dateTime, "time '2026-04-31 09:00': day 31 is out of range for April 2026 (1...30)")),
        ("2026-12-01 24:00", .init(.dateTime, "time '2026-12-01 24:00': hour 24 is out of range (0...23)")),
        ("2026-12-01 09:60", .init(.dateTime, "time '2026-12-01 09:60': minute 60 is out of range (0...59)")),
        ("2026-12-01 09:00:61", .init(.dateTime, "time '2026-12-01 09:00:61': second 61 is out of range (0...59)")),
        ("tomorrow", .init(.dateTime, "time 'tomorrow': expected 'YYYY-MM-DD HH:MM[:SS]', optionally followed by a zone name or a UTC offset")),
        ("2026-12-01", .init(.dateTime, "time '2026-12-01': expected 'YYYY-MM-DD HH:MM[:SS]', optionally followed by a zone name or a UTC offset")),
        ("2026-12-01 9", .init(.dateTime, "time '2026-12-01 9': expected 'YYYY-MM-DD HH:MM[:SS]', optionally followed by a zone name or a UTC offset")),
        ("2026-12-01 09:00 Europe/Madird", .init(.timeZone, "unknown time zone 'Europe/Madird'")),
        ("2026-12-01 09:00 +25:00", .init(.dateTime, "time '2026-12-01 09:00 +25:00': '+25:00' is not a UTC offset like +01:00 or -0530 (at most ±23:59)")),
        ("2026-12-01 09:00:00.5", .init(.dateTime, "time '2026-12-01 09:00:00.5': unexpected '.5' after the time")),
        ("2026-12-01 09:00 UTC extra", .init(.dateTime, "time '2026-12-01 09:00 UTC extra': unexpected 'UTC extra' after the time")),
        // The supported range: years 1970 to 2199, never wrapped through 64-bit nanoseconds (9999 became 1816).
        ("9999-12-31 23:59", .init(.dateTime, "time '9999-12-31 23:59': year 9999 is outside the years aviso can schedule (1970 to 2199)")),
        ("2262-04-11 23:47:17 UTC", .init(.dateTime, "time '2262-04-11 23:47:17 UTC': year 2262 is outside the years aviso can schedule (1970 to 2199)")),
        ("1000-01-01 00:00", .init(.dateTime, "time '1000-01-01 00:00': year 1000 is outside the years aviso can schedule (1970 to 2199)")),
        ("0000-01-01 00:00", .init(.dateTime, "time '0000-01-01 00:00': year 0 is outside the years aviso can schedule (1970 to 2199)")),
        ("2199-12-31 23:30 -05:00", .init(.dateTime, "time '2199-12-31 23:30 -05:00': it falls after 2199-12-31T23:59:59Z, the last moment aviso can schedule")),
        ("1970-01-01 00:30 +01:00", .init(.dateTime, "time '1970-01-01 00:30 +01:00': it falls before 1970-01-01T00:00:00Z, the first moment aviso can schedule")),
    ]

    @Test(arguments: bad)
    func refusesBadDatesSayingWhy(text: String, error: ValidationError) {
        #expect(throws: error) { try Self.parse(text) }
    }

    /// Every minute of a spring-forward night resolves to an instant whose local time is the input, or, inside the
    /// gap, to the transition; and instants never go backwards as the input advances.
    @Test(arguments: ["Europe/Madrid", "America/New_York", "Australia/Lord_Howe", "Europe/Dublin"])
    func minutesAcrossTransitionsNeverGoBackwards(zoneName: String) throws {
        let rules = try #require(Self.zone(zoneName))
        for (month, days) in [(3, 1...31), (4, 1...10), (10, 1...31), (11, 1...10)] {
            var previous: WallTime? = nil
            for day in days {
                for minute in stride(from: 0, to: 24 * 60, by: 15) {
                    let text = "2026-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day) "
                        + "\(minute / 60):\(minute % 60 < 10 ? "0" : "")\(minute % 60)"
                    let t = try DateTimeInput.parse(text, localZone: rules, loadZone: Self.zone)
                    let shown = rules.civil(at: t)
                    let asked = CivilDateTime(year: 2026, month: month, day: day, hour: minute / 60, minute: minute % 60)
                    if shown != asked {
                        // Only allowed inside a gap: then the instant is the first one after it, later than asked.
                        #expect(shown > asked, "\(zoneName) \(text) -> \(shown)")
                        #expect(rules.offset(at: t) != rules.offset(at: t - .seconds(1)), "\(zoneName) \(text)")
                    }
                    if let previous { #expect(previous <= t, "\(zoneName) \(text)") }
                    previous = t
                }
            }
        }
    }

    @Test(arguments: [
        ("@1447398683.42", 1_447_398_683_420_000_000 as Int64),
        ("@0", 0),
        ("@1447398683", 1_447_398_683_000_000_000),
        ("@1447398683.000000001", 1_447_398_683_000_000_001),
    ])
    func epochSecondsAsSystemdTakesThem(text: String, nanoseconds: Int64) throws {
        #expect(try DateTimeInput.parseEpoch(text) == WallTime(nanoseconds: nanoseconds))
    }

    @Test(arguments: ["@", "@-1", "@1.", "@.5", "@1.1234567890", "@1e9", "@ 1", "@99999999999"])
    func aBadEpochIsRefusedSayingWhy(text: String) {
        let error = #expect(throws: ValidationError.self) { try DateTimeInput.parseEpoch(text) }
        #expect(error?.message.contains("'\(text)'") == true, "\(error?.message ?? "")")
    }

    @Test func aTimeWithoutTheAtSignIsNotAnEpoch() throws {
        #expect(try DateTimeInput.parseEpoch("2015-11-13 07:11:23") == nil)
    }
}
