import AvisoCore
import Foundation
import Glibc
import Testing

@testable import AvisoDaemon

/// A temporary configuration tree: `root/config/aviso.conf`, `root/config/reminders/`, `root/etc/localtime` -> a zone.
private struct Tree {
    let root: String
    var config: String { root + "/config" }
    var reminders: String { config + "/reminders" }
    var localtime: String { root + "/etc/localtime" }

    init() throws {
        root = FileManager.default.temporaryDirectory.path + "/aviso-watch-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root + "/config/reminders", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/etc", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/zoneinfo", withIntermediateDirectories: true)
        for zone in ["A", "B"] { try write(root + "/zoneinfo/" + zone, "zone \(zone)") }
        try FileManager.default.createSymbolicLink(atPath: localtime, withDestinationPath: root + "/zoneinfo/A")
    }

    func write(_ path: String, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// Saves the way editors and `ln -sf`/timedatectl do: a temporary name, then rename(2) over the target.
    func replace(_ path: String, _ text: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let temp = directory + "/.\((path as NSString).lastPathComponent).tmp"
        try write(temp, text)
        #expect(rename(temp, path) == 0)
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }
}

/// Collects events until `done` holds for what was collected, or `timeout` seconds pass (a failure bound).
private func collect(
    _ watcher: FileWatcher, timeout: Double = 5, until done: @escaping @Sendable ([FileEvent]) -> Bool
) async -> [FileEvent] {
    await withTaskGroup(of: [FileEvent]?.self) { group in
        group.addTask {
            var seen: [FileEvent] = []
            for await event in watcher.events {
                seen.append(event)
                if done(seen) { return seen }
            }
            return seen
        }
        group.addTask {
            try? await Task.sleep(for: .seconds(timeout))
            return nil
        }
        let first = await group.next()!
        group.cancelAll()
        return first ?? []
    }
}

private func paths(_ events: [FileEvent]) -> Set<String> {
    events.reduce(into: Set<String>()) { all, event in
        if case .configChanged(let p) = event { all.formUnion(p) }
    }
}

private func hasZone(_ events: [FileEvent]) -> Bool { events.contains(.zoneChanged) }

extension Integration {
    @Suite(.serialized) struct FileWatcherTests {
        @Test func aReminderFileCreatedEditedByRenameMovedAwayAndDeletedIsReported() async throws {
            let tree = try Tree()
            defer { tree.remove() }
            let watcher = try FileWatcher(configFile: tree.config + "/aviso.conf", zoneFile: tree.localtime)
            defer { watcher.stop() }
            let file = tree.reminders + "/a.conf"

            try tree.write(file, "[Reminder a]\n")
            #expect(paths(await collect(watcher) { paths($0).contains(file) }).contains(file), "created")

            try tree.replace(file, "[Reminder a]\nTitle=x\n")
            let renamed = await collect(watcher) { paths($0).contains(file) }
            #expect(paths(renamed).contains(file), "edited by rename")
            #expect(!paths(renamed).contains(tree.reminders + "/.a.conf.tmp"), "the editor's temporary file does not count")

            try FileManager.default.createDirectory(atPath: tree.root + "/elsewhere", withIntermediateDirectories: true)
            #expect(rename(file, tree.root + "/elsewhere/a.conf") == 0)
            #expect(paths(await collect(watcher) { paths($0).contains(file) }).contains(file), "moved away")

            #expect(rename(tree.root + "/elsewhere/a.conf", file) == 0)
            #expect(paths(await collect(watcher) { paths($0).contains(file) }).contains(file), "moved in")

            #expect(unlink(file) == 0)
            #expect(paths(await collect(watcher) { paths($0).contains(file) }).contains(file), "deleted")

            let conf = tree.config + "/aviso.conf"
            try tree.replace(conf, "[Scheduler]\nWindow=3\n")
            #expect(paths(await collect(watcher) { paths($0).contains(conf) }).contains(conf), "aviso.conf saved")
        }

        @Test func aBurstOfWritesGivesOneEvent() async throws {
            let tree = try Tree()
            defer { tree.remove() }
            // A long quiet period, so that a loaded test machine cannot split the burst.
            let watcher = try FileWatcher(configFile: tree.config + "/aviso.conf", zoneFile: tree.localtime,
                                          quiet: .milliseconds(200))
            defer { watcher.stop() }
            let files = Set((0..<20).map { tree.reminders + "/r\($0).conf" })
            for file in files.sorted() { try tree.replace(file, "[Reminder x]\n") }
            let events = await collect(watcher) { paths($0).isSuperset(of: files) }
            #expect(paths(events) == files)
            #expect(events.count == 1, "\(events)")
        }

        @Test func theRemindersDirectoryRemovedAndRecreatedIsFollowed() async throws {
            let tree = try Tree()
            defer { tree.remove() }
            let watcher = try FileWatcher(configFile: tree.config + "/aviso.conf", zoneFile: tree.localtime)
            defer { watcher.stop() }
            try FileManager.default.removeItem(atPath: tree.reminders)
            #expect(paths(await collect(watcher) { paths($0).contains(tree.reminders) }).contains(tree.reminders))

            try FileManager.default.createDirectory(atPath: tree.reminders, withIntermediateDirectories: true)
            #expect(paths(await collect(watcher) { paths($0).contains(tree.reminders) }).contains(tree.reminders))
            // The new directory is watched: a file written in it is reported.
            let file = tree.reminders + "/b.conf"
            try tree.write(file, "[Reminder b]\n")
            #expect(paths(await collect(watcher) { paths($0).contains(file) }).contains(file))
        }

        @Test func theConfigurationDirectoryRemovedAndRecreatedIsFollowed() async throws {
            let tree = try Tree()
            defer { tree.remove() }
            let watcher = try FileWatcher(configFile: tree.config + "/aviso.conf", zoneFile: tree.localtime)
            defer { watcher.stop() }
            try FileManager.default.removeItem(atPath: tree.config)
            #expect(paths(await collect(watcher) { paths($0).contains(tree.config) }).contains(tree.config), "removed")

            try FileManager.default.createDirectory(atPath: tree.reminders, withIntermediateDirectories: true)
            try tree.write(tree.reminders + "/c.conf", "[Reminder c]\n")
            // Whether the file's own event is seen depends on timing; the directory's return is always reported.
            #expect(paths(await collect(watcher) { paths($0).contains(tree.config) }).contains(tree.config), "recreated")
            let file = tree.reminders + "/d.conf"
            try tree.write(file, "[Reminder d]\n")
            #expect(paths(await collect(watcher) { paths($0).contains(file) }).contains(file), "watched again")
        }

        @Test func theZoneLinkReplacedRewrittenRemovedAndRecreatedIsReported() async throws {
            let tree = try Tree()
            defer { tree.remove() }
            let watcher = try FileWatcher(configFile: tree.config + "/aviso.conf", zoneFile: tree.localtime)
            defer { watcher.stop() }

            // As timedatectl does: a new link under a temporary name, renamed over /etc/localtime.
            let temp = tree.root + "/etc/.localtime.new"
            try FileManager.default.createSymbolicLink(atPath: temp, withDestinationPath: tree.root + "/zoneinfo/B")
            #expect(rename(temp, tree.localtime) == 0)
            #expect(hasZone(await collect(watcher) { hasZone($0) }), "link replaced")

            // The zone file the link points to is rewritten in place (a tzdata update).
            let fd = open(tree.root + "/zoneinfo/B", O_WRONLY | O_APPEND)
            #expect(fd >= 0)
            _ = "more".withCString { write(fd, $0, 4) }
            close(fd)
            #expect(hasZone(await collect(watcher) { hasZone($0) }), "target rewritten")

            #expect(unlink(tree.localtime) == 0)
            #expect(hasZone(await collect(watcher) { hasZone($0) }), "removed")

            try FileManager.default.createSymbolicLink(atPath: tree.localtime, withDestinationPath: tree.root + "/zoneinfo/A")
            #expect(hasZone(await collect(watcher) { hasZone($0) }), "created again")
        }

        @Test func aMissingZoneFileAndConfigDirectoryAreWaitedFor() async throws {
            let tree = try Tree()
            defer { tree.remove() }
            let config = tree.root + "/not-yet/config"
            let zone = tree.root + "/not-yet-etc/localtime"
            let watcher = try FileWatcher(configFile: config + "/aviso.conf", zoneFile: zone)
            defer { watcher.stop() }
            try FileManager.default.createDirectory(atPath: config + "/reminders", withIntermediateDirectories: true)
            #expect(paths(await collect(watcher) { paths($0).contains(config) }).contains(config))
            try FileManager.default.createDirectory(atPath: tree.root + "/not-yet-etc", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: zone, withDestinationPath: tree.root + "/zoneinfo/A")
            #expect(hasZone(await collect(watcher) { hasZone($0) }))
        }

        #if FAILURE_INJECTION
        @Test func theWatchLimitIsReportedAsASystemError() throws {
            let tree = try Tree()
            defer { tree.remove() }
            injectedFailures["inotify_add_watch"] = [.noSpace]
            defer { injectedFailures["inotify_add_watch"] = nil }
            #expect(throws: SystemError("inotify_add_watch", .noSpace)) {
                _ = try FileWatcher(configFile: tree.config + "/aviso.conf", zoneFile: tree.localtime)
            }
        }
        #endif

        @Test func editToEventLatencyIsWithinTheBudget() async throws {
            let tree = try Tree()
            defer { tree.remove() }
            let watcher = try FileWatcher(configFile: tree.config + "/aviso.conf", zoneFile: tree.localtime)
            defer { watcher.stop() }
            var samples: [Double] = []
            for i in 0..<10 {
                let file = tree.reminders + "/lat\(i).conf"
                let start = ContinuousClock.now
                try tree.replace(file, "[Reminder lat]\n")
                let events = await collect(watcher) { paths($0).contains(file) }
                #expect(paths(events).contains(file))
                let elapsed = ContinuousClock.now - start
                samples.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
            }
            samples.sort()
            print("FileWatcher edit-to-event latency (ms): median \(samples[samples.count / 2]), max \(samples.last!)")
            // The quiet period is 20 ms; a median far above it would mean the debounce is broken.
            #expect(samples[samples.count / 2] < 200)
        }
    }
}
