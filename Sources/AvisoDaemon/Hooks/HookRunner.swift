import AvisoCore
import FoundationEssentials
import Glibc
internal import CShims

/// One content hook to run: the program, its budget, what it is told and the content it starts from.
struct HookJob: Sendable {
    var id: String
    var hook: ContentHook
    /// The argv to execute: the hook's own, or wrapped in `systemd-run --user --scope` (`HookCommand`).
    var argv: [String]
    /// The executable of `argv[0]`.
    var program: String
    /// Whether RLIMIT_AS is set (not when a scope's MemoryMax= limits it instead).
    var limitAddressSpace: Bool
    var environment: [String: String]
    /// Its working directory: aviso's state directory.
    var directory: String
    /// The JSON object written to its stdin.
    var input: [UInt8]
    var original: Content
}

/// How a hook run ended and the best version it reached.
struct HookResult: Sendable {
    var id: String
    var token: UInt64
    /// The best version reached (the original when no line was valid).
    var content: Content
    /// What the hook started from.
    var original: Content
    var outcome: ContentHook.Outcome
    var duration: Span
    /// Valid patches applied.
    var patches: Int
    /// Why it failed or how it ended, for the log ("exit status 3", "cannot start: Permission denied").
    var detail: String
    /// Its stderr, cut at `HookRunner.errorLimit`, lines joined with " | ".
    var errors: String
    /// Why lines were ignored (the first few).
    var rejected: [String]
}

/// Runs content hooks on one thread of its own: every running hook's pipes, its exit (a pidfd) and its budget in one
/// poll(2). Nothing wakes while no hook runs.
///
/// A hook is done when its own process exits: a grandchild that keeps stdout open is not waited for, and whatever is
/// left of the hook's process group is killed then. At its timeout the group gets SIGTERM and `ContentHook.grace` to
/// print a last line, then SIGKILL.
final class HookRunner: @unchecked Sendable {
    /// Kept of a hook's stderr for the log.
    static let errorLimit = 2 * 1024
    /// The longest line read as a patch; longer ones are ignored.
    static let lineLimit = 64 * 1024
    /// Lines read as patches per run; later ones are drained and ignored (a hook cannot keep the daemon busy).
    static let linesLimit = 1000
    /// Reasons for ignored lines kept per run.
    static let rejectedLimit = 5
    /// Hooks running at once; more wait their turn (each holds four descriptors and a process).
    static let concurrencyLimit = 128

    private typealias Done = @Sendable (HookResult) -> Void
    private var mutex = pthread_mutex_t()
    private var incoming: [(UInt64, HookJob, Done)] = []
    private var cancelled: Set<UInt64> = []
    private var nextToken: UInt64 = 1
    private var wake: Int32 = -1
    /// The process groups of running hooks, for `stopAll`.
    private var groups: Set<pid_t> = []

    init() { pthread_mutex_init(&mutex, nil) }

    /// Starts `job`; `done` is called once, on the runner's thread, with how it ended. Returns the run's token.
    @discardableResult
    func start(_ job: HookJob, done: @escaping @Sendable (HookResult) -> Void) -> UInt64 {
        let (token, fd) = locked { () -> (UInt64, Int32) in
            if wake < 0, let fd = try? EventFD.create() {
                wake = fd
                KernelThread.spawn(name: "aviso-hooks") { self.run(fd) }
            }
            let token = nextToken
            nextToken += 1
            incoming.append((token, job, done))
            return (token, wake)
        }
        if fd < 0 {
            done(HookResult(id: job.id, token: token, content: job.original, original: job.original, outcome: .failed, duration: .zero, patches: 0,
                            detail: "cannot start the hook thread", errors: "", rejected: []))
        } else {
            EventFD.signal(fd)
        }
        return token
    }

    /// Stops a run (its notification was removed): its process group is killed and `done` is still called; one still
    /// waiting for a free slot is dropped.
    func cancel(_ token: UInt64) {
        let fd = locked { () -> Int32 in
            cancelled.insert(token)
            return wake
        }
        if fd >= 0 { EventFD.signal(fd) }
    }

    /// Kills every running hook's process group, at shutdown.
    func stopAll() {
        for pgid in locked({ groups }) { kill(-pgid, SIGKILL) }
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body()
    }

    private final class Run {
        let token: UInt64
        let job: HookJob
        let done: Done
        let pid: pid_t
        let pidfd: Int32
        var input: Int32
        var pendingInput: ArraySlice<UInt8>
        var output: Int32
        var errorsFD: Int32
        var line: [UInt8] = []
        var overlong = false
        var errors: [UInt8] = []
        var best: Content
        var patches = 0
        var lines = 0
        var rejected: [String] = []
        let started: Int64
        var terminateAt: Int64
        var killAt: Int64?
        var stoppedByAviso = false
        var status: Int32?

        init(token: UInt64, job: HookJob, done: @escaping Done, pid: pid_t, pidfd: Int32, input: Int32, output: Int32,
             errors: Int32, started: Int64) {
            self.token = token
            self.job = job
            self.done = done
            self.pid = pid
            self.pidfd = pidfd
            self.input = input
            pendingInput = job.input[...]
            self.output = output
            errorsFD = errors
            best = job.original
            self.started = started
            terminateAt = started + job.hook.timeout.nanoseconds
        }
    }

    private func run(_ wake: Int32) {
        var runs: [UInt64: Run] = [:]
        while true {
            let free = Self.concurrencyLimit - runs.count
            let (jobs, cancels) = locked { () -> ([(UInt64, HookJob, Done)], Set<UInt64>) in
                // A cancelled job that has not started never will.
                incoming.removeAll { cancelled.contains($0.0) }
                let taken = Array(incoming.prefix(free))
                incoming.removeFirst(taken.count)
                defer { cancelled = [] }
                return (taken, cancelled)
            }
            let now = Self.monotonic()
            for (token, job, done) in jobs {
                switch Self.spawn(token: token, job: job, done: done, at: now) {
                case .success(let r):
                    runs[token] = r
                    locked { _ = groups.insert(r.pid) }
                case .failure(let e):
                    done(HookResult(id: job.id, token: token, content: job.original, original: job.original, outcome: .failed, duration: .zero,
                                    patches: 0, detail: "cannot start \(job.argv[0]): \(e)", errors: "", rejected: []))
                }
            }
            for token in cancels { if let r = runs[token] { stop(r, now: now, signal: SIGKILL) } }

            var fds = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            var deadline = Int64.max
            for r in runs.values {
                fds.append(pollfd(fd: r.pidfd, events: Int16(POLLIN), revents: 0))
                for fd in [r.output, r.errorsFD] where fd >= 0 { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
                if r.input >= 0 { fds.append(pollfd(fd: r.input, events: Int16(POLLOUT), revents: 0)) }
                deadline = min(deadline, r.killAt ?? r.terminateAt)
            }
            let timeout: Int32 = deadline == .max ? -1 : Int32(clamping: max(0, (deadline - now + 999_999) / 1_000_000))
            let n = poll(&fds, nfds_t(fds.count), timeout)
            if n < 0 && errno != EINTR { Log.error("hooks: poll failed: \(String(cString: strerror(errno)))") }
            if fds[0].revents != 0 { EventFD.drain(wake) }
            let ready = Dictionary(fds.dropFirst().map { ($0.fd, $0.revents) }, uniquingKeysWith: { a, _ in a })
            let after = Self.monotonic()
            for r in runs.values {
                if let ev = ready[r.input], ev != 0 { write(r) }
                if let ev = ready[r.output], ev != 0 { read(r, from: r.output) }
                if let ev = ready[r.errorsFD], ev != 0 { read(r, from: r.errorsFD) }
                if let ev = ready[r.pidfd], ev != 0 { reap(r) }
                if r.status == nil {
                    if let killAt = r.killAt, after >= killAt {
                        stop(r, now: after, signal: SIGKILL)
                    } else if r.killAt == nil, after >= r.terminateAt {
                        stop(r, now: after, signal: SIGTERM)
                    }
                }
                if r.status != nil {
                    finish(r, at: after)
                    runs[r.token] = nil
                }
            }
        }
    }

    /// SIGTERM with `grace` before SIGKILL, or SIGKILL at once, to the hook's process group.
    private func stop(_ r: Run, now: Int64, signal: Int32) {
        r.stoppedByAviso = true
        kill(-r.pid, signal)
        r.killAt = signal == SIGKILL ? Int64.max : now + ContentHook.grace.nanoseconds
        if signal == SIGKILL { r.terminateAt = .max }
    }

    private func write(_ r: Run) {
        let n = r.pendingInput.withUnsafeBytes { Glibc.write(r.input, $0.baseAddress, $0.count) }
        if n > 0 { r.pendingInput = r.pendingInput.dropFirst(n) }
        if r.pendingInput.isEmpty || (n < 0 && errno != EINTR && errno != EAGAIN) {
            close(r.input)
            r.input = -1
        }
    }

    /// Reads what is there; stdout is cut into lines, each a patch.
    private func read(_ r: Run, from fd: Int32) {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if n > 0 {
            if fd == r.output { take(r, chunk[..<n]) } else if r.errors.count < Self.errorLimit { r.errors += chunk[..<min(n, Self.errorLimit - r.errors.count)] }
        } else if n == 0 || (errno != EINTR && errno != EAGAIN) {
            close(fd)
            if fd == r.output { r.output = -1 } else { r.errorsFD = -1 }
        }
    }

    private func take(_ r: Run, _ bytes: ArraySlice<UInt8>) {
        var rest = bytes
        while let newline = rest.firstIndex(of: UInt8(ascii: "\n")) {
            if !r.overlong { r.line += rest[..<newline] }
            patch(r)
            rest = rest[(newline + 1)...]
        }
        if r.line.count + rest.count > Self.lineLimit { r.overlong = true; r.line = [] }
        if !r.overlong { r.line += rest }
    }

    /// The line collected so far, as a patch over the best version.
    private func patch(_ r: Run) {
        defer { r.line = []; r.overlong = false }
        if r.overlong { return reject(r, "a line longer than \(Self.lineLimit / 1024) KiB") }
        var line = r.line[...]
        while let last = line.last, last == UInt8(ascii: "\r") || last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { line = line.dropLast() }
        if line.isEmpty { return }
        r.lines += 1
        if r.lines > Self.linesLimit {
            if r.lines == Self.linesLimit + 1 { reject(r, "more than \(Self.linesLimit) lines; the rest are ignored") }
            return
        }
        do {
            let object = try JSONDecoder().decode([String: JSONValue].self, from: Data(line))
            let patch = try HookPatch(object)
            r.best = patch.applied(to: r.best)
            r.patches += 1
        } catch let error as ValidationError {
            reject(r, error.message)
        } catch {
            let text = String(decoding: line.prefix(60), as: UTF8.self)
            reject(r, "'\(text)\(line.count > 60 ? "…" : "")' is not a JSON object")
        }
    }

    private func reject(_ r: Run, _ why: String) {
        if r.rejected.count < Self.rejectedLimit || why.hasPrefix("more than") { r.rejected.append(why) }
    }

    private func reap(_ r: Run) {
        var raw: Int32 = 0
        while true {
            let got = waitpid(r.pid, &raw, WNOHANG)
            if got < 0 && errno == EINTR { continue }
            guard got == r.pid else { return }
            let signal = raw & 0x7f
            r.status = signal == 0 ? (raw >> 8) & 0xff : -signal
            return
        }
    }

    /// The hook's own process is gone: what it wrote before it exited is read, the rest of its group is killed, and
    /// the result goes back.
    private func finish(_ r: Run, at now: Int64) {
        for fd in [r.output, r.errorsFD] where fd >= 0 {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            while fd == r.output ? r.output >= 0 : r.errorsFD >= 0 {
                var probe = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&probe, 1, 0) > 0 else { break }
                read(r, from: fd)
            }
        }
        if !r.line.isEmpty { patch(r) }
        kill(-r.pid, SIGKILL)
        locked { _ = groups.remove(r.pid) }
        for fd in [r.input, r.output, r.errorsFD, r.pidfd] where fd >= 0 { close(fd) }
        let status = r.status ?? -SIGKILL
        let outcome: ContentHook.Outcome
        let detail: String
        if r.stoppedByAviso {
            outcome = .expired
            detail = status < 0 ? "stopped by \(Self.signalName(-status)) at its timeout" : "exited with status \(status) after SIGTERM"
        } else if status == 0 {
            outcome = .completed
            detail = "exited with status 0"
        } else if status < 0 {
            outcome = .killed
            detail = "killed by \(Self.signalName(-status))"
        } else {
            outcome = .failed
            detail = "exited with status \(status)"
        }
        r.done(HookResult(
            id: r.job.id, token: r.token, content: r.best, original: r.job.original, outcome: outcome, duration: Span(nanoseconds: now - r.started),
            patches: r.patches, detail: detail,
            errors: String(decoding: r.errors, as: UTF8.self).split(separator: "\n").joined(separator: " | "),
            rejected: r.rejected))
    }

    private static func signalName(_ s: Int32) -> String {
        switch s {
        case SIGKILL: "SIGKILL"
        case SIGTERM: "SIGTERM"
        case SIGSEGV: "SIGSEGV"
        case SIGABRT: "SIGABRT"
        case SIGBUS: "SIGBUS"
        default: "signal \(s)"
        }
    }

    private static func spawn(token: UInt64, job: HookJob, done: @escaping Done, at now: Int64) -> Result<Run, SystemError> {
        var pipes: [[Int32]] = []
        for _ in 0..<3 {
            var fds: [Int32] = [-1, -1]
            guard aviso_pipe2(&fds, O_CLOEXEC | O_NONBLOCK) == 0 else {
                let e = SystemError("pipe2", Errno(rawValue: errno))
                pipes.joined().forEach { close($0) }
                return .failure(e)
            }
            pipes.append(fds)
        }
        let (inPipe, outPipe, errPipe) = (pipes[0], pipes[1], pipes[2])
        // The child's ends block, as programs expect; only aviso's ends are non-blocking.
        for fd in [inPipe[0], outPipe[1], errPipe[1]] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) }
        let args = job.argv.map { strdup($0) } + [nil]
        let env = job.environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            args.forEach { free($0) }
            env.forEach { free($0) }
        }
        var step: UnsafePointer<CChar>?
        let pid = aviso_spawn_hook(job.program, args, env, job.directory, inPipe[0], outPipe[1], errPipe[1],
                                   job.limitAddressSpace ? UInt64(job.hook.memory) : 0, &step)
        let spawnError = errno
        for fd in [inPipe[0], outPipe[1], errPipe[1]] { close(fd) }
        guard pid > 0 else {
            for fd in [inPipe[1], outPipe[0], errPipe[0]] { close(fd) }
            // The call that failed: a state directory gone is "chdir to ...", not the program missing.
            let call = step.map { String(cString: $0) } ?? "exec"
            return .failure(SystemError(call == "chdir" ? "chdir to \(job.directory)" : call, Errno(rawValue: spawnError)))
        }
        let pidfd = aviso_pidfd_open(pid)
        guard pidfd >= 0 else {
            let e = SystemError("pidfd_open", Errno(rawValue: errno))
            kill(-pid, SIGKILL)
            var raw: Int32 = 0
            waitpid(pid, &raw, 0)
            for fd in [inPipe[1], outPipe[0], errPipe[0]] { close(fd) }
            return .failure(e)
        }
        let r = Run(token: token, job: job, done: done, pid: pid, pidfd: pidfd, input: inPipe[1], output: outPipe[0],
                    errors: errPipe[0], started: now)
        if r.pendingInput.isEmpty {
            close(r.input)
            r.input = -1
        }
        return .success(r)
    }

    static func monotonic() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}
