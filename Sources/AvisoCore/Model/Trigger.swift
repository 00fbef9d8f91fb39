/// When a request fires.
///
/// Calendar triggers (systemd's OnCalendar language) will join these; the cases are matched exhaustively only
/// inside AvisoCore so that adding one is a local change.
public enum Trigger: Hashable, Sendable, Codable {
    /// After an elapsed time, on CLOCK_BOOTTIME; repeating triggers need at least 60 seconds.
    case interval(Span, repeats: Bool)
    /// At a wall-clock instant, once.
    case date(WallTime)

    public var repeats: Bool {
        switch self {
        case .interval(_, let r): r
        case .date: false
        }
    }
}

extension Trigger {
    private enum Key: String, CodingKey { case kind, seconds, nanoseconds, repeats, at }

    /// JSON: `{"kind":"interval","nanoseconds":600000000000,"repeats":false}` or `{"kind":"date","at":N}` with N in
    /// nanoseconds since the epoch.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        switch try c.decode(String.self, forKey: .kind) {
        case "interval":
            self = .interval(Span(nanoseconds: try c.decode(Int64.self, forKey: .nanoseconds)),
                             repeats: try c.decodeIfPresent(Bool.self, forKey: .repeats) ?? false)
        case "date":
            self = .date(try c.decode(WallTime.self, forKey: .at))
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
        }
    }
}
