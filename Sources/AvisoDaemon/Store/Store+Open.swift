import AvisoCore
import Glibc
internal import CSQLite

/// A row that could not be decoded, on its way to the quarantine table.
struct Quarantined {
    var table: String
    var id: String
    var value: String
    var reason: String
}

extension StoreError {
    /// Whether SQLite said the file is damaged or is not a database at all.
    var isCorruption: Bool { sqliteCode == SQLITE_CORRUPT || sqliteCode == SQLITE_NOTADB }
}

extension Store {
    /// Opens the file (never through a link), sets it up and runs `PRAGMA quick_check`; a failed check throws an
    /// error whose `isCorruption` is true.
    func openAndCheck() throws(StoreError) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW
        let rc = sqlite3_open_v2(path, &handle, flags, nil)
        guard rc == SQLITE_OK, let handle else {
            let reason = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_close_v2(handle)
            throw StoreError(path: path, message: "cannot open the aviso database \(path): \(reason)", sqliteCode: rc & 0xff)
        }
        database = handle
        try configure()
        let verdict = try statement("PRAGMA quick_check").rows { $0.text(0) ?? "" }
        if verdict != ["ok"] {
            throw StoreError(path: path, message: "the integrity check found: \(verdict.prefix(3).joined(separator: "; "))",
                             sqliteCode: SQLITE_CORRUPT)
        }
    }

    /// Replaces a read-only connection with a new one when the file can now be written; false when it still cannot
    /// (the old connection then stays).
    func reopenWritable() -> Bool {
        guard let database, sqlite3_db_readonly(database, "main") == 1 else { return false }
        // SQLite made the log and its index with the database's mode at the time; they follow the database's now.
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & 0o200 != 0 else { return false }
        for companion in [path + "-wal", path + "-shm"] { chmod(companion, info.st_mode & 0o700) }
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW
        guard sqlite3_open_v2(path, &handle, flags, nil) == SQLITE_OK, let handle, sqlite3_db_readonly(handle, "main") == 0 else {
            sqlite3_close_v2(handle)
            return false
        }
        close()
        self.database = handle
        do {
            try configure()
            return true
        } catch {
            return false
        }
    }

    private func configure() throws(StoreError) {
        guard let database else { throw closedError() }
        // Another process (a second daemon starting) may hold a write lock for a moment.
        sqlite3_busy_timeout(database, 5000)
        // journal_mode answers with a row; on a file that is not a database this is the first read, and fails.
        _ = try statement("PRAGMA journal_mode = WAL").rows { $0.text(0) }
        try exec("PRAGMA synchronous = FULL")
        let version = try statement("PRAGMA user_version").rows { $0.integer(0) ?? 0 }.first ?? 0
        if version > Int64(Self.schemaVersion) {
            throw StoreError(path: path, message: """
                the aviso database \(path) has schema version \(version), newer than this avisod understands \
                (\(Self.schemaVersion)); run a newer avisod or move the file away
                """)
        }
        if version < Int64(Self.schemaVersion) {
            try transaction { () throws(StoreError) in
                try exec("""
                    CREATE TABLE IF NOT EXISTS requests (id TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
                    CREATE TABLE IF NOT EXISTS outbox (id TEXT PRIMARY KEY NOT NULL, content TEXT NOT NULL,
                        due INTEGER NOT NULL, late INTEGER NOT NULL);
                    CREATE TABLE IF NOT EXISTS delivered (id TEXT PRIMARY KEY NOT NULL, content TEXT NOT NULL,
                        delivered INTEGER NOT NULL, server_id INTEGER, server_owner TEXT,
                        due INTEGER NOT NULL, late INTEGER NOT NULL);
                    CREATE TABLE IF NOT EXISTS closed (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL,
                        reason INTEGER NOT NULL, at INTEGER NOT NULL);
                    CREATE TABLE IF NOT EXISTS quarantine (seq INTEGER PRIMARY KEY AUTOINCREMENT, tbl TEXT NOT NULL,
                        id TEXT NOT NULL, value TEXT NOT NULL, reason TEXT NOT NULL, at INTEGER NOT NULL);
                    CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL);
                    CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL,
                        id TEXT NOT NULL, event TEXT NOT NULL, action TEXT, text TEXT, category TEXT);
                    CREATE TABLE IF NOT EXISTS state (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
                    CREATE TABLE IF NOT EXISTS item_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, item TEXT NOT NULL,
                        at INTEGER NOT NULL, count INTEGER NOT NULL);
                    CREATE INDEX IF NOT EXISTS item_log_by_item ON item_log (item, at);
                    CREATE TABLE IF NOT EXISTS declared (id TEXT PRIMARY KEY NOT NULL, source TEXT NOT NULL,
                        trigger TEXT NOT NULL, added INTEGER NOT NULL, next_clock INTEGER, next_ns INTEGER,
                        next_boot TEXT, next_estimate INTEGER, fire_count INTEGER NOT NULL, last_fired INTEGER);
                    PRAGMA user_version = \(Self.schemaVersion);
                    """)
                try moveDeclaredOutOfRequests()
            }
        }
    }

    /// Writes one small row: the database's writability, found out now rather than at the first request. Returns
    /// the sentence to report when it cannot be written.
    func probeWrite() -> String? {
        do {
            try transaction { () throws(StoreError) in
                try statement("INSERT OR REPLACE INTO meta (key, value) VALUES ('opened', ?)")
                    .run([.integer(KernelClocks.now().wall.nanoseconds)])
            }
            return nil
        } catch {
            return "the database \(path) cannot be written at start (\(error.message))"
        }
    }

    /// Moves undecodable rows out of their table into `quarantine`, in one transaction, and reports them.
    func quarantine(_ rows: [Quarantined]) throws(StoreError) {
        guard !rows.isEmpty else { return }
        let at = KernelClocks.now().wall.nanoseconds
        try transaction { () throws(StoreError) in
            for r in rows {
                try statement("INSERT INTO quarantine (tbl, id, value, reason, at) VALUES (?, ?, ?, ?, ?)")
                    .run([.text(r.table), .text(r.id), .text(r.value), .text(r.reason), .integer(at)])
                try statement("DELETE FROM \(r.table) WHERE id = ?").run([.text(r.id)])
            }
        }
        for r in rows {
            report.append("'\(r.id)' in \(r.table) could not be read (\(r.reason)); it was set aside in the table "
                + "'quarantine' of \(path) and the rest was loaded")
        }
    }

    /// Copies every row that can still be read from the damaged database at `aside` into this (new) one, and says
    /// what happened.
    func salvage(from aside: String, why: String) -> String {
        let (counts, lost) = copyReadableRows(from: aside)
        let saved = counts.isEmpty ? "nothing could be salvaged" : "salvaged: " + counts.joined(separator: ", ")
        return "the database \(path) was damaged (\(why)); it was moved to \(aside) and a new one started; \(saved)"
            + (lost ? "; some rows could not be read and are lost" : "")
    }

    /// Copies the rows of a rebuilt log that SQLite's recovery dropped (what this database does not hold yet), and
    /// names the requests whose rows are gone with the damage (the rebuilt index still lists them).
    func copyRows(from rebuilt: String) -> String {
        let (counts, lost) = copyReadableRows(from: rebuilt)
        var report = counts.isEmpty ? "no row of the lost transactions could be read back"
            : "rows read back from the damaged log: " + counts.joined(separator: ", ")
        let listed = StoreRecovery.indexedRequestIDs(in: rebuilt)
        let held = Set((try? statement("SELECT id FROM requests").rows { $0.text(0) ?? "" }) ?? [])
        let gone = listed.filter { !held.contains($0) }.sorted()
        if !gone.isEmpty {
            report += "; lost with the damaged part of the log: " + gone.prefix(20).map { "'\($0)'" }.joined(separator: ", ")
                + (gone.count > 20 ? " and \(gone.count - 20) more" : "") + " (add them again)"
        } else if lost {
            report += "; some rows could not be read and are lost"
        }
        return report
    }

    /// Inserts every readable row of `other`'s tables that this database lacks (by key); how many per table, and
    /// whether some could not be read.
    private func copyReadableRows(from other: String) -> (counts: [String], lost: Bool) {
        var counts: [String] = []
        var lost = false
        var damaged: OpaquePointer?
        if sqlite3_open_v2(other, &damaged, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW, nil) == SQLITE_OK, let damaged {
            for table in ["requests", "declared", "outbox", "delivered", "closed", "item_log", "state"] {
                // Older databases have no item log (before schema 4) and no declared table (before 5) to copy.
                if ["item_log", "declared"].contains(table) && !StoreRecovery.hasTable(table, in: damaged) { continue }
                let (rows, complete) = StoreRecovery.readableRows(of: table, in: damaged)
                lost = lost || !complete
                do {
                    let added = try transaction { () throws(StoreError) -> Int in
                        var added = 0
                        for row in rows {
                            let marks = Array(repeating: "?", count: row.count).joined(separator: ", ")
                            try statement("INSERT OR IGNORE INTO \(table) VALUES (\(marks))").run(row)
                            added += Int(sqlite3_changes(database))
                        }
                        return added
                    }
                    if added > 0 { counts.append("\(added) \(table)") }
                } catch {
                    lost = true
                }
            }
        } else {
            lost = true
        }
        sqlite3_close_v2(damaged)
        return (counts, lost)
    }
}
