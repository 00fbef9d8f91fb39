import AvisoCore
internal import CSQLite

/// A change to one item's log.
public enum ItemLogChange: Hashable, Sendable {
    case add(item: String, entry: ItemLogEntry)
    /// The latest entry (by time; of two at the same time, the one logged last) goes.
    case removeLast(item: String)
}

extension Store {
    /// Every item's log, oldest first, by item name. Entries of items no longer declared are kept: declaring the item
    /// again brings its history back.
    public func itemLogs() throws(StoreError) -> [String: [ItemLogEntry]] {
        var logs: [String: [ItemLogEntry]] = [:]
        let rows = try statement("SELECT item, at, count FROM item_log ORDER BY at, seq").rows {
            ($0.text(0) ?? "", ItemLogEntry(at: WallTime(nanoseconds: $0.integer(1) ?? 0), count: Int($0.integer(2) ?? 1)))
        }
        for (item, entry) in rows { logs[item, default: []].append(entry) }
        return logs
    }

    /// In one transaction (one disk flush): a change to an item's log, when given, and a change of requests. So a log
    /// and the re-plan it causes are durable together or not at all; a sync replaces a set of requests at once.
    ///
    /// Returns the entry `removeLast` removed (nil when the item had none, and then nothing is changed).
    @discardableResult
    public func commit(log change: ItemLogChange? = nil, deleting ids: [String], putting rs: [ScheduledRequest])
        throws(StoreError) -> ItemLogEntry?
    {
        try transaction { () throws(StoreError) -> ItemLogEntry? in
            var removed: ItemLogEntry?
            switch change {
            case .add(let item, let entry)?:
                try statement("INSERT INTO item_log (item, at, count) VALUES (?, ?, ?)")
                    .run([.text(item), .integer(entry.at.nanoseconds), .integer(Int64(entry.count))])
            case .removeLast(let item)?:
                let last = try statement("SELECT seq, at, count FROM item_log WHERE item = ? ORDER BY at DESC, seq DESC LIMIT 1")
                    .rows([.text(item)]) { ($0.integer(0) ?? 0, ItemLogEntry(at: WallTime(nanoseconds: $0.integer(1) ?? 0),
                                                                             count: Int($0.integer(2) ?? 1))) }.first
                guard let last else { return nil }
                try statement("DELETE FROM item_log WHERE seq = ?").run([.integer(last.0)])
                removed = last.1
            case nil:
                break
            }
            for id in ids { try deleteRequest(id) }
            for r in rs { try write(r) }
            return removed
        }
    }
}
