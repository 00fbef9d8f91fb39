internal import CNotify
import Glibc
import Synchronization

/// The half of `SleepWatcher` that lives on the GLib thread: the system bus connection, the watch on
/// org.freedesktop.login1, the PrepareForSleep subscription, and the delay inhibitor's fd.
///
/// Every method must run on the GLib thread; that confinement is what makes `@unchecked Sendable` true here.
final class LogindBus: @unchecked Sendable {
    static let name = "org.freedesktop.login1"
    static let path = "/org/freedesktop/login1"
    static let interface = "org.freedesktop.login1.Manager"
    /// D-Bus timeout for Inhibit; a logind that takes longer is as good as absent.
    static let callTimeoutMilliseconds: Int32 = 5_000

    let busAddress: String?
    /// The GLib thread this runs on; its stop cancels the calls still waiting for logind.
    let thread: GLibThread
    let onEvent: @Sendable (SleepEvent) -> Void
    /// Whether a delay inhibitor fd is open; read from any thread.
    let holdsInhibitor = Mutex(false)

    var connection: OpaquePointer?
    private var watchID: UInt32 = 0
    private var subscriptionID: UInt32 = 0
    var owner: String?
    /// The session followed for its LockedHint (`LogindBus+Session`).
    var session = SessionFollow()
    private var inhibitorFD: Int32 = -1
    private var inhibitInFlight = false
    /// Bumped by `stop()`, so an Inhibit reply that arrives afterwards closes its fd instead of keeping it.
    private var generation = 0
    private var whenSettled: (() -> Void)?
    /// "Not there" is said once per absence, never per event: a machine without logind hears it at startup only.
    private var reportedAbsence = false
    private var reportedRefusal = false

    init(busAddress: String?, thread: GLibThread, onEvent: @escaping @Sendable (SleepEvent) -> Void) {
        self.busAddress = busAddress
        self.thread = thread
        self.onEvent = onEvent
    }

    // MARK: Lifecycle

    /// Connects, subscribes and watches logind; calls `done` once logind is known to be absent, or present and
    /// asked for the inhibitor (whatever it answered).
    func start(_ done: @escaping () -> Void) {
        guard connection == nil else { return done() }
        guard let bus = connect() else { return done() }
        connection = bus
        whenSettled = done
        subscribe(bus)
        watch(bus)
    }

    /// Drops the watch and subscription, closes the inhibitor and the connection; no events are sent afterwards.
    func stop() {
        generation += 1
        inhibitInFlight = false
        closeInhibitor()
        forgetSession()
        if let connection {
            if watchID != 0 { g_bus_unwatch_name(watchID) }
            if subscriptionID != 0 { g_dbus_connection_signal_unsubscribe(connection, subscriptionID) }
            // A private connection is ours to close; the shared system connection belongs to the whole process.
            if busAddress != nil { g_dbus_connection_close_sync(connection, nil, nil) }
            g_object_unref(UnsafeMutableRawPointer(connection))
        }
        watchID = 0
        subscriptionID = 0
        connection = nil
        owner = nil
        settle()
    }

    /// Closes the inhibitor fd, which tells logind that aviso is ready for the machine to sleep.
    func releaseInhibitor() {
        closeInhibitor()
    }

    // MARK: Connection

    /// The system bus (as `g_bus_get` finds it, honouring DBUS_SYSTEM_BUS_ADDRESS) or the bus at `busAddress`;
    /// nil, after a notice, when there is none.
    private func connect() -> OpaquePointer? {
        var error: UnsafeMutablePointer<GError>?
        let bus: OpaquePointer?
        if let busAddress {
            let flags = GDBusConnectionFlags(
                G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                    | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
            bus = g_dbus_connection_new_for_address_sync(busAddress, flags, nil, nil, &error)
        } else {
            bus = g_bus_get_sync(G_BUS_TYPE_SYSTEM, nil, &error)
        }
        guard let bus else {
            reportAbsence("there is no system bus (\(LogindBus.message(error)))")
            return nil
        }
        // GLib's default for the shared system connection is to exit the process when the bus goes away.
        g_dbus_connection_set_exit_on_close(bus, 0)
        return bus
    }

    private func subscribe(_ bus: OpaquePointer) {
        subscriptionID = g_dbus_connection_signal_subscribe(
            bus, LogindBus.name, LogindBus.interface, "PrepareForSleep", LogindBus.path, nil,
            G_DBUS_SIGNAL_FLAGS_NONE,
            { _, sender, _, _, _, parameters, data in
                let me = Unmanaged<LogindBus>.fromOpaque(data!).takeUnretainedValue()
                me.prepareForSleep(sender: sender.map { String(cString: $0) }, parameters!)
            },
            Unmanaged.passRetained(self).toOpaque(),
            { data in Unmanaged<LogindBus>.fromOpaque(data!).release() })
    }

    private func watch(_ bus: OpaquePointer) {
        watchID = g_bus_watch_name_on_connection(
            bus, LogindBus.name, G_BUS_NAME_WATCHER_FLAGS_NONE,
            { _, _, owner, data in
                Unmanaged<LogindBus>.fromOpaque(data!).takeUnretainedValue().ownerChanged(String(cString: owner!))
            },
            { _, _, data in
                Unmanaged<LogindBus>.fromOpaque(data!).takeUnretainedValue().ownerChanged(nil)
            },
            Unmanaged.passRetained(self).toOpaque(),
            { data in Unmanaged<LogindBus>.fromOpaque(data!).release() })
    }

    // MARK: Events

    private func ownerChanged(_ newOwner: String?) {
        let old = owner
        owner = newOwner
        guard let newOwner else {
            // Inhibitors die with the logind that granted them (and with the bus connection).
            closeInhibitor()
            forgetSession()
            if old != nil {
                Log.notice("logind left the system bus; a sleep delay inhibitor is taken again when it returns")
                reportedAbsence = true
            } else {
                reportAbsence("logind is not on the system bus")
            }
            return settle()
        }
        if old != nil && old != newOwner { closeInhibitor() }
        if reportedAbsence {
            Log.notice("logind is on the system bus now; aviso holds a sleep delay inhibitor from here on")
            reportedAbsence = false
        }
        takeInhibitor()
        followSession()
    }

    private func prepareForSleep(sender: String?, _ parameters: OpaquePointer) {
        guard String(cString: g_variant_get_type_string(parameters)) == "(b)" else { return }
        // Only logind may announce sleep; anyone on the bus can emit a look-alike signal.
        guard let owner, sender == owner else { return }
        let child = g_variant_get_child_value(parameters, 0)!
        let starting = g_variant_get_boolean(child) != 0
        g_variant_unref(child)
        if starting {
            onEvent(.preparingForSleep)
        } else {
            onEvent(.resumed)
            takeInhibitor()
        }
    }

    // MARK: Inhibitor

    /// Asks logind for a sleep delay inhibitor unless one is held or asked for; the reply arrives on this thread.
    private func takeInhibitor() {
        guard let connection, owner != nil, inhibitorFD < 0, !inhibitInFlight else { return settle() }
        inhibitInFlight = true
        var args: [OpaquePointer?] = ["sleep", "aviso", "Saving notification state before sleep", "delay"]
            .map { (text: String) in g_variant_new_string(text) }
        let request = InhibitRequest(bus: self, generation: generation, owner: owner)
        let replyType = g_variant_type_new("(h)")
        defer { g_variant_type_free(replyType) }
        thread.callBegan()
        g_dbus_connection_call_with_unix_fd_list(
            connection, LogindBus.name, LogindBus.path, LogindBus.interface, "Inhibit",
            g_variant_new_tuple(&args, 4), replyType, G_DBUS_CALL_FLAGS_NONE,
            LogindBus.callTimeoutMilliseconds, nil, thread.cancellable,
            { source, result, data in
                let request = Unmanaged<InhibitRequest>.fromOpaque(data!).takeRetainedValue()
                request.bus.inhibitReplied(source: OpaquePointer(source), result!, request)
            },
            Unmanaged.passRetained(request).toOpaque())
    }

    private func inhibitReplied(source: OpaquePointer?, _ result: OpaquePointer, _ request: InhibitRequest) {
        defer { thread.callEnded() }
        var fds: UnsafeMutablePointer<GUnixFDList>?
        var error: UnsafeMutablePointer<GError>?
        let reply = g_dbus_connection_call_with_unix_fd_list_finish(source, &fds, result, &error)
        let fd = reply.map { LogindBus.takeFD(reply: $0, list: fds) } ?? -1
        if let reply { g_variant_unref(reply) }
        if let fds { g_object_unref(UnsafeMutableRawPointer(fds)) }
        guard request.generation == generation else {
            if fd >= 0 { close(fd) }
            if let error { g_error_free(error) }
            return
        }
        inhibitInFlight = false
        guard request.owner == owner else {
            // logind left or restarted while answering: that inhibitor is worthless, ask the current one.
            if fd >= 0 { close(fd) }
            if let error { g_error_free(error) }
            return takeInhibitor()
        }
        if fd >= 0 {
            inhibitorFD = fd
            holdsInhibitor.withLock { $0 = true }
            reportedRefusal = false
        } else if !reportedRefusal {
            reportedRefusal = true
            let why = reply == nil ? LogindBus.message(error) : "the reply carried no file descriptor"
            Log.warning("logind gave no sleep delay inhibitor (\(why)); suspend will not wait for aviso")
        } else if let error {
            g_error_free(error)
        }
        settle()
    }

    private func closeInhibitor() {
        guard inhibitorFD >= 0 else { return }
        close(inhibitorFD)
        inhibitorFD = -1
        holdsInhibitor.withLock { $0 = false }
    }

    // MARK: Helpers

    private func settle() {
        let done = whenSettled
        whenSettled = nil
        done?()
    }

    private func reportAbsence(_ what: String) {
        guard !reportedAbsence else { return }
        reportedAbsence = true
        Log.notice("\(what): suspend will not wait for aviso, and resume is noticed through the wall clock only")
    }

    /// The fd a `(h)` reply points at in its fd list, owned by the caller; -1 when there is none.
    private static func takeFD(reply: OpaquePointer, list: UnsafeMutablePointer<GUnixFDList>?) -> Int32 {
        guard let list, String(cString: g_variant_get_type_string(reply)) == "(h)" else { return -1 }
        let child = g_variant_get_child_value(reply, 0)!
        let index = Int(g_variant_get_handle(child))
        g_variant_unref(child)
        var count: Int32 = 0
        guard let fds = g_unix_fd_list_steal_fds(list, &count) else { return -1 }
        defer { g_free(fds) }
        var kept: Int32 = -1
        for i in 0..<Int(count) {
            if i == index { kept = fds[i] } else { close(fds[i]) }
        }
        return kept
    }

    /// The GError's message, freeing it.
    static func message(_ error: UnsafeMutablePointer<GError>?) -> String {
        guard let error else { return "unknown error" }
        defer { g_error_free(error) }
        g_dbus_error_strip_remote_error(error)
        return String(cString: error.pointee.message)
    }
}

/// What an Inhibit reply needs to find its way back: the bus, and which start it belongs to.
private final class InhibitRequest {
    let bus: LogindBus
    let generation: Int
    /// The logind asked; a reply from one that has since left is dropped.
    let owner: String?
    init(bus: LogindBus, generation: Int, owner: String?) {
        self.bus = bus
        self.generation = generation
        self.owner = owner
    }
}
