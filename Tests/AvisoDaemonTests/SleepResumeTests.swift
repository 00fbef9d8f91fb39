import AvisoTestSupport
import Foundation
import Testing

extension Integration {
    /// avisod and logind: a delay inhibitor held while awake, released before sleep, taken again after resume, and a
    /// reconcile at once on resume.
    @Suite(.timeLimit(.minutes(2)))
    struct SleepResumeTests {
        @Test func theDaemonLetsTheMachineSleepAndReconcilesOnResume() async throws {
            let system = try DBusSession()
            defer { system.stop() }
            let logind = TestLogind(busAddress: system.address)
            try await logind.start()
            defer { logind.stop() }
            let f = try await DaemonFixture.start(environment: ["DBUS_SYSTEM_BUS_ADDRESS": system.address])
            defer { f.stop() }

            let inhibit = try await logind.next("inhibit")
            #expect(inhibit.what == "sleep")
            #expect(inhibit.mode == "delay")
            #expect(inhibit.who == "aviso")

            try f.ctl("add", "--id", "after-sleep", "--in", "1h", "--title", "After sleep")
            logind.sleep()
            let released = try await logind.next("released")
            #expect(released.id == inhibit.id)
            // The acknowledged request is on disk before the machine sleeps.
            #expect(try f.json("pending").map { $0["id"] as? String } == ["after-sleep"])

            let resumed = ContinuousClock.now
            logind.resume()
            _ = try await f.daemon.log.next { $0.contains("resumed: reconciling") }
            let reconcileTime = ContinuousClock.now - resumed
            #expect(reconcileTime < .seconds(1), "resume to reconcile took \(reconcileTime)")
            print("measured: PrepareForSleep(false) to reconcile in \(reconcileTime)")
            let again = try await logind.next("inhibit")
            #expect(again.id != inhibit.id)
        }
    }
}
