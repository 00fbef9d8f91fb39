import AvisoProtocol

/// `avisoctl items`: the items and what their logs say.
enum Items {
    static let help = """
        Usage: avisoctl items [--json]

        List the items declared in the reminder files ([Item NAME]) with what their logs say: the kind, the latest
        entry and how many days ago, the streak of consecutive days, the average interval between entries, today's
        count (and the goal, or this week's count of a weekly item), and the next reminder.

          --json   One array of objects: name, title, kind, source, last, daysSince, streak, averageDays, today,
                   week, goal, entries, next, planned, snoozedUntil (times in ISO 8601 UTC)
        """

    static func run(_ argv: [String], _ context: Context) {
        let a = Arguments(argv, verb: "items", options: [.init(names: ["--json"], takesValue: false)])
        guard a.positionals.isEmpty else { Output.fail(2, "items takes no arguments (see 'avisoctl items --help')") }
        guard case .items(let items) = context.send(.items) else { Output.fail(1, "unexpected reply") }
        if a.has("--json") { return Output.json(items) }
        if items.isEmpty { return Output.line("No items (declare [Item NAME] groups in the reminder files)") }
        Output.table(["NAME", "KIND", "LAST", "STREAK", "AVERAGE", "TODAY", "NEXT"], items.map { i in
            [i.name, i.kind, i.last.map { "\(LocalTime.show($0)) (\(days(i.daysSince ?? 0)))" } ?? "never",
             String(i.streak), i.averageDays.map { "\(number($0))d" } ?? "-", today(i), next(i)]
        })
    }

    /// One line for `log` and `unlog`: "water: 3 of 8 today; next ...".
    static func summary(_ i: ItemInfo) -> String {
        "\(i.name): \(today(i)) today, \(i.entries) logged in all, streak \(i.streak); next: \(next(i))"
    }

    static func today(_ i: ItemInfo) -> String {
        if let week = i.week { return "\(i.today) (week: \(week) of \(i.goal ?? 0))" }
        return i.goal.map { "\(i.today) of \($0)" } ?? String(i.today)
    }

    static func next(_ i: ItemInfo) -> String {
        guard let next = i.next else { return "none planned" }
        return "\(LocalTime.show(next)) (\(LocalTime.relative(next)))" + (i.snoozedUntil != nil ? ", snoozed" : "")
    }

    private static func days(_ n: Int) -> String { n == 0 ? "today" : n == 1 ? "yesterday" : "\(n) days ago" }

    private static func number(_ d: Double) -> String { d == d.rounded() ? String(Int(d)) : String(d) }
}
