/// Follows system sleep through systemd-logind on the system bus, and holds a delay inhibitor so that logind waits
/// for aviso before the machine sleeps.
///
/// The flow: logind's PrepareForSleep(true) becomes `.preparingForSleep`; the caller makes sure its state is on disk
/// and calls `releaseInhibitor()`, and logind goes on to suspend (it waits at most InhibitDelayMaxSec, 5 s by
/// default, if nobody releases). PrepareForSleep(false) after resume becomes `.resumed`, and the watcher takes a new
/// inhibitor by itself.
///
/// Without a system bus or without logind the watcher logs one notice and carries on; when logind appears later, it
/// takes the inhibitor then. All D-Bus work happens on a dedicated GLib thread, where `onEvent` is called: keep it
/// short (yield into an AsyncStream, send to an actor).
public final class SleepWatcher: Sendable {
    private let thread: GLibThread
    /// Whether `stop()` ends the thread too (false when it was handed in and is shared).
    private let ownsThread: Bool
    private let bus: LogindBus

    /// Prepares a watcher; nothing touches D-Bus until `start()`.
    ///
    /// - Parameters:
    ///   - busAddress: the bus to find logind on; nil for the system bus as `g_bus_get` finds it (honouring
    ///     DBUS_SYSTEM_BUS_ADDRESS). With an address the watcher uses a private connection of its own, which is what
    ///     lets tests run several watchers, each against its own bus, in one process.
    ///   - onEvent: PrepareForSleep as `SleepEvent`s; called on the watcher's GLib thread, in order.
    ///   - thread: the GLib thread to work on, shared with the other bus users; nil for one of its own.
    public init(busAddress: String? = nil, thread: GLibThread? = nil, onEvent: @escaping @Sendable (SleepEvent) -> Void) {
        self.thread = thread ?? GLibThread(name: "aviso-logind")
        ownsThread = thread == nil
        bus = LogindBus(busAddress: busAddress, thread: self.thread, onEvent: onEvent)
    }

    deinit { stop() }

    /// Connects, subscribes to PrepareForSleep, watches org.freedesktop.login1 and asks it for a sleep delay
    /// inhibitor.
    ///
    /// Returns once logind is known to be absent (or there is no bus), or once it has answered the Inhibit call;
    /// `holdsInhibitor` then tells which way it went. Never throws: sleep handling is an improvement, not a
    /// requirement, and its absence is logged once.
    public func start() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let queued = thread.perform { [bus] in bus.start { continuation.resume() } }
            if !queued { continuation.resume() }
        }
    }

    /// Closes the delay inhibitor, telling logind that aviso is ready for the machine to sleep.
    ///
    /// Call it after `.preparingForSleep` once state is on disk. A new inhibitor is taken after `.resumed`; until
    /// then the watcher holds none. Callable from any thread, `onEvent` included; does nothing when none is held.
    public func releaseInhibitor() {
        thread.perform { [bus] in bus.releaseInhibitor() }
    }

    /// Whether the watcher holds a delay inhibitor right now (an open fd from logind).
    public var holdsInhibitor: Bool { bus.holdsInhibitor.withLock { $0 } }

    /// Unsubscribes, closes the inhibitor and the connection and ends the GLib thread; no events arrive afterwards.
    /// Idempotent. Call it from outside `onEvent`.
    public func stop() {
        guard thread.perform({ [bus] in bus.stop() }) else { return }
        // From inside onEvent the thread cannot join itself; the queued teardown still runs, the thread idles.
        if ownsThread && !thread.isCurrent { thread.stop() }
    }
}
