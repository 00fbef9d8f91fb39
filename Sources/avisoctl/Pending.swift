/// `avisoctl pending`: the armed requests, soonest first.
enum Pending {
    static let help = """
        Usage: avisoctl pending [--json]

        List the armed requests, soonest first: identifier, next fire time (local), time left, trigger, title.
        At most the window size (64 by default) is armed at once.

          --json   An array of objects with id, title, body, next (ISO 8601 UTC), trigger, clock and request
        """

    static func run(_ argv: [String], _ context: Context) {
        let a = Arguments(argv, verb: "pending", options: [.init(names: ["--json"], takesValue: false)])
        if let extra = a.positionals.first { Output.fail(2, "unexpected argument '\(extra)'") }
        guard case .pending(let items) = context.send(.pending) else { Output.fail(1, "unexpected reply") }
        if a.has("--json") { return Output.json(items) }
        if items.isEmpty { return Output.line("No pending requests.") }
        Output.table(
            ["ID", "NEXT", "LEFT", "TRIGGER", "TITLE"],
            items.map { [$0.id, LocalTime.show($0.next), LocalTime.relative($0.next), $0.trigger, $0.title.isEmpty ? $0.body : $0.title] })
    }
}
