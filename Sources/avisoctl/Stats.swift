/// `avisoctl stats`: counters since the daemon started.
enum Stats {
    static let help = """
        Usage: avisoctl stats [--json]

        Show counters since avisod started: evictions from the window per priority class (an armed request that
        lost its timer to an earlier or more important one), firings, deliveries, occurrences skipped as too late,
        and reconciles; then, per category, from the kept events: deliveries, each action's count, dismissals and
        expiries (a category dismissed without an action is noise), and how its content hook's runs ended.

          --json   One object with evictions (class -> count), fired, delivered, skipped, reconciles and categories
                   (name -> delivered, actions, dismissed, expired, and hooks: completed, expired, failed, killed
                   when its hook ran; "" for notifications without a category)
        """

    static func run(_ argv: [String], _ context: Context) {
        let a = Arguments(argv, verb: "stats", options: [.init(names: ["--json"], takesValue: false)])
        if let extra = a.positionals.first { Output.fail(2, "unexpected argument '\(extra)'") }
        guard case .stats(let s) = context.send(.stats) else { Output.fail(1, "unexpected reply") }
        if a.has("--json") { return Output.json(s) }
        Output.line("Fired: \(s.fired)  Delivered: \(s.delivered)  Skipped (too late): \(s.skipped)  Reconciles: \(s.reconciles)")
        if s.evictions.isEmpty { Output.line("Evictions: none") } else {
            Output.line("Evictions by class:")
            for (c, n) in s.evictions.sorted(by: { Int($0.key) ?? 0 < Int($1.key) ?? 0 }) { Output.line("  \(c): \(n)") }
        }
        guard let categories = s.categories, !categories.isEmpty else { return }
        Output.table(["CATEGORY", "DELIVERED", "DISMISSED", "EXPIRED", "ACTIONS", "HOOKS"], categories.sorted { $0.key < $1.key }.map { name, c in
            [name.isEmpty ? "(none)" : name, String(c.delivered), String(c.dismissed), String(c.expired),
             c.actions.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "),
             c.hooks.map { "completed \($0.completed), expired \($0.expired), failed \($0.failed), killed \($0.killed)" } ?? ""]
        })
    }
}
