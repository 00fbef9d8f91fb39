import AvisoCore
import AvisoProtocol
import FoundationEssentials
import Glibc

/// `avisoctl add`: builds a request from options and sends it; prints the identifier.
enum Add {
    static let help = """
        Usage: avisoctl add [--id ID] [--title T] [--subtitle S] [--body B]
                            (--in SPAN [--repeat] | --at TIME | --on SPEC [--tz ZONE|local] [--dst aviso|systemd])
                            [--thread ID] [--category NAME] [--relevance X] [--level L]
                            [--image PATH] [--data KEY=VALUE]... [--max-late SPAN] [--priority N] [--summary]

        Schedule a notification and print its identifier. Adding an identifier that exists replaces it.

          --id ID           Stable identifier (generated when not given); at most 255 bytes, no control characters
          --title T         Summary line of the popup
          --subtitle S      Second line, shown bold where the server supports markup
          --body B          Body text (a title or a body is required)
          --in SPAN         Fire after SPAN of elapsed time, suspend included: 90s, 7min, 1h30min, 2d
          --repeat          With --in: repeat every SPAN (at least 60s)
          --at TIME         Fire at a wall-clock time: 'YYYY-MM-DD HH:MM[:SS]' in local time, optionally followed
                            by a time-zone name or a UTC offset: '2026-12-24 18:00 Europe/Madrid', '... +01:00'
          --on SPEC         Fire at every elapse of an OnCalendar spec: 'Mon..Fri 09:00', '*:0/15', 'daily',
                            '*-*-1 08:00 Europe/Madrid'. Without a zone it follows the machine's local zone
          --tz ZONE|local   Anchor --on to ZONE; 'local' pins the zone in force now
          --dst POLICY      With --on: aviso (default: never skip, never twice) or systemd (as systemd timers)
          --max-late SPAN   Skip an occurrence that would be delivered more than SPAN late (after sleep or downtime);
                            the default is MaxLate= in aviso.conf (no limit unless set)
          --priority N      Priority class 0 (highest) to 99, instead of the one from the identifier's prefix
          --thread ID       Thread: one popup per thread on screen, showing its most relevant notification and
                            how many more it folds in; closing it closes them all
          --category NAME   Category: its actions become the popup's buttons (see 'avisoctl categories'); a
                            freedesktop category such as im.received is sent as the 'category' hint
          --relevance X     Relevance from 0 to 1: notifications released together, and the lines of a
                            summary, come most relevant first
          --level L         passive (quiet, transient), active (default), time-sensitive (breaks through quiet
                            hours, never folded into a summary) or critical (never expires, breaks through all)
          --image PATH      Image shown in the popup (PNG, JPEG, SVG, ... at most 16 MiB): avisod keeps a copy,
                            so the file may change or go before the notification is shown
          --data KEY=VALUE  User data; VALUE is JSON when it parses as JSON, a string otherwise (repeatable)
          --summary         Wait for the next scheduled summary ([Summary] At= in aviso.conf) and arrive in it

        Examples:
          avisoctl add --in 10min --title Tea --body "Take the tea bag out"
          avisoctl add --id water --in 90min --repeat --title "Drink water"
          avisoctl add --at "2026-12-24 18:00" --title "Dinner" --level time-sensitive
        """

    static let options: [Arguments.Option] = [
        .init(names: ["--id"], takesValue: true), .init(names: ["--title"], takesValue: true),
        .init(names: ["--subtitle"], takesValue: true), .init(names: ["--body"], takesValue: true),
        .init(names: ["--in"], takesValue: true), .init(names: ["--repeat"], takesValue: false),
        .init(names: ["--at"], takesValue: true), .init(names: ["--thread"], takesValue: true),
        .init(names: ["--category"], takesValue: true), .init(names: ["--relevance"], takesValue: true),
        .init(names: ["--level"], takesValue: true), .init(names: ["--image"], takesValue: true),
        .init(names: ["--data"], takesValue: true), .init(names: ["--on"], takesValue: true),
        .init(names: ["--tz"], takesValue: true), .init(names: ["--dst"], takesValue: true),
        .init(names: ["--max-late"], takesValue: true), .init(names: ["--priority"], takesValue: true),
        .init(names: ["--summary"], takesValue: false),
    ]

    static func run(_ argv: [String], _ context: Context) {
        let a = Arguments(argv, verb: "add", options: options)
        if let extra = a.positionals.first {
            Output.fail(2, "unexpected argument '\(extra)' (quote values that contain spaces; see 'avisoctl add --help')")
        }
        var values: [String: [String]] = [:]
        for name in RequestOptions.names where a.has("--" + name) { values[name] = a.all("--" + name) }
        values["image"] = values["image"]?.map(absolute)
        let env = ProcessEnvironment.current
        let zones = ZoneContext(local: ZoneDatabase.local(environment: env), named: { ZoneDatabase.load($0, environment: env) })
        let request: Request
        do throws(RequestOptions.Problem) {
            request = try RequestOptions(values).request(zones: zones)
        } catch {
            Output.fail(2, error.message + " (see 'avisoctl add --help')")
        }
        guard case .added(let id) = context.send(.add(request)) else { Output.fail(1, "unexpected reply") }
        Output.line(id)
    }

    /// Relative image paths are taken from the current directory: the daemon does not share it.
    private static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX))
        guard buffer.withUnsafeMutableBufferPointer({ getcwd($0.baseAddress.map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: CChar.self) }, $0.count) }) != nil else { return path }
        return String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self) + "/" + path
    }
}
