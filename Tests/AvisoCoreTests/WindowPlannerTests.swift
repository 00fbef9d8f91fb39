import AvisoCore
import AvisoTestSupport
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
        #expect(plan.waiting == [.init(id: "r64", reason: .behind(64)), .init(id: "r65", reason: .behind(65))])
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
            waiting: [.init(id: "b", reason: .behind(2)), .init(id: "c", reason: .behind(3))]))
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
        #expect(plan.waitingIDs == ["later"])
    }

    @Test func aZeroOrNegativeLimitArmsNothing() {
        let entries = [WindowEntry(id: "x", deadline: .wall(Self.now.wall), priorityClass: 0)]
        #expect(WindowPlanner.plan(entries, now: Self.now, limit: 0) == WindowPlan(armed: [], waiting: [.init(id: "x", reason: .behind(0))]))
        #expect(WindowPlanner.plan(entries, now: Self.now, limit: -1) == WindowPlan(armed: [], waiting: [.init(id: "x", reason: .behind(0))]))
        #expect(WindowPlanner.plan([], now: Self.now, limit: 64) == WindowPlan(armed: [], waiting: []))
    }

    // MARK: budgets

    /// Entries due one minute apart in the order given, with the classes given.
    static func sequence(_ items: [(String, Int)]) -> [WindowEntry] {
        items.enumerated().map { i, item in
            WindowEntry(id: item.0, deadline: .wall(now.wall + .seconds(Int64(60 * (i + 1)))), priorityClass: item.1)
        }
    }

    @Test func aClassOverItsBudgetWaitsAndLetsLaterRequestsIn() {
        let entries = Self.sequence([("h1", 50), ("h2", 50), ("a1", 10), ("h3", 50), ("a2", 10), ("x", 99)])
        let plan = WindowPlanner.plan(entries, now: Self.now, limit: 4, budgets: [50: 2])
        #expect(plan.armed.map(\.id) == ["h1", "h2", "a1", "a2"])
        #expect(plan.waiting == [
            .init(id: "h3", reason: .overBudget(priorityClass: 50, budget: 2)),
            .init(id: "x", reason: .behind(5)),
        ])
    }

    @Test func withoutBudgetsTheSameEntriesFillTheWindowInTimeOrder() {
        let entries = Self.sequence([("h1", 50), ("h2", 50), ("a1", 10), ("h3", 50), ("a2", 10), ("x", 99)])
        let plan = WindowPlanner.plan(entries, now: Self.now, limit: 4)
        #expect(plan.armed.map(\.id) == ["h1", "h2", "a1", "h3"])
        #expect(plan.waitingIDs == ["a2", "x"])
    }

    @Test func budgetsOnSeveralClassesAreEachHonoured() {
        // 66 entries, 22 per class, interleaved; budgets 10 and 20 leave the rest of 64 to class 99.
        let entries = Self.sequence((0..<66).map { i in ("e\(i)", [0, 50, 99][i % 3]) })
        let plan = WindowPlanner.plan(entries, now: Self.now, limit: 64, budgets: [0: 10, 50: 20])
        let classOf = Dictionary(uniqueKeysWithValues: entries.map { ($0.id, $0.priorityClass) })
        let armedClasses = plan.armed.map { classOf[$0.id]! }
        #expect(armedClasses.filter { $0 == 0 }.count == 10)
        #expect(armedClasses.filter { $0 == 50 }.count == 20)
        #expect(armedClasses.filter { $0 == 99 }.count == 22)
        #expect(plan.armed.count + plan.waiting.count == 66)
        // The budgeted classes keep their earliest members.
        #expect(plan.armed.filter { classOf[$0.id] == 0 }.map(\.id) == (0..<10).map { "e\($0 * 3)" })
        #expect(plan.waiting.allSatisfy {
            if case .overBudget(let c, let b) = $0.reason { return (c == 0 && b == 10) || (c == 50 && b == 20) }
            return false
        })
    }

    @Test func aBudgetOfZeroStillLetsOneIn() {
        let entries = Self.sequence([("a", 7), ("b", 7)])
        let plan = WindowPlanner.plan(entries, now: Self.now, limit: 64, budgets: [7: 0])
        #expect(plan.armed.map(\.id) == ["a"])
        #expect(plan.waiting == [.init(id: "b", reason: .overBudget(priorityClass: 7, budget: 1))])
    }

    @Test func thePlanIsTheSameWhateverTheInputOrder() {
        var generator = SplitMix(seed: 42)
        let entries = (0..<200).map { i in
            WindowEntry(id: "id\(i)", deadline: .wall(Self.now.wall + .seconds(Int64(generator.next() % 50))),
                        priorityClass: [0, 10, 50, 99][Int(generator.next() % 4)])
        }
        let reference = WindowPlanner.plan(entries, now: Self.now, limit: 64, budgets: [10: 5, 99: 30])
        for _ in 0..<20 {
            var shuffled = entries
            shuffled.shuffle(using: &generator)
            #expect(WindowPlanner.plan(shuffled, now: Self.now, limit: 64, budgets: [10: 5, 99: 30]) == reference)
        }
        #expect(reference.armed.count == 64)
        // Armed deadlines never go backwards.
        #expect(zip(reference.armed, reference.armed.dropFirst()).allSatisfy { $0.deadline <= $1.deadline })
    }
}
