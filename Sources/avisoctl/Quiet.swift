import AvisoCore
import AvisoProtocol

/// `avisoctl quiet`: quiet hours, now.
enum Quiet {
    static let help = """
        Usage: avisoctl quiet [on [--for SPAN | --until TIME] | off] [--json]

        Without a command, say whether it is quiet, why, until when, and how many notifications are held. While it is
        quiet, passive and active notifications are held and time-sensitive and critical ones are shown; when it ends,
        the held ones arrive by relevance (more than SummaryThreshold= of them as one summary). Daily quiet hours are
        [Quiet] Hours= in aviso.conf; what you say here lasts across restarts.

          on             Quiet until 'quiet off'
          on --for SPAN  Quiet for a time span: 45min, 2h
          on --until TIME
                         Quiet until a local time, 'YYYY-MM-DD HH:MM[:SS]' (a zone or offset may follow)
          off            Not quiet; inside the daily quiet hours, until they end
          --json         One object with quiet, reason, until (ISO 8601 UTC), hours and held
        """

    static func run(_ argv: [String], _ context: Context) {
        let a = Arguments(argv, verb: "quiet", options: [
            .init(names: ["--for"], takesValue: true), .init(names: ["--until"], takesValue: true),
            .init(names: ["--json"], takesValue: false),
        ])
        let change: QuietChange
        switch a.positionals {
        case []:
            if a.has("--for") || a.has("--until") { Output.fail(2, "--for and --until go with 'quiet on'") }
            change = .state
        case ["off"]:
            if a.has("--for") || a.has("--until") { Output.fail(2, "--for and --until go with 'quiet on'") }
            change = .off
        case ["on"]:
            change = .on(until: until(a))
        default:
            Output.fail(2, "unexpected '\(a.positionals.joined(separator: " "))' (see 'avisoctl quiet --help')")
        }
        guard case .quiet(let q) = context.send(.quiet(change)) else { Output.fail(1, "unexpected reply") }
        if a.has("--json") { return Output.json(q) }
        var line = (q.quiet ? "Quiet" : "Not quiet") + ": " + q.reason
        if let until = q.until { line += "; changes at \(LocalTime.show(until)) (\(LocalTime.relative(until)))" }
        Output.line(line)
        if q.held > 0 { Output.line("Held: \(q.held) notification(s)") }
    }

    private static func until(_ a: Arguments) -> WallTime? {
        switch (a.value("--for"), a.value("--until")) {
        case (nil, nil): return nil
        case (_?, _?): Output.fail(2, "give --for or --until, not both")
        case (let span?, nil):
            do {
                let d = try TimeSpan.parse(span)
                guard d > .zero else { Output.fail(2, "--for: the span must be longer than zero") }
                return LocalTime.clockNow() + d
            } catch { Output.fail(2, "--for: \(error.message)") }
        case (nil, let time?):
            let env = ProcessEnvironment.current
            do {
                return try DateTimeInput.parse(time, localZone: ZoneDatabase.local(environment: env),
                                               loadZone: { ZoneDatabase.load($0, environment: env) })
            } catch { Output.fail(2, "--until: \(error.message)") }
        }
    }
}
