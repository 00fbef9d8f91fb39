import AvisoCore
import Testing

struct ISO8601Tests {
    static let formats: [(Int64, String)] = [
        (0, "1970-01-01T00:00:00Z"),
        (1_796_112_000_000_000_000, "2026-12-01T08:00:00Z"),
        (1_796_112_000_999_999_999, "2026-12-01T08:00:00Z"),
        (-1, "1969-12-31T23:59:59Z"),
        (951_782_400_000_000_000, "2000-02-29T00:00:00Z"),
        (4_102_444_800_000_000_000, "2100-01-01T00:00:00Z"),
    ]

    @Test(arguments: formats)
    func formatsInUTCWholeSeconds(nanoseconds: Int64, text: String) {
        #expect(ISO8601.format(WallTime(nanoseconds: nanoseconds)) == text)
    }

    static let parses: [(String, Int64?)] = [
        ("2026-12-01T08:00:00Z", 1_796_112_000_000_000_000),
        ("2026-12-01T09:00:00+01:00", 1_796_112_000_000_000_000),
        ("2026-12-01T03:00:00-05:00", 1_796_112_000_000_000_000),
        ("2026-12-01T13:30:00+0530", 1_796_112_000_000_000_000),
        ("2026-12-01 08:00:00z", 1_796_112_000_000_000_000),
        ("2026-12-01T08:00:00.5Z", 1_796_112_000_500_000_000),
        ("2026-12-01T08:00:00.123456789123Z", 1_796_112_000_123_456_789),
        ("1969-12-31T23:59:59Z", -1_000_000_000),
        ("2026-12-01T08:00:00", nil),
        ("2026-12-01", nil),
        ("2026-02-29T08:00:00Z", nil),
        ("2026-12-01T24:00:00Z", nil),
        ("2026-12-01T08:00:00+25:00", nil),
        ("2026-12-01T08:00:00Zjunk", nil),
        ("26-12-01T08:00:00Z", nil),
        ("2026-12-01T08:00:00.Z", nil),
        ("", nil),
    ]

    @Test(arguments: parses)
    func parsesRFC3339(text: String, nanoseconds: Int64?) {
        #expect(ISO8601.parse(text) == nanoseconds.map { WallTime(nanoseconds: $0) })
    }

    @Test func microsecondsAreShownOnlyWhenThereIsAFraction() {
        #expect(ISO8601.formatMicroseconds(WallTime(nanoseconds: 1_447_398_683_420_000_000)) == "2015-11-13T07:11:23.420000Z")
        #expect(ISO8601.formatMicroseconds(WallTime(nanoseconds: 1_447_398_683_000_000_999)) == "2015-11-13T07:11:23Z")
        #expect(ISO8601.formatMicroseconds(WallTime(nanoseconds: 1_447_398_683_000_001_000)) == "2015-11-13T07:11:23.000001Z")
        #expect(ISO8601.formatMicroseconds(WallTime(seconds: 1_447_398_683)) == "2015-11-13T07:11:23Z")
    }

    @Test func formatThenParseRoundTripsWholeSeconds() {
        var s: Int64 = -5_000_000_000
        while s < 8_000_000_000 {
            let t = WallTime(seconds: s)
            #expect(ISO8601.parse(ISO8601.format(t)) == t)
            s += 7_777_777
        }
    }
}
