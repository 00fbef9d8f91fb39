internal import CKernel
import Glibc

/// Wrappers for epoll: one set of file descriptors that a single thread waits on.
enum Epoll {
    /// Event bits (`EPOLLIN`, `EPOLLOUT`, ...).
    struct Events: OptionSet, Hashable {
        var rawValue: UInt32
        static let readable = Events(rawValue: EPOLLIN.rawValue)
        static let writable = Events(rawValue: EPOLLOUT.rawValue)
        static let error = Events(rawValue: EPOLLERR.rawValue)
        static let hangUp = Events(rawValue: EPOLLHUP.rawValue)
        static let peerClosed = Events(rawValue: EPOLLRDHUP.rawValue)
    }

    /// One ready descriptor and what it is ready for.
    struct Ready {
        var fd: Int32
        var events: Events
    }

    /// Creates a close-on-exec epoll set.
    static func create() throws(SystemError) -> Int32 {
        try syscall("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
    }

    /// Watches `fd` for `events` (readability unless told otherwise), tagging its events with `fd` itself.
    ///
    /// Adding to a set that another thread is blocked on takes effect at once; no wakeup is needed.
    static func add(_ epfd: Int32, _ fd: Int32, events: Events = .readable) throws(SystemError) {
        try control(epfd, EPOLL_CTL_ADD, fd, events)
    }

    /// Changes the events watched on `fd`.
    static func modify(_ epfd: Int32, _ fd: Int32, events: Events) throws(SystemError) {
        try control(epfd, EPOLL_CTL_MOD, fd, events)
    }

    /// Stops watching `fd`.
    static func remove(_ epfd: Int32, _ fd: Int32) throws(SystemError) {
        try syscall("epoll_ctl") { epoll_ctl(epfd, EPOLL_CTL_DEL, fd, nil) }
    }

    private static func control(_ epfd: Int32, _ op: Int32, _ fd: Int32, _ events: Events) throws(SystemError) {
        var event = epoll_event()
        event.events = events.rawValue
        event.data.fd = fd
        try syscall("epoll_ctl") { epoll_ctl(epfd, op, fd, &event) }
    }

    /// Blocks until at least one watched fd is ready, or `timeoutMilliseconds` pass (-1: no timeout), and returns
    /// the ready fds with their events; empty after a timeout.
    static func wait(_ epfd: Int32, maxEvents: Int = 80, timeoutMilliseconds: Int32 = -1) throws(SystemError) -> [Ready] {
        var buffer = [epoll_event](repeating: epoll_event(), count: maxEvents)
        let n = try buffer.withUnsafeMutableBufferPointer { b throws(SystemError) in
            try syscall("epoll_wait") { epoll_wait(epfd, b.baseAddress, Int32(maxEvents), timeoutMilliseconds) }
        }
        return buffer.prefix(Int(n)).map { Ready(fd: $0.data.fd, events: Events(rawValue: $0.events)) }
    }
}
