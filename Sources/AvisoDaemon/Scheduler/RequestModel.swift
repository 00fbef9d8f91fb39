import AvisoCore

/// The scheduler's model: every request by identifier, and beside it the ordered index of those that will fire
/// again.
///
/// The window is re-planned on every fire and every change, and the due requests looked for on every timer: the
/// index keeps the next deadlines ordered as they change (`DeadlineIndex`), so neither looks at the rest of a model
/// of 100,000 reminders.
struct RequestModel: Sequence {
    private(set) var byID: [String: ScheduledRequest] = [:]
    /// One entry per request that has a next deadline, with its priority class, in deadline order.
    private(set) var index: DeadlineIndex
    /// The prefix rules classes come from; changing them reclassifies every entry.
    var rules: PriorityRules {
        didSet { if rules != oldValue { for (id, r) in byID { index.set(id, entry(r)) } } }
    }

    /// `bootID`: the boot the daemon runs in, whose elapsed-time deadlines are ordered by boot time.
    init(rules: PriorityRules, bootID: String) {
        self.rules = rules
        index = DeadlineIndex(bootID: bootID)
    }

    subscript(id: String) -> ScheduledRequest? {
        get { byID[id] }
        set {
            byID[id] = newValue
            index.set(id, newValue.flatMap(entry))
        }
    }

    var count: Int { byID.count }
    var values: Dictionary<String, ScheduledRequest>.Values { byID.values }
    func makeIterator() -> Dictionary<String, ScheduledRequest>.Iterator { byID.makeIterator() }

    /// The priority class of a request: `Priority=` if set, else its identifier's prefix; a declared reminder that
    /// matches no prefix was set by the person, the highest class.
    func priorityClass(of r: ScheduledRequest) -> Int {
        let c = rules.priorityClass(for: r.request.id, override: r.request.priority)
        return c == PriorityRules.unmatchedClass && r.request.priority == nil && r.source != nil ? 0 : c
    }

    private func entry(_ r: ScheduledRequest) -> WindowEntry? {
        r.next.map { WindowEntry(id: r.request.id, deadline: $0, priorityClass: priorityClass(of: r)) }
    }
}
