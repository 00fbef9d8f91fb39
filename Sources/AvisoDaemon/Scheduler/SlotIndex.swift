/// Identifier → slot of a table that holds the identifiers itself: an open-addressing hash table of 4-byte slots,
/// which compares with the table's own identifier at each probe, so no identifier is stored twice. At 100,000
/// requests it takes 1 MiB; a `[String: Int32]` took 5 MiB, keeping a copy of every key in 262,144 buckets.
///
/// Linear probing, at most half full; a removal shifts the entries after it back into the hole, so a search stops
/// at the first empty bucket. `id(slot)`, given to each call, is the identifier at that slot of the table.
struct SlotIndex {
    /// -1: empty.
    private var buckets: [Int32] = Array(repeating: -1, count: 8)
    private(set) var count = 0

    private var mask: Int { buckets.count - 1 }

    /// The slot of `key`.
    func find(_ key: String, id: (Int32) -> String) -> Int32? {
        position(of: key, id: id).map { buckets[$0] }
    }

    /// Files `key`, which is not in the index, at `slot`.
    mutating func insert(_ key: String, slot: Int32, id: (Int32) -> String) {
        if (count + 1) * 2 > buckets.count { resize(to: buckets.count * 2, id: id) }
        var i = key.hashValue & mask
        while buckets[i] >= 0 { i = (i + 1) & mask }
        buckets[i] = slot
        count += 1
    }

    /// Files `key` at `slot` unless it is in the index already; returns the slot it has then. One hash of the key for
    /// both, where `find` and `insert` take two.
    mutating func insertIfAbsent(_ key: String, slot: Int32, id: (Int32) -> String) -> Int32? {
        if (count + 1) * 2 > buckets.count { resize(to: buckets.count * 2, id: id) }
        var i = key.hashValue & mask
        while buckets[i] >= 0 {
            if id(buckets[i]) == key { return buckets[i] }
            i = (i + 1) & mask
        }
        buckets[i] = slot
        count += 1
        return nil
    }

    /// `key` is now at `slot`.
    mutating func move(_ key: String, to slot: Int32, id: (Int32) -> String) {
        if let p = position(of: key, id: id) { buckets[p] = slot }
    }

    /// Takes `key` out; returns its slot.
    @discardableResult
    mutating func remove(_ key: String, id: (Int32) -> String) -> Int32? {
        guard var hole = position(of: key, id: id) else { return nil }
        let slot = buckets[hole]
        var j = hole
        while true {
            j = (j + 1) & mask
            guard buckets[j] >= 0 else { break }
            // An entry whose home is not cyclically in (hole, j] may move back into the hole.
            let home = id(buckets[j]).hashValue & mask
            let stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j)
            if !stays {
                buckets[hole] = buckets[j]
                hole = j
            }
        }
        buckets[hole] = -1
        count -= 1
        return slot
    }

    /// Makes room for `n` identifiers.
    mutating func reserveCapacity(_ n: Int, id: (Int32) -> String) {
        var size = buckets.count
        while n * 2 > size { size *= 2 }
        if size > buckets.count { resize(to: size, id: id) }
    }

    private func position(of key: String, id: (Int32) -> String) -> Int? {
        var i = key.hashValue & mask
        while buckets[i] >= 0 {
            if id(buckets[i]) == key { return i }
            i = (i + 1) & mask
        }
        return nil
    }

    private mutating func resize(to size: Int, id: (Int32) -> String) {
        let old = buckets
        buckets = Array(repeating: -1, count: size)
        for slot in old where slot >= 0 {
            var i = id(slot).hashValue & mask
            while buckets[i] >= 0 { i = (i + 1) & mask }
            buckets[i] = slot
        }
    }
}
