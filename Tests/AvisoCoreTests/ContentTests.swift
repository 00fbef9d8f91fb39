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
}
