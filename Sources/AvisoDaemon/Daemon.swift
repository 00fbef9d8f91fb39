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

    /// The XDG defaults for the user running the daemon.
    public static func defaults(environment: [String: String]) -> DaemonOptions {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? homeFromPasswd()
        func xdg(_ key: String, _ fallback: String) -> String {
            environment[key].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/" + fallback
        }
        return DaemonOptions(
            socket: SocketPath.resolve(environment: environment, uid: getuid()),
            configFile: xdg("XDG_CONFIG_HOME", ".config") + "/aviso/aviso.conf",
            stateDirectory: xdg("XDG_STATE_HOME", ".local/state") + "/aviso")
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
        let systemd = SystemdNotifier()
        let configPath = options.configFile
        let load: @Sendable () -> ConfigLoadResult = { ConfigLoader.load(path: configPath) }
        let initial = load()
        for w in initial.warnings { Log.warning(describe(w)) }
        for e in initial.errors { Log.error(describe(e) + " (using defaults)") }

        let store: Store
        let timers: KernelTimerBackend
        do {
            store = try Store(path: options.stateDirectory + "/aviso.db")
            timers = try KernelTimerBackend()
        } catch {
            Log.error("cannot start: \(error)")
            return 1
        }

        let (notifierEvents, notifierSink) = AsyncStream.makeStream(of: NotifierEvent.self)
        let notifier = Notifier(appName: "aviso", desktopEntry: "aviso", onEvent: { notifierSink.yield($0) })
        await notifier.start()

        let scheduler = Scheduler(
            store: store, timers: timers, delivery: notifier, systemd: systemd, configuration: initial,
            version: version, now: KernelClocks.now, fileExists: { access($0, R_OK) == 0 }, loadConfiguration: load)
        let server: ControlServer
        do {
            try await scheduler.start()
            server = try ControlServer(path: options.socket, handler: { await scheduler.handle($0) })
            try server.start()
        } catch {
            Log.error("cannot start: \(error)")
            return 1
        }
        systemd.ready(status: await scheduler.statusLine)
        Log.notice("avisod \(version) ready; control socket \(options.socket)")

        await withTaskGroup(of: Void.self) { group in
            group.addTask { for await e in timers.events { await scheduler.handle(e) } }
            group.addTask { for await e in notifierEvents { await scheduler.handle(e) } }
            if let interval = systemd.watchdogInterval {
                group.addTask { await scheduler.watchdogLoop(every: interval) }
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
            server.stop()
            timers.stop()
            notifier.stop()
            notifierSink.finish()
            group.cancelAll()
        }
        return 0
    }

    static func describe(_ p: ConfigProblem) -> String {
        p.line.map { "\(p.file):\($0): \(p.message)" } ?? "\(p.file): \(p.message)"
    }
}
