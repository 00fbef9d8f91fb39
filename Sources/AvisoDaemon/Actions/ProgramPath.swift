import Glibc

/// Finding programs the way a shell would, for `exec` actions and prompt programs: a name with a '/' is a path,
/// anything else is looked up in `PATH`.
enum ProgramPath {
    /// The executable for `name`, or nil when there is none.
    static func locate(_ name: String, path: String?) -> String? {
        if name.contains("/") { return isExecutable(name) ? name : nil }
        let directories = (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init)
        return directories.lazy.map { ($0.isEmpty ? "." : $0) + "/" + name }.first(where: isExecutable)
    }

    /// Why `name` cannot be run, or nil when it can.
    static func problem(_ name: String, path: String?) -> String? {
        if locate(name, path: path) != nil { return nil }
        return name.contains("/") ? "the program \(name) does not exist or is not executable"
            : "the program '\(name)' is not found in PATH (\(path ?? "unset"))"
    }

    private static func isExecutable(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && access(path, X_OK) == 0
    }
}
