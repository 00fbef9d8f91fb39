import AvisoCore
import AvisoProtocol

/// Where reminder files get zone rules: the local zone for times without a zone, and zones by name.
public struct ZoneLookup: Sendable {
    /// The machine's local zone now (read again at every parse, so a zone change is seen on the next reload).
    public var local: @Sendable () -> ZoneRules
    /// The rules of a named zone, or nil when the tz database has no such zone.
    public var load: @Sendable (String) -> ZoneRules?

    public init(local: @escaping @Sendable () -> ZoneRules, load: @escaping @Sendable (String) -> ZoneRules?) {
        self.local = local
        self.load = load
    }

    /// The system's tz database, with `TZ`/`TZDIR` taken from `environment` and the local zone from
    /// `localtimePath` (/etc/localtime).
    public static func system(environment: [String: String], localtimePath: String = "/etc/localtime") -> ZoneLookup {
        ZoneLookup(
            local: { ZoneDatabase.local(environment: environment, localtimePath: localtimePath) },
            load: { ZoneDatabase.load($0, environment: environment) })
    }
}

extension ZoneLookup {
    /// The zone rules for schedule arithmetic, with the local zone as it is now.
    public func context() -> ZoneContext {
        ZoneContext(local: local(), named: load)
    }
}
