internal import CKernel
import Glibc

/// Wrappers for inotify: one non-blocking descriptor, watches added by path, events read in batches.
enum Inotify {
    struct Mask: OptionSet, Hashable, Sendable {
        let rawValue: UInt32
        static let modify = Mask(rawValue: UInt32(IN_MODIFY))
        static let attrib = Mask(rawValue: UInt32(IN_ATTRIB))
        static let closeWrite = Mask(rawValue: UInt32(IN_CLOSE_WRITE))
        static let movedFrom = Mask(rawValue: UInt32(IN_MOVED_FROM))
        static let movedTo = Mask(rawValue: UInt32(IN_MOVED_TO))
        static let create = Mask(rawValue: UInt32(IN_CREATE))
        static let delete = Mask(rawValue: UInt32(IN_DELETE))
        static let deleteSelf = Mask(rawValue: UInt32(IN_DELETE_SELF))
        static let moveSelf = Mask(rawValue: UInt32(IN_MOVE_SELF))
        static let unmount = Mask(rawValue: UInt32(IN_UNMOUNT))
        static let queueOverflow = Mask(rawValue: UInt32(IN_Q_OVERFLOW))
        /// The watch is gone (its inode was deleted, or it was removed).
        static let ignored = Mask(rawValue: UInt32(IN_IGNORED))
        static let onlyDirectory = Mask(rawValue: UInt32(IN_ONLYDIR))
        static let isDirectory = Mask(rawValue: UInt32(IN_ISDIR))
    }

    /// One event: which watch, what happened, and the name inside a watched directory ("" for the watch itself).
    struct Event: Hashable, Sendable {
        var watch: Int32
        var mask: Mask
        var cookie: UInt32
        var name: String
    }

    /// A close-on-exec, non-blocking inotify descriptor.
    static func create() throws(SystemError) -> Int32 {
        try syscall("inotify_init1") { inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK)) }
    }

    /// Watches `path` (symlinks followed) for `mask`; returns the watch descriptor, the same one for an inode
    /// already watched (its mask is then replaced). ENOSPC means the user's watch limit is reached.
    static func addWatch(_ fd: Int32, _ path: String, _ mask: Mask) throws(SystemError) -> Int32 {
        try syscall("inotify_add_watch") { inotify_add_watch(fd, path, mask.rawValue) }
    }

    /// Removes a watch; EINVAL (already gone with its inode) is not an error.
    static func removeWatch(_ fd: Int32, _ watch: Int32) {
        _ = try? syscall("inotify_rm_watch") { inotify_rm_watch(fd, watch) }
    }

    /// Reads every queued event; empty when none is queued.
    static func read(_ fd: Int32) -> [Event] {
        var events: [Event] = []
        // Room for many events: each is a struct inotify_event and a name of at most NAME_MAX + 1.
        let size = 64 * 1024
        let header = MemoryLayout<inotify_event>.size
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<inotify_event>.alignment)
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
            while offset + header <= n {
                // Records are whole and aligned for the struct: the kernel pads each name to keep them so.
                let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                let length = Int(event.len)
                var name = ""
                if length > 0 && offset + header + length <= n {
                    let bytes = UnsafeRawBufferPointer(start: buffer + offset + header, count: length)
                    let end = bytes.firstIndex(of: 0) ?? length
                    name = String(decoding: bytes[..<end], as: UTF8.self)
                }
                events.append(Event(watch: event.wd, mask: Mask(rawValue: event.mask), cookie: event.cookie, name: name))
                offset += header + length
            }
        }
    }
}
