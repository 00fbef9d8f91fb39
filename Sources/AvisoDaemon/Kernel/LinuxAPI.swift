import Glibc

/// The Linux-only calls (timerfd, epoll, eventfd, signalfd) that the Glibc module does not export.
///
/// Swift's Glibc module map leaves out `<sys/timerfd.h>`, `<sys/epoll.h>`, `<sys/eventfd.h>` and
/// `<sys/signalfd.h>`, and `pthread_setname_np` needs `_GNU_SOURCE`. Until CShims exports them, the functions
/// are resolved from libc with `dlsym` and called through `@convention(c)` pointers, which keeps the C calling
/// convention exact (unlike `@_silgen_name`).
/// The constants below are the kernel ABI values; the flag bits are defined by the kernel as the `O_*` bits.
enum LinuxAPI {
    static let timerfdCreate = resolve("timerfd_create", as: (@convention(c) (Int32, Int32) -> Int32).self)
    static let timerfdSettime = resolve(
        "timerfd_settime",
        as: (@convention(c) (Int32, Int32, UnsafePointer<itimerspec>?, UnsafeMutablePointer<itimerspec>?) -> Int32).self)
    static let epollCreate1 = resolve("epoll_create1", as: (@convention(c) (Int32) -> Int32).self)
    static let epollCtl = resolve(
        "epoll_ctl", as: (@convention(c) (Int32, Int32, Int32, UnsafeMutableRawPointer?) -> Int32).self)
    static let epollWait = resolve(
        "epoll_wait", as: (@convention(c) (Int32, UnsafeMutableRawPointer?, Int32, Int32) -> Int32).self)
    static let eventfd = resolve("eventfd", as: (@convention(c) (UInt32, Int32) -> Int32).self)
    static let pthreadSetname = resolve(
        "pthread_setname_np", as: (@convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32).self)
    static let gettid = resolve("gettid", as: (@convention(c) () -> pid_t).self)
    static let tgkill = resolve("tgkill", as: (@convention(c) (pid_t, pid_t, Int32) -> Int32).self)
    static let signalfd = resolve("signalfd", as: (@convention(c) (Int32, UnsafePointer<sigset_t>?, Int32) -> Int32).self)

    static let cloexec = Int32(O_CLOEXEC)
    static let nonblock = Int32(O_NONBLOCK)
    static let timerAbsolute: Int32 = 1 << 0
    static let timerCancelOnSet: Int32 = 1 << 1
    static let epollAdd: Int32 = 1
    static let epollDel: Int32 = 2
    static let epollMod: Int32 = 3

    /// `struct epoll_event` is packed on x86-64 only (12 bytes); elsewhere the 64-bit data is naturally aligned.
    #if arch(x86_64)
    static let epollEventSize = 12
    static let epollDataOffset = 4
    #else
    static let epollEventSize = 16
    static let epollDataOffset = 8
    #endif

    /// `struct signalfd_siginfo` is 128 bytes; `ssi_signo` (uint32) comes first.
    static let signalfdInfoSize = 128

    private static func resolve<F>(_ name: String, as type: F.Type) -> F {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else {
            fatalError("libc has no \(name): aviso needs Linux with glibc")
        }
        return unsafeBitCast(symbol, to: type)
    }
}
