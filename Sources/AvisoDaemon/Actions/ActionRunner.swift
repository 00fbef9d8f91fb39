import AvisoCore
import FoundationEssentials
import Glibc

/// What an `exec` action's program is told, as one JSON object on its stdin.
struct ActionEvent: Sendable, Encodable {
    var id: String
    var action: String
    var text: String?
    var activationToken: String?
    var category: String?
    var title: String
    var body: String
    /// When the action was chosen, ISO 8601 UTC with milliseconds.
    var t: String

    init(id: String, action: String, text: String?, token: String?, category: String?, title: String, body: String,
         at: WallTime) {
        self.id = id
        self.action = action
        self.text = text
        activationToken = token
        self.category = category
        self.title = title
        self.body = body
        t = ISO8601.formatMilliseconds(at)
    }

    /// One line; absent fields (no text, no category, no token) are left out.
    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return ((try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}") + "\n"
    }
}

/// Starts what actions run: `exec` programs, `open` handlers and prompts, each in its own process group with a clean
/// environment, never waiting on them on the scheduler: a thread per child reaps it and logs how it ended.
struct ActionRunner: Sendable {
    /// The daemon's environment, from which a child gets PATH, HOME, the display and the session bus.
    let environment: [String: String]

    /// The variables a child inherits from the daemon; everything else is left behind.
    static let inherited = ["PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "DISPLAY", "WAYLAND_DISPLAY",
                            "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS", "XDG_CURRENT_DESKTOP", "XAUTHORITY"]

    /// Runs `argv` (no shell) with the event as JSON on stdin and `AVISO_ID`, `AVISO_ACTION`, `AVISO_TEXT`,
    /// `AVISO_ACTIVATION_TOKEN` in its environment; its exit status and stderr are logged.
    func exec(_ argv: [String], event: ActionEvent, token: String?) {
        var extra = ["AVISO_ID": event.id, "AVISO_ACTION": event.action, "AVISO_TEXT": event.text ?? ""]
        if let token { extra["AVISO_ACTIVATION_TOKEN"] = token }
        run(argv, extra: extra.merging(activation(token)) { a, _ in a }, stdin: event.json, label: "'\(event.id)': \(event.action)") { _, _ in }
    }

    /// Opens `uri` with the desktop's default handler (xdg-open), passing the activation token on.
    func open(_ uri: String, token: String?) {
        run(["xdg-open", uri], extra: activation(token), stdin: nil, label: "open \(uri)") { _, _ in }
    }

    /// Asks for text with the prompt program; `answer` gets it, or nil when the person cancelled (or it failed).
    func ask(_ tool: PromptTool, title: String, action: Action, answer: @escaping @Sendable (String?) -> Void) {
        let (argv, extra) = tool.command(title: title, action: action)
        run(argv, extra: extra, stdin: nil, label: "prompt for \(action.name)", captureOutput: true) { status, output in
            guard status == 0 else { return answer(nil) }
            var text = output
            while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
            answer(text)
        }
    }

    private func activation(_ token: String?) -> [String: String] {
        guard let token else { return [:] }
        // Wayland compositors read XDG_ACTIVATION_TOKEN, X11 startup notification DESKTOP_STARTUP_ID.
        return ["XDG_ACTIVATION_TOKEN": token, "DESKTOP_STARTUP_ID": token]
    }

    /// Starts `argv` and, on a thread of its own, feeds stdin, collects stdout (when asked) and stderr, reaps it and
    /// calls `done` with its exit status (-1 when it could not start) and its output.
    private func run(
        _ argv: [String], extra: [String: String], stdin: String?, label: String, captureOutput: Bool = false,
        done: @escaping @Sendable (Int32, String) -> Void
    ) {
        guard let program = ProgramPath.locate(argv[0], path: environment["PATH"]) else {
            Log.error("\(label): \(ProgramPath.problem(argv[0], path: environment["PATH"]) ?? argv[0])")
            return done(-1, "")
        }
        var env = environment.filter { Self.inherited.contains($0.key) }
        for (k, v) in extra { env[k] = v }
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(program, argv, environment: env, captureOutput: captureOutput)
        } catch {
            Log.error("\(label): cannot start \(program): \(error)")
            return done(-1, "")
        }
        KernelThread.spawn(name: "aviso-action") {
            let (status, output, errors) = child.finish(stdin: stdin)
            let said = errors.isEmpty ? "" : ": \(errors)"
            if status == 0 { Log.info("\(label): \(argv[0]) exited 0\(said)") } else {
                Log.warning("\(label): \(argv[0]) \(status < 0 ? "was killed by signal \(-status)" : "exited \(status)")\(said)")
            }
            done(status, output)
        }
    }
}
