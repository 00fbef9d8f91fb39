import AvisoCore
import Foundation
import Testing

struct ZoneRulesTests {
    static func load(_ name: String) throws -> ZoneRules {
        let bytes = try #require(SystemOracle.read("/usr/share/zoneinfo/\(name)"), "tz database file for \(name)")
        return try ZoneRules.parse(tzif: bytes, name: name)
    }

    /// One line of `zdump -v`: an instant, and the offset and abbreviation the system says are in force.
    struct Observation {
        var seconds: Int64
        var offset: Int
        var abbreviation: String
    }

    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func zdump(_ zone: String, from: Int, to: Int) throws -> [Observation] {
        let out = try #require(SystemOracle.run("/usr/bin/zdump", ["-v", "-c", "\(from),\(to)", zone]), "zdump is the oracle")
        return out.split(separator: "\n").compactMap { line in
            let f = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            // zone wd Mon d hh:mm:ss yyyy UT = wd Mon d hh:mm:ss yyyy ABBR isdst=N gmtoff=N
            guard f.count == 16, f[6] == "UT", let m = months.firstIndex(of: f[2]), let d = Int(f[3]),
                  let y = Int(f[5]), f[15].hasPrefix("gmtoff="), let off = Int(f[15].dropFirst(7)) else { return nil }
            let hms = f[4].split(separator: ":").compactMap { Int($0) }
            let c = CivilDateTime(year: y, month: m + 1, day: d, hour: hms[0], minute: hms[1], second: hms[2])
            return Observation(seconds: c.secondsSinceEpoch, offset: off, abbreviation: f[13])
        }
    }

    static let zones = ["America/New_York", "Europe/Madrid", "Europe/Dublin", "Australia/Lord_Howe",
                        "Pacific/Auckland", "UTC"]

    @Test(arguments: zones)
    func agreesWithZdumpAroundEveryTransition(zone: String) throws {
        let rules = try Self.load(zone)
        // The 1900s exercise the transition table, 2090s the POSIX footer (files list transitions up to 2037).
        for (from, to) in [(1940, 1950), (1975, 1990), (2020, 2030), (2095, 2101)] {
            let observed = try Self.zdump(zone, from: from, to: to)
            if zone != "UTC" && from > 1950 { #expect(observed.count >= 4, "zdump \(zone) \(from)-\(to) gave too little") }
            for o in observed {
                let t = WallTime(seconds: o.seconds)
                #expect(rules.offset(at: t) == o.offset, "\(zone) at \(ISO8601.format(t))")
                #expect(rules.abbreviation(at: t) == o.abbreviation, "\(zone) at \(ISO8601.format(t))")
            }
        }
    }

    @Test(arguments: zones)
    func resolvesLocalTimesAroundEveryTransition(zone: String) throws {
        let rules = try Self.load(zone)
        let observed = try Self.zdump(zone, from: 2020, to: 2030) + Self.zdump(zone, from: 2096, to: 2101)
        for (before, at) in zip(observed, observed.dropFirst()) where at.seconds == before.seconds + 1 {
            let a = Int64(before.offset), b = Int64(at.offset), t = at.seconds
            let lastBefore = CivilDateTime(secondsSinceEpoch: t - 1 + a)
            let firstAfter = CivilDateTime(secondsSinceEpoch: t + b)
            let middle = CivilDateTime(secondsSinceEpoch: t + min(a, b) + abs(b - a) / 2)
            if b > a {
                // Spring forward: the edges exist once, the local times between them never.
                #expect(rules.resolve(lastBefore) == .unique(WallTime(seconds: t - 1)), "\(zone) \(lastBefore)")
                #expect(rules.resolve(firstAfter) == .unique(WallTime(seconds: t)), "\(zone) \(firstAfter)")
                #expect(rules.resolve(middle) == .gap(skipped: middle, firstAfter: WallTime(seconds: t)), "\(zone) \(middle)")
            } else if b < a {
                // Fall back: the repeated stretch [t + b, t + a) happens twice, `a - b` seconds apart.
                let d = a - b
                #expect(rules.resolve(lastBefore) == .overlap(first: WallTime(seconds: t - 1), second: WallTime(seconds: t - 1 + d)),
                        "\(zone) \(lastBefore)")
                #expect(rules.resolve(firstAfter) == .overlap(first: WallTime(seconds: t - d), second: WallTime(seconds: t)),
                        "\(zone) \(firstAfter)")
                let l = middle.secondsSinceEpoch
                #expect(rules.resolve(middle) == .overlap(first: WallTime(seconds: l - a), second: WallTime(seconds: l - b)),
                        "\(zone) \(middle)")
                let justAfter = CivilDateTime(secondsSinceEpoch: t + a)
                #expect(rules.resolve(justAfter) == .unique(WallTime(seconds: t + d)), "\(zone) \(justAfter)")
            }
        }
    }

    /// Local civil time, offset and abbreviation agree with glibc's `date` at instants spread over 1970...2100.
    @Test(arguments: zones)
    func civilTimeAgreesWithDate(zone: String) throws {
        let rules = try Self.load(zone)
        for k in Int64(0)..<16 {
            let s = -1_000_000 + k * 260_017_177  // 1969 to 2101, at odd times of day and year
            let out = try #require(SystemOracle.run("/usr/bin/date", ["-d", "@\(s)", "+%Y-%m-%d %H:%M:%S %z %Z"],
                                                    environment: ["TZ": zone]), "date is the oracle")
            let t = WallTime(seconds: s)
            let o = rules.offset(at: t)
            let sign = o < 0 ? "-" : "+"
            let hhmm = "\(abs(o) / 3_600 < 10 ? "0" : "")\(abs(o) / 3_600)\(abs(o) % 3_600 / 60 < 10 ? "0" : "")\(abs(o) % 3_600 / 60)"
            #expect(out.trimmingCharacters(in: .whitespacesAndNewlines)
                == "\(rules.civil(at: t)) \(sign)\(hhmm) \(rules.abbreviation(at: t))", "\(zone) at \(ISO8601.format(t))")
        }
    }

    /// Hand-checked cases, independent of any tool.
    @Test func knownDaylightSavingDays() throws {
        let ny = try Self.load("America/New_York")
        let gap = CivilDateTime(year: 2026, month: 3, day: 8, hour: 2, minute: 30)
        #expect(ny.resolve(gap) == .gap(skipped: gap, firstAfter: ISO8601.parse("2026-03-08T07:00:00Z")!))
        #expect(ny.resolve(CivilDateTime(year: 2026, month: 11, day: 1, hour: 1, minute: 30))
            == .overlap(first: ISO8601.parse("2026-11-01T05:30:00Z")!, second: ISO8601.parse("2026-11-01T06:30:00Z")!))
        #expect(ny.resolve(CivilDateTime(year: 2026, month: 7, day: 4, hour: 9, nanosecond: 5))
            == .unique(WallTime(nanoseconds: ISO8601.parse("2026-07-04T13:00:00Z")!.nanoseconds + 5)))

        let lordHowe = try Self.load("Australia/Lord_Howe")
        let lhGap = CivilDateTime(year: 2026, month: 10, day: 4, hour: 2, minute: 15)
        #expect(lordHowe.resolve(lhGap) == .gap(skipped: lhGap, firstAfter: ISO8601.parse("2026-10-03T15:30:00Z")!))
        #expect(lordHowe.offset(at: ISO8601.parse("2026-07-01T00:00:00Z")!) == 37_800)
        #expect(lordHowe.abbreviation(at: ISO8601.parse("2100-01-01T00:00:00Z")!) == "+11")

        let dublin = try Self.load("Europe/Dublin")
        #expect(dublin.offset(at: ISO8601.parse("2100-01-15T12:00:00Z")!) == 0)
        #expect(dublin.abbreviation(at: ISO8601.parse("2100-07-15T12:00:00Z")!) == "IST")
        let dGap = CivilDateTime(year: 2100, month: 3, day: 28, hour: 1, minute: 30)
        #expect(dublin.resolve(dGap) == .gap(skipped: dGap, firstAfter: ISO8601.parse("2100-03-28T01:00:00Z")!))

        let auckland = try Self.load("Pacific/Auckland")
        #expect(auckland.civil(at: ISO8601.parse("2100-01-01T00:00:00Z")!)
            == CivilDateTime(year: 2100, month: 1, day: 1, hour: 13))
    }

    @Test func nextTransitionFindsDaylightSavingChanges() throws {
        let madrid = try Self.load("Europe/Madrid")
        #expect(madrid.nextTransition(after: ISO8601.parse("2026-01-01T00:00:00Z")!) == ISO8601.parse("2026-03-29T01:00:00Z"))
        #expect(madrid.nextTransition(after: ISO8601.parse("2026-03-29T01:00:00Z")!) == ISO8601.parse("2026-10-25T01:00:00Z"))
        #expect(madrid.nextTransition(after: ISO8601.parse("2100-06-01T00:00:00Z")!) == ISO8601.parse("2100-10-31T01:00:00Z"))
        #expect(ZoneRules.utc.nextTransition(after: WallTime(seconds: 0)) == nil)
        #expect(try Self.load("UTC").nextTransition(after: WallTime(seconds: 0)) == nil)
    }

    @Test func fixedZonesNeverChange() {
        let india = ZoneRules.fixed(offsetSeconds: 19_800, name: "+05:30")
        for s in stride(from: Int64(-3_000_000_000), to: 5_000_000_000, by: 123_456_789) {
            #expect(india.offset(at: WallTime(seconds: s)) == 19_800)
        }
        #expect(india.resolve(CivilDateTime(year: 2026, month: 3, day: 29, hour: 2, minute: 30))
            == .unique(ISO8601.parse("2026-03-28T21:00:00Z")!))
        #expect(ZoneRules.utc.abbreviation(at: WallTime(seconds: 0)) == "UTC")
    }

    @Test func refusesFilesThatAreNotTZif() throws {
        #expect(throws: ValidationError(.timeZone, "time zone 'Nowhere' cannot be used: it is not a TZif file")) {
            try ZoneRules.parse(tzif: Array("hello, world, this is text".utf8), name: "Nowhere")
        }
        let real = try #require(SystemOracle.read("/usr/share/zoneinfo/Europe/Madrid"))
        #expect(throws: ValidationError(.timeZone, "time zone 'Europe/Madrid' cannot be used: it is truncated")) {
            try ZoneRules.parse(tzif: Array(real.prefix(200)), name: "Europe/Madrid")
        }
        #expect(throws: ValidationError(.timeZone, "time zone 'Empty' cannot be used: it is truncated")) {
            try ZoneRules.parse(tzif: [], name: "Empty")
        }
    }

    /// The 32-bit block alone (as in a version 1 file) gives the same answers inside its range.
    @Test func readsVersionOneFiles() throws {
        var bytes = try #require(SystemOracle.read("/usr/share/zoneinfo/Europe/Madrid"))
        bytes[4] = 0  // claim version 1: only the first block is read
        let v1 = try ZoneRules.parse(tzif: bytes, name: "Europe/Madrid")
        let full = try Self.load("Europe/Madrid")
        for s in stride(from: Int64(-1_000_000_000), to: 2_000_000_000, by: 3_600 * 97) {
            #expect(v1.offset(at: WallTime(seconds: s)) == full.offset(at: WallTime(seconds: s)))
        }
    }
}
