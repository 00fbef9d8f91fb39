import AvisoCore
@testable import AvisoDaemon
import AvisoProtocol
import AvisoTestSupport
import Foundation
import Glibc
import Testing

private final class Directory {
    let path = FileManager.default.temporaryDirectory.path + "/aviso-reminders-\(UUID().uuidString)"
    init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(atPath: path) }

    func write(_ name: String, _ text: String) throws { try write(name, bytes: Array(text.utf8)) }
    func write(_ name: String, bytes: [UInt8]) throws {
        // Saved by rename, as editors do, so the inode changes like in real life.
        let temp = path + "/." + name + ".tmp"
        try Data(bytes).write(to: URL(fileURLWithPath: temp))
        #expect(rename(temp, path + "/" + name) == 0)
    }
    func file(_ name: String) -> String { path + "/" + name }
}

private func reminder(_ name: String, title: String = "t", every: String = "1h") -> String {
    "[Reminder \(name)]\nTitle=\(title)\nEvery=\(every)\n"
}

struct ReminderDirectoryTests {
    @Test func filesCreatedChangedAndDeletedAreFollowed() throws {
        let dir = try Directory()
        let model = ReminderDirectory(path: dir.path, zones: testZones)
        #expect(model.reload().isEmpty)

        try dir.write("a.conf", reminder("one") + reminder("two"))
        #expect(model.reload() == ReminderChanges(added: ["one", "two"]))
        #expect(model.reminders["one"]?.file == dir.file("a.conf"))

        try dir.write("a.conf", reminder("one", title: "new") + reminder("three"))
        #expect(model.reload(changed: [dir.file("a.conf")])
            == ReminderChanges(added: ["three"], removed: ["two"], updated: ["one"]))
        #expect(model.reminders["one"]?.request.content.title == "new")

        #expect(model.reload().isEmpty, "an unchanged directory changes nothing")

        #expect(unlink(dir.file("a.conf")) == 0)
        #expect(model.reload() == ReminderChanges(removed: ["one", "three"]))
        #expect(model.reminders.isEmpty)
        #expect(model.problems.isEmpty)
    }

    /// A reading begun on a thread of its own, as a start does it, is what `load()` takes: it gives what a reading in
    /// place gives, and an edit made after it (the files are watched by then) is found by the next reload.
    @Test func aReadingStartedAheadIsWaitedForByLoad() throws {
        let dir = try Directory()
        for f in 0..<20 {
            try dir.write("f\(f).conf", (0..<50).map { reminder("r\(f)-\($0)", every: "\($0 + 1)h") }.joined(separator: "\n"))
        }
        try dir.write("g.conf", reminder("r0-0", title: "twice") + "[Reminder bad]\nEvery=banana\n")
        let here = ReminderDirectory(path: dir.path, zones: testZones)
        here.load()
        // The kernel says when the reading thread has closed each file it read: an edit after that is not in it.
        let closes = try FileCloses(in: dir.path)
        let ahead = ReminderDirectory(path: dir.path, zones: testZones)
        ahead.startLoading()
        try closes.wait(for: Set((0..<20).map { "f\($0).conf" } + ["g.conf"]))
        try dir.write("g.conf", reminder("late"))
        ahead.load()
        #expect(ahead.reminders.keys.count == 1000)
        #expect(Set(ahead.reminders.keys) == Set(here.reminders.keys), "load() takes the reading started ahead")
        #expect(ahead.problems.map(\.description) == here.problems.map(\.description))
        #expect(ahead.problems.count == 3, "the name declared twice, the bad trigger, the title missing: \(ahead.problems)")
        // What changed after the reading is found by the reload that the change's inotify event causes.
        #expect(ahead.reload() == ReminderChanges(added: ["late"]))
        #expect(ahead.problems.isEmpty, "\(ahead.problems)")
    }

    /// The lookup a start makes for the stored names, in their files' order, finds what a lookup by name finds:
    /// whatever the order and the file the names are asked for from, with a name written twice in one file or in
    /// two files, and after a reload.
    @Test func namesLookedUpInFileOrderFindTheDeclarationsInEffect() throws {
        let dir = try Directory()
        try dir.write("a.conf", (0..<5).map { reminder("a\($0)") }.joined(separator: "\n"))
        try dir.write("b.conf", (0..<5).map { reminder("b\($0)") }.joined(separator: "\n"))
        func check(_ model: ReminderDirectory, _ queries: [(id: String, file: String)]) {
            var cursor = ReminderDirectory.Cursor()
            for q in queries {
                #expect(model.declaration(q.id, from: dir.file(q.file), after: &cursor) == model.declaration(q.id),
                        "\(q.id) from \(q.file)")
            }
        }
        let model = ReminderDirectory(path: dir.path, zones: testZones)
        model.load()
        let inOrder = (0..<5).map { ("a\($0)", "a.conf") } + (0..<5).map { ("b\($0)", "b.conf") }
        check(model, inOrder)
        check(model, inOrder.reversed())
        check(model, [("a3", "b.conf"), ("b0", "a.conf"), ("zz", "a.conf"), ("a1", "gone.conf"), ("a2", "a.conf")])
        // Written twice in one file (the header's blanks are trimmed): the first is in effect, not the one after a1.
        try dir.write("a.conf", reminder("a0", title: "first") + reminder("a1") + "[Reminder  a0 ]\nTitle=second\nEvery=1h\n")
        let twice = ReminderDirectory(path: dir.path, zones: testZones)
        twice.load()
        #expect(twice.declaration("a0")?.request.content.title == "first")
        check(twice, [("a1", "a.conf"), ("a0", "a.conf")])
        // In two files, and after a reload.
        try dir.write("c.conf", reminder("b2", title: "from c"))
        check(model, [("b2", "c.conf"), ("b1", "b.conf"), ("b2", "b.conf")])
        model.reload()
        check(model, [("b1", "b.conf"), ("b2", "b.conf"), ("b2", "c.conf"), ("a1", "a.conf"), ("a0", "a.conf")])
        let two = ReminderDirectory(path: dir.path, zones: testZones)
        two.load()
        check(two, [("b1", "b.conf"), ("b2", "b.conf"), ("b3", "b.conf"), ("b2", "c.conf")])
    }

    /// A file deleted and written again under its old path, beside one declaring the same name: the name is found in
    /// the right file each time, and the file first in sorted order keeps it.
    @Test func aFileWrittenAgainAfterItWasDeletedDeclaresItsNamesAgain() throws {
        let dir = try Directory()
        let model = ReminderDirectory(path: dir.path, zones: testZones)
        try dir.write("b.conf", reminder("shared", title: "from b") + reminder("b-only"))
        try dir.write("a.conf", reminder("a-only"))
        model.load()
        #expect(Set(model.reminders.keys) == ["shared", "b-only", "a-only"])
        #expect(unlink(dir.file("a.conf")) == 0)
        #expect(model.reload() == ReminderChanges(removed: ["a-only"]))
        try dir.write("a.conf", reminder("shared", title: "from a") + reminder("a-again"))
        #expect(model.reload() == ReminderChanges(added: ["a-again"], updated: ["shared"]))
        #expect(model.reminders["shared"]?.request.content.title == "from a")
        #expect(model.reminders["a-again"]?.file == dir.file("a.conf"))
        #expect(model.problems.count == 1, "the later declaration of 'shared' is an error")
        #expect(unlink(dir.file("a.conf")) == 0)
        #expect(model.reload() == ReminderChanges(removed: ["a-again"], updated: ["shared"]))
        #expect(model.reminders["shared"]?.request.content.title == "from b")
        #expect(model.problems.isEmpty)
    }

    @Test func aBrokenReminderKeepsItsLastGoodVersionWhileTheRestOfItsFileLoads() throws {
        let dir = try Directory()
        let model = ReminderDirectory(path: dir.path, zones: testZones)
        try dir.write("a.conf", reminder("keep", title: "good") + reminder("edited", title: "old"))
        model.reload()
        try dir.write("a.conf", reminder("keep", title: "good", every: "never") + reminder("edited", title: "new")
            + "[Reminder bad]\nTitle=x\nEvery=never\n")
        try dir.write("b.conf", reminder("other"))
        #expect(model.reload() == ReminderChanges(added: ["other"], updated: ["edited"]))
        #expect(model.reminders["keep"]?.request.content.title == "good", "the broken reminder's last good version stays")
        #expect(model.reminders["keep"]?.request.trigger == .interval(.seconds(3600), repeats: true))
        #expect(model.reminders["edited"]?.request.content.title == "new", "the rest of the file loads")
        #expect(model.reminders["bad"] == nil, "a reminder that never parsed is not declared")
        #expect(model.problems.map(\.line) == [3, 9])
        #expect(model.problems.allSatisfy { $0.file == dir.file("a.conf") })
        #expect(model.problems[0].message.contains("[Reminder keep]") && model.problems[0].message.contains("last good version"))
        #expect(model.problems[1].message.contains("[Reminder bad]") && !model.problems[1].message.contains("last good version"))

        try dir.write("a.conf", reminder("keep", title: "fixed") + reminder("edited", title: "new"))
        #expect(model.reload() == ReminderChanges(updated: ["keep"]))
        #expect(model.problems.isEmpty)
    }

    @Test func aFileThatIsNotKeyFileTextKeepsItsWholeLastGoodVersion() throws {
        let dir = try Directory()
        let model = ReminderDirectory(path: dir.path, zones: testZones)
        try dir.write("a.conf", reminder("keep", title: "good"))
        model.reload()
        try dir.write("a.conf", reminder("keep", title: "new") + "this is not a key\n")
        #expect(model.reload().isEmpty)
        #expect(model.reminders["keep"]?.request.content.title == "good")
        let problem = try #require(model.problems.first)
        #expect(problem.line == 4)
        #expect(problem.message.contains("syntax") && problem.message.contains("last good version of this file"))
    }

    @Test func aNameDeclaredInTwoFilesIsAnErrorNamingBoth() throws {
        let dir = try Directory()
        let model = ReminderDirectory(path: dir.path, zones: testZones)
        try dir.write("b.conf", "# x\n" + reminder("dup", title: "from b") + reminder("mine"))
        try dir.write("a.conf", reminder("dup", title: "from a"))
        model.reload()
        #expect(model.reminders["dup"]?.request.content.title == "from a", "the first file by sorted path keeps it")
        #expect(model.reminders["mine"] != nil, "the rest of the second file still loads")
        let problem = try #require(model.problems.first)
        #expect(problem.file == dir.file("b.conf"))
        #expect(problem.line == 2)
        #expect(problem.message.contains(dir.file("a.conf")))

        #expect(unlink(dir.file("a.conf")) == 0)
        #expect(model.reload() == ReminderChanges(updated: ["dup"]))
        #expect(model.reminders["dup"]?.file == dir.file("b.conf"))
        #expect(model.problems.isEmpty)
    }

    @Test func nothingCrashesWhateverIsInTheDirectory() throws {
        let dir = try Directory()
        let model = ReminderDirectory(path: dir.path, zones: testZones)
        try dir.write("good.conf", reminder("fine"))
        try dir.write("garbage.conf", bytes: (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 151 &+ 3) })
        try dir.write("huge.conf", String(repeating: "# padding\n", count: 120_000))
        #expect(symlink(dir.file("loop1.conf"), dir.file("loop2.conf")) == 0)
        #expect(symlink(dir.file("loop2.conf"), dir.file("loop1.conf")) == 0)
        #expect(mkfifo(dir.file("fifo.conf"), 0o600) == 0)
        #expect(mkdir(dir.file("sub.conf"), 0o700) == 0)
        try dir.write("notes.txt", "not a reminder file")
        model.reload()
        #expect(Set(model.reminders.keys) == ["fine"])
        let bad = Set(model.problems.map(\.file))
        for name in ["garbage.conf", "huge.conf", "loop1.conf", "loop2.conf", "fifo.conf", "sub.conf"] {
            #expect(bad.contains(dir.file(name)), "\(name) is reported")
        }
        #expect(model.problems.first { $0.file == dir.file("huge.conf") }?.message.contains("larger") == true)
        #expect(!bad.contains(dir.file("notes.txt")))
    }

    @Test func aMissingDirectoryIsEmptyAndItsReturnIsNoticed() throws {
        let dir = try Directory()
        let model = ReminderDirectory(path: dir.path + "/reminders", zones: testZones)
        #expect(model.reload().isEmpty)
        #expect(model.problems.isEmpty)
        try FileManager.default.createDirectory(atPath: dir.path + "/reminders", withIntermediateDirectories: true)
        try Data(reminder("back").utf8).write(to: URL(fileURLWithPath: dir.path + "/reminders/x.conf"))
        #expect(model.reload() == ReminderChanges(added: ["back"]))
    }
}

/// A name declared in two files: the file first in path order keeps it, the other is an error at its line, and
/// whichever changes or goes, the right declaration takes effect.
struct ReminderDirectoryDuplicateTests {
    @Test func theFirstFileInPathOrderKeepsANameDeclaredTwice() throws {
        let dir = try Directory()
        let model = ReminderDirectory(path: dir.path, zones: testZones)
        try dir.write("b.conf", reminder("tea", title: "from b"))
        #expect(model.reload() == ReminderChanges(added: ["tea"]))
        try dir.write("a.conf", "\n" + reminder("tea", title: "from a"))
        #expect(model.reload() == ReminderChanges(updated: ["tea"]), "a.conf comes first")
        #expect(model.reminders["tea"]?.request.content.title == "from a")
        #expect(model.problems.map(\.description) == ["\(dir.file("b.conf")):1: reminder 'tea' is also declared in \(dir.file("a.conf")) (line 2); that one is used. Rename one of them"])

        // The later file's version changes: nothing in effect changes.
        try dir.write("b.conf", reminder("tea", title: "from b, edited"))
        #expect(model.reload().isEmpty)
        // The first file drops it: the second's version takes over, and the problem goes.
        try dir.write("a.conf", reminder("coffee"))
        #expect(model.reload() == ReminderChanges(added: ["coffee"], updated: ["tea"]))
        #expect(model.reminders["tea"]?.request.content.title == "from b, edited")
        #expect(model.problems.isEmpty)
        #expect(unlink(dir.file("b.conf")) == 0)
        #expect(model.reload() == ReminderChanges(removed: ["tea"]))
        #expect(Set(model.reminders.keys) == ["coffee"])
    }
}

/// Random rewrites and deletions of a few files sharing a small set of names, reloaded after each: every name is
/// found, in the first file in sorted path order that declares it, with that file's text; the changes reported are
/// exactly the names that came, went or changed.
struct ReminderDirectoryRandomEditTests {
    @Test(arguments: [UInt64(1), 2, 3])
    func everyNameIsFoundInItsFirstDeclaringFileAfterEveryEdit(seed: UInt64) throws {
        let dir = try Directory()
        let model = ReminderDirectory(path: dir.path, zones: testZones)
        let files = ["a.conf", "b.conf", "c.conf", "d.conf"]
        var texts: [String: [String: String]] = [:] // file → name → title
        var g = SplitMix(seed: seed)
        var expectedBefore: [String: String] = [:]
        for step in 0..<60 {
            let file = files[Int(g.next() % 4)]
            if g.next() % 4 == 0 {
                unlink(dir.file(file))
                texts[file] = nil
            } else {
                var names: [String: String] = [:]
                for _ in 0..<Int(g.next() % 30) { names["n\(g.next() % 40)"] = "t\(step)-\(g.next() % 3)" }
                try dir.write(file, names.sorted { $0.key < $1.key }.map { reminder($0.key, title: $0.value) }.joined())
                texts[file] = names
            }
            let changes = step == 0 ? { model.load(); return ReminderChanges(added: Set(model.reminders.keys)) }() : model.reload()
            // The title in effect for each name: from the first file in path order that declares it.
            var expected: [String: String] = [:]
            var where_: [String: String] = [:]
            for f in files {
                for (name, title) in texts[f] ?? [:] where expected[name] == nil {
                    expected[name] = title
                    where_[name] = f
                }
            }
            #expect(Set(model.reminders.keys) == Set(expected.keys), "seed \(seed) step \(step)")
            for (name, title) in expected {
                #expect(model.reminders[name]?.request.content.title == title, "seed \(seed) step \(step) \(name)")
                #expect(model.reminders[name]?.file == dir.file(where_[name]!), "seed \(seed) step \(step) \(name)")
            }
            if step > 0 {
                #expect(changes.added == Set(expected.keys).subtracting(expectedBefore.keys), "seed \(seed) step \(step)")
                #expect(changes.removed == Set(expectedBefore.keys).subtracting(expected.keys), "seed \(seed) step \(step)")
                #expect(changes.updated == Set(expected.keys.filter { expectedBefore[$0] != nil && expectedBefore[$0] != expected[$0] }),
                        "seed \(seed) step \(step)")
            }
            expectedBefore = expected
        }
    }
}
