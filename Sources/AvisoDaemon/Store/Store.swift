import AvisoCore
import FoundationEssentials
import Glibc
internal import CSQLite

/// The durable state of the daemon in one SQLite database: requests, the outbox of due notifications, delivered
/// notifications and a log of closed ones.
///
/// Every mutating call commits before it returns (WAL, `synchronous=FULL`), so a reply sent after it survives
/// `kill -9` and power loss. Not thread-safe by design: one actor (the scheduler) owns it, so the connection is opened
/// without SQLite's own mutex (`SQLITE_OPEN_NOMUTEX`; it was taken for every column read). Values of the core types are
/// stored as JSON text, except the schedules of declared reminders (`Store+Declared`).
public final class Store {
    /// The database file.
    public let path: String
    var database: OpaquePointer?
    var cache: [String: Statement] = [:]
    /// The statement used last, with its text: a batch of 100,000 writes finds it by comparing the text (the same
    /// literal, so equal at once) instead of hashing it for each row.
    var lastStatement: (sql: String, statement: Statement)?
    /// What opening found wrong and what was done about it, in sentences for the log and `avisoctl status`.
    public internal(set) var report: [String] = []
    /// Why the database could not be written when it was opened (read-only, a full disk); nil when it could. A
    /// later write may succeed: the scheduler treats this as a write failure that lasts until one does.
    public private(set) var unwritable: String?

    /// The schema this build writes; a database with a higher `user_version` is refused, not downgraded.
    /// 2 added the `quarantine` and `meta` tables, 3 `events` and `state`, 4 `item_log`, 5 `declared`.
    public static let schemaVersion: Int32 = 5
    /// How many closed notifications the log keeps; older entries are dropped.
    public static let closedLogLimit = 1000

    /// Opens (creating if missing) the database at `path`, repairing what can be repaired, and says in `report` what
    /// was found.
    ///
    /// The directory holding it is created (0700) if missing and must be private (`Directories.openPrivate`); the
    /// files are 0600 and never followed through a symbolic link. Before SQLite reads the write-ahead log, it is
    /// checked for damage that would make SQLite drop committed transactions (`StoreRecovery.repairLog`). A database
    /// that fails `PRAGMA quick_check`, or is not a database at all, is moved aside and what can be read of it is
    /// salvaged into a new one. A database that cannot be written is reported (`unwritable`), not refused: what is
    /// stored can still be read. Throws when the directory is not private, the file is a link, the database is from a newer
    /// aviso, or it cannot be opened at all; the message names `path`.
    public init(path: String) throws(StoreError) {
        self.path = path
        let directory: PrivateDirectory
        do {
            directory = try Directories.openPrivate(containing: path)
        } catch {
            throw StoreError(path: path, message: "cannot use the directory of the aviso database \(path): \(error)")
        }
        defer { directory.close() }
        try StoreRecovery.prepareFiles(of: path, in: directory)
        let repair = StoreRecovery.repairLog(of: path, in: directory)
        report += repair.report
        defer { if let rebuilt = repair.rowsToSalvage { unlink(rebuilt) } }
        do {
            try openAndCheck()
            if let rebuilt = repair.rowsToSalvage { report.append(copyRows(from: rebuilt)) }
        } catch where error.isCorruption {
            close()
            let aside = try StoreRecovery.moveAside(path, in: directory)
            try StoreRecovery.prepareFiles(of: path, in: directory)
            try openAndCheck()
            report.append(salvage(from: aside, why: error.message))
        } catch {
            close()
            throw error
        }
        unwritable = probeWrite()
    }

    deinit { close() }

    /// Closes the database; later calls throw. Safe to call twice.
    public func close() {
        cache = [:]
        lastStatement = nil
        if let database { sqlite3_close_v2(database) }
        database = nil
    }

    /// Gives SQLite's page cache back to the heap (up to 2 MiB by default): after a start has read or written a
    /// whole model, it holds pages that a fire will not touch again soon, and the few a fire does are read anew.
    func releaseCache() {
        if let database { sqlite3_db_release_memory(database) }
    }

    // MARK: Requests

    /// Every stored request added over the socket, in no particular order (declared ones: `forEachDeclaredSchedule`). A
    /// row that cannot be decoded is moved to the quarantine table and reported; the rest load.
    public func requests() throws(StoreError) -> [ScheduledRequest] {
        var unreadable: [Quarantined] = []
        let all = try statement("SELECT id, value FROM requests").rows { row throws(StoreError) -> ScheduledRequest? in
            let (id, value) = (row.text(0) ?? "", row.text(1) ?? "")
            do throws(StoreError) {
                return try decode(ScheduledRequest.self, value, what: "request '\(id)'")
            } catch {
                unreadable.append(Quarantined(table: "requests", id: id, value: value, reason: error.message))
                return nil
            }
        }
        try quarantine(unreadable)
        return all.compactMap { $0 }
    }

    /// Inserts `r`, or replaces the stored request with the same identifier.
    public func put(_ r: ScheduledRequest) throws(StoreError) {
        try transaction { () throws(StoreError) in try write(r) }
    }

    /// Inserts or replaces many requests in one transaction (one disk flush), as a reminder directory loads. A table
    /// that is empty has no row of these names to delete: a directory stored at a first start makes no deletes.
    public func put(_ rs: [ScheduledRequest]) throws(StoreError) {
        guard !rs.isEmpty else { return }
        try transaction { () throws(StoreError) in
            var others = try tablesHoldingRows()
            for r in rs { try write(r, others: &others) }
        }
    }

    /// `put(_:)` of the requests another thread hands over in batches, in one transaction, until it finishes. A
    /// failed write still takes every batch, so the other thread never waits for room.
    func put(from batches: Handoff<ScheduledRequest>) throws(StoreError) {
        defer { batches.drain() }
        try transaction { () throws(StoreError) in
            var others = try tablesHoldingRows()
            while let batch = batches.take() {
                for r in batch { try write(r, others: &others) }
            }
        }
    }

    /// Deletes the requests with these identifiers; unknown identifiers are ignored.
    public func deleteRequests(_ ids: [String]) throws(StoreError) {
        try transaction { () throws(StoreError) in
            for id in ids { try deleteRequest(id) }
        }
    }

    /// Records a firing in one transaction: the request's new state and its outbox entry.
    ///
    /// A fired one-shot request added over the socket (no `next`, no `source`) is deleted; a declared one is kept, so
    /// that its file does not declare it anew. An undelivered outbox entry with the same identifier is replaced: a
    /// repeating request that fires again while its last firing waits is shown once, with the new due time.
    public func recordFiring(_ r: ScheduledRequest, outbox entry: OutboxEntry) throws(StoreError) {
        try recordFirings([(r, entry)])
    }

    /// Records several firings in one transaction (one disk flush), as `recordFiring` records one: for what came
    /// due together.
    public func recordFirings(_ firings: [(ScheduledRequest, OutboxEntry)]) throws(StoreError) {
        guard !firings.isEmpty else { return }
        try transaction { () throws(StoreError) in
            for (r, entry) in firings {
                try keepOrDelete(r)
                try statement("INSERT OR REPLACE INTO outbox (id, content, due, late) VALUES (?, ?, ?, ?)")
                    .run([.text(entry.id), .text(try encode(entry.content)), .integer(entry.due.nanoseconds),
                          .integer(entry.late ? 1 : 0)])
            }
        }
    }

    /// Whether nothing waits in the outbox, without reading (and decoding) what does.
    public func outboxIsEmpty() throws(StoreError) -> Bool {
        try statement("SELECT 1 FROM outbox LIMIT 1").rows { _ in 1 }.isEmpty
    }

    /// Replaces what a waiting outbox entry says (a content hook's version); nothing when it is not in the outbox.
    public func replaceOutboxContent(_ id: String, _ content: Content) throws(StoreError) {
        try statement("UPDATE outbox SET content = ? WHERE id = ?").run([.text(try encode(content)), .text(id)])
    }

    /// Records a firing and begins its delivery in one transaction (one disk flush): the request's new state and
    /// its delivered row with no server id yet, as `recordFiring` followed by `beginDelivery` would.
    ///
    /// For the common case of a server being present, so that the fire path flushes once before the D-Bus call.
    public func recordFiringAndBeginDelivery(_ r: ScheduledRequest, entry: OutboxEntry, at: WallTime) throws(StoreError) {
        try transaction { () throws(StoreError) in
            try keepOrDelete(r)
            try statement("DELETE FROM outbox WHERE id = ?").run([.text(entry.id)])
            try statement("""
                INSERT OR REPLACE INTO delivered (id, content, delivered, server_id, server_owner, due, late)
                VALUES (?, ?, ?, NULL, NULL, ?, ?)
                """).run([.text(entry.id), .text(try encode(entry.content)), .integer(at.nanoseconds),
                          .integer(entry.due.nanoseconds), .integer(entry.late ? 1 : 0)])
        }
    }

    // MARK: Outbox and delivery

    /// The due notifications not yet handed to the server, oldest due first (undecodable rows are quarantined).
    public func outbox() throws(StoreError) -> [OutboxEntry] {
        var unreadable: [Quarantined] = []
        let all = try statement("SELECT id, content, due, late FROM outbox ORDER BY due, id").rows { row throws(StoreError) -> OutboxEntry? in
            let (id, content) = (row.text(0) ?? "", row.text(1) ?? "")
            do throws(StoreError) {
                return OutboxEntry(id: id, content: try decode(Content.self, content, what: "outbox entry '\(id)'"),
                                   due: WallTime(nanoseconds: row.integer(2) ?? 0), late: (row.integer(3) ?? 0) != 0)
            } catch {
                unreadable.append(Quarantined(table: "outbox", id: id, value: content, reason: error.message))
                return nil
            }
        }
        try quarantine(unreadable)
        return all.compactMap { $0 }
    }

    /// Moves outbox entries to the delivered table (server id unknown) in one transaction, before the send: one disk
    /// flush, also for a summary of a thousand.
    ///
    /// At most once: after this commits an entry is never sent again, even if the daemon dies before the send.
    /// Returns the ids that were in the outbox and are now delivered.
    @discardableResult
    public func beginDelivery(_ ids: [String], at: WallTime) throws(StoreError) -> [String] {
        try transaction { () throws(StoreError) -> [String] in
            var moved: [String] = []
            for id in ids where try moveToDelivered(id, at: at) { moved.append(id) }
            return moved
        }
    }

    /// Moves one outbox row to the delivered table; false when there is none.
    private func moveToDelivered(_ id: String, at: WallTime) throws(StoreError) -> Bool {
        let found = try statement("SELECT content, due, late FROM outbox WHERE id = ?").rows([.text(id)]) { row in
            (row.text(0) ?? "", row.integer(1) ?? 0, row.integer(2) ?? 0)
        }
        guard let (content, due, late) = found.first else { return false }
        try statement("DELETE FROM outbox WHERE id = ?").run([.text(id)])
        try statement("""
            INSERT OR REPLACE INTO delivered (id, content, delivered, server_id, server_owner, due, late)
            VALUES (?, ?, ?, NULL, NULL, ?, ?)
            """).run([.text(id), .text(content), .integer(at.nanoseconds), .integer(due), .integer(late)])
        return true
    }

    /// Undoes `beginDelivery` in one transaction, for a send that certainly did not happen (no server).
    ///
    /// Does nothing when the notification is not delivered or the server already gave it an id.
    public func abortDelivery(_ id: String) throws(StoreError) {
        try transaction { () throws(StoreError) in
            let moved = try statement("""
                INSERT OR REPLACE INTO outbox (id, content, due, late)
                SELECT id, content, due, late FROM delivered WHERE id = ? AND server_id IS NULL
                """)
            try moved.run([.text(id)])
            if sqlite3_changes(database) > 0 {
                try statement("DELETE FROM delivered WHERE id = ?").run([.text(id)])
            }
        }
    }

    /// Records the id the notification server `owner` (a D-Bus unique name) gave the popup of delivered
    /// notifications (several share one: a summary, a thread).
    ///
    /// Committed without waiting for the disk (WAL, synchronous=NORMAL): it survives a crash of the daemon, and after
    /// a power loss the only cost is not being able to close that one popup, so the fire path does not pay a flush.
    public func setServerID(_ ids: [String], serverID: UInt32, owner: String) throws(StoreError) {
        try exec("PRAGMA synchronous = NORMAL")
        defer { try? exec("PRAGMA synchronous = FULL") }
        try transaction { () throws(StoreError) in
            for id in ids {
                try statement("UPDATE delivered SET server_id = ?, server_owner = ? WHERE id = ?")
                    .run([.integer(Int64(serverID)), .text(owner), .text(id)])
            }
        }
    }

    /// The delivered notifications still tracked, most recent first (undecodable rows are quarantined).
    public func delivered() throws(StoreError) -> [DeliveredRecord] {
        var unreadable: [Quarantined] = []
        let all = try statement("""
            SELECT id, content, delivered, server_id, server_owner FROM delivered ORDER BY delivered DESC, id
            """).rows { row throws(StoreError) -> DeliveredRecord? in
            let (id, content) = (row.text(0) ?? "", row.text(1) ?? "")
            do throws(StoreError) {
                return DeliveredRecord(
                    id: id, content: try decode(Content.self, content, what: "delivered notification '\(id)'"),
                    delivered: WallTime(nanoseconds: row.integer(2) ?? 0),
                    serverID: row.integer(3).flatMap { UInt32(exactly: $0) }, serverOwner: row.text(4))
            } catch {
                unreadable.append(Quarantined(table: "delivered", id: id, value: content, reason: error.message))
                return nil
            }
        }
        try quarantine(unreadable)
        return all.compactMap { $0 }
    }

    /// Replaces what a delivered notification says (an action changed its body); unknown identifiers are ignored.
    public func updateDeliveredContent(_ id: String, content: Content) throws(StoreError) {
        try transaction { () throws(StoreError) in
            try statement("UPDATE delivered SET content = ? WHERE id = ?").run([.text(try encode(content)), .text(id)])
        }
    }

    /// Forgets these delivered notifications; unknown identifiers are ignored.
    public func deleteDelivered(_ ids: [String]) throws(StoreError) {
        try transaction { () throws(StoreError) in
            for id in ids { try statement("DELETE FROM delivered WHERE id = ?").run([.text(id)]) }
        }
    }

    /// The server closed a popup (NotificationClosed): forget the notifications it showed and log (id, reason, at)
    /// for each, in one transaction.
    public func recordClosed(_ ids: [String], reason: UInt32, at: WallTime) throws(StoreError) {
        try transaction { () throws(StoreError) in
            for id in ids {
                try statement("DELETE FROM delivered WHERE id = ?").run([.text(id)])
                try statement("INSERT INTO closed (id, reason, at) VALUES (?, ?, ?)")
                    .run([.text(id), .integer(Int64(reason)), .integer(at.nanoseconds)])
            }
            try statement("DELETE FROM closed WHERE seq <= (SELECT max(seq) FROM closed) - ?")
                .run([.integer(Int64(Self.closedLogLimit))])
        }
    }

    /// The closed log, most recent first: identifier, freedesktop close reason, and when.
    public func closedLog() throws(StoreError) -> [(id: String, reason: UInt32, at: WallTime)] {
        try statement("SELECT id, reason, at FROM closed ORDER BY seq DESC").rows { row in
            (row.text(0) ?? "", UInt32(truncatingIfNeeded: row.integer(1) ?? 0), WallTime(nanoseconds: row.integer(2) ?? 0))
        }
    }

    /// Clears server ids given by any server but `exceptOwner`: a new server does not know the old one's ids.
    public func clearServerIDs(exceptOwner: String) throws(StoreError) {
        try transaction { () throws(StoreError) in
            try statement("""
                UPDATE delivered SET server_id = NULL, server_owner = NULL
                WHERE server_owner IS NOT NULL AND server_owner != ?
                """).run([.text(exceptOwner)])
        }
    }

    // MARK: Plumbing

    private func keepOrDelete(_ r: ScheduledRequest) throws(StoreError) {
        if r.next == nil && !r.request.trigger.repeats && r.source == nil {
            try deleteRequest(r.request.id)
        } else {
            try write(r)
        }
    }

    /// Runs `body` in a write transaction. A connection that SQLite opened read-only (the file was not writable
    /// then) is opened again once the file is, so that fixing the permissions is enough.
    func transaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        do {
            return try attempt(body)
        } catch where error.sqliteCode == SQLITE_READONLY && reopenWritable() {
            return try attempt(body)
        }
    }

    private func attempt<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        // IMMEDIATE takes the write lock up front, so a busy database fails here and not halfway through.
        try exec("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try exec("COMMIT")
            return result
        } catch {
            if let database { sqlite3_exec(database, "ROLLBACK", nil, nil, nil) }
            throw error
        }
    }

    func exec(_ sql: String) throws(StoreError) {
        guard let database else { throw closedError() }
        let rc = sqlite3_exec(database, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw failure(database, rc, "running '\(sql.prefix(40))'") }
    }

    func statement(_ sql: String) throws(StoreError) -> Statement {
        if let last = lastStatement, last.sql == sql { return last.statement }
        if let cached = cache[sql] {
            lastStatement = (sql, cached)
            return cached
        }
        guard let database else { throw closedError() }
        let path = self.path
        let made = try Statement(sql, database: database) { db, rc, doing in
            Store.error(path: path, db, rc, doing)
        }
        cache[sql] = made
        lastStatement = (sql, made)
        return made
    }

    private func failure(_ db: OpaquePointer, _ rc: Int32, _ doing: String) -> StoreError {
        Self.error(path: path, db, rc, doing)
    }

    private static func error(path: String, _ db: OpaquePointer, _ rc: Int32, _ doing: String) -> StoreError {
        let reason = String(cString: sqlite3_errmsg(db))
        return StoreError(path: path, message: "aviso database \(path): \(doing) failed: \(reason)", sqliteCode: rc & 0xff)
    }

    func closedError() -> StoreError {
        StoreError(path: path, message: "aviso database \(path) is closed")
    }

    func encode(_ value: some Encodable) throws(StoreError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            throw StoreError(path: path, message: "aviso database \(path): cannot encode a value: \(error)")
        }
    }

    func decode<T: Decodable>(_ type: T.Type, _ text: String, what: String) throws(StoreError) -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(text.utf8))
        } catch {
            throw StoreError(path: path, message: "aviso database \(path): \(what) is unreadable: \(error)")
        }
    }
}
