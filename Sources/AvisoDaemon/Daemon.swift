import AvisoCore
import AvisoProtocol
import Glibc

/// Where avisod keeps and finds things; every path can be overridden on the command line.
public struct DaemonOptions: Sendable {
    /// The control socket.
    public var socket: String
    /// aviso.conf.
    public var configFile: String
    /// The directory holding aviso.db.
    public var stateDirectory: String
    /// The file whose zone is local time: /etc/localtime, or `AVISO_LOCALTIME` (for tests).
    public var localtime: String
    /// The environment, for TZ and TZDIR.
    public var environment: [String: String]

    /// The XDG defaults for the user running the daemon.
    public static func defaults(environment: [String: String]) -> DaemonOptions {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? homeFromPasswd()
        func xdg(_ key: String, _ fallback: String) -> String {
            environment[key].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/" + fallback
        }
        return DaemonOptions(
            socket: SocketPath.resolve(environment: environment, uid: getuid()),
            configFile: xdg("XDG_CONFIG_HOME", ".config") + "/aviso/aviso.conf",
            stateDirectory: xdg("XDG_STATE_HOME", ".local/state") + "/aviso",
            localtime: environment["AVISO_LOCALTIME"].flatMap { $0.isEmpty ? nil : $0 } ?? "/etc/localtime",
            environment: environment)
    }

    private static func homeFromPasswd() -> String {
        guard let pw = getpwuid(getuid()), let dir = pw.pointee.pw_dir else { return "/" }
        return String(cString: dir)
    }
}

/// The composition root's engine: builds the services, reports readiness, runs until SIGTERM or SIGINT.
public enum Daemon {
    public static let version = "0.1.0"

    /// Runs the daemon; returns the process exit status.
    ///
    /// `signals` must have been created before any other thread started, so that every thread has them blocked.
    public static func run(_ options: DaemonOptions, signals: Signals) async -> Int32 {
        // Everything aviso creates (database, socket, their directories) is the user's alone.
        umask(0o077)
        Log.useJournalIfStderrIsIt(environment: options.environment)
        raiseDescriptorLimit()
        let systemd = SystemdNotifier(environment: options.environment)
        let configPath = options.configFile
        let environment = options.environment
        let load: @Sendable () -> ConfigLoadResult = { ConfigLoader.load(path: configPath, environment: environment) }

        // One thread waits on every kernel source: timers, signals, files, the control socket, the watchdog tick.
        let loop: EventLoop
        do {
            loop = try EventLoop(name: "aviso-loop")
            try signals.watch(on: loop)
        } catch {
            Log.error("cannot start: \(error)")
            return 1
        }
        // The files are watched before any of them is read, so that an edit made while the daemon starts is seen
        // (the reminder files are read on a thread of their own while the start goes on).
        let configDirectory = String(configPath[..<(configPath.lastIndex(of: "/") ?? configPath.startIndex)])
        let watcher: FileWatcher?
        do {
            watcher = try FileWatcher(configFile: configPath, zoneFile: options.localtime, loop: loop)
        } catch {
            Log.error("cannot watch \(configDirectory) for changes: \(error); use avisoctl reload after edits")
            watcher = nil
        }
        let initial = load()
        for w in initial.warnings { Log.warning(w.description) }
        for e in initial.errors { Log.error(e.description + " (using defaults)") }
        let zones = ZoneLookup.system(environment: options.environment, localtimePath: options.localtime)
        let reminders = ReminderDirectory(path: (configDirectory.isEmpty ? "." : configDirectory) + "/reminders", zones: zones,
                                          environment: environment)
        // The socket first: a second daemon, or a socket directory that is not safe, stops this one before it has
        // loaded or delivered anything.
        let server = ControlServer(path: options.socket, loop: loop)
        let store: Store
        let timers: KernelTimerBackend
        var socketPath = options.socket
        do {
            if let passed = try SocketActivation.passedListener() {
                try server.adopt(listener: passed)
                socketPath = UnixSocket.boundPath(passed).map { "\($0) (passed by systemd)" } ?? "passed by systemd"
            } else {
                try server.bind()
            }
            // The files are read while the store is opened and checked and the buses are reached: the scheduler's
            // start waits for that reading (at 100,000 reminders the store's check alone is about 30 ms).
            reminders.startLoading()
            store = try Store(path: options.stateDirectory + "/aviso.db")
            timers = try KernelTimerBackend(loop: loop)
        } catch {
            Log.error("cannot start: \(error)")
            server.stop()
            return 1
        }
        for line in store.report { Log.error(line) }

        // One GLib thread for both buses: notifications on the session bus, logind on the system bus.
        let glib = GLibThread(name: "aviso-glib")
        let (notifierEvents, notifierSink) = AsyncStream.makeStream(of: NotifierEvent.self)
        let notifier = Notifier(appName: "aviso", desktopEntry: "aviso", thread: glib, onEvent: { notifierSink.yield($0) })
        await notifier.start()

        let (sleepEvents, sleepSink) = AsyncStream.makeStream(of: SleepEvent.self)
        let sleepWatcher = SleepWatcher(thread: glib, onEvent: { sleepSink.yield($0) })
        await sleepWatcher.start()

        let scheduler = Scheduler(
            store: store, timers: timers, delivery: notifier, systemd: systemd, configuration: initial,
            version: version, now: KernelClocks.now, stateDirectory: options.stateDirectory, loadConfiguration: load,
            reminders: reminders, configFile: configPath, zoneLookup: zones, environment: environment)
        do {
            try await scheduler.start()
            try server.start { command in
                if case .events(follow: true) = command {
                    let (first, rest) = await scheduler.events(follow: true)
                    if let rest { return .stream(first: first, rest: rest) }
                    return .reply(first)
                }
                return .reply(await scheduler.handle(command))
            }
        } catch {
            Log.error("cannot start: \(error)")
            server.stop()
            return 1
        }
        // The D-Bus API for applications, on the GLib thread; it hears the events it turns into signals.
        let api = SchedulerService(thread: glib, command: { await scheduler.handle($0) }, add: { await scheduler.add(options: $0) })
        api.start()
        let (_, apiEvents) = await scheduler.events(follow: true)
        let watchdog = systemd.watchdogInterval.map { interval in
            WatchdogTick(loop: loop, every: interval) { await scheduler.pingWatchdog() }
        }
        systemd.ready(status: await scheduler.statusLine)
        Log.notice("avisod \(version) ready; control socket \(socketPath)")

        await withTaskGroup(of: Void.self) { group in
            group.addTask { for await e in timers.events { await scheduler.handle(e) } }
            group.addTask { for await e in notifierEvents { await scheduler.handle(e) } }
            if let apiEvents {
                group.addTask {
                    for await reply in apiEvents { if case .ok(.events(let events)) = reply { events.forEach(api.emit) } }
                }
            }
            if let watcher {
                group.addTask { for await e in watcher.events { await scheduler.handle(e) } }
            }
            group.addTask {
                for await e in sleepEvents {
                    await scheduler.handle(e)
                    // The store commits synchronously: state is on disk, the machine may sleep.
                    if e == .preparingForSleep { sleepWatcher.releaseInhibitor() }
                }
            }
            for await signal in signals.events {
                if signal == SIGHUP {
                    _ = await scheduler.reload()
                    continue
                }
                Log.notice("stopping on signal \(signal)")
                break
            }
            systemd.stopping()
            watchdog?.stop()
            server.stop()
            timers.stop()
            notifier.stop()
            sleepWatcher.stop()
            glib.stop()
            watcher?.stop()
            loop.stop()
            notifierSink.finish()
            sleepSink.finish()
            group.cancelAll()
        }
        // Closed here, whatever still holds the scheduler: the write-ahead log is checkpointed into the database.
        await scheduler.closeStore()
        withExtendedLifetime(api) {}
        // The process exits next: the model is left to the kernel, not freed box by box (at 100,000 reminders, 0.1 G
        // instructions between SIGTERM and the exit).
        _ = Unmanaged.passRetained(scheduler)
        return 0
    }

    /// Lifts the soft limit on open descriptors to the hard one (systemd's default soft limit is 1024), so that many
    /// clients at once cannot run the control socket out of descriptors.
    private static func raiseDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    }
}
