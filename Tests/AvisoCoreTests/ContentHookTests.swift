import AvisoCore
import Testing

/// What a content hook's line may change, and byte sizes as systemd writes them.
@Suite struct ContentHookTests {
    let original = Content(title: "Build", body: "running", threadID: "ci", relevance: 0.2, userInfo: ["job": .string("7")],
                           image: "/a.png")

    @Test func aPatchChangesOnlyWhatItNames() throws {
        let patch = try HookPatch(["body": .string("failed: testLogin"), "relevance": .number(1), "data": .object(["url": .string("u")])])
        let c = patch.applied(to: original)
        #expect(c.title == "Build" && c.body == "failed: testLogin" && c.relevance == 1)
        #expect(c.userInfo == ["job": .string("7"), "url": .string("u")])
        #expect(c.threadID == "ci" && c.image == "/a.png")
    }

    @Test func nullClearsTheThreadAndTheImage() throws {
        let c = try HookPatch(["thread": .null, "image": .null]).applied(to: original)
        #expect(c.threadID == nil && c.image == nil)
    }

    @Test func aPatchNeverLeavesNeitherTitleNorBody() throws {
        let c = try HookPatch(["title": .string(""), "body": .string("")]).applied(to: original)
        #expect(c.title == "Build" && c.body == "running")
    }

    @Test func invalidLinesAreRefusedWithTheReason() {
        let cases: [([String: JSONValue], String)] = [
            (["bogus": .bool(true)], "unknown field 'bogus'"),
            (["body": .number(5)], "'body' is not a string"),
            (["relevance": .number(1.5)], "'relevance' is not a number within 0...1"),
            (["level": .string("loud")], "level"),
            (["image": .string("relative.png")], "image 'relative.png' is not an absolute path"),
            (["thread": .string("")], "'thread' is empty"),
            (["data": .array([])], "'data' is not an object"),
            ([:], "changes nothing"),
        ]
        for (object, message) in cases {
            #expect(throws: ValidationError.self, "\(object)") { try HookPatch(object) }
            do { _ = try HookPatch(object) } catch { #expect(error.message.contains(message), "\(error.message)") }
        }
    }

    @Test(arguments: [
        ("24M", Int64(24 << 20)), ("512K", 512 << 10), ("1G", 1 << 30), ("1048576", 1_048_576), (" 2m ", 2 << 20), ("1T", 1 << 40),
    ])
    func sizesParse(_ text: String, _ bytes: Int64) throws {
        #expect(try ByteSize.parse(text) == bytes)
    }

    @Test func badSizesAreRefused() {
        for text in ["", "M", "-1M", "1.5M", "12Q", "99999999999999999999", "9999999T"] {
            #expect(throws: ValidationError.self, "\(text)") { try ByteSize.parse(text) }
        }
    }

    @Test func sizesFormatInTheLargestUnit() {
        #expect(ByteSize.format(24 << 20) == "24M" && ByteSize.format(1536 << 10) == "1536K" && ByteSize.format(100) == "100")
    }
}
