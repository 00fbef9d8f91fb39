import Glibc

/// Whether a path can be handed to the notification server as a popup's image (`image-path`).
///
/// The server opens the file itself and reads it whole, so only a regular, non-empty file is accepted: a FIFO would
/// hang its reader, /dev/zero never ends, /proc/self/mem reads as empty. The file is inspected with `stat`, which
/// opens nothing (opening some devices has side effects), then opened to tell "missing" from "not readable".
enum ImageFile {
    /// Why `path` cannot be used, as the end of a sentence that starts with the path ("does not exist"); nil when
    /// it can.
    static func problem(_ path: String) -> String? {
        var info = stat()
        if stat(path, &info) != 0 { return reason(errno) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: return "is a directory, not an image file"
        case S_IFIFO: return "is a FIFO, not a regular file"
        case S_IFCHR, S_IFBLK: return "is a device, not a regular file"
        case S_IFSOCK: return "is a socket, not a regular file"
        default: return "is not a regular file"
        }
        if info.st_size == 0 { return "is empty" }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        if fd < 0 { return reason(errno) }
        close(fd)
        return nil
    }

    private static func reason(_ e: Int32) -> String {
        switch e {
        case ENOENT: "does not exist"
        case ENOTDIR: "does not exist (a part of its path is not a directory)"
        case EACCES: "cannot be read by the user running avisod (permission denied)"
        case ELOOP: "is a symbolic link that loops"
        case ENAMETOOLONG: "is too long a path"
        default: "cannot be read: \(String(cString: strerror(e)))"
        }
    }
}
