/// Splits a byte stream into newline-terminated lines, refusing lines longer than a limit.
///
/// Pure: the connection feeds it what `read` returned and takes lines out, so the framing rules are testable without
/// a socket.
struct LineFramer {
    /// One thing the stream produced.
    enum Event: Equatable {
        /// A complete line, newline excluded.
        case line([UInt8])
        /// A line grew past the limit; the stream cannot be resynchronised and should be closed.
        case tooLarge
    }

    let limit: Int
    private var buffer: [UInt8] = []
    /// Bytes before this offset are known to contain no newline.
    private var scanned = 0
    private var failed = false

    init(limit: Int) { self.limit = limit }

    /// Adds bytes read from the stream.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        buffer.append(contentsOf: bytes)
    }

    /// The next complete line or failure, or nil when more bytes are needed.
    mutating func next() -> Event? {
        if failed { return nil }
        if let newline = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
            let line = Array(buffer[..<newline])
            buffer.removeSubrange(...newline)
            scanned = 0
            if line.count > limit {
                failed = true
                return .tooLarge
            }
            return .line(line)
        }
        scanned = buffer.count
        if buffer.count > limit {
            failed = true
            return .tooLarge
        }
        return nil
    }

    /// At end of stream: the unterminated last line, if any.
    mutating func finish() -> [UInt8]? {
        defer { buffer = []; scanned = 0 }
        return failed || buffer.isEmpty ? nil : buffer
    }
}
