import AvisoTestSupport
import Foundation
import Testing

extension Integration {
    /// What systemd hears from avisod over NOTIFY_SOCKET: readiness, status, watchdog, reload and stop.
    @Suite(.timeLimit(.minutes(2)))
    struct SystemdNotifyTests {
        @Test func readinessStatusWatchdogReloadAndStop() async throws {
            let receiver = try NotifySocketReceiver()
            defer { receiver.close() }
            // WATCHDOG_USEC=400ms: avisod must ping every 200ms.
            let f = try await DaemonFixture.start(environment: ["NOTIFY_SOCKET": receiver.path, "WATCHDOG_USEC": "400000"])
            defer { f.stop() }
            let ready = try await receiver.waitFor(timeout: .seconds(10)) { $0.split(separator: "\n").contains("READY=1") }
            #expect(ready.fields["STATUS"]?.contains("armed") == true)

            // The socket listens by the time READY=1 is sent.
            #expect(try f.daemon.ctl(["status"]).status == 0)

            var pings: [Duration] = []
            while pings.count < 6 {
                pings.append(try await receiver.waitFor(timeout: .seconds(2)) { $0 == "WATCHDOG=1" }.arrival)
            }
            // Half of WATCHDOG_USEC: 200ms. A loaded CI machine may delay a ping, never bring one early.
            let gaps = zip(pings.dropFirst(), pings).map { $0 - $1 }.sorted()
            #expect(gaps.first! > .milliseconds(150), "watchdog gaps \(gaps)")
            #expect(gaps[gaps.count / 2] < .milliseconds(300), "watchdog gaps \(gaps)")

            try f.ctl("add", "--id", "s", "--in", "1h", "--title", "S")
            let status = try await receiver.waitFor(timeout: .seconds(5)) { $0.contains("STATUS=") && $0.contains("next 's'") }
            #expect(status.fields["STATUS"]?.hasPrefix("1 armed") == true)

            f.daemon.signal(SIGHUP)
            let reloading = try await receiver.waitFor(timeout: .seconds(5)) { $0.split(separator: "\n").contains("RELOADING=1") }
            let usec = try #require(reloading.fields["MONOTONIC_USEC"].flatMap(UInt64.init))
            // MONOTONIC_USEC is when the reload began: no later than the message's arrival, and close to it.
            let arrivalUsec = UInt64(reloading.arrival / .microseconds(1))
            #expect(usec <= arrivalUsec && arrivalUsec - usec < 1_000_000, "MONOTONIC_USEC \(usec), arrival \(arrivalUsec)")
            _ = try await receiver.waitFor(timeout: .seconds(5)) { $0.split(separator: "\n").contains("READY=1") }

            f.daemon.signal(SIGTERM)
            _ = try await receiver.waitFor(timeout: .seconds(5)) { $0.split(separator: "\n").contains("STOPPING=1") }
            #expect(try await f.daemon.waitForExit() == 0)
        }

        @Test func aBrokenConfigurationOnReloadKeepsThePreviousOne() async throws {
            let f = try await DaemonFixture.start(config: "[Scheduler]\nWindow=2\n")
            defer { f.stop() }
            try f.daemon.writeConfig("[Scheduler]\nWindow=banana\n")
            let r = try f.daemon.ctl(["reload"])
            #expect(r.status == 1)
            #expect(r.stderr.contains("aviso.conf:2"))
            for i in 0..<4 { try f.ctl("add", "--id", "k\(i)", "--in", "\(i + 1)h", "--title", "K") }
            #expect(try f.json("pending").count == 2)
            let status = try f.ctl("status")
            #expect(status.contains("Config error"))
        }
    }
}
