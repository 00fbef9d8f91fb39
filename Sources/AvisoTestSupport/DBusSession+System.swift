import Foundation

extension DBusSession {
    /// The process-wide stand-in for the system bus: a private `dbus-daemon`, started once, exported as
    /// `DBUS_SYSTEM_BUS_ADDRESS` before any GLib code connects, and kept for the life of the test process.
    ///
    /// GLib caches the system bus connection per process, so in-process code that calls `g_bus_get` for the system
    /// bus must use this one bus; tests using it run serialized. Its policy lets anyone own any name, so a test
    /// logind can own org.freedesktop.login1 (the real system bus would allow only root).
    public static let system: DBusSession = {
        do {
            let bus = try DBusSession()
            setenv("DBUS_SYSTEM_BUS_ADDRESS", bus.address, 1)
            atexit { DBusSession.system.stop() }
            return bus
        } catch {
            fatalError("cannot start the shared test system bus: \(error)")
        }
    }()
}
