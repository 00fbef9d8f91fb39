import AvisoCore
import Synchronization

/// Asks for a systemd watchdog ping every `interval`, from a deadline on the event loop.
///
/// The ping itself is sent by whoever `ping` awaits (the scheduler's actor): a scheduler that is stuck never sends
/// it, and systemd restarts the daemon. While one ping waits for the actor no second one is asked for, so a stuck
/// actor does not pile up tasks.
final class WatchdogTick: Sendable {
    private let loop: EventLoop
    private let interval: Int64
    private let ping: @Sendable () async -> Void
    private let state = Mutex<(deadline: EventLoop.Token?, waiting: Bool)>((nil, false))

    /// Asks for the first ping at once.
    init(loop: EventLoop, every interval: Span, ping: @escaping @Sendable () async -> Void) {
        self.loop = loop
        self.interval = max(interval.nanoseconds, 1_000_000)
        self.ping = ping
        let deadline = loop.deadline { self.tick() }
        state.withLock { $0.deadline = deadline }
        loop.setDeadline(deadline, at: EventLoop.monotonic())
    }

    private func tick() {
        let (deadline, start) = state.withLock { s in
            defer { s.waiting = true }
            return (s.deadline, !s.waiting)
        }
        guard let deadline else { return }
        if start {
            Task {
                await ping()
                state.withLock { $0.waiting = false }
            }
        }
        loop.setDeadline(deadline, at: EventLoop.monotonic() + interval)
    }

    /// Asks for no more pings.
    func stop() {
        guard let deadline = state.withLock({ s in defer { s.deadline = nil }; return s.deadline }) else { return }
        loop.removeDeadline(deadline)
    }
}
