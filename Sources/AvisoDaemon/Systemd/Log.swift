import Glibc
import Synchronization

/// Log lines on stderr with sd-daemon priority prefixes, which journald turns into message priorities.
///
/// Each message becomes exactly one line (embedded newlines become spaces) written with a single unbuffered
/// `write`, under a lock, so lines from different threads never interleave.
public enum Log {
    /// The syslog priorities aviso uses, with their sd-daemon prefix numbers.
    enum Priority: Int {
        case error = 3, warning = 4, notice = 5, info = 6, debug = 7
    }

    private static let lock = Mutex(())

    /// Something failed and a person should look: a broken file, a delivery that could not be made.
    public static func error(_ message: String) { emit(.error, message) }
    /// Something unexpected that aviso worked around.
    public static func warning(_ message: String) { emit(.warning, message) }
    /// A normal but significant event: startup, reload, shutdown.
    public static func notice(_ message: String) { emit(.notice, message) }
    /// Routine information: a notification delivered, timers re-armed.
    public static func info(_ message: String) { emit(.info, message) }
    /// Detail for debugging.
    public static func debug(_ message: String) { emit(.debug, message) }

    /// The exact line written for a message, newline included.
    static func line(_ priority: Priority, _ message: String) -> String {
        var flat = ""
        flat.unicodeScalars.append(contentsOf: message.unicodeScalars.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
        return "<\(priority.rawValue)>\(flat)\n"
    }

    /// Writes the line for `message` to `fd` (stderr unless a test redirects it).
    static func emit(_ priority: Priority, _ message: String, to fd: Int32 = STDERR_FILENO) {
        var bytes = Array(line(priority, message).utf8)
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
}
