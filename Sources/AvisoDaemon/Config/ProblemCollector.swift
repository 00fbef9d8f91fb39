import Glibc
import AvisoProtocol

/// Collects errors and warnings for one file, each with its line.
struct ProblemCollector {
    let file: String
    var errors: [ConfigProblem] = []
    var warnings: [ConfigProblem] = []

    init(file: String) { self.file = file }

    mutating func error(_ line: Int?, _ message: String) {
        errors.append(ConfigProblem(file: file, line: line, message: message))
    }

    mutating func warning(_ line: Int?, _ message: String) {
        warnings.append(ConfigProblem(file: file, line: line, message: message))
    }
}

extension String {
    /// The string without leading and trailing characters from `set`.
    func trimmed(_ set: String = " \t\r") -> String {
        // Nearly every string read has nothing to trim: its first and last bytes are not in the set (which is ASCII
        // for every caller), and it is returned as it is, without looking at its characters.
        guard let first = utf8.first, let last = utf8.last else { return self }
        if !set.utf8.contains(first) && !set.utf8.contains(last) && first < 0x80 && last < 0x80 { return self }
        var s = Substring(self)
        while let c = s.first, set.contains(c) { s = s.dropFirst() }
        while let c = s.last, set.contains(c) { s = s.dropLast() }
        return String(s)
    }
}

extension String {
    /// What follows `prefix`, which is ASCII, when the string starts with it: `dropFirst(prefix.count)` when
    /// `hasPrefix(prefix)`, else nil. Told by the bytes when the character after the prefix starts with an ASCII byte
    /// (or there is none), as for every group name of a reminder file; by characters otherwise, where an accent may join
    /// the prefix's last character.
    func after(asciiPrefix prefix: String) -> Substring? {
        var (me, p) = (self, prefix)
        // nil: a prefix of the bytes, followed by a byte that is not ASCII.
        let bytes: Bool? = me.withUTF8 { s in
            p.withUTF8 { p in
                guard s.count >= p.count, p.isEmpty || memcmp(s.baseAddress!, p.baseAddress!, p.count) == 0 else {
                    return false
                }
                return s.count == p.count || s[p.count] < 0x80 ? true : nil
            }
        }
        switch bytes {
        case true?: return self[utf8.index(startIndex, offsetBy: prefix.utf8.count)...]
        case false?: return nil
        case nil: return hasPrefix(prefix) ? dropFirst(prefix.count) : nil
        }
    }
}
