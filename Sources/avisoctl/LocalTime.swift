import AvisoCore
import AvisoProtocol
import Glibc

/// Shows the daemon's UTC instants in the user's local zone, as people read them.
enum LocalTime {
    nonisolated(unsafe) private static var zone: ZoneRules = {
        ZoneDatabase.local(environment: ProcessEnvironment.current)
    }()

    /// "2026-12-01 09:00:00 CET" for an ISO 8601 UTC string; the string itself if it does not parse.
    static func show(_ iso: String) -> String {
        guard let t = ISO8601.parse(iso) else { return iso }
        let c = zone.civil(at: t)
        return "\(pad(c.year, 4))-\(pad(c.month))-\(pad(c.day)) \(pad(c.hour)):\(pad(c.minute)):\(pad(c.second)) "
            + zone.abbreviation(at: t)
    }

    /// "1h 59min left" or "2min ago" for an ISO 8601 UTC string, as systemd says it, from this machine's clock.
    static func relative(_ iso: String) -> String {
        guard let t = ISO8601.parse(iso) else { return "" }
        return relative(t, clockNow())
    }

    /// This machine's wall clock: systemd-analyze measures "From now" from the real now, whatever --base-time says.
    static func clockNow() -> WallTime {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return WallTime(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }

    /// systemd's relative timestamp: "1 day 6h left", "3 months 13 days left", "5min ago".
    static func relative(_ t: WallTime, _ now: WallTime) -> String {
        let future = t >= now
        let suffix = future ? "left" : "ago"
        let d = abs((t - now).nanoseconds) / 1000
        let sec: Int64 = 1_000_000, minute = 60 * sec, hour = 60 * minute, day = 24 * hour
        let week = 7 * day, month = 2_629_800 * sec, year = 31_557_600 * sec
        func unit(_ n: Int64, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }
        switch d {
        case year...: return "\(unit(d / year, "year", "years")) \(unit(d % year / month, "month", "months")) \(suffix)"
        case month...: return "\(unit(d / month, "month", "months")) \(unit(d % month / day, "day", "days")) \(suffix)"
        case week...: return "\(unit(d / week, "week", "weeks")) \(unit(d % week / day, "day", "days")) \(suffix)"
        case (2 * day)...: return "\(d / day) days \(suffix)"
        case (25 * hour)...: return "1 day \((d - day) / hour)h \(suffix)"
        case (6 * hour)...: return "\(d / hour)h \(suffix)"
        case hour...: return "\(d / hour)h \(d % hour / minute)min \(suffix)"
        case (5 * minute)...: return "\(d / minute)min \(suffix)"
        case minute...: return "\(d / minute)min \(d % minute / sec)s \(suffix)"
        case sec...: return "\(d / sec)s \(suffix)"
        case 1000...: return "\(d / 1000)ms \(suffix)"
        case 1...: return "\(d)us \(suffix)"
        default: return "now"
        }
    }

    private static func pad(_ n: Int, _ width: Int = 2) -> String {
        let s = String(n)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }
}
