import AvisoCore
import AvisoDaemon
import Foundation
import Testing

/// A fresh directory per test, removed afterwards.
private final class TemporaryDirectory {
    let path: String
    init() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("aviso-store-\(UUID().uuidString)").path
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

private func scheduled(_ id: String, title: String = "Tea", repeats: Bool = false, next: Int64? = 1_000) -> ScheduledRequest {
    ScheduledRequest(
        request: Request(id: id, content: Content(title: title, body: "body of \(id)", userInfo: ["k": .number(1)]),
                         trigger: .interval(.seconds(600), repeats: repeats)),
        added: WallTime(seconds: 100),
        next: next.map { .wall(WallTime(seconds: $0)) })
}

private func entry(_ id: String, due: Int64, late: Bool = false) -> OutboxEntry {
    OutboxEntry(id: id, content: Content(title: "due \(id)"), due: WallTime(seconds: due), late: late)
}

@Suite struct StoreTests {
    private let directory = TemporaryDirectory()
    var path: String { directory.path + "/state/aviso/aviso.db" }

    @Test func requestsRoundTripAndCreateTheDirectoryPrivately() throws {
        let store = try Store(path: path)
        let a = scheduled("a")
        let b = ScheduledRequest(
            request: Request(id: "b", content: Content(title: "B", level: .critical), trigger: .date(WallTime(seconds: 5))),
            added: WallTime(seconds: 1),
            next: .boot(BootTime(nanoseconds: 77), bootID: "boot-1", wallEstimate: WallTime(seconds: 9)), fireCount: 3)
        try store.put(a)
        try store.put(b)
        #expect(Set(try store.requests()) == [a, b])

        var info = stat()
        #expect(stat(directory.path + "/state/aviso", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o700)
    }

    @Test func putReplacesByIdentifier() throws {
        let store = try Store(path: path)
        try store.put(scheduled("a", title: "old"))
        let replacement = scheduled("a", title: "new")
        try store.put(replacement)
        #expect(try store.requests() == [replacement])
    }

    @Test func deleteRequestsRemovesOnlyThoseNamed() throws {
        let store = try Store(path: path)
        for id in ["a", "b", "c"] { try store.put(scheduled(id)) }
        try store.deleteRequests(["a", "c", "unknown"])
        #expect(try store.requests().map(\.request.id) == ["b"])
    }

    @Test func firingAOneShotRequestDeletesItAndFillsTheOutbox() throws {
        let store = try Store(path: path)
        var fired = scheduled("once")
        try store.put(fired)
        fired.next = nil
        fired.fireCount = 1
        try store.recordFiring(fired, outbox: entry("once", due: 1_000, late: true))
        #expect(try store.requests().isEmpty)
        #expect(try store.outbox() == [entry("once", due: 1_000, late: true)])
    }

    @Test func firingARepeatingRequestKeepsItWithItsNextDeadline() throws {
        let store = try Store(path: path)
        var fired = scheduled("water", repeats: true)
        try store.put(fired)
        fired.next = .wall(WallTime(seconds: 1_600))
        fired.fireCount = 1
        try store.recordFiring(fired, outbox: entry("water", due: 1_000))
        #expect(try store.requests() == [fired])
        #expect(try store.outbox().map(\.id) == ["water"])
    }

    @Test func outboxIsOldestDueFirst() throws {
        let store = try Store(path: path)
        try store.recordFiring(scheduled("late", next: nil), outbox: entry("late", due: 300))
        try store.recordFiring(scheduled("early", next: nil), outbox: entry("early", due: 100))
        try store.recordFiring(scheduled("middle", next: nil), outbox: entry("middle", due: 200))
        #expect(try store.outbox().map(\.id) == ["early", "middle", "late"])
    }

    @Test func beginDeliveryMovesTheEntryAndAbortPutsItBack() throws {
        let store = try Store(path: path)
        try store.recordFiring(scheduled("x", next: nil), outbox: entry("x", due: 100, late: true))

        #expect(try store.beginDelivery(["x", "never-fired"], at: WallTime(seconds: 150)) == ["x"])
        #expect(try store.outbox().isEmpty)
        #expect(try store.delivered()
            == [DeliveredRecord(id: "x", content: Content(title: "due x"), delivered: WallTime(seconds: 150))])
        // At most once: a second begin finds nothing to send.
        #expect(try store.beginDelivery(["x"], at: WallTime(seconds: 151)).isEmpty)

        try store.abortDelivery("x")
        #expect(try store.delivered().isEmpty)
        #expect(try store.outbox() == [entry("x", due: 100, late: true)])
    }

    @Test func abortDoesNotUndoADeliveryTheServerAcknowledged() throws {
        let store = try Store(path: path)
        try store.recordFiring(scheduled("x", next: nil), outbox: entry("x", due: 100))
        try store.beginDelivery(["x"], at: WallTime(seconds: 150))
        try store.setServerID(["x"], serverID: 42, owner: ":1.7")
        try store.abortDelivery("x")
        #expect(try store.outbox().isEmpty)
        #expect(try store.delivered().map(\.serverID) == [42])
    }

    @Test func serverIDsAreClearedForAnotherOwnerOnly() throws {
        let store = try Store(path: path)
        for (id, owner) in [("a", ":1.7"), ("b", ":1.9")] {
            try store.recordFiring(scheduled(id, next: nil), outbox: entry(id, due: 100))
            try store.beginDelivery([id], at: WallTime(seconds: id == "a" ? 200 : 300))
            try store.setServerID([id], serverID: id == "a" ? 1 : 2, owner: owner)
        }
        try store.clearServerIDs(exceptOwner: ":1.9")
        let delivered = try store.delivered()
        #expect(delivered.map(\.id) == ["b", "a"], "most recent first")
        #expect(delivered.map(\.serverID) == [2, nil])
        #expect(delivered.map(\.serverOwner) == [":1.9", nil])
    }

    @Test func closingForgetsTheNotificationAndLogsIt() throws {
        let store = try Store(path: path)
        for id in ["a", "b"] {
            try store.recordFiring(scheduled(id, next: nil), outbox: entry(id, due: 100))
            try store.beginDelivery([id], at: WallTime(seconds: 200))
        }
        try store.recordClosed(["a"], reason: 2, at: WallTime(seconds: 250))
        #expect(try store.delivered().map(\.id) == ["b"])
        let log = try store.closedLog()
        #expect(log.count == 1)
        #expect(log.first?.id == "a")
        #expect(log.first?.reason == 2)
        #expect(log.first?.at == WallTime(seconds: 250))
        try store.deleteDelivered(["b"])
        #expect(try store.delivered().isEmpty)
    }

    @Test func everythingSurvivesCloseAndReopen() throws {
        let request = scheduled("kept", repeats: true)
        do {
            let store = try Store(path: path)
            try store.put(request)
            try store.recordFiring(scheduled("due", next: nil), outbox: entry("due", due: 100))
            try store.recordFiring(scheduled("shown", next: nil), outbox: entry("shown", due: 90))
            try store.beginDelivery(["shown"], at: WallTime(seconds: 95))
            try store.setServerID(["shown"], serverID: 7, owner: ":1.3")
            store.close()
        }
        let reopened = try Store(path: path)
        #expect(try reopened.requests() == [request])
        #expect(try reopened.outbox().map(\.id) == ["due"])
        #expect(try reopened.delivered() == [
            DeliveredRecord(id: "shown", content: Content(title: "due shown"), delivered: WallTime(seconds: 95),
                            serverID: 7, serverOwner: ":1.3"),
        ])
    }

    @Test func aFileThatIsNotADatabaseIsMovedAsideAndANewOneStarts() throws {
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let garbage = directory.path + "/garbage.db"
        let bytes = (0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }
        #expect(FileManager.default.createFile(atPath: garbage, contents: Data(bytes)))
        let store = try Store(path: garbage)
        try store.put(scheduled("fresh"))
        #expect(try store.requests().map(\.request.id) == ["fresh"])
        let report = store.report.joined(separator: "\n")
        #expect(report.contains("was damaged (") && report.contains("not a database"), "\(report)")
        #expect(report.contains("nothing could be salvaged"), "\(report)")
        let kept = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("garbage.db.corrupt-") }
        #expect(kept.count == 1)
        #expect(report.contains(directory.path + "/" + kept[0]), "the report names where the damaged file went")
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.path + "/" + kept[0])) == Data(bytes), "kept as it was")
    }

    @Test func aDamagedDatabaseIsMovedAsideAndWhatCanBeReadIsSalvaged() throws {
        do {
            let store = try Store(path: path)
            try store.put((0..<400).map { scheduled(String(format: "r%03d", $0), title: String(repeating: "t", count: 200)) })
            store.close()
        }
        // Garbage over two pages in the middle of the table: what SQLite's own check calls corruption.
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: (size / 2) & ~4095)
        handle.write(Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }))
        try handle.close()

        let store = try Store(path: path)
        let report = store.report.joined(separator: "\n")
        #expect(report.contains("was damaged (") && report.contains(".corrupt-"), "\(report)")
        let salvaged = try store.requests().count
        #expect(salvaged > 200 && salvaged < 400, "most rows are salvaged, the damaged pages' are lost: \(salvaged)")
        #expect(report.contains("salvaged: \(salvaged) requests") && report.contains("are lost"), "\(report)")
        try store.put(scheduled("after"))
        #expect(try store.requests().count == salvaged + 1, "the new database takes writes")
    }

    @Test func aRowThatCannotBeDecodedIsQuarantinedAndTheRestLoads() throws {
        do {
            let store = try Store(path: path)
            try store.put([scheduled("good"), scheduled("bad")])
            store.close()
        }
        try sqlite(path, "UPDATE requests SET value = '{\"not\": \"a request\"}' WHERE id = 'bad';")
        let store = try Store(path: path)
        #expect(try store.requests().map(\.request.id) == ["good"])
        let report = store.report.joined(separator: "\n")
        #expect(report.contains("'bad' in requests could not be read") && report.contains("quarantine"), "\(report)")
        #expect(try sqlite(path, "SELECT tbl, id, value FROM quarantine;") == "requests|bad|{\"not\": \"a request\"}\n")
        #expect(try Store(path: path).requests().map(\.request.id) == ["good"], "set aside once, not reported again")
    }

    @Test func aDamagedWriteAheadLogIsRebuiltInsteadOfDroppingCommittedRequests() throws {
        let crash = directory.path + "/crash"
        let store = try Store(path: path)
        for i in 0..<50 { try store.put(scheduled("w\(i)")) }
        // What a kill -9 leaves: the database and its log as they are on disk while the store is open.
        try FileManager.default.createDirectory(atPath: crash, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.copyItem(atPath: path, toPath: crash + "/aviso.db")
        try FileManager.default.copyItem(atPath: path + "-wal", toPath: crash + "/aviso.db-wal")
        store.close()
        // 4 KiB of garbage in the middle of the log: SQLite's own recovery stops there and drops what follows.
        let handle = try #require(FileHandle(forUpdatingAtPath: crash + "/aviso.db-wal"))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size / 2)
        handle.write(Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 17) }))
        try handle.close()

        let recovered = try Store(path: crash + "/aviso.db")
        #expect(Set(try recovered.requests().map(\.request.id)) == Set((0..<50).map { "w\($0)" }), "nothing acknowledged is lost")
        let report = recovered.report.joined(separator: "\n")
        #expect(report.contains("write-ahead log") && report.contains("rebuilt from the log"), "\(report)")
        let kept = try FileManager.default.contentsOfDirectory(atPath: crash).filter { $0.contains(".corrupt-") }
        #expect(kept.count == 2, "the damaged database and log are kept: \(kept)")
    }

    @Test func theDatabaseIsPrivateAndNeverFollowedThroughALink() throws {
        do {
            let store = try Store(path: path)
            try store.put(scheduled("a"))
        }
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)

        let linked = directory.path + "/linked/aviso.db"
        try FileManager.default.createDirectory(atPath: directory.path + "/linked", withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        #expect(symlink(directory.path + "/nowhere.db", linked) == 0, "a dangling link, as the issue found")
        let error = #expect(throws: StoreError.self) { try Store(path: linked) }
        #expect(error?.message.contains("symbolic link") == true, "\(error?.message ?? "")")
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/nowhere.db"), "nothing created at the target")
    }

    @Test(arguments: [0o755, 0o770, 0o777])
    func aStateDirectoryOpenToOthersIsRefused(mode: Int) throws {
        let state = directory.path + "/open"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        #expect(chmod(state, mode_t(mode)) == 0)
        let error = #expect(throws: StoreError.self) { try Store(path: state + "/aviso.db") }
        #expect(error?.message.contains("open to other users (mode 0\(String(mode, radix: 8)))") == true, "\(error?.message ?? "")")
        #expect(!FileManager.default.fileExists(atPath: state + "/aviso.db"))
    }

    @Test func usingAClosedStoreThrowsInsteadOfCrashing() throws {
        let store = try Store(path: path)
        store.close()
        #expect(throws: StoreError.self) { try store.requests() }
        #expect(throws: StoreError.self) { try store.put(scheduled("a")) }
    }

    @Test func aDeclaredReminderIsStoredAsItsScheduleAndTakesItBackOnlyForTheSameFileAndTrigger() throws {
        let store = try Store(path: path)
        let trigger = Trigger.calendar(CalendarTrigger(spec: "Mon..Fri 09:00", zone: "Europe/Madrid"))
        let request = Request(id: "standup", content: Content(title: "Stand-up"), trigger: trigger)
        let boot = ScheduledRequest(request: request, added: WallTime(seconds: 7),
                                    next: .boot(BootTime(nanoseconds: 77), bootID: "boot-1", wallEstimate: WallTime(seconds: 9)),
                                    fireCount: 4, lastFired: WallTime(seconds: 8), source: "/r/work.conf")
        try store.put(boot)
        #expect(try store.requests().isEmpty, "a declared reminder is not a request of the socket")
        let schedule = try #require(try store.declaredSchedules()["standup"])
        // The content comes from the file, whatever it says now.
        var edited = request
        edited.content.body = "in the big room"
        var expected = boot
        expected.request = edited
        #expect(schedule.scheduling(edited, declaredIn: "/r/work.conf") == expected)
        #expect(schedule.scheduling(edited, declaredIn: "/r/other.conf") == nil)
        edited.trigger = .calendar(CalendarTrigger(spec: "Mon..Fri 09:00"))
        #expect(schedule.scheduling(edited, declaredIn: "/r/work.conf") == nil, "another zone is another trigger")

        var wall = boot
        wall.next = .wall(WallTime(seconds: 99))
        wall.lastFired = nil
        try store.put(wall)
        #expect(try store.declaredSchedules()["standup"]?.scheduling(request, declaredIn: "/r/work.conf") == wall)
        wall.next = nil
        try store.put(wall)
        #expect(try store.declaredSchedules()["standup"]?.next == nil)
        // A deadline on no known clock is not taken for "never again": the reminder is planned anew.
        try sqlite(path, "UPDATE declared SET next_clock = 7, next_ns = 1 WHERE id = 'standup';")
        #expect(try store.declaredSchedules().isEmpty)
    }

    /// A stored schedule is kept only for the trigger it was planned for: the key compared piece by piece agrees with
    /// the key written, for every kind of trigger, and tells each from the others (a prefix, another zone, policy or
    /// span is another trigger).
    @Test func aTriggerKeyMatchesItsOwnTriggerAndNoOther() {
        let triggers: [Trigger] = [
            .interval(.seconds(600), repeats: true), .interval(.seconds(600), repeats: false),
            .interval(.seconds(6000), repeats: true), .date(WallTime(seconds: 1_800_000_000)), .date(WallTime(seconds: 18)),
            .date(WallTime(seconds: -18)), .date(WallTime(nanoseconds: 0)), .interval(Span(nanoseconds: 60_000_000_001), repeats: true),
            .calendar(CalendarTrigger(spec: "*-*-* 09:00")), .calendar(CalendarTrigger(spec: "*-*-* 09:00:00")),
            .calendar(CalendarTrigger(spec: "*-*-* 09:00", zone: "Europe/Madrid")),
            .calendar(CalendarTrigger(spec: "*-*-* 09:00", zone: "UTC")),
            .calendar(CalendarTrigger(spec: "*-*-* 09:00", policy: .systemd)),
        ]
        for (i, a) in triggers.enumerated() {
            for (j, b) in triggers.enumerated() {
                #expect(Store.triggerKey(Store.triggerKey(a), isThatOf: b) == (i == j), "\(Store.triggerKey(a)) for \(b)")
            }
        }
        #expect(Store.triggerKey("calendar aviso - *-*-* 09:00", isThatOf: triggers[8]), "the key an earlier version wrote")
        // Written as stores hold them already: a key written otherwise would plan every stored schedule anew.
        #expect(triggers.prefix(7).map(Store.triggerKey) == [
            "interval 600000000000 repeats", "interval 600000000000 once", "interval 6000000000000 repeats",
            "date 1800000000000000000", "date 18000000000", "date -18000000000", "date 0",
        ])
        #expect(Store.triggerKey(triggers[10]) == "calendar aviso 13 Europe/Madrid *-*-* 09:00")
        #expect(Store.triggerKey(triggers[12]) == "calendar systemd - *-*-* 09:00")
        for damaged in ["", "date", "date ", "date 18000000000 ", "date -18000000000x", "date 018000000000", "date --18000000000",
                        "calendar aviso 13 Europe/Madri *-*-* 09:00", "calendar aviso 99 UTC *-*-* 09:00"] {
            #expect(!triggers.contains { Store.triggerKey(damaged, isThatOf: $0) }, "'\(damaged)' is no trigger's key")
        }
    }

    @Test func aNameMovesBetweenTheSocketAndAFileAndIsDeletedFromEither() throws {
        let store = try Store(path: path)
        try store.put(scheduled("a"))
        var declared = scheduled("a")
        declared.source = "/r/a.conf"
        try store.put(declared)
        #expect(try store.requests().isEmpty)
        #expect(try store.declaredSchedules().keys.sorted() == ["a"])
        try store.put(scheduled("a"))
        #expect(try store.declaredSchedules().isEmpty)
        #expect(try store.requests() == [scheduled("a")])
        var b = scheduled("b")
        b.source = "/r/b.conf"
        try store.put(b)
        try store.deleteRequests(["a", "b"])
        #expect(try store.requests().isEmpty)
        #expect(try store.declaredSchedules().isEmpty)
        // Both tables empty when a batch begins (a first start skips the deletes): a name that changes kind within
        // the batch is still in one table only, the one of its last write.
        var e = scheduled("e")
        e.source = "/r/e.conf"
        try store.put([scheduled("c"), declared, scheduled("d"), scheduled("e"), e])
        #expect(try store.requests().map(\.request.id).sorted() == ["c", "d"])
        #expect(try store.declaredSchedules().keys.sorted() == ["a", "e"])
        var c = scheduled("c")
        c.source = "/r/c.conf"
        try store.put([scheduled("a"), c])
        #expect(try store.requests().map(\.request.id).sorted() == ["a", "d"])
        #expect(try store.declaredSchedules().keys.sorted() == ["c", "e"])
    }

    @Test func aSchema4DatabaseKeepsItsDeclaredSchedulesAndItsRequests() throws {
        do {
            let store = try Store(path: path)
            store.close()
        }
        // What aviso before schema 5 wrote: every request whole, as JSON, in `requests`.
        var declared = scheduled("d", repeats: true, next: 5_000)
        declared.source = "/r/d.conf"
        declared.fireCount = 2
        let encoder = JSONEncoder()
        let rows = try [declared, scheduled("s")].map { r in
            "('\(r.request.id)', '\(String(decoding: try encoder.encode(r), as: UTF8.self))')"
        }
        try sqlite(path, "DROP TABLE declared; INSERT INTO requests (id, value) VALUES \(rows.joined(separator: ", ")); PRAGMA user_version = 4;")
        let store = try Store(path: path)
        #expect(try store.requests() == [scheduled("s")])
        #expect(try store.declaredSchedules()["d"]?.scheduling(declared.request, declaredIn: "/r/d.conf") == declared)
        #expect(try sqlite(path, "PRAGMA user_version;").trimmingCharacters(in: .whitespacesAndNewlines) == "5")
    }

    @Test func aDatabaseFromANewerAvisoIsRefused() throws {
        do {
            let store = try Store(path: path)
            store.close()
        }
        // A newer schema, written by the sqlite3 shell: the store offers no way to do it, on purpose.
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "the sqlite3 shell is needed")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path, "PRAGMA user_version = 99;"]
        try process.run()
        process.waitUntilExit()
        let error = #expect(throws: StoreError.self) { try Store(path: path) }
        #expect(error?.message.contains("99") == true)
    }
}

/// Runs the sqlite3 shell on `path` and returns what it printed: for changes the store offers no way to make.
@discardableResult
private func sqlite(_ path: String, _ sql: String) throws -> String {
    try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "the sqlite3 shell is needed")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    process.arguments = [path, sql]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}

extension Store {
    /// Every stored schedule of a declared reminder, by identifier, for the tests to look at.
    func declaredSchedules() throws(StoreError) -> [String: DeclaredSchedule] {
        var result: [String: DeclaredSchedule] = [:]
        try forEachDeclaredSchedule { id, schedule in result[id] = schedule }
        return result
    }
}
