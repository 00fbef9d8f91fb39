import AvisoCore
import AvisoProtocol
import AvisoTestSupport
import Foundation
import Testing

/// The wire codec and the daemon's validation, fed seeded lines aimed at the edges (`WireFuzzer`): nothing traps,
/// every refusal says why, and every request that would be acknowledged has a first deadline in the supported range,
/// ahead of now. The figures are printed for README's reliability section.
struct FuzzTests {
    static let now = Now(wall: ISO8601.parse("2026-11-30T12:00:00Z")!, boot: BootTime(nanoseconds: 3_600_000_000_000),
                         bootID: "fuzz")
    static let zones: ZoneContext = {
        let cache = ZoneCache()
        return ZoneContext(local: ZoneDatabase.load("Europe/Madrid", environment: [:]) ?? .utc, named: cache.load)
    }()

    @Test func fuzzedLinesNeverTrapAndNothingAcknowledgedIsUnableToFire() throws {
        let seed: UInt64 = 0x6176_6973_6f00_0007
        var fuzzer = WireFuzzer(seed: seed, now: Self.now.wall.nanoseconds)
        let budget = ContinuousClock.now + .seconds(30)
        var tried = 0, malformed = 0, refused = 0, acknowledged = 0, other = 0
        var neverFiring: [String] = []
        var silentRefusals: [String] = []
        while tried < 10_000 && ContinuousClock.now < budget {
            let line = fuzzer.nextLine().dropLast()
            tried += 1
            // What the control server does with a line: UTF-8 first, then the codec.
            guard String(validating: line, as: UTF8.self) != nil else {
                malformed += 1
                continue
            }
            let command: Command
            do {
                command = try Codec.decodeCommand(line)
            } catch {
                malformed += 1
                if error.message.isEmpty || error.code.isEmpty { silentRefusals.append(String(decoding: line.prefix(200), as: UTF8.self)) }
                continue
            }
            guard case .add(let request) = command else {
                other += 1
                continue
            }
            do {
                let first = try request.validate(now: Self.now, zones: Self.zones, imageProblem: { _ in nil })
                acknowledged += 1
                let wall = first.expectedWall(in: Self.now)
                if !wall.isSupported || wall <= Self.now.wall { neverFiring.append("\(request.id): \(first)") }
            } catch {
                refused += 1
                if error.message.isEmpty { silentRefusals.append(String(decoding: line.prefix(200), as: UTF8.self)) }
            }
            // The refusal or result must go back over the wire too.
            _ = Codec.encode(Reply.error(ReplyError(code: "invalid", message: "\(request.id)")))
        }
        print("""
            fuzz (seed 0x\(String(seed, radix: 16))): \(tried) lines, 0 crashes, \(malformed) refused by the codec, \
            \(refused) refused by validation, \(other) other operations, \(acknowledged) acknowledged, \
            \(neverFiring.count) acknowledged that could never fire
            """)
        #expect(tried >= 5_000, "the time budget allowed only \(tried) lines")
        #expect(acknowledged > 100 && refused > 1_000 && malformed > 1_000, "the generator reaches every outcome")
        #expect(neverFiring.isEmpty, "\(neverFiring.prefix(5))")
        #expect(silentRefusals.isEmpty, "\(silentRefusals.prefix(3))")
    }

    @Test func peoplesTextNeverTrapsTheParsers() {
        var fuzzer = WireFuzzer(seed: 42, now: Self.now.wall.nanoseconds)
        let pieces = ["2026", "-", "12", "31", " ", "23:59", ":60", "9999", "0000", "1677", "2262", "+", "-05:00", "Z",
                      "UTC", "Europe/Madrid", "Mars/Olympus", "..", "~", "*", "/", ",", "Mon", "Fry", "1h", "292y",
                      "9223372036854775807", "ns", ".", "\u{0}", "é", "minutely", "0.5", "e9"]
        for _ in 0..<20_000 {
            let text = (0..<Int(fuzzer.next() % 8)).map { _ in pieces[Int(fuzzer.next() % UInt64(pieces.count))] }.joined()
            _ = try? TimeSpan.parse(text)
            _ = try? DateTimeInput.parse(text, localZone: .utc, loadZone: Self.zones.named)
            if let spec = try? CalendarSpec.parse(text) {
                _ = spec.nextElapse(after: Self.now.wall, in: Self.zones.local, policy: .aviso)
                _ = spec.nextElapse(after: Self.now.wall, in: Self.zones.local, policy: .systemd)
            }
        }
    }
}

/// Zone rules read once per name, as the daemon caches them.
private final class ZoneCache: @unchecked Sendable {
    private let lock = NSLock()
    private var rules: [String: ZoneRules?] = [:]

    func load(_ name: String) -> ZoneRules? {
        if let cached = lock.withLock({ rules[name] }) { return cached }
        let loaded = ZoneDatabase.load(name, environment: [:])
        lock.withLock { rules[name] = loaded }
        return loaded
    }
}
