/// Which declared reminders a reload added, removed or changed, by identifier.
public struct ReminderChanges: Hashable, Sendable {
    public var added: Set<String> = []
    public var removed: Set<String> = []
    /// Still declared, but the request differs (content, trigger, priority, lateness).
    public var updated: Set<String> = []
    /// An `[Action NAME]` or `[Category NAME]` group was added, removed or changed.
    public var presentation = false
    /// An `[Item NAME]` group was added, removed or changed.
    public var items = false

    public init(added: Set<String> = [], removed: Set<String> = [], updated: Set<String> = []) {
        self.added = added
        self.removed = removed
        self.updated = updated
    }

    /// True when the model of declared reminders did not change: no reconcile is needed for it.
    public var isEmpty: Bool { added.isEmpty && removed.isEmpty && updated.isEmpty && !presentation && !items }
}
