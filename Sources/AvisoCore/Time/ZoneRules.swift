/// How a local civil time maps to instants in a zone.
public enum LocalResolution: Hashable, Sendable {
    /// The local time happens exactly once.
    case unique(WallTime)
    /// The local time does not exist that day (clocks jumped over it); `firstAfter` is the transition instant,
    /// the first moment after the gap.
    case gap(skipped: CivilDateTime, firstAfter: WallTime)
    /// The local time happens twice (clocks were set back); `first` < `second`.
    case overlap(first: WallTime, second: WallTime)
}

/// The rules of one time zone: its UTC offsets and abbreviations over time, from the system tz database.
///
/// A value, passed in wherever local time matters; the core never consults `TZ` or /etc/localtime. The daemon
/// reads the TZif bytes and calls `parse(tzif:name:)`. Instants after the file's last transition follow its
/// POSIX TZ footer, so far-future dates (2100) get the right daylight-saving time. Offsets are whole seconds.
public struct ZoneRules: Hashable, Sendable, CustomStringConvertible {
    /// The zone's name as given when loading it ("Europe/Madrid", "UTC", "localtime").
    public let name: String

    struct LocalType: Hashable, Sendable {
        var offset: Int
        var isDST: Bool
        var abbreviation: String
    }

    private let transitions: [Int64]
    private let transitionTypes: [Int]
    private let types: [LocalType]
    /// The TZif footer's rule, or UTC when the file has none. Not optional, so that reading it does not copy it
    /// (an optional's payload is copied, abbreviations and all, to be unwrapped).
    private let footer: PosixTimeZone
    /// From this instant on (seconds since the epoch) the footer's rule decides: the last transition, or never.
    private let footerFrom: Int64

    private static let noFooter = PosixTimeZone(standard: .init(abbreviation: "UTC", offset: 0))

    private init(name: String, transitions: [Int64], transitionTypes: [Int], types: [LocalType], footer: PosixTimeZone?) {
        self.name = name
        self.transitions = transitions
        self.transitionTypes = transitionTypes
        self.types = types
        self.footer = footer ?? Self.noFooter
        footerFrom = footer == nil ? .max : (transitions.last ?? .min)
    }

    /// Reads the rules from the bytes of a TZif file (/usr/share/zoneinfo/NAME), versions 1 to 4.
    ///
    /// Throws `.timeZone` naming the zone and what is wrong with the file.
    public static func parse(tzif: [UInt8], name: String) throws(ValidationError) -> ZoneRules {
        let file: TZif
        do {
            file = try TZif(bytes: tzif)
        } catch {
            throw ValidationError(.timeZone, "time zone '\(name)' cannot be used: \(error.reason)")
        }
        return ZoneRules(name: name, transitions: file.transitions, transitionTypes: file.transitionTypes,
                         types: file.types, footer: file.footer)
    }

    /// Coordinated Universal Time.
    public static let utc = fixed(offsetSeconds: 0, name: "UTC")

    /// A zone that is always `offsetSeconds` east of UTC (as "+01:00" in a date), abbreviated as `name`.
    public static func fixed(offsetSeconds: Int, name: String) -> ZoneRules {
        ZoneRules(name: name, transitions: [], transitionTypes: [],
                  types: [LocalType(offset: offsetSeconds, isDST: false, abbreviation: name)], footer: nil)
    }

    /// The zone's name.
    public var description: String { name }

    /// Which of `types` is in force at `s` seconds since the epoch; nil when the footer's rule decides (after the last
    /// transition).
    private func typeIndex(atSeconds s: Int64) -> Int? {
        if s >= footerFrom { return nil }
        // RFC 8536: before the first transition, the first local time type applies.
        guard let first = transitions.first, s >= first else { return 0 }
        // The last transition at or before s.
        var lo = 0
        var hi = transitions.count
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if transitions[mid] <= s { lo = mid } else { hi = mid }
        }
        return transitionTypes[lo]
    }

    private func localType(atSeconds s: Int64) -> LocalType {
        if let i = typeIndex(atSeconds: s) { return types[i] }
        let z = footer.zone(at: s)
        return LocalType(offset: z.offset, isDST: z.offset != footer.standard.offset, abbreviation: z.abbreviation)
    }

    /// Seconds east of UTC in force at `at`.
    public func offset(at: WallTime) -> Int { offsetAndDaylightSaving(atSeconds: at.seconds).offset }

    /// The offset and the daylight-saving flag in force at `s` seconds since the epoch, without the abbreviation
    /// (copying a string costs more than the search, in the calendar search that asks this on every step).
    func offsetAndDaylightSaving(atSeconds s: Int64) -> (offset: Int, isDaylightSaving: Bool) {
        if let i = typeIndex(atSeconds: s) { return (types[i].offset, types[i].isDST) }
        return footer.offsetAndDaylightSaving(at: s)
    }

    /// The abbreviation in force at `at` ("CET", "EDT", "+1030").
    public func abbreviation(at: WallTime) -> String { localType(atSeconds: at.seconds).abbreviation }

    /// Whether daylight-saving time is in force at `at` (per the tz database's flag).
    public func isDaylightSaving(at: WallTime) -> Bool { offsetAndDaylightSaving(atSeconds: at.seconds).isDaylightSaving }

    /// The local civil date and time at `at`.
    public func civil(at: WallTime) -> CivilDateTime {
        let s = at.seconds
        let nanos = Int(at.nanoseconds - s * 1_000_000_000)
        return CivilDateTime(secondsSinceEpoch: s + Int64(offset(at: at)), nanosecond: nanos)
    }

    /// The first instant after `after` at which the offset or abbreviation changes, or nil if it never does.
    ///
    /// The daemon arms a timer for it so that floating local-time deadlines are re-planned at DST changes.
    public func nextTransition(after: WallTime) -> WallTime? {
        let s = after.seconds
        let current = localType(atSeconds: s)
        var lo = 0
        var hi = transitions.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if transitions[mid] <= s { lo = mid + 1 } else { hi = mid }
        }
        for i in lo..<transitions.count where types[transitionTypes[i]] != current {
            return WallTime(seconds: transitions[i])
        }
        guard footerFrom != .max else { return nil }
        let from = max(s, transitions.last ?? s)
        return footer.nextChange(after: from).map { WallTime(seconds: $0) }
    }

    /// The instants at which `local` occurs: once, not at all (a DST gap) or twice (clocks set back).
    ///
    /// `local` should be valid (`isValid`); its nanoseconds are carried over. The search is bounded: it looks at
    /// the offsets in force a day either side, which covers every zone that changes offset at most once a day.
    public func resolve(_ local: CivilDateTime) -> LocalResolution {
        let l = local.secondsSinceEpoch
        let nanos = Int64(local.nanosecond)
        func offsetAt(_ s: Int64) -> Int { offsetAndDaylightSaving(atSeconds: s).offset }
        let before = offsetAt(l &- 86_400)
        let after = offsetAt(l &+ 86_400)
        // Each distinct offset in force nearby that maps back to `local` gives one instant (no set or array is
        // allocated: this runs on every step of a calendar search).
        let a = offsetAt(l &- Int64(before))
        // The usual case: one offset all around, and `local` maps back through it.
        if a == before && after == before { return .unique(WallTime(seconds: l &- Int64(a)) + Span(nanoseconds: nanos)) }
        let b = offsetAt(l &- Int64(after))
        var count = 0
        var first = Int64.max
        var last = Int64.min
        func consider(_ o: Int) {
            let u = l &- Int64(o)
            guard offsetAt(u) == o else { return }
            count += 1
            first = min(first, u)
            last = max(last, u)
        }
        consider(before)
        if after != before { consider(after) }
        if a != before && a != after { consider(a) }
        if b != before && b != after && b != a { consider(b) }
        func wall(_ s: Int64) -> WallTime { WallTime(seconds: s) + Span(nanoseconds: nanos) }
        if count == 1 { return .unique(wall(first)) }
        if count >= 2 { return .overlap(first: wall(first), second: wall(last)) }
        guard before < after else {
            // Not a simple forward jump (several changes within a day); fall back to the later offset.
            return .unique(wall(l &- Int64(after)))
        }
        // The transition lies in (l - after, l - before]: find the first second with the new offset.
        var lo = l - Int64(after)
        var hi = l - Int64(before)
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2
            if offsetAt(mid) == before { lo = mid } else { hi = mid }
        }
        return .gap(skipped: local, firstAfter: WallTime(seconds: hi))
    }
}
