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
    /// Soonest first; at most the window limit.
    public var armed: [TimerSpec]
    /// Identifiers that did not fit, soonest first.
    public var waiting: [String]

    public init(armed: [TimerSpec], waiting: [String]) {
        self.armed = armed
        self.waiting = waiting
    }
}

/// Chooses the sliding window: the `limit` soonest deadlines are armed, the rest wait.
public enum WindowPlanner {
    /// Orders entries by expected wall time at `now`, then priority class, then identifier, and arms the first
    /// `limit` of them.
    ///
    /// Past-due entries stay in the plan and are armed like the others: an absolute timer in the past fires at once.
    /// A boot deadline from another boot is armed on the realtime clock at its wall estimate. The order is total,
    /// so the same input always gives the same plan (no flapping between equal deadlines).
    public static func plan(_ entries: [WindowEntry], now: Now, limit: Int) -> WindowPlan {
        let ordered = entries
            .map { (entry: $0, wall: $0.deadline.expectedWall(in: now)) }
            .sorted { a, b in
                if a.wall != b.wall { return a.wall < b.wall }
                if a.entry.priorityClass != b.entry.priorityClass { return a.entry.priorityClass < b.entry.priorityClass }
                return a.entry.id < b.entry.id
            }
        let cut = min(max(limit, 0), ordered.count)
        let armed = ordered[..<cut].map { item in
            let (clock, ns) = item.entry.deadline.armable(in: now)
            return TimerSpec(id: item.entry.id, clock: clock, deadline: ns)
        }
        return WindowPlan(armed: armed, waiting: ordered[cut...].map(\.entry.id))
    }
}
