import AvisoCore
internal import CKernel
import Glibc

/// Wrappers for timerfd: one-shot timers armed at absolute deadlines on a kernel clock.
enum TimerFD {
    /// What reading an expired-or-not timerfd told us.
    enum Expiry: Equatable {
        /// The timer expired this many times since it was armed or last read.
        case expired(UInt64)
        /// Nothing to read: not expired, or re-armed since the wakeup.
        case notExpired
        /// A CANCEL_ON_SET realtime timer was cancelled: the clock was stepped (or the system resumed).
        case clockChanged
    }

    /// Creates a non-blocking, close-on-exec timerfd on `clock`.
    static func create(_ clock: KernelClock) throws(SystemError) -> Int32 {
        let id = clock == .realtime ? CLOCK_REALTIME : CLOCK_BOOTTIME
        return try syscall("timerfd_create") {
            timerfd_create(Int32(id), Int32(TFD_CLOEXEC | TFD_NONBLOCK))
        }
    }

    /// Arms `fd` to expire once at `deadline` nanoseconds, absolute on its clock; this replaces any earlier arming.
    ///
    /// Realtime timers are armed with CANCEL_ON_SET so a clock step is reported instead of silently moving them.
    /// A deadline in the past expires at once; zero would mean "disarm" to the kernel, so it is raised to 1 ns.
    static func arm(_ fd: Int32, clock: KernelClock, deadline: Int64) throws(SystemError) {
        var spec = itimerspec()
        let ns = max(deadline, 1)
        spec.it_value = timespec(tv_sec: Int(ns / 1_000_000_000), tv_nsec: Int(ns % 1_000_000_000))
        var flags = Int32(TFD_TIMER_ABSTIME)
        if clock == .realtime { flags |= Int32(TFD_TIMER_CANCEL_ON_SET) }
        try syscall("timerfd_settime") { timerfd_settime(fd, flags, &spec, nil) }
    }

    /// Disarms `fd`: it will not expire until armed again.
    static func disarm(_ fd: Int32) throws(SystemError) {
        var spec = itimerspec()
        try syscall("timerfd_settime") { timerfd_settime(fd, 0, &spec, nil) }
    }

    /// Reads the expiration count without blocking.
    static func read(_ fd: Int32) throws(SystemError) -> Expiry {
        var count: UInt64 = 0
        do {
            let n = try syscall("read") { Glibc.read(fd, &count, MemoryLayout<UInt64>.size) }
            return n == MemoryLayout<UInt64>.size ? .expired(count) : .notExpired
        } catch where error.errno == .wouldBlock {
            return .notExpired
        } catch where error.errno == .canceled {
            return .clockChanged
        }
    }
}
