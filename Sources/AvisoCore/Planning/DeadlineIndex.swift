/// The table a `DeadlineIndex` orders: records numbered 0..<n, each with an identifier and perhaps a next deadline.
public protocol DeadlineRecords {
    /// The identifier of record `r`: ties of time and class are broken by it.
    func identifier(ofRecord r: Int) -> String
    /// The next deadline of record `r`; nil when it will not fire again.
    func deadline(ofRecord r: Int) -> Deadline?
}

/// The next deadlines of a whole model, kept ordered as they change, so that the window and the due requests are
/// found without looking at the rest: a fire, an add or a remove costs O(log n), and planning the window
/// O(limit · log limit) plus the over-budget entries passed by.
///
/// The index refers to the model's records by number and holds no identifier or deadline of its own: per record a
/// 16-byte key (its time, its class and where it is in its heap), and two heaps of record numbers. A model of
/// 100,000 requests costs it about 2 MB, and moving a record in a heap changes two integers, with no hashing.
///
/// Two binary heaps: wall-clock deadlines (and boot deadlines of another boot, at their wall estimate) ordered by
/// (wall time, class, id); elapsed-time deadlines of this boot by (boot time, class, id). Seen from any `now` of this
/// boot, a boot deadline falls at `now.wall + (deadline - now.boot)`: the same shift for all of them, so their heap
/// order is their order in expected wall time, and the two heaps merge into exactly the order `WindowPlanner.plan`
/// sorts the model into.
///
/// Every change of a record's deadline or class is told with `set`; `remove` comes before the record leaves the
/// table, `move` after the table moved a record to another number.
public struct DeadlineIndex: Sendable {
    /// The boot whose elapsed-time deadlines are ordered by boot time.
    public let bootID: String

    private struct Key: Sendable {
        /// Nanoseconds on the wall clock (wall heap) or the boot clock (boot heap).
        var time: Int64
        var priorityClass: Int32
        /// position · 2 + 1 for the boot heap, 0 for the wall heap; -1: the record is not in the index.
        var slot: Int32

        static let absent = Key(time: 0, priorityClass: 0, slot: -1)
        var inIndex: Bool { slot >= 0 }
        var inBootHeap: Bool { slot & 1 == 1 }
        var position: Int { Int(slot >> 1) }
    }

    /// By record number.
    private var keys: [Key] = []
    private var wallHeap: [Int32] = []
    private var bootHeap: [Int32] = []

    public init(bootID: String) { self.bootID = bootID }

    /// How many records have a deadline.
    public var count: Int { wallHeap.count + bootHeap.count }

    /// Makes room for records numbered up to `n`.
    public mutating func reserveCapacity(_ n: Int) { keys.reserveCapacity(n) }

    /// Files record `r` under its deadline in `records` (taken out when it has none) with `priorityClass`.
    public mutating func set(_ r: Int, priorityClass: Int, in records: some DeadlineRecords) {
        remove(r, in: records)
        guard let deadline = records.deadline(ofRecord: r) else { return }
        while keys.count <= r { keys.append(.absent) }
        let inBoot: Bool
        switch deadline {
        case .boot(let t, let b, _) where b == bootID:
            keys[r] = Key(time: t.nanoseconds, priorityClass: Int32(clamping: priorityClass), slot: 0)
            inBoot = true
        case .boot(_, _, let estimate):
            keys[r] = Key(time: estimate.nanoseconds, priorityClass: Int32(clamping: priorityClass), slot: 0)
            inBoot = false
        case .wall(let w):
            keys[r] = Key(time: w.nanoseconds, priorityClass: Int32(clamping: priorityClass), slot: 0)
            inBoot = false
        }
        if inBoot {
            Self.insert(Int32(r), into: &bootHeap, bit: 1, keys: &keys, records)
        } else {
            Self.insert(Int32(r), into: &wallHeap, bit: 0, keys: &keys, records)
        }
    }

    /// Takes record `r` out, if it is in; `records` must still hold the other records under their numbers.
    public mutating func remove(_ r: Int, in records: some DeadlineRecords) {
        guard r < keys.count, keys[r].inIndex else { return }
        if keys[r].inBootHeap {
            Self.remove(at: keys[r].position, from: &bootHeap, bit: 1, keys: &keys, records)
        } else {
            Self.remove(at: keys[r].position, from: &wallHeap, bit: 0, keys: &keys, records)
        }
        keys[r] = .absent
    }

    /// The table moved record `from` to number `to` (whose own record was removed first): its place follows it.
    public mutating func move(_ from: Int, to: Int) {
        guard from != to, from < keys.count else { return }
        let key = keys[from]
        while keys.count <= to { keys.append(.absent) }
        keys[to] = key
        keys[from] = .absent
        if key.inIndex {
            if key.inBootHeap { bootHeap[key.position] = Int32(to) } else { wallHeap[key.position] = Int32(to) }
        }
        while keys.last.map({ !$0.inIndex }) == true { keys.removeLast() }
    }

    /// The entries in the index, in no order.
    public func entries(in records: some DeadlineRecords) -> [WindowEntry] {
        (wallHeap + bootHeap).map { entry(Int($0), records) }
    }

    /// The record numbers in plan order as seen from `now`: soonest expected wall time first, then class, then id.
    public func ordered(now: Now, in records: some DeadlineRecords) -> AnyIterator<Int> {
        guard now.bootID == bootID else {
            // Another boot than the one the index was built for (never in one daemon's life): sorted in full.
            let sorted = (wallHeap + bootHeap).map { r in
                (r: Int(r), wall: records.deadline(ofRecord: Int(r))!.expectedWall(in: now), id: records.identifier(ofRecord: Int(r)))
            }.sorted { a, b in
                (a.wall, self.keys[a.r].priorityClass, a.id) < (b.wall, self.keys[b.r].priorityClass, b.id)
            }.map(\.r)
            return AnyIterator(sorted.makeIterator())
        }
        let keys = self.keys
        let walls = Self.inOrder(wallHeap, keys: keys, records)
        let boots = Self.inOrder(bootHeap, keys: keys, records)
        var nextWall = walls.next()
        var nextBoot = boots.next()
        return AnyIterator {
            let takeBoot: Bool
            switch (nextWall, nextBoot) {
            case (nil, nil): return nil
            case (nil, _): takeBoot = true
            case (_, nil): takeBoot = false
            case (let w?, let b?):
                let (wk, bk) = (keys[Int(w)], keys[Int(b)])
                let bootWall = (now.wall + (BootTime(nanoseconds: bk.time) - now.boot)).nanoseconds
                if bootWall != wk.time {
                    takeBoot = bootWall < wk.time
                } else if bk.priorityClass != wk.priorityClass {
                    takeBoot = bk.priorityClass < wk.priorityClass
                } else {
                    takeBoot = records.identifier(ofRecord: Int(b)) < records.identifier(ofRecord: Int(w))
                }
            }
            if takeBoot {
                defer { nextBoot = boots.next() }
                return Int(nextBoot!)
            }
            defer { nextWall = walls.next() }
            return Int(nextWall!)
        }
    }

    /// The armed set: the same timers, in the same order, as `WindowPlanner.plan(...).armed` over these entries.
    public func armed(now: Now, limit: Int, budgets: [Int: Int] = [:], in records: some DeadlineRecords) -> [TimerSpec] {
        let slots = max(limit, 0)
        var armed: [TimerSpec] = []
        var held: [Int: Int] = [:]
        let order = ordered(now: now, in: records)
        while armed.count < slots, let r = order.next() {
            let priorityClass = Int(keys[r].priorityClass)
            if let budget = budgets[priorityClass].map({ max($0, 1) }) {
                if held[priorityClass, default: 0] >= budget { continue }
                held[priorityClass, default: 0] += 1
            }
            let (clock, ns) = records.deadline(ofRecord: r)!.armable(in: now)
            armed.append(TimerSpec(id: records.identifier(ofRecord: r), clock: clock, deadline: ns))
        }
        return armed
    }

    /// The ids whose deadline has been reached at `now`, soonest first.
    public func due(now: Now, in records: some DeadlineRecords) -> [String] {
        var out: [String] = []
        let order = ordered(now: now, in: records)
        while let r = order.next(), records.deadline(ofRecord: r)!.isDue(at: now) { out.append(records.identifier(ofRecord: r)) }
        return out
    }

    /// Record `r` as the planner sees it.
    public func entry(_ r: Int, _ records: some DeadlineRecords) -> WindowEntry {
        WindowEntry(id: records.identifier(ofRecord: r), deadline: records.deadline(ofRecord: r)!,
                    priorityClass: Int(keys[r].priorityClass))
    }

    // MARK: The heaps

    /// Whether record `a` goes before record `b` in their heap.
    private static func less(_ a: Int32, _ b: Int32, _ keys: [Key], _ records: some DeadlineRecords) -> Bool {
        let (ka, kb) = (keys[Int(a)], keys[Int(b)])
        if ka.time != kb.time { return ka.time < kb.time }
        if ka.priorityClass != kb.priorityClass { return ka.priorityClass < kb.priorityClass }
        return records.identifier(ofRecord: Int(a)) < records.identifier(ofRecord: Int(b))
    }

    private static func insert(_ r: Int32, into heap: inout [Int32], bit: Int32, keys: inout [Key],
                               _ records: some DeadlineRecords) {
        heap.append(r)
        keys[Int(r)].slot = Int32(heap.count - 1) << 1 | bit
        up(heap.count - 1, &heap, bit, &keys, records)
    }

    private static func remove(at i: Int, from heap: inout [Int32], bit: Int32, keys: inout [Key],
                               _ records: some DeadlineRecords) {
        let last = heap.count - 1
        if i != last {
            heap[i] = heap[last]
            keys[Int(heap[i])].slot = Int32(i) << 1 | bit
        }
        heap.removeLast()
        if i < heap.count {
            up(i, &heap, bit, &keys, records)
            down(i, &heap, bit, &keys, records)
        }
    }

    private static func up(_ start: Int, _ heap: inout [Int32], _ bit: Int32, _ keys: inout [Key],
                           _ records: some DeadlineRecords) {
        var i = start
        while i > 0 {
            let parent = (i - 1) / 2
            guard less(heap[i], heap[parent], keys, records) else { break }
            swap(i, parent, &heap, bit, &keys)
            i = parent
        }
    }

    private static func down(_ start: Int, _ heap: inout [Int32], _ bit: Int32, _ keys: inout [Key],
                             _ records: some DeadlineRecords) {
        var i = start
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < heap.count, less(heap[l], heap[m], keys, records) { m = l }
            if r < heap.count, less(heap[r], heap[m], keys, records) { m = r }
            if m == i { return }
            swap(i, m, &heap, bit, &keys)
            i = m
        }
    }

    private static func swap(_ a: Int, _ b: Int, _ heap: inout [Int32], _ bit: Int32, _ keys: inout [Key]) {
        heap.swapAt(a, b)
        keys[Int(heap[a])].slot = Int32(a) << 1 | bit
        keys[Int(heap[b])].slot = Int32(b) << 1 | bit
    }

    /// A heap's records in order, without changing it: a small heap of candidate positions, each popped one pushing
    /// its two children, so the first k cost O(k log k).
    private static func inOrder(_ heap: [Int32], keys: [Key], _ records: some DeadlineRecords) -> AnyIterator<Int32> {
        var frontier: [Int] = heap.isEmpty ? [] : [0]
        func less(_ a: Int, _ b: Int) -> Bool { Self.less(heap[frontier[a]], heap[frontier[b]], keys, records) }
        return AnyIterator {
            guard !frontier.isEmpty else { return nil }
            let top = frontier[0]
            // Pop the smallest candidate.
            frontier.swapAt(0, frontier.count - 1)
            frontier.removeLast()
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < frontier.count, less(l, m) { m = l }
                if r < frontier.count, less(r, m) { m = r }
                if m == i { break }
                frontier.swapAt(i, m)
                i = m
            }
            for child in [2 * top + 1, 2 * top + 2] where child < heap.count {
                frontier.append(child)
                var j = frontier.count - 1
                while j > 0, less(j, (j - 1) / 2) {
                    frontier.swapAt(j, (j - 1) / 2)
                    j = (j - 1) / 2
                }
            }
            return heap[top]
        }
    }
}
