/// The kernel clock a timer is armed on.
public enum KernelClock: String, Hashable, Sendable, Codable {
    /// CLOCK_REALTIME, absolute, with TFD_TIMER_CANCEL_ON_SET: for moments of the civil calendar.
    case realtime
    /// CLOCK_BOOTTIME, absolute: for elapsed time, suspend included.
    case boottime
}

/// When a request is next due, on the clock that its trigger is defined on.
public enum Deadline: Hashable, Sendable, Codable {
    /// A wall-clock moment (an absolute date, a calendar elapse).
    case wall(WallTime)
    /// An elapsed-time deadline read in boot `bootID`, with the wall time it was expected to fall on.
    ///
    /// The wall estimate is what survives a reboot: in another boot the boot time means nothing, and the
    /// deadline falls back to the estimate.
    case boot(BootTime, bootID: String, wallEstimate: WallTime)

    /// The clock and absolute nanosecond value to arm, as seen from `now`.
    public func armable(in now: Now) -> (clock: KernelClock, nanoseconds: Int64) {
        switch self {
        case .wall(let w):
            return (.realtime, w.nanoseconds)
        case .boot(let b, let id, let estimate):
            if id == now.bootID { return (.boottime, b.nanoseconds) }
            return (.realtime, estimate.nanoseconds)
        }
    }

    /// The wall-clock moment this deadline is expected to fall on, as seen from `now`.
    ///
    /// For a boot deadline of this boot it is `now.wall + (deadline - now.boot)`, which follows clock steps.
    public func expectedWall(in now: Now) -> WallTime {
        switch self {
        case .wall(let w):
            return w
        case .boot(let b, let id, let estimate):
            if id == now.bootID { return now.wall + (b - now.boot) }
            return estimate
        }
    }

    /// Whether the deadline has been reached at `now`.
    public func isDue(at now: Now) -> Bool {
        switch self {
        case .wall(let w):
            return w <= now.wall
        case .boot(let b, let id, let estimate):
            if id == now.bootID { return b <= now.boot }
            return estimate <= now.wall
        }
    }
}
