import Glibc

/// Wrappers for epoll: one set of file descriptors that a single thread waits on.
enum Epoll {
    /// Creates a close-on-exec epoll set.
    static func create() throws(SystemError) -> Int32 {
        try syscall("epoll_create1") { LinuxAPI.epollCreate1(LinuxAPI.cloexec) }
    }

    /// Watches `fd` for readability, tagging its events with `fd` itself.
    ///
    /// Adding to a set that another thread is blocked on takes effect at once; no wakeup is needed.
    static func add(_ epfd: Int32, _ fd: Int32) throws(SystemError) {
        let event = UnsafeMutableRawPointer.allocate(byteCount: LinuxAPI.epollEventSize, alignment: 8)
        defer { event.deallocate() }
        event.initializeMemory(as: UInt8.self, repeating: 0, count: LinuxAPI.epollEventSize)
        event.storeBytes(of: LinuxAPI.epollIn, toByteOffset: 0, as: UInt32.self)
        event.storeBytes(of: UInt64(UInt32(bitPattern: fd)), toByteOffset: LinuxAPI.epollDataOffset, as: UInt64.self)
        try syscall("epoll_ctl") { LinuxAPI.epollCtl(epfd, LinuxAPI.epollAdd, fd, event) }
    }

    /// Stops watching `fd`.
    static func remove(_ epfd: Int32, _ fd: Int32) throws(SystemError) {
        try syscall("epoll_ctl") { LinuxAPI.epollCtl(epfd, LinuxAPI.epollDel, fd, nil) }
    }

    /// Blocks until at least one watched fd is ready, with no timeout, and returns the ready fds.
    static func wait(_ epfd: Int32, maxEvents: Int = 80) throws(SystemError) -> [Int32] {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: LinuxAPI.epollEventSize * maxEvents, alignment: 8)
        defer { buffer.deallocate() }
        let n = try syscall("epoll_wait") { LinuxAPI.epollWait(epfd, buffer, Int32(maxEvents), -1) }
        return (0..<Int(n)).map { i in
            let data = buffer.loadUnaligned(
                fromByteOffset: i * LinuxAPI.epollEventSize + LinuxAPI.epollDataOffset, as: UInt64.self)
            return Int32(bitPattern: UInt32(truncatingIfNeeded: data))
        }
    }
}
