import Glibc

/// Starts detached kernel threads for blocking work, away from Swift's cooperative pool.
///
/// The control server blocks in `accept` and `read`; doing that on the cooperative pool would starve every actor.
enum NativeThread {
    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Runs `body` on a new detached thread.
    static func spawn(_ body: @escaping @Sendable () -> Void) throws(SystemError) {
        let context = Unmanaged.passRetained(Box(body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        // Connection threads only parse a line and wait; a small stack keeps 32 of them cheap.
        pthread_attr_setstacksize(&attributes, 512 * 1024)
        var thread = pthread_t()
        let rc = pthread_create(&thread, &attributes, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.body()
            return nil
        }, context)
        if rc != 0 {
            Unmanaged<Box>.fromOpaque(context).release()
            throw SystemError("pthread_create", Errno(rawValue: rc))
        }
    }
}
