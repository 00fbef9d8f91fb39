import AvisoTestSupport
import Foundation
import Testing

extension Integration {
    /// The D-Bus API (org.aviso.Scheduler1), driven with gdbus as an application would: the same commands, validation
    /// and errors as the socket, and signals for what happens to the application's notifications.
    @Suite(.timeLimit(.minutes(2)))
    struct DBusAPITests {
        static let target = ["--session", "--dest", "org.aviso.Scheduler1", "--object-path", "/org/aviso/Scheduler1"]

        /// `gdbus call` of a method with arguments in GVariant text; returns what it printed and its exit status.
        static func call(_ f: DaemonFixture, _ method: String, _ arguments: String...) throws -> DaemonProcess.Result {
            try DaemonProcess.run("/usr/bin/gdbus", ["call"] + target + ["--method", "org.aviso.Scheduler1." + method] + arguments,
                                  environment: ["DBUS_SESSION_BUS_ADDRESS": f.bus.address, "PATH": "/usr/bin:/bin"])
        }

        static func ready(_ f: DaemonFixture) async throws {
            _ = try await f.daemon.log.first { $0.contains("D-Bus API org.aviso.Scheduler1 is on the session bus") }
        }

        @Test func anApplicationAddsListsAndRemovesWithTheSocketsRules() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            try await Self.ready(f)
            let added = try Self.call(f, "Add", "{'id': 'build.1', 'title': 'Build', 'body': 'Done', 'in': '1h', 'data.job': '12'}")
            #expect(added.status == 0, "\(added.stderr)")
            #expect(added.stdout == "('build.1',)\n")
            // The socket sees what the bus added, with its data.
            let pending = try f.json("pending")
            #expect(pending.map { $0["id"] as? String } == ["build.1"])
            let userInfo = ((pending.first?["request"] as? [String: Any])?["content"] as? [String: Any])?["userInfo"] as? [String: Any]
            #expect(userInfo?["job"] as? Double == 12)
            let listed = try Self.call(f, "Pending")
            #expect(listed.stdout.hasPrefix("([('build.1', 'Build', 'Done', '"), "\(listed.stdout)")
            #expect(try Self.call(f, "Status").stdout.contains("'armed': '1'"))

            // Mistakes are D-Bus errors with the socket's sentence, and change nothing.
            let bad = try Self.call(f, "Add", "{'title': 'Tea', 'in': 'soon'}")
            #expect(bad.status != 0)
            #expect(bad.stderr.contains("org.aviso.Scheduler1.Error.Invalid"), "\(bad.stderr)")
            #expect(bad.stderr.contains("--in: time span 'soon'"), "\(bad.stderr)")
            let missing = try Self.call(f, "Remove", "['nope']")
            #expect(missing.stderr.contains("org.aviso.Scheduler1.Error.NotFound"), "\(missing.stderr)")
            #expect(try f.json("pending").count == 1)

            #expect(try Self.call(f, "RemovePrefix", "build.").stdout == "(['build.1'],)\n")
            #expect(try f.json("pending").isEmpty)
            let introspected = try DaemonProcess.run("/usr/bin/gdbus", ["introspect"] + Self.target,
                                                     environment: ["DBUS_SESSION_BUS_ADDRESS": f.bus.address])
            for method in ["Add(", "Remove(", "RemovePrefix(", "Pending(", "Delivered(", "RemoveDelivered(", "Fire(", "Status(",
                           "signal Delivered", "signal ActionInvoked", "signal Dismissed"] {
                #expect(introspected.stdout.contains(method) || introspected.stdout.contains(method.replacingOccurrences(of: "signal ", with: "")),
                        "introspection lacks \(method)")
            }
        }

        @Test func anApplicationHearsItsNotificationsDeliveredAnsweredAndDismissed() async throws {
            let f = try await DaemonFixture.start(config: "[Action done]\nRun=dismiss\n[Category chores]\nActions=done\n")
            defer { f.stop() }
            try await Self.ready(f)
            // Line-buffered (stdbuf): gdbus writes to a pipe in blocks otherwise.
            let monitor = try DaemonProcess.start("/usr/bin/stdbuf", ["-oL", "/usr/bin/gdbus", "monitor"] + Self.target.prefix(3),
                                                  environment: ["DBUS_SESSION_BUS_ADDRESS": f.bus.address])
            defer { monitor.terminate() }
            _ = try await monitor.lines.next { $0.contains("Monitoring signals") }
            #expect(try Self.call(f, "Add", "{'id': 'bins', 'title': 'Bins', 'in': '50ms', 'category': 'chores'}").status == 0)
            let shown = try await f.server!.next("notify")
            let delivered = try await monitor.lines.next { $0.contains("org.aviso.Scheduler1.Delivered") }
            #expect(delivered.contains("('bins',)"), "\(delivered)")
            f.server!.invoke(id: shown.id!, key: "done")
            let action = try await monitor.lines.next { $0.contains("org.aviso.Scheduler1.ActionInvoked") }
            #expect(action.contains("('bins', 'done', '')"), "\(action)")

            #expect(try Self.call(f, "Add", "{'id': 'tea', 'title': 'Tea', 'in': '50ms'}").status == 0)
            let tea = try await f.server!.next("notify")
            f.server!.close(id: tea.id!, reason: 2)
            let dismissed = try await monitor.lines.next { $0.contains("org.aviso.Scheduler1.Dismissed") }
            #expect(dismissed.contains("('tea',)"), "\(dismissed)")
        }

        @Test func theActivationFileStartsTheUserService() throws {
            let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("data/org.aviso.Scheduler1.service").path
            let text = try String(contentsOfFile: file, encoding: .utf8)
            #expect(text.hasPrefix("[D-BUS Service]\n"))
            for line in ["Name=org.aviso.Scheduler1", "Exec=/usr/bin/avisod", "SystemdService=aviso.service"] {
                #expect(text.contains("\n" + line + "\n"), "\(line)")
            }
        }
    }
}
