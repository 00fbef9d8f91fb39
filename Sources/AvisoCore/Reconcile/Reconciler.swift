/// What the timer backend must do to make the armed timers match the plan.
public enum TimerAction: Hashable, Sendable {
    /// Arm (or re-arm, replacing any timer of the same id) this timer.
    case arm(TimerSpec)
    /// Disarm and forget the timer of this id.
    case disarm(String)
}

/// Compares the desired timers with the armed ones and returns the actions that close the difference.
public enum Reconciler {
    /// Disarms what is armed but no longer desired (sorted by id), then arms what is desired but not armed
    /// identically (in desired order).
    ///
    /// A changed deadline or clock yields only `.arm`: the backend replaces the timer of that id. Identical timers
    /// are left alone, so reconciling an unchanged model returns `[]`. Ids in `desired` are expected to be unique.
    public static func diff(desired: [TimerSpec], armed: [String: TimerSpec]) -> [TimerAction] {
        let wanted = Set(desired.map(\.id))
        var actions = armed.keys.filter { !wanted.contains($0) }.sorted().map(TimerAction.disarm)
        for spec in desired where armed[spec.id] != spec {
            actions.append(.arm(spec))
        }
        return actions
    }
}
