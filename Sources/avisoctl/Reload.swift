/// `avisoctl reload`: makes the daemon re-read its configuration.
enum Reload {
    static let help = """
        Usage: avisoctl reload

        Re-read aviso.conf (as SIGHUP and 'systemctl --user reload aviso' do). When the file has errors they are
        printed, the previous configuration stays in effect and the exit status is 1.
        """

    static func run(_ argv: [String], _ context: Context) {
        let a = Arguments(argv, verb: "reload", options: [])
        if let extra = a.positionals.first { Output.fail(2, "unexpected argument '\(extra)'") }
        guard case .reloaded(let problems) = context.send(.reload) else { Output.fail(1, "unexpected reply") }
        for p in problems { FileHandleOut.stderr("avisoctl: \(p)\n") }
        if !problems.isEmpty { Output.fail(1, "configuration not changed") }
    }
}
