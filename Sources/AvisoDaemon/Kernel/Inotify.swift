import Glibc

/// Wrappers for inotify: one non-blocking descriptor, watches added by path, events read in batches.
///
/// Glibc's module map leaves out `<sys/inotify.h>`, so the three calls are resolved from libc with `dlsym`, as
/// `LinuxAPI` does for timerfd and epoll. The mask bits are the kernel ABI values.
enum Inotify {
    struct Mask: OptionSet, Hashable, Sendable {
        let rawValue: UInt32
        static let modify = Mask(rawValue: 0x0000_0002)
        static let attrib = Mask(rawValue: 0x0000_0004)
        static let closeWrite = Mask(rawValue: 0x0000_0008)
        static let movedFrom = Mask(rawValue: 0x0000_0040)
        static let movedTo = Mask(rawValue: 0x0000_0080)
        static let create = Mask(rawValue: 0x0000_0100)
        static let delete = Mask(rawValue: 0x0000_0200)
        static let deleteSelf = Mask(rawValue: 0x0000_0400)
        static let moveSelf = Mask(rawValue: 0x0000_0800)
        static let unmount = Mask(rawValue: 0x0000_2000)
        static let queueOverflow = Mask(rawValue: 0x0000_4000)
        /// The watch is gone (its inode was deleted, or it was removed).
        static let ignored = Mask(rawValue: 0x0000_8000)
        static let onlyDirectory = Mask(rawValue: 0x0100_0000)
        static let isDirectory = Mask(rawValue: 0x4000_0000)
    }

    /// One event: which watch, what happened, and the name inside a watched directory ("" for the watch itself).
    struct Event: Hashable, Sendable {
        var watch: Int32
        var mask: Mask
        var cookie: UInt32
        var name: String
    }

    private static let initFunction = resolve("inotify_init1", as: (@convention(c) (Int32) -> Int32).self)
    private static let addWatchFunction = resolve(
        "inotify_add_watch", as: (@convention(c) (Int32, UnsafePointer<CChar>, UInt32) -> Int32).self)
    private static let removeWatchFunction = resolve("inotify_rm_watch", as: (@convention(c) (Int32, Int32) -> Int32).self)

    /// A close-on-exec, non-blocking inotify descriptor.
    static func create() throws(SystemError) -> Int32 {
        try syscall("inotify_init1") { initFunction(LinuxAPI.cloexec | LinuxAPI.nonblock) }
    }

    /// Watches `path` (symlinks followed) for `mask`; returns the watch descriptor, the same one for an inode
    /// already watched (its mask is then replaced). ENOSPC means the user's watch limit is reached.
    static func addWatch(_ fd: Int32, _ path: String, _ mask: Mask) throws(SystemError) -> Int32 {
        try syscall("inotify_add_watch") { addWatchFunction(fd, path, mask.rawValue) }
    }

    /// Removes a watch; EINVAL (already gone with its inode) is not an error.
    static func removeWatch(_ fd: Int32, _ watch: Int32) {
        _ = try? syscall("inotify_rm_watch") { removeWatchFunction(fd, watch) }
    }

    /// Reads every queued event; empty when none is queued.
    static func read(_ fd: Int32) -> [Event] {
        var events: [Event] = []
        // Room for many events: each is 16 bytes plus a name of at most NAME_MAX + 1.
        let size = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            let n: Int
            do {
                n = try syscall("read") { Glibc.read(fd, buffer, size) }
            } catch {
                return events  // EAGAIN: drained.
            }
            if n <= 0 { return events }
            var offset = 0
            while offset + 16 <= n {
                let watch = buffer.load(fromByteOffset: offset, as: Int32.self)
                let mask = buffer.load(fromByteOffset: offset + 4, as: UInt32.self)
                let cookie = buffer.load(fromByteOffset: offset + 8, as: UInt32.self)
                let length = Int(buffer.load(fromByteOffset: offset + 12, as: UInt32.self))
                var name = ""
                if length > 0 && offset + 16 + length <= n {
                    let bytes = UnsafeRawBufferPointer(start: buffer + offset + 16, count: length)
                    let end = bytes.firstIndex(of: 0) ?? length
                    name = String(decoding: bytes[..<end], as: UTF8.self)
                }
                events.append(Event(watch: watch, mask: Mask(rawValue: mask), cookie: cookie, name: name))
                offset += 16 + length
            }
        }
    }

    private static func resolve<F>(_ name: String, as type: F.Type) -> F {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else {
            fatalError("libc has no \(name): aviso needs Linux with glibc")
        }
        return unsafeBitCast(symbol, to: type)
    }
}
