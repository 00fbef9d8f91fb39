import AvisoCore
import AvisoTestSupport
import Testing

@testable import AvisoDaemon

/// The scheduler's table of requests: one contiguous table with an identifier → slot index, where a removal moves
/// the last request into the freed slot.
struct RequestModelTests {
    static func request(_ id: String, at seconds: Int64) -> ScheduledRequest {
        ScheduledRequest(request: Request(id: id, content: Content(title: id), trigger: .date(WallTime(seconds: seconds))),
                         added: WallTime(seconds: 0), next: .wall(WallTime(seconds: seconds)))
    }

    @Test func addsReplacementsAndRemovalsInAnyOrderKeepEveryRequestFindableByItsIdentifier() {
        var model = RequestModel(rules: PriorityRules(), bootID: "boot")
        var expected: [String: Int64] = [:]
        var g = SplitMix(seed: 12)
        for step in 0..<5_000 {
            let id = "r\(Int.random(in: 0..<400, using: &g))"
            if Bool.random(using: &g) || expected[id] == nil {
                let at = Int64(1_000_000 + step)
                model[id] = Self.request(id, at: at)
                expected[id] = at
            } else {
                model[id] = nil
                expected[id] = nil
            }
        }
        #expect(model.count == expected.count)
        for (id, at) in expected { #expect(model[id]?.next == .wall(WallTime(seconds: at)), "\(id)") }
        #expect(model["r400"] == nil)
        let iterated = Dictionary(uniqueKeysWithValues: model.map { ($0.key, $0.value.next) })
        #expect(iterated == expected.mapValues { .wall(WallTime(seconds: $0)) })
        #expect(model.scheduledCount == expected.count, "the deadline index follows the table")
        // The index still orders the requests where the removals moved them.
        let now = Now(wall: WallTime(seconds: 1_002_500), boot: BootTime(nanoseconds: 1), bootID: "boot")
        let entries = model.map { WindowEntry(id: $0.key, deadline: $0.value.next!, priorityClass: model.priorityClass(of: $0.value)) }
        #expect(model.armed(now: now, limit: 1_000, budgets: [:]) == WindowPlanner.plan(entries, now: now, limit: 1_000).armed)
        #expect(model.due(now: now) == expected.filter { $0.value <= 1_002_500 }.sorted { $0.value < $1.value }.map(\.key))
    }
}
