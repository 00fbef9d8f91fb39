import AvisoCore

/// The scheduler's model: every request in one contiguous table with an identifier → slot index, and beside it the
/// ordered index of those that will fire again.
///
/// The window is re-planned on every fire and every change, and the due requests looked for on every timer: the
/// index keeps the next deadlines ordered as they change (`DeadlineIndex`), so neither looks at the rest of a model
/// of 100,000 reminders. The table holds each request's schedule inline and its fields as a pointer to their shared
/// box; the identifiers' hash table holds only slots (a table of whole requests by identifier would hold 262,144
/// of them at 100,000 requests).
struct RequestModel: Sequence {
    /// Every request, in no order.
    private(set) var values: [ScheduledRequest] = []
    /// Where each request is in `values`, by identifier.
    private var slots: [String: Int] = [:]
    /// One entry per request that has a next deadline, with its priority class, in deadline order.
    private(set) var index: DeadlineIndex
    /// The prefix rules classes come from; changing them reclassifies every entry.
    var rules: PriorityRules {
        didSet { if rules != oldValue { for r in values { index.set(r.request.id, entry(r)) } } }
    }

    /// `bootID`: the boot the daemon runs in, whose elapsed-time deadlines are ordered by boot time.
    init(rules: PriorityRules, bootID: String) {
        self.rules = rules
        index = DeadlineIndex(bootID: bootID)
    }

    /// The request of `id`; setting nil removes it (the last request takes its slot).
    subscript(id: String) -> ScheduledRequest? {
        get { slots[id].map { values[$0] } }
        set {
            assert(newValue.map { $0.request.id == id } ?? true, "a request is kept under its own identifier")
            if let newValue {
                if let i = slots[id] {
                    values[i] = newValue
                } else {
                    slots[id] = values.count
                    values.append(newValue)
                }
            } else if let i = slots.removeValue(forKey: id) {
                let last = values.removeLast()
                if i < values.count {
                    values[i] = last
                    slots[last.request.id] = i
                }
            }
            index.set(id, newValue.flatMap(entry))
        }
    }

    var count: Int { values.count }

    /// Each request with its identifier, in no order.
    func makeIterator() -> Iterator { Iterator(base: values.makeIterator()) }

    struct Iterator: IteratorProtocol {
        var base: IndexingIterator<[ScheduledRequest]>
        mutating func next() -> (key: String, value: ScheduledRequest)? { base.next().map { ($0.request.id, $0) } }
    }

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
