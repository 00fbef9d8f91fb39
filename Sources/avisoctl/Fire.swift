/// `avisoctl fire`: delivers a pending request now.
enum Fire {
    static let help = """
        Usage: avisoctl fire ID

        Deliver a pending request now. A one-shot request is then done; a repeating one keeps its schedule.
        """

    static func run(_ argv: [String], _ context: Context) {
        let a = Arguments(argv, verb: "fire", options: [])
        guard a.positionals.count == 1 else { Output.fail(2, "fire needs exactly one identifier") }
        guard case .fired(let id) = context.send(.fire(a.positionals[0])) else { Output.fail(1, "unexpected reply") }
        Output.line(id)
    }
}
