import AvisoCore
import AvisoTestSupport
import Testing

/// The `aviso` DST policy from tables: (spec, zone, after, expected local elapses), and `systemd` beside it.
struct CalendarDSTPolicyTests {
    static func local(_ zone: ZoneRules, _ t: WallTime) -> String {
        let c = zone.civil(at: t)
        return "\(c.description) \(zone.abbreviation(at: t))"
    }

    static func elapses(_ text: String, _ zoneName: String, from: CivilDateTime, count: Int, policy: DSTPolicy)
        throws -> [String]
    {
        let zone = try ZoneRulesTests.load(zoneName)
        guard case .unique(var at) = zone.resolve(from) else { Issue.record("start time must be unique"); return [] }
        let spec = try CalendarSpec.parse(text)
        var out: [String] = []
        for _ in 0..<count {
            guard let n = spec.nextElapse(after: at, in: zone, policy: policy) else { break }
            #expect(n > at, "elapses strictly increase")
            out.append(local(zone, n))
            at = n
        }
        return out
    }

    @Test func springForwardGapFiresAfterTheGapUnderAviso() throws {
        let d = CivilDateTime(year: 2025, month: 3, day: 8, hour: 12)
        #expect(try Self.elapses("*-*-* 02:30", "America/New_York", from: d, count: 2, policy: .aviso)
            == ["2025-03-09 03:00:00 EDT", "2025-03-10 02:30:00 EDT"])
        #expect(try Self.elapses("*-*-* 02:30", "America/New_York", from: d, count: 1, policy: .systemd)
            == ["2025-03-10 02:30:00 EDT"])
        let lh = CivilDateTime(year: 2025, month: 10, day: 4, hour: 12)
        #expect(try Self.elapses("02:15", "Australia/Lord_Howe", from: lh, count: 1, policy: .aviso)
            == ["2025-10-05 02:30:00 +11"])
        let nz = CivilDateTime(year: 2025, month: 9, day: 27, hour: 12)
        #expect(try Self.elapses("02:30", "Pacific/Auckland", from: nz, count: 1, policy: .aviso)
            == ["2025-09-28 03:00:00 NZDT"])
        let madrid = CivilDateTime(year: 2025, month: 3, day: 29, hour: 12)
        #expect(try Self.elapses("02:30", "Europe/Madrid", from: madrid, count: 1, policy: .aviso)
            == ["2025-03-30 03:00:00 CEST"])
        let dublin = CivilDateTime(year: 2025, month: 3, day: 29, hour: 12)
        #expect(try Self.elapses("01:30", "Europe/Dublin", from: dublin, count: 1, policy: .aviso)
            == ["2025-03-30 02:00:00 IST"])
    }

    @Test func fixedHourInRepeatedHourFiresOnce() throws {
        let d = CivilDateTime(year: 2025, month: 11, day: 1, hour: 12)
        #expect(try Self.elapses("01:30", "America/New_York", from: d, count: 2, policy: .aviso)
            == ["2025-11-02 01:30:00 EDT", "2025-11-03 01:30:00 EST"])
        let m = CivilDateTime(year: 2025, month: 10, day: 25, hour: 12)
        #expect(try Self.elapses("02:30", "Europe/Madrid", from: m, count: 2, policy: .aviso)
            == ["2025-10-26 02:30:00 CEST", "2025-10-27 02:30:00 CET"])
    }

    @Test func quarterHoursKeepTheirCadenceThroughTheRepeatedHour() throws {
        let d = CivilDateTime(year: 2025, month: 11, day: 2, hour: 0, minute: 50)
        let got = try Self.elapses("*:0/15", "America/New_York", from: d, count: 9, policy: .aviso)
        #expect(got == ["2025-11-02 01:00:00 EDT", "2025-11-02 01:15:00 EDT", "2025-11-02 01:30:00 EDT",
                        "2025-11-02 01:45:00 EDT", "2025-11-02 01:00:00 EST", "2025-11-02 01:15:00 EST",
                        "2025-11-02 01:30:00 EST", "2025-11-02 01:45:00 EST", "2025-11-02 02:00:00 EST"])
        // systemd loses the repeated hour.
        let sd = try Self.elapses("*:0/15", "America/New_York", from: d, count: 5, policy: .systemd)
        #expect(sd.last == "2025-11-02 02:00:00 EST")
    }

    @Test func impossibleSpecsEndTheSearch() throws {
        let spec = try CalendarSpec.parse("*-02-30")
        #expect(spec.nextElapse(after: WallTime(seconds: 1_700_000_000), in: .utc, policy: .aviso) == nil)
        #expect(spec.nextElapse(after: WallTime(seconds: 1_700_000_000), in: .utc, policy: .systemd) == nil)
    }

    /// The `aviso` policy searches civil time with its own fast normalisation and maps each candidate through the
    /// zone; the `systemd` policy runs the mktime model in the zone. Where the offset never changes nothing may tell
    /// them apart: generated specs (end of month, sub-seconds, weekdays, past years and the year-2199 bound
    /// included), chained from bases spread from 2020 to 2199.
    @Test(arguments: [ZoneRules.utc, .fixed(offsetSeconds: 20_700, name: "+0545"), .fixed(offsetSeconds: -12_600, name: "-0330")])
    func policiesAgreeWhereTheOffsetNeverChanges(zone: ZoneRules) throws {
        var g = SplitMix(seed: 20_261_201)
        var compared = 0
        for _ in 0..<1_500 {
            guard let spec = try? CalendarSpec.parse(CalendarOracleTests.spec(&g)) else { continue }
            let base = 1_577_836_800 + Int64(g.int(0...5_680_000_000)) + (g.chance(10) ? 5_670_000_000 : 0)
            var at = WallTime(seconds: base) + Span(nanoseconds: Int64(g.int(0...999_999_999)))
            for _ in 0..<8 {
                let aviso = spec.nextElapse(after: at, in: zone, policy: .aviso)
                let systemd = spec.nextElapse(after: at, in: zone, policy: .systemd)
                #expect(aviso == systemd, "'\(spec.normalized)' in \(zone) after \(at)")
                guard let aviso, aviso == systemd else { break }
                compared += 1
                at = aviso
            }
        }
        #expect(compared > 5_000)
    }

    @Test(arguments: [
        ("Mon..Fri 9:00", "Mon..Fri *-*-* 09:00:00"), ("*:0/15", "*-*-* *:00/15:00"), ("weekly", "Mon *-*-* 00:00:00"),
        ("quarterly", "*-01,04,07,10-01 00:00:00"), ("*-*~1", "*-*~01 00:00:00"), ("Sat,Sun,Mon", "Mon,Sat,Sun *-*-* 00:00:00"),
        ("8..17/2:00", "*-*-* 08..16/2:00:00"), ("12:00:01.5", "*-*-* 12:00:01.500000"), ("daily Europe/Madrid", "*-*-* 00:00:00 Europe/Madrid"),
        ("hourly utc", "*-*-* *:00:00 UTC"), ("25-1-1", "2025-01-01 00:00:00"),
    ])
    func normalizes(text: String, expected: String) throws {
        let spec = try CalendarSpec.parse(text)
        #expect(spec.normalized == expected)
        #expect(try CalendarSpec.parse(spec.normalized) == spec, "the normalised form re-parses to itself")
    }

    @Test(arguments: [
        ("Mon..Fry", "unknown weekday 'Fry'"), ("Sat..Mon", "ends before it starts"), ("*-13-01", "month 13"),
        ("*:0/0", "/0"), ("25:00", "hour 25"), ("  daily", "expected a number"), ("*/2", "in the date"),
        ("Mon..", "no end"), ("12:00:00 x", "unexpected"), ("", "nothing"),
    ])
    func rejects(text: String, fragment: String) {
        #expect {
            _ = try CalendarSpec.parse(text, isZone: { _ in false })
        } throws: { error in
            let e = error as? ValidationError
            return e?.code == .calendar && e?.message.contains(fragment) == true && e?.message.contains("OnCalendar: '") == true
        }
    }
}
