/// Reads an SQLite write-ahead log (the `-wal` file) the way SQLite's recovery does, to find damage that SQLite
/// would silently step over.
///
/// SQLite replays frames while each one's salt and cumulative checksum are right and stops at the first that is not,
/// keeping everything up to the last commit before it. Frames of an earlier generation of the log (other salts) are
/// normal leftovers; but a frame of the current generation after the stopping point, which checks out against its
/// predecessor's stored checksum, is a transaction that was committed and would be dropped: the log is damaged.
/// (Format: https://www.sqlite.org/fileformat2.html#walformat.)
struct WriteAheadLog {
    static let headerSize = 32
    static let frameHeaderSize = 24

    /// One frame: the page it holds and, for the last frame of a transaction, the database size after it.
    struct Frame {
        /// Byte offset of the frame header in the file.
        var offset: Int
        var page: UInt32
        /// Database size in pages after this commit; 0 for frames that are not the last of a transaction.
        var commitSize: UInt32
    }

    /// What SQLite would do with the log, and what it would lose.
    struct Reading {
        var pageSize: Int
        /// The frames SQLite replays, in order (up to and including the last valid commit).
        var recovered: [Frame]
        /// Where SQLite stops reading (byte offset of the first frame it rejects); nil when it reads to the end.
        var brokenAt: Int?
        /// Frames of the current generation after `brokenAt` that check out on their own, in order: the
        /// transactions that SQLite would drop. Up to and including the last commit among them.
        var stranded: [Frame]
        /// How many of `stranded` end a transaction.
        var strandedCommits: Int { stranded.filter { $0.commitSize != 0 }.count }
    }

    let bytes: [UInt8]

    /// nil when the bytes are not a write-ahead log at all (too short, wrong magic or header checksum): SQLite
    /// ignores such a log too.
    func read() -> Reading? {
        guard bytes.count >= Self.headerSize else { return nil }
        let magic = be32(0)
        guard magic == 0x377f_0682 || magic == 0x377f_0683 else { return nil }
        let pageSize = Int(be32(8) == 1 ? 65_536 : be32(8))
        guard pageSize >= 512, pageSize <= 65_536, pageSize & (pageSize - 1) == 0 else { return nil }
        let bigEndian = magic & 1 == 1
        let headerSum = checksum(0, 24, seed: (0, 0), bigEndian: bigEndian)
        guard headerSum == (be32(24), be32(28)) else { return nil }
        let salt = bytes[16..<24]
        let frameSize = Self.frameHeaderSize + pageSize

        func frame(at offset: Int) -> Frame {
            Frame(offset: offset, page: be32(offset), commitSize: be32(offset + 4))
        }
        /// Whether the frame at `offset` is of this generation and its checksum follows from `seed`.
        func checks(_ offset: Int, seed: (UInt32, UInt32)) -> Bool {
            guard be32(offset) != 0, bytes[(offset + 8)..<(offset + 16)].elementsEqual(salt) else { return false }
            var sum = checksum(offset, 8, seed: seed, bigEndian: bigEndian)
            sum = checksum(offset + Self.frameHeaderSize, pageSize, seed: sum, bigEndian: bigEndian)
            return sum == (be32(offset + 16), be32(offset + 20))
        }

        var recovered: [Frame] = []
        var pending: [Frame] = []
        var seed = headerSum
        var offset = Self.headerSize
        while offset + frameSize <= bytes.count, checks(offset, seed: seed) {
            let f = frame(at: offset)
            pending.append(f)
            if f.commitSize != 0 {
                recovered += pending
                pending = []
            }
            seed = (be32(offset + 16), be32(offset + 20))
            offset += frameSize
        }
        guard offset + frameSize <= bytes.count else {
            return Reading(pageSize: pageSize, recovered: recovered, brokenAt: nil, stranded: [])
        }
        // The first rejected frame. Frames after it that check out against their predecessor's stored checksum are
        // of this generation: committed work SQLite would not replay.
        let brokenAt = offset
        var stranded: [Frame] = []
        var candidates: [Frame] = []
        /// Whether the frame at `at` checks out against its predecessor's stored checksum.
        func standsAlone(_ at: Int) -> Bool {
            at > offset && checks(at, seed: (be32(at - frameSize + 16), be32(at - frameSize + 20)))
        }
        var next = offset + frameSize
        while next + frameSize <= bytes.count {
            // A frame checks out on its own, or the next one checks out against the checksum stored in its header:
            // then its header is intact, and (damage being one contiguous run that began before it) so is its page.
            let intact = standsAlone(next)
                || (bytes[(next + 8)..<(next + 16)].elementsEqual(salt) && be32(next) != 0
                    && next + 2 * frameSize <= bytes.count && standsAlone(next + frameSize))
            if intact {
                let f = frame(at: next)
                candidates.append(f)
                if f.commitSize != 0 {
                    stranded += candidates
                    candidates = []
                }
            }
            next += frameSize
        }
        return Reading(pageSize: pageSize, recovered: recovered, brokenAt: brokenAt, stranded: stranded)
    }

    /// The page bytes of a frame.
    func page(of frame: Frame, pageSize: Int) -> ArraySlice<UInt8> {
        let start = frame.offset + Self.frameHeaderSize
        return bytes[start..<(start + pageSize)]
    }

    private func be32(_ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }

    private func le32(_ offset: Int) -> UInt32 {
        UInt32(bytes[offset + 3]) << 24 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 1]) << 8
            | UInt32(bytes[offset])
    }

    /// SQLite's `walChecksumBytes` over `count` bytes (a multiple of 8) from `offset`.
    private func checksum(_ offset: Int, _ count: Int, seed: (UInt32, UInt32), bigEndian: Bool) -> (UInt32, UInt32) {
        var (s1, s2) = seed
        var i = offset
        while i < offset + count {
            let x0 = bigEndian ? be32(i) : le32(i)
            let x1 = bigEndian ? be32(i + 4) : le32(i + 4)
            s1 = s1 &+ x0 &+ s2
            s2 = s2 &+ x1 &+ s1
            i += 8
        }
        return (s1, s2)
    }
}
