import AvisoTestSupport
import Foundation
import Testing

extension Integration {
    /// Each case that once brought avisod down, fired at the wrong time or acknowledged what it did not do, tried
    /// against the real daemon as a new user or a hostile local client would.
    @Suite(.timeLimit(.minutes(3)))
    struct RobustnessTests {
        /// A request line for `add` with the given trigger JSON and extra request fields.
        static func addLine(_ trigger: String, extra: String = "") -> [UInt8] {
            Array(#"{"v":1,"op":"add","request":{"id":"raw","content":{"title":"t","subtitle":"","body":"","level":"active","userInfo":{}},"trigger":\#(trigger)\#(extra)}}"#.utf8) + [10]
        }

        /// The error code and message of a reply line; nil when it is not a refusal.
        static func refusal(_ reply: String) -> (code: String, message: String)? {
            guard let object = try? JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any],
                  object["ok"] as? Bool == false, let error = object["error"] as? [String: Any] else { return nil }
            return (error["code"] as? String ?? "", error["message"] as? String ?? "")
        }

        /// Proves nothing was shown before it: a request due now, whose popup must be the next one the server sees.
        static func nothingShownBefore(_ marker: String, _ f: DaemonFixture) async throws {
            try f.ctl("add", "--id", marker, "--in", "100ms", "--title", marker)
            #expect(try await f.server!.next("notify").summary == marker, "no popup came before the marker")
        }

        // MARK: 1-3: dates and spans at the edges of 64 bits

        @Test(arguments: [
            (["--at", "2262-04-11 23:47:17 UTC"], 2, "year 2262 is outside the years aviso can schedule (1970 to 2199)"),
            (["--at", "9999-12-31 23:59"], 2, "year 9999 is outside the years aviso can schedule (1970 to 2199)"),
            (["--at", "1000-01-01 00:00"], 2, "year 1000 is outside the years aviso can schedule (1970 to 2199)"),
            (["--in", "292y 98d 23h 47min", "--repeat"], 1, "is too long: it would end after 2199-12-31T23:59:59Z"),
            (["--in", "290y"], 1, "interval 290y is too long"),
            (["--in", "9223372036s"], 1, "is too long: it would end after 2199-12-31T23:59:59Z"),
            (["--on", "2020-01-01"], 1, "OnCalendar: '2020-01-01' never elapses after"),
            (["--on", "*-02-30"], 1, "OnCalendar: '*-02-30' never elapses after"),
            (["--on", "Tue 2026-02-29"], 1, "OnCalendar: 'Tue 2026-02-29' never elapses after"),
            (["--on", "daily", "--tz", "Europe/Nowhere"], 2, "unknown time zone 'Europe/Nowhere'"),
        ])
        func whatCanNeverFireIsRefusedSayingWhy(args: [String], status: Int32, reason: String) async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            let r = try f.daemon.ctl(["add", "--id", "edge", "--title", "Edge"] + args)
            #expect(r.status == status, "\(r.stderr)")
            #expect(r.stderr.contains(reason), "\(r.stderr)")
            #expect(try f.json("list").isEmpty, "nothing was stored")
            try await Self.nothingShownBefore("alive", f)
        }

        @Test func theDaemonIsTheAuthorityOnWhatIsValid() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            let cases: [([UInt8], String)] = [
                (Self.addLine(#"{"kind":"date","at":-9223372036854775808}"#), "date 1677-09-21T00:12:43Z is outside the range"),
                (Self.addLine(#"{"kind":"date","at":9223372036854775807}"#), "date 2262-04-11T23:47:16Z is outside the range"),
                (Self.addLine(#"{"kind":"date","at":7258118400000000000}"#), "date 2200-01-01T00:00:00Z is outside the range"),
                (Self.addLine(#"{"kind":"interval","nanoseconds":9223372036854775807,"repeats":true}"#), "is too long"),
                (Self.addLine(#"{"kind":"interval","nanoseconds":-9223372036854775808}"#), "must be longer than zero"),
                (Self.addLine(#"{"kind":"calendar","spec":"daily","zone":"Europe/Nowhere"}"#), "unknown time zone 'Europe/Nowhere'"),
                (Self.addLine(#"{"kind":"calendar","spec":"daily","zone":""}"#), "time zone '' is empty"),
                (Self.addLine(#"{"kind":"calendar","spec":"daily","zone":"/etc/passwd"}"#), "unknown time zone '/etc/passwd'"),
                (Self.addLine(#"{"kind":"calendar","spec":"daily","zone":"local"}"#), "unknown time zone 'local'"),
                (Self.addLine(#"{"kind":"calendar","spec":"*-02-30"}"#), "never elapses"),
                (Self.addLine(#"{"kind":"interval","nanoseconds":600000000000}"#, extra: #","priority":1000"#), "priority 1000 is not a class"),
                (Self.addLine(#"{"kind":"interval","nanoseconds":600000000000}"#, extra: #","priority":-7"#), "priority -7 is not a class"),
                (Self.addLine(#"{"kind":"interval","nanoseconds":600000000000}"#, extra: #","maxLate":-5000000000"#), "maxLate -5s must be longer than zero"),
            ]
            for (line, reason) in cases {
                let reply = try RawClient.exchange(f.daemon.socket, line)
                let refused = Self.refusal(reply)
                #expect(refused?.code == "invalid", "\(reply)")
                #expect(refused?.message.contains(reason) == true, "\(reply)")
            }
            #expect(try f.json("list").isEmpty, "nothing was acknowledged")
            try await Self.nothingShownBefore("alive", f)
        }

        @Test func aReminderFileWithDatesOutOfRangeLetsTheDaemonStartAndTheRestOfTheFileLoad() async throws {
            let file = """
                [Reminder far]
                Title=Far
                At=2262-04-11 23:47:17 UTC

                [Reminder nines]
                Title=Nines
                At=9999-12-31 23:59

                [Reminder storm]
                Title=Storm
                Every=292y 98d 23h 47min

                [Reminder never]
                Title=Never
                OnCalendar=2020-01-01

                [Reminder good]
                Title=Good
                Every=1h

                """
            let f = try await DaemonFixture.start { daemon in
                let dir = (daemon.configFile as NSString).deletingLastPathComponent + "/reminders"
                try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
                try file.write(toFile: dir + "/edges.conf", atomically: true, encoding: .utf8)
            }
            defer { f.stop() }
            #expect(try f.json("list").map { $0["id"] as? String } == ["good"])
            let errors = try #require(try f.status()["configErrors"] as? [[String: Any]])
            #expect(Set(errors.compactMap { $0["line"] as? Int }) == [3, 7, 11, 15])
            let messages = errors.compactMap { $0["message"] as? String }.joined(separator: "\n")
            #expect(messages.contains("[Reminder far] At: time '2262-04-11 23:47:17 UTC': year 2262 is outside"), "\(messages)")
            #expect(messages.contains("[Reminder storm] interval") && messages.contains("too long"), "\(messages)")
            #expect(messages.contains("[Reminder never] OnCalendar: '2020-01-01' never elapses"), "\(messages)")
            try await Self.nothingShownBefore("no-storm", f)
        }

        @Test func fuzzedLinesNeitherBringTheDaemonDownNorLeaveARequestThatCannotFire() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            let seed: UInt64 = 0x6176_6973_6f00_0008
            var fuzzer = WireFuzzer(seed: seed, now: Int64(Date().timeIntervalSince1970 * 1e9))
            let lines = (0..<4_000).map { _ in fuzzer.nextLine() }
            let socket = f.daemon.socket
            // Four clients at once, each on its own thread, 1,000 lines each.
            let replies = await onThreads(4) { client in
                lines[(client * 1_000)..<((client + 1) * 1_000)].map { (try? RawClient.exchange(socket, $0)) ?? "" }
            }.flatMap { $0 }
            let acknowledged = replies.filter { $0.contains(#""ok":true"#) && $0.contains(#""id""#) }.count
            let unanswered = replies.filter { !$0.hasSuffix("\n") }.count
            let list = try f.json("list")
            let withoutNext = list.filter { $0["next"] == nil && $0["reason"] as? String != "will not fire again" }
            print("""
                daemon fuzz (seed 0x\(String(seed, radix: 16))): \(lines.count) lines, 0 crashes, \(acknowledged) adds \
                acknowledged, \(list.count) in the model, \(withoutNext.count) without a next deadline, \(unanswered) unanswered
                """)
            #expect(withoutNext.isEmpty, "\(withoutNext.prefix(3))")
            #expect(unanswered == 0, "every line got an answer (an error at least)")
            #expect(try f.status()["version"] != nil, "the daemon still serves")
        }

        // MARK: 5: nesting

        @Test func jsonNestedPastTheLimitIsRefusedAndTheDaemonGoesOn() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            for line in [String(repeating: "[", count: 513), #"{"v":1,"op":"status","x":"# + String(repeating: "[", count: 100_000)] {
                let reply = try RawClient.exchange(f.daemon.socket, Array(line.utf8) + [10])
                #expect(Self.refusal(reply)?.code == "malformed", "\(reply.prefix(200))")
                #expect(reply.contains("the limit is 64"))
            }
            try await Self.nothingShownBefore("alive", f)
        }

        // MARK: 6-7: a full disk

        /// A daemon whose state directory is on a 2 MiB tmpfs; nil (after saying so) where mounting is not permitted.
        static func onASmallDisk() async throws -> (DaemonFixture, SmallFilesystem)? {
            var disk: SmallFilesystem?
            let f = try await DaemonFixture.start { daemon in
                disk = SmallFilesystem.mount(at: daemon.directory + "/state")
            }
            guard let disk else {
                f.stop()
                print("skipped: a full filesystem needs root to mount a small tmpfs")
                return nil
            }
            return (f, disk)
        }

        @Test func aRemoveThatCannotBeWrittenIsRefusedAndNothingChanges() async throws {
            guard let (f, disk) = try await Self.onASmallDisk() else { return }
            defer {
                f.stop()
                disk.unmount()
            }
            try f.ctl("add", "--id", "keep", "--in", "1h", "--title", "Keep")
            disk.fill()
            let r = try f.daemon.ctl(["remove", "keep"])
            #expect(r.status == 1, "the daemon refused")
            #expect(r.stderr.contains("nothing was removed") && r.stderr.contains("full"), "\(r.stderr)")
            #expect(r.stdout.isEmpty, "no identifier is printed as removed")
            let added = try f.daemon.ctl(["add", "--id", "other", "--in", "1h", "--title", "Other"])
            #expect(added.status == 1 && added.stderr.contains("the request was not added"), "\(added.stderr)")
            #expect(try f.json("pending").map { $0["id"] as? String } == ["keep"])

            disk.free()
            f.daemon.signal(SIGTERM)
            try await f.daemon.waitForExit()
            try await f.daemon.start()
            #expect(try f.json("pending").map { $0["id"] as? String } == ["keep"], "still there after a restart")
            try f.ctl("remove", "keep")
            #expect(try f.json("pending").isEmpty)
        }

        @Test func aFiringThatCannotBeWrittenWaitsAndArrivesOnceSpaceIsFree() async throws {
            guard let (f, disk) = try await Self.onASmallDisk() else { return }
            defer {
                f.stop()
                disk.unmount()
            }
            try f.ctl("add", "--id", "soon", "--in", "300ms", "--title", "Soon")
            disk.fill()
            _ = try await f.daemon.log.next { $0.contains("recording the firing of 'soon' failed") }
            let storage = try #require(try f.status()["storage"] as? [String])
            #expect(storage.contains { $0.contains("full") && $0.contains("due notifications wait") }, "\(storage)")
            disk.free()
            let n = try await f.server!.next("notify", timeout: .seconds(10))
            #expect(n.summary == "Soon")
            #expect(try f.json("delivered").map { $0["id"] as? String } == ["soon"])
            #expect((try f.status()["storage"] as? [String] ?? []).isEmpty, "the problem is gone from status")
        }

        // MARK: 8, 13: slow, frozen and non-conforming servers

        @Test func aFrozenServerGetsEachPopupOnceAndHoldsNothingUp() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            let server = f.server!
            server.signal(SIGSTOP)
            try f.ctl("add", "--id", "one", "--in", "100ms", "--title", "One")
            try f.ctl("add", "--id", "two", "--in", "200ms", "--title", "Two")
            _ = try await f.daemon.log.next { $0.contains("sending 'one'") }
            _ = try await f.daemon.log.next { $0.contains("sending 'two'") }
            // Both are out although the first was never answered, and the daemon answers meanwhile.
            #expect(try f.status()["sending"] as? Int == 2)
            // Removed while the server has not answered: its popup must be closed once its id is known.
            try f.ctl("remove-delivered", "two")
            server.signal(SIGCONT)
            let one = try await server.next("notify")
            let two = try await server.next("notify")
            #expect([one.summary, two.summary] == ["One", "Two"])
            #expect(try await server.next("close").id == two.id, "the popup removed in flight was closed")
            try await Self.nothingShownBefore("marker", f)
            #expect(server.events.filter { $0.event == "notify" }.count == 3, "nothing was shown twice")
            #expect(try f.json("delivered").compactMap { $0["id"] as? String }.sorted() == ["marker", "one"])
        }

        /// SIGTERM the moment the daemon is ready, while it is still asking the server what it is: the questions
        /// left unanswered when the bus thread ends must not keep the daemon from exiting.
        @Test func aDaemonStoppedAsSoonAsItIsReadyExits() async throws {
            for _ in 0..<3 {
                let f = try await DaemonFixture.start()
                defer { f.stop() }
                f.daemon.signal(SIGTERM)
                #expect(try await f.daemon.waitForExit(timeout: .seconds(10)) == 0)
            }
        }

        /// SIGTERM while the server, frozen before the daemon started, has not said what it is: the question left
        /// unanswered (for up to its 5 s time limit) does not hold the exit up.
        @Test func aDaemonStoppedWhileAFrozenServerIsAskedWhatItIsExitsAtOnce() async throws {
            let bus = try DBusSession()
            defer { bus.stop() }
            let server = TestNotificationServer(busAddress: bus.address)
            try await server.start()
            defer { server.stop() }
            server.signal(SIGSTOP)
            defer { server.signal(SIGCONT) }
            let daemon = try DaemonProcess(busAddress: bus.address)
            try await daemon.start()
            daemon.signal(SIGTERM)
            #expect(try await daemon.waitForExit(timeout: .seconds(3)) == 0)
        }

        /// SIGTERM while a popup is on its way to a frozen server: the daemon exits at once, and after a restart the
        /// popup, which may have been shown, is delivered and not sent again.
        @Test func aPopupOnItsWayToAFrozenServerWhenTheDaemonStopsIsNotSentAgain() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            let server = f.server!
            // Once the daemon knows the server (and its capabilities), the popup's Notify leaves without a question.
            _ = try await f.daemon.log.next { $0.contains("notification server: ") }
            server.signal(SIGSTOP)
            try f.ctl("add", "--id", "held", "--in", "100ms", "--title", "Held")
            _ = try await f.daemon.log.next { $0.contains("sending 'held'") }
            f.daemon.signal(SIGTERM)
            #expect(try await f.daemon.waitForExit(timeout: .seconds(10)) == 0)
            server.signal(SIGCONT)
            // The call had left: the thawed server reads it and shows the popup once.
            #expect(try await server.next("notify").summary == "Held")
            try await f.daemon.start()
            #expect(try f.json("delivered").map { $0["id"] as? String } == ["held"])
            try await Self.nothingShownBefore("marker", f)
        }

        @Test func aServerThatAnswersWithTheWrongTypesDoesNotBringTheDaemonDown() async throws {
            let f = try await DaemonFixture.start(badReplies: true)
            defer { f.stop() }
            try f.ctl("add", "--id", "odd", "--in", "100ms", "--title", "Odd")
            #expect(try await f.server!.next("notify").summary == "Odd")
            _ = try await f.daemon.log.next { $0.contains("'odd' may or may not have been shown") }
            try f.ctl("add", "--id", "again", "--in", "100ms", "--title", "Again")
            #expect(try await f.server!.next("notify").summary == "Again", "the unconfirmed one was not sent again")
            let server = try #require(try f.status()["server"] as? [String: Any])
            #expect((server["name"] as? String)?.contains("did not describe itself") == true)
            #expect(try f.json("delivered").count == 2)
        }

        // MARK: 9: clients that hold on, many clients, a refusal before reading

        @Test func hundredsOfIdleConnectionsDoNotKeepARealClientOut() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            var idle: [Int32] = []
            defer { idle.forEach { close($0) } }
            for _ in 0..<400 { idle.append(try RawClient.connect(f.daemon.socket)) }
            let started = ContinuousClock.now
            let reply = try RawClient.exchange(f.daemon.socket, Array(#"{"v":1,"op":"status"}"#.utf8) + [10])
            let took = ContinuousClock.now - started
            #expect(reply.contains("\"ok\":true"), "\(reply)")
            #expect(took < .milliseconds(100), "answered in \(took)")
            print("status with 400 idle connections open: answered in \(took)")
        }

        @Test func fiftyParallelClientsAreNeverRefused() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            // Each client on a thread of its own: running processes blocks, and the cooperative pool has two threads.
            let failures = await onThreads(50) { client -> [String] in
                (0..<6).compactMap { k in
                    let r = try? f.daemon.ctl(["add", "--id", "c\(client)-\(k)", "--in", "1h", "--title", "Load"])
                    return r?.status == 0 ? nil : (r?.stderr ?? "avisoctl did not run")
                }
            }.flatMap { $0 }
            #expect(failures.isEmpty, "\(failures.prefix(3))")
            #expect(try f.json("list").count == 300)
        }

        @Test func avisoctlSaysWhatHappenedWhenTheDaemonRefusesBeforeReading() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            let big = String(repeating: "x", count: 120_000)
            let r = try f.daemon.ctl(["add", "--in", "1h", "--title", "Big"] + (0..<10).flatMap { ["--data", "k\($0)=\(big)"] })
            #expect(r.status == 1, "not killed by SIGPIPE (141): \(r.status)")
            #expect(r.stderr.contains("request line is longer than 1048576 bytes"), "\(r.stderr)")
        }

        // MARK: 10: a shared runtime directory

        @Test(arguments: ["open", "link", "foreign"])
        func aRuntimeDirectoryThatIsNotPrivateIsRefused(kind: String) async throws {
            if kind == "foreign" && getuid() != 0 { return print("skipped: a directory of another user needs root") }
            let daemon = try DaemonProcess(busAddress: nil)
            let dir = daemon.directory + "/run/aviso"
            switch kind {
            case "open":
                #expect(mkdir(dir, 0o700) == 0 && chmod(dir, 0o777) == 0)
            case "link":
                #expect(mkdir(daemon.directory + "/elsewhere", 0o700) == 0 && symlink(daemon.directory + "/elsewhere", dir) == 0)
            default:
                #expect(mkdir(dir, 0o700) == 0 && chown(dir, 65534, 65534) == 0)
            }
            try daemon.launch()
            let line = try await daemon.log.next { $0.contains("cannot start") }
            let expected = ["open": "is open to other users (mode 0777)", "link": "is a symbolic link",
                            "foreign": "belongs to uid 65534"][kind]!
            #expect(line.contains(expected), "\(line)")
            #expect(try await daemon.waitForExit() == 1)
            var info = stat()
            #expect(lstat(dir + "/ctl.sock", &info) != 0, "no socket was created there")
        }

        @Test func avisoctlRefusesASocketServedByAnotherUser() async throws {
            guard getuid() == 0 else { return print("skipped: serving a socket as another user needs root") }
            let dir = FileManager.default.temporaryDirectory.path + "/aviso-hijack-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            #expect(chown(dir, 65534, 65534) == 0)
            let socket = dir + "/ctl.sock"
            // Another user's program where the daemon's socket should be, recording what it receives.
            let script = """
                import socket, sys
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.bind(sys.argv[1]); s.listen(1)
                import os; os.chmod(sys.argv[1], 0o777)
                print("listening", flush=True)
                c, _ = s.accept(); c.settimeout(5)
                data = b''
                try:
                    while True:
                        chunk = c.recv(4096)
                        if not chunk: break
                        data += chunk
                except OSError:
                    pass
                print("received %d bytes" % len(data), flush=True)
                """
            let thief = Process()
            thief.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            thief.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script, socket]
            let output = Pipe()
            thief.standardOutput = output
            let lines = LineChannel()
            lines.attach(output.fileHandleForReading)
            try thief.run()
            defer { thief.terminate() }
            _ = try await lines.next { $0 == "listening" }
            let r = try DaemonProcess.run(Products.path("avisoctl"),
                                          ["--socket", socket, "add", "--in", "1h", "--title", "bank PIN 1234"])
            #expect(r.status == 3, "\(r.stderr)")
            #expect(r.stderr.contains("is served by a process of uid 65534, not by you"), "\(r.stderr)")
            #expect(try await lines.next { $0.hasPrefix("received") } == "received 0 bytes")
        }

        // MARK: 11: image paths

        @Test func imagePathsAreCheckedAndReportedTruthfully() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            let fifo = f.daemon.directory + "/pipe.png"
            #expect(mkfifo(fifo, 0o600) == 0)
            let cases = [
                ("/dev/zero", "is a device, not a regular file"), ("/proc/self/mem", "is empty"), (fifo, "is a FIFO"),
                (f.daemon.directory, "is a directory"), ("/nonexistent/tea.png", "does not exist"),
            ]
            for (path, reason) in cases {
                let r = try f.daemon.ctl(["add", "--in", "1h", "--title", "Img", "--image", path])
                #expect(r.status == 1 && r.stderr.contains("image '\(path)' \(reason)"), "\(path): \(r.stderr)")
            }
            let nul = #"{"v":1,"op":"add","request":{"id":"nul","content":{"title":"t","subtitle":"","body":"","level":"active","#
                + #""userInfo":{},"image":"/usr/share/pixmaps/debian-logo.png\u0000.txt"},"trigger":{"kind":"interval","nanoseconds":1000000000}}}"#
            let reply = try RawClient.exchange(f.daemon.socket, Array(nul.utf8) + [10])
            #expect(Self.refusal(reply)?.message.contains("contains a NUL byte") == true, "\(reply)")
            #expect(try f.json("list").isEmpty)
        }

        @Test func anotherUsersUnreadableImageIsReportedAsUnreadableAndAReadOnlyDatabaseAtStart() async throws {
            guard getuid() == 0 else { return print("skipped: running the daemon as another user needs root") }
            let daemon = try DaemonProcess(busAddress: nil)
            daemon.runAs = 65534
            let secret = daemon.directory + "/../aviso-secret-\(UUID().uuidString.prefix(8)).png"
            #expect(FileManager.default.createFile(atPath: secret, contents: Data([0x89, 0x50, 0x4e, 0x47]),
                                                   attributes: [.posixPermissions: 0o600]))
            defer { unlink(secret) }
            try await daemon.start()
            let r = try daemon.ctl(["add", "--in", "1h", "--title", "Img", "--image", secret])
            #expect(r.status == 1 && r.stderr.contains("cannot be read by the user running avisod (permission denied)"),
                    "\(r.stderr)")
            try daemon.ctl(["add", "--id", "kept", "--in", "1h", "--title", "Kept"])

            // The database made read-only by its owner: noticed when the daemon starts, not at the first add.
            daemon.signal(SIGTERM)
            try await daemon.waitForExit()
            #expect(chmod(daemon.stateDirectory + "/aviso.db", 0o400) == 0)
            try await daemon.start()
            let status = try daemon.ctl(["status"])
            #expect(status.stdout.contains("Storage: the database") && status.stdout.contains("cannot be written"),
                    "\(status.stdout)")
            let add = try daemon.ctl(["add", "--id", "new", "--in", "1h", "--title", "New"])
            #expect(add.status == 1 && add.stderr.contains("the request was not added"), "\(add.stderr)")
            #expect(try daemon.ctl(["pending"]).stdout.contains("kept"), "what is stored is still served")
            // Writable again: the next add goes through and the problem leaves the status.
            #expect(chmod(daemon.stateDirectory + "/aviso.db", 0o600) == 0)
            let again = try daemon.ctl(["add", "--id", "new", "--in", "1h", "--title", "New"])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(!(try daemon.ctl(["status"]).stdout.contains("Storage:")))
            daemon.signal(SIGTERM)
            try await daemon.waitForExit()
        }

        // MARK: 12: the store

        @Test func acknowledgedRequestsSurviveGarbageInTheWriteAheadLogAfterAKill() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            for i in 0..<50 { try f.ctl("add", "--id", "ack\(i)", "--in", "1h", "--title", "Acknowledged \(i)") }
            f.daemon.signal(SIGKILL)
            try await f.daemon.waitForExit()
            let wal = f.daemon.stateDirectory + "/aviso.db-wal"
            let handle = try #require(FileHandle(forUpdatingAtPath: wal))
            let size = try handle.seekToEnd()
            try handle.seek(toOffset: size / 2)
            handle.write(Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 17) }))
            try handle.close()
            try await f.daemon.start()
            // SQLite alone keeps only the transactions before the damage (about half). Every acknowledged request comes
            // back, except one whose only copy was in the damaged bytes, and that one is named.
            let listed = Set(try f.json("list").compactMap { $0["id"] as? String })
            let storage = (try f.status()["storage"] as? [String] ?? []).joined(separator: "\n")
            #expect(storage.contains("write-ahead log") && storage.contains("is damaged"), "\(storage)")
            let missing = (0..<50).map { "ack\($0)" }.filter { !listed.contains($0) }
            #expect(missing.count <= 2, "4 KiB of damage costs at most the pages it hit: \(missing)")
            for id in missing { #expect(storage.contains("'\(id)'"), "\(id) is lost and named: \(storage)") }
        }

        @Test func aCorruptDatabaseIsMovedAsideSalvagedAndReported() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            // 300 requests with long titles, so that the database spans many pages; one `sync` adds them all.
            let set = (0..<300).map { i in
                ["id": String(format: "s%03d", i), "content": ["title": String(repeating: "s", count: 300)],
                 "trigger": ["kind": "interval", "nanoseconds": 3_600_000_000_000]] as [String: Any]
            }
            let file = f.daemon.stateDirectory + "/set.json"
            try JSONSerialization.data(withJSONObject: set).write(to: URL(fileURLWithPath: file))
            try f.ctl("sync", "--prefix", "s", file)
            #expect(try f.json("list").count == 300)
            f.daemon.signal(SIGTERM)
            try await f.daemon.waitForExit()
            let db = f.daemon.stateDirectory + "/aviso.db"
            let handle = try #require(FileHandle(forUpdatingAtPath: db))
            let size = try handle.seekToEnd()
            try handle.seek(toOffset: (size / 2) & ~4095)
            handle.write(Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }))
            try handle.close()
            try await f.daemon.start()
            let storage = (try f.status()["storage"] as? [String] ?? []).joined(separator: "\n")
            #expect(storage.contains("was damaged") && storage.contains("aviso.db.corrupt-") && storage.contains("salvaged:"),
                    "\(storage)")
            let count = try f.json("list").count
            #expect(count > 150 && count < 300, "most requests were salvaged: \(count)")
            try f.ctl("add", "--id", "after", "--in", "1h", "--title", "After")
            try await Self.nothingShownBefore("alive", f)
        }

        @Test func aRowTheStoreCannotDecodeIsSetAsideAndTheRestLoads() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            try f.ctl("add", "--id", "good", "--in", "1h", "--title", "Good")
            try f.ctl("add", "--id", "bad", "--in", "1h", "--title", "Bad")
            f.daemon.signal(SIGTERM)
            try await f.daemon.waitForExit()
            let db = f.daemon.stateDirectory + "/aviso.db"
            let r = try DaemonProcess.run("/usr/bin/sqlite3", [db, "UPDATE requests SET value = '[1,2' WHERE id = 'bad';"])
            #expect(r.status == 0, "\(r.stderr)")
            try await f.daemon.start()
            #expect(try f.json("list").map { $0["id"] as? String } == ["good"])
            let storage = (try f.status()["storage"] as? [String] ?? []).joined(separator: "\n")
            #expect(storage.contains("'bad' in requests could not be read"), "\(storage)")
        }

        // MARK: Declared one-shot reminders

        @Test func aDeclaredOneShotReminderFiresOnceAcrossRestarts() async throws {
            let at = PersistenceTests.utc(Date().addingTimeInterval(2))
            let f = try await DaemonFixture.start { daemon in
                let dir = (daemon.configFile as NSString).deletingLastPathComponent + "/reminders"
                try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
                try "[Reminder once]\nTitle=Once\nAt=\(at)\n".write(toFile: dir + "/once.conf", atomically: true, encoding: .utf8)
            }
            defer { f.stop() }
            #expect(try await f.server!.next("notify", timeout: .seconds(10)).summary == "Once")
            f.daemon.signal(SIGTERM)
            try await f.daemon.waitForExit()
            try await f.daemon.start()
            try await Self.nothingShownBefore("marker", f)
            let list = try f.json("list")
            #expect(list.first { $0["id"] as? String == "once" }?["reason"] as? String == "will not fire again")
        }

        @Test func anAtAlreadyPastWhenItsFileWasWrittenNeverFires() async throws {
            let f = try await DaemonFixture.start { daemon in
                let dir = (daemon.configFile as NSString).deletingLastPathComponent + "/reminders"
                try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
                try "[Reminder past]\nTitle=Past\nAt=2026-01-01 09:00 UTC\n"
                    .write(toFile: dir + "/past.conf", atomically: true, encoding: .utf8)
            }
            defer { f.stop() }
            _ = try await f.daemon.log.first { $0.contains("[Reminder past] At=") && $0.contains("it will not fire") }
            try await Self.nothingShownBefore("marker", f)
        }
    }
}

/// Runs `body(i)` for i in 0..<count, each on a thread of its own, and returns the results in order.
func onThreads<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) -> T) async -> [T] {
    await withTaskGroup(of: (Int, T).self) { group in
        for i in 0..<count {
            group.addTask {
                await withCheckedContinuation { continuation in
                    Thread { continuation.resume(returning: (i, body(i))) }.start()
                }
            }
        }
        var results: [(Int, T)] = []
        for await r in group { results.append(r) }
        return results.sorted { $0.0 < $1.0 }.map(\.1)
    }
}
