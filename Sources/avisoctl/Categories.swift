import AvisoProtocol

/// `avisoctl categories`: the categories in effect and their actions.
enum Categories {
    static let help = """
        Usage: avisoctl categories [--json]

        List the categories declared in aviso.conf and the reminder files ([Category NAME] groups), each with its
        actions in button order: name, label, and what it runs. The freedesktop categories (im.received,
        transfer.complete, ...) are always known and have no actions.

          --json   An array of objects with name, source, actions (name, label, run, input, destructive, foreground,
                   placeholder, submit), defaultAction, dismiss, hiddenPreviews, delivery, thread, level and
                   hook (its content hook and budget)
        """

    static func run(_ argv: [String], _ context: Context) {
        let a = Arguments(argv, verb: "categories", options: [.init(names: ["--json"], takesValue: false)])
        if let extra = a.positionals.first { Output.fail(2, "unexpected argument '\(extra)'") }
        guard case .categories(let categories) = context.send(.categories) else { Output.fail(1, "unexpected reply") }
        if a.has("--json") { return Output.json(categories) }
        if categories.isEmpty { return Output.line("No categories declared.") }
        for c in categories {
            var notes: [String] = []
            if let d = c.defaultAction { notes.append("click: \(d)") }
            if let d = c.dismiss { notes.append("dismiss: \(d)") }
            if let h = c.hiddenPreviews { notes.append("hidden previews: \(h)") }
            if let d = c.delivery { notes.append("delivery: \(d)") }
            if let t = c.thread { notes.append("thread: \(t)") }
            if let l = c.level { notes.append("level: \(l)") }
            if let h = c.hook { notes.append("hook: \(h)") }
            Output.line("\(c.name)  (\(c.source))" + (notes.isEmpty ? "" : "  " + notes.joined(separator: ", ")))
            Output.table(["  ACTION", "LABEL", "RUN"], c.actions.map { action in
                ["  " + action.name, action.label + (action.input ? " [text]" : "") + (action.destructive ? " [destructive]" : ""),
                 action.run]
            })
        }
    }
}
