/// `avisoctl list`: the whole model, armed and waiting.
enum List {
    static let help = """
        Usage: avisoctl list [--json]

        List every request, soonest first: pending ones added over the socket and reminders declared in
        ~/.config/aviso/reminders/*.conf. For each: next fire time, priority class, state (armed, or waiting for
        a slot in the window) and, for waiting ones, why.

          --json   An array of objects with id, title, next (ISO 8601 UTC), class, state, reason, source (the file
                   that declares it, or "socket") and trigger
        """

    static func run(_ argv: [String], _ context: Context) {
        let a = Arguments(argv, verb: "list", options: [.init(names: ["--json"], takesValue: false)])
        if let extra = a.positionals.first { Output.fail(2, "unexpected argument '\(extra)'") }
        guard case .list(let items) = context.send(.list) else { Output.fail(1, "unexpected reply") }
        if a.has("--json") { return Output.json(items) }
        if items.isEmpty { return Output.line("No requests.") }
        Output.table(
            ["ID", "NEXT", "CLASS", "STATE", "SOURCE", "TITLE"],
            items.map { item in
                [item.id, item.next.map(LocalTime.show) ?? "-", String(item.priorityClass),
                 item.reason.map { "waiting: \($0)" } ?? item.state, item.source, item.title]
            })
    }
}
