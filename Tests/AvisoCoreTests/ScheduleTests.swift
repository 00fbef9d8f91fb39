import AvisoCore
import Testing

struct ScheduleTests {
    static let wall0 = ISO8601.parse("2026-06-01T12:00:00Z")!
    static func now(plusSeconds s: Int64, boot: String = "boot-a", wallSkew: Int64 = 0) -> Now {
        Now(wall: wall0 + .seconds(s + wallSkew), boot: BootTime(nanoseconds: 1_000_000_000_000 + s * 1_000_000_000),
            bootID: boot)
    }

    @Test func intervalsStartOnTheBootClockWithAWallEstimate() {
        let now = Self.now(plusSeconds: 0)
        let d = Schedule.firstDeadline(for: .interval(.seconds(600), repeats: false), now: now, zones: .utc)!
        #expect(d == .boot(BootTime(nanoseconds: 1_600_000_000_000), bootID: "boot-a",
                           wallEstimate: ISO8601.parse("2026-06-01T12:10:00Z")!))
        #expect(d.armable(in: now).clock == .boottime)
    }

    @Test func datesStartOnTheWallClock() {
        let at = ISO8601.parse("2026-12-01T08:00:00Z")!
        #expect(Schedule.firstDeadline(for: .date(at), now: Self.now(plusSeconds: 0), zones: .utc)! == .wall(at))
    }

    @Test func oneShotsDoNotComeBack() {
        let now = Self.now(plusSeconds: 600)
        let fired = Schedule.firstDeadline(for: .interval(.seconds(600), repeats: false), now: Self.now(plusSeconds: 0), zones: .utc)!
        #expect(Schedule.deadline(after: fired, trigger: .interval(.seconds(600), repeats: false), now: now, zones: .utc) == nil)
        #expect(Schedule.deadline(after: .wall(Self.wall0), trigger: .date(Self.wall0), now: now, zones: .utc) == nil)
    }

    @Test func repeatsKeepTheirPhase() {
        let every = Trigger.interval(.seconds(600), repeats: true)
        let fired = Schedule.firstDeadline(for: every, now: Self.now(plusSeconds: 0), zones: .utc)!  // due at +600
        // Delivered a little late, at +603: the next is still +1200, not +1203.
        let next = Schedule.deadline(after: fired, trigger: every, now: Self.now(plusSeconds: 603), zones: .utc)
        #expect(next == .boot(BootTime(nanoseconds: 2_200_000_000_000), bootID: "boot-a",
                              wallEstimate: ISO8601.parse("2026-06-01T12:20:00Z")!))
    }

    @Test func missedOccurrencesCollapseIntoOne() {
        let every = Trigger.interval(.seconds(600), repeats: true)
        let fired = Schedule.firstDeadline(for: every, now: Self.now(plusSeconds: 0), zones: .utc)!  // due at +600
        // Suspended until +4000: occurrences at 600...3600 were missed; one delivery now, the next at +4200.
        let next = Schedule.deadline(after: fired, trigger: every, now: Self.now(plusSeconds: 4_000), zones: .utc)
        #expect(next == .boot(BootTime(nanoseconds: 5_200_000_000_000), bootID: "boot-a",
                              wallEstimate: ISO8601.parse("2026-06-01T13:10:00Z")!))
        // Exactly on an occurrence: strictly after now, so the one after.
        let onTheDot = Schedule.deadline(after: fired, trigger: every, now: Self.now(plusSeconds: 4_200), zones: .utc)
        #expect(onTheDot == .boot(BootTime(nanoseconds: 5_800_000_000_000), bootID: "boot-a",
                                  wallEstimate: ISO8601.parse("2026-06-01T13:20:00Z")!))
    }

    @Test func wallEstimatesFollowClockStepsInThisBoot() {
        let every = Trigger.interval(.seconds(600), repeats: true)
        let fired = Schedule.firstDeadline(for: every, now: Self.now(plusSeconds: 0), zones: .utc)!
        // The wall clock was stepped an hour forward: elapsed time is unchanged, the estimate moves.
        let next = Schedule.deadline(after: fired, trigger: every, now: Self.now(plusSeconds: 600, wallSkew: 3_600), zones: .utc)
        #expect(next == .boot(BootTime(nanoseconds: 2_200_000_000_000), bootID: "boot-a",
                              wallEstimate: ISO8601.parse("2026-06-01T13:20:00Z")!))
    }

    @Test func anotherBootContinuesThePhaseOnTheWallClock() {
        let every = Trigger.interval(.seconds(3_600), repeats: true)
        // Fired in boot-a, due at 12:00 wall; the machine rebooted and it is now 14:30 in boot-b, boot time 90 s.
        let fired = Deadline.boot(BootTime(nanoseconds: 42), bootID: "boot-a", wallEstimate: Self.wall0)
        let now = Now(wall: ISO8601.parse("2026-06-01T14:30:00Z")!, boot: BootTime(nanoseconds: 90_000_000_000),
                      bootID: "boot-b")
        let next = Schedule.deadline(after: fired, trigger: every, now: now, zones: .utc)
        // The phase (on the hour) is kept: 15:00, which is 30 minutes from now on this boot's clock.
        #expect(next == .boot(BootTime(nanoseconds: 1_890_000_000_000), bootID: "boot-b",
                              wallEstimate: ISO8601.parse("2026-06-01T15:00:00Z")!))
    }

    @Test func successiveElapsesStrictlyIncrease() {
        let every = Trigger.interval(.seconds(90), repeats: true)
        var deadline = Schedule.firstDeadline(for: every, now: Self.now(plusSeconds: 0), zones: .utc)!
        var clock: Int64 = 0
        var lastWall = Self.wall0
        for step in 0..<500 {
            // Deliveries happen at irregular delays after each deadline, sometimes several periods late.
            clock = (deadline.expectedWall(in: Self.now(plusSeconds: clock)) - Self.wall0).nanoseconds / 1_000_000_000
                + Int64(step * 37 % 400)
            let now = Self.now(plusSeconds: clock)
            guard let next = Schedule.deadline(after: deadline, trigger: every, now: now, zones: .utc) else {
                Issue.record("a repeating trigger stopped")
                return
            }
            let wall = next.expectedWall(in: now)
            #expect(wall > now.wall && wall > lastWall)
            #expect(wall - now.wall <= .seconds(90))
            #expect((wall - Self.wall0).nanoseconds % 90_000_000_000 == 0, "phase drifted at step \(step)")
            lastWall = wall
            deadline = next
        }
    }

    @Test func summariesReadNaturally() {
        #expect(Trigger.interval(.seconds(600), repeats: false).summary == "in 10min")
        #expect(Trigger.interval(.seconds(5_400), repeats: true).summary == "every 1h 30min")
        #expect(Trigger.date(ISO8601.parse("2026-12-01T08:00:00Z")!).summary == "at 2026-12-01T08:00:00Z")
    }
}
