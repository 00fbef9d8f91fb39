import AvisoCore
import Glibc

/// Tells systemd about the service's state through the `sd_notify` protocol: readiness, status, watchdog pings,
/// reload, stop.
///
/// Every call is a no-op when the process was not started by systemd with `NOTIFY_SOCKET` set (as when run from
/// a shell or a test), so callers never need to check. The protocol is one datagram of `KEY=VALUE` lines to the
/// AF_UNIX socket `NOTIFY_SOCKET` names (a leading `@` for the abstract namespace), sent here rather than through
/// libsystemd's `sd_notify`, so that the environment is read from the value given, never from the process's own
/// (which tests would otherwise have to change under every other thread).
public struct SystemdNotifier: Sendable {
    /// Half of `WATCHDOG_USEC` when systemd expects watchdog pings for this process, nil if the watchdog is off.
    ///
    /// systemd's advice is to ping at half the timeout; `WATCHDOG_PID` is honoured, so a child that inherited the
    /// environment does not think the watchdog is its job.
    public let watchdogInterval: AvisoCore.Span?
    /// Where the messages go; nil: nowhere.
    private let socketPath: String?

    /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` from `environment` once.
    public init(environment: [String: String]) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { path in
            (path.hasPrefix("/") || path.hasPrefix("@")) && UnixSocket.fits(path) ? path : nil
        }
        let pidMatches = environment["WATCHDOG_PID"].map { Int32($0) == getpid() } ?? true
        if pidMatches, let usec = environment["WATCHDOG_USEC"].flatMap({ UInt64($0) }), usec > 0, usec < .max {
            watchdogInterval = AvisoCore.Span(nanoseconds: Int64(clamping: usec / 2) &* 1_000)
        } else {
            watchdogInterval = nil
        }
    }

    /// Reports that startup is complete; systemd considers the unit started only after this.
    public func ready(status: String) { send("READY=1\nSTATUS=\(Self.oneLine(status))") }

    /// Sets the one-line status that `systemctl --user status aviso` shows.
    public func status(_ line: String) { send("STATUS=\(Self.oneLine(line))") }

    /// Pings the watchdog; call it every `watchdogInterval` from the loop whose liveness it should prove.
    public func watchdog() { send("WATCHDOG=1") }

    /// Reports that a reload began at `monotonicUsec` (CLOCK_MONOTONIC in µs); follow it with `ready(status:)`.
    ///
    /// systemd (since 253) requires the timestamp to match the reload to the `ExecReload=` that requested it.
    public func reloading(monotonicUsec: UInt64) { send("RELOADING=1\nMONOTONIC_USEC=\(monotonicUsec)") }

    /// Reports that shutdown began, so systemd does not count the time to exit as a hang.
    public func stopping() { send("STOPPING=1") }

    /// The current CLOCK_MONOTONIC in microseconds, as `reloading(monotonicUsec:)` wants it.
    public static func monotonicUsec() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1_000
    }

    private func send(_ state: String) {
        // A failure here (socket gone, systemd restarting, a manager that stopped reading with its queue full) must not
        // stop the daemon, so nothing waits for the socket; systemd's own timeouts notice.
        guard let socketPath else { return }
        UnixSocket.sendDatagram(Array(state.utf8), to: socketPath)
    }

    /// A newline would end the STATUS= assignment and start a bogus one.
    private static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }
}
