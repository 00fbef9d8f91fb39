/// A verb's command line, parsed against the options it declares, in one pass.
///
/// `--name value` and `--name=value` are both accepted; `--` ends the options. Anything unknown is a usage error
/// that names the option and the verb.
struct Arguments {
    struct Option {
        var names: [String]
        var takesValue: Bool
    }

    private var values: [String: [String]] = [:]
    private(set) var positionals: [String] = []

    init(_ args: [String], verb: String, options: [Option]) {
        var byName: [String: Option] = [:]
        for o in options { for n in o.names { byName[n] = o } }
        var i = 0
        var optionsEnded = false
        while i < args.count {
            let arg = args[i]
            i += 1
            if optionsEnded || !arg.hasPrefix("-") || arg == "-" {
                positionals.append(arg)
                continue
            }
            if arg == "--" { optionsEnded = true; continue }
            var name = arg
            var inline: String?
            if let eq = arg.firstIndex(of: "="), arg.hasPrefix("--") {
                name = String(arg[..<eq])
                inline = String(arg[arg.index(after: eq)...])
            }
            guard let option = byName[name] else {
                Output.fail(2, "unknown option '\(name)' for 'avisoctl \(verb)' (see 'avisoctl \(verb) --help')")
            }
            let key = option.names[0]
            if option.takesValue {
                if let inline {
                    values[key, default: []].append(inline)
                } else if i < args.count {
                    values[key, default: []].append(args[i])
                    i += 1
                } else {
                    Output.fail(2, "option '\(name)' of 'avisoctl \(verb)' needs a value")
                }
            } else {
                if inline != nil { Output.fail(2, "option '\(name)' of 'avisoctl \(verb)' takes no value") }
                values[key, default: []].append("")
            }
        }
    }

    /// The last value given for the option named `name` (its first name), or nil.
    func value(_ name: String) -> String? { values[name]?.last }
    /// Every value given for a repeatable option.
    func all(_ name: String) -> [String] { values[name] ?? [] }
    /// Whether a flag was given.
    func has(_ name: String) -> Bool { values[name] != nil }
}
