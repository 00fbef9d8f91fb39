import AvisoCore
import AvisoProtocol
import FoundationEssentials
import Glibc

/// Printing for avisoctl: tables for people, JSON for programs, and exits with the documented codes.
enum Output {
    /// Exit codes: 0 ok, 1 refused by the daemon, 2 usage error, 3 daemon not reachable.
    static func fail(_ code: Int32, _ message: String) -> Never {
        FileHandleOut.stderr("avisoctl: " + message + "\n")
        exit(code)
    }

    static func line(_ text: String = "") { FileHandleOut.stdout(text + "\n") }

    /// Pretty JSON with sorted keys, for `--json`.
    static func json(_ value: some Encodable) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { fail(1, "the daemon's reply cannot be written as JSON") }
        FileHandleOut.stdout(String(decoding: data, as: UTF8.self) + "\n")
    }

    /// One compact JSON object on one line, for streams (`events --json`).
    static func jsonLine(_ value: some Encodable) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { fail(1, "the daemon's reply cannot be written as JSON") }
        FileHandleOut.stdout(String(decoding: data, as: UTF8.self) + "\n")
    }

    /// Left-aligned columns separated by two spaces; the last column is not padded.
    static func table(_ header: [String], _ rows: [[String]]) {
        let all = [header] + rows
        var widths = [Int](repeating: 0, count: header.count)
        for row in all { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        for row in all {
            var text = ""
            for (i, cell) in row.enumerated() {
                text += i == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[i] - cell.count + 2)
            }
            line(text)
        }
    }

    /// Unwraps a reply: on refusal prints the daemon's message and exits 1.
    static func result(_ reply: Reply) -> ReplyResult {
        switch reply {
        case .ok(let r): return r
        case .error(let e): fail(1, e.message)
        }
    }
}

/// Unbuffered writes to the standard streams (so output interleaves correctly with exit).
enum FileHandleOut {
    static func stdout(_ s: String) { put(1, s) }
    static func stderr(_ s: String) { put(2, s) }

    private static func put(_ fd: Int32, _ s: String) {
        var bytes = Array(s.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; return }
            bytes = bytes.dropFirst(n)
        }
    }
}
