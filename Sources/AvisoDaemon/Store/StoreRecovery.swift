import AvisoCore
import Glibc
internal import CSQLite

/// What the store does with its files before and around SQLite: modes, links, a damaged write-ahead log, a damaged
/// database moved aside and read row by row.
enum StoreRecovery {
    /// The database file and its companions must be regular files, not links; access for group and others is taken
    /// away (SQLite gives the `-wal` and `-shm` files the database file's mode), and the database is created 0600
    /// when missing. A file the user made read-only stays read-only.
    static func prepareFiles(of path: String, in directory: PrivateDirectory) throws(StoreError) {
        let name = fileName(path)
        for suffix in ["", "-wal", "-shm"] {
            var info = stat()
            guard fstatat(directory.fd, name + suffix, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                if info.st_mode & 0o077 != 0 { fchmodat(directory.fd, name + suffix, info.st_mode & 0o700, 0) }
            case S_IFLNK:
                throw StoreError(path: path, message: "\(path + suffix) is a symbolic link; aviso does not follow links "
                    + "for its database: remove it, or give avisod another --state-dir")
            default:
                throw StoreError(path: path, message: "\(path + suffix) is not a regular file; move it away")
            }
        }
        let fd = openat(directory.fd, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if fd >= 0 { close(fd) }
    }

    /// What checking the write-ahead log found and did.
    struct LogRepair {
        var report: [String] = []
        /// A database rebuilt from the log that SQLite did not find sound: the rows it still holds are to be copied
        /// into the database SQLite recovers, then the file removed.
        var rowsToSalvage: String?
    }

    /// Checks the write-ahead log before SQLite reads it. When SQLite would drop committed transactions (frames of the
    /// current log after a damaged one), the database is rebuilt from every frame that checks out and kept if SQLite
    /// finds the result sound; otherwise the rows that rebuild still holds are salvaged into what SQLite recovers.
    /// The damaged files are kept beside it either way.
    static func repairLog(of path: String, in directory: PrivateDirectory) -> LogRepair {
        guard case .read(let walBytes, _) = FileBytes.read(path + "-wal", limit: 1 << 30, what: "the write-ahead log") else {
            return LogRepair()
        }
        let log = WriteAheadLog(bytes: walBytes)
        guard let reading = log.read(), let brokenAt = reading.brokenAt, reading.strandedCommits > 0 else { return LogRepair() }
        let lost = "the write-ahead log of \(path) is damaged at byte \(brokenAt): SQLite would drop "
            + "\(reading.strandedCommits) committed transaction(s) after it"
        let stamp = timestamp()
        let salvage = path + ".salvage-" + stamp
        var database: [UInt8] = []
        if case .read(let bytes, _) = FileBytes.read(path, limit: 1 << 32, what: "the database") { database = bytes }
        for frame in reading.recovered + reading.stranded {
            let start = Int(frame.page - 1) * reading.pageSize
            if database.count < start + reading.pageSize {
                database += [UInt8](repeating: 0, count: start + reading.pageSize - database.count)
            }
            database.replaceSubrange(start..<(start + reading.pageSize), with: log.page(of: frame, pageSize: reading.pageSize))
            if frame.commitSize != 0 {
                let size = Int(frame.commitSize) * reading.pageSize
                if database.count > size { database.removeLast(database.count - size) }
            }
        }
        let kept = path + ".corrupt-" + stamp
        guard write(database, to: salvage) else {
            removeFiles(salvage)
            return LogRepair(report: [lost + "; they could not be rebuilt (writing \(salvage) failed) and are lost"])
        }
        guard isSound(salvage) else {
            // Some page of theirs is gone with the damage: the rows the rebuild still holds are copied over instead.
            removeFiles(salvage, keepMain: true)
            let copied = copy(path, to: kept) && copy(path + "-wal", to: kept + "-wal")
            return LogRepair(report: [lost + "; the log could not be rebuilt as a whole (the result failed SQLite's "
                + "integrity check), so the rows it still holds were copied into the database SQLite recovered"
                + (copied ? "; copies of the damaged files are kept as \(kept) and \(kept)-wal" : "")], rowsToSalvage: salvage)
        }
        // The rebuilt file replaces the database; the damaged pair is kept, and the index of the old log goes.
        rename(path, kept)
        rename(path + "-wal", kept + "-wal")
        unlink(path + "-shm")
        removeFiles(salvage, keepMain: true)
        rename(salvage, path)
        return LogRepair(report: [lost + "; they were rebuilt from the log and the result passed SQLite's integrity "
            + "check; the damaged files are kept as \(kept) and \(kept)-wal"])
    }

    /// Renames the database and its log to `PATH.corrupt-TIME` (the `-shm` index is dropped); returns the new path.
    static func moveAside(_ path: String, in directory: PrivateDirectory) throws(StoreError) -> String {
        let aside = path + ".corrupt-" + timestamp()
        guard rename(path, aside) == 0 else {
            throw StoreError(path: path, message: "the aviso database \(path) is damaged and cannot be moved aside: "
                + String(cString: strerror(errno)))
        }
        rename(path + "-wal", aside + "-wal")
        unlink(path + "-shm")
        return aside
    }

    /// Every row of `table` that can be read, stepping by rowid past the pages that cannot; and whether all were.
    static func readableRows(of table: String, in database: OpaquePointer) -> (rows: [[Statement.Value?]], complete: Bool) {
        var rows: [[Statement.Value?]] = []
        var complete = true
        var after = Int64.min
        var skips = 0
        while skips < 64 {
            var statement: OpaquePointer?
            let sql = "SELECT rowid, * FROM \(table) WHERE rowid > ? ORDER BY rowid LIMIT 256"
            guard sqlite3_prepare_v2(database, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
                sqlite3_finalize(statement)
                return (rows, false)
            }
            defer { sqlite3_finalize(statement) }
            sqlite3_bind_int64(statement, 1, after)
            var read = 0
            var rc = sqlite3_step(statement)
            while rc == SQLITE_ROW {
                after = sqlite3_column_int64(statement, 0)
                rows.append((1..<sqlite3_column_count(statement)).map { Statement.value(statement, $0) })
                read += 1
                rc = sqlite3_step(statement)
            }
            if rc == SQLITE_DONE && read < 256 { return (rows, complete) }
            if rc != SQLITE_DONE {
                // A damaged page: jump ahead, further each time, and see whether the table goes on.
                complete = false
                skips += 1
                after = after == .min ? 0 : after &+ (1 << min(skips, 40))
            }
        }
        return (rows, false)
    }

    /// Whether the schema of `database` lists `table`.
    static func hasTable(_ table: String, in database: OpaquePointer) -> Bool {
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_prepare_v2(database, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", -1, &statement, nil)
            == SQLITE_OK, let statement else { return true }
        sqlite3_bind_text(statement, 1, table, -1, sqliteTransient)
        return sqlite3_step(statement) != SQLITE_DONE
    }

    /// The request identifiers the index of `database` lists (it may list rows whose table page was lost).
    static func indexedRequestIDs(in database: String) -> Set<String> {
        var db: OpaquePointer?
        defer { sqlite3_close_v2(db) }
        guard sqlite3_open_v2(database, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW, nil) == SQLITE_OK, let db else { return [] }
        var statement: OpaquePointer?
        let sql = "SELECT id FROM requests INDEXED BY sqlite_autoindex_requests_1 ORDER BY id"
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            return []
        }
        defer { sqlite3_finalize(statement) }
        var ids: Set<String> = []
        while sqlite3_step(statement) == SQLITE_ROW {
            if let text = sqlite3_column_text(statement, 0) { ids.insert(String(cString: text)) }
        }
        return ids
    }

    // MARK: Helpers

    /// Whether SQLite opens the file and finds it sound (`PRAGMA integrity_check`).
    private static func isSound(_ path: String) -> Bool {
        var database: OpaquePointer?
        defer { sqlite3_close_v2(database) }
        guard sqlite3_open_v2(path, &database, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, nil) == SQLITE_OK,
              let database else { return false }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(database, "PRAGMA integrity_check", -1, &statement, nil) == SQLITE_OK else {
            sqlite3_finalize(statement)
            return false
        }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else { return false }
        return String(cString: text) == "ok"
    }

    /// Writes a new private file and flushes it to disk.
    private static func write(_ bytes: [UInt8], to path: String) -> Bool {
        let fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += n
        }
        return fsync(fd) == 0
    }

    private static func copy(_ from: String, to: String) -> Bool {
        guard case .read(let bytes, _) = FileBytes.read(from, limit: 1 << 32, what: "the file") else { return false }
        return write(bytes, to: to)
    }

    /// Removes a scratch database and the log and index SQLite made beside it.
    private static func removeFiles(_ path: String, keepMain: Bool = false) {
        if !keepMain { unlink(path) }
        unlink(path + "-wal")
        unlink(path + "-shm")
    }

    private static func fileName(_ path: String) -> String {
        path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
    }

    /// "20261130T161500Z", for the names of files kept aside.
    private static func timestamp() -> String {
        let c = CivilDateTime(secondsSinceEpoch: KernelClocks.now().wall.seconds)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(c.year)\(two(c.month))\(two(c.day))T\(two(c.hour))\(two(c.minute))\(two(c.second))Z"
    }
}
