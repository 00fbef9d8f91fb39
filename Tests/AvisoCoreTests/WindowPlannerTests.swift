import AvisoCore
import Testing

struct WindowPlannerTests {
    static let now = Now(wall: WallTime(seconds: 1_780_000_000), boot: BootTime(nanoseconds: 500_000_000_000),
                         bootID: "boot-a")

    @Test func armsTheSoonestSixtyFourAndKeepsTheRestWaiting() {
        // 66 entries, given in scrambled order, due one minute apart.
        let entries = (0..<66).map { i in
            let k = (i * 29) % 66
            return WindowEntry(id: "r\(k)", deadline: .wall(Self.now.wall + .seconds(Int64(60 * (k + 1)))), priorityClass: 50)
        }
        let plan = WindowPlanner.plan(entries, now: Self.now, limit: 64)
        #expect(plan.armed.count == 64)
        #expect(plan.armed.map(\.id) == (0..<64).map { "r\($0)" })
        #expect(plan.waiting == ["r64", "r65"])
        #expect(plan.armed.allSatisfy { $0.clock == .realtime })
        #expect(plan.armed.first?.deadline == (Self.now.wall + .seconds(60)).nanoseconds)
    }

    @Test func tiesAreBrokenByClassThenId() {
        let at = Deadline.wall(Self.now.wall + .seconds(60))
        let entries = [
            WindowEntry(id: "b", deadline: at, priorityClass: 10),
            WindowEntry(id: "a", deadline: at, priorityClass: 10),
            WindowEntry(id: "z", deadline: at, priorityClass: 0),
            WindowEntry(id: "c", deadline: at, priorityClass: 99),
        ]
        #expect(WindowPlanner.plan(entries, now: Self.now, limit: 2) == WindowPlan(
            armed: [TimerSpec(id: "z", clock: .realtime, deadline: (Self.now.wall + .seconds(60)).nanoseconds),
                    TimerSpec(id: "a", clock: .realtime, deadline: (Self.now.wall + .seconds(60)).nanoseconds)],
            waiting: ["b", "c"]))
        #expect(WindowPlanner.plan(entries.reversed(), now: Self.now, limit: 2)
            == WindowPlanner.plan(entries, now: Self.now, limit: 2))
    }

    @Test func mixesClocksByExpectedWallTime() {
        let entries = [
            // Elapsed 5 minutes from now on this boot.
            WindowEntry(id: "interval", deadline: .boot(Self.now.boot + .seconds(300), bootID: "boot-a",
                                                         wallEstimate: WallTime(seconds: 0)), priorityClass: 50),
            WindowEntry(id: "date", deadline: .wall(Self.now.wall + .seconds(120)), priorityClass: 50),
            // From a previous boot: only its wall estimate means anything now.
            WindowEntry(id: "old-boot", deadline: .boot(BootTime(nanoseconds: 1), bootID: "boot-0",
                                                         wallEstimate: Self.now.wall + .seconds(200)), priorityClass: 50),
        ]
        let plan = WindowPlanner.plan(entries, now: Self.now, limit: 64)
        #expect(plan.armed == [
            TimerSpec(id: "date", clock: .realtime, deadline: (Self.now.wall + .seconds(120)).nanoseconds),
            TimerSpec(id: "old-boot", clock: .realtime, deadline: (Self.now.wall + .seconds(200)).nanoseconds),
            TimerSpec(id: "interval", clock: .boottime, deadline: (Self.now.boot + .seconds(300)).nanoseconds),
        ])
        #expect(plan.waiting.isEmpty)
    }

    @Test func pastDueEntriesAreArmedFirst() {
        let entries = [
            WindowEntry(id: "later", deadline: .wall(Self.now.wall + .seconds(10)), priorityClass: 0),
            WindowEntry(id: "overdue", deadline: .wall(Self.now.wall - .seconds(3_600)), priorityClass: 99),
        ]
        let plan = WindowPlanner.plan(entries, now: Self.now, limit: 1)
        #expect(plan.armed.map(\.id) == ["overdue"])
        #expect(plan.waiting == ["later"])
    }

    @Test func aZeroOrNegativeLimitArmsNothing() {
        let entries = [WindowEntry(id: "x", deadline: .wall(Self.now.wall), priorityClass: 0)]
        #expect(WindowPlanner.plan(entries, now: Self.now, limit: 0) == WindowPlan(armed: [], waiting: ["x"]))
        #expect(WindowPlanner.plan(entries, now: Self.now, limit: -1) == WindowPlan(armed: [], waiting: ["x"]))
        #expect(WindowPlanner.plan([], now: Self.now, limit: 64) == WindowPlan(armed: [], waiting: []))
    }
}
