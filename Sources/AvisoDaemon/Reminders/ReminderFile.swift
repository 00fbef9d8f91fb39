import AvisoCore
import AvisoProtocol

/// Parses one reminder file (GLib key-file format): each `[Reminder NAME]` group declares the request NAME, each
/// `[Item NAME]` an item whose reminders follow from its log; it may also declare `[Action NAME]` and
/// `[Category NAME]` groups, as aviso.conf does.
///
/// ```
/// [Reminder medication]
/// Title=Medication
/// Body=Two pills with water
/// OnCalendar=*-*-* 09:00
/// Priority=0
/// ```
/// Exactly one of `OnCalendar=`, `At=` and `Every=` says when. A mistake in a group rejects that reminder alone (the
/// caller keeps its last good version) and the rest of the file loads; a file that is not key-file text at all is
/// rejected whole. Unknown keys and groups are warnings. Every problem names the file and line. Items follow the
/// same rules (`ItemBuilder`).
public enum ReminderFile {
    /// The largest reminder file read (1 MiB).
    public static let maximumFileSize = 1 << 20

    /// A key a `[Reminder NAME]` group may hold, the most common first. A reader of 100,000 reminders meets half a
    /// million keys: each is compared with these names in turn, not hashed, and looked up again by number.
    enum Key: Int, CaseIterable {
        case title, body, onCalendar, every, at, timeZone, category, subtitle, thread, relevance, level, priority, image,
             maxLate, dst

        /// As written in the file.
        var name: String { Self.names[rawValue] }
        private static let names = [
            "Title", "Body", "OnCalendar", "Every", "At", "TimeZone", "Category", "Subtitle", "Thread", "Relevance",
            "Level", "Priority", "Image", "MaxLate", "DST",
        ]

        /// Whether its escapes (`\n` for a new line) are interpreted, as GKeyFile strings.
        var isText: Bool { self == .title || self == .body || self == .subtitle }

        /// The key called `name`, if it is one.
        init?(named name: String) {
            guard let i = Self.names.firstIndex(where: { $0.isSame(as: name) }) else { return nil }
            self.init(rawValue: i)
        }
    }

    /// The keys a `[Reminder NAME]` group may hold.
    public static let knownKeys = Set(Key.allCases.map(\.name))

    /// The keys an `[Item NAME]` group may hold.
    public static var itemKeys: Set<String> { ItemBuilder.knownKeys }

    static let groupPrefix = "Reminder "
    /// Keys whose escapes are interpreted in items too.
    static let textKeys: Set<String> = Set(Key.allCases.filter(\.isText).map(\.name))

    /// What one parse found.
    public struct Result: Sendable {
        /// The reminders that parsed, in file order.
        public var reminders: [DeclaredReminder]
        /// Why nothing in the file could be read (not UTF-8 text, a syntax error); empty when it could.
        public var fileErrors: [ConfigProblem]
        /// Reminders refused for mistakes of their own, in file order; the rest of the file is unaffected.
        public var rejected: [Rejected]
        public var warnings: [ConfigProblem]
        /// The items that parsed, in file order.
        public var items: [DeclaredItem] = []
        /// Items refused for mistakes of their own.
        public var rejectedItems: [Rejected] = []
        /// The file's `[Action NAME]` and `[Category NAME]` groups (those with mistakes left out).
        var presentation = PresentationGroups()
        /// Mistakes in action and category groups; the other groups stand.
        public var groupErrors: [ConfigProblem] = []

        /// Every error: the file's, each rejected reminder's, then the action and category groups'.
        public var errors: [ConfigProblem] {
            fileErrors + rejected.flatMap(\.problems) + rejectedItems.flatMap(\.problems) + groupErrors
        }
    }

    /// A reminder that did not parse, and why.
    public struct Rejected: Error, Sendable {
        /// NAME of its `[Reminder NAME]` group (possibly not a valid identifier).
        public var name: String
        public var problems: [ConfigProblem]
    }

    /// Reads and parses the file at `path`; a missing or unreadable file is one error.
    public static func load(path: String, zones: ZoneLookup, environment: [String: String] = [:]) -> Result {
        switch FileBytes.read(path, limit: maximumFileSize, what: "the reminder file") {
        case .missing:
            return Result(reminders: [], fileErrors: [ConfigProblem(file: path, line: nil, message: "the reminder file does not exist")],
                          rejected: [], warnings: [])
        case .failed(let why):
            return Result(reminders: [], fileErrors: [ConfigProblem(file: path, line: nil, message: why)], rejected: [], warnings: [])
        case .read(let bytes, _):
            return parse(bytes, file: path, zones: zones, environment: environment)
        }
    }

    /// Parses key-file text; `file` names it in problems and in the reminders. Never traps, whatever the bytes.
    public static func parse(_ bytes: [UInt8], file: String, zones: ZoneLookup, environment: [String: String] = [:]) -> Result {
        parse(bytes, file: file, zones: zones, environment: environment, specs: CalendarSpecCache())
    }

    /// `specs`: calendar specs already parsed in this reading of the directory.
    static func parse(_ bytes: [UInt8], file: String, zones: ZoneLookup, environment: [String: String],
                      specs: CalendarSpecCache) -> Result {
        var problems = ProblemCollector(file: file)
        var rejected: [Rejected] = []
        var reminders: [DeclaredReminder] = []
        var items: [DeclaredItem] = []
        var rejectedItems: [Rejected] = []
        var presentation = PresentationGroups()
        var groupProblems = ProblemCollector(file: file)
        func done() -> Result {
            Result(reminders: reminders, fileErrors: problems.errors, rejected: rejected,
                   warnings: problems.warnings + groupProblems.warnings, items: items, rejectedItems: rejectedItems,
                   presentation: presentation, groupErrors: groupProblems.errors)
        }
        let keyFile = KeyFile(bytes)
        if let line = keyFile.binaryLine {
            problems.error(line, "the file is not UTF-8 text (line \(line) has invalid bytes); is it a reminder file?")
            return done()
        }
        if let syntax = keyFile.error {
            problems.error(syntax.line, "syntax error: \(syntax.message)")
            return done()
        }
        presentation.read(keyFile, file: file, into: &groupProblems) {
            ProgramPath.problem($0, path: environment["PATH"])
        }
        // The titles and bodies of this version of the file, in one buffer; its contents' extras, each kept once.
        let texts = TextArena()
        let extras = SharedExtras()
        defer { texts.finish() }
        for g in keyFile.groupList {
            let (group, groupLine) = (g.name, Optional(g.line))
            // A reminder first, the group nearly every one is; the prefixes start with different letters.
            guard let named = group.after(asciiPrefix: groupPrefix) else {
                if PresentationGroups.handles(group) { continue }
                if group.after(asciiPrefix: ItemBuilder.groupPrefix) != nil {
                    switch item(g, in: keyFile, file: file, warnings: &problems) {
                    case .success(let declared): items.append(declared)
                    case .failure(let r): rejectedItems.append(r)
                    }
                } else {
                    problems.warning(groupLine, "group [\(group)] is ignored; a reminder file declares [Reminder NAME], "
                        + "[Item NAME], [Action NAME] and [Category NAME] groups")
                }
                continue
            }
            let name = String(named).trimmed(" \t")
            do throws(ValidationError) {
                try Request.validateIdentifier(name)
            } catch {
                rejected.append(Rejected(name: name, problems: [
                    ConfigProblem(file: file, line: groupLine, message: "[\(group)]: reminder name: \(error.message)"),
                ]))
                continue
            }
            var values = ReminderValues()
            for entry in g.entries {
                guard let key = Key(named: entry.key) else {
                    problems.warning(entry.line, "unknown key '\(entry.key)' in [\(group)] is ignored (known: \(knownKeys.sorted().joined(separator: ", ")))")
                    continue
                }
                switch key {
                case .title: values.title = keyFile.text(of: entry, in: texts)
                case .body: values.body = keyFile.text(of: entry, in: texts)
                default:
                    values[key] = (key.isText ? keyFile.string(of: entry) : keyFile.trimmedValue(of: entry), entry.line)
                }
            }
            var builder = ReminderBuilder(name: name, group: group, groupLine: groupLine, values: values, zones: zones,
                                          specs: specs, texts: texts, extras: extras)
            let built = builder.build()
            problems.warnings += builder.warnings.map { ConfigProblem(file: file, line: $0.line, message: $0.message) }
            if let (request, triggerLine) = built {
                reminders.append(DeclaredReminder(request: request, file: file, line: groupLine ?? 1, triggerLine: triggerLine,
                                                  categoryLine: values[.category]?.line))
            } else {
                rejected.append(Rejected(name: name, problems: builder.problems.map {
                    ConfigProblem(file: file, line: $0.line, message: $0.message)
                }))
            }
        }
        return done()
    }

    /// One `[Item NAME]` group, or why it was refused.
    private static func item(_ g: KeyFile.Group, in keyFile: KeyFile, file: String,
                             warnings: inout ProblemCollector) -> Swift.Result<DeclaredItem, Rejected> {
        let (group, groupLine) = (g.name, Optional(g.line))
        let name = String(group.dropFirst(ItemBuilder.groupPrefix.count)).trimmed(" \t")
        func refused(_ line: Int?, _ message: String) -> Swift.Result<DeclaredItem, Rejected> {
            .failure(Rejected(name: name, problems: [ConfigProblem(file: file, line: line, message: message)]))
        }
        do throws(ValidationError) {
            try Request.validateIdentifier(name)
            // Its reminders are item-NAME-YYYYMMDDTHHMMSSZ: they must be identifiers too.
            try Request.validateIdentifier(Item(name: name, kind: .event).requestID(at: .latestSupported))
        } catch {
            return refused(groupLine, "[\(group)]: item name: \(error.message)")
        }
        var values = GroupValues()
        for entry in g.entries {
            let key = entry.key
            guard ItemBuilder.knownKeys.contains(key) else {
                warnings.warning(entry.line, "unknown key '\(key)' in [\(group)] is ignored (known: \(ItemBuilder.knownKeys.sorted().joined(separator: ", ")))")
                continue
            }
            let text = textKeys.contains(key) || key == "NoLogBody"
            values[key] = (text ? keyFile.string(of: entry) : keyFile.trimmedValue(of: entry), entry.line)
        }
        var builder = ItemBuilder(name: name, group: group, groupLine: groupLine, values: values)
        guard let item = builder.build() else {
            return .failure(Rejected(name: name, problems: builder.problems.map {
                ConfigProblem(file: file, line: $0.line, message: $0.message)
            }))
        }
        return .success(DeclaredItem(item: item, file: file, line: groupLine ?? 1, categoryLine: values["Category"]?.line))
    }
}
