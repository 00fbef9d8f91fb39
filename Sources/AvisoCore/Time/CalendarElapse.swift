extension CalendarSpec {
    /// The first instant strictly after `after` at which the event elapses, or nil if it never does again.
    ///
    /// `zone` gives the local time the spec is read in: pass the rules of `zone` (the name in the spec) when there
    /// is one, else the machine's local zone; a spec in UTC ignores it. Resolution is one microsecond, as systemd's.
    /// `policy` decides what happens at DST changes (see `DSTPolicy`). The search is bounded: impossible specs such
    /// as `*-02-30` and specs past the year 2199 return nil.
    public func nextElapse(after: WallTime, in zone: ZoneRules, policy: DSTPolicy) -> WallTime? {
        let afterMicros = CivilDateTime.floorDiv(after.nanoseconds, 1_000)
        if utc {
            var search = CalendarSearch(spec: self, zone: nil)
            return search.next(fromMicros: afterMicros + 1).map(Self.wallTime(micros:))
        }
        switch policy {
        case .systemd:
            var search = CalendarSearch(spec: self, zone: zone)
            return search.next(fromMicros: afterMicros + 1).map(Self.wallTime(micros:))
        case .aviso:
            return avisoElapse(after: after, afterMicros: afterMicros, zone: zone)
        }
    }

    private static func wallTime(micros: Int64) -> WallTime { WallTime(nanoseconds: Saturating.multiply(micros, 1_000)) }

    /// The `aviso` policy: walk the matching local civil times in order and map each to instants.
    private func avisoElapse(after: WallTime, afterMicros: Int64, zone: ZoneRules) -> WallTime? {
        // Any instant later than `after` shows a local time at least `after + lowest offset nearby`, so local
        // times before that cannot map after `after` (offsets change at most once a day in the tz database).
        let day = Span.seconds(86_400)
        let offsets = (zone.offset(at: after), zone.offset(at: after + day), zone.offset(at: after + day + day))
        var from = afterMicros + 1 + Int64(min(offsets.0, offsets.1, offsets.2)) * 1_000_000
        let high = Int64(max(offsets.0, offsets.1, offsets.2))
        var civil = CalendarSearch(spec: self, zone: nil)
        let cadence = repeatsEveryHour
        // In a repeated hour local order is not instant order, so keep the earliest instant found until no later
        // local time can map before it. Rejected candidates lie within a day of `after`.
        var best: WallTime?
        for _ in 0..<200_000 {
            guard let local = civil.next(fromMicros: from) else { return best }
            let seconds = CivilDateTime.floorDiv(local, 1_000_000)
            if let b = best, seconds - high > b.seconds { return b }
            let time = CivilDateTime(secondsSinceEpoch: seconds, nanosecond: Int(local - seconds * 1_000_000) * 1_000)
            func consider(_ t: WallTime) {
                if t > after && (best == nil || t < best!) { best = t }
            }
            switch zone.resolve(time) {
            case .unique(let t): consider(t)
            case .gap(_, let firstAfter): consider(firstAfter)
            case .overlap(let first, let second):
                // A fixed hour fires at its first occurrence only; once that has passed, the second is skipped.
                consider(first)
                if cadence { consider(second) }
            }
            from = local + 1
            // The next local time is `from` or later: when even `from` cannot map before the best, stop here
            // rather than search for it (the usual case, far from a DST change: it halves the work).
            if let b = best, CivilDateTime.floorDiv(from, 1_000_000) - high > b.seconds { return b }
        }
        return nil
    }
}
