import AvisoCore
import AvisoProtocol
internal import CNotify
internal import CShims
import Synchronization

/// The half of `Notifier` that lives on the GLib thread: the session bus connection, the name watch, the
/// NotificationClosed subscription, libnotify, and the capabilities cache.
///
/// Every method except `owner` must run on the GLib thread; that confinement is what makes `@unchecked Sendable`
/// true here.
final class NotificationBus: @unchecked Sendable {
    static let name = "org.freedesktop.Notifications"
    static let path = "/org/freedesktop/Notifications"
    /// D-Bus timeout for our own small calls; a server that takes longer is as good as absent.
    static let callTimeoutMilliseconds: Int32 = 5_000

    let appName: String
    let desktopEntry: String
    let onEvent: @Sendable (NotifierEvent) -> Void
    /// The unique name owning org.freedesktop.Notifications; read from any thread.
    let owner = Mutex<String?>(nil)

    private var connection: OpaquePointer?
    private var watchID: UInt32 = 0
    private var subscriptionID: UInt32 = 0
    private var capabilities: (owner: String, list: [String])?
    private var whenWatchSettles: (() -> Void)?

    init(appName: String, desktopEntry: String, onEvent: @escaping @Sendable (NotifierEvent) -> Void) {
        self.appName = appName
        self.desktopEntry = desktopEntry
        self.onEvent = onEvent
    }

    // MARK: Lifecycle

    /// Initialises libnotify, connects, and calls `done` once the name watch knows whether a server is there.
    func start(_ done: @escaping () -> Void) {
        // libnotify's cached proxy follows name owners through the context it was created in; re-initialising here
        // makes that this thread's context even if an earlier Notifier in this process created it elsewhere.
        notify_uninit()
        notify_init(appName)
        guard connect() else { return done() }
        whenWatchSettles = done
    }

    /// Drops the watch and subscription and uninitialises libnotify; no events are sent afterwards.
    func stop() {
        disconnect()
        notify_uninit()
        whenWatchSettles?()
        whenWatchSettles = nil
    }

    private func disconnect() {
        guard let connection else { return }
        if watchID != 0 { g_bus_unwatch_name(watchID) }
        if subscriptionID != 0 { g_dbus_connection_signal_unsubscribe(connection, subscriptionID) }
        g_object_unref(UnsafeMutableRawPointer(connection))
        watchID = 0
        subscriptionID = 0
        self.connection = nil
    }

    /// Connects to the session bus, again if the bus went away; false when there is none (no
    /// DBUS_SESSION_BUS_ADDRESS, bus daemon down).
    private func connect() -> Bool {
        if let connection {
            if g_dbus_connection_is_closed(connection) == 0 { return true }
            // The bus daemon restarted: GLib hands out a fresh shared connection, and libnotify's proxy must follow.
            disconnect()
            notify_uninit()
            notify_init(appName)
        }
        var error: UnsafeMutablePointer<GError>?
        guard let bus = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error) else {
            g_error_free(error)
            return false
        }
        // GLib's default for the shared session connection is to exit the process when the bus goes away; the
        // daemon should instead report "no server" and carry on.
        g_dbus_connection_set_exit_on_close(bus, 0)
        connection = bus
        let me = Unmanaged.passRetained(self).toOpaque()
        subscriptionID = g_dbus_connection_signal_subscribe(
            bus, nil, NotificationBus.name, "NotificationClosed", NotificationBus.path, nil,
            G_DBUS_SIGNAL_FLAGS_NONE,
            { _, sender, _, _, _, parameters, data in
                let bus = Unmanaged<NotificationBus>.fromOpaque(data!).takeUnretainedValue()
                bus.notificationClosed(sender: sender.map { String(cString: $0) }, parameters!)
            },
            me, { data in Unmanaged<NotificationBus>.fromOpaque(data!).release() })
        let me2 = Unmanaged.passRetained(self).toOpaque()
        watchID = g_bus_watch_name_on_connection(
            bus, NotificationBus.name, G_BUS_NAME_WATCHER_FLAGS_NONE,
            { _, _, owner, data in
                Unmanaged<NotificationBus>.fromOpaque(data!).takeUnretainedValue().ownerChanged(String(cString: owner!))
            },
            { _, _, data in
                Unmanaged<NotificationBus>.fromOpaque(data!).takeUnretainedValue().ownerChanged(nil)
            },
            me2, { data in Unmanaged<NotificationBus>.fromOpaque(data!).release() })
        return true
    }

    // MARK: Signals

    private func ownerChanged(_ newOwner: String?) {
        let old = owner.withLock { current in
            defer { current = newOwner }
            return current
        }
        if let settled = whenWatchSettles {
            whenWatchSettles = nil
            settled()
        }
        guard old != newOwner else { return }
        if old != nil && newOwner != nil { onEvent(.serverVanished) }
        onEvent(newOwner.map { .serverAppeared(owner: $0) } ?? .serverVanished)
    }

    private func notificationClosed(sender: String?, _ parameters: OpaquePointer) {
        guard String(cString: g_variant_get_type_string(parameters)) == "(uu)" else { return }
        // Only the server may close its popups; anyone on the bus can emit a look-alike signal.
        let current = owner.withLock { $0 }
        if let current, let sender, sender != current { return }
        let id = GVariantReader.uint32(parameters, at: 0)
        let reason = GVariantReader.uint32(parameters, at: 1)
        onEvent(.closed(serverID: id, reason: CloseReason(rawValue: reason) ?? .undefined))
    }

    // MARK: Calls

    /// Calls a method on the notification server (the current owner when known) and returns the reply tuple.
    func call(_ method: String, _ parameters: OpaquePointer? = nil) -> Result<OpaquePointer, DeliveryError> {
        guard connect(), let connection else { return .failure(.noServer("no D-Bus session bus")) }
        let destination = owner.withLock { $0 } ?? NotificationBus.name
        var error: UnsafeMutablePointer<GError>?
        let reply = g_dbus_connection_call_sync(
            connection, destination, NotificationBus.path, NotificationBus.name, method, parameters, nil,
            G_DBUS_CALL_FLAGS_NONE, NotificationBus.callTimeoutMilliseconds, nil, &error)
        if let reply { return .success(reply) }
        return .failure(NotificationBus.deliveryError(error, doing: method))
    }

    /// The server's capabilities, cached per owner; empty when it cannot be asked.
    func capabilities(ownerHint: String?) -> [String] {
        let current = owner.withLock { $0 }
        if let cached = capabilities, cached.owner == current, ownerHint == nil || ownerHint == current {
            return cached.list
        }
        guard case .success(let reply) = call("GetCapabilities") else { return [] }
        defer { g_variant_unref(reply) }
        let list = GVariantReader.strings(reply, at: 0)
        capabilities = current.map { ($0, list) }
        return list
    }

    /// GetServerInformation and GetCapabilities, or nil when no server answers.
    func serverInfo() -> ServerInfo? {
        guard case .success(let reply) = call("GetServerInformation") else { return nil }
        defer { g_variant_unref(reply) }
        guard String(cString: g_variant_get_type_string(reply)) == "(ssss)" else { return nil }
        let field = { GVariantReader.string(reply, at: $0) }
        return ServerInfo(
            name: field(0), vendor: field(1), version: field(2), specVersion: field(3),
            capabilities: capabilities(ownerHint: nil))
    }

    /// CloseNotification(id); errors are ignored because the popup is gone either way or the server will forget it.
    func close(serverID: UInt32) {
        if case .success(let reply) = call("CloseNotification", g_variant_new_tuple([g_variant_new_uint32(serverID)], 1)) {
            g_variant_unref(reply)
        }
    }

    /// Asks the bus who owns the name, for when a server answered before the watch reported it.
    func lookUpOwner() -> String? {
        guard let connection else { return nil }
        var error: UnsafeMutablePointer<GError>?
        let reply = g_dbus_connection_call_sync(
            connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
            g_variant_new_tuple([g_variant_new_string(NotificationBus.name)], 1), nil, G_DBUS_CALL_FLAGS_NONE,
            NotificationBus.callTimeoutMilliseconds, nil, &error)
        guard let reply else {
            g_error_free(error)
            return nil
        }
        defer { g_variant_unref(reply) }
        return GVariantReader.string(reply, at: 0)
    }

    /// Turns a GError from a D-Bus call into a DeliveryError, freeing it.
    static func deliveryError(_ error: UnsafeMutablePointer<GError>?, doing what: String) -> DeliveryError {
        guard let error else { return DeliveryError(isNoServer: false, message: "\(what) failed") }
        defer { g_error_free(error) }
        var remote: String?
        if let name = g_dbus_error_get_remote_error(error) {
            remote = String(cString: name)
            g_free(name)
        }
        g_dbus_error_strip_remote_error(error)
        let message = String(cString: error.pointee.message)
        let absent = ["org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner"]
        let noOwner = error.pointee.domain == g_dbus_error_quark()
            && (error.pointee.code == G_DBUS_ERROR_SERVICE_UNKNOWN.rawValue
                || error.pointee.code == G_DBUS_ERROR_NAME_HAS_NO_OWNER.rawValue)
        if noOwner || remote.map(absent.contains) == true {
            return .noServer(message)
        }
        // The bus itself is gone (closed connection): nobody can be reached.
        if error.pointee.domain == g_io_error_quark() && error.pointee.code == G_IO_ERROR_CLOSED.rawValue {
            return .noServer("the session bus connection is closed")
        }
        return DeliveryError(isNoServer: false, message: "\(what) failed: \(message)")
    }
}
