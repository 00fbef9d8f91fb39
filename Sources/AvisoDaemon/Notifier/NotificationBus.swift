import AvisoCore
import AvisoProtocol
internal import CNotify
import Synchronization

/// The half of `Notifier` that lives on the GLib thread: the session bus connection, the name watch, the
/// NotificationClosed subscription, the capabilities cache and the calls to the server.
///
/// Every call is asynchronous (its answer arrives later on this thread), so a slow or frozen server holds up nothing:
/// other popups are sent behind it and the scheduler is never waiting on D-Bus. Every method except `owner` must run
/// on the GLib thread; that confinement is what makes `@unchecked Sendable` true here.
final class NotificationBus: @unchecked Sendable {
    static let name = "org.freedesktop.Notifications"
    static let path = "/org/freedesktop/Notifications"
    /// D-Bus timeout for the small questions (capabilities, server information); a server that takes longer is
    /// treated as having none to give. Notify itself has no timeout (see `BusCall.send`).
    static let callTimeoutMilliseconds: Int32 = 5_000

    let appName: String
    let desktopEntry: String
    /// The GLib thread this runs on; its stop cancels the calls still waiting for the server.
    let thread: GLibThread
    let onEvent: @Sendable (NotifierEvent) -> Void
    /// The unique name owning org.freedesktop.Notifications; read from any thread.
    let owner = Mutex<String?>(nil)

    private(set) var connection: OpaquePointer?
    private var watchID: UInt32 = 0
    private var subscriptionID: UInt32 = 0
    private var capabilities: (owner: String, list: [String])?
    /// Work waiting for a GetCapabilities answer, in order; nil while none is being asked.
    private var capabilityWaiters: [([String]) -> Void]?
    private var whenWatchSettles: (() -> Void)?

    init(appName: String, desktopEntry: String, thread: GLibThread, onEvent: @escaping @Sendable (NotifierEvent) -> Void) {
        self.appName = appName
        self.desktopEntry = desktopEntry
        self.thread = thread
        self.onEvent = onEvent
    }

    // MARK: Lifecycle

    /// Connects and calls `done` once the name watch knows whether a server is there (at once without a bus).
    func start(_ done: @escaping () -> Void) {
        guard connect() else { return done() }
        whenWatchSettles = done
    }

    /// Drops the watch and subscription; no events are sent afterwards.
    func stop() {
        disconnect()
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
    func connect() -> Bool {
        if let connection {
            if g_dbus_connection_is_closed(connection) == 0 { return true }
            // The bus daemon restarted: GLib hands out a fresh shared connection.
            disconnect()
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
        subscriptionID = g_dbus_connection_signal_subscribe(
            bus, nil, NotificationBus.name, nil, NotificationBus.path, nil,
            G_DBUS_SIGNAL_FLAGS_NONE,
            { _, sender, _, _, member, parameters, data in
                let bus = Unmanaged<NotificationBus>.fromOpaque(data!).takeUnretainedValue()
                bus.signal(String(cString: member!), sender: sender.map { String(cString: $0) }, parameters!)
            },
            Unmanaged.passRetained(self).toOpaque(), { data in Unmanaged<NotificationBus>.fromOpaque(data!).release() })
        watchID = g_bus_watch_name_on_connection(
            bus, NotificationBus.name, G_BUS_NAME_WATCHER_FLAGS_NONE,
            { _, _, owner, data in
                Unmanaged<NotificationBus>.fromOpaque(data!).takeUnretainedValue().ownerChanged(String(cString: owner!))
            },
            { _, _, data in
                Unmanaged<NotificationBus>.fromOpaque(data!).takeUnretainedValue().ownerChanged(nil)
            },
            Unmanaged.passRetained(self).toOpaque(), { data in Unmanaged<NotificationBus>.fromOpaque(data!).release() })
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

    /// NotificationClosed, ActionInvoked, NotificationReplied and ActivationToken, from the server that owns the name
    /// (anyone on the bus can emit a look-alike signal); other signals and other shapes are ignored.
    private func signal(_ member: String, sender: String?, _ parameters: OpaquePointer) {
        let current = owner.withLock { $0 }
        if let current, let sender, sender != current { return }
        switch member {
        case "NotificationClosed":
            guard let (id, reason) = GVariantReader.uint32Pair(parameters) else { return }
            onEvent(.closed(serverID: id, reason: CloseReason(rawValue: reason) ?? .undefined))
        case "ActionInvoked", "NotificationReplied", "ActivationToken":
            guard GVariantReader.type(parameters) == "(us)" else { return }
            let id = GVariantReader.uint32(parameters, at: 0)
            let text = GVariantReader.string(parameters, at: 1)
            onEvent(member == "ActionInvoked" ? .actionInvoked(serverID: id, key: text)
                : member == "NotificationReplied" ? .replied(serverID: id, text: text)
                : .activationToken(serverID: id, token: text))
        default:
            return
        }
    }

    // MARK: Calls

    /// Calls a method of the notification server (the current owner when known) and hands `done` the reply, checked
    /// to be of `replyType`, or a `DeliveryError`.
    func call(
        _ method: String, _ parameters: OpaquePointer? = nil, replyType: String,
        _ done: @escaping (Result<OpaquePointer, DeliveryError>) -> Void
    ) {
        guard connect(), let connection else { return done(.failure(.noServer("no D-Bus session bus"))) }
        let destination = owner.withLock { $0 } ?? NotificationBus.name
        BusCall.call(
            on: thread, connection, destination: destination, path: NotificationBus.path, interface: NotificationBus.name,
            method: method, parameters: parameters, replyType: replyType,
            timeoutMilliseconds: NotificationBus.callTimeoutMilliseconds
        ) { reply, error in
            if let reply { done(.success(reply)) } else { done(.failure(NotificationBus.deliveryError(error, doing: method))) }
        }
    }

    /// Hands `body` the server's capabilities, asking the server only when the cached ones belong to another
    /// owner (or `ownerHint` says the caller heard of another one); empty when it cannot be asked. Work handed in
    /// while the question is out runs after it, in order.
    func withCapabilities(ownerHint: String?, _ body: @escaping ([String]) -> Void) {
        if capabilityWaiters != nil {
            capabilityWaiters!.append(body)
            return
        }
        let current = owner.withLock { $0 }
        if let cached = capabilities, cached.owner == current, ownerHint == nil || ownerHint == current {
            return body(cached.list)
        }
        capabilityWaiters = [body]
        call("GetCapabilities", replyType: "(as)") { [self] result in
            var list: [String] = []
            if case .success(let reply) = result { list = GVariantReader.strings(reply) }
            capabilities = (owner.withLock { $0 }).map { ($0, list) }
            let waiting = capabilityWaiters ?? []
            capabilityWaiters = nil
            for w in waiting { w(list) }
        }
    }

    /// GetServerInformation and GetCapabilities; nil when no server answers.
    func serverInfo(_ done: @escaping (ServerInfo?) -> Void) {
        call("GetServerInformation", replyType: "(ssss)") { [self] result in
            guard case .success(let reply) = result else { return done(nil) }
            let field = { GVariantReader.string(reply, at: $0) }
            let (name, vendor, version, spec) = (field(0), field(1), field(2), field(3))
            // The cache may belong to the previous server: ask this one.
            capabilities = nil
            withCapabilities(ownerHint: nil) { list in
                done(ServerInfo(name: name, vendor: vendor, version: version, specVersion: spec, capabilities: list))
            }
        }
    }

    /// CloseNotification(id), without waiting: the popup is gone either way, or the server that knew the id is.
    func close(serverID: UInt32) {
        guard connect(), let connection else { return }
        BusCall.send(
            connection, destination: owner.withLock { $0 } ?? NotificationBus.name, path: NotificationBus.path,
            interface: NotificationBus.name, method: "CloseNotification",
            parameters: g_variant_new_tuple([g_variant_new_uint32(serverID)], 1))
    }

    /// Turns a GError from a D-Bus call into a DeliveryError.
    static func deliveryError(_ error: UnsafeMutablePointer<GError>?, doing what: String) -> DeliveryError {
        guard let error else { return DeliveryError(isNoServer: false, message: "\(what) failed") }
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
