import AvisoCore
internal import CSQLite
import Glibc

/// Where a declared reminder stands, as the store keeps it: its schedule, not its content (the file holds that).
public struct DeclaredSchedule: Hashable, Sendable {
    /// The file that declared it.
    public var source: String
    /// The trigger the schedule was planned for, as `Store.triggerKey` writes it: a schedule is kept only for the
    /// same trigger.
    public var trigger: String
    public var added: WallTime
    public var next: Deadline?
    public var fireCount: Int
    public var lastFired: WallTime?

    /// The model's entry for `request`, declared in `file`, on this schedule; nil when the schedule is for another
    /// file or another trigger, and the request must be planned anew.
    public func scheduling(_ request: Request, declaredIn file: String) -> ScheduledRequest? {
        guard source == file, Store.triggerKey(trigger, isThatOf: request.trigger) else { return nil }
        return ScheduledRequest(request: request, added: added, next: next, fireCount: fireCount, lastFired: lastFired,
                                source: file)
    }
}

/// Declared reminders are stored as their schedule in typed columns (table `declared`), requests added over the
/// socket as JSON (table `requests`): at a start with 100,000 declared reminders nothing is encoded or decoded as
/// JSON, and the content is read from the files alone.
extension Store {
    /// Calls `body` with each stored schedule of a declared reminder, one row at a time: at a start with 100,000
    /// reminders no table of them is built beside the model. Equal boot ids, and the source files of rows one after
    /// another, share one string. A row whose next deadline cannot be read is skipped: its reminder is planned anew
    /// from its file.
    public func forEachDeclaredSchedule(_ body: (String, DeclaredSchedule) -> Void) throws(StoreError) {
        var bootID = ""
        var source = ""
        try statement("""
            SELECT id, source, trigger, added, next_clock, next_ns, next_boot, next_estimate, fire_count, last_fired
            FROM declared
            """).forEachRow { row in
            let next: Deadline?
            switch (row.integer(4), row.integer(5)) {
            case (nil, _): next = nil
            case (0?, let ns?): next = .wall(WallTime(nanoseconds: ns))
            case (1?, let ns?):
                next = .boot(BootTime(nanoseconds: ns), bootID: row.text(6, reusing: &bootID) ?? "",
                             wallEstimate: WallTime(nanoseconds: row.integer(7) ?? ns))
            default: return
            }
            body(row.text(0) ?? "", DeclaredSchedule(
                source: row.text(1, reusing: &source) ?? "", trigger: row.text(2) ?? "", added: WallTime(nanoseconds: row.integer(3) ?? 0),
                next: next, fireCount: Int(row.integer(8) ?? 0), lastFired: row.integer(9).map { WallTime(nanoseconds: $0) }))
        }
    }

    /// Writes a request to the table of its kind, and removes it from the other: a name first added over the socket
    /// may later be declared in a file, and the other way round.
    func write(_ r: ScheduledRequest) throws(StoreError) {
        var others = MaybeHeld()
        try write(r, others: &others)
    }

    /// Which tables may hold a row that a write must delete from the table of the other kind.
    struct MaybeHeld {
        var requests = true
        var declared = true
    }

    /// `write(_:)`, told which tables may hold the name: deleting from a table known to be empty is skipped.
    func write(_ r: ScheduledRequest, others: inout MaybeHeld) throws(StoreError) {
        let id = Statement.Value.text(r.request.id)
        guard let source = r.source else {
            try statement("INSERT OR REPLACE INTO requests (id, value) VALUES (?, ?)").run([id, .text(try encode(r))])
            others.requests = true
            if others.declared { try statement("DELETE FROM declared WHERE id = ?").run([id]) }
            return
        }
        let next: (clock: Statement.Value?, ns: Statement.Value?, boot: Statement.Value?, estimate: Statement.Value?)
        switch r.next {
        case .wall(let w)?: next = (.integer(0), .integer(w.nanoseconds), nil, nil)
        case .boot(let b, let bootID, let estimate)?:
            next = (.integer(1), .integer(b.nanoseconds), .text(bootID), .integer(estimate.nanoseconds))
        case nil: next = (nil, nil, nil, nil)
        }
        // One array of the row's values: 100,000 rows are written at a first start.
        try statement("""
            INSERT OR REPLACE INTO declared (id, source, trigger, added, next_clock, next_ns, next_boot, next_estimate,
                fire_count, last_fired) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).run([id, .text(source), .text(Self.triggerKey(r.request.trigger)), .integer(r.added.nanoseconds),
                      next.clock, next.ns, next.boot, next.estimate, .integer(Int64(r.fireCount)),
                      r.lastFired.map { .integer($0.nanoseconds) }])
        others.declared = true
        if others.requests { try statement("DELETE FROM requests WHERE id = ?").run([id]) }
    }

    /// Which of the two tables hold any row now.
    func tablesHoldingRows() throws(StoreError) -> MaybeHeld {
        func holds(_ table: String) throws(StoreError) -> Bool {
            try statement("SELECT EXISTS (SELECT 1 FROM \(table))").rows { $0.integer(0) == 1 }.first ?? true
        }
        return MaybeHeld(requests: try holds("requests"), declared: try holds("declared"))
    }

    /// Deletes a request from whichever table holds it.
    func deleteRequest(_ id: String) throws(StoreError) {
        try statement("DELETE FROM requests WHERE id = ?").run([.text(id)])
        try statement("DELETE FROM declared WHERE id = ?").run([.text(id)])
    }

    /// A trigger as one string that is equal exactly when the triggers are: what a declared schedule was planned for.
    /// Its words, which a space separates: the kind, then the span or instant in nanoseconds and whether it repeats;
    /// or the DST policy, the zone's length in bytes and the zone (or "-"), and the spec as written.
    public static func triggerKey(_ t: Trigger) -> String {
        KeyWriter.string { key in
            switch t {
            case .interval(let span, let repeats):
                key.text("interval ")
                key.number(span.nanoseconds)
                key.text(repeats ? " repeats" : " once")
            case .date(let at):
                key.text("date ")
                key.number(at.nanoseconds)
            case .calendar(let c):
                key.text("calendar ")
                key.text(c.policy.rawValue)
                if let zone = c.zone {
                    key.text(" ")
                    key.number(Int64(zone.utf8.count))
                    key.text(" ")
                    key.text(zone)
                } else {
                    key.text(" -")
                }
                key.text(" ")
                key.text(c.spec)
            }
        }
    }

    /// Writes a key's words into one string made at its length: `string(_:)` runs the writing twice, counting the
    /// bytes, then writing them. A first start writes 100,000 keys, and appending piece by piece to a string cost
    /// about 2,100 instructions a key.
    private struct KeyWriter {
        private var count = 0
        private var out: UnsafeMutableBufferPointer<UInt8>?

        static func string(_ write: (inout KeyWriter) -> Void) -> String {
            var counting = KeyWriter()
            write(&counting)
            return String(unsafeUninitializedCapacity: counting.count) { buffer in
                var writing = KeyWriter(out: buffer)
                write(&writing)
                return writing.count
            }
        }

        private init(out: UnsafeMutableBufferPointer<UInt8>? = nil) { self.out = out }

        mutating func text(_ s: String) {
            var s = s
            s.withUTF8 { bytes in
                if let out, let from = bytes.baseAddress, !bytes.isEmpty {
                    (out.baseAddress! + count).update(from: from, count: bytes.count)
                }
                count += bytes.count
            }
        }

        /// `n` in decimal, as `String(n)` writes it.
        mutating func number(_ n: Int64) {
            var digits = 1
            var rest = n.magnitude
            while rest >= 10 {
                rest /= 10
                digits += 1
            }
            let width = digits + (n < 0 ? 1 : 0)
            if let out {
                if n < 0 { out[count] = UInt8(ascii: "-") }
                var i = count + width
                rest = n.magnitude
                repeat {
                    i -= 1
                    out[i] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                } while rest > 0
            }
            count += width
        }
    }

    /// Whether `key` is `triggerKey(t)`, compared word by word in place, writing nothing: a start compares 100,000.
    public static func triggerKey(_ key: String, isThatOf t: Trigger) -> Bool {
        var key = key
        return key.withUTF8 { bytes in
            var rest = KeyReader(rest: bytes[...])
            switch t {
            case .interval(let span, let repeats):
                return rest.word("interval") && rest.number(span.nanoseconds) && rest.space()
                    && rest.text(repeats ? "repeats" : "once") && rest.atEnd
            case .date(let at):
                return rest.word("date") && rest.number(at.nanoseconds) && rest.atEnd
            case .calendar(let c):
                guard rest.word("calendar"), rest.word(c.policy.rawValue) else { return false }
                if let zone = c.zone {
                    guard rest.number(Int64(zone.utf8.count)), rest.space(), rest.word(zone) else { return false }
                } else {
                    guard rest.word("-") else { return false }
                }
                return rest.text(c.spec) && rest.atEnd
            }
        }
    }

    /// The unread part of a trigger key, whose words a space separates.
    private struct KeyReader {
        var rest: Slice<UnsafeBufferPointer<UInt8>>
        var atEnd: Bool { rest.isEmpty }

        /// Reads `w` and the space after it.
        mutating func word(_ w: String) -> Bool { text(w) && space() }

        /// Reads the bytes of `w` (the spec, last in a key, may hold spaces).
        mutating func text(_ w: String) -> Bool {
            var w = w
            return w.withUTF8 { w in
                // By memcmp: the generic comparison of two slices cost about a thousand instructions a key.
                guard rest.count >= w.count else { return false }
                guard let a = w.baseAddress, let b = rest.base.baseAddress else { return w.isEmpty }
                guard memcmp(a, b + rest.startIndex, w.count) == 0 else { return false }
                rest = rest.dropFirst(w.count)
                return true
            }
        }

        /// Reads `n` in decimal as `String(n)` writes it.
        mutating func number(_ n: Int64) -> Bool {
            var digits = n.magnitude
            var end = rest.startIndex
            while end < rest.endIndex, rest[end] != UInt8(ascii: " ") { end += 1 }
            var i = end
            repeat {
                i -= 1
                guard i >= rest.startIndex, rest[i] == UInt8(ascii: "0") + UInt8(digits % 10) else { return false }
                digits /= 10
            } while digits > 0
            guard i == rest.startIndex + (n < 0 ? 1 : 0), n >= 0 || rest[rest.startIndex] == UInt8(ascii: "-") else {
                return false
            }
            rest = rest[end...]
            return true
        }

        mutating func space() -> Bool {
            guard rest.first == UInt8(ascii: " ") else { return false }
            rest = rest.dropFirst()
            return true
        }
    }

    /// Schema 5: declared reminders that earlier versions stored whole as JSON in `requests` move to `declared`,
    /// keeping their schedules (run when a database older than 5 is opened). Rows that cannot be decoded stay where
    /// they are, to be set aside when loaded.
    func moveDeclaredOutOfRequests() throws(StoreError) {
        let stored = try statement("SELECT value FROM requests").rows { $0.text(0) ?? "" }
        for value in stored {
            guard let r = try? decode(ScheduledRequest.self, value, what: "a request"), r.source != nil else { continue }
            try write(r)
        }
    }
}
