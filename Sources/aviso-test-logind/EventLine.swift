import Glibc

/// One JSON event line with string, integer and boolean fields, in the order given; hand-written so the server links
/// no Foundation.
enum EventLine {
    /// A field value.
    enum Value {
        case string(String)
        case int(Int)
        case bool(Bool)
    }

    /// Writes `{"event":event, ...fields}` and a newline to stdout at once.
    static func emit(_ event: String, _ fields: [(String, Value)] = []) {
        let all = [("event", Value.string(event))] + fields
        let body = all.map { key, value in
            let text: String
            switch value {
            case .string(let s): text = quote(s)
            case .int(let i): text = String(i)
            case .bool(let b): text = b ? "true" : "false"
            }
            return quote(key) + ":" + text
        }
        writeLine("{" + body.joined(separator: ",") + "}", to: 1)
    }

    static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// Writes one line straight to a file descriptor: unbuffered, so a test reading the pipe sees it at once.
func writeLine(_ text: String, to fd: Int32) {
    var bytes = Array((text + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return }
        offset += n
    }
}
