import AvisoCore
import Testing

struct ActionVerbTests {
    @Test(arguments: [
        ("snooze", ActionVerb.snooze(.seconds(600))),
        ("snooze 1h 30min", .snooze(.seconds(5400))),
        ("repeat", .showAgain),
        ("change", .change),
        ("dismiss", .dismiss),
        ("log", .log),
        ("open https://example.org/a?b=c", .open("https://example.org/a?b=c")),
        (#"exec notify-send "two words" 'it''s' a\ b"#, .exec(["notify-send", "two words", "its", "a b"])),
        (#"exec /bin/sh -c 'echo "$AVISO_ID"'"#, .exec(["/bin/sh", "-c", #"echo "$AVISO_ID""#])),
    ])
    func parsesEveryVerb(text: String, verb: ActionVerb) throws {
        #expect(try ActionVerb.parse(text) == verb)
        #expect(try ActionVerb.parse(verb.text) == verb, "the canonical text parses back")
    }

    @Test(arguments: [
        ("", "Run= is empty"),
        ("launch rockets", "unknown verb 'launch'"),
        ("snooze 30s", "shorter than 60s"),
        ("snooze soon", "time span 'soon'"),
        ("repeat twice", "'repeat' takes no argument"),
        ("log twice", "'log' takes no argument"),
        ("open", "'open' takes one URI"),
        ("exec", "'exec' needs a program"),
        ("exec 'unterminated", "unterminated ' quote"),
        (#"exec trailing\"#, "ends with a backslash"),
    ])
    func refusesWhatCannotRunSayingWhy(text: String, reason: String) {
        let error = #expect(throws: ValidationError.self) { try ActionVerb.parse(text) }
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
    }

    @Test func aCategoryKnowsItsActionsAndTheFreedesktopNames() {
        let c = NotificationCategory(name: "pills", actions: ["done", "later"], defaultAction: "done", dismissAction: "skip")
        #expect(c.referencedActions == ["done", "later", "skip"])
        #expect(NotificationCategory.isFreedesktop("im.received"))
        #expect(NotificationCategory.isFreedesktop("transfer"))
        #expect(!NotificationCategory.isFreedesktop("pills"))
        #expect(NotificationCategory.threadText("%u more reminders", folded: 2) == "2 more reminders")
        #expect(NotificationCategory.threadText("100% sure, %u%%", folded: 3) == "100% sure, 3%")
    }
}

struct ReleaseOrderTests {
    static let t = WallTime(seconds: 1_800_000_000)

    @Test func relevanceThenLevelThenDueThenIdentifier() {
        let keys = [
            ReleaseOrder.Key(relevance: nil, level: .critical, due: Self.t, id: "a"),
            ReleaseOrder.Key(relevance: 0.9, level: .passive, due: Self.t, id: "b"),
            ReleaseOrder.Key(relevance: 0.5, level: .active, due: Self.t, id: "c"),
            ReleaseOrder.Key(relevance: 0.5, level: .timeSensitive, due: Self.t + .seconds(1), id: "d"),
            ReleaseOrder.Key(relevance: 0.5, level: .active, due: Self.t - .seconds(1), id: "e"),
            ReleaseOrder.Key(relevance: 0.5, level: .active, due: Self.t - .seconds(1), id: "aa"),
        ]
        #expect(ReleaseOrder.sorted(keys, by: { $0 }).map(\.id) == ["b", "d", "aa", "e", "c", "a"])
    }

    @Test func theMostRelevantNamesTheSummaryAndLendsItsImage() {
        func item(_ id: String, _ title: String, _ relevance: Double?, image: String? = nil, level: InterruptionLevel = .active) -> SummaryText.Item {
            SummaryText.Item(id: id, content: Content(title: title, relevance: relevance, level: level, image: image),
                             due: Self.t, note: "(due at 09:00)")
        }
        let items = [item("w", "Water", 0.2), item("m", "Medication", 0.9, image: "/pills.png"), item("b", "Bins", nil, level: .timeSensitive)]
            + (0..<4).map { item("x\($0)", "Extra \($0)", 0.1) }
        let summary = SummaryText.compose(items)
        #expect(summary.title == "Medication and 6 more")
        #expect(summary.image == "/pills.png")
        #expect(summary.level == .timeSensitive, "the highest level among the lines")
        #expect(summary.body.split(separator: "\n").map(String.init) == [
            "• Medication (due at 09:00)", "• Water (due at 09:00)", "• Extra 0 (due at 09:00)", "• Extra 1 (due at 09:00)",
            "• Extra 2 (due at 09:00)", "+2 more",
        ])
        #expect(SummaryText.compose([item("w", "Water", nil)]).title == "Water")
    }

    @Test func levelsMapToTheirHints() {
        #expect(InterruptionLevel.passive.hints == LevelHints(urgency: 0, transient: true, suppressSound: true, resident: false, expireTimeout: -1))
        #expect(InterruptionLevel.active.hints.urgency == 1)
        #expect(InterruptionLevel.timeSensitive.hints.urgency == 1)
        #expect(InterruptionLevel.critical.hints == LevelHints(urgency: 2, transient: false, suppressSound: false, resident: true, expireTimeout: 0))
        #expect(!InterruptionLevel.active.breaksThroughQuiet && InterruptionLevel.timeSensitive.breaksThroughQuiet)
    }

    @Test func aHiddenPreviewShowsOnlyWhatItMay() {
        let c = Content(title: "Bank", subtitle: "PIN", body: "1234", image: "/card.png")
        #expect(Redaction.hidden(c, showTitle: true, placeholder: "Locked").title == "Bank")
        #expect(Redaction.hidden(c, showTitle: true, placeholder: "Locked").body == "Locked")
        let anonymous = Redaction.hidden(c, showTitle: false, placeholder: "Notification")
        #expect(anonymous.title == "Notification" && anonymous.body.isEmpty && anonymous.subtitle.isEmpty && anonymous.image == nil)
        #expect(Redaction.hides(.whenLocked, locked: true) && !Redaction.hides(.whenLocked, locked: false))
        #expect(Redaction.hides(.always, locked: false) && !Redaction.hides(.never, locked: true))
    }
}

struct QuietHoursTests {
    static func zone(_ name: String) -> ZoneRules { DateTimeInputTests.zone(name)! }
    static func at(_ iso: String) -> WallTime { ISO8601.parse(iso)! }

    @Test(arguments: [
        ("22:00-07:00", "2026-06-01T21:59:59+02:00", false), ("22:00-07:00", "2026-06-01T22:00:00+02:00", true),
        ("22:00-07:00", "2026-06-02T03:00:00+02:00", true), ("22:00-07:00", "2026-06-02T07:00:00+02:00", false),
        ("12:00-13:30;22:00-24:00", "2026-06-01T13:29:00+02:00", true), ("12:00-13:30;22:00-24:00", "2026-06-01T23:59:00+02:00", true),
        ("12:00-13:30;22:00-24:00", "2026-06-02T00:00:00+02:00", false),
    ])
    func rangesAreReadInLocalTime(hours: String, iso: String, quiet: Bool) throws {
        #expect(try QuietHours.parse(hours).contains(Self.at(iso), in: Self.zone("Europe/Madrid")) == quiet)
    }

    @Test(arguments: [
        // Crossing midnight, the end of the range.
        ("22:00-07:00", "Europe/Madrid", "2026-06-01T23:00:00+02:00", "2026-06-02T07:00:00+02:00"),
        ("22:00-07:00", "Europe/Madrid", "2026-06-02T08:00:00+02:00", "2026-06-02T22:00:00+02:00"),
        // Abutting ranges are one quiet stretch: no change at midnight.
        ("22:00-24:00;00:00-07:00", "Europe/Madrid", "2026-06-01T23:00:00+02:00", "2026-06-02T07:00:00+02:00"),
        // A boundary in the spring-forward gap takes effect at the first instant after it (03:00 CEST).
        ("01:00-02:30", "Europe/Madrid", "2026-03-29T01:30:00+01:00", "2026-03-29T03:00:00+02:00"),
        // In the repeated hour of the fall-back night, the first occurrence.
        ("00:00-02:30", "Europe/Madrid", "2026-10-25T01:00:00+02:00", "2026-10-25T02:30:00+02:00"),
        ("02:00-04:00", "America/New_York", "2026-11-01T00:30:00-04:00", "2026-11-01T02:00:00-05:00"),
    ])
    func theNextChangeIsWhereTheStateFlips(hours: String, zone: String, after: String, expected: String) throws {
        let quiet = try QuietHours.parse(hours)
        #expect(quiet.nextChange(after: Self.at(after), in: Self.zone(zone)) == Self.at(expected))
    }

    @Test(arguments: [("", "not a time of day"), ("22:00", "not a range"), ("25:00-07:00", "'25:00'"), ("07:00-07:00", "empty"),
                      ("7:00-08:00x", "'08:00x'")])
    func badRangesAreRefused(text: String, reason: String) {
        let error = #expect(throws: ValidationError.self) {
            let q = try QuietHours.parse(text)
            if q.ranges.isEmpty { throw ValidationError(.dateTime, "not a time of day") }
        }
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
    }

    @Test func anOverrideWinsWhileItLastsAndOffEndsWithTheRange() throws {
        let madrid = Self.zone("Europe/Madrid")
        let night = Self.at("2026-06-01T23:00:00+02:00")
        let day = Self.at("2026-06-01T12:00:00+02:00")
        var policy = QuietPolicy(hours: try QuietHours.parse("22:00-07:00"))
        #expect(policy.isQuiet(at: night, in: madrid) && !policy.isQuiet(at: day, in: madrid))

        policy.override = .on(until: day + .seconds(3600))
        #expect(policy.isQuiet(at: day, in: madrid))
        #expect(policy.nextChange(after: day, in: madrid) == day + .seconds(3600))
        #expect(!policy.isQuiet(at: day + .seconds(3600), in: madrid), "expired: the ranges apply again")

        policy.override = .on(until: nil)
        #expect(policy.nextChange(after: day, in: madrid) == nil, "quiet until turned off")

        let off = try #require(policy.turnedOff(at: night, in: madrid))
        #expect(off == .off(until: Self.at("2026-06-02T07:00:00+02:00")))
        policy.override = off
        #expect(!policy.isQuiet(at: night, in: madrid))
        #expect(policy.isQuiet(at: Self.at("2026-06-02T23:00:00+02:00"), in: madrid), "the next night is quiet again")
        #expect(policy.turnedOff(at: day, in: madrid) == nil, "outside the ranges there is nothing to turn off")
    }

    @Test func summaryTimesAreTheNextLocalTimeEvenOnDSTDays() throws {
        let times = try DailyTimes.parse("08:00; 18:00")
        let madrid = Self.zone("Europe/Madrid")
        #expect(times.next(after: Self.at("2026-06-01T07:00:00+02:00"), in: madrid) == Self.at("2026-06-01T08:00:00+02:00"))
        #expect(times.next(after: Self.at("2026-06-01T08:00:00+02:00"), in: madrid) == Self.at("2026-06-01T18:00:00+02:00"))
        #expect(times.next(after: Self.at("2026-06-01T19:00:00+02:00"), in: madrid) == Self.at("2026-06-02T08:00:00+02:00"))
        let gap = try DailyTimes.parse("02:30")
        #expect(gap.next(after: Self.at("2026-03-29T00:00:00+01:00"), in: madrid) == Self.at("2026-03-29T03:00:00+02:00"))
        #expect(throws: ValidationError.self) { try DailyTimes.parse("") }
        #expect(throws: ValidationError.self) { try DailyTimes.parse("24:00") }
    }
}
