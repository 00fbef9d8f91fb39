import Foundation

/// A real avisod run as a child process in a private directory, plus avisoctl against it.
///
/// Every path (socket, configuration, state) is inside `directory`, so tests run side by side. The daemon's log
/// (stderr) is collected in `log`; `start()` returns once the daemon has logged that it is ready.
public final class DaemonProcess: @unchecked Sendable {
    public let directory: String
    public var socket: String { directory + "/run/aviso/ctl.sock" }
    public var configFile: String { directory + "/config/aviso/aviso.conf" }
    public var stateDirectory: String { directory + "/state/aviso" }
    /// The environment of the daemon and of avisoctl (bus, XDG directories, plus what the test adds).
    public var environment: [String: String]
    /// Environment for the daemon alone, on top of `environment` (faketime, which must not reach avisoctl).
    public var daemonOnlyEnvironment: [String: String] = [:]
    /// Another uid to run the daemon and avisoctl as (through setpriv; needs root): `start()` gives `directory` to
    /// it first. nil: this process's user.
    public var runAs: UInt32?
    public private(set) var log = LineChannel()
    /// Tells avisod (`JOURNAL_STREAM`) that its stderr is the journal's stream, so it logs to the journal.
    public var journalStream = false
    private var process: Process?

    /// Prepares a daemon talking to the session bus at `busAddress` (nil: no bus at all).
    public init(busAddress: String?, environment: [String: String] = [:]) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("aviso-daemon-\(UUID().uuidString)").path
        for sub in ["run", "config/aviso", "state"] {
            try FileManager.default.createDirectory(atPath: dir + "/" + sub, withIntermediateDirectories: true)
        }
        chmod(dir + "/run", 0o700)
        directory = dir
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SESSION_BUS_ADDRESS"] = busAddress ?? "unix:path=\(dir)/no-bus"
        env["XDG_RUNTIME_DIR"] = dir + "/run"
        env["XDG_CONFIG_HOME"] = dir + "/config"
        env["XDG_STATE_HOME"] = dir + "/state"
        env.removeValue(forKey: "NOTIFY_SOCKET")
        env.removeValue(forKey: "WATCHDOG_USEC")
        env.removeValue(forKey: "AVISO_SOCKET")
        for (k, v) in environment { env[k] = v }
        self.environment = env
    }

    deinit {
        if let p = process, p.isRunning {
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Writes aviso.conf.
    public func writeConfig(_ text: String) throws {
        try text.write(toFile: configFile, atomically: true, encoding: .utf8)
    }

    /// Starts avisod and waits (at most `timeout`) until it reports that it is ready.
    public func start(timeout: Duration = .seconds(20)) async throws {
        try launch()
        _ = try await log.next(timeout: timeout) { $0.contains("ready; control socket") }
    }

    /// Starts avisod without waiting for it: for daemons expected to refuse to start (read `log`, `waitForExit`).
    public func launch() throws {
        if let uid = runAs {
            _ = try Self.run("/bin/chown", ["-R", "\(uid):\(uid)", directory])
        }
        let p = Process()
        let (executable, arguments) = command(Products.path("avisod"),
                                              ["--socket", socket, "--config", configFile, "--state-dir", stateDirectory])
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        p.environment = environment.merging(daemonOnlyEnvironment) { _, b in b }
        try run(p, journalStream: journalStream)
    }

    /// Starts `systemd-socket-activate` listening on `socket` for avisod, as `aviso.socket` would: avisod is started
    /// (in its place, with LISTEN_FDS) by the first connection, and takes the socket it is passed. `datagram` passes
    /// a datagram socket instead, which avisod must refuse. `log` has the activator's lines, then avisod's.
    public func launchSocketActivated(datagram: Bool = false) throws {
        try FileManager.default.createDirectory(atPath: (socket as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // The activator starts avisod with its own environment only: what avisod needs is passed with -E.
        let env = environment.merging(daemonOnlyEnvironment) { _, b in b }
        var arguments = ["--listen=" + socket] + (datagram ? ["--datagram"] : [])
        for key in ["HOME", "PATH", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "DBUS_SESSION_BUS_ADDRESS", "TZ"] {
            if let value = env[key] { arguments.append("--setenv=\(key)=\(value)") }
        }
        arguments += [Products.path("avisod"), "--config", configFile, "--state-dir", stateDirectory]
        // Through a small parent that waits for it: Foundation's Process does not notice its other children end
        // while one of them has exec'd into another program (avisoctl would stay a zombie and its call hang). The
        // parent unblocks the signals a test thread leaves blocked, passes SIGTERM on, and exits with the status.
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = ["-c", """
            import signal, subprocess, sys
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            child = subprocess.Popen(sys.argv[1:])
            signal.signal(signal.SIGTERM, lambda *_: child.send_signal(signal.SIGTERM))
            status = child.wait()
            sys.exit(status if status >= 0 else 128 - status)
            """, "/usr/bin/systemd-socket-activate"] + arguments
        try run(p, journalStream: false)
    }

    /// Starts `p` as the daemon: its stderr lines in a new `log`, its stdout discarded; with `journalStream`, told
    /// (`JOURNAL_STREAM`, as systemd sets it for output that goes to the journal) that its stderr is the journal.
    private func run(_ p: Process, journalStream: Bool) throws {
        let err = Pipe()
        if journalStream {
            var info = stat()
            fstat(err.fileHandleForWriting.fileDescriptor, &info)
            p.environment?["JOURNAL_STREAM"] = "\(info.st_dev):\(info.st_ino)"
        }
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        let log = LineChannel()
        log.attach(err.fileHandleForReading)
        // The pipe ends when the daemon exits, unless a process started by this test process at that moment inherited
        // its write end (Foundation's pipes are not close-on-exec): a second after the exit, what the daemon wrote has
        // been read, and the stream is ended anyway.
        p.terminationHandler = { _ in
            DispatchQueue.global().asyncAfter(deadline: .now() + 1) { log.end() }
        }
        self.log = log
        try p.run()
        process = p
    }

    /// The program and arguments that run `program` as `runAs`, when set.
    private func command(_ program: String, _ arguments: [String]) -> (String, [String]) {
        guard let uid = runAs else { return (program, arguments) }
        return ("/usr/bin/setpriv", ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", program] + arguments)
    }

    /// The daemon's pid, while running.
    public var pid: Int32? { process.flatMap { $0.isRunning ? $0.processIdentifier : nil } }

    /// Sends `signal` to the daemon.
    public func signal(_ signal: Int32) {
        if let pid { kill(pid, signal) }
    }

    /// Waits for the daemon to exit and returns its status (after SIGKILL: the signal number).
    @discardableResult
    public func waitForExit(timeout: Duration = .seconds(10)) async throws -> Int32 {
        guard let p = process else { return 0 }
        // The log pipe closes when the process exits: waiting for its end is event-driven.
        try await log.waitForEnd(timeout: timeout)
        p.waitUntilExit()
        return p.terminationStatus
    }

    /// Result of one avisoctl run.
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// Runs `avisoctl --socket SOCKET args...` to completion.
    public func ctl(_ args: [String], environment extra: [String: String] = [:]) throws -> Result {
        let (program, arguments) = command(Products.path("avisoctl"), ["--socket", socket] + args)
        return try DaemonProcess.run(program, arguments, environment: environment.merging(extra) { _, b in b })
    }

    /// A long-running avisoctl (`events --follow`): its stdout lines arrive through `lines`.
    public final class Running: @unchecked Sendable {
        public let lines = LineChannel()
        let process = Process()

        /// Stops it (SIGTERM) and waits for it.
        /// Ends it with SIGKILL and waits: a program started from a test thread inherits its blocked signals and may
        /// never see a SIGTERM.
        public func terminate() {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }

    /// Starts `avisoctl --socket SOCKET args...` without waiting for it to end.
    public func ctlProcess(_ args: [String]) throws -> Running {
        let (program, arguments) = command(Products.path("avisoctl"), ["--socket", socket] + args)
        return try Self.start(program, arguments, environment: environment)
    }

    /// Starts a program without waiting for it to end; its output lines arrive in `lines`.
    public static func start(_ program: String, _ arguments: [String], environment: [String: String]) throws -> Running {
        let running = Running()
        running.process.executableURL = URL(fileURLWithPath: program)
        running.process.arguments = arguments
        running.process.environment = environment
        running.process.standardInput = FileHandle.nullDevice
        let out = Pipe()
        running.process.standardOutput = out
        running.lines.attach(out.fileHandleForReading)
        try running.process.run()
        return running
    }

    /// Runs a program to completion, collecting its output.
    public static func run(_ path: String, _ args: [String], environment: [String: String]? = nil) throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        if let environment { p.environment = environment }
        let out = Pipe()
        let err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        // Read both pipes to the end before waiting, so a large output cannot block the child.
        let errData = LockedData()
        let done = DispatchSemaphore(value: 0)
        Thread {
            errData.set(err.fileHandleForReading.readDataToEndOfFile())
            done.signal()
        }.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        done.wait()
        p.waitUntilExit()
        return Result(status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData.value, as: UTF8.self))
    }
}

private final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var data: Data?
    func set(_ d: Data) { lock.withLock { data = d } }
    var value: Data { lock.withLock { data ?? Data() } }
}
