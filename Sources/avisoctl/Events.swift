import AvisoProtocol

/// `avisoctl events`: what happened to notifications.
enum Events {
    static let help = """
        Usage: avisoctl events [--follow] [--json]

        Show the interactions with notifications, oldest first: delivered, action (with its name and typed text),
        dismissed, expired, closed (by aviso or another program), replaced, held, hook (a content hook ended: its
        outcome and how long it ran). avisod keeps the last [Events] Keep= (10,000 by default).

          --follow   Keep printing events as they happen, like journalctl -f (stop with Ctrl-C)
          --json     One JSON object per line: t (ISO 8601 UTC with milliseconds), id, event, action, text, category;
                     a hook event has outcome (completed, expired, failed, killed) and durationMs
        """

    static func run(_ argv: [String], _ context: Context) {
        let a = Arguments(argv, verb: "events", options: [
            .init(names: ["--follow", "-f"], takesValue: false), .init(names: ["--json"], takesValue: false),
        ])
        if let extra = a.positionals.first { Output.fail(2, "unexpected argument '\(extra)'") }
        let json = a.has("--json")
        let print: (EventInfo) -> Void = { e in
            if json { return Output.jsonLine(e) }
            var line = "\(LocalTime.show(e.t))  \(e.event)  \(e.id)"
            if let action = e.action { line += "  \(action)" }
            if let text = e.text { line += "  \"\(text)\"" }
            if let outcome = e.outcome { line += "  \(outcome)" + (e.durationMs.map { " in \($0) ms" } ?? "") }
            if let category = e.category { line += "  [\(category)]" }
            Output.line(line)
        }
        guard a.has("--follow") else {
            guard case .events(let events) = context.send(.events(follow: false)) else { Output.fail(1, "unexpected reply") }
            if events.isEmpty && !json { return Output.line("No events.") }
            return events.forEach(print)
        }
        Connection.follow(.events(follow: true), to: context.socket) { reply in
            guard case .events(let events) = Output.result(reply) else { Output.fail(1, "unexpected reply") }
            events.forEach(print)
        }
    }
}
