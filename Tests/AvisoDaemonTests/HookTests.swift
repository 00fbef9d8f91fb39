import AvisoCore
import AvisoTestSupport
import Foundation
import Testing

extension Integration {
    /// Content hooks end to end: real scripts as hooks, a real avisod, the test notification server seeing what a person
    /// would see. Serial: the timing tests measure against the wall clock.
    @Suite(.serialized, .timeLimit(.minutes(3)))
    struct HookTests {
        /// Starts a daemon whose aviso.conf declares `[Category NAME]` for each hook script (name, script body in the
        /// language of its `#!` line, extra keys); the scripts are written into the daemon's directory first.
        static func start(
            _ hooks: [(name: String, script: String, keys: String)], environment: [String: String] = [:],
            executable: Bool = true, before: ((DaemonProcess) throws -> Void)? = nil
        ) async throws -> DaemonFixture {
            try await DaemonFixture.start(environment: environment, before: { daemon in
                try before?(daemon)
                var config = ""
                for h in hooks {
                    let path = daemon.directory + "/\(h.name).hook"
                    try h.script.write(toFile: path, atomically: true, encoding: .utf8)
                    chmod(path, executable ? 0o755 : 0o644)
                    config += "[Category \(h.name)]\nContentHook=\(path) --from-test\n\(h.keys)\n"
                }
                try daemon.writeConfig(config)
            })
        }

        /// Adds `id` in `category`, due after `delay`.
        func add(_ f: DaemonFixture, _ id: String, _ category: String, in delay: String = "100ms", body: String = "original",
                 extra: [String] = []) throws {
            let r = try f.daemon.ctl(["add", "--id", id, "--in", delay, "--title", "Build", "--body", body, "--category", category] + extra)
            #expect(r.status == 0, "\(r.stderr)")
        }

        /// The kept `hook` events, as `avisoctl events --json` prints them.
        func hookEvents(_ f: DaemonFixture) throws -> [[String: Any]] {
            try f.ctl("events", "--json").split(separator: "\n").compactMap { line in
                guard let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                    throw BusFixtureError("not an event: \(line)")
                }
                return o["event"] as? String == "hook" ? o : nil
            }
        }

        /// `stats --json`'s hooks counters of a category.
        func hookCounts(_ f: DaemonFixture, _ category: String) throws -> [String: Int] {
            let out = try f.ctl("stats", "--json")
            guard let stats = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any],
                  let categories = stats["categories"] as? [String: Any], let c = categories[category] as? [String: Any],
                  let hooks = c["hooks"] as? [String: Int] else {
                throw BusFixtureError("no hooks counters for \(category) in \(out)")
            }
            return hooks
        }

        /// The processes of a group that are not zombies (a killed hook's children are reparented to PID 1, which in a
        /// container may never reap them).
        static func living(inGroup pgid: Int32) -> [Int32] {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            return entries.compactMap { Int32($0) }.filter { stat($0).map { $0.state != "Z" && $0.pgid == pgid } ?? false }
        }

        static func isLiving(_ pid: Int32) -> Bool { stat(pid).map { $0.state != "Z" } ?? false }

        /// State and process group from /proc/PID/stat; nil when the process is gone.
        static func stat(_ pid: Int32) -> (state: Substring, pgid: Int32)? {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = text.lastIndex(of: ")") else { return nil }
            let fields = text[text.index(after: close)...].split(separator: " ")
            guard fields.count > 2, let pgid = Int32(fields[2]) else { return nil }
            return (fields[0], pgid)
        }

        /// A file a hook wrote into the daemon's directory.
        func file(_ f: DaemonFixture, _ name: String) throws -> String {
            guard let text = try? String(contentsOfFile: f.daemon.directory + "/" + name, encoding: .utf8) else {
                throw BusFixtureError("the hook did not write \(name)")
            }
            return text
        }

        @Test func aHookImprovesInThreeStepsAndTheThirdVersionIsShownWithACleanStart() async throws {
            let script = """
                #!/usr/bin/python3
                import json, os, sys, time
                event = json.load(sys.stdin)
                def is_open(fd):
                    try:
                        os.fstat(fd)
                        return True
                    except OSError:
                        return False
                record = {"event": event, "argv": sys.argv[1:], "cwd": os.getcwd(), "pgid": os.getpgid(0), "pid": os.getpid(),
                          "env": sorted(k for k in os.environ if not k.startswith("AVISO_")),
                          "aviso": {k: v for k, v in os.environ.items() if k.startswith("AVISO_")},
                          "fds": [fd for fd in range(3, 1024) if is_open(fd)]}
                with open(os.path.dirname(sys.argv[0]) + "/seen.json", "w") as out:
                    json.dump(record, out)
                for text in ["step 1", "step 2", "step 3"]:
                    print(json.dumps({"body": text, "subtitle": "by the hook"}), flush=True)
                    time.sleep(0.05)
                """
            let f = try await Self.start([("build", script, "HookTimeout=3s")])
            defer { f.stop() }
            try add(f, "b1", "build")
            let n = try await f.server!.next("notify")
            #expect(n.summary == "Build")
            #expect(n.body?.contains("step 3") == true && n.body?.contains("by the hook") == true, "\(n.body ?? "")")
            _ = try await f.daemon.log.next { $0.contains("delivered 'b1'") }
            #expect(try hookCounts(f, "build") == ["completed": 1, "expired": 0, "failed": 0, "killed": 0])
            let events = try hookEvents(f)
            #expect(events.count == 1 && events.first?["outcome"] as? String == "completed" && events.first?["durationMs"] is Int)

            let seen = try JSONSerialization.jsonObject(with: Data(try file(f, "seen.json").utf8)) as? [String: Any]
            let event = seen?["event"] as? [String: Any]
            #expect(event?["id"] as? String == "b1" && event?["title"] as? String == "Build" && event?["body"] as? String == "original")
            #expect(event?["category"] as? String == "build" && event?["late"] as? Bool == false && event?["attempt"] as? Int == 1)
            #expect((event?["due"] as? String)?.hasSuffix("Z") == true)
            #expect(seen?["argv"] as? [String] == ["--from-test"])
            #expect(seen?["cwd"] as? String == f.daemon.stateDirectory)
            #expect(seen?["pgid"] as? Int == seen?["pid"] as? Int, "its own process group")
            #expect(seen?["fds"] as? [Int] == [], "no descriptor beyond 0, 1, 2: \(seen?["fds"] ?? "")")
            let env = Set(seen?["env"] as? [String] ?? [])
            #expect(env.isSubset(of: ["PATH", "HOME", "LANG", "LC_ALL", "XDG_RUNTIME_DIR", "LC_CTYPE"]), "\(env)")
            #expect(!env.contains("DBUS_SESSION_BUS_ADDRESS") && !env.contains("XDG_STATE_HOME"))
            let aviso = seen?["aviso"] as? [String: String]
            #expect(aviso?["AVISO_ID"] == "b1" && aviso?["AVISO_CATEGORY"] == "build" && aviso?["AVISO_LATE"] == "0")
        }

        @Test func aHookThatSleepsForeverIsStoppedAtItsBudgetAndItsLineIsShown() async throws {
            let script = """
                #!/bin/sh
                echo '{"body":"first and only"}'
                cut -d ' ' -f 5 /proc/$$/stat > "$(dirname "$0")/pgid"
                sleep 1000
                """
            let f = try await Self.start([("slow", script, "HookTimeout=1s")])
            defer { f.stop() }
            let added = Date()
            try add(f, "s1", "slow", in: "50ms")
            let n = try await f.server!.next("notify")
            let waited = Date().timeIntervalSince(added)
            #expect(n.body == "first and only")
            // Started at once (due within its timeout), stopped at 1 s: no earlier, and not much later.
            #expect(waited >= 0.9 && waited < 3, "\(waited) s")
            _ = try await f.daemon.log.next { $0.contains("delivered 's1'") }
            #expect(try hookCounts(f, "slow")["expired"] == 1)
            let pgid = try #require(Int32(try file(f, "pgid").trimmingCharacters(in: .whitespacesAndNewlines)))
            #expect(Self.living(inGroup: pgid).isEmpty, "the hook's process group is gone: \(Self.living(inGroup: pgid))")
        }

        @Test func aHookThatPrintsOnSIGTERMHasItsLastLineShown() async throws {
            let script = """
                #!/usr/bin/python3
                import json, signal, sys, time
                def last(signum, frame):
                    print(json.dumps({"body": "the last word", "relevance": 0.9}), flush=True)
                    sys.exit(0)
                signal.signal(signal.SIGTERM, last)
                print(json.dumps({"body": "working"}), flush=True)
                while True:
                    time.sleep(1)
                """
            let f = try await Self.start([("term", script, "HookTimeout=1s")])
            defer { f.stop() }
            try add(f, "t1", "term", in: "50ms")
            let n = try await f.server!.next("notify")
            #expect(n.body == "the last word")
            _ = try await f.daemon.log.next { $0.contains("delivered 't1'") }
            #expect(try hookCounts(f, "term")["expired"] == 1)
        }

        @Test func aHookOverItsMemoryIsRefusedItAndTheBestVersionIsShown() async throws {
            let script = """
                #!/usr/bin/python3
                import json
                print(json.dumps({"body": "before the hog"}), flush=True)
                hog = bytearray(512 * 1024 * 1024)
                print(json.dumps({"body": "the hog got its memory"}), flush=True)
                """
            let f = try await Self.start([("hog", script, "HookMemory=64M")])
            defer { f.stop() }
            try add(f, "h1", "hog", in: "50ms")
            let n = try await f.server!.next("notify")
            #expect(n.body == "before the hog")
            let line = try await f.daemon.log.next { $0.contains("'h1': content hook ") }
            #expect(line.contains("failed") && line.contains("MemoryError"), "\(line)")
            _ = try await f.daemon.log.next { $0.contains("delivered 'h1'") }
            #expect(try hookCounts(f, "hog")["failed"] == 1)
        }

        @Test func garbageLinesAreIgnoredAndTheValidOnesApplied() async throws {
            let script = """
                #!/bin/sh
                echo 'not json at all'
                echo '{"bogus": 1}'
                echo '{"body": 5}'
                echo '{"body": "valid", "level": "critical", "thread": "ci"}'
                echo '{"relevance": 7}'
                echo '[1, 2]'
                printf '\\001\\377\\n'
                """
            let f = try await Self.start([("junk", script, "")])
            defer { f.stop() }
            try add(f, "g1", "junk")
            let n = try await f.server!.next("notify")
            #expect(n.body == "valid")
            #expect(n.hints?["urgency"] == .number(2), "time-sensitive from the patch: \(n.hints ?? [:])")
            let line = try await f.daemon.log.next { $0.contains("'g1': content hook ") }
            #expect(line.contains("completed") && line.contains("1 patch applied"), "\(line)")
            #expect(line.contains("unknown field 'bogus'") && line.contains("'body' is not a string")
                && line.contains("'not json at all' is not a JSON object"), "\(line)")
            #expect(try hookCounts(f, "junk")["completed"] == 1)
        }

        @Test func aHookThatIsNotExecutableIsWarnedAboutAndTheOriginalIsShown() async throws {
            let f = try await Self.start([("noexec", "#!/bin/sh\necho '{\"body\":\"never\"}'\n", "")], executable: false)
            defer { f.stop() }
            #expect(try f.daemon.log.all.contains { $0.contains("ContentHook=") && $0.contains("not executable") })
            try add(f, "x1", "noexec")
            let n = try await f.server!.next("notify")
            #expect(n.body == "original")
            let line = try await f.daemon.log.next { $0.contains("'x1': content hook ") }
            #expect(line.contains("failed") && line.contains("Permission denied"), "\(line)")
            #expect(try hookCounts(f, "noexec")["failed"] == 1)
        }

        @Test func aBackgroundChildHoldingStdoutDoesNotHoldThePopup() async throws {
            let script = """
                #!/bin/sh
                sleep 1000 &
                echo $! > "$(dirname "$0")/child"
                echo '{"body":"done, child left behind"}'
                exit 0
                """
            let f = try await Self.start([("bg", script, "HookTimeout=10s")])
            defer { f.stop() }
            let added = Date()
            try add(f, "c1", "bg", in: "50ms")
            let n = try await f.server!.next("notify")
            #expect(n.body == "done, child left behind")
            #expect(Date().timeIntervalSince(added) < 2, "not held until the 10 s budget")
            _ = try await f.daemon.log.next { $0.contains("delivered 'c1'") }
            #expect(try hookCounts(f, "bg")["completed"] == 1)
            let child = try #require(Int32(try file(f, "child").trimmingCharacters(in: .whitespacesAndNewlines)))
            #expect(!Self.isLiving(child), "the background child was killed with the hook's group")
        }

        @Test func aHookThatEndsBeforeTheDueInstantKeepsFirePrecision() async throws {
            let script = """
                #!/bin/sh
                cat > /dev/null
                echo '{"body":"improved ahead of time"}'
                """
            let f = try await Self.start([("ahead", script, "HookTimeout=2s")])
            defer { f.stop() }
            // The first popup of a daemon pays for its first D-Bus call: measured after one.
            try f.ctl("add", "--id", "warm", "--in", "10ms", "--title", "Warm-up")
            _ = try await f.server!.next("notify")
            // Sixteen requests 200 ms apart, every other one with the hook, so both kinds meet the same machine load,
            // and a stall of the shared machine during one or two of them does not move the medians. The release
            // benchmark (`Benchmarks/run hooks`) holds the 10 ms bar; a debug build on a shared machine is compared
            // with itself: the hook must not make the popup later than one without it.
            let count = 16
            let start = Int64(Date().timeIntervalSince1970 * 1000) * 1_000_000 + 3_000_000_000
            var due: [String: Int64] = [:]
            for i in 0..<count {
                let id = (i % 2 == 0 ? "hooked" : "plain") + "\(i)"
                due[id] = start + Int64(i) * 200_000_000
                let category = i % 2 == 0 ? #","categoryID":"ahead""# : ""
                let request = #"{"v":1,"op":"add","request":{"id":"\#(id)","trigger":{"kind":"date","at":\#(due[id]!)},"#
                    + #""content":{"title":"\#(id)","body":"plain"\#(category)}}}"#
                let reply = try RawClient.exchange(f.daemon.socket, Array(request.utf8) + [10])
                #expect(reply.contains(#""ok":true"#), "\(reply)")
            }
            var hooked: [Double] = [], plain: [Double] = []
            for _ in 0..<count {
                let n = try await f.server!.next("notify", timeout: .seconds(10))
                let id = n.summary ?? ""
                let late = Double((n.atNs ?? 0) - (due[id] ?? 0)) / 1e6
                if id.hasPrefix("hooked") {
                    #expect(n.body == "improved ahead of time", "\(id)")
                    hooked.append(late)
                } else {
                    plain.append(late)
                }
            }
            func median(_ v: [Double]) -> Double { let s = v.sorted(); return (s[s.count / 2 - 1] + s[s.count / 2]) / 2 }
            #expect(hooked.count == count / 2 && plain.count == count / 2)
            // Late by up to a second at most: this shared machine stalls for up to 400 ms now and then (the precision
            // benchmark's p99, old and new builds alike); the medians below say whether the hook made popups later.
            #expect((hooked + plain).allSatisfy { $0 >= 0 && $0 <= 1_000 }, "none early, none lost in the load: \(hooked) \(plain)")
            #expect(median(hooked) <= median(plain) + 10, "with the hook \(hooked) ms, without \(plain) ms")
            let lines = f.daemon.log.all.filter { $0.contains("starting its content hook 2s before it is due") }
            #expect(lines.count == count / 2, "each hook started ahead of its instant")
        }

        @Test func aMissedNotificationRunsItsHookWhenItIsDelivered() async throws {
            let script = """
                #!/usr/bin/python3
                import json, sys
                event = json.load(sys.stdin)
                print(json.dumps({"body": "late is %s" % event["late"]}))
                """
            let f = try await Self.start([("missed", script, "")])
            defer { f.stop() }
            let r = try f.daemon.ctl(["add", "--id", "m1", "--at", MissedNotificationTests.at(3600), "--title", "Build",
                                      "--body", "original", "--category", "missed"])
            #expect(r.status == 0, "\(r.stderr)")
            try await MissedNotificationTests.restartLater(f, hours: 2)
            let n = try await f.server!.next("notify")
            // The hook's version, with the note that it is late.
            #expect(n.body?.hasPrefix("late is True\n(due at ") == true, "\(n.body ?? "")")
            #expect(try hookCounts(f, "missed")["completed"] == 1)
        }

        @Test func aHookUnderAUserManagerRunsInATransientScope() async throws {
            // A user manager's private socket and a systemd-run that records its arguments, then runs the command as
            // systemd-run --scope does (in place).
            let fake = FileManager.default.temporaryDirectory.appendingPathComponent("aviso-fake-systemd-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: fake, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: fake) }
            try """
                #!/bin/sh
                echo "$@" > "\(fake)/args"
                while [ "$1" != "--" ]; do shift; done
                shift
                exec "$@"
                """.write(toFile: fake + "/systemd-run", atomically: true, encoding: .utf8)
            chmod(fake + "/systemd-run", 0o755)
            let path = fake + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
            let f = try await Self.start([("scoped", "#!/bin/sh\necho '{\"body\":\"in a scope\"}'\n", "HookTimeout=4s\nHookMemory=48M")],
                                         environment: ["PATH": path], before: { daemon in
                try FileManager.default.createDirectory(atPath: daemon.directory + "/run/systemd", withIntermediateDirectories: true)
                let s = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
                var address = sockaddr_un()
                address.sun_family = sa_family_t(AF_UNIX)
                let p = Array((daemon.directory + "/run/systemd/private").utf8)
                withUnsafeMutableBytes(of: &address.sun_path) { raw in
                    raw.copyBytes(from: p)
                    raw[p.count] = 0
                }
                _ = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(s, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
                }
                close(s)
            })
            defer { f.stop() }
            try add(f, "u1", "scoped")
            let n = try await f.server!.next("notify")
            #expect(n.body == "in a scope")
            let args = try String(contentsOfFile: fake + "/args", encoding: .utf8)
            #expect(args.hasPrefix("--user --scope"), "\(args)")
            #expect(args.contains("--property=MemoryMax=\(48 << 20)") && args.contains("--property=RuntimeMaxSec=5000ms"), "\(args)")
            #expect(args.contains("scoped.hook --from-test"), "\(args)")
        }

        @Test func removingARequestStopsItsHookAndNothingIsShownOrCounted() async throws {
            // The hook says its process group through a FIFO: reading it waits until the hook has written.
            let script = """
                #!/bin/sh
                cut -d ' ' -f 5 /proc/$$/stat > "$(dirname "$0")/pgid.fifo"
                echo '{"body":"too late to matter"}'
                sleep 1000
                """
            let f = try await Self.start([("gone", script, "HookTimeout=20s")], before: { daemon in
                #expect(mkfifo(daemon.directory + "/pgid.fifo", 0o600) == 0)
            })
            defer { f.stop() }
            try add(f, "r1", "gone", in: "10s")
            let fifo = open(f.daemon.directory + "/pgid.fifo", O_RDONLY)
            var bytes = [UInt8](repeating: 0, count: 32)
            let n = read(fifo, &bytes, bytes.count)
            close(fifo)
            let written = String(decoding: bytes.prefix(max(n, 0)), as: UTF8.self)
            let group = try #require(Int32(written.trimmingCharacters(in: .whitespacesAndNewlines)), "the hook ran: \(written)")
            try f.ctl("remove", "r1")
            let ended = try await f.daemon.log.next { $0.contains("'r1': the content hook of a notification no longer waiting ended") }
            #expect(ended.contains("SIGKILL"), "\(ended)")
            #expect(Self.living(inGroup: group).isEmpty)
            try f.ctl("add", "--id", "after", "--in", "10ms", "--title", "After")
            #expect(try await f.server!.next("notify").summary == "After", "no popup for the removed request came first")
            #expect(try hookEvents(f).isEmpty)
        }

        @Test func aBurstLargerThanTheWindowStartsEveryHookBeforeItsInstant() async throws {
            let script = """
                #!/bin/sh
                cat > /dev/null
                echo '{"body":"ready in time"}'
                """
            // A window of 3 timers: two of the five have no timer of their own until the first three fire.
            let f = try await Self.start([("many", script, "HookTimeout=2s\n\n[Scheduler]\nWindow=3")])
            defer { f.stop() }
            // The same instant for all five, to the nanosecond.
            let due = (Int64(Date().timeIntervalSince1970) + 3) * 1_000_000_000
            for i in 0..<5 {
                let request = #"{"v":1,"op":"add","request":{"id":"m\#(i)","trigger":{"kind":"date","at":\#(due)},"#
                    + #""content":{"title":"Many","body":"plain","categoryID":"many"}}}"#
                #expect(try RawClient.exchange(f.daemon.socket, Array(request.utf8) + [10]).contains(#""ok":true"#))
            }
            var bodies: [String] = []
            for _ in 0..<5 { bodies.append(try await f.server!.next("notify", timeout: .seconds(8)).body ?? "") }
            #expect(bodies == Array(repeating: "ready in time", count: 5))
            let early = f.daemon.log.all.filter { $0.contains("starting its content hook") }
            #expect(early.count == 5, "every hook started ahead of the instant, not at delivery: \(early)")
        }
    }
}
