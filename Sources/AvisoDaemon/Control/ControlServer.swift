import AvisoCore
import AvisoProtocol
import Glibc
internal import CShims
import Synchronization

/// The daemon's control socket: a Unix stream socket speaking JSON lines (one request, one reply).
///
/// What a request gets back: one reply, or (`events --follow`) a first reply and then one more line per element of a
/// stream, for as long as the client stays connected.
public enum ControlResponse: Sendable {
    case reply(Reply)
    case stream(first: Reply, rest: AsyncStream<Reply>)
}

/// An `EventLoop` watches the listening socket and every connection, all non-blocking: a connection costs a small
/// record, not a thread, and no client can hold up another. Only processes of the daemon's own uid are
/// served. A connection must deliver a complete request within `Limits.requestTimeoutMilliseconds` (counted from its
/// connection or its last reply) and take its reply within `replyTimeoutMilliseconds`, or it is closed. At
/// `maximumConnections`, a new client takes the place of the connection that has waited longest without sending a
/// request, so idle connections cannot lock anybody out. Requests are decoded and handled off the loop. Whatever
/// bytes arrive, the server answers with an error line or closes the connection; it never traps.
public final class ControlServer: @unchecked Sendable {
    /// How many connections the server holds and how long it waits for them.
    public struct Limits: Sendable {
        /// Connections held at once; beyond it the longest-idle one makes room (`busy` only when all are being served).
        public var maximumConnections = 256
        /// How long a connection may take to send a complete request line, in milliseconds.
        public var requestTimeoutMilliseconds: Int64 = 10_000
        /// How long a reply may wait for a client that does not read, in milliseconds.
        public var replyTimeoutMilliseconds: Int64 = 10_000

        public init() {}
    }

    /// The socket file.
    public let path: String
    public let limits: Limits

    /// Set by `start(handler:)`, before the loop that reads it watches anything.
    private var handler: (@Sendable (Command) async -> ControlResponse)?
    private let stopped = Mutex(false)
    /// The loop given at `init`; nil: `start` makes one of its own.
    private let givenLoop: EventLoop?

    // Owned by the loop's thread once started.
    private var loop: EventLoop?
    private var listenerWatch: EventLoop.Token?
    private var expiry: EventLoop.Token?
    private var directory: PrivateDirectory?
    private var name = ""
    private var boundFile: (dev_t, ino_t)?
    private var listener: Int32 = -1
    private var connections: [Int32: ControlConnection] = [:]
    /// Numbers connections, and the moments they become idle, in order.
    private var nextConnectionID: UInt64 = 1
    /// After EMFILE with nothing to evict, accepting pauses until this monotonic millisecond.
    private var acceptPausedUntil: Int64?
    private var serving = false

    /// Prepares a server for `path`, to be served on `loop` (a loop of its own when nil); nothing is opened until
    /// `bind` or `start`.
    public init(path: String, limits: Limits = Limits(), loop: EventLoop? = nil) {
        self.path = path
        self.limits = limits
        givenLoop = loop
    }

    /// Binds the socket (unless `bind()` did) and starts serving it: `handler` runs once per well-formed request,
    /// possibly concurrently for different connections.
    public func start(handler: @escaping @Sendable (Command) async -> ControlResponse) throws(SystemError) {
        if listener < 0 { try bind() }
        precondition(!serving, "ControlServer.start called twice")
        self.handler = handler
        let loop: EventLoop
        if let givenLoop { loop = givenLoop } else { loop = try EventLoop(name: "aviso-control") }
        let failure = Mutex<SystemError?>(nil)
        // Watched from the loop's thread, which owns everything from here on.
        loop.executeAndWait {
            do throws(SystemError) {
                self.listenerWatch = try loop.watch(self.listener) { _ in self.acceptAll() }
                self.expiry = loop.deadline { self.expireDeadlines() }
                self.loop = loop
            } catch {
                failure.withLock { $0 = error }
            }
        }
        if let failure = failure.withLock({ $0 }) {
            if givenLoop == nil { loop.stop() }
            throw failure
        }
        serving = true
    }

    /// Opens the socket's directory (created 0700 if missing; refused unless private, see
    /// `Directories.openPrivate`), removes a stale socket file, binds the socket with mode 0600 and listens; clients
    /// that connect wait in the kernel's backlog until `start()`.
    ///
    /// The daemon binds before it loads anything, so that a second daemon, or a socket directory that is not safe,
    /// stops it before it delivers a single notification. Throws when another process is listening on `path`
    /// ("another avisod is running on PATH"), when `path` exists and is not a socket, when the directory is not
    /// private, or when a call fails.
    public func bind() throws(SystemError) {
        precondition(listener < 0, "ControlServer.bind called twice")
        let directory = try Directories.openPrivate(containing: path)
        name = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        var opened: [Int32] = []
        var bound = false
        do throws(SystemError) {
            let address = directory.path(of: name)
            guard UnixSocket.fits(address) else {
                throw SystemError(refusing: "socket path \(address) is too long for a Unix socket")
            }
            try removeStaleSocket(in: directory, at: address)
            let fd = try UnixSocket.make()
            opened.append(fd)
            _ = try UnixSocket.withAddress(address) { a, length throws(SystemError) in try syscall("bind") { Glibc.bind(fd, a, length) } }
            bound = true
            // The directory is private, so nobody else can connect during the moment before the chmod.
            try syscall("fchmodat") { fchmodat(directory.fd, name, 0o600, 0) }
            try syscall("listen") { listen(fd, 128) }
            var info = stat()
            try syscall("fstatat") { fstatat(directory.fd, name, &info, AT_SYMLINK_NOFOLLOW) }
            boundFile = (info.st_dev, info.st_ino)
            try serve(listener: fd)
            self.directory = directory
        } catch {
            for fd in opened { close(fd) }
            if bound { unlinkat(directory.fd, name, 0) }
            directory.close()
            throw error
        }
    }

    /// Serves a socket that is already listening: the one systemd passes under socket activation
    /// (`SocketActivation`). Its file belongs to systemd and is left in place at `stop()`; the peer uid is checked
    /// as for a socket of our own.
    public func adopt(listener fd: Int32) throws(SystemError) {
        precondition(listener < 0, "ControlServer.adopt called after bind")
        do throws(SystemError) {
            try serve(listener: fd)
        } catch {
            close(fd)
            throw error
        }
    }

    /// Takes a listening socket to serve, non-blocking.
    private func serve(listener fd: Int32) throws(SystemError) {
        try syscall("fcntl") { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        listener = fd
    }

    /// Stops accepting, removes the socket file and closes every connection. Safe to call more than once, and
    /// before `start`.
    ///
    /// When it returns the listener and the connections are closed; a request already handed to the handler still
    /// completes, its reply is discarded.
    public func stop() {
        let first = stopped.withLock { s in
            defer { s = true }
            return !s
        }
        guard first, listener >= 0 else { return }
        if serving, let loop {
            loop.executeAndWait { self.shutDown() }
            if givenLoop == nil { loop.stop() }
        } else {
            shutDown()
        }
    }

    // MARK: On the loop

    /// Sets the loop's deadline for this server to the earliest of its connections' deadlines (and the end of a pause
    /// in accepting); called after everything that may change them.
    private func scheduleExpiry() {
        guard let loop, let expiry else { return }
        var earliest = acceptPausedUntil
        for c in connections.values {
            if let d = c.deadline { earliest = min(earliest ?? d, d) }
        }
        loop.setDeadline(expiry, at: earliest.map { $0 * 1_000_000 })
    }

    private func shutDown() {
        for fd in Array(connections.keys) { drop(fd) }
        if let loop {
            if let listenerWatch { loop.unwatch(listenerWatch) }
            if let expiry { loop.removeDeadline(expiry) }
        }
        if let directory {
            var info = stat()
            if let bound = boundFile, fstatat(directory.fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0,
               info.st_dev == bound.0 && info.st_ino == bound.1 {
                unlinkat(directory.fd, name, 0)
            }
            directory.close()
        }
        close(listener)
    }

    // MARK: Accepting

    private func acceptAll() {
        defer { scheduleExpiry() }
        if let until = acceptPausedUntil {
            guard Self.monotonicMilliseconds() >= until else { return }
            acceptPausedUntil = nil
            if let listenerWatch { try? loop?.change(listenerWatch, events: .readable) }
        }
        while true {
            let fd = aviso_accept4(listener, Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue))
            if fd >= 0 {
                admit(fd)
                continue
            }
            switch errno {
            case EINTR, ECONNABORTED: continue
            case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                // Out of descriptors: free the longest-idle connection, or stop listening for a moment (the listener
                // would otherwise stay readable and spin the loop).
                if evictLongestIdle(reason: "avisod is out of file descriptors") { continue }
                acceptPausedUntil = Self.monotonicMilliseconds() + 100
                if let listenerWatch { try? loop?.change(listenerWatch, events: []) }
                return
            default:
                return
            }
        }
    }

    /// Checks the peer and makes room if needed, then watches the connection.
    private func admit(_ fd: Int32) {
        guard let uid = UnixSocket.peerUID(fd), uid == getuid() else {
            refuse(fd, ReplyError(code: "permission", message: "only the user running avisod (uid \(getuid())) may use its control socket"))
            return
        }
        if connections.count >= limits.maximumConnections && !evictLongestIdle(reason: "its connection limit") {
            refuse(fd, ReplyError(code: "busy", message: "avisod is serving \(limits.maximumConnections) requests at once; try again"))
            return
        }
        let watch: EventLoop.Token
        do {
            guard let loop else { throw SystemError(refusing: "not serving") }
            watch = try loop.watch(fd, events: [.readable, .peerClosed]) { events in self.service(fd, events) }
        } catch {
            close(fd)
            return
        }
        let now = Self.monotonicMilliseconds()
        connections[fd] = ControlConnection(id: nextConnectionID, watch: watch, idleSince: nextConnectionID,
                                            readDeadline: now + limits.requestTimeoutMilliseconds)
        nextConnectionID += 1
    }

    /// Sends a short error line to a fresh socket (its buffer is empty, so this never blocks) and closes it.
    private func refuse(_ fd: Int32, _ error: ReplyError) {
        UnixSocket.sendAll(fd, Codec.encode(Reply.error(error)), wait: false)
        close(fd)
    }

    /// Closes the connection that has waited longest for a request (none is being served or answered); false when
    /// every connection is busy.
    private func evictLongestIdle(reason: String) -> Bool {
        guard let (fd, _) = connections.filter({ $0.value.isIdle }).min(by: { $0.value.idleSince < $1.value.idleSince })
        else { return false }
        UnixSocket.sendAll(fd, Codec.encode(Reply.error(ReplyError(
            code: "timeout", message: "this connection sent no request and was closed to make room (\(reason))"))), wait: false)
        drop(fd)
        return true
    }

    // MARK: Serving connections

    private func service(_ fd: Int32, _ events: Epoll.Events) {
        guard connections[fd] != nil else { return }
        defer { scheduleExpiry() }
        if events.contains(.writable) { flush(fd) }
        if !events.isDisjoint(with: [.readable, .peerClosed, .hangUp, .error]) { receive(fd) }
        // A peer that is gone entirely reports HUP whatever is asked for: stop watching it. What is being served
        // finishes, and sending its reply fails and closes the connection.
        if !events.isDisjoint(with: [.hangUp, .error, .peerClosed]), let c = connections[fd], c.streaming {
            // A follower that left: stop its stream.
            return drop(fd)
        }
        if !events.isDisjoint(with: [.hangUp, .error]), let c = connections[fd] {
            loop?.unwatch(c.watch)
            connections[fd]?.watched = false
        }
    }

    /// Reads until a complete line is there (or nothing more is); each line becomes a request, one at a time.
    private func receive(_ fd: Int32) {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while var c = connections[fd], c.isIdle, !c.peerClosed {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { break }
                return drop(fd)
            }
            if n == 0 {
                c.peerClosed = true
                // A last request without its newline still gets an answer, for `printf ... | nc -U`.
                if let last = c.framer.finish() { c.lines.append(last) }
                connections[fd] = c
                break
            }
            chunk.withUnsafeBytes { c.framer.append(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
            while let event = c.framer.next() {
                switch event {
                case .line(let line): c.lines.append(line)
                case .tooLarge:
                    c.lines.removeAll()
                    c.closeAfterReply = true
                    connections[fd] = c
                    return queue(fd, .error(ReplyError(
                        code: "too-large",
                        message: "request line is longer than \(maximumLineLength) bytes; the connection is closed")))
                }
            }
            connections[fd] = c
        }
        advance(fd)
    }

    /// Answers the connection's pending lines in order until one goes to the handler or a reply waits for the
    /// client; closes a connection whose client has left and has nothing more to be answered.
    private func advance(_ fd: Int32) {
        while let c = connections[fd], !c.serving, c.outgoing.isEmpty, !c.closeAfterReply {
            guard let line = c.lines.first else {
                if c.peerClosed { return drop(fd) }
                return updateInterest(fd)
            }
            connections[fd]?.lines.removeFirst()
            if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }) {
                continue
            }
            connections[fd]?.serving = true
            updateInterest(fd)
            let id = c.id
            guard let handler else { return }
            // Decoding (up to a megabyte of JSON) happens off this thread too: the loop only moves bytes.
            connections[fd]?.task = Task {
                switch await Self.answer(line, handler) {
                case .reply(let reply):
                    self.post(id, Codec.encode(reply), final: true)
                case .stream(let first, let rest):
                    self.post(id, Codec.encode(first), final: false)
                    // Ends when the connection is dropped: the loop cancels this task.
                    for await reply in rest { self.post(id, Codec.encode(reply), final: false) }
                }
            }
            return
        }
    }

    /// The reply to one request line: the handler's, or why the line is not a request.
    private static func answer(_ line: [UInt8], _ handler: @Sendable (Command) async -> ControlResponse) async -> ControlResponse {
        guard String(validating: line, as: UTF8.self) != nil else {
            return .reply(.error(ReplyError(code: "malformed", message: "request is not valid UTF-8; send one JSON object per line, in UTF-8")))
        }
        let command: Command
        do throws(ReplyError) {
            command = try Codec.decodeCommand(line)
        } catch {
            return .reply(.error(error))
        }
        return await handler(command)
    }

    /// Hands a reply line to the loop's thread (from any thread); dropped once the server has stopped.
    private func post(_ id: UInt64, _ line: [UInt8], final: Bool) {
        guard !stopped.withLock({ $0 }), let loop else { return }
        loop.execute {
            guard !self.stopped.withLock({ $0 }),
                  let fd = self.connections.first(where: { $0.value.id == id })?.key else { return }
            if final {
                self.connections[fd]?.serving = false
                self.connections[fd]?.task = nil
            } else {
                self.connections[fd]?.streaming = true
            }
            self.connections[fd]?.outgoing += line
            self.flush(fd)
            self.scheduleExpiry()
        }
    }

    /// Queues a reply and sends what the socket takes now (the rest goes out as the client reads).
    private func queue(_ fd: Int32, _ reply: Reply) {
        connections[fd]?.outgoing += Codec.encode(reply)
        write(fd)
    }

    /// Sends what it can, then goes on with the connection's next request.
    private func flush(_ fd: Int32) {
        if write(fd) { advance(fd) }
    }

    /// Sends as much of the pending reply as the socket takes; false when the connection was closed.
    @discardableResult
    private func write(_ fd: Int32) -> Bool {
        guard var c = connections[fd] else { return false }
        let now = Self.monotonicMilliseconds()
        var progressed = false
        while !c.outgoing.isEmpty {
            let sent = c.outgoing.withUnsafeBytes { send(fd, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if sent < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { break }
                drop(fd)
                return false
            }
            c.outgoing.removeFirst(sent)
            progressed = true
        }
        if c.outgoing.isEmpty {
            if c.closeAfterReply {
                drop(fd)
                return false
            }
            c.writeDeadline = nil
            // The next request has its own time to arrive.
            c.readDeadline = now + limits.requestTimeoutMilliseconds
            c.idleSince = nextConnectionID
            nextConnectionID += 1
        } else if progressed || c.writeDeadline == nil {
            c.writeDeadline = now + limits.replyTimeoutMilliseconds
        }
        connections[fd] = c
        updateInterest(fd)
        return true
    }

    private func updateInterest(_ fd: Int32) {
        guard let c = connections[fd], c.watched, c.wantedEvents != c.interest else { return }
        connections[fd]?.interest = c.wantedEvents
        try? loop?.change(c.watch, events: c.wantedEvents)
    }

    private func expireDeadlines() {
        defer { scheduleExpiry() }
        let now = Self.monotonicMilliseconds()
        for (fd, c) in connections {
            guard let deadline = c.deadline, deadline <= now else { continue }
            if c.outgoing.isEmpty {
                UnixSocket.sendAll(fd, Codec.encode(Reply.error(ReplyError(
                    code: "timeout",
                    message: "no complete request within \(TimeSpan.format(.milliseconds(limits.requestTimeoutMilliseconds))); "
                        + "the connection is closed"))),
                    wait: false)
            }
            drop(fd)
        }
    }

    private func drop(_ fd: Int32) {
        guard let c = connections.removeValue(forKey: fd) else { return }
        c.task?.cancel()
        if c.watched { loop?.unwatch(c.watch) }
        close(fd)
    }

    // MARK: Helpers

    private func removeStaleSocket(in directory: PrivateDirectory, at address: String) throws(SystemError) {
        var info = stat()
        guard fstatat(directory.fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw SystemError(refusing: "\(path) exists and is not a socket; move it away")
        }
        if UnixSocket.isListening(address) {
            throw SystemError(refusing: "another avisod is running on \(path)")
        }
        try syscall("unlinkat") { unlinkat(directory.fd, name, 0) }
    }

    static func monotonicMilliseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000 + Int64(ts.tv_nsec) / 1_000_000
    }
}
