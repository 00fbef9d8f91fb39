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

    static let zones = ZoneContext(local: .utc, named: { name in
        name == "UTC" ? .utc : DateTimeInputTests.zone(name)
    })

    /// The first deadline, with only /usr/share/icons/water.png taken as an image that can be shown.
    @discardableResult
    static func check(_ r: Request) throws -> Deadline {
        try r.validate(now: now, zones: zones, imageProblem: { $0 == "/usr/share/icons/water.png" ? nil : "does not exist" })
    }

    static func calendar(_ spec: String, zone: String? = nil) -> Trigger {
        .calendar(CalendarTrigger(spec: spec, zone: zone))
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
        try Self.check(Self.request(trigger: Self.calendar("Mon..Fri 09:00", zone: "Europe/Madrid")))
        try Self.check(Self.request(trigger: .date(WallTime.latestSupported)))
        var limits = Self.request()
        limits.priority = 0
        limits.maxLate = .seconds(1)
        try Self.check(limits)
        limits.priority = 99
        try Self.check(limits)
    }

    @Test func theFirstDeadlineIsReturnedAndLiesAhead() throws {
        #expect(try Self.check(Self.request()) == .boot(BootTime(nanoseconds: 605_000_000_000), bootID: "boot-a",
                                                      wallEstimate: ISO8601.parse("2026-06-01T12:10:00Z")!))
        #expect(try Self.check(Self.request(trigger: Self.calendar("*-*-* 14:00", zone: "Europe/Madrid")))
            == .wall(ISO8601.parse("2026-06-02T12:00:00Z")!))
        #expect(try Self.check(Self.request(trigger: Self.calendar("2199-12-31 23:59:59 UTC")))
            == .wall(ISO8601.parse("2199-12-31T23:59:59Z")!))
    }

    static func withPriority(_ p: Int) -> Request {
        var r = request()
        r.priority = p
        return r
    }

    static func withMaxLate(_ span: Span) -> Request {
        var r = request()
        r.maxLate = span
        return r
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
        (request(image: "/usr/share/icons/water.png\0.txt"),
         .init(.image, "image path '/usr/share/icons/water.png?.txt' contains a NUL byte")),
        (withPriority(1000), .init(.priority, "priority 1000 is not a class from 0 (highest) to 99 (lowest)")),
        (withPriority(-7), .init(.priority, "priority -7 is not a class from 0 (highest) to 99 (lowest)")),
        (withMaxLate(.seconds(-1)), .init(.maxLate, "maxLate -1s must be longer than zero, like '30min'")),
        (withMaxLate(.zero), .init(.maxLate, "maxLate 0 must be longer than zero, like '30min'")),
        // Spans and dates at the edges of 64 bits: refused, never wrapped into the past (a storm) or the far future.
        (request(trigger: .interval(Span(nanoseconds: .max), repeats: true)),
         .init(.interval, "interval 292y 3month 1w 16h 17min 16.854775s 807ns is too long: it would end after "
             + "2199-12-31T23:59:59Z, the last moment aviso can schedule")),
        (request(trigger: .interval(.seconds(290 * 31_557_600), repeats: false)),
         .init(.interval, "interval 290y is too long: it would end after 2199-12-31T23:59:59Z, the last moment aviso can schedule")),
        (request(trigger: .interval(Span(nanoseconds: .min), repeats: false)),
         .init(.interval, "interval -292y 3month 1w 16h 17min 16.854775s 807ns must be longer than zero")),
        (request(trigger: .date(WallTime(nanoseconds: .min))),
         .init(.dateTime, "date 1677-09-21T00:12:43Z is outside the range aviso can schedule "
             + "(1970-01-01T00:00:00Z to 2199-12-31T23:59:59Z)")),
        (request(trigger: .date(WallTime(nanoseconds: .max))),
         .init(.dateTime, "date 2262-04-11T23:47:16Z is outside the range aviso can schedule "
             + "(1970-01-01T00:00:00Z to 2199-12-31T23:59:59Z)")),
        (request(trigger: .date(WallTime.latestSupported + Span(nanoseconds: 1))),
         .init(.dateTime, "date 2200-01-01T00:00:00Z is outside the range aviso can schedule "
             + "(1970-01-01T00:00:00Z to 2199-12-31T23:59:59Z)")),
        // Calendar triggers that can never fire, and zones that do not exist.
        (request(trigger: calendar("2020-01-01")),
         .init(.calendar, "OnCalendar: '2020-01-01' never elapses after 2026-06-01T12:00:00Z (aviso schedules up to "
             + "2199-12-31T23:59:59Z); nothing would ever be shown")),
        (request(trigger: calendar("*-02-30")),
         .init(.calendar, "OnCalendar: '*-02-30' never elapses after 2026-06-01T12:00:00Z (aviso schedules up to "
             + "2199-12-31T23:59:59Z); nothing would ever be shown")),
        (request(trigger: calendar("Tue 2026-02-29")),
         .init(.calendar, "OnCalendar: 'Tue 2026-02-29' never elapses after 2026-06-01T12:00:00Z (aviso schedules up to "
             + "2199-12-31T23:59:59Z); nothing would ever be shown")),
        (request(trigger: calendar("2262-01-01")), .init(.calendar, "OnCalendar: '2262-01-01' — year 2262 is out of range (1970...2199)")),
        (request(trigger: calendar("daily", zone: "Europe/Nowhere")),
         .init(.timeZone, "unknown time zone 'Europe/Nowhere'; give a name of the tz database like Europe/Madrid or UTC")),
        (request(trigger: calendar("daily", zone: "/etc/passwd")),
         .init(.timeZone, "unknown time zone '/etc/passwd'; give a name of the tz database like Europe/Madrid or UTC")),
        (request(trigger: calendar("daily", zone: "local")),
         .init(.timeZone, "unknown time zone 'local'; give a name of the tz database like Europe/Madrid or UTC")),
        (request(trigger: calendar("daily", zone: "")),
         .init(.timeZone, "time zone '' is empty; give a name like Europe/Madrid, or none to follow the local zone")),
        (request(trigger: calendar("*-*-* 09:00 Mars/Olympus")),
         .init(.timeZone, "unknown time zone 'Mars/Olympus'; give a name of the tz database like Europe/Madrid or UTC")),
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
