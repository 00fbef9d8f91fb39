import Glibc

/// Directories the daemon creates for its files.
enum Directories {
    /// Creates the missing parent directories of `path` with `mode` (0700: they hold the user's private state and
    /// socket); existing ones are left as they are.
    static func createParents(of path: String, mode: mode_t = 0o700) throws(SystemError) {
        var components = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        components.removeLast()
        var current = ""
        for (index, component) in components.enumerated() {
            current += index == 0 ? component : "/" + component
            if current.isEmpty || component.isEmpty || component == "." { continue }
            if mkdir(current, mode) != 0 && errno != EEXIST { throw SystemError("mkdir \(current)", Errno(rawValue: errno)) }
        }
    }
}
