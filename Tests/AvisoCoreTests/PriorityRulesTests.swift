import AvisoCore
import AvisoTestSupport
import Testing

struct PriorityRulesTests {
    @Test func theLongestMatchingPrefixWins() {
        let rules = PriorityRules(prefixes: ["work.": 40, "work.urgent.": 5, "w": 70])
        #expect(rules.priorityClass(for: "work.urgent.deploy") == 5)
        #expect(rules.priorityClass(for: "work.standup") == 40)
        #expect(rules.priorityClass(for: "walk") == 70)
    }

    /// Prefixes are matched by character, as `hasPrefix` does, also where the first bytes alone would say otherwise: an
    /// accent that joins the prefix's first letter, a composed letter against a decomposed one.
    @Test func aPrefixMatchesExactlyWhereHasPrefixDoes() {
        let pieces = ["a", "e", ".", "-", "\u{301}", "é", "e\u{301}", "ü", "👍🏽", "x", "user.", "item-", "\u{200D}"]
        var g = SplitMix(seed: 9)
        func text(_ n: Int) -> String { (0..<n).map { _ in pieces.randomElement(using: &g)! }.joined() }
        for _ in 0..<20_000 {
            let prefix = text(Int.random(in: 1...3, using: &g))
            let id = Bool.random(using: &g) ? prefix + text(Int.random(in: 0...3, using: &g)) : text(Int.random(in: 1...5, using: &g))
            let rules = PriorityRules(prefixes: [prefix: 7])
            #expect((rules.priorityClass(for: id) == 7) == id.hasPrefix(prefix),
                    "\(Array(id.unicodeScalars)) \(Array(prefix.unicodeScalars))")
        }
    }

    @Test func anUnknownPrefixGetsTheLowestClass() {
        let rules = PriorityRules(prefixes: ["work.": 40])
        #expect(rules.priorityClass(for: "groceries") == 99)
        #expect(rules.priorityClass(for: "Work.standup") == 99, "prefixes are case-sensitive")
        #expect(PriorityRules().priorityClass(for: "anything") == 99)
    }

    @Test func anExplicitPriorityOverridesThePrefix() {
        let rules = PriorityRules(prefixes: ["ambient.": 90])
        #expect(rules.priorityClass(for: "ambient.weather", override: 3) == 3)
        #expect(rules.priorityClass(for: "x", override: 0) == 0)
        #expect(rules.priorityClass(for: "x", override: 250) == 99)
        #expect(rules.priorityClass(for: "x", override: -4) == 0)
    }

    @Test func theShippedRulesRankThePersonAboveTimeCriticalAboveEngagementAboveAmbient() {
        let rules = PriorityRules.shipped
        let person = rules.priorityClass(for: "user.medication")
        let critical = rules.priorityClass(for: "alarm.oven")
        let engagement = rules.priorityClass(for: "habit.water")
        let ambient = rules.priorityClass(for: "ambient.weather")
        #expect(person < critical)
        #expect(critical < engagement)
        #expect(engagement < ambient)
        #expect(rules.priorityClass(for: "item-water-20261201T080000Z") == engagement, "items' reminders are habits")
        #expect(ambient < rules.priorityClass(for: "somebody.else"))
        #expect(rules.budgets.isEmpty)
    }

    @Test func prefixesAreKeptLongestFirstAndMergingLetsTheOtherWin() {
        let base = PriorityRules(prefixes: ["a.": 1, "a.b.": 2], budgets: [1: 4])
        #expect(base.prefixes.map(\.prefix) == ["a.b.", "a."])
        let merged = base.merging(PriorityRules(prefixes: ["a.": 7, "c.": 3], budgets: [1: 9, 3: 2]))
        #expect(merged.priorityClass(for: "a.x") == 7)
        #expect(merged.priorityClass(for: "a.b.x") == 2)
        #expect(merged.priorityClass(for: "c.x") == 3)
        #expect(merged.budgets == [1: 9, 3: 2])
    }
}
