import AvisoCore
import Glibc
import Synchronization

/// The timer backend on Linux timerfds: two timerfds in all, one per clock, each armed at the earliest deadline of
/// its clock's timers, watched by an `EventLoop`.
///
/// The realtime timerfd has CANCEL_ON_SET and, with no realtime timer armed, waits at a moment far in the future: it
/// also reports clock steps and resumes, as `.clockChanged`. With nothing due the loop sleeps in the kernel with no
/// timeout, so an idle daemon causes no wakeups. `arm` and `disarm` may be called from any thread. Call `stop()` when
/// done: the loop keeps the backend alive until then.
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
        /// The two timerfds' places in the loop.
        var watches: [EventLoop.Token] = []
    }

    /// Far enough ahead never to fire (2116); near enough that the kernel accepts it as a valid time.
    private static let farFuture: Int64 = 1 << 62

    private let state = Mutex(State())
    private let loop: EventLoop
    /// Whether `loop` was made for this backend alone (and is stopped with it).
    private let ownsLoop: Bool
    private let realtimeFD: Int32
    private let boottimeFD: Int32
    private let continuation: AsyncStream<TimerEvent>.Continuation

    /// Firings and clock changes, in the order observed. One consumer; finishes after `stop()`.
    public let events: AsyncStream<TimerEvent>

    /// Creates the two timerfds and watches them on `loop` (a loop of its own when nil).
    public init(loop: EventLoop? = nil) throws(SystemError) {
        var opened: [Int32] = []
        do throws(SystemError) {
            let realtimeFD = try TimerFD.create(.realtime)
            opened.append(realtimeFD)
            let boottimeFD = try TimerFD.create(.boottime)
            opened.append(boottimeFD)
            try TimerFD.arm(realtimeFD, clock: .realtime, deadline: Self.farFuture)
            self.realtimeFD = realtimeFD
            self.boottimeFD = boottimeFD
            if let loop { self.loop = loop } else { self.loop = try EventLoop(name: "aviso-timers") }
        } catch {
            for fd in opened { close(fd) }
            throw error
        }
        ownsLoop = loop == nil
        (events, continuation) = AsyncStream.makeStream(of: TimerEvent.self, bufferingPolicy: .unbounded)
        do throws(SystemError) {
            let realtime = try self.loop.watch(realtimeFD) { _ in self.realtimeReady() }
            state.withLock { $0.watches.append(realtime) }
            let boottime = try self.loop.watch(boottimeFD) { _ in
                _ = try? TimerFD.read(self.boottimeFD)
                self.fireDue(on: .boottime)
            }
            state.withLock { $0.watches.append(boottime) }
        } catch {
            shutDown()
            if ownsLoop { self.loop.stop() }
            throw error
        }
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

    /// Stops watching, closes the timerfds and finishes `events`; returns when that is done. Idempotent.
    public func stop() {
        let first = state.withLock { s in
            defer { s.stopped = true }
            return !s.stopped
        }
        guard first else { return }
        loop.executeAndWait { self.shutDown() }
        if ownsLoop { loop.stop() }
    }

    /// For tests: emits `.clockChanged` from the loop, as a real clock step (which needs CAP_SYS_TIME) would.
    public func simulateClockChange() {
        loop.execute {
            if !self.state.withLock({ $0.stopped }) { self.continuation.yield(.clockChanged) }
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

    /// The realtime timerfd fired, or reported a clock change.
    private func realtimeReady() {
        if (try? TimerFD.read(realtimeFD)) == .clockChanged {
            // The read that reports the step also drops an expiration not read yet: `fireDue` below looks at the
            // clock for that. The timerfd stays armed on the kernels tested (the suite's real-step test passes
            // without this), and is set again all the same, at one syscall a step.
            state.withLock { s in
                if s.stopped { return }
                do { try rearm(.realtime, in: &s, force: true) } catch {
                    Log.error("cannot set the realtime timer again after a clock change: \(error)")
                }
            }
            continuation.yield(.clockChanged)
        }
        fireDue(on: .realtime)
    }

    /// Reports every timer of `clock` whose deadline has come, in deadline order, and sets its timerfd to what is
    /// left. A wake for a timer disarmed or moved meanwhile finds nothing due, and changes nothing.
    private func fireDue(on clock: KernelClock) {
        let fired: [TimerSpec] = state.withLock { s in
            if s.stopped { return [] }
            let now = KernelClocks.read(clock == .realtime ? CLOCK_REALTIME : CLOCK_BOOTTIME)
            var fired: [TimerSpec] = []
            for spec in s.byID.values where spec.clock == clock && spec.deadline <= now {
                fired.append(spec)
                s.byID[spec.id] = nil
            }
            do { try rearm(clock, in: &s) } catch {
                Log.error("cannot set the \(clock) timer after a firing: \(error)")
            }
            return fired
        }
        for spec in fired.sorted(by: { ($0.deadline, $0.id) < ($1.deadline, $1.id) }) {
            continuation.yield(.fired(id: spec.id))
        }
    }

    private func shutDown() {
        for token in state.withLock({ $0.watches }) { loop.unwatch(token) }
        state.withLock { s in
            s.stopped = true
            s.byID = [:]
            // Closed under the lock: `arm` sets them under it.
            close(realtimeFD)
            close(boottimeFD)
        }
        continuation.finish()
    }
}
