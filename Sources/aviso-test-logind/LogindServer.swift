internal import CNotify
import Glibc
import TestBusServerKit

/// A minimal org.freedesktop.login1 on the system bus: Manager.Inhibit hands out pipe write ends as inhibitor fds
/// and reports when a client closes one; PrepareForSleep is emitted on command (`sleep`, `resume`). Manager.GetUser
/// answers with one user whose `Display` is one graphical session; that session's `LockedHint` changes on command
/// (`lock`, `unlock`) with PropertiesChanged, as logind does when a screen locker sets it.
///
/// Everything runs on the default GMainContext of the main thread.
final class LogindServer: BusObject {
    private let server = BusServer(
        bus: .system, name: "org.freedesktop.login1", objectPath: "/org/freedesktop/login1",
        interface: BusInterface("org.freedesktop.login1.Manager")
            .method("Inhibit", in: [("what", "s"), ("who", "s"), ("why", "s"), ("mode", "s")], out: [("pipe_fd", "h")])
            .method("GetUser", in: [("uid", "u")], out: [("object_path", "o")])
            .signal("PrepareForSleep", [("start", "b")]))
    private var nextInhibitorID = 1
    private var locked = false

    static let userPath = "/org/freedesktop/login1/user/_\(getuid())"
    static let sessionID = "c1"
    static let sessionPath = "/org/freedesktop/login1/session/c1"
    static let userInterface = "org.freedesktop.login1.User"
    static let sessionInterface = "org.freedesktop.login1.Session"

    init() {
        server.export(BusInterface(LogindServer.userInterface).property("Display", "(so)"), at: LogindServer.userPath)
        server.export(BusInterface(LogindServer.sessionInterface).property("LockedHint", "b"),
                      at: LogindServer.sessionPath)
    }

    /// Owns the bus name, serves until `quit` or end of stdin, and returns the process exit status.
    func run() -> Int32 {
        server.run(serving: self)
    }

    func command(_ words: [String]) -> Bool {
        switch words[0] {
        case "sleep": prepareForSleep(true)
        case "resume": prepareForSleep(false)
        case "lock": setLocked(true)
        case "unlock": setLocked(false)
        default: return false
        }
        return true
    }

    func property(_ property: String, of interface: String, at path: String) -> OpaquePointer? {
        switch (path, property) {
        case (LogindServer.userPath, "Display"):
            var items = [g_variant_new_string(LogindServer.sessionID), g_variant_new_object_path(LogindServer.sessionPath)]
            return g_variant_new_tuple(&items, 2)
        case (LogindServer.sessionPath, "LockedHint"):
            return g_variant_new_boolean(locked ? 1 : 0)
        default:
            return nil
        }
    }

    func call(_ method: String, parameters: OpaquePointer, invocation: OpaquePointer) {
        if method == "GetUser" {
            EventLine.emit("get-user")
            return g_dbus_method_invocation_return_value(
                invocation, BusServer.tuple([g_variant_new_object_path(LogindServer.userPath)]))
        }
        guard method == "Inhibit" else {
            return BusServer.fail(invocation, "org.freedesktop.DBus.Error.UnknownMethod", "no method \(method)")
        }
        let args = (0..<g_variant_n_children(parameters)).map { i in
            let child = g_variant_get_child_value(parameters, i)!
            defer { g_variant_unref(child) }
            return String(cString: g_variant_get_string(child, nil))
        }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            return BusServer.fail(invocation, "org.freedesktop.DBus.Error.Failed", "pipe: errno \(errno)")
        }
        let id = nextInhibitorID
        nextInhibitorID += 1
        // Logged before the reply goes out, so a test never sees "released" before the matching "inhibit".
        EventLine.emit("inhibit", [
            ("id", .int(Int64(id))), ("what", .string(args[0])), ("who", .string(args[1])),
            ("why", .string(args[2])), ("mode", .string(args[3])),
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
            return BusServer.fail(invocation, "org.freedesktop.DBus.Error.Failed", message)
        }
        g_dbus_method_invocation_return_value_with_unix_fd_list(
            invocation, BusServer.tuple([g_variant_new_handle(index)]), list)
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
                EventLine.emit("released", [("id", .int(Int64(Int(bitPattern: data))))])
                return 0  // G_SOURCE_REMOVE: the watch drops its channel reference, which closes the read end
            },
            UnsafeMutableRawPointer(bitPattern: id), nil)
        g_io_channel_unref(channel)
    }

    /// Emits PrepareForSleep(start) to every listener, as logind does before suspend (true) and after resume (false).
    private func prepareForSleep(_ start: Bool) {
        if let failure = server.emitSignal("PrepareForSleep", [g_variant_new_boolean(start ? 1 : 0)]) {
            return EventLine.emit("error", [("message", .string(failure))])
        }
        EventLine.emit(start ? "sleep" : "resume")
    }

    /// Sets the session's LockedHint and emits PropertiesChanged with the new value, as logind does.
    private func setLocked(_ value: Bool) {
        locked = value
        let builder = g_variant_builder_new(g_variant_type_new("a{sv}"))
        g_variant_builder_add_value(builder, g_variant_new_dict_entry(
            g_variant_new_string("LockedHint"), g_variant_new_variant(g_variant_new_boolean(value ? 1 : 0))))
        let changed = g_variant_builder_end(builder)
        g_variant_builder_unref(builder)
        let invalidated = g_variant_new_strv(nil, 0)
        if let failure = server.emitSignal(
            "PropertiesChanged", from: LogindServer.sessionPath, on: "org.freedesktop.DBus.Properties",
            [g_variant_new_string(LogindServer.sessionInterface), changed, invalidated]) {
            return EventLine.emit("error", [("message", .string(failure))])
        }
        EventLine.emit(value ? "locked" : "unlocked")
    }
}
