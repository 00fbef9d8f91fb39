import AvisoTestSupport
import Foundation
import Testing

extension EndToEnd {
    /// Actions and threads through the notification servers Debian ships, each drawing on Xvfb: a person's click (xdotool
    /// on the button xfce4-notifyd or notification-daemon draws; dunst's context menu through `dunstctl`) reaches avisod
    /// as ActionInvoked and has its effect, and a thread stays one popup on every server.
    @Suite(.timeLimit(.minutes(2)))
    struct ServerEndToEndTests {
        static let config = """
            [Action done]
            Label=Done
            Run=dismiss

            [Category chores]
            Actions=done
            Level=critical

            """

        @Test(arguments: DesktopNotificationServer.Kind.allCases)
        func aThreadIsOnePopupAndItsButtonActsOnIt(kind: DesktopNotificationServer.Kind) async throws {
            try #require(kind.isInstalled, "\(kind) is not installed (scripts/debian-packages installs it)")
            let x = try VirtualDisplay()
            defer { x.stop() }
            let bus = try DBusSession()
            defer { bus.stop() }
            let daemon = try DaemonProcess(busAddress: bus.address, environment: ["DISPLAY": x.display])
            try daemon.writeConfig(Self.config)
            try await daemon.start()
            defer { daemon.signal(SIGTERM) }

            // dunst draws no buttons: its context menu runs `dmenu`, here a script that picks the "done" line
            // ("#Done (Bins) [ID,done]").
            let pick = daemon.directory + "/pick"
            try "#!/bin/sh\ngrep -m1 ',done]$'\n".write(toFile: pick, atomically: true, encoding: .utf8)
            chmod(pick, 0o755)
            let dunstrc = daemon.directory + "/dunstrc"
            try "[global]\n    dmenu = \(pick)\n    font = Monospace 10\n".write(toFile: dunstrc, atomically: true, encoding: .utf8)
            let server = try DesktopNotificationServer(kind, environment: daemon.environment, dunstrc: dunstrc)
            defer { server.stop() }
            let found = try await daemon.log.next(timeout: .seconds(20)) { $0.contains("notification server: ") }
            #expect(found.contains(kind.serverName), "\(found)")
            print("\(kind) capabilities: \(try daemon.ctl(["status"]).stdout.split(separator: "\n").filter { $0.contains("Capabilities") })")

            try daemon.ctl(["add", "--id", "m1", "--in", "100ms", "--title", "Bins", "--body", "Grey bin", "--thread", "bins",
                            "--category", "chores"]).expectSuccess()
            _ = try await daemon.log.next { $0.contains("delivered 'm1'") }
            try daemon.ctl(["add", "--id", "m2", "--in", "100ms", "--title", "Bins", "--body", "Green bin", "--thread", "bins",
                            "--category", "chores"]).expectSuccess()
            _ = try await daemon.log.next { $0.contains("delivered 1 into thread bins") }
            let shown = try await Self.eventually { try Self.visible(server) == 1 ? true : nil }
            #expect(shown == true, "one popup for the thread")
            try? FileManager.default.createDirectory(atPath: Products.directory + "/e2e", withIntermediateDirectories: true)
            try? x.screenshot(to: Products.directory + "/e2e/\(kind)-actions.png")

            if kind == .dunst {
                try DaemonProcess.run("/usr/bin/dunstctl", ["context"], environment: daemon.environment).expectSuccess()
            } else {
                let popup = try #require(try server.popups().first)
                try server.clickOnlyButton(of: popup)
            }
            // The newest of equal relevance is the one shown; its action closes the thread's popup and both with it.
            _ = try await daemon.log.next { $0.contains("'m2': done (dismiss)") }
            let delivered = try daemon.ctl(["delivered", "--json"]).stdout
            #expect((try JSONSerialization.jsonObject(with: Data(delivered.utf8)) as? [Any])?.isEmpty == true, "\(delivered)")
            if kind != .notificationDaemon {
                // notification-daemon 3.20 closes the notification (a second CloseNotification is refused as an invalid
                // id) but leaves the first window it ever drew on screen, with no window manager: not checked there.
                let gone = try await Self.eventually { try Self.visible(server) == 0 ? true : nil }
                #expect(gone == true, "the popup left the screen")
            }
            let events = try daemon.ctl(["events"]).stdout
            #expect(events.contains("action") && events.contains("done"), "\(events)")
            #expect(!events.contains("dismissed"), "a close after an action is not a dismissal: \(events)")
        }

        /// Popups on screen: dunst counts them itself; the others are one window each.
        static func visible(_ server: DesktopNotificationServer) throws -> Int {
            guard server.kind == .dunst else { return try server.popups().count }
            let r = try DaemonProcess.run("/usr/bin/dunstctl", ["count", "displayed"], environment: server.environment)
            return Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }

        /// Asks `probe` until it answers (a server maps and unmaps its windows on its own time, with no event to wait
        /// for), for at most `timeout`; nil when it never did.
        static func eventually<T>(timeout: Duration = .seconds(5), _ probe: () throws -> T?) async throws -> T? {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if let answer = try probe() { return answer }
                try await Task.sleep(for: .milliseconds(50))
            }
            return nil
        }
    }
}

extension DaemonProcess.Result {
    func expectSuccess(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(status == 0, "\(stderr)", sourceLocation: sourceLocation)
    }
}
