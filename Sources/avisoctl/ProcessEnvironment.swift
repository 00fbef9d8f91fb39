import Glibc

/// The process environment as key/value pairs, read from `environ`.
enum ProcessEnvironment {
    static func all() -> [(String, String)] {
        var result: [(String, String)] = []
        var p = environ
        while let entry = p.pointee {
            let s = String(cString: entry)
            if let eq = s.firstIndex(of: "=") {
                result.append((String(s[..<eq]), String(s[s.index(after: eq)...])))
            }
            p += 1
        }
        return result
    }

    static func get(_ name: String) -> String? {
        guard let v = getenv(name) else { return nil }
        return String(cString: v)
    }
}
