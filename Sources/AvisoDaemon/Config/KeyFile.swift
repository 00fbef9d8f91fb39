import AvisoCore
import Glibc

/// A key file (the format of aviso.conf and of reminder files, GLib's `GKeyFile` format), read in one pass over its
/// bytes: groups, keys, raw values, and the line each comes from.
///
/// The rules are GKeyFile's, checked against it by `KeyFileTests` on generated text: lines end at `\n` (one `\r`
/// before it is dropped); leading ASCII white space is skipped; blank lines and `#` lines are comments; `[NAME]` (white
/// space after the `]` allowed) starts or re-opens a group, NAME without `[`, `]` or control characters; `KEY=VALUE`
/// belongs to the group above it, KEY without `[` or `]` except a `[locale]` suffix, not starting or ending with a
/// space, VALUE with its leading white space skipped. A key given twice keeps its last value. `Encoding=` in the first
/// group must say UTF-8. Every translation (`Key[de]=`) is kept, whatever the locale, so that it is warned about
/// the same way for everybody; GKeyFile drops those of languages other than the user's.
///
/// The first line that breaks a rule makes the whole text unreadable (`error`), as it does for GKeyFile; unlike
/// GKeyFile, the error names its line.
struct KeyFile {
    /// Why the text is not a key file: the first line that breaks a rule, and which rule.
    struct SyntaxError {
        var line: Int
        var message: String
    }

    /// One key of a group: its value is read with `value(of:)`, `trimmedValue(of:)` or `string(of:)`.
    struct Entry {
        var key: String
        fileprivate var value: Range<Int>
        var line: Int
    }

    /// A group, with its keys in the order they first appear (a key given twice has its last value and line).
    struct Group {
        var name: String
        /// The line of its first header.
        var line: Int
        private(set) var entries: [Entry] = []
        /// Key → entry, once the group has more keys than a linear search should look through.
        private var index: [String: Int]?

        fileprivate init(name: String, line: Int) {
            self.name = name
            self.line = line
        }

        func find(_ key: String) -> Int? {
            if let index { return index[key] }
            return entries.firstIndex { $0.key.isSame(as: key) }
        }

        mutating func set(_ key: String, _ value: Range<Int>, line: Int) {
            if let i = find(key) {
                entries[i].value = value
                entries[i].line = line
                return
            }
            // A group holds a handful of keys: room for them at once, not three growths.
            if entries.isEmpty { entries.reserveCapacity(6) }
            entries.append(Entry(key: key, value: value, line: line))
            if index != nil {
                index![key] = entries.count - 1
            } else if entries.count > 16 {
                index = Dictionary(uniqueKeysWithValues: entries.enumerated().map { ($1.key, $0) })
            }
        }
    }

    private let bytes: [UInt8]
    /// Every group, in the order they first appear.
    private(set) var groupList: [Group] = []
    /// Each group by the FNV-1a hash of its name's bytes (a file of 1,000 reminders has 1,000 groups: a hash of 8
    /// bytes per lookup, not of each name as a string); names that share a hash are told apart by `group(named:)`.
    private var groupIndex: [UInt64: Int] = [:]
    /// The first line that breaks a rule; the accessors then see what came before it.
    private(set) var error: SyntaxError?
    /// The first line that is not valid UTF-8 or holds a NUL byte; nothing is read when there is one.
    private(set) var binaryLine: Int?

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        // Most files are text throughout: then no line needs checking on its own.
        if bytes.contains(0) || String(validating: bytes, as: UTF8.self) == nil {
            binaryLine = Self.firstBinaryLine(bytes)
            return
        }
        read()
    }

    /// Reads the lines into groups, up to the first that breaks a rule.
    private mutating func read() {
        var number = 0
        var lineStart = 0
        var current: Int?
        while lineStart < bytes.count {
            let end = Self.lineEnd(bytes, from: lineStart)
            defer { lineStart = end + 1 }
            number += 1
            var last = end
            // Only a line that a newline ends loses its \r (the last line keeps it, as in GKeyFile).
            if end < bytes.count, last > lineStart, bytes[last - 1] == UInt8(ascii: "\r") { last -= 1 }
            var first = lineStart
            while first < last, Self.isSpace(bytes[first]) { first += 1 }
            if first == last || bytes[first] == UInt8(ascii: "#") { continue }
            if bytes[first] == UInt8(ascii: "["), let close = groupHeaderEnd(first, last) {
                let name = bytes[(first + 1)..<close]
                guard !name.isEmpty, !name.contains(where: { $0 == UInt8(ascii: "[") || Self.isControl($0) }) else {
                    return fail(number, "[\(Self.text(name))] is not a group name: it may not be empty or hold '[', ']' or control characters")
                }
                let text = Self.text(name)
                let hash = Self.fnv1a(name)
                // One lookup of the hash for a new group, and one insert: a file of 1,000 reminders has 1,000.
                if let first = groupIndex[hash] {
                    if let existing = groupList[first].name == text ? first : groupList.firstIndex(where: { $0.name == text }) {
                        current = existing
                        continue
                    }
                } else {
                    groupIndex[hash] = groupList.count
                }
                current = groupList.count
                groupList.append(Group(name: text, line: number))
                continue
            }
            guard bytes[first] != UInt8(ascii: "="), let equals = bytes[first..<last].firstIndex(of: UInt8(ascii: "=")) else {
                return fail(number, "'\(Self.text(bytes[first..<last], limit: 60))' is not a [group] header, a Key=Value pair or a # comment")
            }
            guard let group = current else {
                return fail(number, "'\(Self.text(bytes[first..<last], limit: 60))' comes before the first [group] header")
            }
            var keyEnd = equals
            while keyEnd > first, Self.isSpace(bytes[keyEnd - 1]) { keyEnd -= 1 }
            let key = bytes[first..<keyEnd]
            guard Self.isKeyName(key) else {
                return fail(number, "'\(Self.text(key))' is not a key name: it may not begin or end with a space, or hold '[' or ']' "
                    + "other than in a [locale] suffix")
            }
            var valueStart = equals + 1
            while valueStart < last, Self.isSpace(bytes[valueStart]) { valueStart += 1 }
            let keyText = Self.text(key)
            if group == 0, keyText == "Encoding", !Self.isUTF8Name(bytes[valueStart..<last]) {
                return fail(number, "Encoding=\(Self.text(bytes[valueStart..<last])) is not supported: the file must be UTF-8")
            }
            groupList[group].set(keyText, valueStart..<last, line: number)
        }
    }

    /// Where the line from `start` ends: its newline, or the end of the text. By memchr, which looks at many bytes at
    /// a time: a loop over each byte was a third of reading a file of reminders.
    private static func lineEnd(_ bytes: [UInt8], from start: Int) -> Int {
        bytes.withUnsafeBufferPointer { b in
            guard let base = b.baseAddress, start < b.count,
                  let newline = memchr(base + start, Int32(UInt8(ascii: "\n")), b.count - start) else { return b.count }
            return UnsafePointer(newline.assumingMemoryBound(to: UInt8.self)) - base
        }
    }

    private mutating func fail(_ line: Int, _ message: String) {
        error = SyntaxError(line: line, message: message)
    }

    // MARK: Reading

    /// The groups, in the order they first appear.
    func groups() -> [String] { groupList.map(\.name) }

    /// The keys of `group`, in the order they first appear (translations such as `Key[de]` included).
    func keys(in group: String) -> [String] {
        self.group(named: group).map { groupList[$0].entries.map(\.key) } ?? []
    }

    /// The raw value of `key` in `group` (its last), escapes not interpreted.
    func value(_ group: String, _ key: String) -> String? {
        entry(group, key).map(value(of:))
    }

    /// The value as written.
    func value(of entry: Entry) -> String { Self.text(bytes[entry.value]) }

    /// The value as written, without the spaces, tabs and carriage returns at its end.
    func trimmedValue(of entry: Entry) -> String {
        var end = entry.value.upperBound
        while end > entry.value.lowerBound, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 || bytes[end - 1] == 0x0D {
            end -= 1
        }
        return Self.text(bytes[entry.value.lowerBound..<end])
    }

    /// The value of `key` in `group` with escapes (`\n`, `\t`, `\r`, `\s`, `\\`) interpreted; nil if absent. Any
    /// other backslash stays as written (`C:\dir`), as GKeyFile 2.74 keeps it, and so does one that ends the value,
    /// which GKeyFile drops.
    func string(_ group: String, _ key: String) -> String? {
        entry(group, key).map(string(of:))
    }

    /// `string(_:_:)` of one entry.
    func string(of entry: Entry) -> String {
        let raw = bytes[entry.value]
        guard raw.contains(UInt8(ascii: "\\")) else { return Self.text(raw) }
        return String(decoding: Self.unescaped(raw), as: UTF8.self)
    }

    /// `string(of:)`, appended to `arena` instead of made a string of its own.
    func text(of entry: Entry, in arena: TextArena) -> TextArena.Run {
        let raw = bytes[entry.value]
        guard raw.contains(UInt8(ascii: "\\")) else { return raw.withUnsafeBufferPointer { arena.append($0) } }
        return Self.unescaped(raw).withUnsafeBufferPointer { arena.append($0) }
    }

    /// `raw` with its escapes interpreted.
    private static func unescaped(_ raw: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = raw.startIndex
        while i < raw.endIndex {
            let b = raw[i]
            i += 1
            guard b == UInt8(ascii: "\\") else {
                out.append(b)
                continue
            }
            guard i < raw.endIndex else {
                out.append(b)
                break
            }
            switch raw[i] {
            case UInt8(ascii: "s"): out.append(UInt8(ascii: " "))
            case UInt8(ascii: "n"): out.append(UInt8(ascii: "\n"))
            case UInt8(ascii: "t"): out.append(UInt8(ascii: "\t"))
            case UInt8(ascii: "r"): out.append(UInt8(ascii: "\r"))
            case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
            default: out += [b, raw[i]]
            }
            i += 1
        }
        return out
    }

    /// The line of the `[group]` header (its first).
    func line(ofGroup group: String) -> Int? { self.group(named: group).map { groupList[$0].line } }

    /// The line of `key=` in `group` (its last, the one that counts); the group's line when the key is absent.
    func line(ofKey key: String, in group: String) -> Int? {
        entry(group, key)?.line ?? line(ofGroup: group)
    }

    private func entry(_ group: String, _ key: String) -> Entry? {
        guard let g = self.group(named: group), let e = groupList[g].find(key) else { return nil }
        return groupList[g].entries[e]
    }

    /// The position of the group called `name` in `groupList`.
    private func group(named name: String) -> Int? {
        guard let first = groupIndex[Self.fnv1a(name.utf8)] else { return nil }
        if groupList[first].name == name { return first }
        // Another name with the same hash (which a file would have to be made for): looked for in order.
        return groupList.firstIndex { $0.name == name }
    }

    private static func fnv1a(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return h
    }

    // MARK: Rules

    /// GKeyFile's white space (`g_ascii_isspace`): space, \t, \n, \f, \r; not \v.
    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0C || b == 0x0D }

    private static func isControl(_ b: UInt8) -> Bool { b < 0x20 || b == 0x7F }

    /// Where a `[NAME]` header's `]` is, when the line from `first` to `last` is one: the first `]` followed by nothing
    /// but spaces and tabs.
    private func groupHeaderEnd(_ first: Int, _ last: Int) -> Int? {
        guard let close = bytes[(first + 1)..<last].firstIndex(of: UInt8(ascii: "]")) else { return nil }
        let rest = bytes[(close + 1)..<last]
        return rest.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") } ? close : nil
    }

    /// A key: not empty, no `[` or `]` (and no leading or trailing space) in its name, then optionally `[locale]` of
    /// letters, digits, `-`, `_`, `.` and `@`, at the very end.
    private static func isKeyName(_ key: ArraySlice<UInt8>) -> Bool {
        let nameEnd = key.firstIndex { $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "]") } ?? key.endIndex
        guard nameEnd > key.startIndex, key[key.startIndex] != UInt8(ascii: " "), key[nameEnd - 1] != UInt8(ascii: " ")
        else { return false }
        if nameEnd == key.endIndex { return true }
        guard key[nameEnd] == UInt8(ascii: "["), key.last == UInt8(ascii: "]") else { return false }
        let locale = String(decoding: key[(nameEnd + 1)..<(key.endIndex - 1)], as: UTF8.self)
        return locale.unicodeScalars.allSatisfy { s in
            switch s.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                 .decimalNumber, .letterNumber, .otherNumber:
                true
            default:
                s == "-" || s == "_" || s == "." || s == "@"
            }
        }
    }

    /// "UTF-8" in any case of ASCII letters.
    private static func isUTF8Name(_ value: ArraySlice<UInt8>) -> Bool {
        value.count == 5 && zip(value, "utf-8".utf8).allSatisfy { a, b in (a >= 0x41 && a <= 0x5A ? a + 0x20 : a) == b }
    }

    private static func text(_ bytes: ArraySlice<UInt8>, limit: Int = .max) -> String {
        guard bytes.count > limit else { return String(decoding: bytes, as: UTF8.self) }
        // Cut at a character boundary, not inside one.
        let cut = String(decoding: bytes, as: UTF8.self).prefix(limit)
        return cut + "…"
    }

    private static func firstBinaryLine(_ bytes: [UInt8]) -> Int {
        var number = 0
        var lineStart = 0
        while lineStart <= bytes.count {
            let end = bytes[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            number += 1
            let raw = bytes[lineStart..<end]
            if raw.contains(0) || String(validating: raw, as: UTF8.self) == nil { return number }
            lineStart = end + 1
        }
        return number
    }
}

extension String {
    /// `self == other`, told apart by length first: the keys of a group nearly all differ in length, and comparing
    /// two unequal strings costs far more than comparing their counts.
    @inline(__always)
    func isSame(as other: String) -> Bool { utf8.count == other.utf8.count && self == other }
}
