import AvisoCore

/// What the timer backend reports.
public enum TimerEvent: Sendable, Hashable {
    /// The timer armed as `id` reached its deadline; it is now disarmed (timers are one-shot).
    case fired(id: String)
    /// The realtime clock was stepped, or the system resumed from suspend: wall deadlines must be re-planned.
    ///
    /// Armed realtime timers keep their absolute deadlines (re-armed by the backend), so one now in the past
    /// fires at once; what changes is which deadlines the planner should choose.
    case clockChanged
}

/// Absolute one-shot timers keyed by id: the only place that arms kernel timers.
///
/// The scheduler diffs desired against armed timers and calls `arm`/`disarm`; tests substitute a fake.
public protocol TimerBackend: Sendable {
    /// Arms (or re-arms, replacing) the timer `spec.id` at the absolute deadline on its clock.
    ///
    /// A deadline in the past fires at once.
    func arm(_ spec: TimerSpec) throws(SystemError)
    /// Disarms the timer `id`; a no-op if it is not armed. A firing already reported is not taken back.
    func disarm(_ id: String)
    /// How many timers are armed and have not fired.
    var armedCount: Int { get }
    /// Firings and clock changes, in the order they were observed. One consumer.
    var events: AsyncStream<TimerEvent> { get }
}
