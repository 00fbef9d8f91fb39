import AvisoCore
import AvisoTestSupport
import Testing

/// `DeadlineIndex` keeps the model ordered as it changes: at every step its window is `WindowPlanner.plan`'s, with
/// and without budgets, from any `now` of the boot (the wall clock stepped either way), and its due list is exactly
/// the entries that are due.
struct DeadlineIndexTests {
    static let bootID = "this-boot"

    /// A table of entries by record number, as the scheduler keeps its requests: a removal moves the last record into
    /// the freed number, and the index is told so.
    struct Table: DeadlineRecords {
        var entries: [WindowEntry] = []
        var numbers: [String: Int] = [:]
        var index = DeadlineIndex(bootID: DeadlineIndexTests.bootID)

        func identifier(ofRecord r: Int) -> String { entries[r].id }
        func deadline(ofRecord r: Int) -> Deadline? { entries[r].deadline }

        mutating func set(_ e: WindowEntry) {
            let r = numbers[e.id] ?? entries.count
            if r == entries.count {
                entries.append(e)
                numbers[e.id] = r
            } else {
                entries[r] = e
            }
            index.set(r, priorityClass: e.priorityClass, in: self)
        }

        mutating func remove(_ id: String) {
            guard let r = numbers.removeValue(forKey: id) else { return }
            index.remove(r, in: self)
            let last = entries.removeLast()
            if r < entries.count {
                entries[r] = last
                numbers[last.id] = r
                index.move(entries.count, to: r)
            }
        }
    }

    /// A random entry: wall deadlines, boot deadlines of this boot and of another, many ties on time and class.
    static func entry(_ id: String, _ g: inout SplitMix, around now: Now) -> WindowEntry {
        let offset = Span.seconds(Int64(g.next() % 400) * 30 - 1200)
        let deadline: Deadline = switch g.next() % 3 {
        case 0: .wall(now.wall + offset)
        case 1: .boot(now.boot + offset, bootID: bootID, wallEstimate: now.wall + offset + .seconds(7))
        default: .boot(BootTime(nanoseconds: Int64(g.next() % 1_000_000)), bootID: "another-boot", wallEstimate: now.wall + offset)
        }
        return WindowEntry(id: id, deadline: deadline, priorityClass: [0, 10, 50, 99][Int(g.next() % 4)])
    }

    @Test(arguments: [UInt64(1), 2, 3, 4, 5])
    func theIndexPlansAsThePlannerAtEveryStep(seed: UInt64) {
        var g = SplitMix(seed: seed)
        let start = Now(wall: WallTime(seconds: 1_800_000_000), boot: BootTime(nanoseconds: 9_000_000_000_000), bootID: Self.bootID)
        var table = Table()
        var model: [String: WindowEntry] = [:]
        for step in 0..<600 {
            // Adds, moves and removals, as fires, edits and removes make them.
            let id = "r\(g.next() % 250)"
            if g.next() % 5 == 0 {
                model[id] = nil
                table.remove(id)
            } else {
                let e = Self.entry(id, &g, around: start)
                model[id] = e
                table.set(e)
            }
            guard step % 20 == 0 else { continue }
            // Seen later, or after the wall clock was stepped back or forward.
            let step = Span.seconds(Int64(g.next() % 3600) - 1800)
            let now = Now(wall: start.wall + step + .seconds(Int64(g.next() % 600)), boot: start.boot + .seconds(Int64(g.next() % 600)),
                          bootID: Self.bootID)
            let entries = Array(model.values)
            for (limit, budgets) in [(64, [:]), (3, [:]), (20, [10: 2, 99: 1]), (0, [:]), (500, [50: 5])] as [(Int, [Int: Int])] {
                #expect(table.index.armed(now: now, limit: limit, budgets: budgets, in: table)
                    == WindowPlanner.plan(entries, now: now, limit: limit, budgets: budgets).armed, "seed \(seed) step \(step)")
            }
            let due = entries.filter { $0.deadline.isDue(at: now) }.map(\.id)
            #expect(table.index.due(now: now, in: table).sorted() == due.sorted())
            #expect(table.index.count == model.count)
            #expect(Set(table.index.entries(in: table)) == Set(entries))
        }
    }

    @Test func aNowOfAnotherBootFallsBackToTheFullOrder() {
        var g = SplitMix(seed: 9)
        let now = Now(wall: WallTime(seconds: 1_800_000_000), boot: BootTime(nanoseconds: 1), bootID: Self.bootID)
        var table = Table()
        var entries: [WindowEntry] = []
        for i in 0..<100 {
            let e = Self.entry("r\(i)", &g, around: now)
            entries.append(e)
            table.set(e)
        }
        let elsewhere = Now(wall: now.wall, boot: now.boot, bootID: "yet-another-boot")
        #expect(table.index.armed(now: elsewhere, limit: 64, in: table) == WindowPlanner.plan(entries, now: elsewhere, limit: 64).armed)
    }
}
