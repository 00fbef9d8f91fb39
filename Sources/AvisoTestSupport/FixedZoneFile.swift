import Foundation

/// A TZif file (version 1, RFC 8536) for a zone that is always `offsetSeconds` east of UTC, with no transitions.
///
/// Whole-second offsets let a test put the local clock just before a whole minute (quiet hours and summary times
/// are minutes), so a daemon run with `TZ=PATH` reaches a local minute within seconds, on the real clock.
public enum FixedZoneFile {
    public static func bytes(offsetSeconds: Int32, abbreviation: String = "TST") -> [UInt8] {
        func be32(_ v: Int32) -> [UInt8] { withUnsafeBytes(of: v.bigEndian) { Array($0) } }
        let chars = Array(abbreviation.utf8) + [0]
        var out = Array("TZif".utf8) + [0] + [UInt8](repeating: 0, count: 15)
        // isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
        for count in [0, 0, 0, 0, 1, Int32(chars.count)] { out += be32(count) }
        out += be32(offsetSeconds) + [0, 0]  // one local time type: offset, not DST, abbreviation at 0
        return out + chars
    }

    /// Writes the file at `path`.
    public static func write(_ path: String, offsetSeconds: Int32) throws {
        try Data(bytes(offsetSeconds: offsetSeconds)).write(to: URL(fileURLWithPath: path))
    }

    /// The offset that makes the local time `second` seconds past a whole minute now, and that minute's next local
    /// "HH:MM" (the minute that begins `60 - second` seconds from now).
    public static func offsetPlacing(second: Int, now: Date = Date()) -> (offset: Int32, nextMinute: String) {
        let utc = Int(now.timeIntervalSince1970.rounded(.down))
        let offset = ((second - utc % 60) % 60 + 60) % 60
        let next = (utc + offset + 60 - second) % 86_400
        let text = String(format: "%02d:%02d", next / 3600, next % 3600 / 60)
        return (Int32(offset), text)
    }
}
