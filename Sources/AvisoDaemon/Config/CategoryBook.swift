import AvisoCore
import AvisoProtocol

/// Every action and category in effect, from aviso.conf and the reminder files, with their references checked.
///
/// A name declared twice is an error at the second place, naming the first (which is kept). A category naming an
/// action that nothing declares is an error at its line, and the reference is dropped; the rest of the category
/// stands. The freedesktop categories ("im.received") are known without being declared and have no actions.
///
/// The category of items' reminders, `item`, with its actions `log` ("Log ✓") and `later` (snooze 1h), is built in:
/// a file that declares any of these names replaces that one (to translate a label, say).
public struct CategoryBook: Hashable, Sendable {
    public private(set) var actions: [String: Declared<Action>] = [:]
    public private(set) var categories: [String: Declared<NotificationCategory>] = [:]
    public private(set) var problems: [ConfigProblem] = []

    public init() {}

    /// The actions and categories of aviso.conf and of the reminder files, in that order.
    public init(configuration: Configuration, reminders: ReminderDirectory?) {
        self.init([configuration.groups] + (reminders?.presentationSources ?? []))
    }

    /// Lays the groups of each source over the ones before, in order.
    init(_ sources: [PresentationGroups]) {
        for source in sources {
            Self.keepFirst(source.actions, named: \.name, group: "Action", in: &actions, problems: &problems)
            Self.keepFirst(source.categories, named: \.name, group: "Category", in: &categories, problems: &problems)
        }
        for a in Self.builtInActions where actions[a.name] == nil { actions[a.name] = Declared(value: a, file: "(built in)", line: 0) }
        if categories[Self.itemCategory.name] == nil {
            categories[Self.itemCategory.name] = Declared(value: Self.itemCategory, file: "(built in)", line: 0)
        }
        for (name, var c) in categories {
            let refs: [(key: String, names: [String])] = [
                ("Actions", c.value.actions), ("DefaultAction", c.value.defaultAction.map { [$0] } ?? []),
                ("Dismiss", c.value.dismissAction.map { [$0] } ?? []),
            ]
            for (key, names) in refs {
                for unknown in names where actions[unknown] == nil {
                    let at = c.at(key)
                    problems.append(ConfigProblem(file: at.file, line: at.line, message: """
                        [Category \(name)] \(key)= names the action '\(unknown)', which no [Action \(unknown)] group \
                        declares\(actions.isEmpty ? "" : " (declared: \(actions.keys.sorted().joined(separator: ", ")))")
                        """))
                }
            }
            c.value.actions.removeAll { actions[$0] == nil }
            if let d = c.value.defaultAction, actions[d] == nil { c.value.defaultAction = nil }
            if let d = c.value.dismissAction, actions[d] == nil { c.value.dismissAction = nil }
            categories[name] = c
        }
        problems.sort { ($0.file, $0.line ?? 0) < ($1.file, $1.line ?? 0) }
    }

    /// The category of items' reminders unless a file declares `[Category item]`.
    public static let itemCategory = NotificationCategory(name: "item", actions: ["log", "later"])
    static let builtInActions = [
        Action(name: "log", label: "Log ✓", verb: .log),
        Action(name: "later", label: "Later", verb: .snooze(.seconds(3600))),
    ]

    /// Adds each declaration to `table` unless its name is there already, which is a problem at the later one.
    private static func keepFirst<T>(
        _ declared: [Declared<T>], named name: KeyPath<T, String>, group: String, in table: inout [String: Declared<T>],
        problems: inout [ConfigProblem]
    ) {
        for d in declared {
            let key = d.value[keyPath: name]
            if let first = table[key] {
                problems.append(ConfigProblem(file: d.file, line: d.line, message: """
                    [\(group) \(key)] is also declared in \(first.file) (line \(first.line)); that one is used
                    """))
            } else {
                table[key] = d
            }
        }
    }

    /// Whether a request may name `category`: declared, or one of the freedesktop categories.
    public func knows(_ category: String) -> Bool {
        categories[category] != nil || NotificationCategory.isFreedesktop(category)
    }

    /// The category, when declared.
    public func category(_ name: String?) -> NotificationCategory? {
        name.flatMap { categories[$0]?.value }
    }

    /// The buttons of a category, in order, destructive ones last.
    public func buttons(of category: NotificationCategory) -> [Action] {
        let all = category.actions.compactMap { actions[$0]?.value }
        return all.filter { !$0.destructive } + all.filter(\.destructive)
    }

    /// The action called `name`.
    public func action(_ name: String) -> Action? { actions[name]?.value }

    /// Why a request cannot name `category`, or nil when it can.
    public func problem(naming category: String) -> String? {
        if knows(category) { return nil }
        let declared = categories.keys.sorted()
        return "unknown category '\(category)'; " + (declared.isEmpty
            ? "declare it as [Category \(category)] in aviso.conf or a reminder file"
            : "declared: \(declared.joined(separator: ", "))")
    }
}
