import Glibc
import Synchronization
internal import CKernel

/// An errno value with a readable name.
public struct Errno: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let interrupted = Errno(rawValue: EINTR)
    public static let wouldBlock = Errno(rawValue: EAGAIN)
    public static let badFileDescriptor = Errno(rawValue: EBADF)
    public static let badAddress = Errno(rawValue: EFAULT)
    public static let noSpace = Errno(rawValue: ENOSPC)
    public static let canceled = Errno(rawValue: ECANCELED)
    public static let noEntry = Errno(rawValue: ENOENT)
    public static let permissionDenied = Errno(rawValue: EACCES)

    public var description: String { String(cString: strerror(rawValue)) }
}

/// A failed system call: which function, and the errno it left.
public struct SystemError: Error, Hashable, Sendable, CustomStringConvertible {
    public var function: String
    public var errno: Errno

    public init(_ function: String, _ errno: Errno) {
        self.function = function
        self.errno = errno
    }

    /// A refusal of aviso's own (no call failed): `message` says what is wrong and how to fix it; errno is 0.
    public init(refusing message: String) {
        self.init(message, Errno(rawValue: 0))
    }

    public var description: String { errno.rawValue == 0 ? function : "\(function): \(errno)" }
}

#if FAILURE_INJECTION
/// Test seam: when set, the next calls of the named functions fail with the given errnos, one per call, before the
/// real call is made. Only tests set it, and only debug builds have it (`FAILURE_INJECTION`, Package.swift).
///
/// Behind a lock because the timer and signal threads make system calls while tests set it.
var injectedFailures: [String: [Errno]] {
    get { injectedFailureQueues.withLock { $0 } }
    set { injectedFailureQueues.withLock { $0 = newValue } }
}

private let injectedFailureQueues = Mutex<[String: [Errno]]>([:])

/// Takes the next injected failure for `function`, if a test queued one.
private func takeInjectedFailure(_ function: String) -> Errno? {
    injectedFailureQueues.withLock { queues in
        guard var queue = queues[function], !queue.isEmpty else { return nil }
        let next = queue.removeFirst()
        queues[function] = queue.isEmpty ? nil : queue
        return next
    }
}
#endif

/// Runs a system call that returns -1 and sets errno on failure, retrying EINTR.
///
/// EBADF and EFAULT are bugs in this program, not conditions to handle: they trap.
@discardableResult
@inline(__always)
func syscall<T: FixedWidthInteger>(_ function: String, _ body: () -> T) throws(SystemError) -> T {
    while true {
        let result: T
        #if FAILURE_INJECTION
        if let injected = takeInjectedFailure(function) {
            errno = injected.rawValue
            result = -1
        } else {
            result = body()
        }
        #else
        result = body()
        #endif
        if result != -1 { return result }
        let e = Errno(rawValue: errno)
        if e == .interrupted { continue }
        precondition(e != .badFileDescriptor && e != .badAddress, "\(function) failed with \(e): a bug in aviso")
        throw SystemError(function, e)
    }
}

/// Gives the heap's free pages back to the system (malloc_trim): after a large load, most of what parsing used is
/// free but still counted in the process's resident memory.
func releaseFreeHeap() {
    malloc_trim(0)
}
