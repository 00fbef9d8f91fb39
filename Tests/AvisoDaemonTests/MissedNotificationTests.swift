import AvisoTestSupport
import Foundation
import Testing

extension Integration {
    /// What came due while the daemon was stopped, seen by restarting it under faketime hours later.
    @Suite(.timeLimit(.minutes(2)))
    struct MissedNotificationTests {
        static let libfaketime = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"

        /// "YYYY-MM-DD HH:MM:SS UTC", `offset` from now.
        static func at(_ offset: TimeInterval) -> String {
            PersistenceTests.utc(Date().addingTimeInterval(offset))
        }

        /// Stops the daemon and starts it again with its wall clock `hours` ahead (monotonic clocks left alone).
        static func restartLater(_ f: DaemonFixture, hours: Int) async throws {
            f.daemon.signal(SIGTERM)
            try await f.daemon.waitForExit()
            f.daemon.daemonOnlyEnvironment = [
                "LD_PRELOAD": libfaketime, "FAKETIME": "+\(hours)h", "FAKETIME_DONT_FAKE_MONOTONIC": "1",
                "FAKETIME_NO_CACHE": "1",
            ]
            try await f.daemon.start()
        }

        @Test func aMissedOneShotIsDeliveredOnceAndSaysWhenItWasDue() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            try f.ctl("add", "--id", "pills", "--at", Self.at(3600), "--title", "Pills", "--body", "Blue ones")
            try await Self.restartLater(f, hours: 2)
            let n = try await f.server!.next("notify")
            #expect(n.summary == "Pills")
            #expect(n.body?.hasPrefix("Blue ones\n(due at ") == true, "\(n.body ?? "")")
            #expect(try f.json("pending").isEmpty)
        }

        @Test func aRepeatingRequestThatMissedManyOccurrencesIsDeliveredOnce() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            try f.ctl("add", "--id", "tick", "--on", "*:0/5", "--title", "Tick")
            try f.ctl("add", "--id", "marker", "--at", Self.at(3 * 3600 + 1800), "--title", "Marker")
            try await Self.restartLater(f, hours: 3)
            #expect(try await f.server!.next("notify").summary == "Tick")
            // The next popup is the marker (fired by hand): no second Tick came in between.
            try f.ctl("fire", "marker")
            #expect(try await f.server!.next("notify").summary == "Marker")
            #expect(try f.json("pending").map { $0["id"] as? String } == ["tick"])
        }

        @Test func anOccurrenceLaterThanMaxLateIsSkippedAndCounted() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            try f.ctl("add", "--id", "water", "--at", Self.at(3600), "--title", "Water", "--max-late", "30min")
            try f.ctl("add", "--id", "marker", "--at", Self.at(5 * 3600), "--title", "Marker")
            try await Self.restartLater(f, hours: 2)
            _ = try await f.daemon.log.first { $0.contains("skipped 'water'") }
            try f.ctl("fire", "marker")
            #expect(try await f.server!.next("notify").summary == "Marker")
            let stats = try f.ctl("stats", "--json")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(stats.utf8)) as? [String: Any])
            #expect(object["skipped"] as? Int == 1)
        }

        @Test func manyMissedNotificationsArriveAsOneSummary() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            for i in 0..<5 {
                try f.ctl("add", "--id", "m\(i)", "--at", Self.at(3600 + Double(i) * 60), "--title", "Missed \(i)",
                          "--relevance", i == 3 ? "0.9" : "0.1")
            }
            try await Self.restartLater(f, hours: 2)
            let n = try await f.server!.next("notify")
            // The most relevant names the summary and leads its lines.
            #expect(n.summary == "Missed 3 and 4 more")
            #expect(n.body?.hasPrefix("• Missed 3 (due at ") == true, "\(n.body ?? "")")
            for i in 0..<5 { #expect(n.body?.contains("Missed \(i)") == true) }
            #expect(Set(try f.json("delivered").compactMap { $0["id"] as? String }) == Set((0..<5).map { "m\($0)" }))
            // Closing the summary closes them all.
            f.server!.close(id: n.id!, reason: 2)
            _ = try await f.daemon.log.next { $0.contains("notification \(n.id!) closed (dismissed): 5 notifications") }
            #expect(try f.json("delivered").isEmpty)
        }
    }
}
