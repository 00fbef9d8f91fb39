/// The durable store failed: which database, what SQLite said, and what the store was doing.
///
/// The daemon reports it and refuses the request that needed the store; nothing is acknowledged that was not
/// committed.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The database file.
    public var path: String
    /// What went wrong, in a sentence that names the file.
    public var message: String
    /// SQLite's primary result code, or nil when the failure was not SQLite's (a directory, a JSON value).
    public var sqliteCode: Int32?

    /// An error about the database at `path`; `message` should name it.
    public init(path: String, message: String, sqliteCode: Int32? = nil) {
        self.path = path
        self.message = message
        self.sqliteCode = sqliteCode
    }

    /// The message.
    public var description: String { message }
}
