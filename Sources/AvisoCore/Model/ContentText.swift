/// The texts of one reminder file's reminders, one after another in one buffer: a content read from the file names
/// its title and body there (an offset and two lengths), where two strings of its own take 32 bytes inline and a
/// block of the heap each when longer than 15 bytes (a body of 22 bytes took 64 bytes of heap).
///
/// Filled on the thread that parses the file, while it parses; read only once the parse has ended, from any thread.
/// A file read again gets a new arena: one still referred to by a reminder kept at its last good version stays,
/// whole, as long as that reminder does.
public final class TextArena: @unchecked Sendable {
    /// Unchecked: no access overlaps another (each is within one call of this class's own), and checking them cost
    /// 215 of an append's 350 instructions.
    @exclusivity(unchecked) private var bytes: [UInt8] = []

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

    /// Where bytes appended to an arena are.
    public struct Run: Sendable {
        fileprivate let start: Int
        public let count: Int
        public var isEmpty: Bool { count == 0 }
    }

    /// Appends UTF-8 text (a reminder file's value, its escapes interpreted).
    public func append(_ text: UnsafeBufferPointer<UInt8>) -> Run {
        let run = Run(start: bytes.count, count: text.count)
        bytes.append(contentsOf: text)
        return run
    }

    public func append(_ text: String) -> Run {
        var text = text
        return text.withUTF8 { append($0) }
    }

    /// The packing of a title and the body right after it in the buffer; nil when they are not one after the other,
    /// or do not fit it.
    fileprivate func packing(_ title: Run, _ body: Run) -> UInt64? {
        let start = title.isEmpty ? body.start : title.start
        guard title.isEmpty || body.isEmpty || title.start + title.count == body.start, title.count <= Self.longestRun,
              body.count <= Self.longestRun, start + title.count + body.count <= Self.capacity else { return nil }
        return UInt64(start) | UInt64(title.count) << 22 | UInt64(body.count) << 43
    }

    /// Appends a copy of `title` and then of `body`, runs of this arena: their packing, or nil when it does not fit.
    fileprivate func packingCopies(_ title: Run, _ body: Run) -> UInt64? {
        guard title.count <= Self.longestRun, body.count <= Self.longestRun else { return nil }
        let copied = bytes[title.start..<title.start + title.count] + bytes[body.start..<body.start + body.count]
        let start = bytes.count
        bytes.append(contentsOf: copied)
        return packing(Run(start: start, count: title.count), Run(start: start + title.count, count: body.count))
    }

    fileprivate func string(_ run: Run) -> String {
        bytes.withUnsafeBufferPointer {
            String(decoding: UnsafeBufferPointer(rebasing: $0[run.start..<run.start + run.count]), as: UTF8.self)
        }
    }

    /// The title (`body == false`) or body of a packing.
    fileprivate func string(_ packing: UInt64, body: Bool) -> String {
        let (offset, title) = (Int(packing & 0x3f_ffff), Int(packing >> 22 & 0x1f_ffff))
        return string(body ? Run(start: offset + title, count: Int(packing >> 43)) : Run(start: offset, count: title))
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

    /// The texts at `title` and `body` in `arena` (copied to be one after the other when they are not), or as
    /// strings of their own when they do not fit its packing.
    init(title: TextArena.Run, body: TextArena.Run, in arena: TextArena) {
        if let run = arena.packing(title, body) ?? arena.packingCopies(title, body) {
            self = .inArena(arena, run)
        } else {
            self.init(title: arena.string(title), body: arena.string(body))
        }
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
