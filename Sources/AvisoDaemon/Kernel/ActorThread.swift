import Glibc

/// A serial executor with a thread of its own, for an actor whose work blocks: the scheduler's SQLite commits wait for
/// their `fdatasync`, and an edited reminder file is read and parsed where its reload is handled. On that thread, the
/// wait holds up only the actor that needs its result, never the threads that run every other task (the control
/// socket's requests, the D-Bus answers, the hooks' results).
///
/// Jobs run one at a time in the order they came. The thread sleeps on a condition variable while there are none,
/// and ends when `stop()` has been called and what was queued has run.
final class ActorThread: SerialExecutor, @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var ready = pthread_cond_t()
    private var queued: [UnownedJob] = []
    private var stopping = false

    /// Starts the thread, named `name` (at most 15 bytes are kept by the kernel). It holds the executor until it ends.
    init(name: String) {
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&ready, nil)
        KernelThread.spawn(name: name) { [self] in run() }
    }

    deinit {
        pthread_cond_destroy(&ready)
        pthread_mutex_destroy(&mutex)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        pthread_mutex_lock(&mutex)
        queued.append(job)
        pthread_cond_signal(&ready)
        pthread_mutex_unlock(&mutex)
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

    /// Ends the thread once the jobs already queued have run (its actor has gone: no new job can come).
    func stop() {
        pthread_mutex_lock(&mutex)
        stopping = true
        pthread_cond_signal(&ready)
        pthread_mutex_unlock(&mutex)
    }

    private func run() {
        let executor = asUnownedSerialExecutor()
        var batch: [UnownedJob] = []
        while true {
            pthread_mutex_lock(&mutex)
            while queued.isEmpty && !stopping { pthread_cond_wait(&ready, &mutex) }
            if queued.isEmpty {
                pthread_mutex_unlock(&mutex)
                return
            }
            // Everything queued so far is taken at once, so the lock is not taken again for each job.
            swap(&batch, &queued)
            pthread_mutex_unlock(&mutex)
            for job in batch { job.runSynchronously(on: executor) }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
