internal import CNotify
import Glibc

/// The user's graphical session and its lock state, as logind exposes them: Manager.GetUser(uid) → the User's
/// `Display` property (the graphical session) → that Session's `LockedHint`, followed through PropertiesChanged.
struct SessionFollow {
    var userPath: String?
    var sessionPath: String?
    var subscriptions: [UInt32] = []
    var locked: Bool?
    /// Bumped when the follow starts over, so answers to an earlier one are dropped.
    var generation = 0
}

extension LogindBus {
    static let userInterface = "org.freedesktop.login1.User"
    static let sessionInterface = "org.freedesktop.login1.Session"
    static let propertiesInterface = "org.freedesktop.DBus.Properties"

    /// Finds the user's graphical session and starts following its LockedHint.
    func followSession() {
        forgetSession()
        guard let connection, let owner else { return }
        let generation = session.generation
        BusCall.call(
            on: thread, connection, destination: owner, path: LogindBus.path, interface: LogindBus.interface, method: "GetUser",
            parameters: g_variant_new_tuple([g_variant_new_uint32(getuid())], 1), replyType: "(o)",
            timeoutMilliseconds: LogindBus.callTimeoutMilliseconds
        ) { [self] reply, _ in
            guard generation == session.generation, let reply else { return }
            let user = GVariantReader.objectPath(reply, at: 0)
            session.userPath = user
            watchProperties(of: user) { [self] changed in if changed.contains("Display") { followDisplay() } }
            followDisplay()
        }
    }

    /// Stops following: subscriptions dropped, answers still on their way ignored.
    func forgetSession() {
        if let connection { for id in session.subscriptions { g_dbus_connection_signal_unsubscribe(connection, id) } }
        session = SessionFollow(generation: session.generation + 1)
    }

    /// Reads the user's Display (the graphical session) and follows that session's LockedHint.
    private func followDisplay() {
        guard let connection, let owner, let user = session.userPath else { return }
        let generation = session.generation
        getProperty(connection, owner, user, LogindBus.userInterface, "Display") { [self] value in
            guard generation == session.generation else { return }
            // Display is (so): the session id and its object path; "/" when there is no graphical session.
            let path = value.flatMap { GVariantReader.type($0) == "(so)" ? GVariantReader.objectPath($0, at: 1) : nil }
            guard let path, path != "/" else { return report(false) }
            if path != session.sessionPath {
                session.sessionPath = path
                watchProperties(of: path) { [self] changed in if changed.contains("LockedHint") { readLockedHint() } }
            }
            readLockedHint()
        }
    }

    private func readLockedHint() {
        guard let connection, let owner, let path = session.sessionPath else { return }
        let generation = session.generation
        getProperty(connection, owner, path, LogindBus.sessionInterface, "LockedHint") { [self] value in
            guard generation == session.generation, let value, GVariantReader.type(value) == "b" else { return }
            report(g_variant_get_boolean(value) != 0)
        }
    }

    private func report(_ locked: Bool) {
        guard locked != session.locked else { return }
        session.locked = locked
        onEvent(.lockChanged(locked))
    }

    /// Calls `changed` with the names of properties that PropertiesChanged reports changed or invalidated at `path`.
    private func watchProperties(of path: String, _ changed: @escaping (Set<String>) -> Void) {
        guard let connection, let owner else { return }
        final class Box {
            let body: (Set<String>) -> Void
            init(_ body: @escaping (Set<String>) -> Void) { self.body = body }
        }
        let id = g_dbus_connection_signal_subscribe(
            connection, owner, LogindBus.propertiesInterface, "PropertiesChanged", path, nil, G_DBUS_SIGNAL_FLAGS_NONE,
            { _, _, _, _, _, parameters, data in
                guard let parameters else { return }
                Unmanaged<Box>.fromOpaque(data!).takeUnretainedValue().body(GVariantReader.changedProperties(parameters))
            },
            Unmanaged.passRetained(Box(changed)).toOpaque(), { data in Unmanaged<Box>.fromOpaque(data!).release() })
        session.subscriptions.append(id)
    }

    /// org.freedesktop.DBus.Properties.Get; `done` gets the value inside the variant (borrowed), or nil.
    private func getProperty(
        _ connection: OpaquePointer, _ owner: String, _ path: String, _ interface: String, _ name: String,
        _ done: @escaping (OpaquePointer?) -> Void
    ) {
        BusCall.call(
            on: thread, connection, destination: owner, path: path, interface: LogindBus.propertiesInterface, method: "Get",
            parameters: g_variant_new_tuple([g_variant_new_string(interface), g_variant_new_string(name)], 2),
            replyType: "(v)", timeoutMilliseconds: LogindBus.callTimeoutMilliseconds
        ) { reply, _ in
            guard let reply, let boxed = g_variant_get_child_value(reply, 0) else { return done(nil) }
            defer { g_variant_unref(boxed) }
            let inner = g_variant_get_variant(boxed)
            defer { if let inner { g_variant_unref(inner) } }
            done(inner)
        }
    }
}
