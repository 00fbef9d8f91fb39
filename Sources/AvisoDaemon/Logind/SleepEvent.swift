/// What logind announced: system sleep (its PrepareForSleep signal) and the lock state of the user's session.
public enum SleepEvent: Sendable, Hashable {
    /// The machine is about to suspend or hibernate: make sure state is on disk, then call
    /// `SleepWatcher.releaseInhibitor()` so logind stops waiting for aviso.
    case preparingForSleep
    /// The machine woke up (or the sleep attempt failed): reconcile at once; wall-clock deadlines may have passed.
    case resumed
    /// The user's graphical session was locked (true) or unlocked (false): its LockedHint. Sent once logind is
    /// found (with the state then), and on every change.
    case lockChanged(Bool)
}
