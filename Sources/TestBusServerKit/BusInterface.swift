/// A D-Bus interface written as Swift values, from which `BusServer` makes the introspection XML GDBus exports.
///
/// Build it by chaining: `BusInterface("org.example.Thing").method("Ping", in: [("n", "u")]).signal("Pong", [])`.
public struct BusInterface: Sendable {
    /// One argument: its name and its D-Bus type signature ("s", "u", "as", "a{sv}", "h" ...).
    public typealias Argument = (name: String, type: String)

    /// The interface name; signals are emitted on it.
    public let name: String
    private var members: [String] = []

    /// An interface with no members yet.
    public init(_ name: String) {
        self.name = name
    }

    /// The interface with a method added: `inputs` in the order callers send them, `outputs` in reply order.
    public func method(_ method: String, in inputs: [Argument] = [], out outputs: [Argument] = []) -> BusInterface {
        let args = inputs.map { Self.argument($0, direction: "in") }
            + outputs.map { Self.argument($0, direction: "out") }
        return adding("method", method, args)
    }

    /// The interface with a signal added, carrying `arguments`.
    public func signal(_ signal: String, _ arguments: [Argument]) -> BusInterface {
        adding("signal", signal, arguments.map { Self.argument($0, direction: nil) })
    }

    /// The interface with a read-only property added, of D-Bus type `type`; its value comes from
    /// `BusObject.property(_:of:at:)` and org.freedesktop.DBus.Properties is answered by GDBus.
    public func property(_ property: String, _ type: String) -> BusInterface {
        var copy = self
        copy.members.append("<property name=\"\(property)\" type=\"\(type)\" access=\"read\"/>")
        return copy
    }

    /// The introspection XML of a node holding just this interface.
    public var xml: String {
        "<node><interface name=\"\(name)\">" + members.joined() + "</interface></node>"
    }

    private func adding(_ kind: String, _ member: String, _ args: [String]) -> BusInterface {
        var copy = self
        copy.members.append("<\(kind) name=\"\(member)\">" + args.joined() + "</\(kind)>")
        return copy
    }

    private static func argument(_ argument: Argument, direction: String?) -> String {
        let direction = direction.map { " direction=\"\($0)\"" } ?? ""
        return "<arg name=\"\(argument.name)\" type=\"\(argument.type)\"\(direction)/>"
    }
}
