/// A JSON value built by a test server for its event lines; hand-written so the servers link no Foundation.
public enum JSONText {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer, written exactly.
    case int(Int64)
    /// A number; infinities and NaN become `null`, which JSON cannot otherwise say.
    case double(Double)
    /// A string, escaped as JSON needs.
    case string(String)
    /// An array, items in order.
    case array([JSONText])
    /// Keys keep their order so event lines read the same way every time.
    case object([(String, JSONText)])

    /// The compact, one-line encoding: control characters are escaped, so it never contains a newline.
    public var encoded: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return d.isFinite ? String(d) : "null"
        case .string(let s): return JSONText.quote(s)
        case .array(let items): return "[" + items.map(\.encoded).joined(separator: ",") + "]"
        case .object(let pairs):
            return "{" + pairs.map { JSONText.quote($0.0) + ":" + $0.1.encoded }.joined(separator: ",") + "}"
        }
    }

    /// `s` as a JSON string literal, quotes included.
    public static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
