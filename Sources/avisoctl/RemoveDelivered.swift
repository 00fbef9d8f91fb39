/// `avisoctl remove-delivered`: forgets delivered notifications and closes their popups.
enum RemoveDelivered {
    static let help = """
        Usage: avisoctl remove-delivered ID... | --prefix P | --all

        Forget delivered notifications and close their popups if they are still on screen.

          --prefix P   Every delivered notification whose identifier starts with P
          --all        Every delivered notification
        """

    static func run(_ argv: [String], _ context: Context) {
        let selector = Remove.parseSelector(argv, verb: "remove-delivered")
        guard case .removed(let ids) = context.send(.removeDelivered(selector)) else { Output.fail(1, "unexpected reply") }
        Remove.report(ids, what: "delivered notification")
    }
}
