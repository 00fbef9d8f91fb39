import AvisoCore

/// A seeded generator of control-protocol lines aimed at the edges: Int64 bounds, years 0, 1677, 1970, 2199, 2262 and
/// 9999, zones that do not exist, 1 MiB strings, NUL bytes, nesting around 512 levels, and valid lines with bytes
/// flipped, dropped or cut. The same seed gives the same lines, so a failure can be replayed.
public struct WireFuzzer {
    private var generator: SplitMix
    /// The instant the generated dates are placed around (nanoseconds since the epoch).
    public let now: Int64

    public init(seed: UInt64, now: Int64) {
        generator = SplitMix(seed: seed)
        self.now = now
    }

    private mutating func random() -> UInt64 { generator.next() }

    private mutating func below(_ n: Int) -> Int { Int(random() % UInt64(n)) }
    private mutating func pick<T>(_ choices: [T]) -> T { choices[below(choices.count)] }
    private mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    private static let second: Int64 = 1_000_000_000
    private static let year: Int64 = 31_557_600 * second

    /// The next line, newline included.
    public mutating func nextLine() -> [UInt8] {
        switch below(100) {
        case 0..<45: return Array(add().utf8) + [10]
        case 45..<55: return Array(otherOperation().utf8) + [10]
        case 55..<75: return mutate(Array(add().utf8)) + [10]
        case 75..<85: return nesting() + [10]
        default: return junk() + [10]
        }
    }

    // MARK: Well-formed lines with extreme values

    private mutating func add() -> String {
        var fields = [#""id":\#(identifier())"#, #""content":\#(content())"#, #""trigger":\#(trigger())"#]
        if chance(15) { fields.append(#""priority":\#(pick(["-7", "0", "99", "100", "1000", "-9223372036854775808", "9223372036854775807", "1e3", "null"]))"#) }
        if chance(15) { fields.append(#""maxLate":\#(pick(["-9223372036854775808", "-1", "0", "1", "60000000000", "9223372036854775807", "\"1h\""]))"#) }
        if chance(5) { fields.shuffle(using: &self) }
        return #"{"v":1,"op":"add","request":{\#(fields.joined(separator: ","))}}"#
    }

    /// A usual value most of the time, one of the edge cases otherwise: so that most lines get past the codec and
    /// reach validation, and every edge is still tried.
    private mutating func usually(_ usual: String, else edges: [String], percent: Int = 25) -> String {
        chance(percent) ? pick(edges) : usual
    }

    private mutating func identifier() -> String {
        usually("\"fuzz-\(below(50))\"", else: [
            #""""#, #""a\u0000b""#, #""line\nbreak""#, "\"\(String(repeating: "i", count: 255))\"",
            "\"\(String(repeating: "i", count: 256))\"", #""é🙂""#, #""\ud800""#, "7", "null",
        ])
    }

    private mutating func content() -> String {
        var fields = [#""level":\#(usually("\"active\"", else: ["\"passive\"", "\"critical\"", "\"loud\"", "3"]))"#]
        // The codec wants every text field; one left out now and then is a malformed line.
        for key in ["title", "subtitle", "body"] where chance(97) { fields.append(#""\#(key)":\#(text())"#) }
        if chance(20) { fields.append(#""relevance":\#(pick(["0", "1", "0.5", "-0.1", "1.5", "1e308", "-1e308", "5e-324", "1e400", "\"high\""]))"#) }
        if chance(10) { fields.append(#""image":\#(pick(["\"/dev/zero\"", "\"relative.png\"", "\"/a\\u0000b.png\"", "\"\"", "\"/proc/self/mem\""]))"#) }
        if chance(10) { fields.append(#""threadID":\#(text())"#) }
        fields.append(#""userInfo":\#(chance(15) ? userInfo(depth: below(70)) : "{}")"#)
        return "{\(fields.joined(separator: ","))}"
    }

    private mutating func text() -> String {
        guard chance(20) else { return "\"hello \(below(1000))\"" }
        switch below(5) {
        case 0 where chance(5): return "\"\(String(repeating: "x", count: 1 << 20))\""
        case 1: return #""nul \u0000 inside""#
        case 2: return #""""#
        case 3: return #""\udfff lone""#
        default: return "123"
        }
    }

    private mutating func userInfo(depth: Int) -> String {
        String(repeating: #"{"k":"#, count: depth) + "1" + String(repeating: "}", count: depth)
    }

    private mutating func trigger() -> String {
        switch below(3) {
        case 0:
            return #"{"kind":"date","at":\#(instant())}"#
        case 1:
            let span = pick([
                "-9223372036854775808", "-1", "0", "1", "59999999999", "60000000000", "86400000000000",
                String(100 * Self.year), String(229 * Self.year), String(230 * Self.year), String(292 * Self.year),
                "9223372036854775807", "1e30", String(Int64(bitPattern: random()) / Int64(1 + below(1000))),
            ])
            return #"{"kind":"interval","nanoseconds":\#(span),"repeats":\#(usually("false", else: ["true", "1"], percent: 40))}"#
        default:
            let spec = pick([
                "2020-01-01", "*-02-30", "Tue 2026-02-29", "*-*-* 02:30", "Mon..Fri 09:00", "2199-12-31 23:59:59",
                "2200-01-01", "9999-01-01", "0000-01-01", "*:0/1", "minutely", "", "garbage", "*-*-* 09:00 Mars/Olympus",
                "*-*~01", "*-*-* 25:00", "1677-09-21", "2262-04-11 23:47:16", "Sat..Fri *-*-* *:*:*.999999",
            ])
            var fields = [#""kind":"calendar""#, #""spec":"\#(spec)""#]
            if chance(60) {
                fields.append(#""zone":\#(usually("\"Europe/Madrid\"", else: ["null", "\"UTC\"", "\"Europe/Nowhere\"", "\"\"", "\"/etc/passwd\"", "\"local\"", "\"../x\"", "\"Australia/Lord_Howe\""], percent: 50))"#)
            }
            if chance(40) { fields.append(#""dst":\#(usually("\"systemd\"", else: ["\"aviso\"", "\"sometimes\""]))"#) }
            return "{\(fields.joined(separator: ","))}"
        }
    }

    /// Nanoseconds since the epoch: the Int64 ends, the supported range's edges, years far away, and around now.
    private mutating func instant() -> String {
        let civil = { (year: Int) in CivilDateTime.days(fromCivil: year, 1, 1) * 86_400 }
        let candidates: [Int64] = [
            .min, .min + 1, -1, 0, 1, now - 1, now + 1, now + Self.second, now + 3_600 * Self.second,
            civil(1678) * Self.second, civil(1970) * Self.second,
            civil(2200) * Self.second - 1, civil(2200) * Self.second, civil(2262) * Self.second, .max - 1, .max,
            Int64(bitPattern: random()),
        ]
        let value = pick(candidates)
        return chance(5) ? String(Double(value)) : String(value)
    }

    private mutating func otherOperation() -> String {
        pick([
            #"{"v":1,"op":"status"}"#, #"{"v":1,"op":"pending"}"#, #"{"v":1,"op":"list"}"#, #"{"v":1,"op":"stats"}"#,
            #"{"v":1,"op":"remove","ids":["nope"]}"#, #"{"v":1,"op":"remove","prefix":"fuzz-"}"#,
            #"{"v":1,"op":"fire","id":"fuzz-\#(below(50))"}"#, #"{"v":1,"op":"remove-delivered","all":true}"#,
            #"{"v":1,"op":"remove","ids":[],"prefix":"","all":false}"#, #"{"v":2,"op":"status"}"#, #"{"v":1}"#,
            #"{"v":1,"op":"fire","id":\#(identifier())}"#, #"{"v":1,"op":"delivered"}"#,
        ])
    }

    // MARK: Broken lines

    private mutating func mutate(_ line: [UInt8]) -> [UInt8] {
        var bytes = line
        for _ in 0..<(1 + below(4)) where !bytes.isEmpty {
            let at = below(bytes.count)
            switch below(4) {
            case 0: bytes[at] ^= UInt8(1 << below(8))
            case 1: bytes.remove(at: at)
            case 2: bytes.insert(pick(Array("[]{}\",:\\0-9e".utf8) + [0, 0xff, 0x80]), at: at)
            default: bytes = Array(bytes[..<at])
            }
        }
        bytes.removeAll { $0 == 10 }
        return bytes.isEmpty ? Array("x".utf8) : bytes
    }

    private mutating func nesting() -> [UInt8] {
        let depth = pick([63, 64, 65, 511, 512, 513, 600, 100_000])
        let open = Array(pick(["[", "{\"a\":"]).utf8)
        let body = (0..<depth).flatMap { _ in open }
        return chance(50) ? body : Array(#"{"v":1,"op":"add","request":"#.utf8) + body
    }

    /// Random bytes; never a blank line, which the daemon skips without an answer.
    private mutating func junk() -> [UInt8] {
        [UInt8(ascii: "#")] + (0..<below(300)).map { _ in UInt8(truncatingIfNeeded: random()) }.filter { $0 != 10 }
    }
}

extension WireFuzzer: RandomNumberGenerator {
    public mutating func next() -> UInt64 { random() }
}
