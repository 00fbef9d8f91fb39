import AvisoCore
import AvisoProtocol
import Glibc

/// Shows the daemon's UTC instants in the user's local zone, as people read them.
enum LocalTime {
    nonisolated(unsafe) private static var zone: ZoneRules = {
        ZoneDatabase.local(environment: Dictionary(ProcessEnvironment.all(), uniquingKeysWith: { _, last in last }))
    }()

    /// "2026-12-01 09:00:00 CET" for an ISO 8601 UTC string; the string itself if it does not parse.
    static func show(_ iso: String) -> String {
        guard let t = ISO8601.parse(iso) else { return iso }
        let c = zone.civil(at: t)
        return "\(pad(c.year, 4))-\(pad(c.month))-\(pad(c.day)) \(pad(c.hour)):\(pad(c.minute)):\(pad(c.second)) "
            + zone.abbreviation(at: t)
    }

    /// "in 9min 58s" or "2min ago", from this machine's clock.
    static func relative(_ iso: String) -> String {
        guard let t = ISO8601.parse(iso) else { return "" }
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        let now = WallTime(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
        let seconds = (t - now).nanoseconds / 1_000_000_000
        if seconds == 0 { return "now" }
        let text = TimeSpan.format(.seconds(abs(seconds)))
        return seconds > 0 ? "in " + text : text + " ago"
    }

    private static func pad(_ n: Int, _ width: Int = 2) -> String {
        let s = String(n)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }
}
