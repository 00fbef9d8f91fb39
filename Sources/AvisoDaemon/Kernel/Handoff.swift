import Glibc

/// Batches handed from one thread to one other, in order: a pipeline of two stages on two cores. At most `capacity`
/// batches wait, so a producer faster than its consumer holds little beside what both are working on; `put` waits
/// while that many do, `take` while none does.
final class Handoff<Element>: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var changed = pthread_cond_t()
    private var waiting: [[Element]] = []
    private var finished = false
    private let capacity: Int
    /// What ended the producer's work early, if anything; read once `take()` has returned nil.
    private(set) var failure: (any Error)?

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&changed, nil)
    }

    deinit {
        pthread_cond_destroy(&changed)
        pthread_mutex_destroy(&mutex)
    }

    func put(_ batch: [Element]) {
        guard !batch.isEmpty else { return }
        pthread_mutex_lock(&mutex)
        while waiting.count >= capacity { pthread_cond_wait(&changed, &mutex) }
        waiting.append(batch)
        pthread_cond_broadcast(&changed)
        pthread_mutex_unlock(&mutex)
    }

    /// No batch follows; `failure` says why when the work ended early. The producer touches nothing the consumer may
    /// use once it has called this.
    func finish(failure: (any Error)? = nil) {
        pthread_mutex_lock(&mutex)
        finished = true
        self.failure = failure
        pthread_cond_broadcast(&changed)
        pthread_mutex_unlock(&mutex)
    }

    /// The next batch, or nil when the producer has finished and every batch was taken.
    func take() -> [Element]? {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        while waiting.isEmpty && !finished { pthread_cond_wait(&changed, &mutex) }
        guard !waiting.isEmpty else { return nil }
        let batch = waiting.removeFirst()
        pthread_cond_broadcast(&changed)
        return batch
    }

    /// Takes every batch left, unused, until the producer has finished: to wait for its end (a handoff that carries
    /// no batches is a join), or so that it never waits for room once the consumer has given up.
    func drain() {
        while take() != nil {}
    }
}

/// A value that is not Sendable (the store, the reminder directory), lent to another thread: that thread's alone
/// until it has finished, the lender meanwhile waiting for what it hands over, or for its end.
struct Lent<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
