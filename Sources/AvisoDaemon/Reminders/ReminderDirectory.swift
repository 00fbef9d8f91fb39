import AvisoCore
import AvisoProtocol
import Glibc
import Synchronization

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
    fileprivate struct FileState {
        var identity: FileBytes.FileIdentity?
        var hash: UInt64?
        /// The reminders of the last version that parsed without errors.
        var good: [Declared] = []
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
    private var files = FileTable()
    private var directoryProblem: ConfigProblem?
    /// Each declared reminder name: the files that declare it, and where the one in effect is in its file's list.
    private var declarations = DeclarationTable()
    /// Whether, since the first reading and no reload after it, every name is declared once: in one file, at one
    /// position in its list (a name written twice in a file, or in two files, makes it false). Then a name found in
    /// a file's list is the declaration in effect.
    private var eachNameOnce = false
    /// Ends when the reading `startLoading()` began has; nil when none is under way.
    private var loading: Handoff<Never>?
    /// Names declared in more than one file.
    private var duplicateNames: Set<String> = []
    private var itemDuplicates: [ConfigProblem] = []

    /// Every declared reminder in effect, by identifier: a view of the files' declarations, which are held once.
    var reminders: DeclaredReminders { DeclaredReminders(files: files, declarations: declarations) }
    /// The declaration of `id` in effect, as `reminders[id]` finds it, without making the view: for a lookup of each
    /// of 100,000 names in a row.
    func declaration(_ id: String) -> DeclaredReminder? { Self.inEffect(id, files: files, declarations: declarations) }

    /// Where `declaration(_:from:after:)` looked last: a file, and the position after the last name found there.
    struct Cursor {
        fileprivate var path = ""
        fileprivate var file: Int32 = -1
        fileprivate var next = 0
    }

    /// `declaration(_:)` for names that come in their files' order, as a start reads the stored schedules: `source`
    /// is the file the name was stored from. Right after the first reading, when each name is declared once, the
    /// name is looked for first just after the last one found in that file (a comparison, where a lookup hashes it
    /// and reads three tables at places far apart); otherwise, and when it is not there, it is looked up.
    func declaration(_ id: String, from source: String, after cursor: inout Cursor) -> DeclaredReminder? {
        if source != cursor.path { cursor = Cursor(path: source, file: files.number(of: source) ?? -1, next: 0) }
        if eachNameOnce, cursor.file >= 0, let good = files.good(of: cursor.file), cursor.next < good.count,
           good[cursor.next].request.id == id {
            cursor.next += 1
            return good[cursor.next - 1].declared(in: source)
        }
        guard let d = declarations[id] else { return nil }
        if d.declarers?.first == cursor.file { cursor.next = Int(d.index) + 1 }
        return Self.inEffect(id, d, files: files)
    }

    /// How many names are declared.
    public var declaredCount: Int { declarations.keys.count }
    /// Every item in effect, by name.
    public private(set) var items: [String: DeclaredItem] = [:]

    /// Errors: files and reminders rejected (their last good versions stay), names declared twice; by file and line.
    public var problems: [ConfigProblem] {
        let perFile = files.keys.sorted().flatMap { files[$0]!.errors }
        return (directoryProblem.map { [$0] } ?? []) + perFile + duplicates + itemDuplicates
    }

    /// Each later declaration of a name declared in several files, at its line, naming the one in effect.
    private var duplicates: [ConfigProblem] {
        duplicateNames.sorted().flatMap { name -> [ConfigProblem] in
            let all = (declarations[name]?.declarers?.files ?? []).compactMap { declaration(of: name, in: files.path(of: $0)) }
            guard let first = all.first else { return [] }
            return all.dropFirst().map { d in
                ConfigProblem(file: d.file, line: d.line, message: """
                    reminder '\(name)' is also declared in \(first.file) (line \(first.line)); that one is used. \
                    Rename one of them
                    """)
            }
        }
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
    public func reload(changed: Set<String>? = nil) -> ReminderChanges { update(changed: changed, listingAdded: true) }

    /// Reads the whole directory, as `reload` does, without listing the reminders added: at start, when all of them
    /// are. After `startLoading()`, waits until that reading has ended instead.
    public func load() {
        if let loading {
            loading.drain()
            self.loading = nil
        } else {
            _ = update(changed: nil, listingAdded: false)
        }
    }

    /// Starts `load()`'s reading on a thread of its own (aviso-loading), so that a start reads the files while it
    /// opens the store and connects to the buses; `load()` then waits for it. The directory is that thread's alone
    /// until `load()` has returned: nothing else may be called meanwhile. With no thread to be had, `load()` reads.
    public func startLoading() {
        guard loading == nil else { return }
        let (done, directory) = (Handoff<Never>(capacity: 1), Lent(self))
        loading = done
        if KernelThread.start(name: "aviso-loading", {
            _ = directory.value.update(changed: nil, listingAdded: false)
            done.finish()
        }) != 0 {
            loading = nil
        }
    }

    private func update(changed: Set<String>?, listingAdded: Bool) -> ReminderChanges {
        // The previous state of each file whose declarations may have changed (nil: it is new).
        var touched: [String: FileState?] = [:]
        let listed = listFiles()
        for gone in files.keys where !listed.contains(gone) {
            touched[gone] = files[gone]
            files[gone] = nil
        }
        let sorted = listed.sorted()
        for (file, reading) in zip(sorted, read(sorted, forced: changed)) {
            let before = files[file]
            if apply(reading, to: file) { touched[file] = .some(before) }
        }
        var changes = ReminderChanges()
        guard !touched.isEmpty else { return changes }
        if declarations.isEmpty {
            firstDeclarations(sorted)
            if listingAdded { changes.added = Set(declarations.keys) }
        } else {
            eachNameOnce = false
            updateDeclarations(touched, into: &changes)
        }
        changes.presentation = touched.contains { file, before in
            (before?.presentation ?? PresentationGroups()) != (files[file]?.presentation ?? PresentationGroups())
        }
        let itemsBefore = items
        mergeItems()
        changes.items = items != itemsBefore
        return changes
    }

    /// Where each name is declared, when none was before (the first reading): files in sorted path order, so the
    /// first declaration of a name is the one in effect. One lookup per reminder, no list of what changed.
    private func firstDeclarations(_ sorted: [String]) {
        declarations.reserveCapacity(sorted.reduce(0) { $0 + (files[$1]?.good.count ?? 0) })
        eachNameOnce = true
        for file in sorted {
            guard let good = files[file]?.good, !good.isEmpty, let n = files.number(of: file) else { continue }
            for (i, d) in good.enumerated() {
                let id = d.request.id
                // One hash of the name when it is new (nearly always), where a lookup and then setting took three.
                guard let declarers = declarations.addIfAbsent(id, Declaration(declarers: .one(n), index: Int32(i)))?.declarers
                else { continue }
                eachNameOnce = false
                let more = declarers.with(n, at: file, in: files)
                if case .many = more {
                    declarations[id]?.declarers = more
                    duplicateNames.insert(id)
                }
            }
        }
    }

    /// Brings the declarations of the names the touched files declared before or declare now up to date, and says
    /// which of them were added, changed or removed. `touched`: each file's state before this reload (nil: new).
    private func updateDeclarations(_ touched: [String: FileState?], into changes: inout ReminderChanges) {
        // Only the names the touched files declared, or declare now, are looked at again: an edit of one file costs
        // what that file holds, not the whole directory.
        var affected: Set<String> = []
        for (file, before) in touched {
            for d in before?.good ?? [] { affected.insert(d.request.id) }
            for d in files[file]?.good ?? [] { affected.insert(d.request.id) }
        }
        // What was in effect before, for the comparison below: the files as they were, where the names pointed.
        var filesBefore = files
        for (file, before) in touched { filesBefore[file] = before }
        var before = DeclarationTable()
        for id in affected { if let d = declarations[id] { before[id] = d } }
        let previous = DeclaredReminders(files: filesBefore, declarations: before)
        // Where each affected name's declaration in effect now is: by position in the touched files (the usual case),
        // else searched for in the first declaring file (a name declared twice).
        var positions: [Int32: [String: Int]] = [:]
        for (file, before) in touched {
            // A file that declared nothing before or now may have no number.
            guard let n = files.number(of: file) else { continue }
            for d in before?.good ?? [] {
                let declarers = declarations[d.request.id]?.declarers?.without(n)
                declarations[d.request.id]?.declarers = declarers
            }
            var inFile: [String: Int] = [:]
            for (i, d) in (files[file]?.good ?? []).enumerated() {
                var declaration = declarations[d.request.id] ?? Declaration(declarers: nil, index: 0)
                declaration.declarers = declaration.declarers?.with(n, at: file, in: files) ?? .one(n)
                declarations[d.request.id] = declaration
                if inFile[d.request.id] == nil { inFile[d.request.id] = i }
            }
            positions[n] = inFile
        }
        for id in affected {
            guard let declarers = declarations[id]?.declarers else {
                declarations[id] = nil
                duplicateNames.remove(id)
                if previous[id] != nil { changes.removed.insert(id) }
                continue
            }
            let first = declarers.first
            let index = positions[first].map { $0[id] } ?? files.good(of: first)?.firstIndex { $0.request.id == id }
            declarations[id]?.index = Int32(index ?? 0)
            if case .many = declarers { duplicateNames.insert(id) } else { duplicateNames.remove(id) }
            let now = Self.inEffect(id, files: files, declarations: declarations)
            switch (previous[id], now) {
            case (nil, .some): changes.added.insert(id)
            case (let old?, let new?): if old.request != new.request { changes.updated.insert(id) }
            default: break
            }
        }
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

    /// The declaration of `name` in `file`'s last good version.
    private func declaration(of name: String, in file: String) -> DeclaredReminder? {
        files[file]?.good.first { $0.request.id == name }.map { $0.declared(in: file) }
    }

    /// What reading one file found, before anything here changes: files are read and parsed on several threads.
    private enum Reading: Sendable {
        /// Its identity is the one last seen: not read.
        case unchanged
        case missing
        case failed(FileBytes.FileIdentity?, String)
        /// Read, and the same bytes as its last version, which had no errors.
        case sameBytes(FileBytes.FileIdentity?)
        /// The reminders as the file's list holds them, made on the reading thread (`result.reminders` is then empty).
        case parsed(FileBytes.FileIdentity?, hash: UInt64, ReminderFile.Result, reminders: [Declared])
    }

    /// What a file's last reading left, for the next one to compare with.
    private struct Known: Sendable {
        var identity: FileBytes.FileIdentity?
        var hash: UInt64?
        var clean: Bool
    }

    /// The files worth reading again (`forced` names paths to read even with the same identity), read and parsed:
    /// a whole directory on up to four threads, as it is read at start; the files an edit names, on this one.
    private func read(_ paths: [String], forced: Set<String>?) -> [Reading] {
        let known = paths.map { p in files[p].map { Known(identity: $0.identity, hash: $0.hash, clean: $0.errors.isEmpty) } }
        let (zones, environment) = (self.zones, self.environment)
        let workers = forced == nil ? min(max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 1), 4) : 1
        let shared = CalendarSpecCache.Shared()
        let specs = (0..<workers).map { _ in CalendarSpecCache(sharing: shared) }
        let readings = Readings(count: paths.count)
        KernelThread.forEach(paths.count, workers: workers) { worker, i in
            let reading = Self.read(paths[i], forced: forced?.contains(paths[i]) ?? false, known: known[i], zones: zones,
                                    environment: environment, specs: specs[worker])
            readings.slots.withLock { $0[i] = reading }
        }
        return readings.slots.withLock { $0 }
    }

    private final class Readings: Sendable {
        let slots: Mutex<[Reading]>
        init(count: Int) { slots = Mutex(Array(repeating: .unchanged, count: count)) }
    }

    private static func read(_ file: String, forced: Bool, known: Known?, zones: ZoneLookup, environment: [String: String],
                             specs: CalendarSpecCache) -> Reading {
        let identity = FileBytes.identity(file)
        if !forced, identity != nil, identity == known?.identity { return .unchanged }
        switch FileBytes.read(file, limit: ReminderFile.maximumFileSize, what: "the reminder file") {
        case .missing:
            return .missing
        case .failed(let why):
            return .failed(identity, why)
        case .read(let bytes, let readIdentity):
            let hash = fnv1a(bytes)
            if hash == known?.hash && known?.clean == true { return .sameBytes(readIdentity) }
            var result = ReminderFile.parse(bytes, file: file, zones: zones, environment: environment, specs: specs)
            let reminders = result.reminders.map(Declared.init)
            result.reminders = []
            return .parsed(readIdentity, hash: hash, result, reminders: reminders)
        }
    }

    /// Takes in what reading `file` found; true when its declarations may have changed (it was parsed, failed, or is
    /// gone).
    private func apply(_ reading: Reading, to file: String) -> Bool {
        var state = files[file] ?? FileState()
        switch reading {
        case .unchanged:
            return false
        case .missing:
            files[file] = nil
            return true
        case .failed(let identity, let why):
            state.identity = identity
            state.hash = nil
            state.errors = [ConfigProblem(file: file, line: nil, message: why + keptNote(state))]
            state.warnings = []
        case .sameBytes(let identity):
            state.identity = identity
            files[file] = state
            return false
        case .parsed(let identity, let hash, let result, let parsed):
            state.identity = identity
            state.hash = hash
            state.warnings = result.warnings
            if !result.fileErrors.isEmpty {
                let note = keptNote(state)
                state.errors = result.fileErrors.map { ConfigProblem(file: $0.file, line: $0.line, message: $0.message + note) }
                break
            }
            let reminders = Self.keepingLastGood(parsed, rejected: result.rejected, previous: state.good) { $0.request.id }
            let items = Self.keepingLastGood(result.items, rejected: result.rejectedItems, previous: state.goodItems) {
                $0.item.name
            }
            (state.good, state.goodItems) = (reminders.good, items.good)
            state.errors = reminders.errors + items.errors
            state.presentation = result.presentation
            state.errors += result.groupErrors
        }
        files[file] = state
        return true
    }

    /// Each rejected declaration keeps its last good version, if it had one; the others take their new one.
    private static func keepingLastGood<T>(_ parsed: [T], rejected: [ReminderFile.Rejected], previous: [T],
                                           name: (T) -> String) -> (good: [T], errors: [ConfigProblem]) {
        // Nothing rejected, the usual case: the parsed list as it is, neither copied nor looked through.
        if rejected.isEmpty { return (parsed, []) }
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

    /// Lays the files' items over each other in sorted path order, reporting names declared twice. (Reminders are
    /// kept up to date name by name in `reload`.)
    private func mergeItems() {
        itemDuplicates = []
        var table: [String: DeclaredItem] = [:]
        for file in files.keys.sorted() {
            for d in files[file]!.goodItems {
                if let first = table[d.item.name] {
                    itemDuplicates.append(ConfigProblem(file: d.file, line: d.line, message: """
                        item '\(d.item.name)' is also declared in \(first.file) (line \(first.line)); that one is used. \
                        Rename one of them
                        """))
                    continue
                }
                table[d.item.name] = d
            }
        }
        items = table
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

    /// The declaration of `id` in effect: at its position in its first declaring file's list (looked for there if
    /// the position is stale, which a consistent table never has).
    fileprivate static func inEffect(_ id: String, files: FileTable, declarations: DeclarationTable)
        -> DeclaredReminder?
    {
        declarations[id].flatMap { inEffect(id, $0, files: files) }
    }

    /// `inEffect(_:files:declarations:)` of a name whose declaration is known.
    fileprivate static func inEffect(_ id: String, _ d: Declaration, files: FileTable) -> DeclaredReminder? {
        guard let first = d.declarers?.first, let good = files.good(of: first) else { return nil }
        let i = Int(d.index)
        if i < good.count && good[i].request.id == id { return good[i].declared(in: files.path(of: first)) }
        return good.first { $0.request.id == id }?.declared(in: files.path(of: first))
    }

    /// A declaration as its file's list holds it: the file is the list's, and the lines are 32-bit (24 bytes, where a
    /// `DeclaredReminder` takes 48).
    fileprivate struct Declared: Sendable {
        var request: Request
        var line: Int32
        var triggerLine: Int32
        var categoryLine: Int32

        init(_ d: DeclaredReminder) {
            request = d.request
            (line, triggerLine, categoryLine) = (Self.line(d.line), Self.line(d.triggerLine), Self.line(d.categoryLine))
        }

        func declared(in file: String) -> DeclaredReminder {
            DeclaredReminder(request: request, file: file, line: Int(line), triggerLine: Int(triggerLine),
                             categoryLine: Int(categoryLine))
        }

        /// Files are at most 1 MiB, so lines fit.
        private static func line(_ n: Int) -> Int32 { Int32(clamping: n) }
    }

    /// The state of each file read, under a number its path keeps for the directory's life, so that a name's
    /// declaration is found without hashing its file's path.
    fileprivate struct FileTable {
        /// By number; nil while the file is gone.
        private var states: [FileState?] = []
        private var paths: [String] = []
        private var numbers: [String: Int32] = [:]

        subscript(path: String) -> FileState? {
            get { numbers[path].flatMap { states[Int($0)] } }
            set {
                if let n = numbers[path] {
                    states[Int(n)] = newValue
                } else if let newValue {
                    numbers[path] = Int32(states.count)
                    states.append(newValue)
                    paths.append(path)
                }
            }
        }

        /// The good reminders of file `n` (nil while it is gone), without copying the rest of its state.
        func good(of n: Int32) -> [Declared]? { states[Int(n)]?.good }

        func number(of path: String) -> Int32? { numbers[path] }
        func path(of n: Int32) -> String { paths[Int(n)] }

        /// The paths of the files there are.
        var keys: [String] { paths.indices.filter { states[$0] != nil }.map { paths[$0] } }
    }

    /// Each declared name's declaration, in a contiguous table with an identifier → slot index that reads the names
    /// from the table (a `[String: Declaration]` held 262,144 buckets of name and declaration at 100,000 names).
    fileprivate struct DeclarationTable {
        private var names: [String] = []
        private var records: [Declaration] = []
        private var slots = SlotIndex()

        subscript(id: String) -> Declaration? {
            get { slots.find(id, id: name).map { records[Int($0)] } }
            set {
                if let newValue {
                    if let slot = slots.find(id, id: name) {
                        records[Int(slot)] = newValue
                    } else {
                        slots.insert(id, slot: Int32(names.count), id: name)
                        names.append(id)
                        records.append(newValue)
                    }
                } else if let slot = slots.remove(id, id: name) {
                    // The last name takes the freed slot.
                    let (i, last) = (Int(slot), names.count - 1)
                    if i < last {
                        slots.move(names[last], to: slot, id: name)
                        names.swapAt(i, last)
                        records.swapAt(i, last)
                    }
                    names.removeLast()
                    records.removeLast()
                }
            }
        }

        /// Adds `id` with `declaration` unless it is there; returns its declaration then, and changes nothing.
        mutating func addIfAbsent(_ id: String, _ declaration: Declaration) -> Declaration? {
            if let slot = slots.insertIfAbsent(id, slot: Int32(names.count), id: name) { return records[Int(slot)] }
            names.append(id)
            records.append(declaration)
            return nil
        }

        /// The name at a slot, as the slot index reads it.
        private var name: (Int32) -> String { { [names] in names[Int($0)] } }

        /// The names, in no order.
        var keys: [String] { names }
        var isEmpty: Bool { names.isEmpty }

        /// Makes room for `n` names in all.
        mutating func reserveCapacity(_ n: Int) {
            names.reserveCapacity(n)
            records.reserveCapacity(n)
            slots.reserveCapacity(n, id: name)
        }
    }

    /// Where a name's declaration in effect is: its declaring files, and its position in the first one's list.
    fileprivate struct Declaration {
        /// Nil only while a reload moves a name between files.
        var declarers: Declarers?
        var index: Int32
    }

    /// The files declaring one name, by number, in sorted path order; almost always one.
    fileprivate enum Declarers {
        case one(Int32)
        case many([Int32])

        var files: [Int32] {
            switch self {
            case .one(let f): [f]
            case .many(let fs): fs
            }
        }

        var first: Int32 {
            switch self {
            case .one(let f): f
            case .many(let fs): fs[0]
            }
        }

        /// With file `n`, whose path is `path`.
        func with(_ n: Int32, at path: String, in table: FileTable) -> Declarers {
            var fs = files
            if fs.contains(n) { return self }
            fs.insert(n, at: fs.firstIndex { table.path(of: $0) > path } ?? fs.count)
            return .many(fs)
        }

        /// Nil when `n` was the only one.
        func without(_ n: Int32) -> Declarers? {
            let fs = files.filter { $0 != n }
            return fs.isEmpty ? nil : fs.count == 1 ? .one(fs[0]) : .many(fs)
        }
    }

    /// FNV-1a, 64 bits: enough to tell a rewrite with new bytes from a touch.
    private static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return h
    }
}

/// Every declared reminder in effect, by identifier, read through the files' lists of declarations (each is held
/// once, in its file's list; a reminder directory of 100,000 keeps no second table of them).
struct DeclaredReminders {
    fileprivate let files: ReminderDirectory.FileTable
    fileprivate let declarations: ReminderDirectory.DeclarationTable

    subscript(id: String) -> DeclaredReminder? {
        ReminderDirectory.inEffect(id, files: files, declarations: declarations)
    }

    /// The identifiers, in no particular order.
    var keys: some Collection<String> { declarations.keys }
    var isEmpty: Bool { declarations.isEmpty }
}
