internal import CKernel
import Glibc
import Synchronization

/// One thread in `epoll_wait` that owns the kernel sources it is given: in the daemon the two timerfds, the signalfd,
/// inotify, the control socket and its clients, and the watchdog tick. With nothing ready and no deadline set it sleeps
/// in the kernel with no timeout.
///
/// A source is a descriptor and the handler its readiness calls; a deadline is a handler called once at a monotonic
/// moment. Handlers run on the loop's thread, one at a time, so what only handlers and `execute`d jobs touch needs no
/// lock. They must not block. `watch`, `unwatch`, `setDeadline` and `execute` may be called from any thread.
public final class EventLoop: @unchecked Sendable {
    /// Names one source or deadline; never reused, so a late event for a source that is gone finds nothing.
    struct Token: Hashable {
        fileprivate let value: UInt64
    }

    private struct Source {
        var fd: Int32
        var handler: @Sendable (Epoll.Events) -> Void
    }

    private struct Deadline {
        var at: Int64?
        var handler: @Sendable () -> Void
    }

    private struct State {
        var sources: [UInt64: Source] = [:]
        var deadlines: [UInt64: Deadline] = [:]
        var jobs: [@Sendable () -> Void] = []
        var nextToken: UInt64 = 1
        var stopped = false
        /// Set once the thread has left its loop: jobs then run on the caller.
        var ended = false
    }

    private let state = Mutex(State())
    private let epollFD: Int32
    /// Wakes the thread for a job or a deadline set from another thread.
    private let wakeFD: Int32
    private static let wakeTag: UInt64 = 0
    /// Posted when the thread has ended and closed its descriptors.
    private let ended = Semaphore()
    private let thread = Atomic<pid_t>(0)

    /// Creates the epoll set and starts the thread named `name`. Create it after the signals the process reads are
    /// blocked: the thread inherits the mask.
    public init(name: String) throws(SystemError) {
        let epollFD = try Epoll.create()
        let wakeFD: Int32
        do throws(SystemError) {
            wakeFD = try EventFD.create()
            try Epoll.add(epollFD, wakeFD, tag: Self.wakeTag)
        } catch {
            close(epollFD)
            throw error
        }
        self.epollFD = epollFD
        self.wakeFD = wakeFD
        // The thread's id is known only once it runs; waiting for it costs microseconds, once.
        let started = Semaphore()
        KernelThread.spawn(name: name) {
            self.thread.store(aviso_gettid(), ordering: .releasing)
            started.post()
            self.run()
        }
        started.wait()
    }

    /// The descriptors are closed only here, when nobody can call `watch` or `execute` any more: a call after `stop()`
    /// finds them open (and does nothing useful) instead of writing to a closed or reused descriptor.
    deinit {
        close(wakeFD)
        close(epollFD)
    }

    /// The loop thread's kernel id (tests send it signals with tgkill).
    var threadID: pid_t { thread.load(ordering: .acquiring) }

    /// Whether the caller is the loop's thread.
    var isCurrent: Bool { aviso_gettid() == threadID }

    // MARK: Sources and deadlines

    /// Calls `handler` on the loop's thread whenever `fd` is ready for `events` (level-triggered). The loop does not
    /// own `fd`: `unwatch` it before closing it.
    func watch(_ fd: Int32, events: Epoll.Events = .readable, _ handler: @escaping @Sendable (Epoll.Events) -> Void) throws(SystemError) -> Token {
        let tag = state.withLock { s in
            defer { s.nextToken += 1 }
            s.sources[s.nextToken] = Source(fd: fd, handler: handler)
            return s.nextToken
        }
        do throws(SystemError) {
            try Epoll.add(epollFD, fd, tag: tag, events: events)
        } catch {
            state.withLock { _ = $0.sources.removeValue(forKey: tag) }
            throw error
        }
        return Token(value: tag)
    }

    /// Changes what a watched descriptor is waited for (empty: nothing but errors and hang-ups).
    func change(_ token: Token, events: Epoll.Events) throws(SystemError) {
        guard let fd = state.withLock({ $0.sources[token.value]?.fd }) else { return }
        try Epoll.modify(epollFD, fd, tag: token.value, events: events)
    }

    /// Stops watching; its handler is not called again once this returns on the loop's thread (from another
    /// thread, a call already under way may finish).
    func unwatch(_ token: Token) {
        guard let source = state.withLock({ $0.sources.removeValue(forKey: token.value) }) else { return }
        try? Epoll.remove(epollFD, source.fd)
    }

    /// A deadline whose `handler` runs on the loop's thread each time the moment set with `setDeadline` comes.
    func deadline(_ handler: @escaping @Sendable () -> Void) -> Token {
        state.withLock { s in
            defer { s.nextToken += 1 }
            s.deadlines[s.nextToken] = Deadline(at: nil, handler: handler)
            return Token(value: s.nextToken)
        }
    }

    /// Sets the deadline to run once at the monotonic moment `at` (nanoseconds), or clears it (nil).
    func setDeadline(_ token: Token, at: Int64?) {
        let current = isCurrent
        state.withLock { s in
            guard s.deadlines[token.value] != nil else { return }
            s.deadlines[token.value]?.at = at
            if at != nil && !current { EventFD.signal(wakeFD) }
        }
    }

    /// Forgets a deadline.
    func removeDeadline(_ token: Token) {
        state.withLock { _ = $0.deadlines.removeValue(forKey: token.value) }
    }

    // MARK: Jobs

    /// Runs `job` on the loop's thread, after what it is doing now; on the caller's thread once the loop has ended.
    func execute(_ job: @escaping @Sendable () -> Void) {
        let now = state.withLock { s in
            if s.ended { return true }
            s.jobs.append(job)
            EventFD.signal(wakeFD)
            return false
        }
        if now { job() }
    }

    /// Runs `job` on the loop's thread and returns when it has; at once on the loop's own thread.
    func executeAndWait(_ job: @escaping @Sendable () -> Void) {
        if isCurrent { return job() }
        let done = Semaphore()
        execute {
            job()
            done.post()
        }
        done.wait()
    }

    /// Ends the thread once it has run the jobs already given. The sources' own descriptors are their owners' to
    /// close. Returns when the thread has ended; idempotent.
    public func stop() {
        let first = state.withLock { s in
            defer { s.stopped = true }
            if !s.stopped { EventFD.signal(wakeFD) }
            return !s.stopped
        }
        if first && !isCurrent { ended.wait() }
    }


    // MARK: The loop

    private func run() {
        while true {
            let ready: [Epoll.Ready]
            do {
                ready = try Epoll.wait(epollFD, timeoutMilliseconds: timeout())
            } catch {
                // epoll_wait with valid arguments only fails with EINTR, which is retried; anything else is a bug.
                fatalError("event loop: \(error)")
            }
            for r in ready {
                if r.tag == Self.wakeTag {
                    EventFD.drain(wakeFD)
                } else if let handler = state.withLock({ $0.sources[r.tag]?.handler }) {
                    handler(r.events)
                }
            }
            runJobs()
            runDueDeadlines()
            if state.withLock({ $0.stopped }) { break }
        }
        let late = state.withLock { s in
            s.ended = true
            defer { s.jobs = [] }
            return s.jobs
        }
        for job in late { job() }
        ended.post()
    }

    private func runJobs() {
        while true {
            let jobs = state.withLock { s in
                defer { s.jobs = [] }
                return s.jobs
            }
            if jobs.isEmpty { return }
            for job in jobs { job() }
        }
    }

    private func runDueDeadlines() {
        let now = Self.monotonic()
        let due = state.withLock { s in
            var due: [@Sendable () -> Void] = []
            for (key, d) in s.deadlines {
                guard let at = d.at, at <= now else { continue }
                s.deadlines[key]?.at = nil
                due.append(d.handler)
            }
            return due
        }
        for handler in due { handler() }
    }

    /// Milliseconds until the earliest deadline, rounded up (waking early would spin); -1 when none is set.
    private func timeout() -> Int32 {
        guard let earliest = state.withLock({ $0.deadlines.values.compactMap(\.at).min() }) else { return -1 }
        let left = earliest - Self.monotonic()
        return left <= 0 ? 0 : Int32(clamping: (left + 999_999) / 1_000_000)
    }

    static func monotonic() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}

/// A POSIX semaphore, for a thread to wait until another has done something.
final class Semaphore: @unchecked Sendable {
    private let sem = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

    init() { sem_init(sem, 0, 0) }

    deinit {
        sem_destroy(sem)
        sem.deallocate()
    }

    func post() { sem_post(sem) }

    func wait() { while sem_wait(sem) != 0 {} }
}
