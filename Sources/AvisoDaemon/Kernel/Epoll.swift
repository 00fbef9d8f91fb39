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

    /// One ready descriptor, by the tag it was added with, and what it is ready for.
    struct Ready {
        var tag: UInt64
        var events: Events
    }

    /// Creates a close-on-exec epoll set.
    static func create() throws(SystemError) -> Int32 {
        try syscall("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
    }

    /// Watches `fd` for `events`; its readiness is reported with `tag`, which need not be the fd: a tag used once
    /// tells a stale event for a closed descriptor from one for a new descriptor with the same number.
    ///
    /// Adding to a set that another thread is blocked on takes effect at once; no wakeup is needed.
    static func add(_ epfd: Int32, _ fd: Int32, tag: UInt64, events: Events = .readable) throws(SystemError) {
        try control(epfd, EPOLL_CTL_ADD, fd, tag, events)
    }

    /// Changes the events watched on `fd`.
    static func modify(_ epfd: Int32, _ fd: Int32, tag: UInt64, events: Events) throws(SystemError) {
        try control(epfd, EPOLL_CTL_MOD, fd, tag, events)
    }

    /// Stops watching `fd`.
    static func remove(_ epfd: Int32, _ fd: Int32) throws(SystemError) {
        try syscall("epoll_ctl") { epoll_ctl(epfd, EPOLL_CTL_DEL, fd, nil) }
    }

    private static func control(_ epfd: Int32, _ op: Int32, _ fd: Int32, _ tag: UInt64, _ events: Events) throws(SystemError) {
        var event = epoll_event()
        event.events = events.rawValue
        event.data.u64 = tag
        try syscall("epoll_ctl") { epoll_ctl(epfd, op, fd, &event) }
    }

    /// Blocks until at least one watched fd is ready, or `timeoutMilliseconds` pass (-1: no timeout), and returns
    /// the ready fds' tags with their events; empty after a timeout.
    static func wait(_ epfd: Int32, maxEvents: Int = 80, timeoutMilliseconds: Int32 = -1) throws(SystemError) -> [Ready] {
        var buffer = [epoll_event](repeating: epoll_event(), count: maxEvents)
        let n = try buffer.withUnsafeMutableBufferPointer { b throws(SystemError) in
            try syscall("epoll_wait") { epoll_wait(epfd, b.baseAddress, Int32(maxEvents), timeoutMilliseconds) }
        }
        return buffer.prefix(Int(n)).map { Ready(tag: $0.data.u64, events: Events(rawValue: $0.events)) }
    }
}
