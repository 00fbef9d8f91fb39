internal import CKernel
import Glibc
import Synchronization

/// Starts a detached POSIX thread for a loop that blocks in the kernel (epoll_wait, read on a signalfd).
///
/// Blocking calls must not run on Swift's cooperative pool, which has one thread per core.
enum KernelThread {
    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Runs `body` on a new detached thread named `name` (at most 15 bytes are kept by the kernel).
    static func spawn(name: String, _ body: @escaping @Sendable () -> Void) {
        let rc = start(name: name, body)
        precondition(rc == 0, "pthread_create failed with \(Errno(rawValue: rc))")
    }

    /// `spawn`, for work that has another way to be done: pthread_create's error (EAGAIN when the process is out of
    /// threads), with `body` never run, or 0.
    static func start(name: String, _ body: @escaping @Sendable () -> Void) -> Int32 {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.body()
            return nil
        }, box)
        guard rc == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            return rc
        }
        _ = aviso_set_thread_name(thread, String(name.prefix(15)))
        pthread_detach(thread)
        return 0
    }

    /// Calls `body(worker, item)` once for each item in `0..<count`, on this thread and up to `workers - 1` new ones,
    /// and returns when every call has: for blocking work (reading and parsing files) that would otherwise take one
    /// core. `worker` is in `0..<workers`, the same for every call on one thread.
    static func forEach(_ count: Int, workers: Int, _ body: @escaping @Sendable (_ worker: Int, _ item: Int) -> Void) {
        let cursor = Cursor()
        let helpers = max(0, min(workers, count) - 1)
        let work: @Sendable (Int) -> Void = { worker in
            while true {
                let item = cursor.next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard item < count else { return }
                body(worker, item)
            }
        }
        var threads: [pthread_t] = []
        for worker in 1..<(1 + helpers) {
            let box = Unmanaged.passRetained(Box { work(worker) }).toOpaque()
            var thread = pthread_t()
            let rc = pthread_create(&thread, nil, { raw in
                Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
                return nil
            }, box)
            guard rc == 0 else {
                Unmanaged<Box>.fromOpaque(box).release()
                break
            }
            _ = aviso_set_thread_name(thread, "aviso-reading")
            threads.append(thread)
        }
        work(0)
        for thread in threads { pthread_join(thread, nil) }
    }

    private final class Cursor: Sendable {
        let next = Atomic<Int>(0)
    }
}
