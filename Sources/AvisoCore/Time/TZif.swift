/// The contents of a TZif file (RFC 8536), versions 1 to 4: transitions, local time types and the footer.
///
/// Version 2+ files are read from their 64-bit block; leap-second records (the "right/" zones) are skipped.
struct TZif {
    var transitions: [Int64] = []
    var transitionTypes: [Int] = []
    var types: [ZoneRules.LocalType] = []
    var footer: PosixTimeZone?

    struct Failure: Error {
        var reason: String
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        mutating func take(_ n: Int) throws(Failure) -> ArraySlice<UInt8> {
            guard n >= 0, index + n <= bytes.count else { throw Failure(reason: "it is truncated") }
            defer { index += n }
            return bytes[index..<index + n]
        }

        mutating func int(_ width: Int) throws(Failure) -> Int64 {
            let raw = try take(width)
            var v: UInt64 = 0
            for b in raw { v = v << 8 | UInt64(b) }
            // Sign-extend from `width` bytes.
            let shift = UInt64(64 - 8 * width)
            return Int64(bitPattern: v << shift) >> shift
        }

        mutating func count() throws(Failure) -> Int {
            let n = try int(4)
            guard n >= 0, n < 1 << 24 else { throw Failure(reason: "it has an impossible count \(n)") }
            return Int(n)
        }
    }

    private struct Header {
        var version: UInt8
        var isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt: Int
    }

    private static func header(_ r: inout Reader) throws(Failure) -> Header {
        guard Array(try r.take(4)) == Array("TZif".utf8) else { throw Failure(reason: "it is not a TZif file") }
        let version = try r.take(1).first!
        _ = try r.take(15)
        let h = Header(version: version, isutcnt: try r.count(), isstdcnt: try r.count(), leapcnt: try r.count(),
                       timecnt: try r.count(), typecnt: try r.count(), charcnt: try r.count())
        guard h.typecnt >= 1 else { throw Failure(reason: "it has no local time types") }
        return h
    }

    init(bytes: [UInt8]) throws(Failure) {
        var r = Reader(bytes: bytes)
        var h = try Self.header(&r)
        var timeWidth = 4
        if h.version >= UInt8(ascii: "2") {
            // Skip the 32-bit block; the 64-bit one that follows has the same data with full range.
            _ = try r.take(h.timecnt * 5 + h.typecnt * 6 + h.charcnt + h.leapcnt * 8 + h.isstdcnt + h.isutcnt)
            h = try Self.header(&r)
            timeWidth = 8
        }
        for _ in 0..<h.timecnt { transitions.append(try r.int(timeWidth)) }
        for _ in 0..<h.timecnt {
            let t = Int(try r.take(1).first!)
            guard t < h.typecnt else { throw Failure(reason: "a transition names local time type \(t) of \(h.typecnt)") }
            transitionTypes.append(t)
        }
        var raw: [(offset: Int, isDST: Bool, index: Int)] = []
        for _ in 0..<h.typecnt {
            let offset = Int(try r.int(4))
            guard abs(offset) <= 26 * 3_600 else { throw Failure(reason: "it has an impossible UTC offset \(offset)") }
            let isDST = try r.take(1).first! != 0
            raw.append((offset, isDST, Int(try r.take(1).first!)))
        }
        let chars = Array(try r.take(h.charcnt))
        for t in raw {
            guard t.index < max(chars.count, 1) else { throw Failure(reason: "an abbreviation index is out of range") }
            let tail = chars.isEmpty ? [] : chars[t.index...]
            let name = tail.prefix { $0 != 0 }
            types.append(ZoneRules.LocalType(offset: t.offset, isDST: t.isDST,
                                             abbreviation: String(decoding: name, as: UTF8.self)))
        }
        _ = try r.take(h.leapcnt * (timeWidth + 4) + h.isstdcnt + h.isutcnt)
        guard timeWidth == 8 else { return }
        guard (try? r.take(1)) == [UInt8(ascii: "\n")][...] else { throw Failure(reason: "its footer is missing") }
        let rest = bytes[r.index...]
        guard let newline = rest.firstIndex(of: UInt8(ascii: "\n")) else {
            throw Failure(reason: "its footer is not terminated")
        }
        let text = String(decoding: bytes[r.index..<newline], as: UTF8.self)
        if !text.isEmpty {
            do {
                footer = try PosixTimeZone(parsing: text)
            } catch {
                throw Failure(reason: "its rule '\(text)' is not valid: \(error.reason)")
            }
        }
    }
}
