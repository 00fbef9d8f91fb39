import AvisoCore

/// A request declared in a reminder file: `[Reminder NAME]` in `reminders/*.conf`, with where it was declared.
public struct DeclaredReminder: Hashable, Sendable {
    /// The request; its identifier is NAME.
    public var request: Request
    /// The file's path, as given to `ReminderDirectory` plus the file name.
    public var file: String
    /// The line of the `[Reminder NAME]` header.
    public var line: Int
    /// The line of the key that says when (`OnCalendar=`, `At=` or `Every=`), for problems with the schedule.
    public var triggerLine: Int
    /// The line of `Category=`, for a category that nothing declares.
    public var categoryLine: Int

    public init(request: Request, file: String, line: Int, triggerLine: Int? = nil, categoryLine: Int? = nil) {
        self.request = request
        self.file = file
        self.line = line
        self.triggerLine = triggerLine ?? line
        self.categoryLine = categoryLine ?? line
    }
}
