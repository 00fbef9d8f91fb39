import AvisoCore
import AvisoTestSupport
import Foundation
import Testing

extension Integration {
    /// Items through the daemon: a log (from avisoctl or the popup's button) re-plans every `item-` request at once,
    /// other requests stay as they were, logs survive restarts, and `sync` gives any program the same replace.
    @Suite(.timeLimit(.minutes(2)))
    struct ItemTests {
        /// Hourly all day until 8 are logged: the next reminder is an hour after the last log (or midnight), whatever
        /// the hour the test runs at. The daemon runs in UTC.
        static let items = """
            [Item water]
            Title=Water
            Kind=daily
            Repeat=1h
            From=00:00
            To=24:00
            Goal=8
            Unit=glasses

            [Item haircut]
            Kind=interval
            Every=28d
            At=10:00

            """

        static func start(_ items: String = items) async throws -> DaemonFixture {
            try await DaemonFixture.start(environment: ["TZ": "UTC"]) { daemon in
                let dir = (daemon.configFile as NSString).deletingLastPathComponent + "/reminders"
                try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
                try items.write(toFile: dir + "/items.conf", atomically: true, encoding: .utf8)
            }
        }

        /// The `item-NAME-` requests of the whole model (`list`), by identifier, with their next fire.
        static func reminders(_ f: DaemonFixture, of item: String) throws -> [String: String] {
            var out: [String: String] = [:]
            for r in try f.json("list") {
                guard let id = r["id"] as? String, id.hasPrefix("item-\(item)-") else { continue }
                out[id] = r["next"] as? String
            }
            return out
        }

        static func item(_ f: DaemonFixture, _ name: String) throws -> [String: Any] {
            guard let found = try f.json("items").first(where: { $0["name"] as? String == name }) else {
                throw BusFixtureError("no item \(name) in avisoctl items")
            }
            return found
        }

        static func instant(_ iso: Any?) throws -> WallTime {
            try #require((iso as? String).flatMap(ISO8601.parse), "an ISO 8601 time, not \(String(describing: iso))")
        }

        /// What the next water reminder must be after a log at `t`: an hour later, or the first of tomorrow.
        static func expectedNext(afterLogAt t: WallTime) -> WallTime {
            let day: Int64 = 86_400_000_000_000
            let midnight = WallTime(nanoseconds: (t.nanoseconds / day + 1) * day)
            return min(t + .seconds(3600), midnight)
        }

        @Test func aLogReplansTheItemSetAtOnceAndLeavesOtherRequestsAlone() async throws {
            let f = try await Self.start()
            defer { f.stop() }
            try f.ctl("add", "--id", "tea", "--in", "2h", "--title", "Tea")
            try f.ctl("add", "--id", "items-of-mine", "--in", "3h", "--title", "Not an item")
            let list = try f.json("list")
            let others = list.filter { !(($0["id"] as? String) ?? "").hasPrefix("item-") }
            #expect(list.filter { ($0["id"] as? String)?.hasPrefix("item-water-") == true }.allSatisfy { $0["source"] as? String == "item water" })
            let before = try Self.reminders(f, of: "water")
            #expect(before.count == ItemPlanner.maximumPerItem, "all day long, the cap holds: \(before.count)")

            // Every snapshot taken while logs happen shows one whole plan: never both, never neither.
            let (stop, watching) = (ManagedAtomicFlag(), ManagedAtomicFlag())
            let watcher = Task.detached { () -> [Set<String>] in
                var seen: [Set<String>] = []
                while !stop.isSet {
                    if let snapshot = try? Self.reminders(f, of: "water") {
                        seen.append(Set(snapshot.keys))
                        watching.set()
                    }
                }
                return seen
            }
            // The logs start once the watcher has seen the plan before them: on a loaded machine the three logs
            // could otherwise be over before its first snapshot.
            while !watching.isSet { await Task.yield() }
            var plans = [Set(before.keys)]
            for _ in 0..<3 {
                let out = try f.ctl("log", "water")
                #expect(out.contains("water:"), "\(out)")
                let now = try Self.reminders(f, of: "water")
                plans.append(Set(now.keys))
                let info = try Self.item(f, "water")
                let last = try Self.instant(info["last"])
                #expect(try Self.instant(info["next"]) == Self.expectedNext(afterLogAt: last))
                #expect(now.values.compactMap { ISO8601.parse($0) }.min() == Self.expectedNext(afterLogAt: last))
            }
            stop.set()
            let snapshots = await watcher.value
            #expect(!snapshots.isEmpty)
            for s in snapshots { #expect(plans.contains(s), "a snapshot of \(s.count) reminders is none of the plans") }
            #expect(try Self.item(f, "water")["today"] as? Int == 3)

            let after = try f.json("list").filter { !(($0["id"] as? String) ?? "").hasPrefix("item-") }
            #expect(after.map { $0["id"] as? String } == others.map { $0["id"] as? String })
            #expect(after.map { $0["next"] as? String } == others.map { $0["next"] as? String })
        }

        /// Fires the haircut's reminder now and returns its identifier and the Notify the server saw.
        static func haircutShown(_ f: DaemonFixture) async throws -> (String, TestNotificationServer.Event) {
            let first = try #require(try Self.reminders(f, of: "haircut").keys.first)
            try f.ctl("fire", first)
            return (first, try await f.server!.next("notify"))
        }

        @Test func theLogButtonLogsClosesThePopupAndReplans() async throws {
            let f = try await Self.start()
            defer { f.stop() }
            let (_, shown) = try await Self.haircutShown(f)
            #expect(shown.summary == "haircut")
            #expect(shown.body == "It&apos;s time. Nothing is logged yet.", "the server takes body markup: escaped")
            #expect(shown.actions == ["log", "Log ✓", "later", "Later"])
            f.server!.invoke(id: shown.id!, key: "log")
            let closed = try await f.server!.next("close")
            #expect(closed.id == shown.id)
            _ = try await f.daemon.log.next { $0.contains("logged 'haircut'") }
            let info = try Self.item(f, "haircut")
            #expect(info["entries"] as? Int == 1)
            #expect(info["daysSince"] as? Int == 0)
            // Due 28 days after today at 10:00 UTC.
            let last = try Self.instant(info["last"])
            let day: Int64 = 86_400_000_000_000
            let due = WallTime(nanoseconds: (last.nanoseconds / day + 28) * day) + .seconds(36_000)
            #expect(try Self.instant(info["next"]) == due)
            #expect(try Self.reminders(f, of: "haircut").count == 1)
        }

        @Test func laterSnoozesTheItemAndALogEndsTheSnooze() async throws {
            let f = try await Self.start()
            defer { f.stop() }
            let (first, shown) = try await Self.haircutShown(f)
            f.server!.invoke(id: shown.id!, key: "later")
            _ = try await f.server!.next("close")
            _ = try await f.daemon.log.next { $0.contains("'\(first)': later") }
            var info = try Self.item(f, "haircut")
            let snoozed = try Self.instant(info["snoozedUntil"])
            #expect(try Self.instant(info["next"]) == snoozed)
            let clock = WallTime(nanoseconds: Int64(Date().timeIntervalSince1970 * 1e9))
            #expect(abs((snoozed - clock).nanoseconds - 3_600_000_000_000) < 60_000_000_000, "an hour from now")
            try f.ctl("log", "haircut")
            info = try Self.item(f, "haircut")
            #expect(info["snoozedUntil"] == nil)
            #expect(try Self.instant(info["next"]) > snoozed)
        }

        @Test func badLogsAreRefusedAndChangeNothing() async throws {
            let f = try await Self.start()
            defer { f.stop() }
            try f.ctl("log", "water", "--count", "2")
            let before = try Self.reminders(f, of: "water")

            let unknown = try f.daemon.ctl(["log", "coffee"])
            #expect(unknown.status == 1)
            #expect(unknown.stderr.contains("no item 'coffee' (items: haircut, water)"), "\(unknown.stderr)")
            let future = try f.daemon.ctl(["log", "water", "--at", "2199-01-01 10:00"])
            #expect(future.status == 1)
            #expect(future.stderr.contains("is in the future"), "\(future.stderr)")
            let zero = try f.daemon.ctl(["log", "water", "--count", "0"])
            #expect(zero.status == 2)
            #expect(zero.stderr.contains("--count '0' is not a whole number above zero"), "\(zero.stderr)")
            let nothing = try f.daemon.ctl(["unlog", "haircut"])
            #expect(nothing.status == 1)
            #expect(nothing.stderr.contains("nothing is logged for 'haircut'"), "\(nothing.stderr)")

            #expect(try Self.item(f, "water")["today"] as? Int == 2)
            #expect(try Self.reminders(f, of: "water") == before)
            // An item reminder is the item's: not removed by hand, and not added over the socket.
            let remove = try f.daemon.ctl(["remove", try #require(before.keys.first)])
            #expect(remove.status == 1)
            #expect(remove.stderr.contains("is a reminder of the item 'water'"), "\(remove.stderr)")
            let add = try f.daemon.ctl(["add", "--id", "item-water-x", "--in", "1h", "--title", "x"])
            #expect(add.status == 1)
            #expect(try Self.reminders(f, of: "water") == before)
        }

        @Test func unlogTakesBackTheLatestEntry() async throws {
            let f = try await Self.start()
            defer { f.stop() }
            try f.ctl("log", "water", "--at", "00:00")
            let planAfterOne = try Self.reminders(f, of: "water")
            try f.ctl("log", "water")
            #expect(try Self.item(f, "water")["entries"] as? Int == 2)
            let out = try f.ctl("unlog", "water")
            #expect(out.contains("1 logged in all"), "\(out)")
            #expect(try Self.item(f, "water")["entries"] as? Int == 1)
            #expect(try Self.reminders(f, of: "water") == planAfterOne)
        }

        @Test func logsAndStreaksSurviveARestart() async throws {
            let f = try await Self.start(Self.items + "[Item reading]\nKind=daily\nAt=21:00\n")
            defer { f.stop() }
            let day = 86_400.0
            for back in [2.0, 1.0, 0.0] {
                let t = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / day).rounded(.down) * day - back * day)
                let text = ISO8601DateFormatter.string(from: t, timeZone: TimeZone(identifier: "UTC")!, formatOptions: [.withFullDate])
                try f.ctl("log", "reading", "--at", "\(text) 00:00 UTC")
            }
            let before = try Self.item(f, "reading")
            #expect(before["streak"] as? Int == 3)
            f.daemon.signal(SIGTERM)
            _ = try await f.daemon.waitForExit()
            try await f.daemon.start()
            let after = try Self.item(f, "reading")
            #expect(after["streak"] as? Int == 3)
            #expect(after["entries"] as? Int == 3)
            #expect(after["next"] as? String == before["next"] as? String)
        }

        @Test func theItemsFollowAZoneChangeAndAFileThatGoesTakesTheirReminders() async throws {
            let localtime = try LocalTimeLink(zone: "Europe/Madrid")
            let reminders = { (daemon: DaemonProcess) in (daemon.configFile as NSString).deletingLastPathComponent + "/reminders" }
            let f = try await DaemonFixture.start(environment: ["AVISO_LOCALTIME": localtime.path]) { daemon in
                daemon.environment.removeValue(forKey: "TZ")
                try FileManager.default.createDirectory(atPath: reminders(daemon), withIntermediateDirectories: true)
                try Self.items.write(toFile: reminders(daemon) + "/items.conf", atomically: true, encoding: .utf8)
            }
            defer { f.stop() }
            let madrid = try Self.instant(Self.item(f, "haircut")["next"])

            #expect(try localtime.change(to: "America/New_York"))
            _ = try await f.daemon.log.next { $0.contains("local time zone changed") }
            let newYork = try Self.instant(Self.item(f, "haircut")["next"])
            // 10:00 in New York is 6 hours after 10:00 in Madrid, in every season.
            let hours = ((newYork - madrid).nanoseconds / 3_600_000_000_000 % 24 + 24) % 24
            #expect(hours == 6, "\(madrid) then \(newYork)")
            #expect(try Self.reminders(f, of: "haircut").values.compactMap { ISO8601.parse($0) } == [newYork])

            try FileManager.default.removeItem(atPath: reminders(f.daemon) + "/items.conf")
            _ = try await f.daemon.log.next { $0.contains("items re-planned: 0 reminder(s) added") }
            #expect(try f.json("list").isEmpty, "no item, no item reminder")
            #expect(try f.json("items").isEmpty)
        }

        @Test func syncReplacesAPrefixAtOnceAndRefusesAWrongSetWhole() async throws {
            let f = try await Self.start()
            defer { f.stop() }
            try f.ctl("add", "--id", "tea", "--in", "2h", "--title", "Tea")
            func write(_ json: String) throws -> String {
                let path = f.daemon.directory + "/set-\(UUID().uuidString).json"
                try json.write(toFile: path, atomically: true, encoding: .utf8)
                return path
            }
            func request(_ id: String, _ title: String, _ spec: String = "*-*-* 07:30") -> String {
                #"{"id":"\#(id)","content":{"title":"\#(title)"},"trigger":{"kind":"calendar","spec":"\#(spec)"}}"#
            }
            let first = try write("[\(request("build.a", "A")), \(request("build.b", "B"))]")
            #expect(try f.ctl("sync", "--prefix", "build.", first).contains("2 added, 0 changed, 0 removed, 0 unchanged"))
            let second = try write("[\(request("build.a", "A")), \(request("build.c", "C")), \(request("build.b", "B2"))]")
            let out = try f.ctl("sync", "--prefix", "build.", second, "--json")
            let info = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: [String]])
            #expect(info == ["added": ["build.c"], "updated": ["build.b"], "removed": [], "unchanged": ["build.a"]])
            let ids = { try Set(f.json("list").compactMap { $0["id"] as? String }.filter { !$0.hasPrefix("item-") }) }
            #expect(try ids() == ["tea", "build.a", "build.b", "build.c"])

            // One bad request refuses the whole set: nothing changes.
            let bad = try write("[\(request("build.a", "A")), \(request("build.d", "D", "Mon..Fry 09:00"))]")
            let refused = try f.daemon.ctl(["sync", "--prefix", "build.", bad])
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("requests[1] 'build.d'"), "\(refused.stderr)")
            let outside = try write("[\(request("other.a", "A"))]")
            #expect(try f.daemon.ctl(["sync", "--prefix", "build.", outside]).stderr.contains("does not start with the prefix 'build.'"))
            #expect(try f.daemon.ctl(["sync", "--prefix", "item-", first]).stderr.contains("belongs to items"))
            #expect(try ids() == ["tea", "build.a", "build.b", "build.c"])

            #expect(try f.ctl("sync", "--prefix", "build.", write("[]")).contains("0 added, 0 changed, 3 removed"))
            #expect(try ids() == ["tea"])
            #expect(try Self.reminders(f, of: "water").count == ItemPlanner.maximumPerItem, "items are not touched")
        }
    }
}

/// A flag set once from one task and read from another.
final class ManagedAtomicFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
