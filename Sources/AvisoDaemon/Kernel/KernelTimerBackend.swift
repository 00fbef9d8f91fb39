import AvisoCore
import Glibc
import Synchronization

/// The timer backend on Linux timerfds: two timerfds in all, one per clock, each armed at the earliest deadline of
/// its clock's timers, waited on by one thread in `epoll_wait`.
///
/// The realtime timerfd has CANCEL_ON_SET and, with no realtime timer armed, waits at a moment far in the future: it
/// also reports clock steps and resumes, as `.clockChanged`. With nothing due the thread sleeps in the kernel with no
/// timeout, so an idle daemon causes no wakeups. `arm` and `disarm` may be called from any thread. Call `stop()` when
/// done: the thread keeps the backend alive until then.
public final class KernelTimerBackend: TimerBackend {
    /// The most timers that can be armed at once: the scheduler's window of 64, and its timer for held
    /// notifications.
    public static let capacity = 65

    private struct State {
        var byID: [String: TimerSpec] = [:]
        /// What each clock's timerfd is armed at (nil: the boottime timerfd is disarmed; the realtime one then waits
        /// at `farFuture`).
        var armedAt: [KernelClock: Int64] = [:]
        var stopped = false
        var simulatedClockChanges = 0
    }

    /// Far enough ahead never to fire (2116); near enough that the kernel accepts it as a valid time.
    private static let farFuture: Int64 = 1 << 62

    private let state = Mutex(State())
    private let epollFD: Int32
    /// Wakes the thread for `stop()` and `simulateClockChange()`. Arming needs no wakeup: `timerfd_settime` changes
    /// what `epoll_wait` is blocked on.
    private let wakeFD: Int32
    private let realtimeFD: Int32
    private let boottimeFD: Int32
    private let continuation: AsyncStream<TimerEvent>.Continuation

    /// Firings and clock changes, in the order observed. One consumer; finishes after `stop()`.
    public let events: AsyncStream<TimerEvent>

    /// Creates the epoll set and the two timerfds, and starts the timer thread.
    public init() throws(SystemError) {
        var opened: [Int32] = []
        do throws(SystemError) {
            let epollFD = try Epoll.create()
            opened.append(epollFD)
            let wakeFD = try EventFD.create()
            opened.append(wakeFD)
            let realtimeFD = try TimerFD.create(.realtime)
            opened.append(realtimeFD)
            let boottimeFD = try TimerFD.create(.boottime)
            opened.append(boottimeFD)
            try TimerFD.arm(realtimeFD, clock: .realtime, deadline: Self.farFuture)
            for fd in [wakeFD, realtimeFD, boottimeFD] { try Epoll.add(epollFD, fd) }
            self.epollFD = epollFD
            self.wakeFD = wakeFD
            self.realtimeFD = realtimeFD
            self.boottimeFD = boottimeFD
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
    /// are already armed, and the kernel's error if the clock's timerfd cannot be set (then nothing changes). Does
    /// nothing after `stop()`.
    public func arm(_ spec: TimerSpec) throws(SystemError) {
        try state.withLock { (s) throws(SystemError) in
            if s.stopped { return }
            let old = s.byID[spec.id]
            guard old != nil || s.byID.count < Self.capacity else { throw SystemError("KernelTimerBackend.arm", .noSpace) }
            s.byID[spec.id] = spec
            do throws(SystemError) {
                try rearm(spec.clock, in: &s)
                if let old, old.clock != spec.clock { try rearm(old.clock, in: &s) }
            } catch {
                s.byID[spec.id] = old
                try? rearm(spec.clock, in: &s)
                throw error
            }
        }
    }

    /// Disarms the timer `id`; a no-op if it is not armed. A firing already emitted is not taken back.
    public func disarm(_ id: String) {
        state.withLock { s in
            guard let spec = s.byID.removeValue(forKey: id) else { return }
            do { try rearm(spec.clock, in: &s) } catch {
                // Left at an earlier deadline, it wakes the thread once for nothing and is set again then.
                Log.error("cannot move the \(spec.clock) timer after disarming '\(id)': \(error)")
            }
        }
    }

    /// How many timers are armed and have not fired.
    public var armedCount: Int { state.withLock { $0.byID.count } }

    /// Stops the thread, closes the timerfds and finishes `events`. Idempotent.
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

    /// Sets `clock`'s timerfd to the earliest deadline of its timers, unless it is already set there (`force`: set it
    /// anyway).
    private func rearm(_ clock: KernelClock, in s: inout State, force: Bool = false) throws(SystemError) {
        let earliest = s.byID.values.lazy.filter { $0.clock == clock }.map(\.deadline).min()
        guard force || earliest != s.armedAt[clock] else { return }
        switch (clock, earliest) {
        case (.realtime, let deadline):
            try TimerFD.arm(realtimeFD, clock: .realtime, deadline: deadline ?? Self.farFuture)
        case (.boottime, let deadline?):
            try TimerFD.arm(boottimeFD, clock: .boottime, deadline: deadline)
        case (.boottime, nil):
            try TimerFD.disarm(boottimeFD)
        }
        s.armedAt[clock] = earliest
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
            var clocks: [KernelClock] = []
            for fd in ready {
                if fd == wakeFD {
                    EventFD.drain(wakeFD)
                    let simulated = state.withLock { s in
                        defer { s.simulatedClockChanges = 0 }
                        return s.simulatedClockChanges
                    }
                    if simulated > 0 { continuation.yield(.clockChanged) }
                } else if fd == realtimeFD {
                    if (try? TimerFD.read(realtimeFD)) == .clockChanged {
                        // The read that reports the step also drops an expiration not read yet: `fireDue` below
                        // looks at the clock for that. The timerfd stays armed on the kernels tested (the suite's
                        // real-step test passes without this), and is set again all the same, at one syscall a step.
                        state.withLock { s in
                            do { try rearm(.realtime, in: &s, force: true) } catch {
                                Log.error("cannot set the realtime timer again after a clock change: \(error)")
                            }
                        }
                        continuation.yield(.clockChanged)
                    }
                    clocks.append(.realtime)
                } else if fd == boottimeFD {
                    _ = try? TimerFD.read(boottimeFD)
                    clocks.append(.boottime)
                }
            }
            fireDue(on: clocks)
            if state.withLock({ $0.stopped }) { break }
        }
        shutDown()
    }

    /// Reports every timer of `clocks` whose deadline has come, in deadline order, and sets each timerfd to what
    /// is left. A wake for a timer disarmed or moved meanwhile finds nothing due, and changes nothing.
    private func fireDue(on clocks: [KernelClock]) {
        guard !clocks.isEmpty else { return }
        let fired: [TimerSpec] = state.withLock { s in
            var fired: [TimerSpec] = []
            for clock in clocks {
                let now = KernelClocks.read(clock == .realtime ? CLOCK_REALTIME : CLOCK_BOOTTIME)
                for spec in s.byID.values where spec.clock == clock && spec.deadline <= now {
                    fired.append(spec)
                    s.byID[spec.id] = nil
                }
                do { try rearm(clock, in: &s) } catch {
                    Log.error("cannot set the \(clock) timer after a firing: \(error)")
                }
            }
            return fired
        }
        for spec in fired.sorted(by: { ($0.deadline, $0.id) < ($1.deadline, $1.id) }) {
            continuation.yield(.fired(id: spec.id))
        }
    }

    private func shutDown() {
        state.withLock { s in
            s.byID = [:]
            close(wakeFD)
        }
        close(realtimeFD)
        close(boottimeFD)
        close(epollFD)
        continuation.finish()
    }
}
