internal import CNotify
import Glibc

/// The image files of notifications, copied into aviso's state directory (`attachments/`) when they are given: the
/// server is handed the copy, so the original may change or vanish before the popup.
///
/// A copy is named after its content (a 64-bit FNV-1a hash and the size), so a reminder file read again, or two
/// requests with one picture, share one copy. Copies that nothing refers to any more (no request, nothing waiting to
/// be shown, nothing on screen) are deleted by `collect(keeping:)`.
struct Attachments: Sendable {
    /// Where the copies live; empty: nothing is copied (the original path is used).
    let directory: String

    /// The largest image accepted.
    static let sizeLimit = 16 << 20

    /// Why `path` cannot be an image, or nil: a regular, non-empty file of at most 16 MiB, readable, in a format
    /// gdk-pixbuf recognises.
    static func problem(_ path: String) -> String? {
        if let why = ImageFile.problem(path) { return why }
        var info = stat()
        guard stat(path, &info) == 0 else { return "cannot be read" }
        if info.st_size > sizeLimit { return "is \(info.st_size >> 20) MiB, more than the \(sizeLimit >> 20) MiB an image may have" }
        if gdk_pixbuf_get_file_info(path, nil, nil) == nil {
            return "is not an image in a format gdk-pixbuf recognises (PNG, JPEG, GIF, SVG, ...)"
        }
        return nil
    }

    /// Whether `path` is one of the copies.
    func isCopy(_ path: String) -> Bool { !directory.isEmpty && path.hasPrefix(directory + "/") }

    /// Checks `path` and copies it; returns the copy's path, or why it cannot be used. A path that is already a copy
    /// is returned as it is.
    func attach(_ path: String) -> Result<String, AttachmentError> {
        if isCopy(path), ImageFile.problem(path) == nil { return .success(path) }
        if let why = Self.problem(path) { return .failure(AttachmentError(message: "image '\(path)' \(why)")) }
        guard !directory.isEmpty else { return .success(path) }
        guard let bytes = Self.read(path) else {
            return .failure(AttachmentError(message: "image '\(path)' cannot be read: \(String(cString: strerror(errno)))"))
        }
        mkdir(directory, 0o700)
        let ext = path.split(separator: "/").last.flatMap { name in name.lastIndex(of: ".").map { String(name[$0...]).lowercased() } }
        let suffix = ext.map { $0.count <= 6 && $0.dropFirst().allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } ? $0 : "" } ?? ""
        var name = Self.hash(bytes) + "-\(bytes.count)"
        // The same name with other bytes (a hash collision): another name rather than the wrong picture.
        while let existing = Self.read(directory + "/" + name + suffix), existing != bytes { name += "x" }
        let copy = directory + "/" + name + suffix
        if access(copy, F_OK) == 0 { return .success(copy) }
        let temporary = copy + ".tmp\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return .failure(AttachmentError(message: "cannot copy image '\(path)' into \(directory): \(String(cString: strerror(errno)))")) }
        var rest = bytes[...]
        while !rest.isEmpty {
            let n = rest.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let why = String(cString: strerror(errno))
                close(fd)
                unlink(temporary)
                return .failure(AttachmentError(message: "cannot copy image '\(path)' into \(directory): \(why)"))
            }
            rest = rest.dropFirst(n)
        }
        close(fd)
        guard rename(temporary, copy) == 0 else {
            unlink(temporary)
            return .failure(AttachmentError(message: "cannot copy image '\(path)' into \(directory): \(String(cString: strerror(errno)))"))
        }
        return .success(copy)
    }

    /// Whether any copy is there: when none is, nothing needs collecting (and the model need not be walked).
    func hasCopies() -> Bool {
        guard !directory.isEmpty, let dir = opendir(directory) else { return false }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let first = withUnsafeBytes(of: entry.pointee.d_name) { $0.first }
            if first != UInt8(ascii: ".") { return true }
        }
        return false
    }

    /// Deletes every copy whose path is not in `referenced`; returns how many.
    @discardableResult
    func collect(keeping referenced: Set<String>) -> Int {
        guard !directory.isEmpty, let dir = opendir(directory) else { return 0 }
        defer { closedir(dir) }
        var deleted = 0
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name == "." || name == ".." { continue }
            let path = directory + "/" + name
            if !referenced.contains(path), unlink(path) == 0 { deleted += 1 }
        }
        return deleted
    }

    /// The whole file, or nil.
    private static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while out.count <= sizeLimit {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return nil }
            if n == 0 { return out }
            out += chunk[..<n]
        }
        return nil
    }

    private static func hash(_ bytes: [UInt8]) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01b3
        }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// Why an image was not attached: a sentence naming the path.
struct AttachmentError: Error, Sendable {
    var message: String
}
