import AvisoCore
import AvisoProtocol

/// `avisoctl status`: what the daemon is doing.
enum Status {
    static let help = """
        Usage: avisoctl status [--json]

        Show version, uptime, armed and total requests, the next fire, the notification server (name, version and
        capabilities), deliveries waiting and why, popups the server has not answered yet, configuration errors,
        and problems with the database (damage repaired at start, rows set aside, writes that fail).

          --json   One object with version, uptimeSeconds, armed, total, window, nextFire, nextID, server, waiting,
                   waitingReason, sending, configErrors and storage
        """

    static func run(_ argv: [String], _ context: Context) {
        let a = Arguments(argv, verb: "status", options: [.init(names: ["--json"], takesValue: false)])
        if let extra = a.positionals.first { Output.fail(2, "unexpected argument '\(extra)'") }
        guard case .status(let s) = context.send(.status) else { Output.fail(1, "unexpected reply") }
        if a.has("--json") { return Output.json(s) }
        let uptime = s.uptimeSeconds.isFinite ? Int64(clamping: Int(max(0, min(s.uptimeSeconds, 1e15)))) : 0
        Output.line("avisod \(s.version), up \(TimeSpan.format(.seconds(uptime)))")
        Output.line("Requests: \(s.armed) armed of \(s.total) (window \(s.window))")
        if let next = s.nextFire {
            Output.line("Next: \(s.nextID ?? "?") at \(LocalTime.show(next)) (\(LocalTime.relative(next)))")
        } else {
            Output.line("Next: nothing scheduled")
        }
        if let server = s.server {
            Output.line("Server: \(server.name) \(server.version) by \(server.vendor) (spec \(server.specVersion))")
            Output.line("Capabilities: \(server.capabilities.joined(separator: " "))")
        } else {
            Output.line("Server: none on the session bus")
        }
        if s.waiting > 0 {
            Output.line("Waiting: \(s.waiting) due notification(s): \(s.waitingReason ?? "retrying")")
        }
        if let sending = s.sending, sending > 0 {
            Output.line("Sending: \(sending) popup(s) sent, waiting for the server to answer")
        }
        for p in s.configErrors { Output.line("Config error: \(p)") }
        for p in s.storage ?? [] { Output.line("Storage: \(p)") }
    }
}
