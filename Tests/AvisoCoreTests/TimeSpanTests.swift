import Foundation
import AvisoCore
import Testing

struct TimeSpanTests {
    static let good: [(String, Int64)] = [
        ("90s", 90_000_000_000),
        ("7min", 420_000_000_000),
        ("1h30min", 5_400_000_000_000),
        ("1h 30min", 5_400_000_000_000),
        ("2d", 172_800_000_000_000),
        ("500ms", 500_000_000),
        ("1.5h", 5_400_000_000_000),
        ("2weeks", 1_209_600_000_000_000),
        ("45", 45_000_000_000),
        ("1 2", 3_000_000_000),
        ("5 s", 5_000_000_000),
        (".5s", 500_000_000),
        ("1h30", 3_630_000_000_000),
        ("1M", 2_629_800_000_000_000),
        ("1y", 31_557_600_000_000_000),
        ("3 months", 3 * 2_629_800_000_000_000),
        ("10usec", 10_000),
        ("10µs", 10_000),
        ("1 hr", 3_600_000_000_000),
        ("  2m  ", 120_000_000_000),
        ("0", 0),
        ("1.000000001s", 1_000_000_001),
    ]

    @Test(arguments: good)
    func parsesGoodInput(text: String, nanoseconds: Int64) throws {
        #expect(try TimeSpan.parse(text) == Span(nanoseconds: nanoseconds))
    }

    static let bad: [(String, String)] = [
        ("7mn", "time span '7mn': unknown unit 'mn' (use ms, s, min, h, d, w, M or y)"),
        ("", "time span '': is empty; give a number and a unit, like '10min'"),
        ("   ", "time span '   ': is empty; give a number and a unit, like '10min'"),
        ("min", "time span 'min': expected a number at 'min'"),
        ("-5s", "time span '-5s': a span cannot be negative"),
        ("5.", "time span '5.': expected digits after the decimal point in '5.'"),
        ("1.5.2s", "time span '1.5.2s': unexpected '.2s'"),
        ("1e3s", "time span '1e3s': unknown unit 'e' (use ms, s, min, h, d, w, M or y)"),
        ("10min, 5s", "time span '10min, 5s': unexpected ', 5s'"),
        ("300y", "time span '300y': is too large (the limit is about 292 years)"),
        ("99999999999999999999s", "time span '99999999999999999999s': is too large (the limit is about 292 years)"),
    ]

    @Test(arguments: bad)
    func refusesBadInputSayingWhy(text: String, message: String) {
        #expect(throws: ValidationError(.timeSpan, message)) { try TimeSpan.parse(text) }
    }

    static let formats: [(Int64, String)] = [
        (0, "0"),
        (90_000_000_000, "1min 30s"),
        (5_400_000_000_000, "1h 30min"),
        (172_800_000_000_000, "2d"),
        (90_000_000, "90ms"),
        (1_500_000_000, "1.500000s"),
        (1_001_000, "1.001ms"),
        (61_500_000_000, "1min 1.500000s"),
        (1_209_600_000_000_000, "2w"),
        (2_629_800_000_000_000, "1month"),
        (-60_000_000_000, "-1min"),
        (1_000_000_007, "1s 7ns"),
        (1_500_000_007, "1.500000s 7ns"),
    ]

    @Test(arguments: formats)
    func formatsLikeSystemd(nanoseconds: Int64, text: String) {
        #expect(TimeSpan.format(Span(nanoseconds: nanoseconds)) == text)
    }

    /// systemd-analyze is the reference: same microseconds for parsing, same "Human:" line for formatting.
    @Test(arguments: ["90s", "1.5s", "1h30min", "2weeks", "1M", "1y 2month 3w 4d 5h 6min 7s 8ms 9us", "500ms",
                      "1.5h", "7 min", "1001us", "61.5s", "3month", ".25d", "1h30", "1 2", "86399.999999s"])
    func agreesWithSystemdAnalyze(text: String) throws {
        let out = try #require(SystemOracle.run("/usr/bin/systemd-analyze", ["timespan", text]), "systemd-analyze is the oracle")
        let fields = Dictionary(uniqueKeysWithValues: out.split(separator: "\n").compactMap { line -> (String, String)? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { return nil }
            return (parts[0].trimmingCharacters(in: .whitespaces), parts[1].trimmingCharacters(in: .whitespaces))
        })
        let span = try TimeSpan.parse(text)
        #expect(String(span.nanoseconds / 1_000) == fields["μs"] ?? fields["us"])
        #expect(TimeSpan.format(span) == fields["Human"])
    }

    @Test func formatThenParseRoundTrips() throws {
        // A deterministic spread over many magnitudes, including awkward rests.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<2_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let magnitude = Int64(state >> 60)  // 0...15 decimal orders
            var scale: Int64 = 1
            for _ in 0..<magnitude { scale *= 10 }
            let ns = Int64((state >> 8) % UInt64(scale * 1_000))
            let span = Span(nanoseconds: ns)
            #expect(try TimeSpan.parse(TimeSpan.format(span)) == span, "\(ns) -> \(TimeSpan.format(span))")
        }
    }
}
