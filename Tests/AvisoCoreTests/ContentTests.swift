import AvisoCore
import Foundation
import Testing

/// A content's rarely set fields live in a shared box: copies must still behave as values.
struct ContentTests {
    static let full = Content(title: "T", subtitle: "S", body: "B", threadID: "th", categoryID: "c", relevance: 0.5,
                              level: .timeSensitive, userInfo: ["k": .string("v")], image: "/i.png", delivery: nil)

    @Test func aChangedCopyLeavesTheOriginalAsItWas() {
        var copy = Self.full
        copy.subtitle = "changed"
        copy.userInfo["k"] = .string("w")
        #expect(Self.full.subtitle == "S" && Self.full.userInfo == ["k": .string("v")])
        #expect(copy.subtitle == "changed" && copy.userInfo == ["k": .string("w")])
        #expect(copy != Self.full)
        var plain = Content(title: "T")
        plain.image = "/x.png"
        plain.image = nil
        #expect(plain == Content(title: "T"), "a field set and cleared again compares equal to one never set")
        #expect(Set([plain, Content(title: "T")]).count == 1)
    }

    @Test func everyFieldSurvivesJSON() throws {
        let data = try JSONEncoder().encode(Self.full)
        #expect(try JSONDecoder().decode(Content.self, from: data) == Self.full)
        let keys = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any]).keys
        #expect(Set(keys) == ["title", "subtitle", "body", "threadID", "categoryID", "relevance", "level", "userInfo", "image"])
        let empty = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(Content())) as? [String: Any])
        #expect(Set(empty.keys) == ["title", "subtitle", "body", "level", "userInfo"], "absent optionals are left out")
    }

    /// A content read from a reminder file keeps its title and body in the file's arena: it must read, compare, hash,
    /// change and encode as one holding its own strings.
    @Test func aContentInAnArenaBehavesAsOneWithStringsOfItsOwn() throws {
        let arena = TextArena()
        let texts = [("Tea", "Take the tea bag out, now that four minutes have passed"), ("", "only a body"),
                     ("only a title", ""), ("Caf\u{E9}", "na\u{EF}ve\nsecond line \u{1F375}")]
        var kept: [Content] = []
        for (title, body) in texts {
            var c = Self.inArena(title, body, arena)
            c.categoryID = "drink"
            kept.append(c)
        }
        arena.finish()
        for ((title, body), c) in zip(texts, kept) {
            var own = Content(title: title, body: body)
            own.categoryID = "drink"
            #expect(c.title == title && c.body == body)
            #expect(c == own && own == c)
            #expect(Set([c, own]).count == 1, "equal contents hash alike")
            #expect(try JSONDecoder().decode(Content.self, from: JSONEncoder().encode(c)) == own)
        }
        #expect(kept[0] != kept[1] && kept[1] != kept[2], "different texts of one arena differ")

        // The same bytes in the arena of a file read again compare equal; other bytes, or another title, do not.
        let again = TextArena()
        #expect(Self.inArena("Tea", texts[0].1, again).title == "Tea")
        var reread = Self.inArena("Tea", texts[0].1, again)
        reread.categoryID = "drink"
        #expect(reread == kept[0])
        #expect(Self.inArena("Tea", "Take the tea bag out", again) != Content(title: "Tea", body: texts[0].1))
        // Canonically equivalent strings are equal whatever their bytes, as String compares them.
        #expect(Self.inArena("Caf\u{E9}", "", again) == Self.inArena("Cafe\u{301}", "", again))

        // A change makes strings of the content's own and leaves the other text, and every copy, as it was.
        var changed = kept[0]
        changed.body += " (snoozed)"
        #expect(changed.title == "Tea" && changed.body == texts[0].1 + " (snoozed)")
        #expect(kept[0].body == texts[0].1)
        changed.title = "Green tea"
        #expect(changed.title == "Green tea" && changed.body == texts[0].1 + " (snoozed)")
    }

    /// A content whose title and body were appended to `arena` one after the other, as a file's usually are.
    static func inArena(_ title: String, _ body: String, _ arena: TextArena) -> Content {
        Content(title: arena.append(title), body: arena.append(body), in: arena)
    }

    /// `Body=` before `Title=`, or another text between them: the two are copied to be one after the other.
    @Test func aTitleAndBodyApartInTheArenaAreReadBack() {
        let arena = TextArena()
        let body = arena.append("Take the tea bag out")
        let subtitle = arena.append("kitchen")
        let title = arena.append("Tea")
        let c = Content(title: title, body: body, in: arena)
        #expect(c.title == "Tea" && c.body == "Take the tea bag out" && !subtitle.isEmpty)
        #expect(c == Content(title: "Tea", body: "Take the tea bag out"))
        let onlyBody = Content(title: arena.append(""), body: arena.append("just this"), in: arena)
        #expect(onlyBody.title.isEmpty && onlyBody.body == "just this")
    }

    /// Texts the packing cannot name (a run over 2 MiB) are kept as strings of their own, whole.
    @Test func aTextTooLongForTheArenaIsKeptWhole() {
        let arena = TextArena()
        let long = String(repeating: "x", count: 1 << 21)
        let c = Self.inArena("T", long, arena)
        #expect(c.body.utf8.count == 1 << 21 && c.title == "T")
        #expect(c == Content(title: "T", body: long))
    }

    /// Contents of one file with equal extras share one box: each must still change alone.
    @Test func contentsSharingTheirExtrasChangeAlone() {
        let shared = SharedExtras()
        var a = Content(title: "A", categoryID: "drink")
        var b = Content(title: "B", categoryID: "drink")
        var c = Content(title: "C", threadID: "kitchen", categoryID: "drink")
        a.shareExtras(in: shared)
        b.shareExtras(in: shared)
        c.shareExtras(in: shared)
        #expect(a.categoryID == "drink" && b.categoryID == "drink" && c.threadID == "kitchen")
        b.categoryID = "food"
        a.threadID = "garden"
        #expect(a.categoryID == "drink" && a.threadID == "garden")
        #expect(b.categoryID == "food" && b.threadID == nil)
        #expect(c.categoryID == "drink" && c.threadID == "kitchen")
        var d = Content(title: "A", categoryID: "drink")
        d.shareExtras(in: shared)
        d.threadID = "garden"
        #expect(d == a, "equal fields compare equal, shared box or not")
        d.categoryID = nil
        d.threadID = nil
        #expect(d == Content(title: "A"), "a box emptied again is dropped")
    }
}
