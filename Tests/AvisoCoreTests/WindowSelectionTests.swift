import AvisoCore
import Testing

/// `WindowPlanner.armed` is `WindowPlanner.plan(...).armed`, without ordering the whole model.
struct WindowSelectionTests {
    static let now = Now(wall: WallTime(seconds: 1_800_000_000), boot: BootTime(nanoseconds: 5_000_000_000_000), bootID: "b")

    /// A deterministic mix: wall and boot deadlines, ties on time and class, past and future.
    static func entries(_ count: Int, seed: UInt64) -> [WindowEntry] {
        var state = seed
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        return (0..<count).map { i in
            let offset = Int64(next(500) - 50) * 60  // minutes, some in the past, many ties
            let deadline: Deadline = next(2) == 0
                ? .wall(now.wall + .seconds(offset))
                : .boot(now.boot + .seconds(offset), bootID: "b", wallEstimate: now.wall + .seconds(offset))
            return WindowEntry(id: "r\(next(10_000))-\(i)", deadline: deadline, priorityClass: [0, 10, 50, 99][next(4)])
        }
    }

    @Test(arguments: [0, 1, 3, 64, 200])
    func armedEqualsThePlansArmedSet(limit: Int) {
        for seed in UInt64(1)...20 {
            let entries = Self.entries(300, seed: seed)
            #expect(WindowPlanner.armed(entries, now: Self.now, limit: limit)
                == WindowPlanner.plan(entries, now: Self.now, limit: limit).armed)
        }
    }

    @Test func withBudgetsTheFullPlanDecides() {
        let entries = Self.entries(300, seed: 7)
        let budgets = [99: 2, 50: 5]
        let armed = WindowPlanner.armed(entries, now: Self.now, limit: 64, budgets: budgets)
        #expect(armed == WindowPlanner.plan(entries, now: Self.now, limit: 64, budgets: budgets).armed)
        let classes = Dictionary(entries.map { ($0.id, $0.priorityClass) }, uniquingKeysWith: { a, _ in a })
        #expect(armed.filter { classes[$0.id] == 99 }.count == 2)
    }
}
