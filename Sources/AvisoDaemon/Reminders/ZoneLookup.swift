import AvisoCore
import AvisoProtocol
import Synchronization

/// Where reminder files get zone rules: the local zone for times without a zone, and zones by name.
public struct ZoneLookup: Sendable {
    /// The machine's local zone now (read again at every parse, so a zone change is seen on the next reload).
    public var local: @Sendable () -> ZoneRules
    /// The rules of a named zone, or nil when the tz database has no such zone.
    public var load: @Sendable (String) -> ZoneRules?
    /// Forgets the cached local zone; called when /etc/localtime changes.
    public var localChanged: @Sendable () -> Void

    public init(
        local: @escaping @Sendable () -> ZoneRules, load: @escaping @Sendable (String) -> ZoneRules?,
        localChanged: @escaping @Sendable () -> Void = {}
    ) {
        self.local = local
        self.load = load
        self.localChanged = localChanged
    }

    /// The system's tz database, with `TZ`/`TZDIR` taken from `environment` and the local zone from
    /// `localtimePath` (/etc/localtime).
    ///
    /// Rules are read once and cached: a model of 100,000 reminders would otherwise read a TZif file for each one.
    /// The local zone is read again after `localChanged()`; named zones are kept until the daemon restarts (a
    /// tzdata update takes effect then).
    public static func system(environment: [String: String], localtimePath: String = "/etc/localtime") -> ZoneLookup {
        let cache = ZoneCache()
        return ZoneLookup(
            local: {
                if let cached = cache.state.withLock({ $0.local }) { return cached }
                let rules = ZoneDatabase.local(environment: environment, localtimePath: localtimePath)
                cache.state.withLock { $0.local = rules }
                return rules
            },
            load: { name in
                if let cached = cache.state.withLock({ $0.named[name] }) { return cached }
                let rules = ZoneDatabase.load(name, environment: environment)
                cache.state.withLock { $0.named[name] = rules }
                return rules
            },
            localChanged: { cache.state.withLock { $0.local = nil } })
    }
}

extension ZoneLookup {
    /// The zone rules for schedule arithmetic, with the local zone as it is now.
    public func context() -> ZoneContext {
        ZoneContext(local: local(), named: load)
    }
}

/// Zone rules already read, shared by the closures of `ZoneLookup.system`.
private final class ZoneCache: Sendable {
    let state = Mutex<(local: ZoneRules?, named: [String: ZoneRules?])>((nil, [:]))
}
