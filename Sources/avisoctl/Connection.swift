import AvisoProtocol
import Glibc

/// One request and its reply over the daemon's control socket.
enum Connection {
    /// Sends `command` to the daemon listening at `path` and returns its reply.
    ///
    /// Exits with status 3 when no daemon answers, with a message saying how to start one.
    static func send(_ command: Command, to path: String) -> Reply {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { unreachable(path, "socket: \(errorText())") }
        defer { close(fd) }

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
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if connected != 0 {
            let e = errno
            if e == ENOENT || e == ECONNREFUSED {
                unreachable(path, "no daemon is listening on \(path)")
            }
            unreachable(path, "cannot connect to \(path): \(errorText(e))")
        }

        let line = Codec.encode(command)
        var written = 0
        while written < line.count {
            let n = line[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                unreachable(path, "the daemon closed the connection: \(errorText())")
            }
            written += n
        }

        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !reply.contains(UInt8(ascii: "\n")) {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                unreachable(path, "reading the daemon's reply failed: \(errorText())")
            }
            if n == 0 { unreachable(path, "the daemon closed the connection without replying") }
            reply += buffer[0..<n]
        }
        let end = reply.firstIndex(of: UInt8(ascii: "\n"))!
        do {
            return try Codec.decodeReply(reply[..<end], to: command)
        } catch {
            Output.fail(1, error.message)
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
