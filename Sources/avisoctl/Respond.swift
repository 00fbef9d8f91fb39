import AvisoProtocol

/// `avisoctl respond`: runs an action of a delivered notification.
enum Respond {
    static let help = """
        Usage: avisoctl respond ID ACTION [--text TEXT]

        Run ACTION of the delivered notification ID, as if its button had been pressed: for notification servers
        without action buttons, and for scripts. ACTION is one of its category's actions (see 'avisoctl
        categories'), or 'default' for what clicking the popup does. A text-input action needs --text.

          --text TEXT   The text typed for a text-input action (change, or an exec that reads AVISO_TEXT)
        """

    static func run(_ argv: [String], _ context: Context) {
        let a = Arguments(argv, verb: "respond", options: [.init(names: ["--text"], takesValue: true)])
        guard a.positionals.count == 2 else { Output.fail(2, "respond needs an identifier and an action (see 'avisoctl respond --help')") }
        let command = Command.respond(id: a.positionals[0], action: a.positionals[1], text: a.value("--text"))
        guard case .responded(let id) = context.send(command) else { Output.fail(1, "unexpected reply") }
        Output.line(id)
    }
}
