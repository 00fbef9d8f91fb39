import AvisoCore
import AvisoProtocol

/// `avisoctl log`: an item was done.
enum LogItem {
    static let help = """
        Usage: avisoctl log NAME [--at TIME] [--count N]

        Log that the item NAME was done, and re-plan its reminders from the log at once. Its popups on screen close,
        and a snooze of it ends.

          --at TIME     When it was done, if not now: 'HH:MM' today, or 'YYYY-MM-DD HH:MM[:SS]' (local time; a zone
                        or offset may follow). Not in the future.
          --count N     How many (two glasses at once: 2); default 1

        Examples:
          avisoctl log water
          avisoctl log haircut --at "2026-11-02 18:40"
        """

    static func run(_ argv: [String], _ context: Context) {
        let a = Arguments(argv, verb: "log", options: [
            .init(names: ["--at"], takesValue: true), .init(names: ["--count"], takesValue: true),
        ])
        guard a.positionals.count == 1 else { Output.fail(2, "log needs one item name (see 'avisoctl log --help')") }
        var count: Int?
        if let text = a.value("--count") {
            guard let n = Int(text), n > 0 else { Output.fail(2, "--count '\(text)' is not a whole number above zero") }
            count = n
        }
        let command = Command.log(item: a.positionals[0], at: a.value("--at").map(time), count: count)
        guard case .item(let info) = context.send(command) else { Output.fail(1, "unexpected reply") }
        Output.line(Items.summary(info))
    }

    /// 'HH:MM' is today in the local zone; anything else is a date and time.
    private static func time(_ text: String) -> WallTime {
        let env = ProcessEnvironment.current
        let zone = ZoneDatabase.local(environment: env)
        var full = text
        if text.count <= 5, text.contains(":"), !text.contains("-") {
            let c = zone.civil(at: LocalTime.clockNow())
            func pad(_ n: Int, _ w: Int = 2) -> String { String(repeating: "0", count: max(0, w - String(n).count)) + String(n) }
            full = "\(pad(c.year, 4))-\(pad(c.month))-\(pad(c.day)) \(text.count == 4 ? "0" + text : text)"
        }
        do {
            return try DateTimeInput.parse(full, localZone: zone, loadZone: { ZoneDatabase.load($0, environment: env) })
        } catch { Output.fail(2, "--at: \(error.message)") }
    }
}
