import AvisoCore
import AvisoTestSupport
internal import CNotify
import Testing

@testable import AvisoDaemon

/// aviso's key-file reader against GLib's GKeyFile, the format's reference, on generated text: both must accept the
/// same files and read the same groups, keys, values and escaped strings, and refuse the same files. Errors name
/// their line, which GKeyFile does not.
struct KeyFileTests {
    /// What GKeyFile reads (translations kept, as aviso keeps them), or nil when it refuses the text.
    struct Oracle: Equatable, CustomStringConvertible {
        struct Group: Equatable {
            var name: String
            var entries: [(key: String, value: String?, string: String?)]

            static func == (a: Group, b: Group) -> Bool {
                a.name == b.name && a.entries.count == b.entries.count
                    && zip(a.entries, b.entries).allSatisfy { $0.key == $1.key && $0.value == $1.value && $0.string == $1.string }
            }
        }

        var groups: [Group]

        var description: String {
            groups.map { g in "[\(g.name)] " + g.entries.map { "\($0.key.debugDescription)=\(($0.value ?? "nil").debugDescription)/\(($0.string ?? "nil").debugDescription)" }.joined(separator: " ") }
                .joined(separator: " ")
        }

        /// GKeyFile's reading; its keys listed once each, in the order they first appear.
        static func glib(_ bytes: [UInt8]) -> Oracle? {
            let file = g_key_file_new()!
            defer { g_key_file_free(file) }
            let data = bytes.map { CChar(bitPattern: $0) } + [0]
            let loaded = data.withUnsafeBufferPointer {
                g_key_file_load_from_data(file, $0.baseAddress, gsize(bytes.count), G_KEY_FILE_KEEP_TRANSLATIONS, nil)
            }
            guard loaded != 0 else { return nil }
            func strings(_ vector: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?) -> [String] {
                guard let vector else { return [] }
                defer { g_strfreev(vector) }
                var out: [String] = []
                var i = 0
                while let s = vector[i] {
                    out.append(String(cString: s))
                    i += 1
                }
                return out
            }
            func take(_ raw: UnsafeMutablePointer<gchar>?) -> String? {
                guard let raw else { return nil }
                defer { g_free(raw) }
                return String(cString: raw)
            }
            return Oracle(groups: strings(g_key_file_get_groups(file, nil)).map { group in
                var seen: Set<String> = []
                let keys = strings(g_key_file_get_keys(file, group, nil, nil)).filter { seen.insert($0).inserted }
                return Group(name: group, entries: keys.map { key in
                    let value = take(g_key_file_get_value(file, group, key, nil))
                    var string = take(g_key_file_get_string(file, group, key, nil))
                    // The one place aviso differs on purpose: a backslash that ends the value stays.
                    if let value, value.reversed().prefix(while: { $0 == "\\" }).count % 2 == 1 { string? += "\\" }
                    return (key, value, string)
                })
            })
        }

        /// aviso's reading, in the same shape.
        static func aviso(_ bytes: [UInt8]) -> Oracle? {
            let file = KeyFile(bytes)
            guard file.error == nil, file.binaryLine == nil else { return nil }
            return Oracle(groups: file.groups().map { group in
                Group(name: group, entries: file.keys(in: group).map { ($0, file.value(group, $0), file.string(group, $0)) })
            })
        }
    }

    /// Lines built from the pieces that matter to the rules: brackets, `=`, spaces and tabs around them, `#`, `\r`,
    /// backslashes and escapes, translations, control characters, non-ASCII letters, `Encoding`.
    static func generated(_ g: inout SplitMix) -> [UInt8] {
        let pieces = [
            "[", "]", "=", " ", "\t", "#", "\r", "\\", "\\n", "\\s", "\\t", "\\\\", "\\x", "Key", "Title", "a", "B", "7", "-",
            "_", ".", "@", "[de]", "[en_GB.UTF-8@euro]", "[]", "Reminder x", "é", "ß", "日", "\u{01}", "\u{7F}", "\u{0B}",
            "Encoding", "UTF-8", "utf-8", "Latin-1",
        ]
        let shapes = ["[G]", "K=V", "K=V", "K=V", " K = V ", "[G] ", "#c", "", "free"]
        var text = ""
        for _ in 0..<Int.random(in: 1...8, using: &g) {
            func noise(_ n: Int) -> String { (0..<Int.random(in: 0...n, using: &g)).map { _ in pieces.randomElement(using: &g)! }.joined() }
            let line: String
            switch shapes.randomElement(using: &g)! {
            case "[G]": line = "[" + noise(3) + "]"
            case "[G] ": line = " [" + noise(2) + "]" + [" ", "\t", " x", "]"].randomElement(using: &g)!
            case "K=V": line = noise(2) + "=" + noise(4)
            case " K = V ": line = " " + noise(2) + " = " + noise(3) + " "
            case "#c": line = "#" + noise(3)
            case "": line = ""
            default: line = noise(6)
            }
            text += line + (Int.random(in: 0..<10, using: &g) == 0 ? "\r\n" : "\n")
        }
        // Most files start with a group, as real ones do; the rest test the rule that they must.
        if Int.random(in: 0..<4, using: &g) > 0 { text = "[" + ["G", "Reminder x", "A b"].randomElement(using: &g)! + "]\n" + text }
        if Bool.random(using: &g) { text.removeLast() }
        return Array(text.utf8)
    }

    @Test func readsWhatGKeyFileReadsAndRefusesWhatItRefuses() throws {
        var g = SplitMix(seed: 0xA1_50)
        var accepted = 0
        for i in 0..<20_000 {
            let bytes = Self.generated(&g)
            let expected = Oracle.glib(bytes)
            let got = Oracle.aviso(bytes)
            if expected != nil { accepted += 1 }
            try #require(got == expected, "case \(i): \(String(decoding: bytes, as: UTF8.self).debugDescription)")
        }
        // Both sides of the rules were exercised.
        #expect(accepted > 2_000 && accepted < 18_000, "\(accepted) of 20000 accepted")
    }

    /// A reminder's title and body are decoded straight into its file's `TextArena`: on the same generated files,
    /// every value read that way, as a title and as a body, is the string `string(of:)` reads (which GKeyFile checks
    /// above), one value after another in one arena.
    @Test func aValueDecodedIntoTheArenaIsTheStringReadOtherwise() throws {
        var g = SplitMix(seed: 0xA1_51)
        var compared = 0
        for i in 0..<20_000 {
            let bytes = Self.generated(&g)
            let file = KeyFile(bytes)
            guard file.error == nil, file.binaryLine == nil else { continue }
            let arena = TextArena()
            var previous: (String, TextArena.Run)?
            for group in file.groupList {
                for entry in group.entries {
                    let expected = file.string(of: entry)
                    let run = file.text(of: entry, in: arena)
                    let empty = arena.append("")
                    let asTitle = Content(title: run, body: empty, in: arena)
                    let asBody = Content(title: empty, body: run, in: arena)
                    try #require(asTitle.title == expected && asTitle.body.isEmpty && asBody.body == expected,
                                 "case \(i): \(String(decoding: bytes, as: UTF8.self).debugDescription)")
                    if let (text, earlier) = previous {
                        // Two runs apart in the arena (copied to lie one after the other).
                        let both = Content(title: earlier, body: run, in: arena)
                        try #require(both.title == text && both.body == expected, "case \(i)")
                        try #require(both == Content(title: text, body: expected), "case \(i)")
                    }
                    previous = (expected, run)
                    compared += 1
                }
            }
            arena.finish()
        }
        #expect(compared > 1_000, "\(compared) values compared")
    }

    @Test(arguments: [
        ("[a]\nx=1\n[b[c]\n", 3, "not a group name"),
        ("# c\nk=v\n", 2, "before the first [group]"),
        ("[a]\n=v\n", 2, "is not a [group] header"),
        ("[a]\nKey[de]x=1\n", 2, "not a key name"),
        ("[a]\nEncoding=latin1\n", 2, "must be UTF-8"),
        ("[a]\nx=1\r\n\r\nnothing here\n", 4, "'nothing here' is not"),
    ])
    func aSyntaxErrorNamesItsLineAndRule(text: String, line: Int, reason: String) throws {
        let error = try #require(KeyFile(Array(text.utf8)).error)
        #expect(error.line == line)
        #expect(error.message.contains(reason), "\(error.message)")
    }

    @Test func aRepeatedKeyKeepsItsLastValueAndLineAndAGroupReopenedAddsToIt() {
        let file = KeyFile(Array("[a]\nx=1\ny=2\n[b]\n[a]\nx=3\n".utf8))
        #expect(file.groups() == ["a", "b"])
        #expect(file.keys(in: "a") == ["x", "y"])
        #expect(file.value("a", "x") == "3")
        #expect(file.line(ofKey: "x", in: "a") == 6)
        #expect(file.line(ofGroup: "a") == 1)
    }

    @Test func aGroupWithManyKeysFindsEachOfThem() {
        let text = "[g]\n" + (0..<100).map { "k\($0)=\($0)\n" }.joined() + "k7=last\n"
        let file = KeyFile(Array(text.utf8))
        #expect(file.keys(in: "g").count == 100)
        #expect(file.value("g", "k99") == "99")
        #expect(file.value("g", "k7") == "last")
        #expect(file.line(ofKey: "k7", in: "g") == 102)
    }
}
