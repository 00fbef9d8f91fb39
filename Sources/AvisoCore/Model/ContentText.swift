/// The texts of one reminder file's reminders, one after another in one buffer: a content read from the file names
/// its title and body there (an offset and two lengths), where two strings of its own take 32 bytes inline and a
/// block of the heap each when longer than 15 bytes (a body of 22 bytes took 64 bytes of heap).
///
/// Filled on the thread that parses the file, while it parses; read only once the parse has ended, from any thread.
/// A file read again gets a new arena: one still referred to by a reminder kept at its last good version stays,
/// whole, as long as that reminder does.
public final class TextArena: @unchecked Sendable {
    private var bytes: [UInt8] = []

    public init() {}

    /// The largest arena whose runs a content can name (offsets are 22 bits); a reminder file is at most 1 MiB.
    static let capacity = 1 << 22
    /// The longest run (lengths are 21 bits).
    static let longestRun = (1 << 21) - 1

    /// Gives back the room the buffer grew by and will not use: once the file's parse has ended.
    public func finish() {
        guard bytes.capacity > bytes.count else { return }
        bytes = [UInt8](unsafeUninitializedCapacity: bytes.count) { out, n in
            n = out.initialize(fromContentsOf: bytes)
        }
    }

    /// Appends `title` and `body`, and returns where they are; nil when they do not fit the packing.
    fileprivate func append(_ title: String, _ body: String) -> UInt64? {
        let (t, b) = (title.utf8.count, body.utf8.count)
        guard t <= Self.longestRun, b <= Self.longestRun, bytes.count + t + b <= Self.capacity else { return nil }
        let run = UInt64(bytes.count) | UInt64(t) << 22 | UInt64(b) << 43
        Self.append(title, body, to: &bytes)
        return run
    }

    /// The bytes of both, copied from their storage, in one access to the buffer: appending their UTF-8 views to the
    /// property took 750 instructions a reminder, 200 of them checking each access.
    private static func append(_ title: String, _ body: String, to bytes: inout [UInt8]) {
        append(title, to: &bytes)
        append(body, to: &bytes)
    }

    private static func append(_ s: String, to bytes: inout [UInt8]) {
        if s.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
            bytes.append(contentsOf: Array(s.utf8))
        }
    }

    /// The title (`body == false`) or body of `run`.
    fileprivate func string(_ run: UInt64, body: Bool) -> String {
        let (start, count) = Self.bounds(run, body: body)
        return bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[start..<start + count]), as: UTF8.self) }
    }

    /// Whether the runs `a` of this arena and `b` of `other` hold the same bytes, titles and bodies.
    fileprivate func sameBytes(_ a: UInt64, as other: TextArena, _ b: UInt64) -> Bool {
        guard a >> 22 == b >> 22 else { return false }
        let length = Int(a >> 22 & 0x1f_ffff) + Int(a >> 43)
        let (i, j) = (Int(a & 0x3f_ffff), Int(b & 0x3f_ffff))
        return bytes.withUnsafeBufferPointer { mine in
            other.bytes.withUnsafeBufferPointer { theirs in
                for k in 0..<length where mine[i + k] != theirs[j + k] { return false }
                return true
            }
        }
    }

    private static func bounds(_ run: UInt64, body: Bool) -> (Int, Int) {
        let (offset, title) = (Int(run & 0x3f_ffff), Int(run >> 22 & 0x1f_ffff))
        return body ? (offset + title, Int(run >> 43)) : (offset, title)
    }
}

/// A content's title and body: two strings of its own, or a run of a reminder file's `TextArena`; 16 bytes either
/// way.
enum ContentText: Sendable {
    case own(Strings)
    case inArena(TextArena, UInt64)

    /// Never changed: a new title or body makes a new one.
    final class Strings: Sendable {
        let title: String
        let body: String

        init(title: String, body: String) {
            self.title = title
            self.body = body
        }

        /// The empty texts every content without title and body shares.
        static let empty = Strings(title: "", body: "")
    }

    init(title: String, body: String) {
        self = title.isEmpty && body.isEmpty ? .own(.empty) : .own(Strings(title: title, body: body))
    }

    /// The texts kept in `arena`, or as strings of their own when they do not fit it.
    init(title: String, body: String, in arena: TextArena) {
        if let run = arena.append(title, body) { self = .inArena(arena, run) } else { self.init(title: title, body: body) }
    }

    var title: String {
        switch self {
        case .own(let s): s.title
        case .inArena(let arena, let run): arena.string(run, body: false)
        }
    }

    var body: String {
        switch self {
        case .own(let s): s.body
        case .inArena(let arena, let run): arena.string(run, body: true)
        }
    }

    /// Equal strings: the bytes of two runs are compared in place (a reload compares each reminder of a file read
    /// again with its last version); equal bytes are equal strings, and different bytes may still be canonically
    /// equivalent ones, which the strings then tell.
    static func == (a: ContentText, b: ContentText) -> Bool {
        switch (a, b) {
        case (.own(let x), .own(let y)) where x === y: return true
        case (.inArena(let x, let rx), .inArena(let y, let ry)) where x.sameBytes(rx, as: y, ry): return true
        default: return a.title == b.title && a.body == b.body
        }
    }
}
