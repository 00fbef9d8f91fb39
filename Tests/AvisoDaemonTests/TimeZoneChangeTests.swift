import AvisoTestSupport
import Foundation
import Testing

extension Integration {
    /// Floating calendar requests follow the local zone; anchored ones do not.
    @Suite(.timeLimit(.minutes(2)))
    struct TimeZoneChangeTests {
        @Test func floatingRequestsFollowAZoneChangeAndAnchoredOnesStay() async throws {
            let localtime = try LocalTimeLink(zone: "Europe/Madrid")
            var env = ["AVISO_LOCALTIME": localtime.path]
            env["TZ"] = nil
            let f = try await DaemonFixture.start(environment: env)
            f.daemon.environment.removeValue(forKey: "TZ")
            defer { f.stop() }

            try f.ctl("add", "--id", "floating", "--on", "*-*-* 09:00", "--title", "Floating")
            try f.ctl("add", "--id", "anchored", "--on", "*-*-* 09:00 Europe/Madrid", "--title", "Anchored")
            let before = try Self.nextByID(f)
            #expect(before["floating"] == before["anchored"])

            let changed = ContinuousClock.now
            #expect(try localtime.change(to: "America/New_York"))
            let line = try await f.daemon.log.next { $0.contains("local time zone changed") }
            let took = ContinuousClock.now - changed
            #expect(line.contains("America/New_York"))
            #expect(took < .seconds(2), "zone change to re-armed timers took \(took)")
            print("measured: /etc/localtime replaced to re-armed timers in \(took)")

            let after = try Self.nextByID(f)
            #expect(after["anchored"] == before["anchored"])
            let madrid = try #require(before["floating"].flatMap(Self.hourOfDay))
            let newYork = try #require(after["floating"].flatMap(Self.hourOfDay))
            // 09:00 in New York is 6 hours after 09:00 in Madrid, in every season.
            #expect((newYork - madrid + 24) % 24 == 6)
        }

        static func nextByID(_ f: DaemonFixture) throws -> [String: String] {
            var result: [String: String] = [:]
            for item in try f.json("pending") {
                if let id = item["id"] as? String, let next = item["next"] as? String { result[id] = next }
            }
            return result
        }

        /// The UTC hour of an ISO 8601 instant like 2026-12-01T08:00:00Z.
        static func hourOfDay(_ iso: String) -> Int? {
            let parts = iso.split(separator: "T")
            guard parts.count == 2 else { return nil }
            return Int(parts[1].prefix(2))
        }
    }
}
