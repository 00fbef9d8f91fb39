import AvisoTestSupport
import Foundation
import Testing

extension EndToEnd {
    /// The whole path through a real notification server: avisoctl -> avisod -> libnotify -> D-Bus -> dunst on Xvfb.
    @Suite(.timeLimit(.minutes(2)))
    struct DunstEndToEndTests {
        @Test func aNotificationAddedWithAvisoctlReachesDunst() async throws {
            let x = try VirtualDisplay()
            defer { x.stop() }
            let bus = try DBusSession()
            defer { bus.stop() }
            let daemon = try DaemonProcess(busAddress: bus.address, environment: ["DISPLAY": x.display])
            try await daemon.start()
            defer { daemon.signal(SIGTERM) }

            let dir = daemon.directory
            try Self.dunstrc.write(toFile: dir + "/dunstrc", atomically: true, encoding: .utf8)
            let dunst = Process()
            dunst.executableURL = URL(fileURLWithPath: "/usr/bin/dunst")
            dunst.arguments = ["-config", dir + "/dunstrc"]
            dunst.environment = daemon.environment
            dunst.standardError = FileHandle.nullDevice
            dunst.standardOutput = FileHandle.nullDevice
            try dunst.run()
            defer {
                // SIGKILL: dunst inherits the test thread's signal mask, which blocks SIGTERM.
                kill(dunst.processIdentifier, SIGKILL)
                dunst.waitUntilExit()
            }
            // avisod watches the bus name: it logs the server as soon as dunst owns it.
            _ = try await daemon.log.next(timeout: .seconds(20)) { $0.contains("notification server: dunst") }

            let add = try daemon.ctl(["add", "--id", "e2e", "--in", "200ms", "--title", "Tea", "--subtitle", "Kitchen",
                                      "--body", "Take the tea bag out", "--level", "critical"])
            #expect(add.status == 0, "\(add.stderr)")
            let line = try await daemon.log.next(timeout: .seconds(10)) { $0.contains("delivered 'e2e'") }
            #expect(line.contains("as notification"))
            let delivered = try daemon.ctl(["delivered", "--json"])
            #expect(delivered.stdout.contains("\"onScreen\" : true"))
            try? FileManager.default.createDirectory(atPath: Products.directory + "/e2e", withIntermediateDirectories: true)
            try? x.screenshot(to: Products.directory + "/e2e/dunst.png")

            // Closing through aviso moves the popup into dunst's history: dunst itself confirms what it showed.
            #expect(try daemon.ctl(["remove-delivered", "e2e"]).status == 0)
            let history = try DaemonProcess.run("/usr/bin/dunstctl", ["history"], environment: daemon.environment)
            #expect(history.status == 0, "\(history.stderr)")
            #expect(history.stdout.contains("\"Tea\""))
            #expect(history.stdout.contains("Take the tea bag out"))
            #expect(history.stdout.contains("\"aviso\""))
        }

        static let dunstrc = """
            [global]
                monitor = 0
                follow = none
                font = Monospace 10
                markup = full
                format = "<b>%s</b>\\n%b"
                width = 400
                origin = top-right
                offset = 10x10
            [urgency_critical]
                timeout = 0
            """
    }
}
