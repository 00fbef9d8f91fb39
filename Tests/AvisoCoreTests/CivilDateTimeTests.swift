import AvisoCore
import Testing

struct CivilDateTimeTests {
    /// Days since the epoch, as `date -u -d DATE +%s` / 86400 gives them.
    static let days: [(Int, Int, Int, Int64)] = [
        (1970, 1, 1, 0), (1969, 12, 31, -1), (2000, 3, 1, 11_017), (2000, 2, 29, 11_016),
        (2026, 12, 1, 20_788), (1600, 1, 1, -135_140), (2400, 12, 31, 157_419), (1900, 3, 1, -25_508),
    ]

    @Test(arguments: days)
    func convertsBothWays(year: Int, month: Int, day: Int, expected: Int64) {
        #expect(CivilDateTime.days(fromCivil: year, month, day) == expected)
        let back = CivilDateTime.civil(fromDays: expected)
        #expect(back.year == year && back.month == month && back.day == day)
    }

    @Test func everyDayOfFourCenturiesRoundTripsAndIsConsecutive() {
        var previous: (Int, Int, Int)? = nil
        for d in Int64(-146_097)...Int64(146_097) {
            let c = CivilDateTime.civil(fromDays: d)
            #expect(CivilDateTime.days(fromCivil: c.year, c.month, c.day) == d)
            if let (y, m, dd) = previous {
                let nextDay = dd < CivilDateTime.daysIn(month: m, year: y)
                let expected = nextDay ? (y, m, dd + 1) : (m == 12 ? (y + 1, 1, 1) : (y, m + 1, 1))
                if (c.year, c.month, c.day) != expected { Issue.record("after \(y)-\(m)-\(dd) came \(c)"); return }
            }
            previous = (c.year, c.month, c.day)
        }
    }

    @Test func weekdaysAreKnown() {
        #expect(CivilDateTime(year: 1970, month: 1, day: 1).weekday == 4)  // Thursday
        #expect(CivilDateTime(year: 2026, month: 3, day: 8).weekday == 0)  // Sunday
        #expect(CivilDateTime(year: 1969, month: 12, day: 28).weekday == 0)
    }

    @Test func validityChecksMonthLengthsAndLeapYears() {
        #expect(CivilDateTime(year: 2024, month: 2, day: 29).isValid)
        #expect(!CivilDateTime(year: 2026, month: 2, day: 29).isValid)
        #expect(!CivilDateTime(year: 1900, month: 2, day: 29).isValid)
        #expect(CivilDateTime(year: 2000, month: 2, day: 29).isValid)
        #expect(!CivilDateTime(year: 2026, month: 4, day: 31).isValid)
        #expect(!CivilDateTime(year: 2026, month: 13, day: 1).isValid)
        #expect(!CivilDateTime(year: 2026, month: 1, day: 1, hour: 24).isValid)
    }

    @Test func describesItselfReadably() {
        #expect(CivilDateTime(year: 2026, month: 3, day: 8, hour: 2, minute: 30).description == "2026-03-08 02:30:00")
    }
}
