internal import CKernel
import Glibc

/// Delivers process signals (SIGTERM, SIGINT, SIGHUP) as an async sequence instead of to a handler.
///
/// The signals are blocked and read from a signalfd on a dedicated thread. This was chosen over
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

    /// The reading thread's kernel id. A signal sent to this thread alone (tgkill) is read like one sent to the
    /// process; tests use that, since a test process has an unblocked main thread that would take the latter.
    let readerThreadID: pid_t

    /// Blocks `signals` in the calling thread and starts the thread that reads them.
    public init(_ signals: [Int32]) {
        var set = sigset_t()
        sigemptyset(&set)
        for s in signals { sigaddset(&set, s) }
        let rc = pthread_sigmask(SIG_BLOCK, &set, nil)
        precondition(rc == 0, "pthread_sigmask failed with \(Errno(rawValue: rc))")
        let fd: Int32
        do {
            fd = try syscall("signalfd") { signalfd(-1, &set, Int32(SFD_CLOEXEC)) }
        } catch {
            // Only EMFILE/ENFILE/ENOMEM can happen here, at startup: the daemon cannot run without stop signals.
            fatalError("cannot receive signals: \(error)")
        }
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self, bufferingPolicy: .unbounded)
        events = stream
        // The reader's thread id is known only once it runs; waiting for it costs microseconds, once.
        let handshake = Handshake()
        KernelThread.spawn(name: "aviso-signals") {
            handshake.tid.pointee = aviso_gettid()
            sem_post(handshake.started)
            var info = signalfd_siginfo()
            while true {
                let n: Int
                do {
                    n = try syscall("read") { Glibc.read(fd, &info, MemoryLayout<signalfd_siginfo>.size) }
                } catch {
                    Log.error("signals can no longer be received: \(error)")
                    continuation.finish()
                    return
                }
                // The kernel only hands out whole signalfd_siginfo records.
                guard n == MemoryLayout<signalfd_siginfo>.size else { continue }
                continuation.yield(Int32(bitPattern: info.ssi_signo))
            }
        }
        while sem_wait(handshake.started) != 0 {}
        readerThreadID = handshake.tid.pointee
        handshake.release()
    }

    /// Memory shared with the new thread until it has reported its id; the semaphore orders the accesses.
    private struct Handshake: @unchecked Sendable {
        let started = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
        let tid = UnsafeMutablePointer<pid_t>.allocate(capacity: 1)

        init() { sem_init(started, 0, 0) }

        func release() {
            sem_destroy(started)
            started.deallocate()
            tid.deallocate()
        }
    }
}
