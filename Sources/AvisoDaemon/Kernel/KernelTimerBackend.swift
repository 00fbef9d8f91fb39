import AvisoCore
import Glibc
import Synchronization

/// The timer backend on Linux timerfds: one timerfd per armed timer, all waited on by one thread in `epoll_wait`.
///
/// With nothing due the thread sleeps in the kernel with no timeout, so an idle daemon causes no wakeups.
/// A realtime timerfd with CANCEL_ON_SET, armed far in the future, reports clock steps and resumes as
/// `.clockChanged`. `arm` and `disarm` may be called from any thread. Call `stop()` when done: the thread keeps
/// the backend alive until then.
public final class KernelTimerBackend: TimerBackend {
    /// The most timers that can be armed at once: the scheduler's window of 64, and its timer for held
    /// notifications.
    public static let capacity = 65

    private struct Armed {
        var fd: Int32
        var spec: TimerSpec
    }

    private struct State {
        var byID: [String: Armed] = [:]
        var idByFD: [Int32: String] = [:]
        var stopped = false
        var simulatedClockChanges = 0
    }

    /// Far enough ahead never to fire (2116); near enough that the kernel accepts it as a valid time.
    private static let farFuture: Int64 = 1 << 62

    private let state = Mutex(State())
    private let epollFD: Int32
    /// Wakes the thread for `stop()` and `simulateClockChange()`. Arming needs no wakeup: `epoll_ctl` changes the
    /// set that `epoll_wait` is blocked on.
    private let wakeFD: Int32
    private let clockWatchFD: Int32
    private let continuation: AsyncStream<TimerEvent>.Continuation

    /// Firings and clock changes, in the order observed. One consumer; finishes after `stop()`.
    public let events: AsyncStream<TimerEvent>

    /// Creates the epoll set and the clock-change watcher, and starts the timer thread.
    public init() throws(SystemError) {
        var opened: [Int32] = []
        do throws(SystemError) {
            let epollFD = try Epoll.create()
            opened.append(epollFD)
            let wakeFD = try EventFD.create()
            opened.append(wakeFD)
            let clockWatchFD = try TimerFD.create(.realtime)
            opened.append(clockWatchFD)
            try TimerFD.arm(clockWatchFD, clock: .realtime, deadline: Self.farFuture)
            try Epoll.add(epollFD, wakeFD)
            try Epoll.add(epollFD, clockWatchFD)
            self.epollFD = epollFD
            self.wakeFD = wakeFD
            self.clockWatchFD = clockWatchFD
        } catch {
            for fd in opened { close(fd) }
            throw error
        }
        (events, continuation) = AsyncStream.makeStream(of: TimerEvent.self, bufferingPolicy: .unbounded)
        KernelThread.spawn(name: "aviso-timers") { self.run() }
    }

    /// Arms (or re-arms, replacing) the timer `spec.id` at the absolute deadline on its clock.
    ///
    /// A deadline in the past fires at once. Throws ENOSPC from `KernelTimerBackend.arm` when `capacity` timers
    /// are already armed, and the kernel's error if a timerfd cannot be made. Does nothing after `stop()`.
    public func arm(_ spec: TimerSpec) throws(SystemError) {
        try state.withLock { (s) throws(SystemError) in
            if s.stopped { return }
            if let old = s.byID[spec.id] {
                if old.spec.clock == spec.clock {
                    // timerfd_settime replaces the deadline and clears any unread expiration.
                    try TimerFD.arm(old.fd, clock: spec.clock, deadline: spec.deadline)
                    s.byID[spec.id]?.spec = spec
                    return
                }
                remove(spec.id, from: &s)
            }
            guard s.byID.count < Self.capacity else { throw SystemError("KernelTimerBackend.arm", .noSpace) }
            let fd = try TimerFD.create(spec.clock)
            do throws(SystemError) {
                try TimerFD.arm(fd, clock: spec.clock, deadline: spec.deadline)
                try Epoll.add(epollFD, fd)
            } catch {
                close(fd)
                throw error
            }
            s.byID[spec.id] = Armed(fd: fd, spec: spec)
            s.idByFD[fd] = spec.id
        }
    }

    /// Disarms the timer `id`; a no-op if it is not armed. A firing already emitted is not taken back.
    public func disarm(_ id: String) {
        state.withLock { remove(id, from: &$0) }
    }

    /// How many timers are armed and have not fired.
    public var armedCount: Int { state.withLock { $0.byID.count } }

    /// Stops the thread, closes every timerfd and finishes `events`. Idempotent.
    public func stop() {
        // Signalled under the lock: the thread closes wakeFD under it too, so the fd cannot be closed (or reused)
        // between the check and the write.
        state.withLock { s in
            if s.stopped { return }
            s.stopped = true
            EventFD.signal(wakeFD)
        }
    }

    /// For tests: emits `.clockChanged` through the same path as a real clock step, which needs CAP_SYS_TIME.
    public func simulateClockChange() {
        state.withLock { s in
            if s.stopped { return }
            s.simulatedClockChanges += 1
            EventFD.signal(wakeFD)
        }
    }

    private func remove(_ id: String, from s: inout State) {
        guard let armed = s.byID.removeValue(forKey: id) else { return }
        s.idByFD[armed.fd] = nil
        // Closing also drops the fd from the epoll set; removing first keeps a reused fd number unambiguous.
        try? Epoll.remove(epollFD, armed.fd)
        close(armed.fd)
    }

    private func run() {
        while true {
            let ready: [Int32]
            do {
                ready = try Epoll.wait(epollFD).map(\.fd)
            } catch {
                // epoll_wait with valid arguments only fails with EINTR, which is retried; anything else is a bug.
                fatalError("timer thread: \(error)")
            }
            var timerFDs: [Int32] = []
            for fd in ready {
                if fd == wakeFD {
                    EventFD.drain(wakeFD)
                    let simulated = state.withLock { s in
                        defer { s.simulatedClockChanges = 0 }
                        return s.simulatedClockChanges
                    }
                    if simulated > 0 { clockChanged() }
                } else if fd == clockWatchFD {
                    if (try? TimerFD.read(clockWatchFD)) == .clockChanged { clockChanged() }
                } else {
                    timerFDs.append(fd)
                }
            }
            fireExpired(timerFDs)
            if state.withLock({ $0.stopped }) { break }
        }
        shutDown()
    }

    /// Reads the ready timers and reports the expired ones in deadline order.
    private func fireExpired(_ fds: [Int32]) {
        let fired: [TimerSpec] = state.withLock { s in
            var fired: [TimerSpec] = []
            for fd in fds {
                // The timer may have been disarmed or re-armed since epoll_wait returned: then it is stale.
                guard let id = s.idByFD[fd], let armed = s.byID[id] else { continue }
                switch try? TimerFD.read(fd) {
                case .expired:
                    fired.append(armed.spec)
                    remove(id, from: &s)
                case .clockChanged:
                    // The step cancelled it; its deadline is absolute, so it is simply re-armed. The watcher fd
                    // reports the change itself.
                    do { try TimerFD.arm(fd, clock: armed.spec.clock, deadline: armed.spec.deadline) } catch {
                        Log.error("timer \(id): cannot re-arm after a clock change: \(error)")
                    }
                case .notExpired, nil:
                    continue
                }
            }
            return fired
        }
        for spec in fired.sorted(by: { ($0.deadline, $0.id) < ($1.deadline, $1.id) }) {
            continuation.yield(.fired(id: spec.id))
        }
    }

    /// A cancelled watcher must be re-armed, or it would stay cancelled and report no further changes.
    private func clockChanged() {
        do { try TimerFD.arm(clockWatchFD, clock: .realtime, deadline: Self.farFuture) } catch {
            Log.error("cannot re-arm the clock-change watcher: \(error)")
        }
        continuation.yield(.clockChanged)
    }

    private func shutDown() {
        state.withLock { s in
            for id in Array(s.byID.keys) { remove(id, from: &s) }
            close(wakeFD)
        }
        close(clockWatchFD)
        close(epollFD)
        continuation.finish()
    }
}
