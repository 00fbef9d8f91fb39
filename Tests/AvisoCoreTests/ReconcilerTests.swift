import AvisoCore
import Testing

struct ReconcilerTests {
    static func spec(_ id: String, _ ns: Int64, _ clock: KernelClock = .realtime) -> TimerSpec {
        TimerSpec(id: id, clock: clock, deadline: ns)
    }

    @Test func anUnchangedPlanDoesNothing() {
        let desired = [Self.spec("a", 10), Self.spec("b", 20, .boottime)]
        let armed = Dictionary(uniqueKeysWithValues: desired.map { ($0.id, $0) })
        #expect(Reconciler.diff(desired: desired, armed: armed) == [])
        #expect(Reconciler.diff(desired: [], armed: [:]) == [])
    }

    @Test func disarmsLeftoversSortedThenArmsInDesiredOrder() {
        let armed = ["zeta": Self.spec("zeta", 1), "keep": Self.spec("keep", 5), "alpha": Self.spec("alpha", 2),
                     "moved": Self.spec("moved", 7), "clock": Self.spec("clock", 9)]
        let desired = [Self.spec("new2", 3), Self.spec("keep", 5), Self.spec("moved", 8), Self.spec("new1", 4),
                       Self.spec("clock", 9, .boottime)]
        #expect(Reconciler.diff(desired: desired, armed: armed) == [
            .disarm("alpha"), .disarm("zeta"),
            .arm(Self.spec("new2", 3)), .arm(Self.spec("moved", 8)), .arm(Self.spec("new1", 4)),
            .arm(Self.spec("clock", 9, .boottime)),
        ])
    }

    @Test func applyingTheActionsReachesTheDesiredState() {
        var armed: [String: TimerSpec] = [:]
        var state: UInt64 = 42
        for round in 0..<200 {
            var desired: [TimerSpec] = []
            for i in 0..<70 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                if state >> 62 == 0 { continue }
                desired.append(Self.spec("r\(i)", Int64(state >> 40 % 5), state >> 63 == 0 ? .realtime : .boottime))
            }
            for action in Reconciler.diff(desired: desired, armed: armed) {
                switch action {
                case .arm(let s): armed[s.id] = s
                case .disarm(let id):
                    #expect(armed.removeValue(forKey: id) != nil, "round \(round): disarmed an unarmed \(id)")
                }
            }
            #expect(armed == Dictionary(uniqueKeysWithValues: desired.map { ($0.id, $0) }), "round \(round)")
            #expect(Reconciler.diff(desired: desired, armed: armed) == [], "round \(round): not idempotent")
        }
    }
}
