import Foundation

/// A real notification server from Debian, drawing on a `VirtualDisplay`: dunst, xfce4-notifyd or
/// notification-daemon. Each is started on the given session bus and killed (with SIGKILL: children of the test's
/// worker threads inherit a mask that blocks SIGTERM) by `stop()`.
public final class DesktopNotificationServer: @unchecked Sendable {
    public enum Kind: String, CaseIterable, Sendable, CustomStringConvertible {
        case dunst
        case xfce4Notifyd = "xfce4-notifyd"
        case notificationDaemon = "notification-daemon"

        public var description: String { rawValue }

        /// The executable Debian installs.
        public var executable: String {
            switch self {
            case .dunst: "/usr/bin/dunst"
            case .xfce4Notifyd: "/usr/lib/x86_64-linux-gnu/xfce4/notifyd/xfce4-notifyd"
            case .notificationDaemon: "/usr/lib/notification-daemon/notification-daemon"
            }
        }

        /// The name its GetServerInformation gives, as avisod logs it.
        public var serverName: String {
            switch self {
            case .dunst: "dunst"
            case .xfce4Notifyd: "Xfce Notify Daemon"
            case .notificationDaemon: "Notification Daemon"
            }
        }

        /// The X window name of its popups.
        var popupWindowName: String {
            switch self {
            case .dunst: "Dunst"
            case .xfce4Notifyd: "xfce4-notifyd"
            case .notificationDaemon: "Notification"
            }
        }

        /// Whether it is installed here.
        public var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }
    }

    public let kind: Kind
    private let process = Process()
    /// DISPLAY and the session bus it serves.
    public let environment: [String: String]

    /// Starts the server with `environment` (DISPLAY and DBUS_SESSION_BUS_ADDRESS); dunst reads `dunstrc`.
    public init(_ kind: Kind, environment: [String: String], dunstrc: String? = nil) throws {
        self.kind = kind
        self.environment = environment
        process.executableURL = URL(fileURLWithPath: kind.executable)
        if kind == .dunst, let dunstrc { process.arguments = ["-config", dunstrc] }
        process.environment = environment
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
    }

    public func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// A popup window on screen: its position and size.
    public struct Window: Hashable, Sendable {
        public var x: Int, y: Int, width: Int, height: Int
    }

    /// The server's popup windows that are mapped now (dunst: its one window, when it shows anything).
    public func popups() throws -> [Window] {
        let search = try DaemonProcess.run("/usr/bin/xdotool", ["search", "--onlyvisible", "--name", "^\(kind.popupWindowName)$"],
                                           environment: environment)
        var windows: [Window] = []
        for id in search.stdout.split(separator: "\n") {
            let g = try DaemonProcess.run("/usr/bin/xdotool", ["getwindowgeometry", "--shell", String(id)], environment: environment)
            var values: [String: Int] = [:]
            for line in g.stdout.split(separator: "\n") {
                let parts = line.split(separator: "=")
                if parts.count == 2, let n = Int(parts[1]) { values[String(parts[0])] = n }
            }
            guard let x = values["X"], let y = values["Y"], let w = values["WIDTH"], let h = values["HEIGHT"],
                  w > 20, h > 20 else { continue }
            windows.append(Window(x: x, y: y, width: w, height: h))
        }
        return windows
    }

    /// Clicks the one action button of `popup` with the pointer, as a person would, where this server draws it:
    /// both put their buttons at the right of the popup's last row (xfce4-notifyd 0.7, notification-daemon 3.20), so
    /// the rightmost is hit. (dunst draws no buttons; use `dunstctl`.)
    public func clickOnlyButton(of popup: Window) throws {
        let (x, y): (Int, Int) = switch kind {
        case .xfce4Notifyd: (popup.x + popup.width - 45, popup.y + popup.height - 31)
        case .notificationDaemon: (popup.x + popup.width - 75, popup.y + popup.height - 37)
        case .dunst: throw BusFixtureError("dunst draws no buttons: use dunstctl")
        }
        let r = try DaemonProcess.run("/usr/bin/xdotool", ["mousemove", String(x), String(y), "click", "1"],
                                      environment: environment)
        if r.status != 0 { throw BusFixtureError("xdotool: \(r.stderr)") }
    }
}
