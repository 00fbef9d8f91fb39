/// A calendar trigger as stored in a request: the spec as the user wrote it, its zone, and its DST policy.
///
/// `zone == nil` is floating: the spec follows the machine's local zone, also after it changes (09:00 stays 09:00
/// local after a flight). A zone name anchors it. A spec that names its own zone ("... Europe/Madrid") has
/// `zone == nil` here; giving both is refused by validation.
public struct CalendarTrigger: Hashable, Sendable, Codable {
    /// The OnCalendar text as given ("Mon..Fri 09:00").
    public var spec: String
    /// The anchoring zone name, or nil for floating.
    public var zone: String?
    /// What happens at DST changes.
    public var policy: DSTPolicy

    /// Creates a calendar trigger; the spec is checked by `Request.validate`, not here.
    public init(spec: String, zone: String? = nil, policy: DSTPolicy = .aviso) {
        self.spec = spec
        self.zone = zone
        self.policy = policy
    }

    /// The parsed spec, or the parse error.
    public func parsed() throws(ValidationError) -> CalendarSpec { try CalendarSpec.parse(spec) }

    /// The zone name that decides local time: the trigger's, else the spec's own, else nil (the local zone).
    public var effectiveZone: String? {
        if let zone { return zone }
        return (try? parsed())?.zone
    }

    /// The next elapse strictly after `after`, with the zones of `zones`; nil when the spec never elapses again,
    /// does not parse, or names a zone that cannot be loaded.
    public func nextElapse(after: WallTime, zones: ZoneContext) -> WallTime? {
        guard let spec = try? parsed() else { return nil }
        let rules: ZoneRules
        if let name = zone ?? spec.zone {
            guard let named = zones.named(name) else { return nil }
            rules = named
        } else {
            rules = zones.local
        }
        return spec.nextElapse(after: after, in: rules, policy: policy)
    }
}
