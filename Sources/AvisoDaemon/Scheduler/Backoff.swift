import AvisoCore

/// A retry that waits a delay doubling up to a maximum, one pending at a time, for work that failed and will be
/// tried again (a delivery nobody took, a write the disk refused). Owned by the scheduler actor.
struct Backoff {
    /// The wait before the next retry.
    private(set) var delay: Span
    private var pending: Task<Void, Never>?
    /// Tells a retry that was replaced or cancelled, and woke anyway, from the current one.
    private var ticket = 0

    init(initial: Span) { delay = initial }

    /// Whether a retry is waiting.
    var isPending: Bool { pending != nil }

    /// Runs `retry` after the current delay unless a retry is already waiting; the delay after it doubles, up to
    /// `maximum`. `retry` gets a ticket to `claim` first.
    mutating func schedule(maximum: Span, _ retry: @escaping @Sendable (_ ticket: Int) async -> Void) {
        guard pending == nil else { return }
        let wait = delay
        let mine = ticket
        delay = min(delay * 2, maximum)
        pending = Task {
            await TaskThreads.sleep(for: wait)
            if !Task.isCancelled { await retry(mine) }
        }
    }

    /// True, once, for the retry that is due; false for one that was cancelled or replaced meanwhile.
    mutating func claim(_ ticket: Int) -> Bool {
        guard ticket == self.ticket, pending != nil else { return false }
        pending = nil
        self.ticket += 1
        return true
    }

    /// Drops a waiting retry, and starts the delays over from `initial`.
    mutating func reset(to initial: Span) {
        pending?.cancel()
        pending = nil
        ticket += 1
        delay = initial
    }
}
