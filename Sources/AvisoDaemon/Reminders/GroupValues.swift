import AvisoCore

/// The known keys of one `[Reminder NAME]` or `[Item NAME]` group, each with its value and line, as the builders read
/// them. A group holds a handful of keys, found by a linear search: no hash table is built for each of 100,000
/// reminders.
struct GroupValues {
    private var entries: [(key: String, value: String, line: Int?)] = []

    subscript(key: String) -> (value: String, line: Int?)? {
        get { entries.first { $0.key.isSame(as: key) }.map { ($0.value, $0.line) } }
        set {
            let i = entries.firstIndex { $0.key.isSame(as: key) }
            switch (i, newValue) {
            case (let i?, let v?): entries[i] = (key, v.value, v.line)
            case (let i?, nil): entries.remove(at: i)
            case (nil, let v?):
                if entries.isEmpty { entries.reserveCapacity(6) }
                entries.append((key, v.value, v.line))
            case (nil, nil): break
            }
        }
    }
}

/// The keys of one `[Reminder NAME]` group, as `GroupValues` holds an item's, found by number: a reminder's builder
/// looks a dozen keys up. Where each key's entry is, 4 bits per key, fits one integer, so a lookup is a shift and an
/// index, and only the keys the group gives are stored (an array of an optional per known key cost more to destroy,
/// element by element, than the lookups it saved).
struct ReminderValues {
    /// 4 bits per key, by its number: the position of its entry, or 15 when it has none.
    private var positions = UInt64.max
    private var entries: [(value: String, line: Int?)] = []
    /// `Title=` and `Body=`, in the file's `TextArena` instead of strings of their own (they have no entry).
    var title: TextArena.Run?
    var body: TextArena.Run?

    subscript(key: ReminderFile.Key) -> (value: String, line: Int?)? {
        get {
            let p = Int(positions >> UInt64(4 * key.rawValue) & 0xF)
            return p == 0xF ? nil : entries[p]
        }
        set {
            let shift = UInt64(4 * key.rawValue)
            let p = Int(positions >> shift & 0xF)
            switch (p == 0xF, newValue) {
            case (false, let v?): entries[p] = v
            case (false, nil): positions |= 0xF << shift
            case (true, let v?):
                if entries.isEmpty { entries.reserveCapacity(6) }
                // At most one entry per key, and there are at most 15 keys: a position (0...14) fits in 4 bits beside
                // the mark of none.
                positions = positions & ~(0xF << shift) | UInt64(entries.count) << shift
                entries.append(v)
            case (true, nil): break
            }
        }
    }
}
