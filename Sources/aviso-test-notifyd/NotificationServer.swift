internal import CNotify
import Glibc

/// A minimal org.freedesktop.Notifications server that reports every call as a JSON line on stdout, so tests can
/// see exactly what a client sent over D-Bus.
///
/// Everything runs on the default GMainContext of the main thread; the C callbacks get this object back through
/// their `user_data` pointer.
final class NotificationServer {
    static let busName = "org.freedesktop.Notifications"
    static let objectPath = "/org/freedesktop/Notifications"
    static let interface = "org.freedesktop.Notifications"

    private static let introspection = """
        <node>
          <interface name="org.freedesktop.Notifications">
            <method name="Notify">
              <arg name="app_name" type="s" direction="in"/>
              <arg name="replaces_id" type="u" direction="in"/>
              <arg name="app_icon" type="s" direction="in"/>
              <arg name="summary" type="s" direction="in"/>
              <arg name="body" type="s" direction="in"/>
              <arg name="actions" type="as" direction="in"/>
              <arg name="hints" type="a{sv}" direction="in"/>
              <arg name="expire_timeout" type="i" direction="in"/>
              <arg name="id" type="u" direction="out"/>
            </method>
            <method name="CloseNotification">
              <arg name="id" type="u" direction="in"/>
            </method>
            <method name="GetCapabilities">
              <arg name="capabilities" type="as" direction="out"/>
            </method>
            <method name="GetServerInformation">
              <arg name="name" type="s" direction="out"/>
              <arg name="vendor" type="s" direction="out"/>
              <arg name="version" type="s" direction="out"/>
              <arg name="spec_version" type="s" direction="out"/>
            </method>
            <signal name="NotificationClosed">
              <arg name="id" type="u"/>
              <arg name="reason" type="u"/>
            </signal>
            <signal name="ActionInvoked">
              <arg name="id" type="u"/>
              <arg name="action_key" type="s"/>
            </signal>
          </interface>
        </node>
        """

    let capabilities: [String]
    let name: String
    let version: String
    let loop: OpaquePointer
    private var nextID: UInt32 = 1
    private var connection: OpaquePointer?
    private var exitCode: Int32 = 0

    init(capabilities: [String], name: String, version: String) {
        self.capabilities = capabilities
        self.name = name
        self.version = version
        self.loop = g_main_loop_new(nil, 0)
    }

    /// Owns the bus name, serves until `quit` or end of stdin, and returns the process exit status.
    func run() -> Int32 {
        let me = Unmanaged.passUnretained(self).toOpaque()
        g_bus_own_name(
            G_BUS_TYPE_SESSION, NotificationServer.busName, G_BUS_NAME_OWNER_FLAGS_NONE,
            { connection, _, data in
                NotificationServer.from(data).register(on: connection!)
            },
            { connection, _, data in
                let unique = String(cString: g_dbus_connection_get_unique_name(connection))
                NotificationServer.from(data).emit(.object([("event", .string("ready")), ("unique", .string(unique))]))
            },
            { connection, _, data in
                // Either there is no bus or someone else holds the name: a test setup error worth a loud exit.
                let server = NotificationServer.from(data)
                let why = connection == nil ? "no session bus" : "name owned by another process"
                server.emit(.object([("event", .string("lost")), ("reason", .string(why))]))
                server.exitCode = 1
                g_main_loop_quit(server.loop)
            },
            me, nil)
        watchStdin()
        g_main_loop_run(loop)
        return exitCode
    }

    private static func from(_ data: UnsafeMutableRawPointer?) -> NotificationServer {
        Unmanaged<NotificationServer>.fromOpaque(data!).takeUnretainedValue()
    }

    func emit(_ event: JSONText) {
        writeLine(event.encoded, to: 1)
    }

    // MARK: D-Bus

    private func register(on connection: OpaquePointer) {
        self.connection = connection
        var error: UnsafeMutablePointer<GError>?
        guard let node = g_dbus_node_info_new_for_xml(NotificationServer.introspection, &error) else {
            fatalError("introspection XML: \(String(cString: error!.pointee.message))")
        }
        var vtable = GDBusInterfaceVTable()
        vtable.method_call = { _, _, _, _, method, parameters, invocation, data in
            NotificationServer.from(data).call(String(cString: method!), parameters!, invocation!)
        }
        // GLib copies the vtable, so a stack value is fine.
        let id = g_dbus_connection_register_object(
            connection, NotificationServer.objectPath, node.pointee.interfaces[0], &vtable,
            Unmanaged.passUnretained(self).toOpaque(), nil, &error)
        if id == 0 { fatalError("register object: \(String(cString: error!.pointee.message))") }
    }

    private func call(_ method: String, _ parameters: OpaquePointer, _ invocation: OpaquePointer) {
        switch method {
        case "Notify": notify(parameters, invocation)
        case "CloseNotification":
            let child = g_variant_get_child_value(parameters, 0)!
            let id = g_variant_get_uint32(child)
            g_variant_unref(child)
            emit(.object([("event", .string("close")), ("id", .int(Int64(id)))]))
            emitClosed(id: id, reason: 3)
            g_dbus_method_invocation_return_value(invocation, nil)
        case "GetCapabilities":
            let type = g_variant_type_new("s")
            var items: [OpaquePointer?] = capabilities.map { (cap: String) in g_variant_new_string(cap) }
            let array = g_variant_new_array(type, &items, gsize(items.count))
            g_variant_type_free(type)
            g_dbus_method_invocation_return_value(invocation, tuple([array]))
        case "GetServerInformation":
            let fields: [OpaquePointer?] = [name, "aviso", version, "1.2"].map { (field: String) in g_variant_new_string(field) }
            g_dbus_method_invocation_return_value(invocation, tuple(fields))
        default:
            g_dbus_method_invocation_return_dbus_error(
                invocation, "org.freedesktop.DBus.Error.UnknownMethod", "no method \(method)")
        }
    }

    private func notify(_ parameters: OpaquePointer, _ invocation: OpaquePointer) {
        let arrived = realtimeNanoseconds()
        let args = (0..<g_variant_n_children(parameters)).map { g_variant_get_child_value(parameters, $0)! }
        defer { args.forEach { g_variant_unref($0) } }
        let replaces = g_variant_get_uint32(args[1])
        let id: UInt32
        if replaces != 0 {
            id = replaces
        } else {
            id = nextID
            nextID += 1
        }
        emit(.object([
            ("event", .string("notify")),
            ("id", .int(Int64(id))),
            ("app_name", .string(GVariantJSON.string(args[0]))),
            ("replaces_id", .int(Int64(replaces))),
            ("app_icon", .string(GVariantJSON.string(args[2]))),
            ("summary", .string(GVariantJSON.string(args[3]))),
            ("body", .string(GVariantJSON.string(args[4]))),
            ("actions", GVariantJSON.json(args[5])),
            ("hints", GVariantJSON.dictionary(args[6])),
            ("expire_timeout", .int(Int64(g_variant_get_int32(args[7])))),
            ("at_ns", .int(arrived)),
        ]))
        g_dbus_method_invocation_return_value(invocation, tuple([g_variant_new_uint32(id)]))
    }

    /// Emits NotificationClosed to every listener, as a real server does when a popup goes away.
    func emitClosed(id: UInt32, reason: UInt32) {
        guard let connection else { return }
        var error: UnsafeMutablePointer<GError>?
        let ok = g_dbus_connection_emit_signal(
            connection, nil, NotificationServer.objectPath, NotificationServer.interface, "NotificationClosed",
            tuple([g_variant_new_uint32(id), g_variant_new_uint32(reason)]), &error)
        if ok == 0 {
            writeLine("NotificationClosed: \(String(cString: error!.pointee.message))", to: 2)
            g_error_free(error)
        }
    }

    private func tuple(_ items: [OpaquePointer?]) -> OpaquePointer {
        var items = items
        return g_variant_new_tuple(&items, gsize(items.count))
    }

    private func realtimeNanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}

/// Writes one line straight to a file descriptor: unbuffered, so a test reading the pipe sees it at once.
func writeLine(_ text: String, to fd: Int32) {
    var bytes = Array((text + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return }
        offset += n
    }
}
