internal import CSystemd
import Glibc
import Synchronization

/// Log lines on stderr with sd-daemon priority prefixes, which journald turns into message priorities; or, when
/// stderr is the journal (`JOURNAL_STREAM`), journal entries with structured fields.
///
/// Each message becomes exactly one line (embedded newlines become spaces) written with a single unbuffered
/// `write`, under a lock, so lines from different threads never interleave. In the journal each message is one
/// entry with `MESSAGE`, `PRIORITY`, `SYSLOG_IDENTIFIER` and, where they apply, `AVISO_EVENT`, `AVISO_ID` (once per
/// notification concerned) and `AVISO_CATEGORY`, so `journalctl --user -u aviso AVISO_ID=tea` finds one request's
/// story. An entry the journal does not take is written to stderr instead.
public enum Log {
    /// The syslog priorities aviso uses, with their sd-daemon prefix numbers.
    enum Priority: Int {
        case error = 3, warning = 4, notice = 5, info = 6, debug = 7
    }

    /// What a message is about, for the journal's fields.
    public struct Fields: Sendable {
        /// `added`, `replaced`, `removed`, `declared`, `updated`, `fired`, `delivered`, `skipped`, `evicted`,
        /// `held`, `action`, `closed`, `logged`, ...
        public var event: String
        public var ids: [String]
        public var category: String?

        public static func event(_ event: String, ids: [String], category: String? = nil) -> Fields {
            Fields(event: event, ids: ids, category: category)
        }

        public static func event(_ event: String, id: String, category: String? = nil) -> Fields {
            Fields(event: event, ids: [id], category: category)
        }
    }

    private static let lock = Mutex(())
    private static let toJournal = Atomic(false)

    /// Something failed and a person should look: a broken file, a delivery that could not be made.
    public static func error(_ message: String, _ fields: Fields? = nil) { emit(.error, message, fields) }
    /// Something unexpected that aviso worked around.
    public static func warning(_ message: String, _ fields: Fields? = nil) { emit(.warning, message, fields) }
    /// A normal but significant event: startup, reload, shutdown.
    public static func notice(_ message: String, _ fields: Fields? = nil) { emit(.notice, message, fields) }
    /// Routine information: a notification delivered, timers re-armed.
    public static func info(_ message: String, _ fields: Fields? = nil) { emit(.info, message, fields) }
    /// Detail for debugging.
    public static func debug(_ message: String, _ fields: Fields? = nil) { emit(.debug, message, fields) }

    /// Sends messages to the journal from now on when stderr is the stream `JOURNAL_STREAM` names (as systemd sets
    /// it for a service whose output goes to the journal); returns whether it is.
    @discardableResult
    public static func useJournalIfStderrIsIt(environment: [String: String]) -> Bool {
        let parts = (environment["JOURNAL_STREAM"] ?? "").split(separator: ":")
        var info = stat()
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]),
              fstat(STDERR_FILENO, &info) == 0, UInt64(info.st_dev) == device, UInt64(info.st_ino) == inode else {
            return false
        }
        toJournal.store(true, ordering: .relaxed)
        return true
    }

    /// The exact line written for a message, newline included.
    static func line(_ priority: Priority, _ message: String) -> String { String(decoding: lineBytes(priority, message), as: UTF8.self) }

    /// The line's bytes: the message's own, with each line break made a space (both are single bytes in UTF-8).
    private static func lineBytes(_ priority: Priority, _ message: String) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(ascii: "<"), UInt8(ascii: "0") + UInt8(priority.rawValue), UInt8(ascii: ">")]
        bytes.reserveCapacity(message.utf8.count + 4)
        for b in message.utf8 { bytes.append(b == UInt8(ascii: "\n") || b == UInt8(ascii: "\r") ? UInt8(ascii: " ") : b) }
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// The journal fields of a message, each "KEY=VALUE".
    static func journalFields(_ priority: Priority, _ message: String, _ fields: Fields?) -> [String] {
        var out = ["MESSAGE=" + message, "PRIORITY=\(priority.rawValue)", "SYSLOG_IDENTIFIER=avisod"]
        if let fields {
            out.append("AVISO_EVENT=" + fields.event)
            out += fields.ids.map { "AVISO_ID=" + $0 }
            if let c = fields.category { out.append("AVISO_CATEGORY=" + c) }
        }
        return out
    }

    /// Sends `message` to the journal, or writes its line to `fd` (stderr unless a test redirects it).
    static func emit(_ priority: Priority, _ message: String, _ fields: Fields? = nil, to fd: Int32 = STDERR_FILENO) {
        if toJournal.load(ordering: .relaxed), sendToJournal(journalFields(priority, message, fields)) { return }
        var bytes = lineBytes(priority, message)
        lock.withLock { _ in
            var offset = 0
            while offset < bytes.count {
                let n = bytes.withUnsafeMutableBytes { raw in
                    try? syscall("write") { Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset) }
                }
                // A closed or full stderr must not take the daemon down; the line is dropped.
                guard let n, n > 0 else { return }
                offset += n
            }
        }
    }

    private static func sendToJournal(_ fields: [String]) -> Bool {
        var bytes: [UInt8] = []
        var ranges: [Range<Int>] = []
        for f in fields {
            let start = bytes.count
            bytes += f.utf8
            ranges.append(start..<bytes.count)
        }
        return bytes.withUnsafeMutableBytes { raw in
            let vectors = ranges.map { iovec(iov_base: raw.baseAddress! + $0.lowerBound, iov_len: $0.count) }
            return sd_journal_sendv(vectors, Int32(vectors.count)) >= 0
        }
    }
}
