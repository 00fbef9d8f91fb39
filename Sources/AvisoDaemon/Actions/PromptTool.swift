import AvisoCore

/// The program that asks for the text of a text-input action where the notification server has no inline replies.
struct PromptTool: Hashable, Sendable {
    enum Kind: Hashable, Sendable {
        case zenity, kdialog, yad
        /// A person's own: told what to ask in its environment.
        case custom
    }

    let kind: Kind
    let argv: [String]

    /// The tool `[Prompt] Program=` names: the first of zenity, kdialog and yad found in `path` when automatic; nil
    /// when there is none, or when the person said none.
    static func resolve(_ program: PromptProgram, path: String?) -> PromptTool? {
        switch program {
        case .none: return nil
        case .command(let argv):
            let name = argv[0].split(separator: "/").last.map(String.init) ?? argv[0]
            let kind: Kind = name == "zenity" ? .zenity : name == "kdialog" ? .kdialog : name == "yad" ? .yad : .custom
            return ProgramPath.locate(argv[0], path: path) == nil ? nil : PromptTool(kind: kind, argv: argv)
        case .automatic:
            for (name, kind) in [("zenity", Kind.zenity), ("kdialog", .kdialog), ("yad", .yad)]
            where ProgramPath.locate(name, path: path) != nil {
                return PromptTool(kind: kind, argv: [name])
            }
            return nil
        }
    }

    /// The command line and environment that ask for `action`'s text about a notification titled `title`.
    func command(title: String, action: Action) -> ([String], [String: String]) {
        let text = action.placeholder.isEmpty ? action.label : action.placeholder
        let environment = ["AVISO_PROMPT_TITLE": title, "AVISO_PROMPT_TEXT": text, "AVISO_PROMPT_SUBMIT": action.submit]
        switch kind {
        case .zenity: return (argv + ["--entry", "--title=\(title)", "--text=\(text)"] + (action.submit.isEmpty ? [] : ["--ok-label=\(action.submit)"]), environment)
        case .yad: return (argv + ["--entry", "--title=\(title)", "--text=\(text)"], environment)
        case .kdialog: return (argv + ["--title", title, "--inputbox", text], environment)
        case .custom: return (argv, environment)
        }
    }
}
