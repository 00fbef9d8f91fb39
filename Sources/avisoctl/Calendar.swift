import AvisoCore
import AvisoProtocol
import Glibc

/// `avisoctl calendar`: normalises specs and prints their next elapses, like `systemd-analyze calendar`; no daemon.
enum CalendarVerb {
    static let help = """
        Usage: avisoctl calendar [--iterations N] [--base-time TIME] [--dst aviso|systemd] [--json] SPEC...

        Print the normalised form and the next elapses of OnCalendar specs, as 'systemd-analyze calendar' does.
        Local time is $TZ, else /etc/localtime. --dst systemd reproduces systemd exactly; the default, aviso, shows
        what aviso will do at DST changes (no day skipped, nothing twice).

          --iterations N    Show N elapses (default 1)
          --base-time TIME  Compute from TIME instead of now: 'YYYY-MM-DD HH:MM[:SS] [ZONE]', or '@EPOCH[.FRACTION]'
                            (seconds since 1970, as systemd-analyze takes it)
          --dst POLICY      aviso (default) or systemd
          --json            An array of {"spec", "normalized", "next": [ISO 8601 UTC, with microseconds when an
                            elapse has a fraction of a second]}
        """

    static let options: [Arguments.Option] = [
        .init(names: ["--iterations"], takesValue: true), .init(names: ["--base-time"], takesValue: true),
        .init(names: ["--dst"], takesValue: true), .init(names: ["--json"], takesValue: false),
    ]

    struct Answer: Encodable {
        var spec: String
        var normalized: String
        var next: [String]
    }

    static func run(_ argv: [String], _ context: Context) {
        let a = Arguments(argv, verb: "calendar", options: options)
        guard !a.positionals.isEmpty else { Output.fail(2, "calendar needs at least one SPEC") }
        let iterations = a.value("--iterations").map { Int($0) ?? -1 } ?? 1
        guard iterations >= 1 else { Output.fail(2, "--iterations: give a positive number") }
        guard let policy = DSTPolicy(rawValue: a.value("--dst") ?? "aviso") else {
            Output.fail(2, "--dst: '\(a.value("--dst")!)' is not aviso or systemd")
        }
        let env = ProcessEnvironment.current
        let local = ZoneDatabase.local(environment: env)
        let now: WallTime
        if let base = a.value("--base-time") {
            do throws(ValidationError) {
                if let epoch = try DateTimeInput.parseEpoch(base) { now = epoch } else {
                    now = try DateTimeInput.parse(base, localZone: local, loadZone: { ZoneDatabase.load($0, environment: env) })
                }
            } catch { Output.fail(2, "--base-time: \(error.message)") }
        } else {
            var ts = timespec()
            clock_gettime(CLOCK_REALTIME, &ts)
            now = WallTime(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
        }
        var answers: [Answer] = []
        var failed = false
        for (index, text) in a.positionals.enumerated() {
            let spec: CalendarSpec
            do {
                spec = try CalendarSpec.parse(text, isZone: { ZoneDatabase.load($0, environment: env) != nil })
            } catch {
                FileHandleOut.stderr("avisoctl: \(error.message)\n")
                failed = true
                continue
            }
            let zone = spec.zone.flatMap { ZoneDatabase.load($0, environment: env) } ?? local
            var next: [WallTime] = []
            var at = now
            while next.count < iterations, let n = spec.nextElapse(after: at, in: zone, policy: policy) {
                next.append(n)
                at = n
            }
            answers.append(Answer(spec: text, normalized: spec.normalized, next: next.map(ISO8601.formatMicroseconds)))
            if a.has("--json") { continue }
            if index > 0 { Output.line() }
            if text != spec.normalized { Output.line("  Original form: \(text)") }
            Output.line("Normalized form: \(spec.normalized)")
            if next.isEmpty { Output.line("    Next elapse: never") }
            for (k, t) in next.enumerated() {
                let label = k == 0 ? "    Next elapse" : "       Iter. #\(k + 1)"
                Output.line("\(label): \(show(t, local))")
                // As systemd-analyze: the UTC line only where local time is not UTC.
                if local.offset(at: t) != 0 || local.abbreviation(at: t) != "UTC" {
                    Output.line("       (in UTC): \(show(t, .utc))")
                }
                Output.line("       From now: \(LocalTime.relative(t, LocalTime.clockNow()))")
            }
        }
        if a.has("--json") { Output.json(answers) }
        if failed { exit(1) }
    }

    static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

    /// "Mon 2024-03-11 02:30:00 EDT", as systemd prints timestamps.
    static func show(_ t: WallTime, _ zone: ZoneRules) -> String {
        let c = zone.civil(at: t)
        let d = CivilDateTime(year: c.year, month: c.month, day: c.day, hour: c.hour, minute: c.minute, second: c.second)
        return "\(days[c.weekday]) \(d.description) \(zone.abbreviation(at: t))"
    }
}
