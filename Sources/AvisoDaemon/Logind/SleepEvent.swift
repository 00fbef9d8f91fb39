/// What logind announced about system sleep (its PrepareForSleep signal).
public enum SleepEvent: Sendable, Hashable {
    /// The machine is about to suspend or hibernate: make sure state is on disk, then call
    /// `SleepWatcher.releaseInhibitor()` so logind stops waiting for aviso.
    case preparingForSleep
    /// The machine woke up (or the sleep attempt failed): reconcile at once; wall-clock deadlines may have passed.
    case resumed
}
