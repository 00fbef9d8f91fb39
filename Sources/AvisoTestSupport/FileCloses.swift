import Foundation
import Glibc

/// Files in a directory closed after being read (IN_CLOSE_NOWRITE), by name: when another thread or process has read
/// them, so that a test can change a file just after it was read.
public final class FileCloses {
    private let fd: Int32

    public init(in directory: String) throws {
        fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0, inotify_add_watch(fd, directory, UInt32(IN_CLOSE_NOWRITE)) >= 0 else {
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
    }
    deinit { close(fd) }

    /// Returns once each of `names` has been closed after a read; throws after `timeout` (a failure bound).
    public func wait(for names: Set<String>, timeout: Duration = .seconds(10)) throws {
        var left = names
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while !left.isEmpty {
            let (seconds, attoseconds) = (deadline - ContinuousClock.now).components
            let ms = seconds * 1000 + attoseconds / 1_000_000_000_000_000
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = ms > 0 ? poll(&p, 1, Int32(ms)) : 0
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { throw BusFixtureError("not read within \(timeout): \(left.sorted())") }
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= n {
                let length = buffer.withUnsafeBytes { Int($0.load(fromByteOffset: offset, as: inotify_event.self).len) }
                let nameStart = offset + MemoryLayout<inotify_event>.size
                let name = buffer[nameStart..<(nameStart + length)].prefix { $0 != 0 }
                left.remove(String(decoding: name, as: UTF8.self))
                offset = nameStart + length
            }
        }
    }
}
