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

    /// Starts the thread; its loop runs until `stop()`.
    public init(name: String) {
        context = g_main_context_new()
        loop = g_main_loop_new(context, 0)
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

    /// Quits the loop once queued work has run and waits for the thread to end. Must not be called on the thread.
    public func stop() {
        precondition(!isCurrent, "GLibThread.stop() on its own thread would deadlock")
        let wasClosed = closed.withLock { closed in
            defer { closed = true }
            // Quitting from a queued item lets work queued earlier (such as teardown) finish first.
            if !closed { enqueue { [self] in g_main_loop_quit(self.loop) } }
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
