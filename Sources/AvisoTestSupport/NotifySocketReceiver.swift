import Foundation
import Glibc
import Synchronization

/// A stand-in for systemd's notification socket: receives what a process sends with `sd_notify`.
///
/// Pass `path` as `NOTIFY_SOCKET` to the process under test (or set it in this process), then await messages.
/// Each message is kept with its arrival time on CLOCK_MONOTONIC, so a test can check the watchdog cadence.
/// Messages are consumed in arrival order by `next` and `waitFor`; `history` keeps them all. Call `close()` when done.
public final class NotifySocketReceiver: Sendable {
    /// One datagram as received.
    public struct Message: Sendable, Hashable {
        /// The datagram's text, e.g. "READY=1\nSTATUS=ready".
        public var text: String
        /// CLOCK_MONOTONIC when it was read.
        public var arrival: Duration
        /// The assignments it carries, e.g. ["READY": "1", "STATUS": "ready"].
        public var fields: [String: String] {
            var fields: [String: String] = [:]
            for line in text.split(separator: "\n") {
                guard let eq = line.firstIndex(of: "=") else { continue }
                fields[String(line[..<eq])] = String(line[line.index(after: eq)...])
            }
            return fields
        }
    }

    /// Setting up failed, or no (matching) message came in time.
    public struct Failure: Error, CustomStringConvertible {
        /// What failed; for a timeout, what was awaited and what arrived meanwhile.
        public var description: String
    }

    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<Message, any Error>
    }

    private struct State {
        var queue: [Message] = []
        var history: [Message] = []
        var waiter: Waiter?
        var nextID: UInt64 = 0
        var closed = false
    }

    /// The socket's path: the value for `NOTIFY_SOCKET`.
    public let path: String
    private let socketFD: Int32
    private let stopPipe: (read: Int32, write: Int32)
    private let state = Mutex(State())

    /// Binds a datagram socket at `path` (nil: a fresh path under the temporary directory; "@NAME": NAME in the
    /// abstract namespace, as systemd may hand out) and starts reading it.
    ///
    /// The journal's native protocol is datagrams of the same "KEY=VALUE" lines (for values without a newline), so
    /// bound at /run/systemd/journal/socket this receives what a process sends with `sd_journal_send`.
    public init(path: String? = nil) throws {
        let dir = FileManager.default.temporaryDirectory.path
        let path = path ?? "\(dir)/aviso-notify-\(getpid())-\(UUID().uuidString.prefix(8)).sock"
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        // "@NAME" is NAME in the abstract namespace, whose address is exactly its bytes after a NUL.
        var bytes = Array(path.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes.prefix(raw.count - 1))
        }
        let length = abstract
            ? MemoryLayout.offset(of: \sockaddr_un.sun_path)! + bytes.count : MemoryLayout<sockaddr_un>.size
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(length)) }
        }
        guard bound == 0 else {
            let message = String(cString: strerror(errno))
            Glibc.close(fd)
            throw Failure(description: "bind \(path): \(message)")
        }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            Glibc.close(fd)
            throw Failure(description: "pipe: \(String(cString: strerror(errno)))")
        }
        self.path = path
        socketFD = fd
        stopPipe = (fds[0], fds[1])
        let thread = Thread { [self] in readLoop() }
        thread.name = "notify-receiver"
        thread.start()
    }

    /// The text of the next message not yet consumed, waiting at most `timeout` for one to arrive.
    public func next(timeout: Duration) async throws -> String {
        try await nextMessage(timeout: timeout).text
    }

    /// The next message not yet consumed, with its arrival time, waiting at most `timeout`.
    public func nextMessage(timeout: Duration) async throws -> Message {
        try await waitFor(timeout: timeout) { _ in true }
    }

    /// Consumes messages until one whose text satisfies `predicate` arrives and returns it; skipped ones are
    /// dropped from the queue (they stay in `history`).
    ///
    /// Throws `Failure` (listing what arrived) if none matches within `timeout`.
    public func waitFor(
        timeout: Duration, where predicate: @Sendable (String) -> Bool
    ) async throws -> Message {
        let deadline = ContinuousClock.now + timeout
        var skipped: [String] = []
        while true {
            let remaining = deadline - ContinuousClock.now
            let message: Message
            do {
                message = try await receive(timeout: remaining)
            } catch is Failure {
                throw Failure(description: "no matching sd_notify message within \(timeout); got \(skipped)")
            }
            if predicate(message.text) { return message }
            skipped.append(message.text)
        }
    }

    /// Every message received so far, consumed or not, in arrival order: for checking the watchdog cadence.
    public var history: [Message] { state.withLock { $0.history } }

    /// Stops reading and removes the socket file. Waiting calls fail with `Failure`.
    public func close() {
        let waiter: Waiter? = state.withLock { s in
            if s.closed { return nil }
            s.closed = true
            var one: UInt8 = 1
            _ = Glibc.write(stopPipe.write, &one, 1)
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.continuation.resume(throwing: Failure(description: "receiver closed"))
        unlink(path)
    }

    private func receive(timeout: Duration) async throws -> Message {
        let id = state.withLock { s in
            defer { s.nextID += 1 }
            return s.nextID
        }
        // The timer is only a failure bound: a message normally resumes the waiter long before it.
        let timer = Task {
            try await Task.sleep(for: max(timeout, .zero))
            let waiter: Waiter? = state.withLock { s in
                guard let w = s.waiter, w.id == id else { return nil }
                s.waiter = nil
                return w
            }
            waiter?.continuation.resume(throwing: Failure(description: "timeout"))
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Message, any Error>) in
            let ready: Result<Message, any Error>? = state.withLock { s in
                if !s.queue.isEmpty { return .success(s.queue.removeFirst()) }
                if s.closed { return .failure(Failure(description: "receiver closed")) }
                precondition(s.waiter == nil, "NotifySocketReceiver has one consumer")
                s.waiter = Waiter(id: id, continuation: continuation)
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    private func readLoop() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var pollFDs = [pollfd(fd: socketFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0)]
        while true {
            guard poll(&pollFDs, 2, -1) >= 0 || errno == EINTR else { break }
            if pollFDs[1].revents != 0 { break }
            if pollFDs[0].revents == 0 { continue }
            let n = buffer.withUnsafeMutableBytes { recv(socketFD, $0.baseAddress, $0.count, 0) }
            guard n >= 0 else { if errno == EINTR { continue } else { break } }
            var ts = timespec()
            clock_gettime(CLOCK_MONOTONIC, &ts)
            let message = Message(text: String(decoding: buffer[0..<n], as: UTF8.self),
                                  arrival: .seconds(ts.tv_sec) + .nanoseconds(ts.tv_nsec))
            let waiter: Waiter? = state.withLock { s in
                s.history.append(message)
                if let w = s.waiter {
                    s.waiter = nil
                    return w
                }
                s.queue.append(message)
                return nil
            }
            waiter?.continuation.resume(returning: message)
        }
        Glibc.close(socketFD)
        Glibc.close(stopPipe.read)
        Glibc.close(stopPipe.write)
    }
}
