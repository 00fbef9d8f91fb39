/// What an action does when a person chooses it: the `Run=` of an `[Action NAME]` group.
///
/// The verbs are a closed set here, matched exhaustively by the daemon: a new one is one case and one parse branch.
public enum ActionVerb: Hashable, Sendable {
    /// Show the notification again after a span (`snooze 10min`; `snooze` alone is 10 minutes).
    case snooze(Span)
    /// Show it again now (`repeat`).
    case showAgain
    /// The typed text replaces the body and the notification is shown again (`change`, a text-input action).
    case change
    /// Close it (`dismiss`).
    case dismiss
    /// Open a URI with the desktop's default handler (`open https://...`).
    case open(String)
    /// Run a program, no shell (`exec PROGRAM ARG...`): the event as JSON on stdin, `AVISO_*` in its environment.
    case exec([String])
    /// Log the item whose reminder this is, and re-plan its reminders (`log`).
    case log

    /// `snooze` without a span.
    public static let defaultSnooze = Span.seconds(600)

    /// The verbs `Run=` accepts, for messages.
    public static let names = ["snooze SPAN", "repeat", "change", "dismiss", "open URI", "exec PROGRAM ARG...", "log"]

    /// Parses `Run=` text. Errors name the verb and say what it needs.
    public static func parse(_ text: String) throws(ValidationError) -> ActionVerb {
        let words: [String]
        do {
            words = try CommandLineWords.split(text)
        } catch {
            throw ValidationError(.action, "Run='\(text)': \(error.message)")
        }
        guard let verb = words.first else {
            throw ValidationError(.action, "Run= is empty; give one of \(names.joined(separator: ", "))")
        }
        let rest = Array(words.dropFirst())
        func noArguments(_ v: ActionVerb) throws(ValidationError) -> ActionVerb {
            guard rest.isEmpty else { throw ValidationError(.action, "Run='\(text)': '\(verb)' takes no argument") }
            return v
        }
        switch verb {
        case "snooze":
            guard !rest.isEmpty else { return .snooze(defaultSnooze) }
            let span = try TimeSpan.parse(rest.joined(separator: " "))
            guard span >= Request.minimumRepeatInterval else {
                throw ValidationError(.action, "Run='\(text)': a snooze of \(TimeSpan.format(span)) is shorter than 60s")
            }
            return .snooze(span)
        case "repeat": return try noArguments(.showAgain)
        case "change": return try noArguments(.change)
        case "dismiss": return try noArguments(.dismiss)
        case "log": return try noArguments(.log)
        case "open":
            guard rest.count == 1 else { throw ValidationError(.action, "Run='\(text)': 'open' takes one URI") }
            return .open(rest[0])
        case "exec":
            guard !rest.isEmpty else { throw ValidationError(.action, "Run='\(text)': 'exec' needs a program") }
            return .exec(rest)
        default:
            throw ValidationError(.action, "Run='\(text)': unknown verb '\(verb)'; use one of \(names.joined(separator: ", "))")
        }
    }

    /// The verb as `Run=` would say it.
    public var text: String {
        switch self {
        case .snooze(let span): "snooze \(TimeSpan.format(span))"
        case .showAgain: "repeat"
        case .change: "change"
        case .dismiss: "dismiss"
        case .open(let uri): "open \(CommandLineWords.quote(uri))"
        case .exec(let argv): "exec " + argv.map(CommandLineWords.quote).joined(separator: " ")
        case .log: "log"
        }
    }
}

/// An `[Action NAME]` group: a button (or a text field) on a notification and what choosing it does.
public struct Action: Hashable, Sendable {
    /// NAME: also the action key sent in Notify, so a server can be scripted by name (`dunstctl action`).
    public var name: String
    /// The button text (`Label=`; NAME when not given).
    public var label: String
    public var verb: ActionVerb
    /// A text-input action (`Input=true`): an inline reply where the server has one, else a prompt.
    public var input: Bool
    /// The input field's placeholder (`Placeholder=`).
    public var placeholder: String
    /// The input's send button text (`Submit=`).
    public var submit: String
    /// Shown last (`Destructive=true`).
    public var destructive: Bool
    /// Passes the server's activation token on to what it starts, so its window gets focus (`Foreground=true`).
    public var foreground: Bool

    public init(
        name: String, label: String = "", verb: ActionVerb, input: Bool = false, placeholder: String = "",
        submit: String = "", destructive: Bool = false, foreground: Bool = false
    ) {
        self.name = name
        self.label = label.isEmpty ? name : label
        self.verb = verb
        self.input = input
        self.placeholder = placeholder
        self.submit = submit
        self.destructive = destructive
        self.foreground = foreground
    }
}

extension ValidationError.Code {
    /// A mistake in an action or category.
    public static let action = ValidationError.Code(rawValue: "action")
    public static let category = ValidationError.Code(rawValue: "category")
}

/// Words of a command line as a person writes one in a key file, without a shell: spaces separate; '...' is literal;
/// "..." keeps spaces and takes \" and \\; a backslash elsewhere escapes the next character.
public enum CommandLineWords {
    /// The words; an unterminated quote or a trailing backslash is an error.
    public static func split(_ text: String) throws(ValidationError) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for c in text {
            if escaped {
                current.append(c)
                escaped = false
                continue
            }
            switch (quote, c) {
            case ("'", "'"), ("\"", "\""):
                quote = nil
            case ("'", _):
                current.append(c)
            case ("\"", "\\"), (nil, "\\"):
                escaped = true
                inWord = true
            case ("\"", _):
                current.append(c)
            case (nil, "'"), (nil, "\""):
                quote = c
                inWord = true
            case (nil, _) where c.isWhitespace:
                if inWord { words.append(current) }
                current = ""
                inWord = false
            default:
                current.append(c)
                inWord = true
            }
        }
        if escaped { throw ValidationError(.action, "'\(text)' ends with a backslash") }
        if let quote { throw ValidationError(.action, "'\(text)' has an unterminated \(quote) quote") }
        if inWord { words.append(current) }
        return words
    }

    /// `word` quoted so that `split` gives it back.
    public static func quote(_ word: String) -> String {
        if !word.isEmpty, !word.contains(where: { $0.isWhitespace || "'\"\\".contains($0) }) { return word }
        return "'" + word.replacingAll("'", with: "'\\''") + "'"
    }
}

extension String {
    /// The string with every `target` replaced (the core has no Foundation).
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}
