import AvisoCore
import AvisoProtocol

/// One interaction with a notification, as the store keeps it.
public struct StoredEvent: Hashable, Sendable {
    public var at: WallTime
    public var id: String
    /// `delivered`, `action`, `dismissed`, `expired`, `closed`, `replaced`, `held`, `hook`.
    public var event: String
    /// The action's name; of a `hook` event, its outcome.
    public var action: String?
    /// The typed text; of a `hook` event, its duration in milliseconds.
    public var text: String?
    public var category: String?

    public init(at: WallTime, id: String, event: String, action: String? = nil, text: String? = nil, category: String? = nil) {
        self.at = at
        self.id = id
        self.event = event
        self.action = action
        self.text = text
        self.category = category
    }
}

extension Store {
    /// Appends events and drops the oldest beyond `keep`, in one transaction committed without waiting for the disk
    /// (like server ids): an event lost to a power cut costs a line of history, and the fire path no flush.
    public func recordEvents(_ events: [StoredEvent], keep: Int) throws(StoreError) {
        guard !events.isEmpty else { return }
        try exec("PRAGMA synchronous = NORMAL")
        defer { try? exec("PRAGMA synchronous = FULL") }
        try transaction { () throws(StoreError) in
            for e in events {
                try statement("INSERT INTO events (at, id, event, action, text, category) VALUES (?, ?, ?, ?, ?, ?)")
                    .run([.integer(e.at.nanoseconds), .text(e.id), .text(e.event), e.action.map { .text($0) },
                          e.text.map { .text($0) }, e.category.map { .text($0) }])
            }
            try statement("DELETE FROM events WHERE seq <= (SELECT max(seq) FROM events) - ?").run([.integer(Int64(keep))])
        }
    }

    /// The kept events, oldest first; the last `limit` when given.
    public func events(limit: Int? = nil) throws(StoreError) -> [StoredEvent] {
        try statement("""
            SELECT at, id, event, action, text, category FROM
                (SELECT * FROM events ORDER BY seq DESC LIMIT ?) ORDER BY seq
            """).rows([.integer(Int64(limit ?? Int(Int32.max)))]) { row in
            StoredEvent(at: WallTime(nanoseconds: row.integer(0) ?? 0), id: row.text(1) ?? "", event: row.text(2) ?? "",
                        action: row.text(3), text: row.text(4), category: row.text(5))
        }
    }

    /// Per category ("" for none): deliveries, each action's count, dismissals, expiries and content hook outcomes
    /// among the kept events.
    public func categoryStats() throws(StoreError) -> [String: CategoryStats] {
        var stats: [String: CategoryStats] = [:]
        let rows = try statement("""
            SELECT coalesce(category, ''), event, coalesce(action, ''), count(*) FROM events
            WHERE event IN ('delivered', 'action', 'dismissed', 'expired', 'hook') GROUP BY 1, 2, 3
            """).rows { ($0.text(0) ?? "", $0.text(1) ?? "", $0.text(2) ?? "", Int($0.integer(3) ?? 0)) }
        for (category, event, action, count) in rows {
            switch event {
            case "delivered": stats[category, default: CategoryStats()].delivered += count
            case "dismissed": stats[category, default: CategoryStats()].dismissed += count
            case "expired": stats[category, default: CategoryStats()].expired += count
            case "hook":
                var hooks = stats[category, default: CategoryStats()].hooks ?? HookStats()
                switch action {
                case "completed": hooks.completed += count
                case "expired": hooks.expired += count
                case "killed": hooks.killed += count
                default: hooks.failed += count
                }
                stats[category, default: CategoryStats()].hooks = hooks
            default: stats[category, default: CategoryStats()].actions[action, default: 0] += count
            }
        }
        return stats
    }

    /// A value kept across restarts (the quiet override); nil when none is set.
    public func state(_ key: String) throws(StoreError) -> String? {
        try statement("SELECT value FROM state WHERE key = ?").rows([.text(key)]) { $0.text(0) }.first ?? nil
    }

    /// Sets (or, with nil, removes) a value kept across restarts.
    public func setState(_ key: String, _ value: String?) throws(StoreError) {
        try transaction { () throws(StoreError) in
            if let value {
                try statement("INSERT OR REPLACE INTO state (key, value) VALUES (?, ?)").run([.text(key), .text(value)])
            } else {
                try statement("DELETE FROM state WHERE key = ?").run([.text(key)])
            }
        }
    }
}
