internal import CNotify
import AvisoCore
import AvisoProtocol

/// The D-Bus API for applications: `org.aviso.Scheduler1` at `/org/aviso/Scheduler1` on the session bus, beside the
/// control socket, with the same commands, validation and errors.
///
/// Lives on the GLib thread: method calls are parsed there, answered by the scheduler off it, and returned from
/// it. The session bus serves only the user who owns it, as the socket does.
final class SchedulerService: @unchecked Sendable {
    static let name = "org.aviso.Scheduler1"
    static let path = "/org/aviso/Scheduler1"
    static let interface = "org.aviso.Scheduler1"

    /// The introspection data, which `gdbus introspect` shows.
    static let xml = """
        <node>
          <interface name="org.aviso.Scheduler1">
            <method name="Add"><arg name="options" type="a{ss}" direction="in"/><arg name="id" type="s" direction="out"/></method>
            <method name="Remove"><arg name="ids" type="as" direction="in"/><arg name="removed" type="as" direction="out"/></method>
            <method name="RemovePrefix"><arg name="prefix" type="s" direction="in"/><arg name="removed" type="as" direction="out"/></method>
            <method name="Pending"><arg name="requests" type="a(ssss)" direction="out"/></method>
            <method name="Delivered"><arg name="notifications" type="a(ssssb)" direction="out"/></method>
            <method name="RemoveDelivered"><arg name="ids" type="as" direction="in"/><arg name="removed" type="as" direction="out"/></method>
            <method name="Fire"><arg name="id" type="s" direction="in"/></method>
            <method name="Status"><arg name="status" type="a{ss}" direction="out"/></method>
            <signal name="Delivered"><arg name="id" type="s"/></signal>
            <signal name="ActionInvoked"><arg name="id" type="s"/><arg name="action" type="s"/><arg name="text" type="s"/></signal>
            <signal name="Dismissed"><arg name="id" type="s"/></signal>
          </interface>
        </node>
        """

    private let glib: GLibThread
    private let command: @Sendable (Command) async -> Reply
    private let add: @Sendable ([String: [String]]) async -> Reply
    /// Set on the GLib thread once the bus is there.
    private var connection: OpaquePointer?

    init(thread: GLibThread, command: @escaping @Sendable (Command) async -> Reply,
         add: @escaping @Sendable ([String: [String]]) async -> Reply) {
        glib = thread
        self.command = command
        self.add = add
    }

    /// Owns the name on the session bus; without a bus, or with the name taken, the API is not offered (logged).
    /// The caller keeps the service until the GLib thread has stopped.
    func start() {
        glib.perform { [self] in
            g_bus_own_name(
                G_BUS_TYPE_SESSION, Self.name, G_BUS_NAME_OWNER_FLAGS_NONE,
                { connection, _, data in SchedulerService.from(data).register(on: connection!) },
                { _, _, _ in Log.info("the D-Bus API \(SchedulerService.name) is on the session bus") },
                { connection, _, _ in
                    Log.notice(connection == nil
                        ? "no session bus: the D-Bus API \(SchedulerService.name) is not offered"
                        : "\(SchedulerService.name) is owned by another process: the D-Bus API is not offered")
                },
                // Not retained: the daemon keeps the service until the GLib thread has stopped, and the scheduler (with
                // its store, closed and checkpointed when released) must not be kept alive past that by GLib.
                Unmanaged.passUnretained(self).toOpaque(), nil)
        }
    }

    /// Emits the signal for an event an application may want to hear: delivered, action, dismissed.
    func emit(_ event: EventInfo) {
        let signal: (String, [String])? = switch event.event {
        case "delivered": ("Delivered", [event.id])
        case "action": ("ActionInvoked", [event.id, event.action ?? "", event.text ?? ""])
        case "dismissed": ("Dismissed", [event.id])
        default: nil
        }
        guard let (name, arguments) = signal else { return }
        glib.perform { [self] in
            guard let connection else { return }
            g_dbus_connection_emit_signal(connection, nil, Self.path, Self.interface, name, Self.tuple(arguments.map(Self.string)), nil)
        }
    }

    private static func from(_ data: UnsafeMutableRawPointer?) -> SchedulerService {
        Unmanaged<SchedulerService>.fromOpaque(data!).takeUnretainedValue()
    }

    private func register(on connection: OpaquePointer) {
        self.connection = connection
        var error: UnsafeMutablePointer<GError>?
        guard let node = g_dbus_node_info_new_for_xml(Self.xml, &error) else { return }
        var vtable = GDBusInterfaceVTable()
        vtable.method_call = { _, _, _, _, method, parameters, invocation, data in
            SchedulerService.from(data).call(String(cString: method!), parameters!, Invocation(pointer: invocation!))
        }
        if g_dbus_connection_register_object(connection, Self.path, node.pointee.interfaces[0], &vtable,
                                             Unmanaged.passUnretained(self).toOpaque(), nil, &error) == 0 {
            Log.error("cannot offer the D-Bus API: \(error.map { String(cString: $0.pointee.message) } ?? "unknown error")")
        }
    }

    /// A method call waiting for its answer (GDBus lets it be answered from any thread; aviso answers from its own).
    private struct Invocation: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private func call(_ method: String, _ parameters: OpaquePointer, _ invocation: Invocation) {
        let request: Command
        switch method {
        case "Add":
            var options: [String: [String]] = [:]
            for (key, value) in Self.pairs(parameters) {
                // "data.KEY" entries are --data KEY=VALUE.
                if key.hasPrefix("data.") { options["data", default: []].append(String(key.dropFirst(5)) + "=" + value) } else {
                    options[key, default: []].append(value)
                }
            }
            let given = options
            answer(invocation, method) { await self.add(given) }
            return
        case "Remove": request = .remove(.ids(GVariantReader.strings(parameters)))
        case "RemovePrefix": request = .remove(.prefix(GVariantReader.string(parameters, at: 0)))
        case "Pending": request = .pending
        case "Delivered": request = .delivered
        case "RemoveDelivered": request = .removeDelivered(.ids(GVariantReader.strings(parameters)))
        case "Fire": request = .fire(GVariantReader.string(parameters, at: 0))
        case "Status": request = .status
        default:
            return g_dbus_method_invocation_return_dbus_error(invocation.pointer, "org.freedesktop.DBus.Error.UnknownMethod", method)
        }
        answer(invocation, method) { await self.command(request) }
    }

    private func answer(_ invocation: Invocation, _ method: String, _ work: @escaping @Sendable () async -> Reply) {
        Task {
            let reply = await work()
            glib.perform { Self.respond(invocation.pointer, method, reply) }
        }
    }

    /// Returns `reply` as the method's out arguments, or as a D-Bus error `org.aviso.Scheduler1.Error.CODE` with the
    /// same sentence the socket gives.
    private static func respond(_ invocation: OpaquePointer, _ method: String, _ reply: Reply) {
        let result: ReplyResult
        switch reply {
        case .error(let e):
            let code = e.code.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
            return g_dbus_method_invocation_return_dbus_error(invocation, "org.aviso.Scheduler1.Error.\(code)", e.message)
        case .ok(let r): result = r
        }
        var out: [OpaquePointer?]
        switch result {
        case .added(let id): out = [string(id)]
        case .removed(let ids): out = [strings(ids)]
        case .pending(let items):
            out = [array("(ssss)", items.map { tuple([$0.id, $0.title, $0.body, $0.next].map(string)) })]
        case .delivered(let items):
            out = [array("(ssssb)", items.map {
                tuple([$0.id, $0.title, $0.body, $0.delivered].map(string) + [g_variant_new_boolean($0.onScreen ? 1 : 0)])
            })]
        case .fired: out = []
        case .status(let s):
            let fields: [(String, String)] = [
                ("version", s.version), ("armed", String(s.armed)), ("total", String(s.total)),
                ("next_fire", s.nextFire ?? ""), ("next_id", s.nextID ?? ""), ("server", s.server?.name ?? ""),
                ("waiting", String(s.waiting)), ("config_errors", String(s.configErrors.count)),
            ]
            out = [array("{ss}", fields.map { g_variant_new_dict_entry(string($0.0), string($0.1)) })]
        default:
            return g_dbus_method_invocation_return_dbus_error(invocation, "org.freedesktop.DBus.Error.Failed", "unexpected reply to \(method)")
        }
        g_dbus_method_invocation_return_value(invocation, tuple(out))
    }

    private static func tuple(_ children: [OpaquePointer?]) -> OpaquePointer? {
        var children = children
        return children.withUnsafeMutableBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
    }

    private static func array(_ element: String, _ children: [OpaquePointer?]) -> OpaquePointer? {
        let type = g_variant_type_new(element)
        defer { g_variant_type_free(type) }
        var children = children
        return children.withUnsafeMutableBufferPointer { g_variant_new_array(type, $0.baseAddress, gsize($0.count)) }
    }

    private static func string(_ value: String) -> OpaquePointer? { g_variant_new_string(value) }

    private static func strings(_ values: [String]) -> OpaquePointer? { array("s", values.map(string)) }

    /// The entries of the `a{ss}` that is the first argument.
    private static func pairs(_ parameters: OpaquePointer) -> [(String, String)] {
        guard GVariantReader.type(parameters) == "(a{ss})", let dict = g_variant_get_child_value(parameters, 0) else { return [] }
        defer { g_variant_unref(dict) }
        return (0..<g_variant_n_children(dict)).compactMap { i in
            guard let entry = g_variant_get_child_value(dict, i) else { return nil }
            defer { g_variant_unref(entry) }
            return (GVariantReader.string(entry, at: 0), GVariantReader.string(entry, at: 1))
        }
    }
}
