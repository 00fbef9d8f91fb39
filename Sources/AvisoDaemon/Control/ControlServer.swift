import AvisoProtocol
import Dispatch
import Glibc
import Synchronization

/// The daemon's control socket: a Unix stream socket speaking JSON lines (one request, one reply).
///
/// Blocking I/O runs on its own kernel threads: one accepts, and each connection reads on its own thread, so a slow
/// or stuck client cannot hold up another. Only processes of the daemon's own uid are served. Whatever bytes arrive,
/// the server answers with an error line or closes the connection; it never traps.
public final class ControlServer: Sendable {
    /// The socket file.
    public let path: String
    /// Connections served at once; the next one gets a `busy` error line and is closed.
    public static let maximumConnections = 32
    /// How long a reply may wait for a client that does not read before the connection is dropped.
    public static let sendTimeoutSeconds = 10

    private let handler: @Sendable (Command) async -> Reply
    private let state = Mutex(State())
    /// Signalled when the accept thread has closed the listener.
    private let acceptFinished = DispatchSemaphore(value: 0)

    private struct State {
        var listener: Int32 = -1
        var started = false
        var stopped = false
        /// Device and inode of the socket file we bound, so `stop` removes only our own.
        var boundFile: (dev_t, ino_t)?
        var connections: Set<Int32> = []
    }

    /// Prepares a server for `path`; nothing is opened until `start`.
    ///
    /// `handler` runs once per well-formed request, possibly concurrently for different connections.
    /// Throws ENAMETOOLONG when `path` does not fit in a Unix socket address.
    public init(path: String, handler: @escaping @Sendable (Command) async -> Reply) throws(SystemError) {
        guard UnixSocket.fits(path) else {
            throw SystemError("socket path \(path) is too long for a Unix socket", Errno(rawValue: ENAMETOOLONG))
        }
        self.path = path
        self.handler = handler
    }

    /// Creates the parent directory (mode 0700; an existing one keeps its mode), removes a stale socket file, binds
    /// the socket with mode 0600, listens and starts accepting.
    ///
    /// Throws when another process is listening on `path` ("another avisod is running on PATH"), when `path` exists
    /// and is not a socket, or when a call fails.
    public func start() throws(SystemError) {
        guard state.withLock({ s in s.started ? false : { s.started = true; return true }() }) else {
            throw SystemError("ControlServer.start called twice", Errno(rawValue: EALREADY))
        }
        try Directories.createParents(of: path)
        try removeStaleSocket()
        let fd = try UnixSocket.make()
        do {
            _ = try UnixSocket.withAddress(path) { address, length throws(SystemError) in
                try syscall("bind") { bind(fd, address, length) }
            }
            // The directory is 0700, so nobody else can connect during the moment before the chmod.
            try syscall("chmod") { chmod(path, 0o600) }
            try syscall("listen") { listen(fd, 64) }
            var info = stat()
            try syscall("stat") { stat(path, &info) }
            let bound = (info.st_dev, info.st_ino)
            state.withLock { $0.listener = fd; $0.boundFile = bound }
            try NativeThread.spawn { [self] in acceptLoop(fd) }
        } catch {
            close(fd)
            unlink(path)
            state.withLock { $0.listener = -1; $0.boundFile = nil; $0.stopped = true }
            throw error
        }
    }

    /// Stops accepting, removes the socket file and ends open connections. Safe to call more than once.
    ///
    /// When it returns the listener is closed; connection threads finish on their own shortly after (a request
    /// already handed to the handler still completes, its reply is discarded).
    public func stop() {
        let (listener, bound, connections, wasRunning) = state.withLock { s in
            let running = s.started && !s.stopped && s.listener >= 0
            s.stopped = true
            return (s.listener, s.boundFile, s.connections, running)
        }
        guard wasRunning else { return }
        if let bound {
            var info = stat()
            if stat(path, &info) == 0 && info.st_dev == bound.0 && info.st_ino == bound.1 { unlink(path) }
        }
        // shutdown wakes a thread blocked in accept or read; the owning thread then closes its descriptor.
        shutdown(listener, Int32(SHUT_RDWR))
        for fd in connections { shutdown(fd, Int32(SHUT_RDWR)) }
        acceptFinished.wait()
    }

    // MARK: Accepting

    private func acceptLoop(_ listener: Int32) {
        defer {
            close(listener)
            acceptFinished.signal()
        }
        while !state.withLock({ $0.stopped }) {
            let fd: Int32
            do throws(SystemError) {
                // accept4 is hidden behind _GNU_SOURCE in the Glibc overlay; set close-on-exec right after instead.
                fd = try syscall("accept") { accept(listener, nil, nil) }
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            } catch {
                if state.withLock({ $0.stopped }) { return }
                if error.errno.rawValue == EMFILE || error.errno.rawValue == ENFILE || error.errno.rawValue == ENOMEM {
                    // Out of descriptors: back off instead of spinning; a connection will finish and free one.
                    usleep(100_000)
                }
                continue
            }
            admit(fd)
        }
    }

    /// Checks the peer and the connection cap, then hands the connection to its own thread.
    private func admit(_ fd: Int32) {
        // These refusals are short and go to a fresh socket buffer: a non-blocking send never stalls accepting.
        guard let uid = UnixSocket.peerUID(fd), uid == getuid() else {
            UnixSocket.sendAll(fd, Codec.encode(Reply.error(ReplyError(
                code: "permission",
                message: "only the user running avisod (uid \(getuid())) may use its control socket"))), wait: false)
            close(fd)
            return
        }
        let admitted = state.withLock { s in
            guard !s.stopped, s.connections.count < Self.maximumConnections else { return false }
            s.connections.insert(fd)
            return true
        }
        guard admitted else {
            UnixSocket.sendAll(fd, Codec.encode(Reply.error(ReplyError(
                code: "busy",
                message: "avisod is serving \(Self.maximumConnections) connections already; try again"))), wait: false)
            close(fd)
            return
        }
        UnixSocket.setSendTimeout(fd, seconds: Self.sendTimeoutSeconds)
        do {
            try NativeThread.spawn { [self] in serve(fd) }
        } catch {
            finish(fd)
        }
    }

    // MARK: Serving one connection

    private func serve(_ fd: Int32) {
        defer { finish(fd) }
        var framer = LineFramer(limit: maximumLineLength)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return
            }
            if count == 0 {
                // A last request without its newline still gets an answer, for `printf ... | nc -U`.
                if let last = framer.finish() { _ = respond(to: last, on: fd) }
                return
            }
            chunk.withUnsafeBytes { framer.append(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            while let event = framer.next() {
                switch event {
                case .tooLarge:
                    UnixSocket.sendAll(fd, Codec.encode(Reply.error(ReplyError(
                        code: "too-large",
                        message: "request line is longer than \(maximumLineLength) bytes; the connection is closed"))))
                    return
                case .line(let line):
                    guard respond(to: line, on: fd) else { return }
                }
            }
        }
    }

    /// Answers one line; false when the connection should end.
    private func respond(to line: [UInt8], on fd: Int32) -> Bool {
        if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }) {
            return true
        }
        if state.withLock({ $0.stopped }) { return false }
        let reply: Reply
        if String(validating: line, as: UTF8.self) == nil {
            reply = .error(ReplyError(code: "malformed", message: "request is not valid UTF-8; send one JSON object per line, in UTF-8"))
        } else {
            do throws(ReplyError) {
                reply = call(try Codec.decodeCommand(line))
            } catch {
                reply = .error(error)
            }
        }
        return UnixSocket.sendAll(fd, Codec.encode(reply))
    }

    /// Runs the async handler from this kernel thread and waits for it; blocking here is fine, it is not a pool thread.
    private func call(_ command: Command) -> Reply {
        let done = DispatchSemaphore(value: 0)
        let slot = ReplySlot()
        let handler = self.handler
        Task {
            slot.reply = await handler(command)
            done.signal()
        }
        done.wait()
        return slot.reply ?? .error(ReplyError(code: "internal", message: "the daemon produced no reply"))
    }

    private func finish(_ fd: Int32) {
        // Leave the set before closing, so `stop` never shuts down a descriptor number that was reused.
        state.withLock { _ = $0.connections.remove(fd) }
        close(fd)
    }


    private func removeStaleSocket() throws(SystemError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw SystemError("\(path) exists and is not a socket; move it away", Errno(rawValue: EEXIST))
        }
        if UnixSocket.isListening(path) {
            throw SystemError("another avisod is running on \(path)", Errno(rawValue: EADDRINUSE))
        }
        try syscall("unlink") { unlink(path) }
    }
}

/// The handler's reply, handed from the Task to the waiting thread; the semaphore orders the write before the read.
private final class ReplySlot: @unchecked Sendable {
    var reply: Reply?
}
