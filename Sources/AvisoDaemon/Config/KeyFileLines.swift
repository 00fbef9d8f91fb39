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

    init(_ bytes: [UInt8]) {
        var group: String?
        for (index, raw) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            guard !raw.contains(0), let line = String(validating: raw, as: UTF8.self) else {
                if firstBinaryLine == nil { firstBinaryLine = number }
                continue
            }
            let text = line.drop { $0 == " " || $0 == "\t" }
            if text.isEmpty || text.first == "#" || text.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) { continue }
            if text.first == "[" {
                let trimmed = text.trimmingTrailingSpace
                guard trimmed.last == "]", trimmed.count > 2 else {
                    if firstBadLine == nil { firstBadLine = number }
                    continue
                }
                let name = String(trimmed.dropFirst().dropLast())
                group = name
                if groups[name] == nil { groups[name] = number }
                continue
            }
            guard let equals = text.firstIndex(of: "="), let group else {
                if firstBadLine == nil { firstBadLine = number }
                continue
            }
            let key = String(text[..<equals]).trimmingTrailingSpace
            // A repeated key: GKeyFile keeps the last value, so point at the last line.
            keys[group, default: [:]][key] = number
        }
    }

    /// The line of the `[group]` header (its first occurrence).
    func line(ofGroup group: String) -> Int? { groups[group] }

    /// The line of `key=` in `group` (its last occurrence, the one that counts).
    func line(ofKey key: String, in group: String) -> Int? { keys[group]?[key] ?? groups[group] }
}

private extension StringProtocol {
    var trimmingTrailingSpace: String {
        var s = Substring(self)
        while let last = s.last, last == " " || last == "\t" || last == "\r" { s = s.dropLast() }
        return String(s)
    }
}
