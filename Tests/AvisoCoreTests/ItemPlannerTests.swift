import AvisoCore
import Testing

/// The seed's examples and each kind's rules, with injected time, in Madrid (DST) unless a test says otherwise.
struct ItemPlannerTests {
    static let madrid = DateTimeInputTests.zone("Europe/Madrid")!
    static let newYork = DateTimeInputTests.zone("America/New_York")!

    /// The instant of a local time in `zone` (the first of a repeated hour).
    static func local(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int = 0, in zone: ZoneRules = madrid) -> WallTime {
        switch zone.resolve(CivilDateTime(year: y, month: mo, day: d, hour: h, minute: mi)) {
        case .unique(let t), .overlap(let t, _), .gap(_, let t): t
        }
    }

    /// A time of day, HH:MM.
    static func at(_ hour: Int, _ minute: Int = 0) -> TimeOfDay { TimeOfDay(minutes: hour * 60 + minute) }

    static func plan(_ item: Item, _ log: [ItemLogEntry], now: WallTime, zone: ZoneRules = madrid,
                     snoozed: WallTime? = nil) -> [ItemReminder] {
        ItemPlanner.plan(item, log: log, now: now, zone: zone, snoozedUntil: snoozed)
    }

    // MARK: interval

    @Test func intervalIsDueNDaysAfterTheDayOfTheLastLogAtThePersonsHour() {
        let haircut = Item(name: "haircut", kind: .interval(days: 28))
        let log = [ItemLogEntry(at: Self.local(2026, 11, 2, 18, 40))]
        let plan = Self.plan(haircut, log, now: Self.local(2026, 11, 29, 12))
        #expect(plan == [ItemReminder(at: Self.local(2026, 11, 30, 9), body: "It's time. Last time was 28 days ago.")])
    }

    @Test func anIntervalWhoseMomentPassedComesTheNextDayAtTheSameHour() {
        let haircut = Item(name: "haircut", kind: .interval(days: 28), at: Self.at(19, 30))
        let log = [ItemLogEntry(at: Self.local(2026, 11, 2, 18, 40))]
        // Due 2026-11-30 19:30; at 20:00 that day it has passed.
        let plan = Self.plan(haircut, log, now: Self.local(2026, 11, 30, 20))
        #expect(plan.map(\.at) == [Self.local(2026, 12, 1, 19, 30)])
        #expect(plan.first?.body == "It's time. Last time was 29 days ago.")
    }

    @Test func anIntervalNeverLoggedIsDueAtTheNextHour() {
        let item = Item(name: "filter", kind: .interval(days: 90), noLogBody: "Change the filter, then log it.")
        let plan = Self.plan(item, [], now: Self.local(2026, 11, 30, 10))
        #expect(plan == [ItemReminder(at: Self.local(2026, 12, 1, 9), body: "Change the filter, then log it.")])
    }

    // MARK: daily

    @Test func aDailyHabitNotDoneTodayIsDueTodayAndCarriesTheStreak() {
        let reading = Item(name: "reading", kind: .daily(nil), at: Self.at(21))
        let log = (1...12).map { ItemLogEntry(at: Self.local(2026, 11, 29, 22) - .seconds(Int64($0 - 1) * 86_400)) }
        let plan = Self.plan(reading, log, now: Self.local(2026, 11, 30, 10))
        #expect(plan == [ItemReminder(at: Self.local(2026, 11, 30, 21), body: "Done it today? Your streak: 12.")])
    }

    @Test func aDailyHabitDoneTodayWaitsForTomorrowWithTodayInItsStreak() {
        let reading = Item(name: "reading", kind: .daily(nil), at: Self.at(21))
        let log = [Self.local(2026, 11, 29, 22), Self.local(2026, 11, 30, 8)].map { ItemLogEntry(at: $0) }
        let plan = Self.plan(reading, log, now: Self.local(2026, 11, 30, 10))
        #expect(plan == [ItemReminder(at: Self.local(2026, 12, 1, 21), body: "Done it today? Your streak: 2.")])
    }

    @Test func aDailyHabitWhoseHourPassedUndoneWaitsForTomorrow() {
        let reading = Item(name: "reading", kind: .daily(nil), at: Self.at(21))
        let plan = Self.plan(reading, [ItemLogEntry(at: Self.local(2026, 11, 29, 22))], now: Self.local(2026, 11, 30, 22))
        // Today has no log yet, so tomorrow's reminder counts no streak unless today is logged before then.
        #expect(plan == [ItemReminder(at: Self.local(2026, 12, 1, 21), body: "Done it today? Your streak: 0.")])
    }

    // MARK: daily with Repeat=

    static let water = Item(name: "water", kind: .daily(Item.Repeating(
        every: .seconds(90 * 60), from: at(8), to: at(21), goal: 8, unit: "glasses")))

    @Test func repeatsCountFromTheLastLogNotFromAGrid() {
        let plan = Self.plan(Self.water, [ItemLogEntry(at: Self.local(2026, 11, 30, 10, 15))], now: Self.local(2026, 11, 30, 10, 16))
        let today = [(11, 45), (13, 15), (14, 45), (16, 15), (17, 45), (19, 15), (20, 45)]
        let tomorrow = [(8, 0), (9, 30), (11, 0), (12, 30), (14, 0), (15, 30), (17, 0), (18, 30), (20, 0)]
        let expected = today.map { Self.local(2026, 11, 30, $0.0, $0.1) } + tomorrow.map { Self.local(2026, 12, 1, $0.0, $0.1) }
        #expect(plan.map(\.at) == expected)
        #expect(plan.first?.body == "1 of 8 glasses today. Log to add one.")
        #expect(plan.last?.body == "0 of 8 glasses today. Log to add one.")
    }

    @Test func beforeTheFirstLogOfTheDayTheFirstRepeatIsAtFrom() {
        let plan = Self.plan(Self.water, [], now: Self.local(2026, 11, 30, 6))
        #expect(plan.first?.at == Self.local(2026, 11, 30, 8))
        // Without a log the repeats keep the rhythm of From: 08:00, then 09:30 after 09:00.
        #expect(Self.plan(Self.water, [], now: Self.local(2026, 11, 30, 9)).first?.at == Self.local(2026, 11, 30, 9, 30))
    }

    @Test func aGoalReachedIsSilenceUntilTomorrow() {
        let log = (0..<8).map { ItemLogEntry(at: Self.local(2026, 11, 30, 8 + $0)) }
        let plan = Self.plan(Self.water, log, now: Self.local(2026, 11, 30, 16))
        #expect(plan.first?.at == Self.local(2026, 12, 1, 8))
        #expect(plan.allSatisfy { $0.at >= Self.local(2026, 12, 1, 8) })
        #expect(plan.first?.body == "0 of 8 glasses today. Log to add one.")
        // A count of 8 in one entry reaches it as well.
        #expect(Self.plan(Self.water, [ItemLogEntry(at: Self.local(2026, 11, 30, 9), count: 8)],
                          now: Self.local(2026, 11, 30, 16)).first?.at == Self.local(2026, 12, 1, 8))
    }

    @Test func repeatsAreCappedAt24PerItem() {
        let often = Item(name: "stretch", kind: .daily(Item.Repeating(every: .seconds(15 * 60))))
        let plan = Self.plan(often, [], now: Self.local(2026, 11, 30, 7))
        #expect(plan.count == ItemPlanner.maximumPerItem)
        #expect(plan.first?.at == Self.local(2026, 11, 30, 8))
        #expect(plan.last?.at == Self.local(2026, 11, 30, 13, 45))
    }

    @Test func aDayEndingAt24IsNotPlannedTwiceAtMidnight() {
        let allDay = Item(name: "water", kind: .daily(Item.Repeating(every: .seconds(3600), from: Self.at(0), to: Self.at(24))))
        let plan = Self.plan(allDay, [], now: Self.local(2026, 11, 30, 21, 30))
        #expect(plan.prefix(4).map(\.at) == [22, 23, 24, 25].map { Self.local(2026, 11, 30, 0) + .seconds(Int64($0) * 3600) })
        #expect(Set(plan.map(\.at)).count == plan.count)
        #expect(plan.count == ItemPlanner.maximumPerItem)
    }

    @Test func repeatsAreElapsedTimeAcrossTheRepeatedHourOfAutumn() {
        // 2026-10-25 in Madrid: 02:00-03:00 happens twice. Hourly from 01:00 to 04:00 is five reminders that day.
        let hourly = Item(name: "check", kind: .daily(Item.Repeating(every: .seconds(3600), from: Self.at(1), to: Self.at(4))))
        let plan = Self.plan(hourly, [], now: Self.local(2026, 10, 25, 0, 30)).filter { $0.at < Self.local(2026, 10, 25, 12) }
        let start = Self.local(2026, 10, 25, 1)
        #expect(plan.map(\.at) == (0..<5).map { start + .seconds(Int64($0) * 3600) })
    }

    // MARK: weekly

    @Test func aWeeklyHabitShortOfItsGoalIsDueOnTheLastDayOfTheWeek() {
        let gym = Item(name: "gym", kind: .weekly(times: 3, weekStart: 1), at: Self.at(18))
        // Sunday 2026-11-29 ends the week that started on Monday 2026-11-23.
        let log = [Self.local(2026, 11, 24, 19), Self.local(2026, 11, 26, 19)].map { ItemLogEntry(at: $0) }
        let plan = Self.plan(gym, log, now: Self.local(2026, 11, 29, 10))
        #expect(plan == [ItemReminder(at: Self.local(2026, 11, 29, 18), body: "2 of 3 this week. Today is the last day.")])
    }

    @Test func aWeeklyHabitThatMetItsGoalWaitsForTheLastDayOfNextWeek() {
        let gym = Item(name: "gym", kind: .weekly(times: 3, weekStart: 1), at: Self.at(18))
        let log = [24, 26, 28].map { ItemLogEntry(at: Self.local(2026, 11, $0, 19)) }
        let plan = Self.plan(gym, log, now: Self.local(2026, 11, 29, 10))
        #expect(plan == [ItemReminder(at: Self.local(2026, 12, 6, 18), body: "0 of 3 this week. Today is the last day.")])
        // Weeks starting on Sunday end on Saturday.
        let sundayWeeks = Item(name: "gym", kind: .weekly(times: 3, weekStart: 0), at: Self.at(18))
        #expect(Self.plan(sundayWeeks, [], now: Self.local(2026, 11, 30, 10)).map(\.at) == [Self.local(2026, 12, 5, 18)])
    }

    // MARK: event

    @Test func anEventWithTwoLogsHasNoReminder() {
        let groceries = Item(name: "groceries", kind: .event)
        let log = [Self.local(2026, 11, 1, 18), Self.local(2026, 11, 8, 18)].map { ItemLogEntry(at: $0) }
        #expect(Self.plan(groceries, log, now: Self.local(2026, 11, 9, 10)).isEmpty)
    }

    @Test func groceriesEverySevenDaysAreRemindedOnDayEleven() {
        let groceries = Item(name: "groceries", kind: .event)
        let log = [1, 8, 15, 22].map { ItemLogEntry(at: Self.local(2026, 11, $0, 18)) }
        // 1.5 × 7 days after 2026-11-22 18:00 is 2026-12-03 06:00: that day's 09:00.
        let plan = Self.plan(groceries, log, now: Self.local(2026, 11, 23, 10))
        #expect(plan == [ItemReminder(at: Self.local(2026, 12, 3, 9), body: "Usually every 7 days, and it has been 11 days.")])
    }

    @Test func anEventWhoseDayPassedComesAtTheNextHour() {
        let groceries = Item(name: "groceries", kind: .event, body: "Cada {average} días normalmente, y ya van {days} días.")
        let log = [1, 8, 15, 22].map { ItemLogEntry(at: Self.local(2026, 11, $0, 18)) }
        let plan = Self.plan(groceries, log, now: Self.local(2026, 12, 5, 12))
        #expect(plan == [ItemReminder(at: Self.local(2026, 12, 6, 9), body: "Cada 7 días normalmente, y ya van 14 días.")])
    }

    // MARK: time zones and DST

    @Test(arguments: [
        // A 02:30 habit on the spring-forward day is at 03:00 CEST, the first instant after the gap.
        (ItemPlannerTests.local(2026, 3, 29, 0), WallTime(seconds: 1_774_746_000)),
        // On the autumn day it is the first 02:30 (CEST), not the repeated one.
        (ItemPlannerTests.local(2026, 10, 25, 0), WallTime(seconds: 1_792_888_200)),
    ])
    func thePersonsHourOnDSTDays(now: WallTime, expected: WallTime) {
        let item = Item(name: "late", kind: .daily(nil), at: Self.at(2, 30))
        #expect(Self.plan(item, [], now: now).map(\.at) == [expected])
    }

    @Test func theHourFollowsTheZone() {
        let item = Item(name: "pills", kind: .interval(days: 1))
        let log = [ItemLogEntry(at: WallTime(seconds: 1_796_126_400))]  // 2026-12-01 12:00Z
        let now = WallTime(seconds: 1_796_130_000)
        #expect(Self.plan(item, log, now: now, zone: Self.madrid).map(\.at) == [Self.local(2026, 12, 2, 9)])
        #expect(Self.plan(item, log, now: now, zone: Self.newYork).map(\.at) == [Self.local(2026, 12, 2, 9, in: Self.newYork)])
        // A day is a local day: 23:30 in New York is already tomorrow in Madrid.
        let lateLog = [ItemLogEntry(at: Self.local(2026, 11, 30, 23, 30, in: Self.newYork))]
        let daily = Item(name: "reading", kind: .daily(nil), at: Self.at(21))
        let nowNY = Self.local(2026, 11, 30, 23, 45, in: Self.newYork)
        #expect(Self.plan(daily, lateLog, now: nowNY, zone: Self.newYork).map(\.at) == [Self.local(2026, 12, 1, 21, in: Self.newYork)])
        #expect(Self.plan(daily, lateLog, now: nowNY, zone: Self.madrid).map(\.at) == [Self.local(2026, 12, 2, 21)])
    }

    // MARK: snooze, templates, summary

    @Test func aSnoozePutsAReminderThenAndDropsTheEarlierOnes() {
        let now = Self.local(2026, 11, 30, 10, 16)
        let log = [ItemLogEntry(at: Self.local(2026, 11, 30, 10, 15))]
        let plan = Self.plan(Self.water, log, now: now, snoozed: Self.local(2026, 11, 30, 14))
        #expect(plan.prefix(2).map(\.at) == [Self.local(2026, 11, 30, 14), Self.local(2026, 11, 30, 14, 45)])
        #expect(plan.first?.body == "1 of 8 glasses today. Log to add one.")
        // A snooze that has passed changes nothing.
        #expect(Self.plan(Self.water, log, now: now, snoozed: now - .seconds(1)) == Self.plan(Self.water, log, now: now))
    }

    @Test func templatesNameKnownPlaceholdersOnly() throws {
        try Item.validateTemplate("Llevas {done} de {goal} {unit} hoy. Toca Registrar para sumar uno.")
        let unknown = #expect(throws: ValidationError.self) { try Item.validateTemplate("{dayz} days") }
        #expect(unknown?.message.contains("unknown placeholder '{dayz}'") == true)
        let open = #expect(throws: ValidationError.self) { try Item.validateTemplate("{days days") }
        #expect(open?.message.contains("without its '}'") == true)
    }

    @Test func theSummarySaysWhatTheLogSays() {
        let log = [27, 28, 29, 30].map { ItemLogEntry(at: Self.local(2026, 11, $0, 8)) } + [ItemLogEntry(at: Self.local(2026, 11, 30, 9), count: 2)]
        let s = ItemPlanner.summary(Self.water, log: log, now: Self.local(2026, 11, 30, 12), zone: Self.madrid)
        #expect(s.last == Self.local(2026, 11, 30, 9))
        #expect(s.daysSince == 0)
        #expect(s.streak == 4)
        #expect(s.today == 3)
        #expect(s.entries == 5)
        #expect(s.averageInterval == .seconds((3 * 86_400 + 3600) / 4))
        let yesterday = ItemPlanner.summary(Self.water, log: Array(log.prefix(3)), now: Self.local(2026, 11, 30, 12), zone: Self.madrid)
        #expect(yesterday.streak == 3, "a day not over yet does not break the streak")
        #expect(yesterday.daysSince == 1)
    }

    @Test func theRequestIdentifierIsUniquePerInstant() {
        let item = Item(name: "water", kind: .event)
        #expect(item.requestID(at: WallTime(seconds: 1_796_126_400)) == "item-water-20261201T120000Z")
    }
}
