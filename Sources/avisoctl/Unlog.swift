import AvisoProtocol

/// `avisoctl unlog`: takes back the latest entry of an item's log.
enum Unlog {
    static let help = """
        Usage: avisoctl unlog NAME

        Remove the latest entry of the item NAME's log (logged by mistake), and re-plan its reminders.
        """

    static func run(_ argv: [String], _ context: Context) {
        let a = Arguments(argv, verb: "unlog", options: [])
        guard a.positionals.count == 1 else { Output.fail(2, "unlog needs one item name (see 'avisoctl unlog --help')") }
        guard case .item(let info) = context.send(.unlog(item: a.positionals[0])) else { Output.fail(1, "unexpected reply") }
        Output.line(Items.summary(info))
    }
}
