@testable import AvisoDaemon
import AvisoTestSupport
import Glibc

/// Files in a directory closed after being read (IN_CLOSE_NOWRITE), by name: when another thread or process has read
/// them, so that a test can change a file just after it was read.
final class FileCloses {
    private let fd: Int32

    init(in directory: String) throws {
        fd = try Inotify.create()
        do {
            _ = try Inotify.addWatch(fd, directory, Inotify.Mask(rawValue: UInt32(IN_CLOSE_NOWRITE)))
        } catch {
            close(fd)
            throw error
        }
    }
    deinit { close(fd) }

    /// Returns once each of `names` has been closed after a read; throws after `timeout` (a failure bound).
    func wait(for names: Set<String>, timeout: Duration = .seconds(10)) throws {
        var left = names
        let deadline = ContinuousClock.now + timeout
        while !left.isEmpty {
            let (seconds, attoseconds) = (deadline - ContinuousClock.now).components
            let ms = seconds * 1000 + attoseconds / 1_000_000_000_000_000
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = ms > 0 ? poll(&p, 1, Int32(ms)) : 0
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { throw BusFixtureError("not read within \(timeout): \(left.sorted())") }
            for event in Inotify.read(fd) { left.remove(event.name) }
        }
    }
}
