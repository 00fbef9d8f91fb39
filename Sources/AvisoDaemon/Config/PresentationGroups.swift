import AvisoCore
import AvisoProtocol

/// An action or a category with where it was declared.
public struct Declared<Value: Hashable & Sendable>: Hashable, Sendable {
    public var value: Value
    public var file: String
    /// The line of its `[Group]` header.
    public var line: Int
    /// The lines of its keys, for problems found later (an `Actions=` naming an action no file declares).
    public var keyLines: [String: Int]

    public init(value: Value, file: String, line: Int, keyLines: [String: Int] = [:]) {
        self.value = value
        self.file = file
        self.line = line
        self.keyLines = keyLines
    }

    /// Where a key (or, without one, the group) was written: "FILE:LINE".
    public func at(_ key: String? = nil) -> (file: String, line: Int) {
        (file, key.flatMap { keyLines[$0] } ?? line)
    }
}

/// The `[Action NAME]` and `[Category NAME]` groups of one key file (aviso.conf or a reminder file).
///
/// Each group is checked on its own, every problem with its line; a group with a mistake is left out and the others
/// stand. References between groups (a category's actions) are checked once every file is read (`CategoryBook`).
struct PresentationGroups: Hashable, Sendable {
    static let actionPrefix = "Action "
    static let categoryPrefix = "Category "
    static let actionKeys: Set<String> = ["Label", "Run", "Input", "Placeholder", "Submit", "Destructive", "Foreground"]
    static let categoryKeys: Set<String> = [
        "Actions", "DefaultAction", "Dismiss", "HiddenPreviews", "ShowTitle", "Sound", "Thread", "Level", "ThreadSummary",
        "Delivery", "ContentHook", "HookTimeout", "HookMemory",
    ]

    var actions: [Declared<Action>] = []
    var categories: [Declared<NotificationCategory>] = []

    /// Whether `group` is one of these.
    static func handles(_ group: String) -> Bool {
        // Told by the first byte for nearly every group (a reminder file of 100,000 reminders has as many groups).
        switch group.utf8.first {
        case UInt8(ascii: "A"): group.after(asciiPrefix: actionPrefix) != nil
        case UInt8(ascii: "C"): group.after(asciiPrefix: categoryPrefix) != nil
        default: false
        }
    }

    /// Reads the action and category groups of `keyFile`; problems go into `problems` with their lines. `findProgram`
    /// says whether an `exec` program can be run (nil) or why not.
    mutating func read(
        _ keyFile: KeyFile, file: String, into problems: inout ProblemCollector,
        findProgram: (String) -> String?
    ) {
        for group in keyFile.groups() where Self.handles(group) {
            let isAction = group.hasPrefix(Self.actionPrefix)
            let name = String(group.dropFirst(isAction ? Self.actionPrefix.count : Self.categoryPrefix.count)).trimmed(" \t")
            let groupLine = keyFile.line(ofGroup: group) ?? 1
            var values: [String: (value: String, line: Int?)] = [:]
            var keyLines: [String: Int] = [:]
            for key in keyFile.keys(in: group) {
                let line = keyFile.line(ofKey: key, in: group)
                let known = isAction ? Self.actionKeys : Self.categoryKeys
                guard known.contains(key) else {
                    problems.warning(line, "unknown key '\(key)' in [\(group)] is ignored (known: \(known.sorted().joined(separator: ", ")))")
                    continue
                }
                values[key] = ((keyFile.string(group, key) ?? "").trimmed(), line)
                if let line { keyLines[key] = line }
            }
            let errorsBefore = problems.errors.count
            var reader = GroupReader(group: group, values: values, problems: problems)
            if !Self.isName(name) {
                reader.fail(nil, "'\(name)' is not a name: use letters, digits, '-', '_' and '.'")
                problems = reader.problems
                continue
            }
            if isAction {
                let action = reader.action(name, findProgram: findProgram)
                problems = reader.problems
                if let action, problems.errors.count == errorsBefore {
                    actions.append(Declared(value: action, file: file, line: groupLine, keyLines: keyLines))
                }
            } else {
                let directory = file.lastIndex(of: "/").map { String(file[..<$0]) } ?? "."
                let category = reader.category(name, directory: directory, findProgram: findProgram)
                problems = reader.problems
                if problems.errors.count == errorsBefore {
                    categories.append(Declared(value: category, file: file, line: groupLine, keyLines: keyLines))
                }
            }
        }
    }

    /// Names are what a person types in `avisoctl respond ID NAME` and what servers send back as action keys.
    static func isName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64 && name != "default" && name != "inline-reply"
            && name.unicodeScalars.allSatisfy { ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0)) }
    }
}

/// The keys of one group, read into an action or a category.
private struct GroupReader {
    let group: String
    let values: [String: (value: String, line: Int?)]
    var problems: ProblemCollector

    mutating func fail(_ line: Int?, _ message: String) {
        problems.error(line, "[\(group)] \(message)")
    }

    func text(_ key: String) -> String? { values[key].flatMap { $0.value.isEmpty ? nil : $0.value } }

    mutating func bool(_ key: String) -> Bool? {
        guard let (value, line) = values[key] else { return nil }
        switch value.lowercased() {
        case "true", "yes", "1": return true
        case "false", "no", "0": return false
        default:
            fail(line, "\(key)='\(value)' is not true or false")
            return nil
        }
    }

    mutating func action(_ name: String, findProgram: (String) -> String?) -> Action? {
        guard let (run, line) = values["Run"] else {
            fail(nil, "says nothing to do: give Run= with one of \(ActionVerb.names.joined(separator: ", "))")
            return nil
        }
        let verb: ActionVerb
        do throws(ValidationError) {
            verb = try ActionVerb.parse(run)
        } catch {
            fail(line, error.message)
            return nil
        }
        let input = bool("Input") ?? false
        if case .change = verb, !input {
            fail(line, "Run=change replaces the body with typed text: add Input=true")
        }
        if case .exec(let argv) = verb, let why = findProgram(argv[0]) {
            fail(line, "Run=\(run): \(why)")
        }
        return Action(
            name: name, label: text("Label") ?? name, verb: verb, input: input, placeholder: text("Placeholder") ?? "",
            submit: text("Submit") ?? "", destructive: bool("Destructive") ?? false, foreground: bool("Foreground") ?? false)
    }

    mutating func category(_ name: String, directory: String, findProgram: (String) -> String?) -> NotificationCategory {
        var c = NotificationCategory(name: name)
        if let (value, _) = values["Actions"] {
            c.actions = value.split(whereSeparator: { $0 == ";" || $0 == "," }).map { String($0).trimmed() }.filter { !$0.isEmpty }
        }
        c.defaultAction = text("DefaultAction")
        c.dismissAction = text("Dismiss")
        if let (value, line) = values["HiddenPreviews"] {
            if let p = HiddenPreviews(rawValue: value.lowercased()) { c.hiddenPreviews = p } else {
                fail(line, "HiddenPreviews='\(value)' is not one of never, when-locked, always")
            }
        }
        c.showTitle = bool("ShowTitle")
        c.sound = text("Sound")
        c.thread = text("Thread")
        if let (value, line) = values["Level"] {
            do throws(ValidationError) { c.level = try InterruptionLevel.parse(value) } catch { fail(line, "Level: \(error.message)") }
        }
        c.threadSummary = text("ThreadSummary")
        if let (value, line) = values["Delivery"] {
            if let d = DeliveryMode(rawValue: value.lowercased()) { c.delivery = d } else {
                fail(line, "Delivery='\(value)' is not one of immediate, summary")
            }
        }
        c.hook = hook(directory: directory, findProgram: findProgram)
        return c
    }

    /// `ContentHook=` with its budget. A relative path with a '/' ("hooks/weather") is taken from the directory of
    /// the file that declares it; a bare name is looked up in PATH. A program that cannot be run now is a warning,
    /// not an error: it is tried at each delivery (it may be installed later), and the original content is shown
    /// while it fails.
    mutating func hook(directory: String, findProgram: (String) -> String?) -> ContentHook? {
        guard let (command, line) = values["ContentHook"] else {
            for key in ["HookTimeout", "HookMemory"] where values[key] != nil {
                problems.warning(values[key]?.line, "[\(group)] \(key)= without ContentHook= is ignored")
            }
            return nil
        }
        var hook: ContentHook
        do throws(ValidationError) {
            let argv = try CommandLineWords.split(command)
            guard !argv.isEmpty else {
                fail(line, "ContentHook= is empty; give a program and its arguments (no shell)")
                return nil
            }
            hook = ContentHook(argv: argv)
            if argv[0].contains("/"), !argv[0].hasPrefix("/") { hook.argv[0] = directory + "/" + argv[0] }
        } catch {
            fail(line, "ContentHook='\(command)': \(error.message)")
            return nil
        }
        if let why = findProgram(hook.argv[0]) {
            problems.warning(line, "[\(group)] ContentHook=\(hook.argv[0]): \(why); the original content is shown until it can run")
        }
        if let (value, line) = values["HookTimeout"] {
            do throws(ValidationError) {
                let span = try TimeSpan.parse(value)
                if span <= .zero || span > ContentHook.maximumTimeout {
                    fail(line, "HookTimeout=\(value) is not within 0 and \(TimeSpan.format(ContentHook.maximumTimeout))")
                } else {
                    hook.timeout = span
                }
            } catch {
                fail(line, "HookTimeout: \(error.message)")
            }
        }
        if let (value, line) = values["HookMemory"] {
            do throws(ValidationError) {
                let bytes = try ByteSize.parse(value)
                if bytes < ContentHook.minimumMemory {
                    fail(line, "HookMemory=\(value) is less than \(ByteSize.format(ContentHook.minimumMemory)), too little for any program to start")
                } else {
                    hook.memory = bytes
                }
            } catch {
                fail(line, "HookMemory: \(error.message)")
            }
        }
        return hook
    }
}
