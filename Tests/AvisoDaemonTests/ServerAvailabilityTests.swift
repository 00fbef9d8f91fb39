import AvisoTestSupport
import Foundation
import Testing

extension Integration {
    /// Deliveries wait while no notification server is on the bus, and a server restart is noticed.
    @Suite(.timeLimit(.minutes(2)))
    struct ServerAvailabilityTests {
        @Test func dueNotificationsWaitForAServerThenArrive() async throws {
            let f = try await DaemonFixture.start(server: false)
            defer { f.stop() }
            try f.ctl("add", "--id", "early", "--in", "50ms", "--title", "Early")
            _ = try await f.daemon.log.next { $0.contains("'early' is waiting") }
            let status = try f.ctl("status", "--json")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any])
            #expect(object["waiting"] as? Int == 1)
            #expect((object["waitingReason"] as? String)?.contains("no notification server") == true)
            #expect(object["server"] == nil)

            let server = TestNotificationServer(busAddress: f.bus.address)
            try await server.start()
            defer { server.stop() }
            let n = try await server.next("notify", timeout: .seconds(10))
            #expect(n.summary == "Early")
            #expect(try f.json("delivered").map { $0["id"] as? String } == ["early"])
        }

        @Test func aRestartedServerInvalidatesOldPopupIDs() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            try f.ctl("add", "--id", "one", "--in", "50ms", "--title", "One")
            _ = try await f.server!.next("notify")
            _ = try await f.daemon.log.next { $0.contains("delivered 'one'") }
            f.server!.stop()

            let second = TestNotificationServer(busAddress: f.bus.address, name: "second-server")
            try await second.start()
            defer { second.stop() }
            _ = try await f.daemon.log.next { $0.contains("second-server") }
            let delivered = try f.json("delivered")
            #expect(delivered.first?["onScreen"] as? Bool == false)

            try f.ctl("add", "--id", "two", "--in", "50ms", "--title", "Two")
            #expect(try await second.next("notify").summary == "Two")
            let status = try f.ctl("status")
            #expect(status.contains("second-server"))
        }
    }
}
