internal import CNotify
import Glibc

/// The scaffolding of a test D-Bus server: owns a well-known name, exports one object with one interface, reads
/// commands from stdin, and reports on stdout as JSON lines ("ready", "lost", "error").
///
/// Everything runs on the default GMainContext of the main thread; C callbacks get this object back through their
/// `user_data` pointer. End of stdin quits like `quit`, so a server never outlives the test that started it.
public final class BusServer {
    /// Which bus to serve: its address comes from `DBUS_SESSION_BUS_ADDRESS` or `DBUS_SYSTEM_BUS_ADDRESS`.
    public enum Bus: Sendable {
        case session
        case system
    }

    /// The bus served.
    public let bus: Bus
    /// The well-known name owned, e.g. "org.freedesktop.login1".
    public let name: String
    /// Where the object is exported.
    public let objectPath: String
    /// The interface exported; signals are emitted on it.
    public let interface: BusInterface
    /// The connection once the bus is acquired (a `GDBusConnection *`), nil before.
    public private(set) var connection: OpaquePointer?

    private let loop: OpaquePointer
    /// Objects exported besides the main one, registered once the bus is acquired.
    private var extraObjects: [(path: String, interface: BusInterface)] = []
    private var exitCode: Int32 = 0
    private weak var object: (any BusObject)?

    /// Prepares (does not start) a server that will export `interface` at `objectPath` under `name`.
    public init(bus: Bus, name: String, objectPath: String, interface: BusInterface) {
        self.bus = bus
        self.name = name
        self.objectPath = objectPath
        self.interface = interface
        loop = g_main_loop_new(nil, 0)
    }

    /// Exports a further object at `path` with `interface` (methods go to the same `BusObject`, properties through
    /// its `property(_:of:at:)`). Call before `run`.
    public func export(_ interface: BusInterface, at path: String) {
        extraObjects.append((path, interface))
    }

    /// Owns the name and serves `object` until `quit` or end of stdin; returns the process exit status (1 when the
    /// bus is unreachable or the name is owned by another process).
    public func run(serving object: any BusObject) -> Int32 {
        self.object = object
        g_bus_own_name(
            bus == .system ? G_BUS_TYPE_SYSTEM : G_BUS_TYPE_SESSION, name, G_BUS_NAME_OWNER_FLAGS_NONE,
            { connection, _, data in
                BusServer.from(data).register(on: connection!)
            },
            { connection, _, _ in
                let unique = String(cString: g_dbus_connection_get_unique_name(connection))
                EventLine.emit("ready", [("unique", .string(unique))])
            },
            { connection, _, data in
                // No bus, or the name is taken: a test setup error worth a loud exit.
                let server = BusServer.from(data)
                let why = connection == nil ? "no \(server.bus) bus" : "name owned by another process"
                EventLine.emit("lost", [("reason", .string(why))])
                server.exitCode = 1
                g_main_loop_quit(server.loop)
            },
            Unmanaged.passUnretained(self).toOpaque(), nil)
        watchStdin()
        g_main_loop_run(loop)
        return exitCode
    }

    /// Emits `signal` from the object with arguments `items` (floating GVariants, consumed) and flushes it, so it
    /// is on the bus before the caller reports it; returns why it could not, or nil.
    public func emitSignal(_ signal: String, _ items: [OpaquePointer?]) -> String? {
        emitSignal(signal, from: objectPath, on: interface.name, items)
    }

    /// Emits `signal` of `interfaceName` from the object at `path`, as `emitSignal(_:_:)` does.
    public func emitSignal(
        _ signal: String, from path: String, on interfaceName: String, _ items: [OpaquePointer?]
    ) -> String? {
        guard let connection else { return "not on the bus yet" }
        var error: UnsafeMutablePointer<GError>?
        let ok = g_dbus_connection_emit_signal(
            connection, nil, path, interfaceName, signal, BusServer.tuple(items), &error)
        if ok == 0 {
            defer { g_error_free(error) }
            return String(cString: error!.pointee.message)
        }
        g_dbus_connection_flush_sync(connection, nil, nil)
        return nil
    }

    /// A tuple GVariant of `items` (floating GVariants, consumed), for replies and signals.
    public static func tuple(_ items: [OpaquePointer?]) -> OpaquePointer {
        var items = items
        return g_variant_new_tuple(&items, gsize(items.count))
    }

    /// Answers `invocation` with the D-Bus error `name` (e.g. "org.freedesktop.DBus.Error.Failed") and `message`.
    public static func fail(_ invocation: OpaquePointer, _ name: String, _ message: String) {
        g_dbus_method_invocation_return_dbus_error(invocation, name, message)
    }

    /// Answers `invocation` with `body` whatever its type, bypassing GDBus's check against the declared out
    /// arguments: what a non-conforming server sends.
    public static func replyUnchecked(_ invocation: OpaquePointer, _ body: OpaquePointer) {
        let call = g_dbus_method_invocation_get_message(invocation)
        let reply = g_dbus_message_new_method_reply(call)!
        g_dbus_message_set_body(reply, body)
        g_dbus_connection_send_message(g_dbus_method_invocation_get_connection(invocation), reply,
                                       G_DBUS_SEND_MESSAGE_FLAGS_NONE, nil, nil)
        g_object_unref(UnsafeMutableRawPointer(reply))
        g_object_unref(UnsafeMutableRawPointer(invocation))
    }

    private static func from(_ data: UnsafeMutableRawPointer?) -> BusServer {
        Unmanaged<BusServer>.fromOpaque(data!).takeUnretainedValue()
    }

    // MARK: D-Bus

    private func register(on connection: OpaquePointer) {
        self.connection = connection
        register(interface, at: objectPath, on: connection)
        for (path, interface) in extraObjects { register(interface, at: path, on: connection) }
    }

    private func register(_ interface: BusInterface, at path: String, on connection: OpaquePointer) {
        var error: UnsafeMutablePointer<GError>?
        guard let node = g_dbus_node_info_new_for_xml(interface.xml, &error) else {
            fatalError("introspection XML: \(String(cString: error!.pointee.message))")
        }
        var vtable = GDBusInterfaceVTable()
        vtable.method_call = { _, _, _, _, method, parameters, invocation, data in
            let method = String(cString: method!)
            guard let object = BusServer.from(data).object else {
                return BusServer.fail(invocation!, "org.freedesktop.DBus.Error.Failed", "shutting down")
            }
            object.call(method, parameters: parameters!, invocation: invocation!)
        }
        vtable.get_property = { _, _, path, interface, property, error, data in
            let value = BusServer.from(data).object?.property(
                String(cString: property!), of: String(cString: interface!), at: String(cString: path!))
            if value == nil {
                g_set_error_literal(error, g_dbus_error_quark(), Int32(G_DBUS_ERROR_UNKNOWN_PROPERTY.rawValue),
                                    "no such property")
            }
            return value
        }
        // GLib copies the vtable, so a stack value is fine.
        let id = g_dbus_connection_register_object(
            connection, path, node.pointee.interfaces[0], &vtable,
            Unmanaged.passUnretained(self).toOpaque(), nil, &error)
        if id == 0 { fatalError("register object: \(String(cString: error!.pointee.message))") }
    }

    // MARK: stdin

    private func watchStdin() {
        let channel = g_io_channel_unix_new(0)
        g_io_add_watch(
            channel, GIOCondition(G_IO_IN.rawValue | G_IO_HUP.rawValue | G_IO_ERR.rawValue),
            { channel, _, data in BusServer.from(data).readCommands(channel!) ? 1 : 0 },
            Unmanaged.passUnretained(self).toOpaque())
    }

    /// Handles every complete line buffered so far; false removes the watch (end of input or `quit`).
    private func readCommands(_ channel: UnsafeMutablePointer<GIOChannel>) -> Bool {
        repeat {
            var line: UnsafeMutablePointer<gchar>?
            var error: UnsafeMutablePointer<GError>?
            let status = g_io_channel_read_line(channel, &line, nil, nil, &error)
            switch status {
            case G_IO_STATUS_NORMAL:
                let text = String(cString: line!)
                g_free(line)
                if !handle(text) { return false }
            case G_IO_STATUS_AGAIN:
                return true
            default:
                if let error { g_error_free(error) }
                g_main_loop_quit(loop)
                return false
            }
        } while g_io_channel_get_buffer_condition(channel).rawValue & G_IO_IN.rawValue != 0
        return true
    }

    private func handle(_ line: String) -> Bool {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).map(String.init)
        switch words.first {
        case "quit":
            g_main_loop_quit(loop)
            return false
        case nil:
            return true
        default:
            if object?.command(words) != true {
                EventLine.emit("error", [("message", .string("unknown command: \(line)"))])
            }
            return true
        }
    }
}
