internal import CKernel
import Glibc

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
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.body()
            return nil
        }, box)
        precondition(rc == 0, "pthread_create failed with \(Errno(rawValue: rc))")
        _ = aviso_set_thread_name(thread, String(name.prefix(15)))
        pthread_detach(thread)
    }
}
