/// The component chains of many parsed calendar specs, each distinct chain kept once.
///
/// A chain ("09", "0/15", "Mon..Fri"'s days) is an array of its own; a model of 100,000 reminders with 20,000
/// distinct specs holds fewer than a hundred distinct chains ("09:30" and "10:30" share the minute). Equal arrays
/// share their storage, so a spec passed through `shared(_:)` costs its fields, not a buffer per field.
public struct CalendarChains {
    private var known: Set<[CalendarComponent]> = []

    public init() {}

    /// `spec` with each chain replaced by an equal one kept here (the first of its kind becomes the kept one).
    public mutating func shared(_ spec: CalendarSpec) -> CalendarSpec {
        var s = spec
        s.year = keep(s.year)
        s.month = keep(s.month)
        s.day = keep(s.day)
        s.hour = keep(s.hour)
        s.minute = keep(s.minute)
        s.microsecond = keep(s.microsecond)
        return s
    }

    private mutating func keep(_ chain: [CalendarComponent]?) -> [CalendarComponent]? {
        guard let chain else { return nil }
        return known.insert(chain).memberAfterInsert
    }
}
