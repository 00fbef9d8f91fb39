import AvisoCore
import Glibc
import Synchronization

/// Watches the configuration directory, its `reminders/` subdirectory and the zone file with inotify, on its own
/// thread, and reports debounced `FileEvent`s.
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
/// Call `stop()` when done: the thread keeps the watcher alive until then.
public final class FileWatcher: Sendable {
    /// The default quiet period that ends a burst.
    public static let defaultQuiet = Span.milliseconds(10)
    /// A burst that never goes quiet is still reported this long after its first event.
    public static let maximumDelay = Span.milliseconds(250)

    private let inotifyFD: Int32
    private let wakeFD: Int32
    private let stopped = Mutex(false)
    private let continuation: AsyncStream<FileEvent>.Continuation

    /// Debounced events, in the order observed. One consumer; finishes after `stop()`.
    public let events: AsyncStream<FileEvent>

    /// The configuration directory being watched (the directory of `configFile`).
    public let configDirectory: String
    /// `configDirectory` + "/reminders".
    public let remindersDirectory: String

    /// Starts watching. `configFile` is aviso.conf's path (its directory and `reminders/` are watched); `zoneFile`
    /// is /etc/localtime unless a test gives another path; `quiet` is the debounce period.
    ///
    /// Throws the error of the first watch that could not be set (ENOSPC when the user's inotify watch limit is
    /// reached, from `inotify_add_watch`), or of `inotify_init1`. Paths that do not exist are not errors.
    public init(configFile: String, zoneFile: String = "/etc/localtime", quiet: Span = defaultQuiet) throws(SystemError) {
        let inotifyFD = try Inotify.create()
        let wakeFD: Int32
        do throws(SystemError) { wakeFD = try EventFD.create() } catch {
            close(inotifyFD)
            throw error
        }
        let table = WatchTable(fd: inotifyFD, configFile: configFile, zoneFile: zoneFile)
        if let first = table.refresh().first {
            close(inotifyFD)
            close(wakeFD)
            throw first
        }
        self.inotifyFD = inotifyFD
        self.wakeFD = wakeFD
        configDirectory = table.configDirectory
        remindersDirectory = table.remindersDirectory
        (events, continuation) = AsyncStream.makeStream(of: FileEvent.self, bufferingPolicy: .unbounded)
        let quietNS = max(quiet.nanoseconds, 0)
        KernelThread.spawn(name: "aviso-files") { self.run(table, quiet: quietNS) }
    }

    /// Stops the thread, closes the descriptors and finishes `events`. Idempotent.
    public func stop() {
        stopped.withLock { s in
            if s { return }
            s = true
            EventFD.signal(wakeFD)
        }
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

    private func run(_ table: WatchTable, quiet: Int64) {
        var pending = Pending()
        var fds = [pollfd(fd: inotifyFD, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
        while true {
            var timeout: Int32 = -1
            if let first = pending.first {
                let due = min(pending.last + quiet, first + Self.maximumDelay.nanoseconds)
                let left = due - Self.monotonic()
                // Round up: waking a little late merges more; waking early would spin.
                timeout = left <= 0 ? 0 : Int32(clamping: (left + 999_999) / 1_000_000)
            }
            fds[0].revents = 0
            fds[1].revents = 0
            let ready = (try? syscall("poll") { poll(&fds, 2, timeout) }) ?? 0
            if fds[1].revents != 0 {
                EventFD.drain(wakeFD)
                if stopped.withLock({ $0 }) { break }
            }
            if ready > 0 && fds[0].revents != 0 {
                let batch = Inotify.read(inotifyFD)
                if !batch.isEmpty {
                    handle(batch, table: table, into: &pending)
                    if !pending.isEmpty {
                        let now = Self.monotonic()
                        if pending.first == nil { pending.first = now }
                        pending.last = now
                    }
                }
            }
            if let first = pending.first {
                let now = Self.monotonic()
                if now >= pending.last + quiet || now >= first + Self.maximumDelay.nanoseconds {
                    emit(pending)
                    pending = Pending()
                }
            }
        }
        close(inotifyFD)
        close(wakeFD)
        continuation.finish()
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

    private static func monotonic() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}
