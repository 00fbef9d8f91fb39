@testable import AvisoCore
import AvisoTestSupport
import Testing

/// Specs passed through one `CalendarChains` share their equal chains and answer as they did.
struct CalendarChainsTests {
    private static func buffer(_ chain: [CalendarComponent]?) -> UnsafeRawPointer? {
        chain?.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
    }

    @Test func equalChainsOfDifferentSpecsAreOneArrayAndTheSpecsAnswerTheSame() throws {
        var chains = CalendarChains()
        let texts = ["*-*-* 09:30", "Mon..Fri 10:30", "*-*-01 09:00", "*:0/15", "2027-02-29 09:30"]
        let parsed = try texts.map { try CalendarSpec.parse($0) }
        let shared = parsed.map { chains.shared($0) }
        #expect(shared == parsed)
        #expect(Self.buffer(shared[0].minute) == Self.buffer(shared[1].minute), "the minute 30 is kept once")
        #expect(Self.buffer(shared[0].hour) == Self.buffer(shared[2].hour), "the hour 09 is kept once")
        #expect(Self.buffer(shared[0].minute) != Self.buffer(shared[3].minute), "0/15 is another chain")
        #expect(Self.buffer(parsed[0].minute) != Self.buffer(parsed[1].minute), "without sharing each has its own")
        let zone = ZoneRules.utc
        for (a, b) in zip(parsed, shared) {
            var at = WallTime(seconds: 1_780_000_000)
            for _ in 0..<5 {
                let next = b.nextElapse(after: at, in: zone, policy: .aviso)
                #expect(next == a.nextElapse(after: at, in: zone, policy: .aviso))
                guard let next else { break }
                at = next
            }
        }
    }
}
