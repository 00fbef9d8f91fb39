import Glibc
internal import CShims

/// A program started with posix_spawn for an action: its own process group, no signal blocked or ignored (the
/// daemon blocks and ignores some for itself), stdin and stderr (and, when asked, stdout) on pipes.
struct ChildProcess: Sendable {
    let pid: pid_t
    private let input: Int32
    private let output: Int32
    private let errors: Int32

    /// The most of stdout kept (an answer), and of stderr (for the log).
    static let outputLimit = 64 * 1024
    static let errorLimit = 2 * 1024

    static func spawn(_ program: String, _ argv: [String], environment: [String: String], captureOutput: Bool) throws(SystemError) -> ChildProcess {
        var stdinPipe: [Int32] = [-1, -1], stdoutPipe: [Int32] = [-1, -1], stderrPipe: [Int32] = [-1, -1]
        try syscall("pipe2") { aviso_pipe2(&stdinPipe, O_CLOEXEC) }
        try syscall("pipe2") { aviso_pipe2(&stdoutPipe, O_CLOEXEC) }
        try syscall("pipe2") { aviso_pipe2(&stderrPipe, O_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdinPipe[0], 0)
        if captureOutput {
            posix_spawn_file_actions_adddup2(&actions, stdoutPipe[1], 1)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, stderrPipe[1], 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in [SIGPIPE, SIGXFSZ, SIGTERM, SIGINT, SIGHUP, SIGCHLD] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        let args = argv.map { strdup($0) } + [nil]
        let env = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            args.forEach { free($0) }
            env.forEach { free($0) }
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, program, &actions, &attributes, args, env)
        for fd in [stdinPipe[0], stdoutPipe[1], stderrPipe[1]] { close(fd) }
        guard rc == 0 else {
            for fd in [stdinPipe[1], stdoutPipe[0], stderrPipe[0]] { close(fd) }
            throw SystemError("posix_spawn \(program)", Errno(rawValue: rc))
        }
        if !captureOutput { close(stdoutPipe[0]) }
        return ChildProcess(pid: pid, input: stdinPipe[1], output: captureOutput ? stdoutPipe[0] : -1, errors: stderrPipe[0])
    }

    /// Writes `stdin` (then end of file), collects what the child writes until it exits, and reaps it. Returns the exit
    /// status (minus the signal number when killed), stdout (if captured) and stderr, each cut at its limit.
    ///
    /// A grandchild that keeps the pipes open does not hold this up past the child's own end.
    func finish(stdin: String?) -> (status: Int32, output: String, errors: String) {
        // Written as the child reads it, beside its output: a program that never reads a large event cannot hold
        // this thread up, nor fill its stderr pipe while we wait to write.
        var pendingInput = Array((stdin ?? "").utf8)[...]
        var input = self.input
        if pendingInput.isEmpty {
            close(input)
            input = -1
        } else {
            _ = fcntl(input, F_SETFL, fcntl(input, F_GETFL) | O_NONBLOCK)
        }
        var out: [UInt8] = [], err: [UInt8] = []
        var open = [output, errors].filter { $0 >= 0 }
        var status: Int32?
        while !open.isEmpty {
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if input >= 0 { fds.append(pollfd(fd: input, events: Int16(POLLOUT), revents: 0)) }
            _ = poll(&fds, nfds_t(fds.count), status == nil ? 200 : 0)
            var progressed = false
            for p in fds where p.revents != 0 {
                if p.fd == input {
                    let n = pendingInput.withUnsafeBytes { Glibc.write(input, $0.baseAddress, $0.count) }
                    if n > 0 { pendingInput = pendingInput.dropFirst(n) }
                    if pendingInput.isEmpty || (n < 0 && errno != EINTR && errno != EAGAIN) {
                        close(input)
                        input = -1
                    }
                    continue
                }
                var chunk = [UInt8](repeating: 0, count: 4096)
                let n = chunk.withUnsafeMutableBytes { read(p.fd, $0.baseAddress, $0.count) }
                if n > 0 {
                    progressed = true
                    if p.fd == output { if out.count < Self.outputLimit { out += chunk[..<n] } } else if err.count < Self.errorLimit { err += chunk[..<n] }
                } else if n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN) {
                    close(p.fd)
                    open.removeAll { $0 == p.fd }
                }
            }
            if status == nil { status = reap(wait: false) }
            // The child is gone and nothing more is coming right now: whoever still holds the pipes is not waited for.
            if status != nil && !progressed {
                open.forEach { close($0) }
                open = []
            }
        }
        if input >= 0 { close(input) }
        let final = status ?? reap(wait: true) ?? -1
        let text = { (b: [UInt8]) in String(decoding: b, as: UTF8.self) }
        return (final, text(out), text(err).split(separator: "\n").joined(separator: " | "))
    }

    private func reap(wait: Bool) -> Int32? {
        var raw: Int32 = 0
        while true {
            let r = waitpid(pid, &raw, wait ? 0 : WNOHANG)
            if r < 0 && errno == EINTR { continue }
            guard r == pid else { return nil }
            // WIFEXITED / WEXITSTATUS / WTERMSIG, written out: they are macros.
            let signal = raw & 0x7f
            return signal == 0 ? (raw >> 8) & 0xff : -signal
        }
    }
}
