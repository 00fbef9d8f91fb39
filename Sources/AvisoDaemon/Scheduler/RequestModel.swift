import AvisoCore

/// The scheduler's model: every request in one contiguous table with an identifier → slot index, and beside it the
/// ordered index of those that will fire again.
///
/// The window is re-planned on every fire and every change, and the due requests looked for on every timer: the
/// index keeps the next deadlines ordered as they change (`DeadlineIndex`), so neither looks at the rest of a model
/// of 100,000 reminders. The table holds each request's schedule as a compact entry (56 bytes: its deadline as two
/// integers, its boot and its source file as numbers into tables of the few there are) and its fields as
/// a pointer to their shared box; a `ScheduledRequest` is made from the entry when it is read. The identifiers' hash
/// table holds only slots (a table of whole requests by identifier would hold 262,144 of them at 100,000 requests),
/// and the index refers to requests by slot, so no identifier is hashed or copied when a deadline moves.
struct RequestModel: Sequence {
    /// Every request, in no order.
    private var entries: [Entry] = []
    /// The boot ids and source files the entries name, by number.
    private var names = Names()
    /// Where each request is in `entries`, by identifier.
    private var slots = SlotIndex()
    /// The requests that will fire again, by their position in `entries`, in deadline order.
    private var index: DeadlineIndex
    /// The prefix rules classes come from; changing them reclassifies every entry.
    var rules: PriorityRules {
        didSet { if rules != oldValue { for i in entries.indices { place(i) } } }
    }

    /// `bootID`: the boot the daemon runs in, whose elapsed-time deadlines are ordered by boot time.
    init(rules: PriorityRules, bootID: String) {
        self.rules = rules
        index = DeadlineIndex(bootID: bootID)
    }

    /// The request of `id`; setting nil removes it (the last request takes its slot).
    subscript(id: String) -> ScheduledRequest? {
        get { slots.find(id, id: identifier).map { request(at: Int($0)) } }
        set {
            assert(newValue.map { $0.request.id == id } ?? true, "a request is kept under its own identifier")
            if let newValue {
                let entry = Entry(newValue, names: &names)
                if let slot = slots.insertIfAbsent(id, slot: Int32(entries.count), id: identifier) {
                    let i = Int(slot)
                    entries[i] = entry
                    place(i)
                } else {
                    entries.append(entry)
                    place(entries.count - 1)
                }
            } else if let slot = slots.remove(id, id: identifier) {
                let i = Int(slot)
                index.remove(i, in: table)
                let lastSlot = entries.count - 1
                if i < lastSlot {
                    slots.move(entries[lastSlot].request.id, to: slot, id: identifier)
                    entries.swapAt(i, lastSlot)
                    index.move(lastSlot, to: i)
                }
                entries.removeLast()
            }
        }
    }

    var count: Int { entries.count }

    /// Adds `r` unless a request of its identifier is in the model; false, and nothing changed, when one is. One hash
    /// of the identifier, where a lookup and then setting take two.
    mutating func addIfAbsent(_ r: ScheduledRequest) -> Bool {
        guard slots.insertIfAbsent(r.request.id, slot: Int32(entries.count), id: identifier) == nil else { return false }
        entries.append(Entry(r, names: &names))
        place(entries.count - 1)
        return true
    }

    /// Every request, in no order.
    var values: Values { Values(model: self) }

    struct Values: Sequence {
        let model: RequestModel
        func makeIterator() -> Iterator {
            var base = model.makeIterator()
            return Iterator { base.next()?.value }
        }
        typealias Iterator = AnyIterator<ScheduledRequest>
    }

    /// The identifiers of the requests added over the socket that start with `prefix`, without making their whole
    /// requests: at a start with 100,000 declared reminders, asking whether any item reminder is there made each one.
    func socketIdentifiers(withPrefix prefix: String) -> [String] {
        entries.filter { $0.source == -1 && $0.request.id.hasPrefix(prefix) }.map(\.request.id)
    }

    /// The next deadline of `id`, if it is in the model and fires again, without making its whole request.
    func next(of id: String) -> Deadline? {
        slots.find(id, id: identifier).flatMap { entries[Int($0)].next(names.boots) }
    }

    /// Makes room for `n` requests in all.
    mutating func reserveCapacity(_ n: Int) {
        entries.reserveCapacity(n)
        slots.reserveCapacity(n, id: identifier)
        index.reserveCapacity(n)
    }

    /// How many requests will fire again.
    var scheduledCount: Int { index.count }

    /// Each request with its identifier, in no order.
    func makeIterator() -> Iterator { Iterator(model: self) }

    struct Iterator: IteratorProtocol {
        let model: RequestModel
        var i = 0
        mutating func next() -> (key: String, value: ScheduledRequest)? {
            guard i < model.entries.count else { return nil }
            defer { i += 1 }
            let r = model.request(at: i)
            return (r.request.id, r)
        }
    }

    /// The requests that will fire again, as the window planner sees them, in no order.
    var windowEntries: [WindowEntry] { index.entries(in: table) }

    /// The timers to arm: the first `limit` in deadline order, within the classes' budgets.
    func armed(now: Now, limit: Int, budgets: [Int: Int]) -> [TimerSpec] {
        index.armed(now: now, limit: limit, budgets: budgets, in: table)
    }

    /// The identifiers due at `now`, soonest first.
    func due(now: Now) -> [String] { index.due(now: now, in: table) }

    /// The requests that will fire again, soonest first as seen from `now`.
    func ordered(now: Now) -> some IteratorProtocol<WindowEntry> {
        let table = self.table
        let order = index.ordered(now: now, in: table)
        return AnyIterator { [index] in order.next().map { index.entry($0, table) } }
    }

    /// The priority class of a request: `Priority=` if set, else its identifier's prefix; a declared reminder that
    /// matches no prefix was set by the person, the highest class.
    func priorityClass(of r: ScheduledRequest) -> Int {
        Self.priorityClass(of: r.request, declared: r.source != nil, rules: rules)
    }

    private static func priorityClass(of request: Request, declared: Bool, rules: PriorityRules) -> Int {
        let c = rules.priorityClass(for: request.id, override: request.priority)
        return c == PriorityRules.unmatchedClass && request.priority == nil && declared ? 0 : c
    }

    /// The identifier at a slot, as the slot index reads it: `entries` holds every request the index names during
    /// each of its calls.
    private var identifier: (Int32) -> String { { [entries] in entries[Int($0)].request.id } }

    /// The request at slot `i`, made from its entry.
    private func request(at i: Int) -> ScheduledRequest { entries[i].scheduled(names) }

    /// Files the request at `i` in the index under its deadline and class.
    private mutating func place(_ i: Int) {
        // Read before the index is changed, from the fields themselves: reading the model while its index is
        // changed in place copied the whole model for every request placed, and so did calling its own getters here
        // (a retain and a release of each of its tables, 660 instructions a request).
        let (request, declared) = (entries[i].request, entries[i].source >= 0)
        let c = Self.priorityClass(of: request, declared: declared, rules: rules)
        let records = Table(entries: entries, boots: names.boots)
        index.set(i, priorityClass: c, in: records)
    }

    private var table: Table { Table(entries: entries, boots: names.boots) }

    /// The requests as the deadline index reads them.
    private struct Table: DeadlineRecords {
        let entries: [Entry]
        let boots: [String]
        func identifier(ofRecord r: Int) -> String { entries[r].request.id }
        func deadline(ofRecord r: Int) -> Deadline? { entries[r].next(boots) }
    }

    /// One request's schedule, packed: a `ScheduledRequest` takes 96 bytes, with its deadline as an optional enum
    /// holding the boot id, and its source as an optional string.
    private struct Entry {
        var request: Request
        var added: Int64
        /// Wall nanoseconds of a wall deadline; boot nanoseconds of a boot deadline.
        var nextTime: Int64
        /// The wall estimate of a boot deadline.
        var nextEstimate: Int64
        /// `Int64.min`: never fired.
        var lastFired: Int64
        var fireCount: Int
        /// The source file's number; -1: added over the socket.
        var source: Int32
        /// What `nextTime` is: the number of the boot of a boot deadline; `wall` or `none`.
        var next: Int32

        static let wall: Int32 = -1
        static let none: Int32 = -2

        init(_ r: ScheduledRequest, names: inout Names) {
            request = r.request
            added = r.added.nanoseconds
            lastFired = r.lastFired?.nanoseconds ?? .min
            fireCount = r.fireCount
            source = r.source.map { names.number(ofSource: $0) } ?? -1
            (nextTime, nextEstimate, next) = (0, 0, Self.none)
            switch r.next {
            case nil: break
            case .wall(let w): (nextTime, next) = (w.nanoseconds, Self.wall)
            case .boot(let b, let id, let estimate):
                (nextTime, nextEstimate, next) = (b.nanoseconds, estimate.nanoseconds, names.number(ofBoot: id))
            }
        }

        /// `boots`: the model's boot ids by number.
        func next(_ boots: [String]) -> Deadline? {
            switch next {
            case Self.none: nil
            case Self.wall: .wall(WallTime(nanoseconds: nextTime))
            default: .boot(BootTime(nanoseconds: nextTime), bootID: boots[Int(next)],
                           wallEstimate: WallTime(nanoseconds: nextEstimate))
            }
        }

        func scheduled(_ names: Names) -> ScheduledRequest {
            ScheduledRequest(request: request, added: WallTime(nanoseconds: added), next: next(names.boots), fireCount: fireCount,
                             lastFired: lastFired == .min ? nil : WallTime(nanoseconds: lastFired),
                             source: source < 0 ? nil : names.sources[Int(source)])
        }
    }

    /// The few distinct boot ids and source files of a model, by number: numbers are never reused or forgotten.
    private struct Names {
        private(set) var boots: [String] = []
        private(set) var sources: [String] = []
        private var bootNumbers: [String: Int32] = [:]
        private var sourceNumbers: [String: Int32] = [:]
        private var lastSource: Int32?

        mutating func number(ofBoot id: String) -> Int32 { Self.number(of: id, in: &boots, &bootNumbers) }
        /// A file's reminders come one after another: its path is compared with the last one's before it is hashed.
        mutating func number(ofSource path: String) -> Int32 {
            if let last = lastSource, sources[Int(last)] == path { return last }
            let n = Self.number(of: path, in: &sources, &sourceNumbers)
            lastSource = n
            return n
        }

        private static func number(of name: String, in names: inout [String], _ numbers: inout [String: Int32]) -> Int32 {
            if let n = numbers[name] { return n }
            let n = Int32(names.count)
            names.append(name)
            numbers[name] = n
            return n
        }
    }
}
