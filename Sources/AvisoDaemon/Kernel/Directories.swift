import Glibc

/// The directories the daemon keeps its socket and its database in.
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

    /// Opens the directory that holds `path` (the socket's `aviso/`, the database's), creating it and its parents
    /// (0700) when missing, and returns its descriptor once it is known to be private: a real directory, not a
    /// symbolic link, owned by this user, with no access for group or others.
    ///
    /// In a shared runtime directory another user could otherwise prepare `aviso/` (world-writable, or a link to
    /// their own) and receive what clients send. The checks are made on the opened descriptor, so the directory cannot
    /// be swapped between check and use; callers work relative to it (`PrivateDirectory.path(of:)`).
    static func openPrivate(containing path: String) throws(SystemError) -> PrivateDirectory {
        try createParents(of: path)
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        let name = directory.isEmpty ? (path.hasPrefix("/") ? "/" : ".") : directory
        let fd = open(name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if fd < 0 {
            let e = errno
            if e == ELOOP || e == ENOTDIR {
                var info = stat()
                let isLink = lstat(name, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
                throw SystemError(refusing: isLink ? "\(name) is a symbolic link; aviso does not follow links to its own "
                    + "directories: remove it, or point aviso elsewhere" : "\(name) is not a directory")
            }
            throw SystemError("open \(name)", Errno(rawValue: e))
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let e = errno
            close(fd)
            throw SystemError("fstat \(name)", Errno(rawValue: e))
        }
        if info.st_uid != getuid() {
            close(fd)
            throw SystemError(refusing: "\(name) belongs to uid \(info.st_uid), not to you (uid \(getuid())); aviso only "
                + "uses a directory of its own: remove it, or point aviso elsewhere")
        }
        if info.st_mode & 0o077 != 0 {
            close(fd)
            let mode = String(info.st_mode & 0o777, radix: 8)
            throw SystemError(refusing: "\(name) is open to other users (mode 0\(mode)); make it private with "
                + "'chmod 700 \(name)' or remove it")
        }
        return PrivateDirectory(fd: fd, path: name)
    }
}

/// An open directory that `Directories.openPrivate` checked; names inside it are reached through its descriptor.
struct PrivateDirectory: Sendable {
    let fd: Int32
    /// The path it was opened by, for messages.
    let path: String

    /// A path to `name` inside this directory that resolves through the open descriptor (`/proc/self/fd/N/name`), so
    /// it reaches this directory even if its path has been replaced since; the plain path when /proc is not there.
    func path(of name: String) -> String {
        var info = stat()
        let viaFD = "/proc/self/fd/\(fd)"
        return stat(viaFD, &info) == 0 ? "\(viaFD)/\(name)" : "\(path)/\(name)"
    }

    func close() { _ = Glibc.close(fd) }
}
