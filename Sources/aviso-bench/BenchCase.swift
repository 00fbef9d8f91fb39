import Foundation

/// One calendar event of the next-elapse benchmark: the OnCalendar spec and the Foundation components that match
/// the same instants.
///
/// A weekday range or a minute step has no single `DateComponents`, so those cases carry one set of components per
/// alternative and Foundation's answer is the earliest of them; its cost is the sum, as a caller would pay it.
struct BenchCase {
    /// What the event is, for the per-case lines.
    let label: String
    /// The spec without a zone, in systemd's language.
    let spec: String
    /// Foundation's equivalent: the event elapses at the earliest of these.
    let components: [DateComponents]

    /// The realistic mix the README quotes: daily, weekdays, every quarter hour, monthly, yearly.
    static let mix: [BenchCase] = [
        BenchCase(label: "daily 09:00", spec: "*-*-* 09:00", components: [DateComponents(hour: 9, minute: 0, second: 0)]),
        BenchCase(
            label: "Mon..Fri 09:00", spec: "Mon..Fri 09:00",
            components: (2...6).map { DateComponents(hour: 9, minute: 0, second: 0, weekday: $0) }),
        BenchCase(
            label: "*:0/15", spec: "*:0/15",
            components: [0, 15, 30, 45].map { DateComponents(minute: $0, second: 0) }),
        BenchCase(label: "monthly", spec: "monthly", components: [DateComponents(day: 1, hour: 0, minute: 0, second: 0)]),
        BenchCase(
            label: "yearly", spec: "yearly", components: [DateComponents(month: 1, day: 1, hour: 0, minute: 0, second: 0)]),
    ]

    /// The zones every case is anchored to: a European and an American DST rule, and Lord Howe's 30-minute shift.
    static let zones = ["Europe/Madrid", "America/New_York", "Australia/Lord_Howe"]
}
