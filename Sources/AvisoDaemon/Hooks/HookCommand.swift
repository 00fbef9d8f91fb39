import AvisoCore
import FoundationEssentials
import Glibc

/// What a content hook is told on stdin: one JSON object, then end of file.
struct HookInput: Encodable {
    var id: String
    var title: String
    var subtitle: String
    var body: String
    var thread: String?
    var category: String?
    var data: [String: JSONValue]
    var image: String?
    /// ISO 8601 UTC.
    var due: String
    var late: Bool
    /// Which firing of the request this is: 1 for the first.
    var attempt: Int
}

/// How a content hook is started: its argv (wrapped in a systemd scope when a user manager is reachable), a clean
/// environment and what it reads on stdin.
enum HookCommand {
    /// The variables a hook gets from the daemon besides its `AVISO_*`: enough to find programs, read the person's
    /// files in their language, and reach the user manager.
    static let inherited = ["PATH", "HOME", "LANG", "LC_ALL", "XDG_RUNTIME_DIR"]

    static func job(
        id: String, hook: ContentHook, content: Content, due: WallTime, late: Bool, attempt: Int,
        environment: [String: String], stateDirectory: String
    ) -> HookJob {
        let program = ProgramPath.locate(hook.argv[0], path: environment["PATH"]) ?? hook.argv[0]
        var env = environment.filter { inherited.contains($0.key) }
        env["AVISO_ID"] = id
        env["AVISO_CATEGORY"] = content.categoryID ?? ""
        env["AVISO_DUE"] = ISO8601.format(due)
        env["AVISO_LATE"] = late ? "1" : "0"
        env["AVISO_ATTEMPT"] = String(attempt)
        env["AVISO_TIMEOUT"] = TimeSpan.format(hook.timeout)
        let input = HookInput(
            id: id, title: content.title, subtitle: content.subtitle, body: content.body, thread: content.threadID,
            category: content.categoryID, data: content.userInfo, image: content.image, due: ISO8601.format(due),
            late: late, attempt: attempt)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = ((try? encoder.encode(input)).map { [UInt8]($0) } ?? Array("{}".utf8)) + [10]
        var argv = [program] + hook.argv.dropFirst()
        var executable = program
        var limitAddressSpace = true
        if let scope = scopeRunner(environment) {
            argv = [scope, "--user", "--scope", "--quiet", "--collect",
                    "--property=MemoryMax=\(hook.memory)", "--property=MemorySwapMax=0",
                    "--property=RuntimeMaxSec=\((hook.timeout + ContentHook.grace).nanoseconds / 1_000_000)ms", "--"] + argv
            executable = scope
            limitAddressSpace = false
        }
        return HookJob(id: id, hook: hook, argv: argv, program: executable, limitAddressSpace: limitAddressSpace,
                       environment: env, directory: stateDirectory, input: json, original: content)
    }

    /// systemd-run, when a systemd user manager is reachable (its private socket is in XDG_RUNTIME_DIR): the hook
    /// then runs in a transient scope with MemoryMax= and RuntimeMaxSec=, which also count its children.
    static func scopeRunner(_ environment: [String: String]) -> String? {
        guard let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else { return nil }
        var info = stat()
        guard stat(runtime + "/systemd/private", &info) == 0, info.st_mode & S_IFMT == S_IFSOCK else { return nil }
        return ProgramPath.locate("systemd-run", path: environment["PATH"])
    }
}
