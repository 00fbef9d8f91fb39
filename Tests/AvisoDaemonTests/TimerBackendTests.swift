import AvisoCore
import Foundation
import Glibc
import Testing

@testable import AvisoDaemon

extension Integration {
    /// The timerfd backend against the real kernel clocks.
    @Suite struct TimerBackendTests {
        /// Reads the clock the test is about, independently of the backend.
        static func clockNow(_ clock: KernelClock) -> Int64 {
            var ts = timespec()
            clock_gettime(clock == .realtime ? CLOCK_REALTIME : CLOCK_BOOTTIME, &ts)
            return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
        }

        /// Runs `body` with a fresh backend; if the body waits longer than `bound`, the backend is stopped, which ends
        /// its event stream so a missing event fails the test instead of hanging it.
        static func withBackend(
            bound: Duration = .seconds(10),
            _ body: (KernelTimerBackend, inout AsyncStream<TimerEvent>.Iterator) async throws -> Void
        ) async throws {
            let backend = try KernelTimerBackend()
            let watchdog = Task {
                try await Task.sleep(for: bound)
                backend.stop()
            }
            defer {
                watchdog.cancel()
                backend.stop()
            }
            var events = backend.events.makeAsyncIterator()
            try await body(backend, &events)
        }

        /// The next firing, passing over clock changes: a machine whose clock is stepped (time synchronisation, as on
        /// some virtual machines, many times a minute) reports them truthfully, and they say nothing about firings.
        static func nextFiring(_ events: inout AsyncStream<TimerEvent>.Iterator) async -> TimerEvent? {
            while let event = await events.next() {
                if event != .clockChanged { return event }
            }
            return nil
        }

        @Test(arguments: [KernelClock.realtime, .boottime])
        func firesAtItsDeadlineNotBefore(clock: KernelClock) async throws {
            try await Self.withBackend { backend, events in
                let deadline = Self.clockNow(clock) + 30_000_000
                try backend.arm(TimerSpec(id: "soon", clock: clock, deadline: deadline))
                #expect(backend.armedCount == 1)

                let event = await Self.nextFiring(&events)
                let observed = Self.clockNow(clock)

                #expect(event == .fired(id: "soon"))
                #expect(observed >= deadline)
                // Generous: two loaded cores shared by several builds. The point is "not a minute late".
                #expect(observed - deadline < 1_000_000_000)
                #expect(backend.armedCount == 0)
            }
        }

        @Test(arguments: [KernelClock.realtime, .boottime])
        func aDeadlineInThePastFiresAtOnce(clock: KernelClock) async throws {
            try await Self.withBackend { backend, events in
                let armedAt = Self.clockNow(clock)
                try backend.arm(TimerSpec(id: "late", clock: clock, deadline: armedAt - 60_000_000_000))
                // Zero is the kernel's "disarm" value: it must still mean "long ago".
                try backend.arm(TimerSpec(id: "epoch", clock: clock, deadline: 0))
                let first = await Self.nextFiring(&events)
                let second = await Self.nextFiring(&events)
                #expect(Set([first, second]) == [.fired(id: "late"), .fired(id: "epoch")])
                #expect(Self.clockNow(clock) - armedAt < 1_000_000_000)
            }
        }

        @Test func reArmingReplacesTheDeadline() async throws {
            try await Self.withBackend { backend, events in
                let now = Self.clockNow(.boottime)
                try backend.arm(TimerSpec(id: "moved-later", clock: .boottime, deadline: now + 20_000_000))
                try backend.arm(TimerSpec(id: "moved-sooner", clock: .boottime, deadline: now + 600_000_000_000))
                try backend.arm(TimerSpec(id: "moved-later", clock: .boottime, deadline: now + 600_000_000_000))
                try backend.arm(TimerSpec(id: "moved-sooner", clock: .realtime, deadline: Self.clockNow(.realtime) + 60_000_000))
                try backend.arm(TimerSpec(id: "marker", clock: .boottime, deadline: now + 200_000_000))
                #expect(backend.armedCount == 3)

                #expect(await Self.nextFiring(&events) == .fired(id: "moved-sooner"))
                #expect(await Self.nextFiring(&events) == .fired(id: "marker"))
                #expect(backend.armedCount == 1)
            }
        }

        @Test func disarmingPreventsTheFiring() async throws {
            try await Self.withBackend { backend, events in
                let now = Self.clockNow(.boottime)
                try backend.arm(TimerSpec(id: "cancelled", clock: .boottime, deadline: now + 20_000_000))
                try backend.arm(TimerSpec(id: "kept", clock: .boottime, deadline: now + 150_000_000))
                backend.disarm("cancelled")
                backend.disarm("never-armed")
                #expect(backend.armedCount == 1)

                #expect(await Self.nextFiring(&events) == .fired(id: "kept"))
            }
        }

        @Test func aFullBackendFiresInDeadlineOrder() async throws {
            try await Self.withBackend { backend, events in
                let start = Self.clockNow(.realtime) + 50_000_000
                let ids = (0..<KernelTimerBackend.capacity).map { "timer-\($0)" }
                let descriptors = try Self.timerDescriptors()
                // Armed in a shuffled order, 3 ms apart, so only the deadlines can explain the firing order.
                for i in ids.indices.shuffled() {
                    try backend.arm(TimerSpec(id: ids[i], clock: .realtime, deadline: start + Int64(i) * 3_000_000))
                }
                #expect(backend.armedCount == 65, "the window's 64 and the scheduler's timer for held notifications")
                #expect(try Self.timerDescriptors() == descriptors,
                        "one timerfd per clock, however many timers are armed")
                #expect(throws: SystemError("KernelTimerBackend.arm", .noSpace)) {
                    try backend.arm(TimerSpec(id: "one-too-many", clock: .realtime, deadline: start))
                }

                var fired: [String] = []
                for _ in ids {
                    guard case .fired(let id)? = await Self.nextFiring(&events) else { break }
                    fired.append(id)
                }
                #expect(fired == ids)
                #expect(backend.armedCount == 0)
            }
        }

        /// How many timerfds this process holds (other tests, running beside this one, open other descriptors).
        static func timerDescriptors() throws -> Int {
            try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count {
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == "anon_inode:[timerfd]"
            }
        }

        /// Steps the wall clock to what it reads (a few microseconds back): a real step, as NTP makes, that moves time by
        /// nothing that matters. False without CAP_SYS_TIME.
        static func stepClockInPlace() -> Bool {
            var ts = timespec()
            clock_gettime(CLOCK_REALTIME, &ts)
            return clock_settime(CLOCK_REALTIME, &ts) == 0
        }

        /// Whether this process may set the clock (CAP_SYS_TIME, bit 25 of CapEff): root in CI.
        static let canSetClock: Bool = {
            guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
                  let line = status.split(separator: "\n").first(where: { $0.hasPrefix("CapEff:") }),
                  let caps = UInt64(line.dropFirst("CapEff:".count).trimmingCharacters(in: .whitespaces), radix: 16) else {
                return false
            }
            return caps & (1 << 25) != 0
        }()

        @Test(.enabled(if: canSetClock, "needs CAP_SYS_TIME to step the clock"))
        func everyRealClockStepIsReportedAlsoWithNoTimerArmed() async throws {
            try await Self.withBackend { backend, events in
                // The realtime timerfd then waits far in the future only to see steps, and must see each of them.
                #expect(Self.stepClockInPlace())
                #expect(await events.next() == .clockChanged)
                #expect(Self.stepClockInPlace())
                #expect(await events.next() == .clockChanged)
            }
        }

        @Test func aClockChangeIsReportedAndRealtimeTimersStayArmed() async throws {
            try await Self.withBackend { backend, events in
                try backend.arm(TimerSpec(id: "tomorrow", clock: .realtime, deadline: Self.clockNow(.realtime) + 86_400_000_000_000))
                backend.simulateClockChange()
                #expect(await events.next() == .clockChanged)
                backend.simulateClockChange()
                #expect(await events.next() == .clockChanged)
                #expect(backend.armedCount == 1)
            }
        }

        @Test func stoppingEndsTheEventStream() async throws {
            let backend = try KernelTimerBackend()
            try backend.arm(TimerSpec(id: "pending", clock: .boottime, deadline: Self.clockNow(.boottime) + 600_000_000_000))
            backend.stop()
            backend.stop()
            var events = backend.events.makeAsyncIterator()
            #expect(await events.next() == nil)
            #expect(backend.armedCount == 0)
        }

        @Test func kernelClocksReadBothClocksAndTheBootID() {
            let before = Self.clockNow(.realtime)
            let now = KernelClocks.now()
            let after = Self.clockNow(.realtime)
            #expect(now.wall.nanoseconds >= before && now.wall.nanoseconds <= after)
            #expect(now.boot.nanoseconds > 0 && now.boot.nanoseconds <= Self.clockNow(.boottime))
            // The kernel's boot id is a UUID: 36 characters with dashes.
            #expect(now.bootID.count == 36)
            #expect(KernelClocks.now().bootID == now.bootID)
        }
    }
}
