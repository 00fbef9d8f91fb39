/// Where groups and keys sit in a key file's text, for messages: GKeyFile parses but does not report line numbers.
///
/// The scan follows GKeyFile's line rules (blank and `#` lines ignored, `[Group]` headers, `key=value`), and also
/// finds the first line GKeyFile would reject, so a syntax error can name its line.
struct KeyFileLines {
    private var groups: [String: Int] = [:]
    private var keys: [String: [String: Int]] = [:]
    /// The first line that is not blank, a comment, a group header or a key=value pair inside a group.
    private(set) var firstBadLine: Int?
    /// The first line that is not valid UTF-8 or holds a NUL byte.
    private(set) var firstBinaryLine: Int?

    /// Scans bytes, not characters: only group names and keys become strings.
    init(_ bytes: [UInt8]) {
        // Most files are text throughout: then no line needs checking on its own.
        let allText = !bytes.contains(0) && String(validating: bytes, as: UTF8.self) != nil
        func isSpace(_ b: UInt8) -> Bool { b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") }
        func isTrailingSpace(_ b: UInt8) -> Bool { isSpace(b) || b == UInt8(ascii: "\r") }
        var group: String?
        var number = 0
        var lineStart = 0
        while lineStart <= bytes.count {
            var end = lineStart
            while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
            defer { lineStart = end + 1 }
            number += 1
            let raw = bytes[lineStart..<end]
            if !allText, raw.contains(0) || String(validating: raw, as: UTF8.self) == nil {
                if firstBinaryLine == nil { firstBinaryLine = number }
                continue
            }
            var first = lineStart
            while first < end, isSpace(bytes[first]) { first += 1 }
            var last = end
            while last > first, isTrailingSpace(bytes[last - 1]) { last -= 1 }
            if first == last || bytes[first] == UInt8(ascii: "#") { continue }
            if bytes[first] == UInt8(ascii: "[") {
                guard bytes[last - 1] == UInt8(ascii: "]"), last - first > 2 else {
                    if firstBadLine == nil { firstBadLine = number }
                    continue
                }
                let name = String(decoding: bytes[(first + 1)..<(last - 1)], as: UTF8.self)
                group = name
                if groups[name] == nil { groups[name] = number }
                continue
            }
            guard let equals = bytes[first..<end].firstIndex(of: UInt8(ascii: "=")), let group else {
                if firstBadLine == nil { firstBadLine = number }
                continue
            }
            var keyEnd = equals
            while keyEnd > first, isTrailingSpace(bytes[keyEnd - 1]) { keyEnd -= 1 }
            // A repeated key: GKeyFile keeps the last value, so point at the last line.
            keys[group, default: [:]][String(decoding: bytes[first..<keyEnd], as: UTF8.self)] = number
        }
    }

    /// The line of the `[group]` header (its first occurrence).
    func line(ofGroup group: String) -> Int? { groups[group] }

    /// The line of `key=` in `group` (its last occurrence, the one that counts).
    func line(ofKey key: String, in group: String) -> Int? { keys[group]?[key] ?? groups[group] }
}
