import AvisoCore

/// The scheduler's model: every request by identifier, and beside it the window's compact view of those that will
/// fire again.
///
/// The window is re-planned on every fire and every change. Scanning small `WindowEntry` values instead of whole
/// requests (content, user data, trigger) is what keeps that cheap in a model of 100,000 reminders.
struct RequestModel: Sequence {
    private(set) var byID: [String: ScheduledRequest] = [:]
    /// One entry per request that has a next deadline, with its priority class.
    private(set) var entries: [String: WindowEntry] = [:]
    /// The prefix rules classes come from; changing them reclassifies every entry.
    var rules: PriorityRules {
        didSet { if rules != oldValue { for (id, r) in byID { entries[id] = entry(r) } } }
    }

    init(rules: PriorityRules) { self.rules = rules }

    subscript(id: String) -> ScheduledRequest? {
        get { byID[id] }
        set {
            byID[id] = newValue
            entries[id] = newValue.flatMap(entry)
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
