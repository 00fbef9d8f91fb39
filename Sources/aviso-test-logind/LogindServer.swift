internal import CNotify
import Glibc

/// A minimal org.freedesktop.login1 on the system bus: Manager.Inhibit hands out pipe write ends as inhibitor fds
/// and reports when a client closes one; PrepareForSleep is emitted on command.
///
/// Everything runs on the default GMainContext of the main thread; C callbacks get this object back through their
/// `user_data` pointer.
final class LogindServer {
    static let busName = "org.freedesktop.login1"
    static let objectPath = "/org/freedesktop/login1"
    static let interface = "org.freedesktop.login1.Manager"

    private static let introspection = """
        <node>
          <interface name="org.freedesktop.login1.Manager">
            <method name="Inhibit">
              <arg name="what" type="s" direction="in"/>
              <arg name="who" type="s" direction="in"/>
              <arg name="why" type="s" direction="in"/>
              <arg name="mode" type="s" direction="in"/>
              <arg name="pipe_fd" type="h" direction="out"/>
            </method>
            <signal name="PrepareForSleep">
              <arg name="start" type="b"/>
            </signal>
          </interface>
        </node>
        """

    let loop: OpaquePointer
    private var connection: OpaquePointer?
    private var exitCode: Int32 = 0
    private var nextInhibitorID = 1

    init() {
        loop = g_main_loop_new(nil, 0)
    }

    /// Owns the bus name, serves until `quit` or end of stdin, and returns the process exit status.
    func run() -> Int32 {
        g_bus_own_name(
            G_BUS_TYPE_SYSTEM, LogindServer.busName, G_BUS_NAME_OWNER_FLAGS_NONE,
            { connection, _, data in
                LogindServer.from(data).register(on: connection!)
            },
            { connection, _, _ in
                let unique = String(cString: g_dbus_connection_get_unique_name(connection))
                EventLine.emit("ready", [("unique", .string(unique))])
            },
            { connection, _, data in
                // No bus, or the name is taken: a test setup error worth a loud exit.
                let server = LogindServer.from(data)
                let why = connection == nil ? "no system bus" : "name owned by another process"
                EventLine.emit("lost", [("reason", .string(why))])
                server.exitCode = 1
                g_main_loop_quit(server.loop)
            },
            Unmanaged.passUnretained(self).toOpaque(), nil)
        watchStdin()
        g_main_loop_run(loop)
        return exitCode
    }

    static func from(_ data: UnsafeMutableRawPointer?) -> LogindServer {
        Unmanaged<LogindServer>.fromOpaque(data!).takeUnretainedValue()
    }

    // MARK: D-Bus

    private func register(on connection: OpaquePointer) {
        self.connection = connection
        var error: UnsafeMutablePointer<GError>?
        guard let node = g_dbus_node_info_new_for_xml(LogindServer.introspection, &error) else {
            fatalError("introspection XML: \(String(cString: error!.pointee.message))")
        }
        var vtable = GDBusInterfaceVTable()
        vtable.method_call = { _, _, _, _, method, parameters, invocation, data in
            LogindServer.from(data).call(String(cString: method!), parameters!, invocation!)
        }
        // GLib copies the vtable, so a stack value is fine.
        let id = g_dbus_connection_register_object(
            connection, LogindServer.objectPath, node.pointee.interfaces[0], &vtable,
            Unmanaged.passUnretained(self).toOpaque(), nil, &error)
        if id == 0 { fatalError("register object: \(String(cString: error!.pointee.message))") }
    }

    private func call(_ method: String, _ parameters: OpaquePointer, _ invocation: OpaquePointer) {
        guard method == "Inhibit" else {
            return g_dbus_method_invocation_return_dbus_error(
                invocation, "org.freedesktop.DBus.Error.UnknownMethod", "no method \(method)")
        }
        let args = (0..<g_variant_n_children(parameters)).map { i in
            let child = g_variant_get_child_value(parameters, i)!
            defer { g_variant_unref(child) }
            return String(cString: g_variant_get_string(child, nil))
        }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            return g_dbus_method_invocation_return_dbus_error(
                invocation, "org.freedesktop.DBus.Error.Failed", "pipe: errno \(errno)")
        }
        let id = nextInhibitorID
        nextInhibitorID += 1
        // Logged before the reply goes out, so a test never sees "released" before the matching "inhibit".
        EventLine.emit("inhibit", [
            ("id", .int(id)), ("what", .string(args[0])), ("who", .string(args[1])), ("why", .string(args[2])),
            ("mode", .string(args[3])),
        ])
        let list = g_unix_fd_list_new()!
        var error: UnsafeMutablePointer<GError>?
        let index = g_unix_fd_list_append(list, ends[1], &error)  // duplicates the fd
        close(ends[1])
        if index < 0 {
            close(ends[0])
            g_object_unref(UnsafeMutableRawPointer(list))
            let message = String(cString: error!.pointee.message)
            g_error_free(error)
            return g_dbus_method_invocation_return_dbus_error(invocation, "org.freedesktop.DBus.Error.Failed", message)
        }
        var reply: [OpaquePointer?] = [g_variant_new_handle(index)]
        g_dbus_method_invocation_return_value_with_unix_fd_list(invocation, g_variant_new_tuple(&reply, 1), list)
        g_object_unref(UnsafeMutableRawPointer(list))
        watchRelease(readEnd: ends[0], id: id)
    }

    /// Reports "released" once every copy of the write end is closed: the read end then sees POLLHUP.
    private func watchRelease(readEnd: Int32, id: Int) {
        let channel = g_io_channel_unix_new(readEnd)!
        g_io_channel_set_close_on_unref(channel, 1)
        g_io_add_watch_full(
            channel, 0 /* G_PRIORITY_DEFAULT */, GIOCondition(G_IO_HUP.rawValue | G_IO_ERR.rawValue),
            { _, _, data in
                EventLine.emit("released", [("id", .int(Int(bitPattern: data)))])
                return 0  // G_SOURCE_REMOVE: the watch drops its channel reference, which closes the read end
            },
            UnsafeMutableRawPointer(bitPattern: id), nil)
        g_io_channel_unref(channel)
    }

    /// Emits PrepareForSleep(start) to every listener, as logind does before suspend (true) and after resume (false).
    func prepareForSleep(_ start: Bool) {
        guard let connection else {
            return EventLine.emit("error", [("message", .string("not on the bus yet"))])
        }
        var error: UnsafeMutablePointer<GError>?
        var items: [OpaquePointer?] = [g_variant_new_boolean(start ? 1 : 0)]
        let ok = g_dbus_connection_emit_signal(
            connection, nil, LogindServer.objectPath, LogindServer.interface, "PrepareForSleep",
            g_variant_new_tuple(&items, 1), &error)
        if ok == 0 {
            EventLine.emit("error", [("message", .string(String(cString: error!.pointee.message)))])
            g_error_free(error)
            return
        }
        g_dbus_connection_flush_sync(connection, nil, nil)
        EventLine.emit(start ? "sleep" : "resume")
    }
}
