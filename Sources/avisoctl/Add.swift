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
          --image PATH      Image file shown in the popup
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
        var request = Request(id: a.value("--id") ?? generatedID(), content: content(a), trigger: trigger(a))
        if let span = a.value("--max-late") {
            do { request.maxLate = try TimeSpan.parse(span) } catch { Output.fail(2, "--max-late: \(error.message)") }
        }
        if let p = a.value("--priority") {
            guard let n = Int(p), (0...99).contains(n) else { Output.fail(2, "--priority: '\(p)' is not a class from 0 to 99") }
            request.priority = n
        }
        guard case .added(let id) = context.send(.add(request)) else { Output.fail(1, "unexpected reply") }
        Output.line(id)
    }

    private static func trigger(_ a: Arguments) -> Trigger {
        if let on = a.value("--on") { return calendar(on, a) }
        if a.has("--tz") || a.has("--dst") { Output.fail(2, "--tz and --dst go with --on") }
        switch (a.value("--in"), a.value("--at")) {
        case (nil, nil): Output.fail(2, "add needs --in SPAN or --at TIME (see 'avisoctl add --help')")
        case (_?, _?): Output.fail(2, "--in and --at cannot be used together")
        case (let span?, nil):
            do {
                return .interval(try TimeSpan.parse(span), repeats: a.has("--repeat"))
            } catch { Output.fail(2, "--in: \(error.message)") }
        case (nil, let time?):
            if a.has("--repeat") { Output.fail(2, "--repeat goes with --in, not --at") }
            let env = ProcessEnvironment.current
            do {
                let at = try DateTimeInput.parse(
                    time, localZone: ZoneDatabase.local(environment: env),
                    loadZone: { ZoneDatabase.load($0, environment: env) })
                return .date(at)
            } catch { Output.fail(2, "--at: \(error.message)") }
        }
    }

    private static func calendar(_ text: String, _ a: Arguments) -> Trigger {
        if a.has("--in") || a.has("--at") || a.has("--repeat") { Output.fail(2, "--on cannot be used with --in, --at or --repeat") }
        let env = ProcessEnvironment.current
        let spec: CalendarSpec
        do {
            spec = try CalendarSpec.parse(text, isZone: { ZoneDatabase.load($0, environment: env) != nil })
        } catch { Output.fail(2, "--on: \(error.message)") }
        guard let policy = DSTPolicy(rawValue: a.value("--dst") ?? "aviso") else {
            Output.fail(2, "--dst: '\(a.value("--dst")!)' is not aviso or systemd")
        }
        var zone: String?
        if let tz = a.value("--tz") {
            if spec.zone != nil || spec.isUTC { Output.fail(2, "--tz: the spec '\(text)' already names its zone") }
            if tz == "local" {
                zone = ZoneDatabase.local(environment: env).name
            } else {
                guard ZoneDatabase.load(tz, environment: env) != nil else { Output.fail(2, "--tz: unknown time zone '\(tz)'") }
                zone = tz
            }
        }
        return .calendar(CalendarTrigger(spec: text, zone: zone, policy: policy))
    }

    private static func content(_ a: Arguments) -> Content {
        var c = Content(
            title: a.value("--title") ?? "", subtitle: a.value("--subtitle") ?? "", body: a.value("--body") ?? "",
            threadID: a.value("--thread"), categoryID: a.value("--category"), image: a.value("--image").map(absolute),
            delivery: a.has("--summary") ? .summary : nil)
        if let r = a.value("--relevance") {
            guard let x = Double(r), x.isFinite else { Output.fail(2, "--relevance: '\(r)' is not a number (expected 0 to 1)") }
            c.relevance = x
        }
        if let l = a.value("--level") {
            do { c.level = try InterruptionLevel.parse(l) } catch { Output.fail(2, "--level: \(error.message)") }
        }
        for pair in a.all("--data") {
            guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex else {
                Output.fail(2, "--data: '\(pair)' is not KEY=VALUE")
            }
            let value = String(pair[pair.index(after: eq)...])
            c.userInfo[String(pair[..<eq])] =
                (try? JSONDecoder().decode(JSONValue.self, from: Data(value.utf8))) ?? .string(value)
        }
        return c
    }

    /// Relative image paths are taken from the current directory: the daemon does not share it.
    private static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX))
        guard buffer.withUnsafeMutableBufferPointer({ getcwd($0.baseAddress.map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: CChar.self) }, $0.count) }) != nil else { return path }
        return String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self) + "/" + path
    }

    /// A random identifier like "aviso-3f9c2a71d04e".
    private static func generatedID() -> String {
        let n = UInt64.random(in: 0..<(1 << 48))
        let hex = String(n, radix: 16)
        return "aviso-" + String(repeating: "0", count: 12 - hex.count) + hex
    }
}
