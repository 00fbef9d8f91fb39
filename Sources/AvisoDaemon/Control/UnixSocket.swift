import Glibc

/// Thin wrappers over the AF_UNIX stream socket calls the control server needs.
enum UnixSocket {
    /// Whether `path` fits in `sockaddr_un.sun_path` (107 bytes and a NUL).
    static func fits(_ path: String) -> Bool {
        path.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path)
    }

    /// Calls `body` with the address of `path`; the caller checked `fits(path)`.
    static func withAddress<T>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) throws(SystemError) -> T) throws(SystemError) -> T {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes.prefix(raw.count - 1))
        }
        return try withUnsafePointer(to: &address) { pointer throws(SystemError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address throws(SystemError) in
                try body(address, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }

    /// A new stream socket, close-on-exec.
    static func make() throws(SystemError) -> Int32 {
        try syscall("socket") { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
    }

    /// Sends `bytes` as one datagram to the socket at `path` ("@NAME": NAME in the abstract namespace, whose address
    /// is exactly its bytes after a NUL); false when it could not be sent. Never waits: a receiver whose queue is full
    /// (one that stopped reading) gets nothing. The caller checked `fits(path)`.
    @discardableResult
    static func sendDatagram(_ bytes: [UInt8], to path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var name = Array(path.utf8)
        let abstract = name.first == UInt8(ascii: "@")
        if abstract { name[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: name) }
        let length = socklen_t(MemoryLayout.offset(of: \sockaddr_un.sun_path)! + name.count + (abstract ? 0 : 1))
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bytes.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT), address, length) }
            }
        }
        return sent == bytes.count
    }

    /// Whether a process is accepting connections on `path` (a live daemon, as opposed to a stale socket file).
    static func isListening(_ path: String) -> Bool {
        guard let fd = try? make() else { return false }
        defer { close(fd) }
        let connected = try? withAddress(path) { address, length throws(SystemError) in
            try syscall("connect") { connect(fd, address, length) }
        }
        return connected != nil
    }

    /// The uid of the process at the other end (SO_PEERCRED), or nil if the kernel did not say.
    /// The path a socket is bound to (nil for an unnamed or abstract one).
    static func boundPath(_ fd: Int32) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
        }
        guard ok else { return nil }
        let path = withUnsafeBytes(of: address.sun_path) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        return path.hasPrefix("/") ? path : nil
    }

    static func peerUID(_ fd: Int32) -> uid_t? {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; }: Glibc's Swift overlay hides it behind _GNU_SOURCE.
        var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        let rc = getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length)
        return rc == 0 && length == socklen_t(MemoryLayout.size(ofValue: credentials)) ? credentials.1 : nil
    }

    /// Bounds how long a `send` may block on a client that does not read.
    static func setSendTimeout(_ fd: Int32, seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Sends all of `bytes`; false when the peer went away or the send timed out. Never raises SIGPIPE.
    @discardableResult
    static func sendAll(_ fd: Int32, _ bytes: [UInt8], wait: Bool = true) -> Bool {
        var offset = 0
        let flags = Int32(MSG_NOSIGNAL) | (wait ? 0 : Int32(MSG_DONTWAIT))
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(flags))
            }
            if sent < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += sent
        }
        return true
    }
}
