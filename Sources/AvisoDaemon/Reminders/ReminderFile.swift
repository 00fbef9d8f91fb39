import AvisoCore
import AvisoProtocol

/// Parses one reminder file (GLib key-file format): each `[Reminder NAME]` group declares the request NAME.
///
/// ```
/// [Reminder medication]
/// Title=Medication
/// Body=Two pills with water
/// OnCalendar=*-*-* 09:00
/// Priority=0
/// ```
/// Exactly one of `OnCalendar=`, `At=` and `Every=` says when. Any error rejects the whole file (the caller keeps
/// its last good version); unknown keys and groups are warnings. Every problem names the file and line.
public enum ReminderFile {
    /// The largest reminder file read (1 MiB).
    public static let maximumFileSize = 1 << 20

    /// The keys a `[Reminder NAME]` group may hold.
    public static let knownKeys: Set<String> = [
        "Title", "Subtitle", "Body", "OnCalendar", "TimeZone", "At", "Every", "Thread", "Category", "Relevance",
        "Level", "Priority", "Image", "MaxLate", "DST",
    ]

    static let groupPrefix = "Reminder "
    /// Keys whose escapes (`\n` for a new line) are interpreted, as GKeyFile strings.
    static let textKeys: Set<String> = ["Title", "Subtitle", "Body"]

    /// What one parse found.
    public struct Result: Sendable {
        /// The reminders, in file order; empty when `errors` is not.
        public var reminders: [DeclaredReminder]
        public var errors: [ConfigProblem]
        public var warnings: [ConfigProblem]
    }

    /// Reads and parses the file at `path`; a missing or unreadable file is one error.
    public static func load(path: String, zones: ZoneLookup) -> Result {
        switch FileBytes.read(path, limit: maximumFileSize, what: "the reminder file") {
        case .missing:
            return Result(reminders: [], errors: [ConfigProblem(file: path, line: nil, message: "the reminder file does not exist")], warnings: [])
        case .failed(let why):
            return Result(reminders: [], errors: [ConfigProblem(file: path, line: nil, message: why)], warnings: [])
        case .read(let bytes, _):
            return parse(bytes, file: path, zones: zones)
        }
    }

    /// Parses key-file text; `file` names it in problems and in the reminders. Never traps, whatever the bytes.
    public static func parse(_ bytes: [UInt8], file: String, zones: ZoneLookup) -> Result {
        var problems = ProblemCollector(file: file)
        func done(_ reminders: [DeclaredReminder]) -> Result {
            Result(reminders: problems.errors.isEmpty ? reminders : [], errors: problems.errors, warnings: problems.warnings)
        }
        let lines = KeyFileLines(bytes)
        if let line = lines.firstBinaryLine {
            problems.error(line, "the file is not UTF-8 text (line \(line) has invalid bytes); is it a reminder file?")
            return done([])
        }
        guard let keyFile = KeyFile(bytes) else {
            problems.error(nil, "the file could not be parsed (out of memory)")
            return done([])
        }
        defer { keyFile.free() }
        if let why = keyFile.loadError {
            problems.error(lines.firstBadLine, "syntax error: \(why); lines must be [Reminder NAME], Key=Value or # comments")
            return done([])
        }
        var reminders: [DeclaredReminder] = []
        for group in keyFile.groups() {
            let groupLine = lines.line(ofGroup: group)
            guard group.hasPrefix(groupPrefix) else {
                problems.warning(groupLine, "group [\(group)] is ignored; reminders are declared as [Reminder NAME]")
                continue
            }
            let name = String(group.dropFirst(groupPrefix.count)).trimmed(" \t")
            do throws(ValidationError) {
                try Request.validateIdentifier(name)
            } catch {
                problems.error(groupLine, "[\(group)]: reminder name: \(error.message)")
                continue
            }
            var values: [String: (value: String, line: Int?)] = [:]
            for key in keyFile.keys(in: group) {
                let line = lines.line(ofKey: key, in: group)
                guard knownKeys.contains(key) else {
                    problems.warning(line, "unknown key '\(key)' in [\(group)] is ignored (known: \(knownKeys.sorted().joined(separator: ", ")))")
                    continue
                }
                let text = textKeys.contains(key) ? keyFile.string(group, key) : nil
                values[key] = (text ?? (keyFile.value(group, key) ?? "").trimmed(), line)
            }
            var builder = ReminderBuilder(name: name, group: group, groupLine: groupLine, values: values, zones: zones)
            if let request = builder.build() {
                reminders.append(DeclaredReminder(request: request, file: file, line: groupLine ?? 1))
            }
            problems.errors += builder.problems.map { ConfigProblem(file: file, line: $0.line, message: $0.message) }
            problems.warnings += builder.warnings.map { ConfigProblem(file: file, line: $0.line, message: $0.message) }
        }
        return done(reminders)
    }
}
