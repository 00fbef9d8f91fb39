import AvisoCore
@testable import AvisoDaemon
import AvisoProtocol
import AvisoTestSupport
import Foundation
import Testing

/// Zones for tests: the system database for names, Europe/Madrid as the local zone.
let testZones = ZoneLookup.system(environment: [:]).withLocal("Europe/Madrid")

extension ZoneLookup {
    func withLocal(_ name: String) -> ZoneLookup {
        let load = self.load
        return ZoneLookup(local: { load(name)! }, load: load)
    }
}

private func parse(_ text: String) -> ReminderFile.Result {
    ReminderFile.parse(Array(text.utf8), file: "/r/test.conf", zones: testZones)
}

struct ReminderFileTests {
    @Test func everyNonCalendarKeyIsRead() throws {
        let result = parse("""
            # a comment
            [Reminder haircut]
            Title=Haircut
            Subtitle=Four weeks
            Body=Line one\\nLine two
            Every=28d
            Thread=self-care
            Category=reminder
            Relevance=0.25
            Level=time-sensitive
            Priority=7
            Image=/usr/share/pixmaps/x.png
            MaxLate=2h

            [Reminder passport]
            Title=Passport
            At=2030-03-02 08:00
            TimeZone=America/New_York
            """)
        #expect(result.errors.isEmpty, "\(result.errors)")
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        #expect(result.reminders.map(\.request.id) == ["haircut", "passport"])
        #expect(result.reminders.map(\.line) == [2, 15])
        #expect(result.reminders.allSatisfy { $0.file == "/r/test.conf" })
        let haircut = result.reminders[0].request
        #expect(haircut.content == Content(
            title: "Haircut", subtitle: "Four weeks", body: "Line one\nLine two", threadID: "self-care",
            categoryID: "reminder", relevance: 0.25, level: .timeSensitive, image: "/usr/share/pixmaps/x.png"))
        #expect(haircut.trigger == .interval(.seconds(28 * 86_400), repeats: true))
        #expect(haircut.priority == 7)
        #expect(haircut.maxLate == .seconds(7_200))
        // 08:00 in New York on 2 March 2030 (EST, UTC-5) is 13:00 UTC.
        #expect(result.reminders[1].request.trigger == .date(ISO8601.parse("2030-03-02T13:00:00Z")!))
    }

    /// A group's values by key number: every known key, given in any order, a key given again, one taken back.
    @Test func everyKnownKeyIsFoundByItsNumber() {
        let keys = ReminderFile.Key.allCases
        #expect(keys.count <= 15, "a key's position is kept in 4 bits")
        #expect(Set(keys.map(\.name)) == ReminderFile.knownKeys)
        #expect(keys.allSatisfy { ReminderFile.Key(named: $0.name) == $0 })
        #expect(ReminderFile.Key(named: "title") == nil, "key names are case-sensitive, as in GKeyFile")
        var g = SplitMix(seed: 5)
        for _ in 0..<50 {
            var values = ReminderValues()
            var expected: [ReminderFile.Key: (String, Int?)] = [:]
            for (n, key) in keys.shuffled(using: &g).enumerated() where Bool.random(using: &g) {
                values[key] = ("v\(n)", n)
                expected[key] = ("v\(n)", n)
            }
            if let again = expected.keys.randomElement(using: &g) {
                values[again] = ("again", nil)
                expected[again] = ("again", nil)
            }
            if let gone = expected.keys.randomElement(using: &g) {
                values[gone] = nil
                expected[gone] = nil
            }
            for key in keys {
                #expect(values[key]?.value == expected[key]?.0 && values[key]?.line == expected[key]?.1, "\(key)")
            }
        }
    }

    /// A group name's prefix is found as `hasPrefix` and `dropFirst` find it, also where the bytes alone would say
    /// otherwise (an accent joining the prefix's last space), and so is a name with nothing to trim.
    @Test func groupPrefixesAndTrimmingMatchTheCharacterOperations() {
        let pieces = ["Reminder ", "Item ", "Action ", "a", " ", "\t", "\u{301}", "é", "e\u{301}", "👍🏽", "r0", "\r"]
        var g = SplitMix(seed: 11)
        for _ in 0..<20_000 {
            let name = (0..<Int.random(in: 0...4, using: &g)).map { _ in pieces.randomElement(using: &g)! }.joined()
            for prefix in ["Reminder ", "Item ", "Action "] {
                let expected = name.hasPrefix(prefix) ? name.dropFirst(prefix.count) : nil
                #expect(name.after(asciiPrefix: prefix) == expected, "\(Array(name.unicodeScalars))")
            }
            var s = Substring(name)
            while let c = s.first, " \t".contains(c) { s = s.dropFirst() }
            while let c = s.last, " \t".contains(c) { s = s.dropLast() }
            #expect(name.trimmed(" \t") == String(s), "\(Array(name.unicodeScalars))")
        }
    }

    @Test func atWithoutAZoneIsReadInTheLocalZone() {
        let result = parse("[Reminder x]\nTitle=x\nAt=2030-07-01 09:00\n")
        // Madrid is UTC+2 in July.
        #expect(result.reminders.first?.request.trigger == .date(ISO8601.parse("2030-07-01T07:00:00Z")!))
    }

    @Test(arguments: [
        ("[Reminder x]\nTitle=x\n", 1, "OnCalendar=, At= or Every="),
        ("[Reminder x]\nTitle=x\nAt=2030-01-01 09:00\nEvery=1h\n", 4, "only one"),
        ("[Reminder x]\nTitle=x\nEvery=30s\n", 3, "minimum"),
        ("[Reminder x]\nTitle=x\nEvery=soon\n", 3, "Every"),
        ("[Reminder x]\nEvery=1h\n", 1, "neither Title= nor Body="),
        ("[Reminder x]\nTitle=x\nEvery=1h\nRelevance=2\n", 4, "Relevance"),
        ("[Reminder x]\nTitle=x\nEvery=1h\nLevel=loud\n", 4, "Level"),
        ("[Reminder x]\nTitle=x\nEvery=1h\nPriority=100\n", 4, "Priority"),
        ("[Reminder x]\nTitle=x\nEvery=1h\nImage=x.png\n", 4, "absolute path"),
        ("[Reminder x]\nTitle=x\nEvery=1h\nMaxLate=0\n", 4, "MaxLate"),
        ("[Reminder x]\nTitle=x\nAt=2030-13-01 09:00\n", 3, "month 13"),
        ("[Reminder x]\nTitle=x\nAt=2030-01-01 09:00\nTimeZone=Mars/Olympus\n", 4, "Mars/Olympus"),
        ("[Reminder x]\nTitle=x\nOnCalendar=Mon..Fry 09:00\n", 3, "Fry"),
        ("[Reminder x]\nTitle=x\nOnCalendar=daily\nDST=sometimes\n", 4, "DST"),
        ("[Reminder ]\nTitle=x\nEvery=1h\n", 1, "identifier is empty"),
        ("# ok\n[Reminder x]\nTitle=x\nthis is not a key\n", 4, "syntax"),
    ])
    func aMistakeIsAnErrorWithItsLine(text: String, line: Int, reason: String) throws {
        let result = parse(text)
        #expect(result.reminders.isEmpty, "a file with an error declares nothing")
        let problem = try #require(result.errors.first)
        #expect(problem.file == "/r/test.conf")
        #expect(problem.line == line, "\(problem.message)")
        #expect(problem.message.contains(reason), "\(problem.message)")
    }

    @Test func itemsAreReadWithEveryKey() throws {
        let result = parse("""
            [Item water]
            Title=Water
            Kind=daily
            Repeat=90min
            From=07:30
            To=22:00
            Goal=8
            Unit=glasses
            Body={done} of {goal} {unit}
            Category=item
            Priority=50

            [Item gym]
            Kind=weekly
            Times=3
            WeekStart=sun
            At=18:00

            [Item haircut]
            Kind=interval
            Every=28d
            NoLogBody=Log the next one

            [Item groceries]
            Kind=event
            """)
        #expect(result.errors.isEmpty, "\(result.errors)")
        let items = Dictionary(uniqueKeysWithValues: result.items.map { ($0.item.name, $0) })
        let water = try #require(items["water"])
        #expect(water.line == 1)
        #expect(water.item.kind == .daily(Item.Repeating(every: .seconds(5400), from: TimeOfDay(minutes: 450),
                                                         to: TimeOfDay(minutes: 1320), goal: 8, unit: "glasses")))
        #expect(water.item.title == "Water")
        #expect(water.item.body == "{done} of {goal} {unit}")
        #expect(water.item.category == "item")
        #expect(water.item.priority == 50)
        #expect(items["gym"]?.item.kind == .weekly(times: 3, weekStart: 0))
        #expect(items["gym"]?.item.at == TimeOfDay(minutes: 18 * 60))
        #expect(items["haircut"]?.item.kind == .interval(days: 28))
        #expect(items["haircut"]?.item.title == "haircut")
        #expect(items["haircut"]?.item.noLogBody == "Log the next one")
        #expect(items["groceries"]?.item.kind == .event)
        #expect(items["groceries"]?.item.at == TimeOfDay(minutes: 9 * 60))
    }

    @Test(arguments: [
        ("[Item x]\nTitle=x\n", 1, "no Kind="),
        ("[Item x]\nKind=monthly\n", 2, "Kind='monthly' is not one of interval, daily, weekly, event"),
        ("[Item x]\nKind=interval\n", 2, "needs Every="),
        ("[Item x]\nKind=interval\nEvery=36h\n", 3, "whole number of days"),
        ("[Item x]\nKind=weekly\nTimes=9\n", 3, "Times='9'"),
        ("[Item x]\nKind=weekly\nWeekStart=Someday\n", 3, "WeekStart='Someday'"),
        ("[Item x]\nKind=daily\nGoal=8\n", 3, "Goal= needs Repeat="),
        ("[Item x]\nKind=daily\nRepeat=30s\n", 3, "from 1min to 24h"),
        ("[Item x]\nKind=daily\nRepeat=1h\nFrom=21:00\nTo=08:00\n", 5, "must come before"),
        ("[Item x]\nKind=event\nEvery=7d\n", 3, "Every= applies to Kind=interval, not Kind=event"),
        ("[Item x]\nKind=event\nAt=25:00\n", 3, "At=:"),
        ("[Item x]\nKind=event\nBody=It has been {dayz}\n", 3, "unknown placeholder '{dayz}'"),
        ("[Item x]\nKind=event\nPriority=high\n", 3, "Priority='high'"),
        ("[Item ]\nKind=event\n", 1, "identifier is empty"),
    ])
    func anItemMistakeIsAnErrorWithItsLine(text: String, line: Int, reason: String) throws {
        let result = parse(text)
        #expect(result.items.isEmpty)
        let problem = try #require(result.errors.first)
        #expect(problem.line == line, "\(problem.message)")
        #expect(problem.message.contains(reason), "\(problem.message)")
    }

    @Test func unknownKeysAndGroupsAreWarningsWithTheirLines() {
        let result = parse("[Reminder x]\nTitle=x\nEvery=1h\nColour=red\n[Other]\nA=1\n")
        #expect(result.errors.isEmpty)
        #expect(result.reminders.map(\.request.id) == ["x"])
        #expect(result.warnings.map(\.line) == [4, 5])
        #expect(result.warnings.first?.message.contains("Colour") == true)
    }

    @Test func garbageBytesAreAnErrorNotACrash() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            let bytes = (0..<Int.random(in: 0..<2048, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let result = ReminderFile.parse(bytes, file: "/r/junk.conf", zones: testZones)
            #expect(result.reminders.isEmpty || result.errors.isEmpty)
        }
        let latin1 = ReminderFile.parse(Array("[Reminder caf".utf8) + [0xE9] + Array("]\nTitle=x\n".utf8),
                                        file: "/r/l.conf", zones: testZones)
        #expect(latin1.errors.first?.message.contains("UTF-8") == true)
        #expect(latin1.errors.first?.line == 1)
    }

    @Test func theShippedExamplesDeclareTheirRemindersWithoutWarnings() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("config/reminders").path
        let reminders = ReminderDirectory(path: directory, zones: testZones)
        reminders.reload()
        #expect(reminders.warnings.isEmpty, "\(reminders.warnings)")
        // OnCalendar= reminders need the core's calendar trigger; until it lands they are the only errors.
        #expect(reminders.problems.filter { !$0.message.contains("not supported by this build") }.isEmpty,
                "\(reminders.problems)")
        for id in ["haircut", "passport"] { #expect(reminders.reminders[id] != nil, "\(id)") }
        if reminders.problems.isEmpty {
            for id in ["medication", "water", "water-half", "weekly-review"] { #expect(reminders.reminders[id] != nil, "\(id)") }
        }
        // Every category a shipped reminder names is declared, and the actions and categories have no mistakes.
        let example = URL(fileURLWithPath: directory).deletingLastPathComponent().appendingPathComponent("aviso.conf").path
        let book = CategoryBook(configuration: try #require(ConfigLoader.load(path: example).configuration), reminders: reminders)
        #expect(book.problems.isEmpty, "\(book.problems)")
        let declared = reminders.reminders
        let named = Set(declared.keys.compactMap { declared[$0]?.request.content.categoryID })
        #expect(named == ["reminder", "habit", "work", "backup"])
        // The example hook is found from the file that declares it, and runs.
        let hook = try #require(book.category("backup")?.hook)
        #expect(hook.argv == [directory + "/../hooks/disk-usage"] && access(hook.argv[0], X_OK) == 0)
        for category in named { #expect(book.problem(naming: category) == nil, "\(category)") }
        #expect(book.categories.values.allSatisfy { !$0.value.actions.isEmpty })
        let text = try ["health.conf", "routine.conf", "chores.conf"].map {
            try String(contentsOfFile: directory + "/" + $0, encoding: .utf8)
        }.joined()
        for key in ReminderFile.knownKeys { #expect(text.contains("\n\(key)="), "the examples use \(key)=") }
        #expect(Set(reminders.items.keys) == ["corte-de-pelo", "leer", "gimnasio", "super", "agua"])
        let items = try String(contentsOfFile: directory + "/items.conf", encoding: .utf8)
        for key in ReminderFile.itemKeys { #expect(items.contains("\n\(key)="), "the item examples use \(key)=") }
    }
}
