import AvisoCore
import Testing

struct ValidationTests {
    static let now = Now(wall: ISO8601.parse("2026-06-01T12:00:00Z")!, boot: BootTime(nanoseconds: 5_000_000_000),
                         bootID: "boot-a")

    static func request(
        id: String = "water", title: String = "Drink water", body: String = "", relevance: Double? = nil,
        image: String? = nil, trigger: Trigger = .interval(.seconds(600), repeats: false)
    ) -> Request {
        Request(id: id, content: Content(title: title, body: body, relevance: relevance, image: image), trigger: trigger)
    }

    static func check(_ r: Request) throws {
        try r.validate(now: now, fileExists: { $0 == "/usr/share/icons/water.png" })
    }

    @Test func acceptsGoodRequests() throws {
        try Self.check(Self.request())
        try Self.check(Self.request(title: "", body: "only a body"))
        try Self.check(Self.request(relevance: 0))
        try Self.check(Self.request(relevance: 1))
        try Self.check(Self.request(image: "/usr/share/icons/water.png"))
        try Self.check(Self.request(trigger: .interval(.seconds(60), repeats: true)))
        try Self.check(Self.request(trigger: .interval(Span(nanoseconds: 1), repeats: false)))
        try Self.check(Self.request(trigger: .date(ISO8601.parse("2026-06-01T12:00:01Z")!)))
        try Self.check(Self.request(id: String(repeating: "é", count: 127)))  // 254 bytes
        try Self.check(Self.request(id: "ünïcödé ids are fine 🙂"))
    }

    static let bad: [(Request, ValidationError)] = [
        (request(id: ""), .init(.identifier, "identifier is empty")),
        (request(id: String(repeating: "a", count: 256)),
         .init(.identifier, "identifier is 256 bytes long (UTF-8); the limit is 255")),
        (request(id: String(repeating: "é", count: 128)),
         .init(.identifier, "identifier is 256 bytes long (UTF-8); the limit is 255")),
        (request(id: "ab\u{7}c"),
         .init(.identifier, "identifier 'ab?c' contains the control character U+0007 at position 3; identifiers must be printable")),
        (request(id: "x\u{7F}"),
         .init(.identifier, "identifier 'x?' contains the control character U+007F at position 2; identifiers must be printable")),
        (request(id: "é\u{85}"),
         .init(.identifier, "identifier 'é?' contains the control character U+0085 at position 2; identifiers must be printable")),
        (request(id: "\nx"),
         .init(.identifier, "identifier '?x' contains the control character U+000A at position 1; identifiers must be printable")),
        (request(title: "", body: ""), .init(.emptyContent, "request 'water' has neither a title nor a body; give at least one")),
        (request(relevance: 1.5), .init(.relevance, "relevance 1.5 is outside 0...1")),
        (request(relevance: -0.1), .init(.relevance, "relevance -0.1 is outside 0...1")),
        (request(relevance: .nan), .init(.relevance, "relevance nan is not a number between 0 and 1")),
        (request(relevance: .infinity), .init(.relevance, "relevance inf is not a number between 0 and 1")),
        (request(trigger: .interval(.zero, repeats: false)), .init(.interval, "interval 0 must be longer than zero")),
        (request(trigger: .interval(.seconds(-5), repeats: true)), .init(.interval, "interval -5s must be longer than zero")),
        (request(trigger: .interval(.seconds(30), repeats: true)),
         .init(.interval, "repeating interval 30s is shorter than the minimum of 60s")),
        (request(trigger: .interval(Span(nanoseconds: 59_999_999_999), repeats: true)),
         .init(.interval, "repeating interval 59.999999s 999ns is shorter than the minimum of 60s")),
        (request(trigger: .date(ISO8601.parse("2026-01-01T09:00:00Z")!)),
         .init(.pastDate, "date 2026-01-01T09:00:00Z is in the past (it is now 2026-06-01T12:00:00Z)")),
        (request(trigger: .date(ISO8601.parse("2026-06-01T12:00:00Z")!)),
         .init(.pastDate, "date 2026-06-01T12:00:00Z is in the past (it is now 2026-06-01T12:00:00Z)")),
        (request(image: "icons/water.png"),
         .init(.image, "image 'icons/water.png' is not an absolute path; give the full path, starting with '/'")),
        (request(image: "/usr/share/icons/fire.png"), .init(.image, "image '/usr/share/icons/fire.png' does not exist")),
    ]

    @Test(arguments: bad)
    func refusesBadRequestsSayingWhy(request: Request, error: ValidationError) {
        #expect(throws: error) { try Self.check(request) }
    }

    @Test func parsesInterruptionLevels() throws {
        #expect(try InterruptionLevel.parse("passive") == .passive)
        #expect(try InterruptionLevel.parse("Active") == .active)
        #expect(try InterruptionLevel.parse("time-sensitive") == .timeSensitive)
        #expect(try InterruptionLevel.parse("timeSensitive") == .timeSensitive)
        #expect(try InterruptionLevel.parse("CRITICAL") == .critical)
        #expect(throws: ValidationError(.level, "interruption level 'urgent' is not one of passive, active, time-sensitive, critical")) {
            try InterruptionLevel.parse("urgent")
        }
    }
}
