/// When a request fires.
///
/// Calendar triggers (systemd's OnCalendar language) will join these; the cases are matched exhaustively only
/// inside AvisoCore so that adding one is a local change.
public enum Trigger: Hashable, Sendable, Codable {
    /// After an elapsed time, on CLOCK_BOOTTIME; repeating triggers need at least 60 seconds.
    case interval(Span, repeats: Bool)
    /// At a wall-clock instant, once.
    case date(WallTime)
    /// At the elapses of an OnCalendar spec, on the wall clock; always repeats (until the spec stops elapsing).
    case calendar(CalendarTrigger)

    public var repeats: Bool {
        switch self {
        case .interval(_, let r): r
        case .date: false
        case .calendar: true
        }
    }
}

extension Trigger {
    private enum Key: String, CodingKey { case kind, seconds, nanoseconds, repeats, at, spec, zone, dst }

    /// JSON: `{"kind":"interval","nanoseconds":600000000000,"repeats":false}` or `{"kind":"date","at":N}` with N in
    /// nanoseconds since the epoch, or `{"kind":"calendar","spec":"Mon..Fri 09:00","zone":null,"dst":"aviso"}`
    /// (`zone` and `dst` optional; `dst` defaults to "aviso").
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        switch try c.decode(String.self, forKey: .kind) {
        case "interval":
            self = .interval(Span(nanoseconds: try c.decode(Int64.self, forKey: .nanoseconds)),
                             repeats: try c.decodeIfPresent(Bool.self, forKey: .repeats) ?? false)
        case "date":
            self = .date(try c.decode(WallTime.self, forKey: .at))
        case "calendar":
            self = .calendar(CalendarTrigger(
                spec: try c.decode(String.self, forKey: .spec), zone: try c.decodeIfPresent(String.self, forKey: .zone),
                policy: try c.decodeIfPresent(DSTPolicy.self, forKey: .dst) ?? .aviso))
        case let other:
            throw DecodingError.dataCorruptedError(forKey: .kind, in: c, debugDescription: "unknown trigger kind '\(other)'")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        switch self {
        case .interval(let span, let repeats):
            try c.encode("interval", forKey: .kind)
            try c.encode(span.nanoseconds, forKey: .nanoseconds)
            try c.encode(repeats, forKey: .repeats)
        case .date(let at):
            try c.encode("date", forKey: .kind)
            try c.encode(at, forKey: .at)
        case .calendar(let t):
            try c.encode("calendar", forKey: .kind)
            try c.encode(t.spec, forKey: .spec)
            try c.encode(t.zone, forKey: .zone)
            try c.encode(t.policy, forKey: .dst)
        }
    }
}
