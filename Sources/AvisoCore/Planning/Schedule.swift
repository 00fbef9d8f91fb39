/// When requests are due: the first deadline of a trigger, and the next one after a firing.
///
/// Pure arithmetic on the `Now` passed in. Interval triggers count elapsed time on CLOCK_BOOTTIME (suspend
/// included); date triggers name a wall-clock instant.
public enum Schedule {
    /// The first deadline of `trigger` for a request added at `now`, or nil when a calendar spec never elapses.
    ///
    /// Intervals become `.boot(now.boot + span, ...)` with the matching wall estimate; dates become `.wall(at)`;
    /// calendar triggers `.wall(next elapse after now.wall)`, read in `zones`.
    public static func firstDeadline(for trigger: Trigger, now: Now, zones: ZoneContext) -> Deadline? {
        switch trigger {
        case .calendar(let c):
            return c.nextElapse(after: now.wall, zones: zones).map(Deadline.wall)
        case .interval(let span, _):
            return .boot(now.boot + span, bootID: now.bootID, wallEstimate: now.wall + span)
        case .date(let at):
            return .wall(at)
        }
    }

    /// The deadline after the delivery made for `fired`, or nil when the trigger does not repeat (or a calendar
    /// spec never elapses again).
    ///
    /// Occurrences missed while asleep or stopped collapse into the one delivery just made. A calendar trigger's
    /// next deadline is its first elapse strictly after `now` (and after `fired`). A repeating interval keeps its
    /// phase: the first `fired + k * span` (k >= 1) strictly after `now`; if `fired` was read in another boot, the
    /// phase is continued on the wall clock and re-anchored on this boot.
    public static func deadline(after fired: Deadline, trigger: Trigger, now: Now, zones: ZoneContext) -> Deadline? {
        switch trigger {
        case .calendar(let c):
            let from = max(now.wall, fired.expectedWall(in: now))
            return c.nextElapse(after: from, zones: zones).map(Deadline.wall)
        case .date:
            return nil
        case .interval(let span, let repeats):
            guard repeats, span > .zero else { return nil }
            switch fired {
            case .boot(let b, let id, _) where id == now.bootID:
                let next = b + span * steps(from: b.nanoseconds, to: now.boot.nanoseconds, by: span.nanoseconds)
                return .boot(next, bootID: now.bootID, wallEstimate: now.wall + (next - now.boot))
            case .boot(_, _, let estimate), .wall(let estimate):
                let next = estimate + span * steps(from: estimate.nanoseconds, to: now.wall.nanoseconds, by: span.nanoseconds)
                return .boot(now.boot + (next - now.wall), bootID: now.bootID, wallEstimate: next)
            }
        }
    }

    /// The smallest k >= 1 with `start + k * step > now`.
    private static func steps(from start: Int64, to now: Int64, by step: Int64) -> Int64 {
        guard now >= start else { return 1 }
        let (elapsed, overflow) = now.subtractingReportingOverflow(start)
        if overflow { return 1 }
        return elapsed / step + 1
    }
}

extension Trigger {
    /// A short human description: "in 10min", "every 1h 30min", "at 2026-12-01T08:00:00Z".
    public var summary: String {
        switch self {
        case .interval(let span, false): "in \(TimeSpan.format(span))"
        case .interval(let span, true): "every \(TimeSpan.format(span))"
        case .date(let at): "at \(ISO8601.format(at))"
        case .calendar(let c): "on \(c.spec)" + (c.zone.map { " (\($0))" } ?? "")
        }
    }
}

/// The zone rules calendar triggers are read in: the machine's local zone now, and a loader for named zones.
public struct ZoneContext: Sendable {
    /// Everything in UTC: for arithmetic that involves no local time.
    public static let utc = ZoneContext(local: .utc, named: { _ in .utc })

    /// The local zone in force (floating triggers follow it).
    public var local: ZoneRules
    /// The rules of a named zone, or nil if the tz database has no such zone.
    public var named: @Sendable (String) -> ZoneRules?

    /// Creates a context; `named` is called for every anchored trigger, so cache in it if loading is slow.
    public init(local: ZoneRules, named: @escaping @Sendable (String) -> ZoneRules?) {
        self.local = local
        self.named = named
    }
}
