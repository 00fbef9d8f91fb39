/// The next deadlines of a whole model, kept ordered as they change, so that the window and the due requests are
/// found without looking at the rest: a fire, an add or a remove costs O(log n), and planning the window
/// O(limit · log limit) plus the over-budget entries passed by.
///
/// Two binary heaps with an id → slot index: wall-clock deadlines (and boot deadlines of another boot, at their wall
/// estimate) ordered by (wall time, class, id); elapsed-time deadlines of this boot by (boot time, class, id). Seen
/// from any `now` of this boot, a boot deadline falls at `now.wall + (deadline - now.boot)`: the same shift for all of
/// them, so their heap order is their order in expected wall time, and the two heaps merge into exactly the order
/// `WindowPlanner.plan` sorts the model into.
public struct DeadlineIndex: Sendable {
    /// The boot whose elapsed-time deadlines are ordered by boot time.
    public let bootID: String
    /// The entries live in the heaps' keys (no table beside them: at 100,000 entries one would hold 262,144 slots).
    private var wallHeap = KeyedHeap()
    private var bootHeap = KeyedHeap()

    public init(bootID: String) { self.bootID = bootID }

    public var count: Int { wallHeap.keys.count + bootHeap.keys.count }

    /// Every entry, in no order.
    public var all: [WindowEntry] { wallHeap.keys.map(\.entry) + bootHeap.keys.map(\.entry) }

    /// Adds, moves or (with nil) removes the entry of `id`.
    public mutating func set(_ id: String, _ entry: WindowEntry?) {
        wallHeap.remove(id)
        bootHeap.remove(id)
        guard var entry else { return }
        entry.id = id
        switch entry.deadline {
        case .boot(let t, let b, _) where b == bootID:
            bootHeap.insert(KeyedHeap.Key(time: t.nanoseconds, entry: entry))
        case .boot(_, _, let estimate):
            wallHeap.insert(KeyedHeap.Key(time: estimate.nanoseconds, entry: entry))
        case .wall(let w):
            wallHeap.insert(KeyedHeap.Key(time: w.nanoseconds, entry: entry))
        }
    }

    /// The entries in plan order as seen from `now`: soonest expected wall time first, then class, then id.
    public func ordered(now: Now) -> AnyIterator<WindowEntry> {
        guard now.bootID == bootID else {
            // Another boot than the one the index was built for (never in one daemon's life): sorted in full.
            let sorted = all.map { ($0, $0.deadline.expectedWall(in: now)) }.sorted { a, b in
                (a.1, a.0.priorityClass, a.0.id) < (b.1, b.0.priorityClass, b.0.id)
            }.map(\.0)
            return AnyIterator(sorted.makeIterator())
        }
        var walls = wallHeap.inOrder()
        var boots = bootHeap.inOrder()
        var nextWall = walls.next()
        var nextBoot = boots.next()
        return AnyIterator {
            let takeBoot: Bool
            switch (nextWall, nextBoot) {
            case (nil, nil): return nil
            case (nil, _): takeBoot = true
            case (_, nil): takeBoot = false
            case (let w?, let b?):
                let bootWall = (now.wall + (BootTime(nanoseconds: b.time) - now.boot)).nanoseconds
                takeBoot = (bootWall, b.priorityClass, b.id) < (w.time, w.priorityClass, w.id)
            }
            let key: KeyedHeap.Key
            if takeBoot {
                key = nextBoot!
                nextBoot = boots.next()
            } else {
                key = nextWall!
                nextWall = walls.next()
            }
            return key.entry
        }
    }

    /// The armed set: the same timers, in the same order, as `WindowPlanner.plan(...).armed` over these entries.
    public func armed(now: Now, limit: Int, budgets: [Int: Int] = [:]) -> [TimerSpec] {
        let slots = max(limit, 0)
        var armed: [TimerSpec] = []
        var held: [Int: Int] = [:]
        let order = ordered(now: now)
        while armed.count < slots, let entry = order.next() {
            if let budget = budgets[entry.priorityClass].map({ max($0, 1) }) {
                if held[entry.priorityClass, default: 0] >= budget { continue }
                held[entry.priorityClass, default: 0] += 1
            }
            let (clock, ns) = entry.deadline.armable(in: now)
            armed.append(TimerSpec(id: entry.id, clock: clock, deadline: ns))
        }
        return armed
    }

    /// The ids whose deadline has been reached at `now`, soonest first.
    public func due(now: Now) -> [String] {
        var out: [String] = []
        let order = ordered(now: now)
        while let entry = order.next(), entry.deadline.isDue(at: now) { out.append(entry.id) }
        return out
    }
}

/// A binary min-heap of (time, class, id) keys with the slot of each id, for removal and change in O(log n).
struct KeyedHeap: Sendable {
    struct Key: Sendable {
        var time: Int64
        var entry: WindowEntry
        var priorityClass: Int { entry.priorityClass }
        var id: String { entry.id }

        static func < (a: Key, b: Key) -> Bool { (a.time, a.priorityClass, a.id) < (b.time, b.priorityClass, b.id) }
    }

    private(set) var keys: [Key] = []
    private var slot: [String: Int] = [:]

    /// Adds `key`, whose id must not be in the heap.
    mutating func insert(_ key: Key) {
        keys.append(key)
        slot[key.id] = keys.count - 1
        up(keys.count - 1)
    }

    mutating func remove(_ id: String) {
        guard let i = slot.removeValue(forKey: id) else { return }
        let last = keys.count - 1
        if i != last {
            keys.swapAt(i, last)
            slot[keys[i].id] = i
        }
        keys.removeLast()
        if i < keys.count {
            up(i)
            down(i)
        }
    }

    /// The keys in order, without changing the heap: a small heap of candidate slots, each popped one pushing its two
    /// children, so the first k cost O(k log k).
    func inOrder() -> AnyIterator<Key> {
        let keys = self.keys
        var frontier: [Int] = keys.isEmpty ? [] : [0]
        func less(_ a: Int, _ b: Int) -> Bool { keys[frontier[a]] < keys[frontier[b]] }
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
            for child in [2 * top + 1, 2 * top + 2] where child < keys.count {
                frontier.append(child)
                var j = frontier.count - 1
                while j > 0, less(j, (j - 1) / 2) {
                    frontier.swapAt(j, (j - 1) / 2)
                    j = (j - 1) / 2
                }
            }
            return keys[top]
        }
    }

    private mutating func up(_ start: Int) {
        var i = start
        while i > 0 {
            let parent = (i - 1) / 2
            guard keys[i] < keys[parent] else { break }
            swap(i, parent)
            i = parent
        }
    }

    private mutating func down(_ start: Int) {
        var i = start
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < keys.count, keys[l] < keys[m] { m = l }
            if r < keys.count, keys[r] < keys[m] { m = r }
            if m == i { return }
            swap(i, m)
            i = m
        }
    }

    private mutating func swap(_ a: Int, _ b: Int) {
        keys.swapAt(a, b)
        slot[keys[a].id] = a
        slot[keys[b].id] = b
    }
}
