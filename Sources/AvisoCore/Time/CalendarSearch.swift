/// systemd 252's `find_next`, transcribed, over a `struct tm` whose `mktime` is either `timegm` (UTC, or civil
/// time with no zone) or a model of glibc's `mktime` in the given zone rules.
///
/// The model matters because systemd's DST behaviour is whatever glibc's `mktime` does with `tm_isdst = -1`:
/// a time in a gap comes back moved by the gap (to the DST side when only one side is DST), an ambiguous time
/// comes back at the occurrence whose offset glibc used last.
struct CalendarSearch {
    /// Broken-down time: `year` is the full year, `mon` 0...11, `isdst` -1 (unknown), 0 or 1.
    struct TM {
        var year = 1970, mon = 0, mday = 1, hour = 0, min = 0, sec = 0, isdst = -1, wday = 4

        subscript(field: Field) -> Int {
            get {
                switch field {
                case .year: year
                case .month: mon
                case .day: mday
                case .hour: hour
                case .minute: min
                case .second: sec
                }
            }
            set {
                switch field {
                case .year: year = newValue
                case .month: mon = newValue
                case .day: mday = newValue
                case .hour: hour = newValue
                case .minute: min = newValue
                case .second: sec = newValue
                }
            }
        }
    }

    let spec: CalendarSpec
    /// The zone's rules; read only when `zoned` (else UTC arithmetic, `timegm`). Not optional, so that reading it
    /// does not copy it (an optional's payload is copied to be unwrapped, retaining each of its arrays).
    private let rules: ZoneRules
    private let zoned: Bool
    /// glibc's `localtime_offset`: the offset its last `mktime` settled on, the first guess of the next one.
    private var guess = 0

    init(spec: CalendarSpec, zone: ZoneRules?) {
        self.spec = spec
        rules = zone ?? .utc
        zoned = zone != nil
    }

    private func localtime(_ t: Int64) -> TM {
        let (off, dst) = zoned ? rules.offsetAndDaylightSaving(atSeconds: t) : (0, false)
        let c = CivilDateTime(secondsSinceEpoch: t + Int64(off))
        return TM(year: c.year, mon: c.month - 1, mday: c.day, hour: c.hour, min: c.minute, sec: c.second,
                  isdst: dst ? 1 : 0, wday: c.weekday)
    }

    /// The fields read as a local time in seconds since the epoch, out-of-range fields carried (as mktime does).
    private static func linear(_ tm: TM) -> Int64 {
        let y = tm.year + Int(CivilDateTime.floorDiv(Int64(tm.mon), 12))
        let m = tm.mon - 12 * Int(CivilDateTime.floorDiv(Int64(tm.mon), 12))
        return (CivilDateTime.days(fromCivil: y, m + 1, 1) + Int64(tm.mday - 1)) * 86_400
            + Int64(tm.hour) * 3_600 + Int64(tm.min) * 60 + Int64(tm.sec)
    }

    /// Whether every field is in its range, so that `timegm` would carry nothing.
    private static func isNormal(_ tm: TM) -> Bool {
        tm.mon >= 0 && tm.mon < 12 && tm.mday >= 1 && tm.hour >= 0 && tm.hour < 24 && tm.min >= 0 && tm.min < 60
            && tm.sec >= 0 && tm.sec < 60 && tm.mday <= CivilDateTime.daysIn(month: tm.mon + 1, year: tm.year)
    }

    /// `mktime` for its normalisation only: false where systemd sees failure. Without a zone, fields already in
    /// range are left as they are (`wday` and `isdst` are not refreshed): the search spends most of its calls here,
    /// and skipping the trip through seconds and back makes it several times faster.
    private mutating func normalize(_ tm: inout TM) -> Bool {
        if !zoned && Self.isNormal(tm) { return tm.year >= 1970 }
        return mktime(&tm) != nil
    }

    /// `mktime`/`timegm`: normalises `tm` in place, returns the instant, or nil where systemd sees failure (< 0).
    mutating func mktime(_ tm: inout TM) -> Int64? {
        let l = Self.linear(tm)
        let t: Int64
        t = zoned ? solve(l, isdst: tm.isdst) : l
        tm = localtime(t)
        return t < 0 ? nil : t
    }

    /// glibc `__mktime_internal` for one local time `l`.
    private mutating func solve(_ l: Int64, isdst: Int) -> Int64 {
        func off(_ t: Int64) -> Int64 { Int64(rules.offsetAndDaylightSaving(atSeconds: t).offset) }
        func dst(_ t: Int64) -> Bool { rules.offsetAndDaylightSaving(atSeconds: t).isDaylightSaving }
        var t = l - Int64(guess)
        var probes = 8
        var found = false
        while true {
            let gt = l - off(t)
            if gt == t { break }
            // Oscillating between the two sides of a gap: take the side glibc prefers.
            if l - off(gt) == t {
                let a = t, b = gt
                if isdst < 0 {
                    if dst(a) != dst(b) { t = dst(a) ? a : b } else { t = max(a, b) }
                } else {
                    t = (dst(a) != (isdst != 0)) ? a : b
                }
                found = true
                break
            }
            probes -= 1
            if probes == 0 { break }
            t = gt
        }
        if !found && isdst >= 0 && dst(t) != (isdst != 0) {
            // The requested DST flag is wrong here: borrow the offset of a nearby time that has it.
            let stride: Int64 = 601_200
            var delta = stride
            search: while delta < 457_243_200 / 2 + stride {
                for direction: Int64 in [-1, 1] {
                    let ot = t + delta * direction
                    if dst(ot) == (isdst != 0) {
                        t = l - off(ot)
                        break search
                    }
                }
                delta += stride
            }
        }
        guess = Int(l - t)
        return t
    }

    /// systemd's `find_next`: the first matching broken-down time at or after (`tm`, `usec`), or nil.
    mutating func findNext(_ tm: TM, usec: Int) -> (TM, Int)? {
        var c = tm
        var us = usec
        // Chains passed from an immutable local are not retained for each call, as they are from `self` here.
        let spec = spec
        for _ in 0..<1000 {
            _ = normalize(&c)
            c.isdst = -1
            var r = match(spec.year, &c, .year)
            if r > 0 { c.mon = 0; c.mday = 1; c.hour = 0; c.min = 0; c.sec = 0; us = 0 }
            if r < 0 { return nil }
            if withinBounds(&c) <= 0 { return nil }

            c.mon += 1
            r = match(spec.month, &c, .month)
            c.mon -= 1
            if r > 0 { c.mday = 1; c.hour = 0; c.min = 0; c.sec = 0; us = 0 }
            if r >= 0 { r = withinBounds(&c) }
            if r < 0 { c.year += 1; c.mon = 0; c.mday = 1; c.hour = 0; c.min = 0; c.sec = 0; us = 0; continue }
            if r == 0 { continue }

            r = match(spec.day, &c, .day)
            if r > 0 { c.hour = 0; c.min = 0; c.sec = 0; us = 0 }
            if r >= 0 { r = withinBounds(&c) }
            if r < 0 { c.mon += 1; c.mday = 1; c.hour = 0; c.min = 0; c.sec = 0; us = 0; continue }
            if r == 0 { continue }

            if let bits = spec.weekdays {
                var t = c
                var ok = normalize(&t)
                if ok {
                    let wday = zoned
                        ? t.wday : CivilDateTime.weekday(days: CivilDateTime.days(fromCivil: t.year, t.mon + 1, t.mday))
                    ok = bits & (1 << (wday == 0 ? 6 : wday - 1)) != 0
                }
                if !ok { c.mday += 1; c.hour = 0; c.min = 0; c.sec = 0; us = 0; continue }
            }

            r = match(spec.hour, &c, .hour)
            if r > 0 { c.min = 0; c.sec = 0; us = 0 }
            if r >= 0 { r = withinBounds(&c) }
            if r < 0 { c.mday += 1; c.hour = 0; c.min = 0; c.sec = 0; us = 0; continue }
            if r == 0 { continue }

            r = match(spec.minute, &c, .minute)
            if r > 0 { c.sec = 0; us = 0 }
            if r >= 0 { r = withinBounds(&c) }
            if r < 0 { c.hour += 1; c.min = 0; c.sec = 0; us = 0; continue }
            if r == 0 { continue }

            c.sec = c.sec * 1_000_000 + us
            r = match(spec.microsecond, &c, .second)
            us = c.sec % 1_000_000
            c.sec /= 1_000_000
            if r >= 0 { r = withinBounds(&c) }
            if r < 0 { c.min += 1; c.sec = 0; us = 0; continue }
            if r == 0 { continue }
            return (c, us)
        }
        return nil
    }

    /// A field of `TM` that `match` moves.
    enum Field {
        case year, month, day, hour, minute, second
    }

    /// systemd's `find_matching_component`: -1 none, 0 unchanged, 1 moved forward.
    private mutating func match(_ chain: [CalendarComponent]?, _ tm: inout TM, _ field: Field) -> Int {
        guard let chain else { return 0 }
        let val = tm[field]
        let d: Int?
        if spec.endOfMonth && field == .day {
            var days: [CalendarComponent] = []
            for comp in chain {
                var start = endOfMonthDay(tm, comp.start)
                var stop = endOfMonthDay(tm, comp.stop)
                if stop > 0 { swap(&start, &stop) }
                days.append(CalendarComponent(start: start, stop: stop, repeat: comp.repeat))
            }
            d = Self.first(in: days, atOrAfter: val)
        } else {
            d = Self.first(in: chain, atOrAfter: val)
        }
        guard let d else { return -1 }
        tm[field] = d
        return val != d ? 1 : 0
    }

    /// The least value at or after `val` that one of `chain`'s components gives, repeats beyond its range
    /// included where the component has no stop (the carry is then the caller's).
    private static func first(in chain: [CalendarComponent], atOrAfter val: Int) -> Int? {
        var d: Int?
        for comp in chain {
            let start = comp.start
            if start >= val {
                if d == nil || start < d! { d = start }
            } else if comp.repeat > 0 {
                let k = start + comp.repeat * ((val - start + comp.repeat - 1) / comp.repeat)
                if (d == nil || k < d!) && (comp.stop < 0 || k <= comp.stop) { d = k }
            }
        }
        return d
    }

    private mutating func endOfMonthDay(_ tm: TM, _ day: Int) -> Int {
        var t = tm
        t.mon += 1
        t.mday = 1 - day
        if mktime(&t) == nil || t.mon != tm.mon { return -1 }
        return t.mday
    }

    /// systemd's `tm_within_bounds`: 1 valid as is, 0 normalised forward (tm updated), < 0 out of range/backward.
    private mutating func withinBounds(_ tm: inout TM) -> Int {
        if tm.year > 2199 { return -1 }
        if !zoned && Self.isNormal(tm) { return tm.year >= 1970 ? 1 : -1 }
        var t = tm
        if mktime(&t) == nil { return -1 }
        var cmp: Int
        func compare(_ a: Int, _ b: Int) -> Int { a < b ? -1 : (a > b ? 1 : 0) }
        cmp = compare(t.year, tm.year)
        if cmp != 0 { t.mon = 0 } else {
            cmp = compare(t.mon, tm.mon)
            if cmp != 0 { t.mday = 1 } else {
                cmp = compare(t.mday, tm.mday)
                if cmp != 0 { t.hour = 0 } else {
                    cmp = compare(t.hour, tm.hour)
                    if cmp != 0 { t.min = 0 } else {
                        cmp = compare(t.min, tm.min)
                        if cmp != 0 { t.sec = 0 } else { cmp = compare(t.sec, tm.sec) }
                    }
                }
            }
        }
        if cmp < 0 { return -1 }
        if cmp > 0 { tm = t }
        return cmp == 0 ? 1 : 0
    }

    /// systemd's `calendar_spec_next_usec_impl`: the first elapse at or after `fromMicros` (µs since the epoch).
    mutating func next(fromMicros us: Int64) -> Int64? {
        let t = CivilDateTime.floorDiv(us, 1_000_000)
        if zoned { guess = rules.offsetAndDaylightSaving(atSeconds: t).offset }
        let tm = localtime(t)
        guard let next = findNext(tm, usec: Int(us - t * 1_000_000)) else { return nil }
        var found = next.0
        let usec = next.1
        guard let s = mktime(&found) else { return nil }
        return s * 1_000_000 + Int64(usec)
    }
}
