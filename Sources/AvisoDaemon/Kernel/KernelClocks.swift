import AvisoCore
import Glibc

/// Reads the kernel clocks for the pure core, which never reads them itself.
public enum KernelClocks {
    /// One reading of CLOCK_REALTIME and CLOCK_BOOTTIME, with this boot's id.
    ///
    /// The two clocks are read back to back, not atomically: they can disagree by the microseconds in between.
    public static func now() -> Now {
        Now(wall: WallTime(nanoseconds: read(CLOCK_REALTIME)),
            boot: BootTime(nanoseconds: read(CLOCK_BOOTTIME)),
            bootID: bootID)
    }

    /// `/proc/sys/kernel/random/boot_id`, read once: it cannot change while this process lives.
    ///
    /// Empty when /proc is not mounted, which makes every boot deadline fall back to its wall estimate.
    public static let bootID: String = readBootID()

    static func read(_ clock: clockid_t) -> Int64 {
        var ts = timespec()
        // clock_gettime cannot fail for these clocks on any kernel aviso supports (BOOTTIME is Linux 2.6.39).
        _ = try? syscall("clock_gettime") { clock_gettime(clock, &ts) }
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    private static func readBootID() -> String {
        guard let fd = try? syscall("open", { open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC) }) else {
            return ""
        }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 64)
        let n = (try? syscall("read") { bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) } }) ?? 0
        let text = String(decoding: bytes[0..<max(n, 0)], as: UTF8.self)
        return text.filter { !$0.isWhitespace }
    }
}
