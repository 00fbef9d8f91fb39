import AvisoCore

/// The scheduler's model: every request in one contiguous table with an identifier → slot index, and beside it the
/// ordered index of those that will fire again.
///
/// The window is re-planned on every fire and every change, and the due requests looked for on every timer: the
/// index keeps the next deadlines ordered as they change (`DeadlineIndex`), so neither looks at the rest of a model
/// of 100,000 reminders. The table holds each request's schedule inline and its fields as a pointer to their shared
/// box; the identifiers' hash table holds only slots (a table of whole requests by identifier would hold 262,144
/// of them at 100,000 requests), and the index refers to requests by slot, so no identifier is hashed or copied when
/// a deadline moves.
struct RequestModel: Sequence {
    /// Every request, in no order.
    private(set) var values: [ScheduledRequest] = []
    /// Where each request is in `values`, by identifier.
    private var slots = SlotIndex()
    /// The requests that will fire again, by their position in `values`, in deadline order.
    private var index: DeadlineIndex
    /// The prefix rules classes come from; changing them reclassifies every entry.
    var rules: PriorityRules {
        didSet { if rules != oldValue { for i in values.indices { place(i) } } }
    }

    /// `bootID`: the boot the daemon runs in, whose elapsed-time deadlines are ordered by boot time.
    init(rules: PriorityRules, bootID: String) {
        self.rules = rules
        index = DeadlineIndex(bootID: bootID)
    }

    /// The request of `id`; setting nil removes it (the last request takes its slot).
    subscript(id: String) -> ScheduledRequest? {
        get { slots.find(id, id: identifier).map { values[Int($0)] } }
        set {
            assert(newValue.map { $0.request.id == id } ?? true, "a request is kept under its own identifier")
            if let newValue {
                if let slot = slots.find(id, id: identifier) {
                    let i = Int(slot)
                    values[i] = newValue
                    place(i)
                } else {
                    slots.insert(id, slot: Int32(values.count), id: identifier)
                    values.append(newValue)
                    place(values.count - 1)
                }
            } else if let slot = slots.remove(id, id: identifier) {
                let i = Int(slot)
                index.remove(i, in: Table(values: values))
                let lastSlot = values.count - 1
                if i < lastSlot {
                    slots.move(values[lastSlot].request.id, to: slot, id: identifier)
                    values.swapAt(i, lastSlot)
                    index.move(lastSlot, to: i)
                }
                values.removeLast()
            }
        }
    }

    var count: Int { values.count }

    /// Whether a request of `id` is in the model (without copying it out).
    func contains(_ id: String) -> Bool { slots.find(id, id: identifier) != nil }

    /// Makes room for `n` requests in all.
    mutating func reserveCapacity(_ n: Int) {
        values.reserveCapacity(n)
        slots.reserveCapacity(n, id: identifier)
        index.reserveCapacity(n)
    }

    /// How many requests will fire again.
    var scheduledCount: Int { index.count }

    /// Each request with its identifier, in no order.
    func makeIterator() -> Iterator { Iterator(base: values.makeIterator()) }

    struct Iterator: IteratorProtocol {
        var base: IndexingIterator<[ScheduledRequest]>
        mutating func next() -> (key: String, value: ScheduledRequest)? { base.next().map { ($0.request.id, $0) } }
    }

    /// The requests that will fire again, as the window planner sees them, in no order.
    var windowEntries: [WindowEntry] { index.entries(in: Table(values: values)) }

    /// The timers to arm: the first `limit` in deadline order, within the classes' budgets.
    func armed(now: Now, limit: Int, budgets: [Int: Int]) -> [TimerSpec] {
        index.armed(now: now, limit: limit, budgets: budgets, in: Table(values: values))
    }

    /// The identifiers due at `now`, soonest first.
    func due(now: Now) -> [String] { index.due(now: now, in: Table(values: values)) }

    /// The requests that will fire again, soonest first as seen from `now`.
    func ordered(now: Now) -> some IteratorProtocol<WindowEntry> {
        let table = Table(values: values)
        let order = index.ordered(now: now, in: table)
        return AnyIterator { [index] in order.next().map { index.entry($0, table) } }
    }

    /// The priority class of a request: `Priority=` if set, else its identifier's prefix; a declared reminder that
    /// matches no prefix was set by the person, the highest class.
    func priorityClass(of r: ScheduledRequest) -> Int {
        let c = rules.priorityClass(for: r.request.id, override: r.request.priority)
        return c == PriorityRules.unmatchedClass && r.request.priority == nil && r.source != nil ? 0 : c
    }

    /// The identifier at a slot, as the slot index reads it: `values` holds every request the index names during
    /// each of its calls.
    private var identifier: (Int32) -> String { { [values] in values[Int($0)].request.id } }

    /// Files the request at `i` in the index under its deadline and class.
    private mutating func place(_ i: Int) {
        index.set(i, priorityClass: priorityClass(of: values[i]), in: Table(values: values))
    }

    /// The requests as the deadline index reads them.
    private struct Table: DeadlineRecords {
        let values: [ScheduledRequest]
        func identifier(ofRecord r: Int) -> String { values[r].request.id }
        func deadline(ofRecord r: Int) -> Deadline? { values[r].next }
    }
}
