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
