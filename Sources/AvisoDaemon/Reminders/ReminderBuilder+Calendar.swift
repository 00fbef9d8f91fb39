import AvisoCore

extension ReminderBuilder {
    /// The calendar trigger of a checked OnCalendar= spec.
    static func calendarTrigger(spec: String, zone: String?, policy: DSTPolicy) -> Trigger? {
        .calendar(CalendarTrigger(spec: spec, zone: zone, policy: policy))
    }
}
