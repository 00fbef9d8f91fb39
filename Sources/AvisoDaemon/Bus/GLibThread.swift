internal import CNotify
import Synchronization

/// A dedicated thread running a GLib main loop on its own GMainContext: the one thread where aviso's D-Bus work
/// happens, for both buses (notifications on the session bus, logind on the system bus).
///
/// GDBus delivers callbacks to the context that was thread-default when they were set up. Running all of that here
/// keeps the async world free of GLib: callers hand work over with `perform` and resume from a continuation.
public final class GLibThread: @unchecked Sendable {
    // Immutable after init; GMainContext and GMainLoop are thread-safe to reference from anywhere.
    private let context: OpaquePointer
    private let loop: OpaquePointer
    private var thread: UnsafeMutablePointer<GThread>?
    /// Set by `stop()`; work offered afterwards is refused instead of being queued behind a loop that has quit.
    private let closed = Mutex(false)
    /// Cancelled by `stop()`: every call made through `BusCall` on this thread carries it, so that a call still
    /// waiting for its answer ends (with G_IO_ERROR_CANCELLED) instead of leaving its caller waiting for ever.
    let cancellable: UnsafeMutablePointer<GCancellable>
    /// Calls begun and not yet answered, and whether the loop quits when the last one is; on the GLib thread only.
    private var callsInFlight = 0
    private var quitting = false

    /// Starts the thread; its loop runs until `stop()`.
    public init(name: String) {
        context = g_main_context_new()
        loop = g_main_loop_new(context, 0)
        cancellable = g_cancellable_new()
        thread = g_thread_new(name, { data in
            let me = Unmanaged<GLibThread>.fromOpaque(data!).takeRetainedValue()
            g_main_context_push_thread_default(me.context)
            g_main_loop_run(me.loop)
            g_main_context_pop_thread_default(me.context)
            return nil
        }, Unmanaged.passRetained(self).toOpaque())
    }

    deinit {
        g_main_loop_unref(loop)
        g_main_context_unref(context)
        g_object_unref(UnsafeMutableRawPointer(cancellable))
    }

    /// Runs `work` on the GLib thread, after work queued before it; immediately when already on it.
    ///
    /// Returns false, without running `work`, once `stop()` has begun.
    @discardableResult
    func perform(_ work: @escaping @Sendable () -> Void) -> Bool {
        closed.withLock { closed in
            if closed { return false }
            enqueue(work)
            return true
        }
    }

    private func enqueue(_ work: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(WorkBox(work)).toOpaque()
        g_main_context_invoke_full(
            context, 0 /* G_PRIORITY_DEFAULT */,
            { data in
                Unmanaged<WorkBox>.fromOpaque(data!).takeUnretainedValue().work()
                return 0 /* G_SOURCE_REMOVE */
            },
            box,
            { data in Unmanaged<WorkBox>.fromOpaque(data!).release() })
    }

    /// True when called on this thread (for preconditions).
    var isCurrent: Bool { g_main_context_is_owner(context) != 0 }

    /// A call that carries `cancellable` has been made; `callEnded()` follows from its reply callback.
    func callBegan() { callsInFlight += 1 }

    func callEnded() {
        callsInFlight -= 1
        if quitting && callsInFlight == 0 { g_main_loop_quit(loop) }
    }

    /// Quits the loop once queued work has run and every call still in flight has ended (cancelled, so at once), and
    /// waits for the thread to end. Must not be called on the thread.
    public func stop() {
        precondition(!isCurrent, "GLibThread.stop() on its own thread would deadlock")
        let wasClosed = closed.withLock { closed in
            defer { closed = true }
            // Quitting from a queued item lets work queued earlier (such as teardown) finish first.
            if !closed {
                enqueue { [self] in
                    quitting = true
                    g_cancellable_cancel(cancellable)
                    if callsInFlight == 0 { g_main_loop_quit(loop) }
                }
            }
            return closed
        }
        guard !wasClosed, let thread else { return }
        self.thread = nil
        g_thread_join(thread)
    }
}

private final class WorkBox {
    let work: @Sendable () -> Void
    init(_ work: @escaping @Sendable () -> Void) { self.work = work }
}
