internal import CNotify
import Glibc
import TestBusServerKit

/// A minimal org.freedesktop.Notifications server that reports every call as a JSON line on stdout, so tests can
/// see exactly what a client sent over D-Bus; the stdin command `close ID REASON` emits NotificationClosed.
///
/// Everything runs on the default GMainContext of the main thread.
final class NotificationServer: BusObject {
    let capabilities: [String]
    let name: String
    let version: String
    /// Answer every call with a tuple of the wrong type, as a non-conforming server might.
    let badReplies: Bool
    /// Answer each Notify with a new id, whatever its replaces_id.
    let ignoreReplaces: Bool
    /// An action key emitted as ActionInvoked for each Notify before the call is answered.
    let invokeBeforeReply: String?
    private let server = BusServer(
        bus: .session, name: "org.freedesktop.Notifications", objectPath: "/org/freedesktop/Notifications",
        interface: BusInterface("org.freedesktop.Notifications")
            .method("Notify", in: [
                ("app_name", "s"), ("replaces_id", "u"), ("app_icon", "s"), ("summary", "s"), ("body", "s"),
                ("actions", "as"), ("hints", "a{sv}"), ("expire_timeout", "i"),
            ], out: [("id", "u")])
            .method("CloseNotification", in: [("id", "u")])
            .method("GetCapabilities", out: [("capabilities", "as")])
            .method("GetServerInformation", out: [
                ("name", "s"), ("vendor", "s"), ("version", "s"), ("spec_version", "s"),
            ])
            .signal("NotificationClosed", [("id", "u"), ("reason", "u")])
            .signal("ActionInvoked", [("id", "u"), ("action_key", "s")])
            .signal("NotificationReplied", [("id", "u"), ("text", "s")])
            .signal("ActivationToken", [("id", "u"), ("activation_token", "s")]))
    private var nextID: UInt32 = 1

    init(capabilities: [String], name: String, version: String, badReplies: Bool = false, ignoreReplaces: Bool = false,
         invokeBeforeReply: String? = nil) {
        self.capabilities = capabilities
        self.name = name
        self.version = version
        self.badReplies = badReplies
        self.ignoreReplaces = ignoreReplaces
        self.invokeBeforeReply = invokeBeforeReply
    }

    /// Owns the bus name, serves until `quit` or end of stdin, and returns the process exit status.
    func run() -> Int32 {
        server.run(serving: self)
    }

    /// `close ID REASON`, `action ID KEY` (ActionInvoked), `reply ID TEXT...` (NotificationReplied), `token ID TOKEN`
    /// (ActivationToken): the signals a person's clicks make a real server emit.
    func command(_ words: [String]) -> Bool {
        guard words.count >= 3, let id = UInt32(words[1]) else { return false }
        let rest = words[2...].joined(separator: " ")
        switch words[0] {
        case "close":
            guard words.count == 3, let reason = UInt32(words[2]) else { return false }
            emitClosed(id: id, reason: reason)
            EventLine.emit("closed", [("id", .int(Int64(id))), ("reason", .int(Int64(reason)))])
        case "action", "reply", "token":
            let signal = ["action": "ActionInvoked", "reply": "NotificationReplied", "token": "ActivationToken"][words[0]]!
            let sent = realtimeNanoseconds()
            if let failure = server.emitSignal(signal, [g_variant_new_uint32(id), g_variant_new_string(rest)]) {
                EventLine.write("\(signal): \(failure)", to: 2)
            }
            EventLine.emit(words[0] == "action" ? "invoked" : words[0] == "reply" ? "replied" : "token",
                           [("id", .int(Int64(id))), ("message", .string(rest)), ("at_ns", .int(sent))])
        default:
            return false
        }
        return true
    }

    func call(_ method: String, parameters: OpaquePointer, invocation: OpaquePointer) {
        if badReplies && method != "CloseNotification" {
            if method == "Notify" { notify(parameters, nil) }
            EventLine.emit("bad-reply", [("method", .string(method))])
            BusServer.replyUnchecked(invocation, BusServer.tuple([g_variant_new_string("not what you asked for")]))
            return
        }
        switch method {
        case "Notify": notify(parameters, invocation)
        case "CloseNotification":
            let child = g_variant_get_child_value(parameters, 0)!
            let id = g_variant_get_uint32(child)
            g_variant_unref(child)
            EventLine.emit("close", [("id", .int(Int64(id))), ("at_ns", .int(realtimeNanoseconds()))])
            emitClosed(id: id, reason: 3)
            g_dbus_method_invocation_return_value(invocation, nil)
        case "GetCapabilities":
            let type = g_variant_type_new("s")
            var items: [OpaquePointer?] = capabilities.map { (cap: String) in g_variant_new_string(cap) }
            let array = g_variant_new_array(type, &items, gsize(items.count))
            g_variant_type_free(type)
            g_dbus_method_invocation_return_value(invocation, BusServer.tuple([array]))
        case "GetServerInformation":
            let fields: [OpaquePointer?] = [name, "aviso", version, "1.2"].map { (field: String) in g_variant_new_string(field) }
            g_dbus_method_invocation_return_value(invocation, BusServer.tuple(fields))
        default:
            BusServer.fail(invocation, "org.freedesktop.DBus.Error.UnknownMethod", "no method \(method)")
        }
    }

    /// Reports a Notify call and, given its invocation, answers it with a new id.
    private func notify(_ parameters: OpaquePointer, _ invocation: OpaquePointer?) {
        let arrived = realtimeNanoseconds()
        let args = (0..<g_variant_n_children(parameters)).map { g_variant_get_child_value(parameters, $0)! }
        defer { args.forEach { g_variant_unref($0) } }
        let replaces = g_variant_get_uint32(args[1])
        let id: UInt32
        if replaces != 0 && !ignoreReplaces {
            id = replaces
        } else {
            id = nextID
            nextID += 1
        }
        EventLine.emit("notify", [
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
        ])
        if let key = invokeBeforeReply, invocation != nil {
            _ = command(["action", String(id), key])
        }
        if let invocation { g_dbus_method_invocation_return_value(invocation, BusServer.tuple([g_variant_new_uint32(id)])) }
    }

    /// Emits NotificationClosed to every listener, as a real server does when a popup goes away.
    private func emitClosed(id: UInt32, reason: UInt32) {
        let items = [g_variant_new_uint32(id), g_variant_new_uint32(reason)]
        if let failure = server.emitSignal("NotificationClosed", items) {
            EventLine.write("NotificationClosed: \(failure)", to: 2)
        }
    }

    private func realtimeNanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}
