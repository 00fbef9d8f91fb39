internal import CNotify

/// Asynchronous D-Bus calls whose answers come back as Swift closures, on the GLib context that was the calling
/// thread's default when the call was made (the daemon's GLib thread, `thread`).
///
/// Nothing here blocks: a server that never answers costs a pending call, not a thread. Every call with an answer
/// carries the thread's cancellable, so that `GLibThread.stop()` ends it and its closure still runs, with an error.
enum BusCall {
    /// Calls `method`; `done` receives the reply tuple, which GDBus has checked to be of `replyType` (borrowed:
    /// valid during the call), or the error (freed after `done` returns).
    static func call(
        on thread: GLibThread, _ connection: OpaquePointer, destination: String, path: String, interface: String, method: String,
        parameters: OpaquePointer?, replyType: String, timeoutMilliseconds: Int32,
        _ done: @escaping (OpaquePointer?, UnsafeMutablePointer<GError>?) -> Void
    ) {
        let type = g_variant_type_new(replyType)
        defer { g_variant_type_free(type) }
        let box = Unmanaged.passRetained(Answer(thread: thread, done: done)).toOpaque()
        thread.callBegan()
        g_dbus_connection_call(
            connection, destination, path, interface, method, parameters, type, G_DBUS_CALL_FLAGS_NONE,
            timeoutMilliseconds, thread.cancellable,
            { source, result, data in
                let answer = Unmanaged<Answer>.fromOpaque(data!).takeRetainedValue()
                var error: UnsafeMutablePointer<GError>?
                let reply = g_dbus_connection_call_finish(OpaquePointer(source), result, &error)
                answer.deliver(reply, error)
                if let reply { g_variant_unref(reply) }
            },
            box)
    }

    /// Calls `method` without waiting for, or caring about, the answer.
    static func send(
        _ connection: OpaquePointer, destination: String, path: String, interface: String, method: String,
        parameters: OpaquePointer?
    ) {
        g_dbus_connection_call(
            connection, destination, path, interface, method, parameters, nil, G_DBUS_CALL_FLAGS_NO_AUTO_START, -1, nil,
            nil, nil)
    }

    /// Sends a method call message and waits without a time limit; `done` receives the reply message (a method
    /// return or an error message, borrowed: valid during the call) or a local error such as a closed connection
    /// (freed after `done` returns).
    ///
    /// No time limit, because giving up on a call does not take it back: the server may still act on it.
    static func send(
        on thread: GLibThread, _ connection: OpaquePointer, message: OpaquePointer,
        _ done: @escaping (OpaquePointer?, UnsafeMutablePointer<GError>?) -> Void
    ) {
        let box = Unmanaged.passRetained(Answer(thread: thread, done: done)).toOpaque()
        thread.callBegan()
        g_dbus_connection_send_message_with_reply(
            connection, message, G_DBUS_SEND_MESSAGE_FLAGS_NONE, Int32.max, nil, thread.cancellable,
            { source, result, data in
                let answer = Unmanaged<Answer>.fromOpaque(data!).takeRetainedValue()
                var error: UnsafeMutablePointer<GError>?
                let reply = g_dbus_connection_send_message_with_reply_finish(OpaquePointer(source), result, &error)
                answer.deliver(reply, error)
                if let reply { g_object_unref(UnsafeMutableRawPointer(reply)) }
            },
            box)
    }

    /// Where an answer goes, carried through GLib's `user_data`: the caller's closure, then the thread's count of
    /// calls in flight.
    private final class Answer {
        let thread: GLibThread
        let done: (OpaquePointer?, UnsafeMutablePointer<GError>?) -> Void

        init(thread: GLibThread, done: @escaping (OpaquePointer?, UnsafeMutablePointer<GError>?) -> Void) {
            self.thread = thread
            self.done = done
        }

        /// Calls `done` (with `error`, freed afterwards) and counts the call as ended.
        func deliver(_ reply: OpaquePointer?, _ error: UnsafeMutablePointer<GError>?) {
            done(reply, error)
            if let error { g_error_free(error) }
            thread.callEnded()
        }
    }
}
