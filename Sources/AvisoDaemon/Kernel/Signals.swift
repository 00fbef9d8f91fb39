internal import CKernel
import Glibc
import Synchronization

/// Delivers process signals (SIGTERM, SIGINT, SIGHUP) as an async sequence instead of to a handler.
///
/// The signals are blocked and read from a signalfd that an `EventLoop` watches. This was chosen over
/// `DispatchSource.makeSignalSource` + `SIG_IGN` because a blocked signal stays pending until read, so one that
/// arrives before the consumer starts iterating is not lost, and because no handler runs on an arbitrary thread
/// interrupting its system calls with EINTR.
///
/// Create it first thing in `main`, before any other thread starts: the mask is per thread and inherited, so only
/// threads started afterwards block the signals. A thread that does not block them would take the default action
/// (for SIGTERM: die without cleanup).
public final class Signals: Sendable {
    /// Each received signal number, in arrival order. One consumer; it lives as long as the process.
    public let events: AsyncStream<Int32>
    private let continuation: AsyncStream<Int32>.Continuation
    private let fd: Int32
    private let watched = Mutex(false)

    /// Blocks `signals` in the calling thread and opens the signalfd that reads them; nothing is read until
    /// `watch(on:)`, and what arrives before stays pending.
    public init(_ signals: [Int32]) {
        var set = sigset_t()
        sigemptyset(&set)
        for s in signals { sigaddset(&set, s) }
        let rc = pthread_sigmask(SIG_BLOCK, &set, nil)
        precondition(rc == 0, "pthread_sigmask failed with \(Errno(rawValue: rc))")
        do {
            fd = try syscall("signalfd") { signalfd(-1, &set, Int32(SFD_CLOEXEC | SFD_NONBLOCK)) }
        } catch {
            // Only EMFILE/ENFILE/ENOMEM can happen here, at startup: the daemon cannot run without stop signals.
            fatalError("cannot receive signals: \(error)")
        }
        (events, continuation) = AsyncStream.makeStream(of: Int32.self, bufferingPolicy: .unbounded)
    }

    /// Reads the signals on `loop` from now on, for the life of the process. Once only.
    public func watch(on loop: EventLoop) throws(SystemError) {
        let first = watched.withLock { w in
            defer { w = true }
            return !w
        }
        precondition(first, "Signals.watch called twice")
        _ = try loop.watch(fd) { _ in self.readAll() }
    }

    private func readAll() {
        var info = signalfd_siginfo()
        while true {
            let n: Int
            do {
                n = try syscall("read") { Glibc.read(fd, &info, MemoryLayout<signalfd_siginfo>.size) }
            } catch {
                // EAGAIN: all read. Nothing else is expected of a valid signalfd.
                if error.errno != .wouldBlock { Log.error("reading signals: \(error)") }
                return
            }
            // The kernel only hands out whole signalfd_siginfo records.
            guard n == MemoryLayout<signalfd_siginfo>.size else { return }
            continuation.yield(Int32(bitPattern: info.ssi_signo))
        }
    }
}
