/// `avisoctl delivered`: delivered notifications still tracked.
enum Delivered {
    static let help = """
        Usage: avisoctl delivered [--json]

        List delivered notifications that are still tracked: a notification leaves this list when its popup is
        closed (by the person, by expiry or by remove-delivered). Notifications that are due but held (by quiet
        hours, or waiting for a scheduled summary) follow, marked as held.

          --json   An array of objects with id, title, body, delivered (ISO 8601 UTC; when due, for held ones),
                   serverID, onScreen and held ("quiet" or "summary")
        """

    static func run(_ argv: [String], _ context: Context) {
        let a = Arguments(argv, verb: "delivered", options: [.init(names: ["--json"], takesValue: false)])
        if let extra = a.positionals.first { Output.fail(2, "unexpected argument '\(extra)'") }
        guard case .delivered(let items) = context.send(.delivered) else { Output.fail(1, "unexpected reply") }
        if a.has("--json") { return Output.json(items) }
        if items.isEmpty { return Output.line("No delivered notifications.") }
        Output.table(
            ["ID", "DELIVERED", "ON SCREEN", "TITLE"],
            items.map { item in
                [item.id, LocalTime.show(item.delivered), item.held.map { "held (\($0))" } ?? (item.onScreen ? "yes" : "no"),
                 item.title.isEmpty ? item.body : item.title]
            })
    }
}
