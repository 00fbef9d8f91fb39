import Glibc

/// Wrappers for epoll: one set of file descriptors that a single thread waits on.
enum Epoll {
    /// Event bits (`EPOLLIN`, `EPOLLOUT`, ...), as the kernel defines them.
    struct Events: OptionSet, Hashable {
        var rawValue: UInt32
        static let readable = Events(rawValue: 0x001)
        static let writable = Events(rawValue: 0x004)
        static let error = Events(rawValue: 0x008)
        static let hangUp = Events(rawValue: 0x010)
        static let peerClosed = Events(rawValue: 0x2000)
    }

    /// One ready descriptor and what it is ready for.
    struct Ready {
        var fd: Int32
        var events: Events
    }

    /// Creates a close-on-exec epoll set.
    static func create() throws(SystemError) -> Int32 {
        try syscall("epoll_create1") { LinuxAPI.epollCreate1(LinuxAPI.cloexec) }
    }

    /// Watches `fd` for `events` (readability unless told otherwise), tagging its events with `fd` itself.
    ///
    /// Adding to a set that another thread is blocked on takes effect at once; no wakeup is needed.
    static func add(_ epfd: Int32, _ fd: Int32, events: Events = .readable) throws(SystemError) {
        try control(epfd, LinuxAPI.epollAdd, fd, events)
    }

    /// Changes the events watched on `fd`.
    static func modify(_ epfd: Int32, _ fd: Int32, events: Events) throws(SystemError) {
        try control(epfd, LinuxAPI.epollMod, fd, events)
    }

    /// Stops watching `fd`.
    static func remove(_ epfd: Int32, _ fd: Int32) throws(SystemError) {
        try syscall("epoll_ctl") { LinuxAPI.epollCtl(epfd, LinuxAPI.epollDel, fd, nil) }
    }

    private static func control(_ epfd: Int32, _ op: Int32, _ fd: Int32, _ events: Events) throws(SystemError) {
        let event = UnsafeMutableRawPointer.allocate(byteCount: LinuxAPI.epollEventSize, alignment: 8)
        defer { event.deallocate() }
        event.initializeMemory(as: UInt8.self, repeating: 0, count: LinuxAPI.epollEventSize)
        event.storeBytes(of: events.rawValue, toByteOffset: 0, as: UInt32.self)
        event.storeBytes(of: UInt64(UInt32(bitPattern: fd)), toByteOffset: LinuxAPI.epollDataOffset, as: UInt64.self)
        try syscall("epoll_ctl") { LinuxAPI.epollCtl(epfd, op, fd, event) }
    }

    /// Blocks until at least one watched fd is ready, or `timeoutMilliseconds` pass (-1: no timeout), and returns
    /// the ready fds with their events; empty after a timeout.
    static func wait(_ epfd: Int32, maxEvents: Int = 80, timeoutMilliseconds: Int32 = -1) throws(SystemError) -> [Ready] {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: LinuxAPI.epollEventSize * maxEvents, alignment: 8)
        defer { buffer.deallocate() }
        let n = try syscall("epoll_wait") { LinuxAPI.epollWait(epfd, buffer, Int32(maxEvents), timeoutMilliseconds) }
        return (0..<Int(n)).map { i in
            let base = i * LinuxAPI.epollEventSize
            let events = buffer.loadUnaligned(fromByteOffset: base, as: UInt32.self)
            let data = buffer.loadUnaligned(fromByteOffset: base + LinuxAPI.epollDataOffset, as: UInt64.self)
            return Ready(fd: Int32(bitPattern: UInt32(truncatingIfNeeded: data)), events: Events(rawValue: events))
        }
    }
}
