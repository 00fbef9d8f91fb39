import AvisoTestSupport
import Foundation
import Testing

extension Integration {
    /// At most the window's number of timers is armed, and they are the soonest; firing slides the window.
    @Suite(.timeLimit(.minutes(3)))
    struct WindowTests {
        @Test func seventyRequestsArmTheSoonestSixtyFour() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            // Added latest first, so that add order and fire order disagree.
            for i in (0..<70).reversed() {
                try f.ctl("add", "--id", String(format: "r%02d", i), "--in", "\(i + 1)h", "--title", "R\(i)")
            }
            let pending = try f.json("pending").compactMap { $0["id"] as? String }
            #expect(pending == (0..<64).map { String(format: "r%02d", $0) })
            let status = try f.ctl("status", "--json")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any])
            #expect(object["armed"] as? Int == 64)
            #expect(object["total"] as? Int == 70)

            try f.ctl("fire", "r00")
            _ = try await f.server!.next("notify")
            let after = try f.json("pending").compactMap { $0["id"] as? String }
            #expect(after == (1..<65).map { String(format: "r%02d", $0) })
        }

        @Test func theWindowSizeComesFromTheConfiguration() async throws {
            let f = try await DaemonFixture.start(config: "[Scheduler]\nWindow=3\n")
            defer { f.stop() }
            for i in 0..<5 { try f.ctl("add", "--id", "w\(i)", "--in", "\(i + 1)h", "--title", "W") }
            #expect(try f.json("pending").count == 3)
        }
    }
}
