import AvisoTestSupport
import Foundation
import Testing

extension Integration {
    /// Reminders declared in files follow the files: created, edited by rename, moved away, deleted, broken.
    @Suite(.timeLimit(.minutes(2)))
    struct ReminderModelTests {
        func remindersDirectory(_ f: DaemonFixture) throws -> String {
            let dir = (f.daemon.configFile as NSString).deletingLastPathComponent + "/reminders"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            return dir
        }

        /// Saves as editors do: write a temporary file, then rename it over the target.
        func save(_ text: String, to path: String) throws {
            let temporary = (path as NSString).deletingLastPathComponent + "/.tmp-\(UUID().uuidString)"
            try text.write(toFile: temporary, atomically: false, encoding: .utf8)
            #expect(rename(temporary, path) == 0)
        }

        @Test func theArmedSetFollowsTheFiles() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            let dir = try remindersDirectory(f)
            try save("[Reminder tea]\nTitle=Tea\nEvery=2h\n", to: dir + "/drinks.conf")
            _ = try await f.daemon.log.next { $0.contains("declared 'tea'") }
            var list = try f.json("list")
            #expect(list.first?["id"] as? String == "tea")
            #expect(list.first?["source"] as? String == dir + "/drinks.conf")
            #expect(list.first?["state"] as? String == "armed")

            try save("[Reminder tea]\nTitle=Green tea\nEvery=2h\n", to: dir + "/drinks.conf")
            _ = try await f.daemon.log.next { $0.contains("updated 'tea'") }
            #expect(try f.json("pending").first?["title"] as? String == "Green tea")

            #expect(rename(dir + "/drinks.conf", f.daemon.directory + "/drinks.conf") == 0)
            _ = try await f.daemon.log.next { $0.contains("removed 'tea'") }
            #expect(try f.json("list").isEmpty)

            try save("[Reminder tea]\nTitle=Tea again\nEvery=2h\n", to: dir + "/drinks.conf")
            _ = try await f.daemon.log.next { $0.contains("declared 'tea'") }
            try FileManager.default.removeItem(atPath: dir + "/drinks.conf")
            _ = try await f.daemon.log.next { $0.contains("removed 'tea'") }
            list = try f.json("list")
            #expect(list.isEmpty)
        }

        /// A start reads the reminder files on a thread of its own while it goes on: a file saved just after that
        /// reading, before the daemon is ready, is still followed.
        @Test func aFileSavedWhileTheDaemonStartsIsFollowed() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            let dir = try remindersDirectory(f)
            try save("[Reminder tea]\nTitle=Tea\nEvery=2h\n", to: dir + "/drinks.conf")
            _ = try await f.daemon.log.next { $0.contains("declared 'tea'") }
            f.daemon.signal(SIGTERM)
            _ = try await f.daemon.waitForExit()
            let closes = try FileCloses(in: dir)
            try f.daemon.launch()
            try closes.wait(for: ["drinks.conf"])
            try save("[Reminder tea]\nTitle=Green tea\nEvery=2h\n", to: dir + "/drinks.conf")
            _ = try await f.daemon.log.next { $0.contains("ready; control socket") }
            _ = try await f.daemon.log.next { $0.contains("updated 'tea'") }
            #expect(try f.json("pending").first?["title"] as? String == "Green tea")
        }

        @Test func aRestartKeepsEachScheduleWhoseTriggerDidNotChangeAndTakesTheRestFromTheFiles() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            let dir = try remindersDirectory(f)
            try save("[Reminder a]\nTitle=A\nEvery=2h\n\n[Reminder b]\nTitle=B\nEvery=3h\n", to: dir + "/ab.conf")
            try save("[Reminder c]\nTitle=C\nEvery=4h\n", to: dir + "/c.conf")
            func pending() throws -> [String: [String: Any]] {
                Dictionary(uniqueKeysWithValues: try f.json("pending").map { ($0["id"] as? String ?? "", $0) })
            }
            while try pending().count < 3 { _ = try await f.daemon.log.next { $0.contains("declared") } }
            let before = try pending()
            f.daemon.signal(SIGTERM)
            try await f.daemon.waitForExit()
            // While the daemon is stopped: a's text changes, b's rhythm changes, c's file goes.
            try save("[Reminder a]\nTitle=A, reworded\nEvery=2h\n\n[Reminder b]\nTitle=B\nEvery=5h\n", to: dir + "/ab.conf")
            try FileManager.default.removeItem(atPath: dir + "/c.conf")
            try await f.daemon.start()
            let after = try pending()
            #expect(after.keys.sorted() == ["a", "b"])
            #expect(after["a"]?["title"] as? String == "A, reworded", "the content is what the file says now")
            #expect(after["a"]?["next"] as? String == before["a"]?["next"] as? String, "the 2h rhythm goes on from where it was")
            #expect(after["b"]?["next"] as? String != before["b"]?["next"] as? String, "a new rhythm is planned anew")
        }

        /// The stored schedules are read on a thread of their own and handed over in batches of 512: every one of
        /// 1,300 is taken again, across batches and files, and only the reminder whose trigger changed is planned anew.
        @Test func aRestartTakesBackEveryStoredScheduleAcrossBatches() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            let dir = try remindersDirectory(f)
            func file(_ range: Range<Int>, changing: Int? = nil) -> String {
                range.map { "[Reminder r\($0)]\nTitle=R\($0)\nEvery=\($0 == changing ? 5 : 2)h\n" }.joined(separator: "\n")
            }
            try save(file(0..<700), to: dir + "/a.conf")
            try save(file(700..<1300), to: dir + "/b.conf")
            while try f.json("list").count < 1300 { _ = try await f.daemon.log.next { $0.contains("declared") } }
            f.daemon.signal(SIGTERM)
            try await f.daemon.waitForExit()
            try save(file(700..<1300, changing: 1299), to: dir + "/b.conf")
            try await f.daemon.start()
            // The log of this second daemon alone.
            #expect(try f.daemon.log.all.contains { $0.contains("loaded 1300 request(s)") })
            let planned = try f.daemon.log.all.filter { $0.contains("declared") || $0.contains("updated") }
            #expect(planned.count == 1 && planned.first?.contains("updated 'r1299'") == true, "\(planned.prefix(3))")
            #expect(try f.json("list").count == 1300)
        }

        /// A file of 1,300 reminders is written on the storing thread; on a full disk the write fails: that is
        /// logged and shown in `status`, nothing waits for ever, the model is unchanged, and the file loads on its
        /// own once there is room (the write is retried with the store's backoff).
        @Test func aLargeFileThatCannotBeStoredChangesNothingAndLoadsOnceThereIsRoom() async throws {
            guard let (f, disk) = try await RobustnessTests.onASmallDisk() else { return }
            defer {
                f.stop()
                disk.unmount()
            }
            let dir = try remindersDirectory(f)
            let many = (0..<1300).map { "[Reminder r\($0)]\nTitle=R\($0)\nEvery=2h\n" }.joined(separator: "\n")
            disk.fill()
            try save(many, to: dir + "/many.conf")
            _ = try await f.daemon.log.next { $0.contains("cannot store the declared reminders") }
            #expect(try f.json("list").isEmpty, "nothing the store does not hold is in the model")
            let storage = try #require(try f.status()["storage"] as? [String])
            #expect(storage.contains { $0.contains("storing the declared reminders") }, "\(storage)")
            disk.free()
            _ = try await f.daemon.log.next(timeout: .seconds(10)) { $0.contains("declared 1300") }
            #expect(try f.json("list").count == 1300)
            #expect((try f.status()["storage"] as? [String] ?? []).isEmpty, "the problem is gone from status")
        }

        /// The same beside a model that holds the file already: each reminder is put in the model while the write
        /// runs, and when the write fails the model is given back its stored versions.
        @Test func aLargeEditThatCannotBeStoredKeepsTheStoredVersionsInTheModel() async throws {
            guard let (f, disk) = try await RobustnessTests.onASmallDisk() else { return }
            defer {
                f.stop()
                disk.unmount()
            }
            let dir = try remindersDirectory(f)
            func file(_ title: String) -> String {
                (0..<1300).map { "[Reminder r\($0)]\nTitle=\(title)\($0)\nEvery=2h\n" }.joined(separator: "\n")
            }
            try save(file("Old"), to: dir + "/many.conf")
            _ = try await f.daemon.log.next { $0.contains("declared 1300") }
            disk.fill()
            try save(file("New"), to: dir + "/many.conf")
            _ = try await f.daemon.log.next { $0.contains("cannot store the declared reminders") }
            let titles = try f.json("list").compactMap { $0["title"] as? String }
            #expect(titles.count == 1300)
            #expect(titles.allSatisfy { $0.hasPrefix("Old") }, "the model holds what the store holds")
            disk.free()
            _ = try await f.daemon.log.next(timeout: .seconds(10)) { $0.contains("updated 1300") }
            #expect(try f.json("list").compactMap { $0["title"] as? String }.allSatisfy { $0.hasPrefix("New") })
        }

        @Test func deletingAReminderClosesItsPopup() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            let dir = try remindersDirectory(f)
            try save("[Reminder stretch]\nTitle=Stretch\nEvery=1h\n", to: dir + "/body.conf")
            _ = try await f.daemon.log.next { $0.contains("declared 'stretch'") }
            try f.ctl("fire", "stretch")
            let shown = try await f.server!.next("notify")
            _ = try await f.daemon.log.next { $0.contains("delivered 'stretch'") }
            try FileManager.default.removeItem(atPath: dir + "/body.conf")
            let closed = try await f.server!.next("close")
            #expect(closed.id == shown.id)
            #expect(try f.json("delivered").isEmpty)
        }

        @Test func aBrokenFileKeepsItsLastGoodVersionAndOthersLoad() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            let dir = try remindersDirectory(f)
            try save("[Reminder a]\nTitle=A\nEvery=1h\n", to: dir + "/a.conf")
            _ = try await f.daemon.log.next { $0.contains("declared 'a'") }
            try save("[Reminder a]\nTitle=A\nEvery=banana\n", to: dir + "/a.conf")
            try save("[Reminder b]\nTitle=B\nEvery=3h\n", to: dir + "/b.conf")
            _ = try await f.daemon.log.next { $0.contains("declared 'b'") }
            let ids = Set(try f.json("list").compactMap { $0["id"] as? String })
            #expect(ids == ["a", "b"])
            let status = try f.ctl("status")
            #expect(status.contains("a.conf:3"))
        }

        @Test func aSocketRequestCannotReplaceADeclaredReminder() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            let dir = try remindersDirectory(f)
            try save("[Reminder pills]\nTitle=Pills\nEvery=1d\n", to: dir + "/health.conf")
            _ = try await f.daemon.log.next { $0.contains("declared 'pills'") }
            let add = try f.daemon.ctl(["add", "--id", "pills", "--in", "1h", "--title", "Other"])
            #expect(add.status == 1)
            #expect(add.stderr.contains("health.conf"))
            let remove = try f.daemon.ctl(["remove", "pills"])
            #expect(remove.status == 1)
            #expect(try f.json("pending").first?["title"] as? String == "Pills")
        }

        @Test func evictionsAreCountedAndListExplainsWhoWaits() async throws {
            let f = try await DaemonFixture.start(config: "[Scheduler]\nWindow=2\n")
            defer { f.stop() }
            try f.ctl("add", "--id", "ambient.late", "--in", "3h", "--title", "Late")
            try f.ctl("add", "--id", "ambient.later", "--in", "4h", "--title", "Later")
            try f.ctl("add", "--id", "user.soon", "--in", "1h", "--title", "Soon")
            let list = try f.json("list")
            #expect(list.map { $0["id"] as? String } == ["user.soon", "ambient.late", "ambient.later"])
            #expect(list.map { $0["state"] as? String } == ["armed", "armed", "waiting"])
            #expect((list.last?["reason"] as? String)?.contains("behind 2") == true)
            #expect(list.first?["class"] as? Int == 0)
            let stats = try f.ctl("stats", "--json")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(stats.utf8)) as? [String: Any])
            #expect((object["evictions"] as? [String: Int]) == ["90": 1])
        }
    }
}
