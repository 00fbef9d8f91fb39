import AvisoTestSupport
import Testing

/// The test clock: time moves only when the test says so.
@Suite struct ManualClockTests {
    @Test func timeStandsStillUntilAdvanced() {
        let clock = ManualClock()
        let start = clock.now
        #expect(clock.now == start)
        clock.advance(by: .seconds(90))
        #expect(start.duration(to: clock.now) == .seconds(90))
        clock.advance(to: start.advanced(by: .seconds(30)))
        // Never backwards.
        #expect(start.duration(to: clock.now) == .seconds(90))
    }

    @Test func aSleeperWakesOnlyOnceItsDeadlineIsPassed() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(10)) }
        await clock.sleepers(count: 1)

        clock.advance(by: .seconds(9))
        #expect(clock.sleeperCount == 1)

        clock.advance(by: .seconds(1))
        #expect(clock.sleeperCount == 0)
        try await sleeper.value
    }

    @Test func sleepersWakeInDeadlineOrderWhateverTheOrderTheySlept() async throws {
        let clock = ManualClock()
        let late = Task { try await clock.sleep(for: .seconds(3)) }
        await clock.sleepers(count: 1)
        let early = Task { try await clock.sleep(for: .seconds(1)) }
        await clock.sleepers(count: 2)
        let middle = Task { try await clock.sleep(for: .seconds(2)) }
        await clock.sleepers(count: 3)

        clock.advance(by: .milliseconds(1_500))
        try await early.value
        #expect(clock.sleeperCount == 2)

        clock.advance(by: .seconds(1))
        try await middle.value
        #expect(clock.sleeperCount == 1)

        clock.advance(by: .seconds(1))
        try await late.value
        #expect(clock.sleeperCount == 0)
    }

    @Test func oneLargeStepWakesEverySleeperItPasses() async throws {
        let clock = ManualClock()
        let sleepers = (1...5).map { n in Task { try await clock.sleep(for: .seconds(n)) } }
        let stayer = Task { try await clock.sleep(for: .seconds(60)) }
        await clock.sleepers(count: 6)

        clock.advance(by: .seconds(5))
        for sleeper in sleepers { try await sleeper.value }
        #expect(clock.sleeperCount == 1)
        stayer.cancel()
        await #expect(throws: CancellationError.self) { try await stayer.value }
    }

    @Test func aDeadlineAlreadyPassedReturnsAtOnce() async throws {
        let clock = ManualClock()
        clock.advance(by: .seconds(5))
        try await clock.sleep(until: clock.now.advanced(by: .seconds(-1)))
        try await clock.sleep(until: clock.now)
        #expect(clock.sleeperCount == 0)
    }

    @Test func cancellingASleeperThrowsAndRemovesIt() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(10)) }
        await clock.sleepers(count: 1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test func codeGenericOverClockRunsOnIt() async throws {
        func remind<C: Clock>(after delay: C.Duration, on clock: C) async throws -> String {
            try await clock.sleep(for: delay)
            return "drink water"
        }
        let clock = ManualClock()
        let reminder = Task { try await remind(after: .seconds(90 * 60), on: clock) }
        await clock.sleepers(count: 1)
        clock.advance(by: .seconds(90 * 60))
        #expect(try await reminder.value == "drink water")
    }
}
