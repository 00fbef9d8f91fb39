internal import CKernel
import Glibc

/// Wrappers for eventfd: a counter one thread bumps to wake another out of `epoll_wait`.
enum EventFD {
    /// Creates a non-blocking, close-on-exec eventfd starting at zero.
    static func create() throws(SystemError) -> Int32 {
        try syscall("eventfd") { eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK)) }
    }

    /// Adds one to the counter, waking any waiter.
    static func signal(_ fd: Int32) {
        var one: UInt64 = 1
        // EAGAIN only happens when the counter is about to overflow, and then a wakeup is already pending.
        _ = try? syscall("write") { Glibc.write(fd, &one, MemoryLayout<UInt64>.size) }
    }

    /// Resets the counter to zero so the fd stops being readable.
    static func drain(_ fd: Int32) {
        var value: UInt64 = 0
        _ = try? syscall("read") { Glibc.read(fd, &value, MemoryLayout<UInt64>.size) }
    }
}
