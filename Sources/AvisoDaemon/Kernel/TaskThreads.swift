import AvisoCore
internal import CShims
import Glibc

/// Swift concurrency on aviso's own threads (`aviso-tasks-N` and `aviso-delays`) instead of libdispatch's worker pool,
/// whose monitor wakes the process once a second for as long as it exists: with nothing due, avisod sleeps in the
/// kernel. The jobs are the same; only the threads that run them change.
public enum TaskThreads {
    /// Installs the executor hooks, with one worker thread per core (at least two). Call once, on the main thread,
    /// before the first task, after the signals the daemon reads are blocked (the threads inherit the mask).
    /// Returns false when the threads could not be created; libdispatch's pool then runs the jobs as before.
    @discardableResult
    public static func install() -> Bool {
        let cores = Int32(clamping: sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        return aviso_executor_install(max(2, min(cores, 8))) == 0
    }
}

extension TaskThreads {
    /// Suspends the calling task for `span`, woken by aviso's timer thread; returns early when the task is cancelled.
    /// Task.sleep would start libdispatch's pool: the runtime waits for it with dispatch_after.
    public static func sleep(for span: Span) async {
        let wake = Wake()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                guard wake.set(c) else { return }
                aviso_executor_after(span.nanoseconds, { raw in
                    Unmanaged<Wake>.fromOpaque(raw!).takeRetainedValue().resume()
                }, Unmanaged.passRetained(wake).toOpaque())
            }
        } onCancel: {
            wake.resume()
        }
    }

    /// Resumes its continuation once, from whichever comes first: the timer or a cancellation (which may come
    /// before the continuation is there).
    private final class Wake: @unchecked Sendable {
        private var mutex = pthread_mutex_t()
        private var continuation: CheckedContinuation<Void, Never>?
        private var done = false

        init() { pthread_mutex_init(&mutex, nil) }
        deinit { pthread_mutex_destroy(&mutex) }

        /// Keeps `c`; false (and `c` resumed) when the wait is already over.
        func set(_ c: CheckedContinuation<Void, Never>) -> Bool {
            pthread_mutex_lock(&mutex)
            let over = done
            if !over { continuation = c }
            pthread_mutex_unlock(&mutex)
            if over { c.resume() }
            return !over
        }

        func resume() {
            pthread_mutex_lock(&mutex)
            let c = continuation
            continuation = nil
            done = true
            pthread_mutex_unlock(&mutex)
            c?.resume()
        }
    }
}
