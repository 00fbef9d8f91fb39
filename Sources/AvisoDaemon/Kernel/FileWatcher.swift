import AvisoCore
import Glibc
import Synchronization

/// Watches the configuration directory, its `reminders/` subdirectory and the zone file with inotify, on an
/// `EventLoop`, and reports debounced `FileEvent`s.
///
/// Survives what editors and people do: saving by temporary file + rename, files moved in and out, `reminders/`
/// or the whole configuration directory removed and recreated (then the nearest existing parent is watched until
/// it reappears), /etc/localtime replaced as a link or missing. Watches are re-derived from what exists after each
/// such event, so no state is patched.
///
/// Debounce: events are collected until `quiet` passes without a new one (at most `maximumDelay` after the first),
/// then one `.configChanged` with every path seen and/or one `.zoneChanged` is emitted. An editor's save (write
/// temp, fsync, rename, chmod) takes well under a millisecond of kernel events, so a 10 ms quiet period merges it
/// while leaving most of the 50 ms edit-to-re-arm budget to parsing and reconciling.
/// Call `stop()` when done: the loop keeps the watcher alive until then.
public final class FileWatcher: Sendable {
    /// The default quiet period that ends a burst.
    public static let defaultQuiet = Span.milliseconds(10)
    /// A burst that never goes quiet is still reported this long after its first event.
    public static let maximumDelay = Span.milliseconds(250)

    private let inotifyFD: Int32
    private let loop: EventLoop
    /// Whether `loop` was made for this watcher alone (and is stopped with it).
    private let ownsLoop: Bool
    private let table: WatchTable
    private let quiet: Int64
    /// What the current burst collected; touched on the loop's thread only (the lock costs nothing there).
    private let pending = Mutex(Pending())
    private let sources = Mutex<(watch: EventLoop.Token?, burstEnd: EventLoop.Token?, stopped: Bool)>((nil, nil, false))
    private let continuation: AsyncStream<FileEvent>.Continuation

    /// Debounced events, in the order observed. One consumer; finishes after `stop()`.
    public let events: AsyncStream<FileEvent>

    /// The configuration directory being watched (the directory of `configFile`).
    public let configDirectory: String
    /// `configDirectory` + "/reminders".
    public let remindersDirectory: String

    /// Starts watching on `loop` (a loop of its own when nil). `configFile` is aviso.conf's path (its directory and
    /// `reminders/` are watched); `zoneFile` is /etc/localtime unless a test gives another path; `quiet` is the
    /// debounce period.
    ///
    /// Throws the error of the first watch that could not be set (ENOSPC when the user's inotify watch limit is
    /// reached, from `inotify_add_watch`), or of `inotify_init1`. Paths that do not exist are not errors.
    public init(configFile: String, zoneFile: String = "/etc/localtime", quiet: Span = defaultQuiet,
                loop: EventLoop? = nil) throws(SystemError) {
        let inotifyFD = try Inotify.create()
        let table = WatchTable(fd: inotifyFD, configFile: configFile, zoneFile: zoneFile)
        if let first = table.refresh().first {
            close(inotifyFD)
            throw first
        }
        do throws(SystemError) {
            if let loop { self.loop = loop } else { self.loop = try EventLoop(name: "aviso-files") }
        } catch {
            close(inotifyFD)
            throw error
        }
        ownsLoop = loop == nil
        self.inotifyFD = inotifyFD
        self.table = table
        self.quiet = max(quiet.nanoseconds, 0)
        configDirectory = table.configDirectory
        remindersDirectory = table.remindersDirectory
        (events, continuation) = AsyncStream.makeStream(of: FileEvent.self, bufferingPolicy: .unbounded)
        let burstEnd = self.loop.deadline { self.endBurst() }
        do throws(SystemError) {
            let watch = try self.loop.watch(inotifyFD) { _ in self.readEvents() }
            sources.withLock { $0 = (watch, burstEnd, false) }
        } catch {
            self.loop.removeDeadline(burstEnd)
            close(inotifyFD)
            if ownsLoop { self.loop.stop() }
            throw error
        }
    }

    /// Stops watching, closes the inotify descriptor and finishes `events`; returns when that is done. Idempotent.
    public func stop() {
        guard let (watch, burstEnd) = sources.withLock({ s -> (EventLoop.Token, EventLoop.Token)? in
            guard !s.stopped, let watch = s.watch, let burstEnd = s.burstEnd else { return nil }
            s.stopped = true
            return (watch, burstEnd)
        }) else { return }
        loop.executeAndWait {
            self.loop.unwatch(watch)
            self.loop.removeDeadline(burstEnd)
            close(self.inotifyFD)
            self.continuation.finish()
        }
        if ownsLoop { loop.stop() }
    }

    /// What one burst collected.
    private struct Pending {
        var paths: Set<String> = []
        var zone = false
        var failures: [SystemError] = []
        var first: Int64?
        var last: Int64 = 0
        var isEmpty: Bool { paths.isEmpty && !zone && failures.isEmpty }
    }

    /// inotify has events: adds them to the burst and moves its end (`quiet` after the last event, at most
    /// `maximumDelay` after the first).
    private func readEvents() {
        let batch = Inotify.read(inotifyFD)
        guard !batch.isEmpty else { return }
        let due: Int64? = pending.withLock { p in
            handle(batch, table: table, into: &p)
            guard !p.isEmpty else { return nil }
            let now = EventLoop.monotonic()
            if p.first == nil { p.first = now }
            p.last = now
            return min(p.last + quiet, p.first! + Self.maximumDelay.nanoseconds)
        }
        if let due, let burstEnd = sources.withLock({ $0.burstEnd }) { loop.setDeadline(burstEnd, at: due) }
    }

    /// The burst went quiet (or lasted too long): reports it.
    private func endBurst() {
        let burst = pending.withLock { p in
            defer { p = Pending() }
            return p
        }
        emit(burst)
    }

    private func emit(_ pending: Pending) {
        for failure in pending.failures { continuation.yield(.watchFailed(failure)) }
        if !pending.paths.isEmpty { continuation.yield(.configChanged(paths: pending.paths)) }
        if pending.zone { continuation.yield(.zoneChanged) }
    }

    /// Classifies a batch of raw events by what each watch is for, and re-derives the watches when a watched
    /// path may have appeared or gone.
    private func handle(_ batch: [Inotify.Event], table: WatchTable, into pending: inout Pending) {
        var refresh = false
        let selfGone: Inotify.Mask = [.deleteSelf, .moveSelf, .ignored, .unmount]
        for event in batch {
            if event.mask.contains(.queueOverflow) {
                // Events were lost: everything may have changed.
                pending.paths.insert(table.configDirectory)
                pending.zone = true
                refresh = true
                continue
            }
            let targets = table.watched(event.watch)
            if event.mask.contains(.ignored) { table.forget(event.watch) }
            for target in targets {
                switch target.kind {
                case .configDirectory:
                    if !event.mask.isDisjoint(with: selfGone) {
                        pending.paths.insert(table.configDirectory)
                        refresh = true
                    } else if event.name == table.configFileName {
                        pending.paths.insert(table.configDirectory + "/" + event.name)
                    } else if event.name == "reminders" {
                        pending.paths.insert(table.remindersDirectory)
                        refresh = true
                    }
                case .remindersDirectory:
                    if !event.mask.isDisjoint(with: selfGone) {
                        pending.paths.insert(table.remindersDirectory)
                        refresh = true
                    } else if Self.isReminderFile(event.name) && !event.mask.contains(.isDirectory) {
                        pending.paths.insert(table.remindersDirectory + "/" + event.name)
                    }
                case .zoneDirectory:
                    if !event.mask.isDisjoint(with: selfGone) {
                        pending.zone = true
                        refresh = true
                    } else if event.name == WatchTable.split(table.zoneFile).name {
                        pending.zone = true
                        refresh = true
                    }
                case .zoneFile:
                    if !event.mask.isDisjoint(with: [.modify, .attrib, .closeWrite]) { pending.zone = true }
                    if !event.mask.isDisjoint(with: selfGone) {
                        pending.zone = true
                        refresh = true
                    }
                case .ancestor:
                    refresh = true
                }
            }
        }
        guard refresh else { return }
        let hadConfig = table.configDirectoryWatch
        let hadZone = table.zoneDirectoryWatch
        pending.failures += table.refresh()
        // A directory that reappeared may already hold files whose events were never seen: rescan it whole. One
        // that went away may have gone before its own events were read (they then name a forgotten watch). One
        // removed and created again before this refresh has a new watch, though it was watched before and after.
        if hadConfig != table.configDirectoryWatch { pending.paths.insert(table.configDirectory) }
        if hadZone != table.zoneDirectoryWatch { pending.zone = true }
    }

    /// `*.conf`, not hidden: editors' temporary files (".x.conf.swp", ".#x.conf", "x.conf~") do not count.
    static func isReminderFile(_ name: String) -> Bool {
        !name.hasPrefix(".") && name.hasSuffix(".conf") && name.count > 5
    }
}
