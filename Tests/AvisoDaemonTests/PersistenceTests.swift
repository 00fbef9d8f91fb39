import AvisoTestSupport
import Foundation
import Testing

extension Integration {
    /// Acknowledged requests survive SIGKILL; delivered one-shots are never delivered again.
    @Suite(.timeLimit(.minutes(2)))
    struct PersistenceTests {
        @Test func acknowledgedRequestsSurviveSIGKILL() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            for i in 0..<20 { try f.ctl("add", "--id", "r\(i)", "--in", "\(i + 1)h", "--title", "R\(i)") }
            f.daemon.signal(SIGKILL)
            try await f.daemon.waitForExit()
            try await f.daemon.start()
            let ids = try f.json("pending").compactMap { $0["id"] as? String }
            #expect(ids == (0..<20).map { "r\($0)" })
        }

        @Test func aDeliveredOneShotIsNotDeliveredAgainAfterSIGKILL() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            try f.ctl("add", "--id", "once", "--in", "50ms", "--title", "Once")
            #expect(try await f.server!.next("notify").summary == "Once")
            _ = try await f.daemon.log.next { $0.contains("delivered 'once'") }
            f.daemon.signal(SIGKILL)
            try await f.daemon.waitForExit()
            try await f.daemon.start()
            // A marker added after the restart is the next thing the server sees: nothing was re-sent before it.
            try f.ctl("add", "--id", "marker", "--in", "100ms", "--title", "Marker")
            #expect(try await f.server!.next("notify").summary == "Marker")
            #expect(Set(try f.json("delivered").compactMap { $0["id"] as? String }) == ["once", "marker"])
        }

        @Test func aRequestDueWhileTheDaemonWasStoppedIsDeliveredOnStart() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            let due = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 2).rounded(.up))
            try f.ctl("add", "--id", "missed", "--at", Self.utc(due), "--title", "Missed")
            f.daemon.signal(SIGTERM)
            try await f.daemon.waitForExit()
            // The scenario itself: the due moment passes while no daemon runs.
            while Date() <= due { try await Task.sleep(for: .milliseconds(100)) }
            try await f.daemon.start()
            #expect(try await f.server!.next("notify").summary == "Missed")
        }

        static func utc(_ date: Date) -> String {
            let formatter = DateFormatter()
            formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
            formatter.timeZone = TimeZone(identifier: "UTC")
            return formatter.string(from: date) + " UTC"
        }
    }
}
