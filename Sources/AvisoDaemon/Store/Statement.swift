internal import CSQLite
import Glibc

/// SQLite's "copy the bytes now" destructor: bound strings are Swift temporaries.
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One prepared SQLite statement, finalized when the value goes away.
///
/// Used only by `Store`, on the one thread that owns it at a time.
final class Statement {
    private let handle: OpaquePointer
    private let database: OpaquePointer
    private let fail: (OpaquePointer, Int32, String) -> StoreError
    /// The bytes of the texts bound last, which SQLite reads from here until they are bound again (SQLITE_STATIC),
    /// instead of copying each one into a buffer of its own and freeing it at the next binding: a first start binds
    /// 300,000 texts.
    private var texts: UnsafeMutableBufferPointer<UInt8>

    init(_ sql: String, database: OpaquePointer, fail: @escaping (OpaquePointer, Int32, String) -> StoreError) throws(StoreError) {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v2(database, sql, -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw fail(database, rc, "preparing a statement")
        }
        self.handle = statement
        self.database = database
        self.fail = fail
        texts = .allocate(capacity: 256)
    }

    deinit {
        sqlite3_finalize(handle)
        texts.deallocate()
    }

    /// Binds parameters 1...n in order; nil binds NULL.
    func bind(_ values: [Value?]) throws(StoreError) {
        sqlite3_reset(handle)
        // Only parameters this call leaves out need clearing: a first start binds all ten of 100,000 rows, and
        // clearing them first cost a thousand instructions a row.
        if values.count < sqlite3_bind_parameter_count(handle) { sqlite3_clear_bindings(handle) }
        // Every text the earlier binding left in `texts` is bound again (or cleared) before the next step, so they
        // may be overwritten, and the buffer replaced.
        var needed = 0
        for case .text(let s)? in values { needed += s.utf8.count }
        if needed > texts.count {
            texts.deallocate()
            texts = .allocate(capacity: max(needed, 2 * texts.count))
        }
        var used = 0
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch value {
            case nil: rc = sqlite3_bind_null(handle, index)
            case .integer(let i)?: rc = sqlite3_bind_int64(handle, index, i)
            case .text(var s)?:
                // An explicit length: an identifier may hold a NUL, which a C string would cut off. The pointer is
                // never NULL (SQLite would bind NULL), even for an empty text.
                let start = texts.baseAddress! + used
                let count = s.withUTF8 { bytes in
                    if let from = bytes.baseAddress, !bytes.isEmpty { start.update(from: from, count: bytes.count) }
                    return bytes.count
                }
                used += count
                rc = start.withMemoryRebound(to: CChar.self, capacity: max(count, 1)) {
                    sqlite3_bind_text(handle, index, $0, Int32(count), nil)
                }
            }
            guard rc == SQLITE_OK else { throw fail(database, rc, "binding a value") }
        }
    }

    /// Advances to the next row; false when done.
    func step() throws(StoreError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            sqlite3_reset(handle)
            throw fail(database, rc, "running a statement")
        }
    }

    /// Binds `values` and runs the statement to completion.
    func run(_ values: [Value?] = []) throws(StoreError) {
        try bind(values)
        while try step() {}
        sqlite3_reset(handle)
    }

    /// Binds `values` and collects every row through `row`.
    func rows<T>(_ values: [Value?] = [], _ row: (Statement) throws(StoreError) -> T) throws(StoreError) -> [T] {
        var result: [T] = []
        try forEachRow(values) { statement throws(StoreError) in result.append(try row(statement)) }
        return result
    }

    /// Binds `values` and calls `body` with each row in turn (nothing is collected: for tables of any size).
    func forEachRow(_ values: [Value?] = [], _ body: (Statement) throws(StoreError) -> Void) throws(StoreError) {
        try bind(values)
        while try step() { try body(self) }
        sqlite3_reset(handle)
    }

    func text(_ column: Int32) -> String? {
        guard sqlite3_column_type(handle, column) != SQLITE_NULL else { return nil }
        // Read the text before its length: sqlite3_column_bytes is only meaningful after the conversion.
        guard let p = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: p, count: count), as: UTF8.self)
    }

    /// The text of `column`, as `last` when it says the same (then no string is made): for a column whose rows
    /// repeat a value, such as the source file of a directory's reminders, one after another.
    func text(_ column: Int32, reusing last: inout String) -> String? {
        guard sqlite3_column_type(handle, column) != SQLITE_NULL else { return nil }
        guard let p = sqlite3_column_text(handle, column) else { return "" }
        let bytes = UnsafeBufferPointer(start: p, count: Int(sqlite3_column_bytes(handle, column)))
        let same = last.withUTF8 { mine in
            guard mine.count == bytes.count else { return false }
            guard let a = mine.baseAddress else { return true }
            return memcmp(a, p, mine.count) == 0
        }
        if !same { last = String(decoding: bytes, as: UTF8.self) }
        return last
    }

    func integer(_ column: Int32) -> Int64? {
        sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : sqlite3_column_int64(handle, column)
    }

    /// Column `column` of the current row of a raw prepared statement, as a value to bind again (nil for NULL),
    /// for copying rows between databases.
    static func value(_ statement: OpaquePointer, _ column: Int32) -> Value? {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_NULL: return nil
        case SQLITE_INTEGER, SQLITE_FLOAT: return .integer(sqlite3_column_int64(statement, column))
        default:
            guard let p = sqlite3_column_text(statement, column) else { return .text("") }
            let count = Int(sqlite3_column_bytes(statement, column))
            return .text(String(decoding: UnsafeBufferPointer(start: p, count: count), as: UTF8.self))
        }
    }

    /// A value to bind.
    enum Value {
        case integer(Int64)
        case text(String)
    }
}
