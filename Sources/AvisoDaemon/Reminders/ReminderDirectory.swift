import AvisoCore
import AvisoProtocol
import Glibc

/// The declared reminders of a `reminders/` directory, kept in step with its files.
///
/// Owned by the scheduler actor (not Sendable). `reload(changed:)` re-reads only files whose identity (device,
/// inode, size, mtime, ctime) changed or that the caller names, and re-parses only when the bytes differ. A reminder
/// whose new version has errors keeps its last good version in effect while the rest of its file loads; a file that
/// cannot be read as key-file text at all keeps its whole last good version. Problems are reported either way. A
/// file that is deleted or moved away takes its reminders with it. A NAME declared in two files is an error naming both: the
/// file first in sorted path order keeps it.
///
/// Files are `*.conf` directly in the directory (no recursion); names starting with '.' (editor temp files) are
/// skipped. A missing directory means no reminders and no problem.
public final class ReminderDirectory {
    private struct FileState {
        var identity: FileBytes.FileIdentity?
        var hash: UInt64?
        /// The reminders of the last version that parsed without errors.
        var good: [DeclaredReminder] = []
        /// Its items, likewise.
        var goodItems: [DeclaredItem] = []
        /// Its action and category groups (those with mistakes left out), from the last version that could be read.
        var presentation = PresentationGroups()
        var errors: [ConfigProblem] = []
        var warnings: [ConfigProblem] = []
    }

    /// The directory, without a trailing '/'.
    public let path: String
    private let zones: ZoneLookup
    /// For PATH, where `exec` actions are looked up.
    private let environment: [String: String]
    private var files: [String: FileState] = [:]
    private var directoryProblem: ConfigProblem?
    private var duplicates: [ConfigProblem] = []

    /// Every declared reminder in effect, by identifier.
    public private(set) var reminders: [String: DeclaredReminder] = [:]
    /// Every item in effect, by name.
    public private(set) var items: [String: DeclaredItem] = [:]

    /// Errors: files and reminders rejected (their last good versions stay), names declared twice; by file and line.
    public var problems: [ConfigProblem] {
        let perFile = files.keys.sorted().flatMap { files[$0]!.errors }
        return (directoryProblem.map { [$0] } ?? []) + perFile + duplicates
    }

    /// Things ignored (unknown keys and groups), by file.
    public var warnings: [ConfigProblem] { files.keys.sorted().flatMap { files[$0]!.warnings } }

    /// The action and category groups of every file, in sorted path order.
    var presentationSources: [PresentationGroups] { files.keys.sorted().map { files[$0]!.presentation } }

    /// Watches nothing by itself: call `reload` when files may have changed. Nothing is read until then.
    public init(path: String, zones: ZoneLookup, environment: [String: String] = [:]) {
        var p = path
        while p.count > 1 && p.hasSuffix("/") { p.removeLast() }
        self.path = p
        self.zones = zones
        self.environment = environment
    }

    /// Brings the model up to date with the directory and says which reminders changed.
    ///
    /// `changed` names paths known to have changed (full paths; they are re-read even if their identity looks the
    /// same); nil rescans everything with the same identity check. The directory is always listed, so files
    /// created or removed are noticed either way.
    @discardableResult
    public func reload(changed: Set<String>? = nil) -> ReminderChanges {
        let before = reminders
        let itemsBefore = items
        let groupsBefore = presentationSources
        let listed = listFiles()
        for gone in files.keys where !listed.contains(gone) { files[gone] = nil }
        for file in listed.sorted() {
            let forced = changed?.contains(file) ?? false
            refresh(file, forced: forced)
        }
        merge()
        var changes = Self.difference(from: before, to: reminders)
        changes.presentation = Self.declarations(presentationSources) != Self.declarations(groupsBefore)
        changes.items = items != itemsBefore
        return changes
    }

    /// When `file` was last modified, as of its last reading; nil when it was never read.
    public func modificationTime(of file: String) -> WallTime? {
        guard let identity = files[file]?.identity else { return nil }
        return WallTime(seconds: identity.modifiedSeconds) + Span(nanoseconds: identity.modifiedNanoseconds)
    }

    /// Parses every file again even if unchanged: for a time-zone change, which moves `At=` times without a zone.
    @discardableResult
    public func reparseAll() -> ReminderChanges {
        for file in files.keys {
            files[file]?.identity = nil
            files[file]?.hash = nil
        }
        return reload(changed: nil)
    }

    private func refresh(_ file: String, forced: Bool) {
        var state = files[file] ?? FileState()
        let identity = FileBytes.identity(file)
        if !forced, identity != nil, identity == state.identity { return }
        switch FileBytes.read(file, limit: ReminderFile.maximumFileSize, what: "the reminder file") {
        case .missing:
            files[file] = nil
            return
        case .failed(let why):
            state.identity = identity
            state.hash = nil
            state.errors = [ConfigProblem(file: file, line: nil, message: why + keptNote(state))]
            state.warnings = []
        case .read(let bytes, let readIdentity):
            state.identity = readIdentity
            let hash = Self.fnv1a(bytes)
            if hash == state.hash && state.errors.isEmpty { break }
            state.hash = hash
            let result = ReminderFile.parse(bytes, file: file, zones: zones, environment: environment)
            state.warnings = result.warnings
            if !result.fileErrors.isEmpty {
                let note = keptNote(state)
                state.errors = result.fileErrors.map { ConfigProblem(file: $0.file, line: $0.line, message: $0.message + note) }
                break
            }
            let reminders = Self.keepingLastGood(result.reminders, rejected: result.rejected, previous: state.good) {
                $0.request.id
            }
            let items = Self.keepingLastGood(result.items, rejected: result.rejectedItems, previous: state.goodItems) {
                $0.item.name
            }
            (state.good, state.goodItems) = (reminders.good, items.good)
            state.errors = reminders.errors + items.errors
            state.presentation = result.presentation
            state.errors += result.groupErrors
        }
        files[file] = state
    }

    /// Each rejected declaration keeps its last good version, if it had one; the others take their new one.
    private static func keepingLastGood<T>(_ parsed: [T], rejected: [ReminderFile.Rejected], previous: [T],
                                           name: (T) -> String) -> (good: [T], errors: [ConfigProblem]) {
        let last = Dictionary(previous.map { (name($0), $0) }, uniquingKeysWith: { a, _ in a })
        var kept: [T] = []
        let errors = rejected.flatMap { r -> [ConfigProblem] in
            guard let good = last[r.name] else { return r.problems }
            kept.append(good)
            return r.problems.map {
                ConfigProblem(file: $0.file, line: $0.line, message: $0.message + " (its last good version stays in effect)")
            }
        }
        return (parsed + kept, errors)
    }

    private func keptNote(_ state: FileState) -> String {
        state.good.isEmpty ? "" : " (the last good version of this file stays in effect)"
    }

    /// Lays the files' good reminders and items over each other in sorted path order, reporting names declared
    /// twice.
    private func merge() {
        duplicates = []
        let sorted = files.keys.sorted().map { files[$0]! }
        reminders = merged(sorted.flatMap(\.good), what: "reminder") { ($0.request.id, $0.file, $0.line) }
        items = merged(sorted.flatMap(\.goodItems), what: "item") { ($0.item.name, $0.file, $0.line) }
    }

    /// The first declaration of each name; a later one is a problem at its line.
    private func merged<T>(_ declared: [T], what: String, _ place: (T) -> (name: String, file: String, line: Int)) -> [String: T] {
        var table: [String: T] = [:]
        for d in declared {
            let (name, file, line) = place(d)
            if let first = table[name].map(place) {
                duplicates.append(ConfigProblem(file: file, line: line, message: """
                    \(what) '\(name)' is also declared in \(first.file) (line \(first.line)); that one is used. \
                    Rename one of them
                    """))
                continue
            }
            table[name] = d
        }
        return table
    }

    /// The `*.conf` files directly in the directory, as full paths.
    private func listFiles() -> [String] {
        directoryProblem = nil
        guard let dir = opendir(path) else {
            let e = errno
            if e != ENOENT && e != ENOTDIR {
                directoryProblem = ConfigProblem(file: path, line: nil,
                                                 message: "cannot read the reminders directory: \(String(cString: strerror(e)))")
            } else if e == ENOTDIR {
                directoryProblem = ConfigProblem(file: path, line: nil, message: "the reminders path is not a directory")
            }
            return []
        }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { tuple in
                tuple.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: tuple.pointee)) {
                    String(cString: $0)
                }
            }
            guard !name.hasPrefix("."), name.hasSuffix(".conf"), name.count > 5 else { continue }
            names.append(path + "/" + name)
        }
        return names
    }

    private static func difference(from old: [String: DeclaredReminder], to new: [String: DeclaredReminder]) -> ReminderChanges {
        var changes = ReminderChanges()
        for (id, reminder) in new {
            if let previous = old[id] {
                if previous.request != reminder.request { changes.updated.insert(id) }
            } else {
                changes.added.insert(id)
            }
        }
        for id in old.keys where new[id] == nil { changes.removed.insert(id) }
        return changes
    }

    /// The actions and categories of a set of files, whichever files they are in.
    private static func declarations(_ sources: [PresentationGroups]) -> [String] {
        (sources.flatMap { $0.actions.map { "\($0)" } } + sources.flatMap { $0.categories.map { "\($0)" } }).sorted()
    }

    /// FNV-1a, 64 bits: enough to tell a rewrite with new bytes from a touch.
    private static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return h
    }
}
