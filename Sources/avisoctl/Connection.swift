import AvisoProtocol
import Glibc

/// One request and its reply over the daemon's control socket.
enum Connection {
    /// How long avisoctl waits for the daemon's reply before saying so.
    static let replyTimeoutSeconds = 60

    /// Sends `command` to the daemon listening at `path` and returns its reply.
    ///
    /// Exits with status 3 when no daemon answers (with a message saying how to start one), or when the socket is
    /// served by a process of another user: what avisoctl sends (titles, bodies) is not for them.
    static func send(_ command: Command, to path: String) -> Reply {
        let fd = connected(path)
        defer { close(fd) }
        var timeout = timeval(tv_sec: replyTimeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let writeError = write(Codec.encode(command), to: fd, path)

        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !reply.contains(UInt8(ascii: "\n")) {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN {
                    unreachable(path, "the daemon did not answer within \(replyTimeoutSeconds)s")
                }
                unreachable(path, "reading the daemon's reply failed: \(errorText())")
            }
            if n == 0 {
                let why = writeError.map { "the daemon closed the connection before taking the request (\(errorText($0)))" }
                unreachable(path, why ?? "the daemon closed the connection without replying")
            }
            reply += buffer[0..<n]
        }
        let end = reply.firstIndex(of: UInt8(ascii: "\n"))!
        do {
            return try Codec.decodeReply(reply[..<end], to: command)
        } catch {
            Output.fail(1, error.message)
        }
    }

    /// Sends `command` and hands each reply line to `each` until the daemon closes the connection (or this process
    /// is stopped): for `events --follow`. No reply timeout: a quiet stream is not a stuck daemon.
    static func follow(_ command: Command, to path: String, each: (Reply) -> Void) -> Never {
        let fd = connected(path)
        write(Codec.encode(command), to: fd, path)
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                unreachable(path, "reading from the daemon failed: \(errorText())")
            }
            if n == 0 { exit(0) }
            pending += buffer[0..<n]
            while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(pending[..<end])
                pending.removeSubrange(...end)
                do {
                    each(try Codec.decodeReply(line, to: command))
                } catch {
                    Output.fail(1, error.message)
                }
            }
        }
    }

    /// A socket connected to the daemon at `path`, checked to be served by this user; exits 3 when there is none.
    private static func connected(_ path: String) -> Int32 {
        // A daemon that refuses before reading closes the socket under our write: say what it said, do not die.
        signal(SIGPIPE, SIG_IGN)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { unreachable(path, "socket: \(errorText())") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            Output.fail(2, "socket path is too long (\(bytes.count) bytes): \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if rc != 0 {
            let e = errno
            if e == ENOENT || e == ECONNREFUSED {
                unreachable(path, "no daemon is listening on \(path)")
            }
            unreachable(path, "cannot connect to \(path): \(errorText(e))")
        }
        checkPeer(fd, path)
        return fd
    }

    /// Writes a request line; the errno when the daemon closed the connection first (its reply may still be there).
    @discardableResult
    private static func write(_ line: [UInt8], to fd: Int32, _ path: String) -> Int32? {
        var written = 0
        while written < line.count {
            let n = line[written...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            written += n
        }
        return nil
    }

    /// Refuses to talk to a socket served by another user: in a shared runtime directory another user could have put
    /// a socket of theirs where the daemon's should be.
    private static func checkPeer(_ fd: Int32, _ path: String) {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; }: Glibc's Swift overlay hides it behind _GNU_SOURCE.
        var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        let known = getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0
            && length == socklen_t(MemoryLayout.size(ofValue: credentials))
        guard known, credentials.1 == getuid() else {
            let who = known ? "a process of uid \(credentials.1)" : "a process whose user cannot be told"
            Output.fail(3, """
                \(path) is served by \(who), not by you (uid \(getuid())): nothing was sent to it. Check who created \
                the socket's directory, or use --socket to reach your own avisod.
                """)
        }
    }

    private static func unreachable(_ path: String, _ why: String) -> Never {
        Output.fail(3, """
            \(why)
            avisod is not reachable. Start it with `systemctl --user start aviso.service`, or run `avisod` in a terminal \
            (use --socket or AVISO_SOCKET if it listens elsewhere).
            """)
    }

    private static func errorText(_ e: Int32 = errno) -> String { String(cString: strerror(e)) }
}
