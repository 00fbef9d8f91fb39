import AvisoProtocol

/// `avisoctl remove`: removes pending requests.
enum Remove {
    static let help = """
        Usage: avisoctl remove ID... | --prefix P | --all

        Remove pending requests. An identifier that is not pending is an error and nothing is removed.

          --prefix P   Remove every request whose identifier starts with P
          --all        Remove every pending request
        """

    static func run(_ argv: [String], _ context: Context) {
        let selector = parseSelector(argv, verb: "remove")
        guard case .removed(let ids) = context.send(.remove(selector)) else { Output.fail(1, "unexpected reply") }
        report(ids, what: "pending request")
    }

    /// Shared by `remove` and `remove-delivered`: exactly one of IDs, --prefix or --all.
    static func parseSelector(_ argv: [String], verb: String) -> Selector {
        let a = Arguments(argv, verb: verb, options: [
            .init(names: ["--prefix"], takesValue: true), .init(names: ["--all"], takesValue: false),
        ])
        switch (a.positionals.isEmpty, a.value("--prefix"), a.has("--all")) {
        case (false, nil, false): return .ids(a.positionals)
        case (true, let p?, false):
            if p.isEmpty { Output.fail(2, "--prefix needs a non-empty prefix (use --all for everything)") }
            return .prefix(p)
        case (true, nil, true): return .all
        case (true, nil, false): Output.fail(2, "\(verb) needs identifiers, --prefix P or --all (see 'avisoctl \(verb) --help')")
        default: Output.fail(2, "give identifiers, --prefix or --all, not several of them")
        }
    }

    static func report(_ ids: [String], what: String) {
        if ids.isEmpty { FileHandleOut.stderr("avisoctl: no \(what) matched\n") }
        for id in ids { Output.line(id) }
    }
}
