import Foundation

/// Lines read from a child process's output pipe, kept in order, that a test can await one by one.
///
/// Waiting is bounded by a timeout that is a failure bound, never a delay: a line that is already there is
/// returned at once.
public final class LineChannel: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    private var consumed = 0
    private var partial = Data()
    private var ended = false
    private var waiters: [(id: Int, continuation: CheckedContinuation<Void, Never>)] = []
    private var nextID = 0

    public init() {}

    /// Starts reading `handle` until end of file; `echo` gets every line too (for logs).
    ///
    /// The reading is a blocking loop on a thread of its own, which holds `handle` (so its descriptor stays open)
    /// until the end. Not `readabilityHandler`: tearing its libdispatch read source down races libdispatch's epoll
    /// bookkeeping on Linux (swift-corelibs-libdispatch issue 949), which crashed a whole test run in
    /// `_dispatch_event_loop_drain`.
    public func attach(_ handle: FileHandle, echo: (@Sendable (String) -> Void)? = nil) {
        let reader = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                received(Data(buffer[..<n]), echo: echo)
            }
            received(Data(), echo: echo)
        }
        reader.name = "line-channel"
        reader.start()
    }

    /// Ends the stream as its writer closing it would: for a writer that has exited while another process it did
    /// not know about still holds the pipe's write end.
    public func end() { received(Data(), echo: nil) }

    /// Every line received so far.
    public var all: [String] { lock.withLock { lines } }

    /// The next unconsumed line satisfying `predicate`, waiting at most `timeout` for it; earlier non-matching
    /// lines are consumed. Throws when the stream ends or the time is up.
    public func next(timeout: Duration = .seconds(10), where predicate: (String) -> Bool = { _ in true }) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (found, isEnded): (String?, Bool) = lock.withLock {
                while consumed < lines.count {
                    let line = lines[consumed]
                    consumed += 1
                    if predicate(line) { return (line, false) }
                }
                return (nil, ended)
            }
            if let found { return found }
            if isEnded { throw BusFixtureError("the stream ended before the expected line") }
            let left = deadline - ContinuousClock.now
            if left <= .zero { throw BusFixtureError("no expected line within \(timeout); last lines: \(all.suffix(5))") }
            await waitForMore(atMost: left)
        }
    }

    /// The first line ever received (consumed or not) satisfying `predicate`, waiting at most `timeout` for it.
    public func first(timeout: Duration = .seconds(10), where predicate: @escaping (String) -> Bool) async throws -> String {
        if let line = all.first(where: predicate) { return line }
        return try await next(timeout: timeout, where: predicate)
    }

    /// Waits until the stream ends (the writer closed it, as a process does when it exits), at most `timeout`.
    public func waitForEnd(timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        // Lines that arrive meanwhile are consumed (they stay in `all`), so waiting sleeps until something new.
        while !lock.withLock({ consumed = lines.count; return ended }) {
            let left = deadline - ContinuousClock.now
            if left <= .zero { throw BusFixtureError("the stream did not end within \(timeout)") }
            await waitForMore(atMost: left)
        }
    }

    private func waitForMore(atMost limit: Duration) async {
        let id: Int = lock.withLock { nextID += 1; return nextID }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: limit)
            self?.wake(id)
        }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            lock.lock()
            if consumed < lines.count || ended {
                lock.unlock()
                c.resume()
            } else {
                waiters.append((id, c))
                lock.unlock()
            }
        }
        timer.cancel()
    }

    private func wake(_ id: Int) {
        let c: CheckedContinuation<Void, Never>? = lock.withLock {
            guard let i = waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return waiters.remove(at: i).continuation
        }
        c?.resume()
    }

    private func received(_ data: Data, echo: (@Sendable (String) -> Void)?) {
        var fresh: [String] = []
        let woken: [CheckedContinuation<Void, Never>] = lock.withLock {
            // The stream ends once: by its reader at end of file or by `end()`, whichever comes first.
            if ended { return [] }
            partial.append(data)
            while let nl = partial.firstIndex(of: UInt8(ascii: "\n")) {
                fresh.append(String(decoding: partial[partial.startIndex..<nl], as: UTF8.self))
                partial = Data(partial[(nl + 1)...])
            }
            if data.isEmpty {
                ended = true
                if !partial.isEmpty { fresh.append(String(decoding: partial, as: UTF8.self)) }
            }
            lines += fresh
            let all = waiters.map(\.continuation)
            waiters = []
            return all
        }
        if let echo { fresh.forEach(echo) }
        woken.forEach { $0.resume() }
    }
}
