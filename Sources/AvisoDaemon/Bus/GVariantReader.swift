internal import CNotify

/// Reads fields out of D-Bus values (GVariant) without the variadic g_variant_get.
///
/// Each reader checks the type it is given: a value of another shape yields nil or an empty result, never a crash,
/// because a non-conforming program on the bus can send anything.
enum GVariantReader {
    /// A `(uu)` tuple, such as NotificationClosed's (id, reason); nil for any other type.
    static func uint32Pair(_ tuple: OpaquePointer) -> (UInt32, UInt32)? {
        guard type(tuple) == "(uu)" else { return nil }
        return (uint32(tuple, at: 0), uint32(tuple, at: 1))
    }

    /// The `u` at `index` of a tuple whose type the caller checked.
    static func uint32(_ tuple: OpaquePointer, at index: Int) -> UInt32 {
        guard let child = g_variant_get_child_value(tuple, gsize(index)) else { return 0 }
        defer { g_variant_unref(child) }
        return type(child) == "u" ? g_variant_get_uint32(child) : 0
    }

    /// The `s` at `index` of a tuple whose type the caller checked.
    static func string(_ tuple: OpaquePointer, at index: Int) -> String {
        guard let child = g_variant_get_child_value(tuple, gsize(index)) else { return "" }
        defer { g_variant_unref(child) }
        guard type(child) == "s" else { return "" }
        return String(cString: g_variant_get_string(child, nil))
    }

    /// The strings of an `(as)` tuple; empty for any other type.
    static func strings(_ tuple: OpaquePointer) -> [String] {
        guard type(tuple) == "(as)", let array = g_variant_get_child_value(tuple, 0) else { return [] }
        defer { g_variant_unref(array) }
        return (0..<g_variant_n_children(array)).compactMap { i in
            guard let item = g_variant_get_child_value(array, i) else { return nil }
            defer { g_variant_unref(item) }
            return String(cString: g_variant_get_string(item, nil))
        }
    }

    /// The object path (`o`) at `index` of a tuple whose type the caller checked; "/" when it is not one.
    static func objectPath(_ tuple: OpaquePointer, at index: Int) -> String {
        guard let child = g_variant_get_child_value(tuple, gsize(index)) else { return "/" }
        defer { g_variant_unref(child) }
        guard type(child) == "o" else { return "/" }
        return String(cString: g_variant_get_string(child, nil))
    }

    /// The property names a PropertiesChanged `(sa{sv}as)` reports, changed and invalidated; empty for another type.
    static func changedProperties(_ parameters: OpaquePointer) -> Set<String> {
        guard type(parameters) == "(sa{sv}as)" else { return [] }
        var names: Set<String> = []
        if let changed = g_variant_get_child_value(parameters, 1) {
            for i in 0..<g_variant_n_children(changed) {
                guard let entry = g_variant_get_child_value(changed, i) else { continue }
                names.insert(string(entry, at: 0))
                g_variant_unref(entry)
            }
            g_variant_unref(changed)
        }
        if let invalidated = g_variant_get_child_value(parameters, 2) {
            for i in 0..<g_variant_n_children(invalidated) {
                guard let item = g_variant_get_child_value(invalidated, i) else { continue }
                names.insert(String(cString: g_variant_get_string(item, nil)))
                g_variant_unref(item)
            }
            g_variant_unref(invalidated)
        }
        return names
    }

    static func type(_ value: OpaquePointer) -> String {
        String(cString: g_variant_get_type_string(value))
    }
}
