/// One element of a calendar field's list: a value, a range, or a repetition (`5`, `8..17`, `0/15`, `8..17/2`).
///
/// Seconds are kept in microseconds, as systemd does, so `0/7.5` is exact. `stop` is -1 when there is no range end,
/// `repeat` 0 when nothing repeats.
struct CalendarComponent: Hashable, Sendable, Comparable {
    var start: Int
    var stop: Int
    var `repeat`: Int

    static func < (a: CalendarComponent, b: CalendarComponent) -> Bool {
        (a.start, a.stop, a.repeat) < (b.start, b.stop, b.repeat)
    }

    /// systemd's `normalize_chain`: trims ranges to a whole number of repetitions, drops repetitions that never
    /// happen, then sorts and removes duplicates.
    static func normalize(_ chain: [CalendarComponent]) -> [CalendarComponent] {
        var out = chain
        for k in out.indices {
            var c = out[k]
            if c.stop > c.start && c.repeat > 0 { c.stop -= (c.stop - c.start) % c.repeat }
            if (c.stop > c.start && c.repeat > 0 && c.start + c.repeat > c.stop) || c.start == c.stop {
                c.repeat = 0
                c.stop = -1
            }
            if c != out[k] { out[k] = c }
        }
        guard out.count > 1 else { return out }
        out.sort()
        var unique: [CalendarComponent] = []
        for c in out where unique.last != c { unique.append(c) }
        return unique
    }

    /// systemd's `chain_valid`; returns what is wrong, or nil.
    static func problem(in chain: [CalendarComponent], field: String, from: Int, to: Int, endOfMonth: Bool = false,
                        unit: Int = 1) -> String? {
        let to = endOfMonth ? to - 3 : to
        func show(_ v: Int) -> String { unit == 1 ? String(v) : CalendarComponent.decimal(v, unit: unit) }
        // Written only for a message: a valid chain (nearly every one) costs no string.
        func range() -> String { "\(show(from))...\(show(to))" }
        for c in chain {
            if c.start < from || c.start > to { return "\(field) \(show(c.start)) is out of range (\(range()))" }
            if c.repeat > to - from { return "\(field) repetition /\(show(c.repeat)) is too large" }
            if c.stop >= 0 {
                if c.stop < from || c.stop > to { return "\(field) \(show(c.stop)) is out of range (\(range()))" }
                if c.start + c.repeat > c.stop {
                    return "\(field) range \(show(c.start))..\(show(c.stop)) is empty or shorter than its repetition"
                }
            } else {
                if endOfMonth && c.start - c.repeat < from {
                    return "\(field) \(show(c.start))/\(show(c.repeat)) counted from the month's end never repeats"
                }
                if !endOfMonth && c.start + c.repeat > to {
                    return "\(field) \(show(c.start))/\(show(c.repeat)) never repeats within \(range())"
                }
            }
        }
        return nil
    }

    /// systemd's `format_chain`: zero-padded to `width`, seconds with six fraction digits when not whole.
    static func format(_ chain: [CalendarComponent]?, width: Int, usec: Bool) -> String {
        guard let chain, !chain.isEmpty else { return "*" }
        let d = usec ? 1_000_000 : 1
        if usec && chain.contains(where: { $0.start == 0 && $0.stop < 0 && $0.repeat == 1_000_000 }) { return "*" }
        var parts: [String] = []
        for c in chain {
            var s = pad(c.start / d, width)
            if c.start % d > 0 { s += "." + pad(c.start % d, 6) }
            if c.stop > 0 { s += ".." + pad(c.stop / d, width) }
            if c.stop > 0 && c.stop % d > 0 { s += "." + pad(c.stop % d, 6) }
            if c.repeat > 0 && !(c.stop > 0 && c.repeat == d) { s += "/" + String(c.repeat / d) }
            if c.repeat % d > 0 { s += "." + pad(c.repeat % d, 6) }
            parts.append(s)
        }
        return parts.joined(separator: ",")
    }

    static func decimal(_ v: Int, unit: Int) -> String {
        v % unit == 0 ? String(v / unit) : String(v / unit) + "." + pad(v % unit, 6)
    }

    static func pad(_ n: Int, _ width: Int) -> String {
        let s = String(n)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}
