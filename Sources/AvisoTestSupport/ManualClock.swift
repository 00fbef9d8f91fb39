import Synchronization

/// A `Clock` for tests that only moves when the test calls `advance(by:)`.
///
/// Sleepers whose deadline is passed are resumed in deadline order (ties in the order they went to sleep). Resumed
/// tasks then run concurrently, so a test that needs one to finish reacting before the next wakes should advance
/// in steps and await an event from it; `sleepers(count:)` lets a test wait until the code under test has gone to
/// sleep before advancing.
public final class ManualClock: Clock, Sendable {
    /// A point on the manual clock: the elapsed time since the clock was made.
    public struct Instant: InstantProtocol, Hashable, Sendable {
        /// Time since the clock's origin.
        public var offset: Duration

        /// The instant `offset` after the clock's origin.
        public init(offset: Duration) { self.offset = offset }

        /// The instant `duration` later (earlier if negative).
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        /// The time from this instant to `other`, negative if `other` is earlier.
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        /// Whether `a` comes before `b`.
        public static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
    }

    private struct Sleeper {
        var id: UInt64
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct CountWaiter {
        var count: Int
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
        var cancelled: Set<UInt64> = []
        var countWaiters: [CountWaiter] = []
    }

    private let state = Mutex(State())

    /// Makes a clock at offset zero with no sleepers.
    public init() {}

    /// The current instant; it changes only in `advance(by:)` and `advance(to:)`.
    public var now: Instant { state.withLock { $0.now } }

    /// One nanosecond: the clock represents any instant exactly.
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// How many tasks are sleeping on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Suspends until the clock has been advanced to `deadline`; returns at once if it already has.
    ///
    /// Throws `CancellationError` if the task is cancelled first. `tolerance` is ignored.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { s in
            defer { s.nextID += 1 }
            return s.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { s in
                    if s.cancelled.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline <= s.now { return .success(()) }
                    s.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) } else { notifyCountWaiters() }
            }
        } onCancel: {
            let sleeper: Sleeper? = state.withLock { s in
                guard let index = s.sleepers.firstIndex(where: { $0.id == id }) else {
                    // Not asleep yet: make the sleep fail as soon as it starts.
                    s.cancelled.insert(id)
                    return nil
                }
                return s.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward by `duration`, waking every sleeper whose deadline is passed, earliest first.
    public func advance(by duration: Duration) {
        precondition(duration >= .zero, "ManualClock cannot go backwards")
        advance(to: now.advanced(by: duration))
    }

    /// Moves the clock to `target` (never backwards), waking sleepers whose deadline is passed, earliest first.
    public func advance(to target: Instant) {
        while true {
            let due: Sleeper? = state.withLock { s in
                let candidates = s.sleepers.enumerated().filter { $0.element.deadline <= target }
                let first = candidates.min { ($0.element.deadline, $0.element.id) < ($1.element.deadline, $1.element.id) }
                guard let first else {
                    s.now = max(s.now, target)
                    return nil
                }
                s.now = max(s.now, first.element.deadline)
                return s.sleepers.remove(at: first.offset)
            }
            guard let due else { return }
            due.continuation.resume()
        }
    }

    /// Waits until at least `count` tasks are sleeping on this clock (for example, before advancing past them).
    public func sleepers(count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { s in
                if s.sleepers.count >= count { return true }
                s.countWaiters.append(CountWaiter(count: count, continuation: continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private func notifyCountWaiters() {
        let ready: [CountWaiter] = state.withLock { s in
            let n = s.sleepers.count
            let ready = s.countWaiters.filter { $0.count <= n }
            s.countWaiters.removeAll { $0.count <= n }
            return ready
        }
        for waiter in ready { waiter.continuation.resume() }
    }
}
