import Glibc

/// The test servers' output: one JSON object per line on stdout, which the test-support wrappers decode as events.
public enum EventLine {
    /// Writes `{"event":event, ...fields}` to stdout as one line, fields in the order given.
    public static func emit(_ event: String, _ fields: [(String, JSONText)] = []) {
        write(JSONText.object([("event", .string(event))] + fields).encoded, to: 1)
    }

    /// Writes `text` and a newline straight to `fd`: unbuffered, so a test reading the pipe sees it at once.
    ///
    /// Gives up quietly when the reader is gone (the test that started the server has ended).
    public static func write(_ text: String, to fd: Int32) {
        var bytes = Array((text + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            offset += n
        }
    }
}
