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

    /// The table keeps a request's schedule packed: every field reads back as it was set, for each kind of deadline,
    /// boot and source.
    @Test func everyFieldOfAScheduleReadsBackAsItWasSet() {
        var model = RequestModel(rules: PriorityRules(), bootID: "boot-a")
        let request = Request(id: "x", content: Content(title: "x"), trigger: .interval(.seconds(600), repeats: true))
        let cases: [ScheduledRequest] = [
            ScheduledRequest(request: request, added: WallTime(seconds: 5), next: nil),
            ScheduledRequest(request: request, added: WallTime(nanoseconds: -7), next: .wall(WallTime(nanoseconds: .min + 1)),
                             fireCount: Int.max, lastFired: WallTime(nanoseconds: 0), source: "/a.conf"),
            ScheduledRequest(request: request, added: WallTime(seconds: 9),
                             next: .boot(BootTime(nanoseconds: 42), bootID: "boot-a", wallEstimate: WallTime(seconds: 700)),
                             fireCount: 3, lastFired: WallTime(seconds: 8), source: "/b.conf"),
            ScheduledRequest(request: request, added: WallTime(seconds: 9),
                             next: .boot(BootTime(nanoseconds: .max), bootID: "boot-b", wallEstimate: WallTime(seconds: -1)),
                             source: "/a.conf"),
        ]
        for r in cases {
            model["x"] = r
            #expect(model["x"] == r)
            #expect(model.next(of: "x") == r.next)
        }
        var y = cases[2]
        y.request.id = "y"
        model["y"] = y
        #expect(model["y"] == y, "a second request naming the same boot and file")
        #expect(model["x"] == cases[3])
        let again = model.addIfAbsent(cases[1])
        #expect(!again, "a request of that name is there")
        #expect(model["x"] == cases[3], "and it stays as it was")
        var z = cases[1]
        z.request.id = "z"
        let added = model.addIfAbsent(z)
        #expect(added)
        #expect(model["z"] == z && model.count == 3)
    }
}
