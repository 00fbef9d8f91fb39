internal import CNotify

/// Reads fields out of D-Bus reply tuples (GVariant) without the variadic g_variant_get.
enum GVariantReader {
    static func uint32(_ tuple: OpaquePointer, at index: Int) -> UInt32 {
        let child = g_variant_get_child_value(tuple, gsize(index))!
        defer { g_variant_unref(child) }
        return g_variant_get_uint32(child)
    }

    static func string(_ tuple: OpaquePointer, at index: Int) -> String {
        let child = g_variant_get_child_value(tuple, gsize(index))!
        defer { g_variant_unref(child) }
        return String(cString: g_variant_get_string(child, nil))
    }

    /// An `as` field; empty when the field has another type.
    static func strings(_ tuple: OpaquePointer, at index: Int) -> [String] {
        let array = g_variant_get_child_value(tuple, gsize(index))!
        defer { g_variant_unref(array) }
        guard String(cString: g_variant_get_type_string(array)) == "as" else { return [] }
        return (0..<g_variant_n_children(array)).map { i in
            let item = g_variant_get_child_value(array, i)!
            defer { g_variant_unref(item) }
            return String(cString: g_variant_get_string(item, nil))
        }
    }
}
