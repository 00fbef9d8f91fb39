import Foundation

/// A small tmpfs mounted over a directory, filled up on demand: a full disk as a person's would be, with no failure
/// injected into aviso. Mounting needs root (CI runs as root); `mount` returns nil where it is not permitted.
public final class SmallFilesystem: @unchecked Sendable {
    public let path: String
    private var mounted = true

    /// Mounts a tmpfs of `size` (as mount(8) takes it: "2m") and mode 0700 over the existing directory `path`.
    public static func mount(at path: String, size: String = "2m") -> SmallFilesystem? {
        guard getuid() == 0,
              let r = try? DaemonProcess.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size),mode=0700", "tmpfs", path]),
              r.status == 0 else { return nil }
        return SmallFilesystem(path: path)
    }

    private init(path: String) { self.path = path }

    deinit { unmount() }

    /// Fills the filesystem to the last byte with a file called `filler`.
    public func fill() {
        let fd = open(path + "/filler", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0, count: 4096)
        // Write until the kernel refuses (ENOSPC): then not one more page fits.
        while chunk.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// Removes the filler: the space is free again.
    public func free() { unlink(path + "/filler") }

    /// Unmounts (lazily, so that a daemon still holding files there cannot keep it busy); idempotent.
    public func unmount() {
        guard mounted else { return }
        mounted = false
        _ = try? DaemonProcess.run("/bin/umount", ["-l", path])
    }
}
