/// A timer to arm: an absolute deadline on one kernel clock.
public struct TimerSpec: Hashable, Sendable {
    /// The request identifier the timer is for; the backend keeps at most one timer per id.
    public var id: String
    /// The clock to arm on: boottime for elapsed-time deadlines of this boot, realtime for everything else.
    public var clock: KernelClock
    /// Nanoseconds, absolute on `clock` (arm with TFD_TIMER_ABSTIME; a past value fires at once).
    public var deadline: Int64

    public init(id: String, clock: KernelClock, deadline: Int64) {
        self.id = id
        self.clock = clock
        self.deadline = deadline
    }
}

/// A request competing for a place in the window of armed timers.
public struct WindowEntry: Hashable, Sendable {
    /// The request identifier.
    public var id: String
    /// When the request is next due.
    public var deadline: Deadline
    /// 0 is the highest priority, 99 the lowest; breaks ties between equal deadlines.
    public var priorityClass: Int

    public init(id: String, deadline: Deadline, priorityClass: Int) {
        self.id = id
        self.deadline = deadline
        self.priorityClass = priorityClass
    }
}

/// Which requests get a timer and which wait for a place.
public struct WindowPlan: Hashable, Sendable {
    /// A request left out of the window, and why.
    public struct Waiting: Hashable, Sendable {
        /// The request identifier.
        public var id: String
        /// Why it has no timer now.
        public var reason: WaitReason

        public init(id: String, reason: WaitReason) {
            self.id = id
            self.reason = reason
        }
    }

    /// Soonest first; at most the window limit.
    public var armed: [TimerSpec]
    /// Requests that did not fit, in plan order (soonest first).
    public var waiting: [Waiting]

    public init(armed: [TimerSpec], waiting: [Waiting]) {
        self.armed = armed
        self.waiting = waiting
    }

    /// The identifiers of `waiting`, in order.
    public var waitingIDs: [String] { waiting.map(\.id) }
}

/// Why a request waits outside the window.
public enum WaitReason: Hashable, Sendable {
    /// The window was full: this many requests come before it in the plan order (armed or not), so it is armed
    /// only once that many have fired or left. The 65th request of a 64-slot window is `behind(64)`.
    case behind(Int)
    /// There was room, but its class already holds `budget` slots (`[Budgets]` in aviso.conf).
    case overBudget(priorityClass: Int, budget: Int)
}

/// Chooses the sliding window: the `limit` soonest deadlines are armed, the rest wait.
public enum WindowPlanner {
    /// Orders entries by expected wall time at `now`, then priority class, then identifier, and arms the first
    /// `limit` of them, skipping an entry whose class already holds its budget (`budgets[class]` slots).
    ///
    /// Past-due entries stay in the plan and are armed like the others: an absolute timer in the past fires at once.
    /// A boot deadline from another boot is armed on the realtime clock at its wall estimate. The order is total,
    /// so the same input always gives the same plan (no flapping between equal deadlines). A budget below 1 is
    /// treated as 1 rather than starving a class forever; a class without a budget may fill the window.
    public static func plan(_ entries: [WindowEntry], now: Now, limit: Int, budgets: [Int: Int] = [:]) -> WindowPlan {
        let ordered = entries
            .map { (entry: $0, wall: $0.deadline.expectedWall(in: now)) }
            .sorted { a, b in
                if a.wall != b.wall { return a.wall < b.wall }
                if a.entry.priorityClass != b.entry.priorityClass { return a.entry.priorityClass < b.entry.priorityClass }
                return a.entry.id < b.entry.id
            }
        let slots = max(limit, 0)
        var armed: [TimerSpec] = []
        var waiting: [WindowPlan.Waiting] = []
        var held: [Int: Int] = [:]
        armed.reserveCapacity(min(slots, ordered.count))
        for (position, item) in ordered.enumerated() {
            let entry = item.entry
            if armed.count >= slots {
                waiting.append(.init(id: entry.id, reason: .behind(position)))
                continue
            }
            if let budget = budgets[entry.priorityClass].map({ max($0, 1) }), held[entry.priorityClass, default: 0] >= budget {
                waiting.append(.init(id: entry.id, reason: .overBudget(priorityClass: entry.priorityClass, budget: budget)))
                continue
            }
            held[entry.priorityClass, default: 0] += 1
            let (clock, ns) = entry.deadline.armable(in: now)
            armed.append(TimerSpec(id: entry.id, clock: clock, deadline: ns))
        }
        return WindowPlan(armed: armed, waiting: waiting)
    }
}
