internal import CKernel
import Glibc

/// Reads a whole small regular file, refusing what is surely not a configuration file.
///
/// Opens with O_NONBLOCK so a FIFO cannot hang the daemon, follows symlinks (a loop is an error, not a hang), refuses
/// the kernel's files under /proc and /sys (made up as they are read, no text a person wrote; reading `/proc/self/mem`
/// fails with "Input/output error"), and stops reading past `limit` bytes.
enum FileBytes {
    enum Result {
        case missing
        case failed(String)
        case read([UInt8], FileIdentity)
    }

    /// What identifies one version of a file without reading it: a rewrite or a rename changes at least one field.
    struct FileIdentity: Hashable, Sendable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modifiedSeconds: Int64
        var modifiedNanoseconds: Int64
        var changedSeconds: Int64
        var changedNanoseconds: Int64
    }

    /// The identity of the file at `path` (symlinks followed), or nil when it cannot be stat'ed.
    static func identity(_ path: String) -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileIdentity(info)
    }

    /// procfs, sysfs, debugfs, tracefs, securityfs, cgroup2 (statfs(2)'s f_type).
    private static let kernelFilesystems: Set<Int64> = [0x9fa0, 0x6265_6572, 0x6462_6720, 0x7472_6163, 0x7363_6673,
                                                         0x6367_7270]

    /// Reads `path`; `what` names the file in messages ("the configuration file").
    static func read(_ path: String, limit: Int, what: String) -> Result {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 {
            let e = errno
            if e == ENOENT { return .missing }
            if e == ELOOP { return .failed("cannot read \(what): it is a symbolic link that loops") }
            return .failed("cannot read \(what): \(String(cString: strerror(e)))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            return .failed("cannot read \(what): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else { return .failed("cannot read \(what): it is not a regular file") }
        var filesystem = statfs()
        if fstatfs(fd, &filesystem) == 0, kernelFilesystems.contains(Int64(filesystem.f_type)) {
            return .failed("cannot read \(what): it is a file of the kernel (/proc or /sys), not one of text")
        }
        if Int(info.st_size) > limit {
            return .failed("\(what) is larger than \(limit) bytes; is it the right file?")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failed("cannot read \(what): \(String(cString: strerror(errno)))")
            }
            if n == 0 { return .read(bytes, FileIdentity(info)) }
            bytes.append(contentsOf: chunk[..<n])
            if bytes.count > limit {
                return .failed("\(what) is larger than \(limit) bytes; is it the right file?")
            }
        }
    }
}

extension FileBytes.FileIdentity {
    init(_ info: stat) {
        self.init(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                  modifiedSeconds: Int64(info.st_mtim.tv_sec), modifiedNanoseconds: Int64(info.st_mtim.tv_nsec),
                  changedSeconds: Int64(info.st_ctim.tv_sec), changedNanoseconds: Int64(info.st_ctim.tv_nsec))
    }
}
