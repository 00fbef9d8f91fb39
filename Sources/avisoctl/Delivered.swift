/// `avisoctl delivered`: delivered notifications still tracked.
enum Delivered {
    static let help = """
        Usage: avisoctl delivered [--json]

        List delivered notifications that are still tracked: a notification leaves this list when its popup is
        closed (by the person, by expiry or by remove-delivered).

          --json   An array of objects with id, title, body, delivered (ISO 8601 UTC), serverID and onScreen
        """

    static func run(_ argv: [String], _ context: Context) {
        let a = Arguments(argv, verb: "delivered", options: [.init(names: ["--json"], takesValue: false)])
        if let extra = a.positionals.first { Output.fail(2, "unexpected argument '\(extra)'") }
        guard case .delivered(let items) = context.send(.delivered) else { Output.fail(1, "unexpected reply") }
        if a.has("--json") { return Output.json(items) }
        if items.isEmpty { return Output.line("No delivered notifications.") }
        Output.table(
            ["ID", "DELIVERED", "ON SCREEN", "TITLE"],
            items.map { [$0.id, LocalTime.show($0.delivered), $0.onScreen ? "yes" : "no", $0.title.isEmpty ? $0.body : $0.title] })
    }
}
