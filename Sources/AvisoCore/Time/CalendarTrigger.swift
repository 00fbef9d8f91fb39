/// A calendar trigger as stored in a request: the spec as the user wrote it, its zone, and its DST policy.
///
/// `zone == nil` is floating: the spec follows the machine's local zone, also after it changes (09:00 stays 09:00
/// local after a flight). A zone name anchors it. A spec that names its own zone ("... Europe/Madrid") has
/// `zone == nil` here; giving both is refused by validation.
public struct CalendarTrigger: Hashable, Sendable, Codable {
    /// The OnCalendar text as given ("Mon..Fri 09:00").
    public var spec: String { fields.spec }
    /// The anchoring zone name, or nil for floating.
    public var zone: String? { fields.zone }
    /// What happens at DST changes.
    public var policy: DSTPolicy { fields.policy }

    /// Everything behind one pointer, the spec parsed once (not at every elapse; nil when it does not parse): a
    /// model may hold 100,000 triggers, each part of its request, and equal ones read from files share one box.
    private let fields: Fields

    private final class Fields: Sendable {
        let spec: String
        let zone: String?
        let policy: DSTPolicy
        let parsed: CalendarSpec?

        init(spec: String, zone: String?, policy: DSTPolicy, parsed: CalendarSpec?) {
            self.spec = spec
            self.zone = zone
            self.policy = policy
            self.parsed = parsed
        }
    }

    /// Creates a calendar trigger; the spec is checked by `Request.validate`, not here.
    public init(spec: String, zone: String? = nil, policy: DSTPolicy = .aviso) {
        fields = Fields(spec: spec, zone: zone, policy: policy, parsed: try? CalendarSpec.parse(spec))
    }

    /// Creates a calendar trigger from a spec already parsed (`parsed` is `spec` parsed).
    public init(spec: String, parsed: CalendarSpec, zone: String? = nil, policy: DSTPolicy = .aviso) {
        fields = Fields(spec: spec, zone: zone, policy: policy, parsed: parsed)
    }

    private enum CodingKeys: String, CodingKey { case spec, zone, policy }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(spec: try c.decode(String.self, forKey: .spec), zone: try c.decodeIfPresent(String.self, forKey: .zone),
                  policy: try c.decode(DSTPolicy.self, forKey: .policy))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(spec, forKey: .spec)
        try c.encodeIfPresent(zone, forKey: .zone)
        try c.encode(policy, forKey: .policy)
    }

    /// Equal when written the same way; the parsed form follows from the text.
    public static func == (a: CalendarTrigger, b: CalendarTrigger) -> Bool {
        a.fields === b.fields || (a.spec == b.spec && a.zone == b.zone && a.policy == b.policy)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(spec)
        hasher.combine(zone)
        hasher.combine(policy)
    }

    /// The same for every copy of this trigger, and for the equal triggers read from files, which share one box: a
    /// key found without hashing the text. Equal triggers made apart have different ones.
    public var identity: ObjectIdentifier { ObjectIdentifier(fields) }

    /// The parsed spec, or the parse error.
    public func parsed() throws(ValidationError) -> CalendarSpec {
        if let spec = fields.parsed { return spec }
        return try CalendarSpec.parse(spec)
    }

    /// The zone name that decides local time: the trigger's, else the spec's own, else nil (the local zone).
    public var effectiveZone: String? {
        if let zone { return zone }
        return fields.parsed?.zone
    }

    /// The next elapse strictly after `after`, with the zones of `zones`; nil when the spec never elapses again
    /// (within `WallTime.latestSupported`), does not parse, or names a zone that cannot be loaded.
    public func nextElapse(after: WallTime, zones: ZoneContext) -> WallTime? {
        guard let spec = fields.parsed else { return nil }
        let rules: ZoneRules
        if let name = zone ?? spec.zone {
            guard let named = zones.named(name) else { return nil }
            rules = named
        } else {
            rules = zones.local
        }
        return spec.nextElapse(after: after, in: rules, policy: policy).flatMap { $0.isSupported ? $0 : nil }
    }
}
