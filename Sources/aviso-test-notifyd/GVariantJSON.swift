internal import CNotify
import TestBusServerKit

/// Converts D-Bus values (GVariant) into the JSON the test server reports.
enum GVariantJSON {
    /// A JSON rendering of `value`: numbers, booleans, strings and arrays as themselves; anything else (image data,
    /// structs) as its GVariant text, which is enough for a test to see that it was sent.
    static func json(_ value: OpaquePointer) -> JSONText {
        switch g_variant_classify(value) {
        case G_VARIANT_CLASS_BOOLEAN: return .bool(g_variant_get_boolean(value) != 0)
        case G_VARIANT_CLASS_BYTE: return .int(Int64(g_variant_get_byte(value)))
        case G_VARIANT_CLASS_INT16: return .int(Int64(g_variant_get_int16(value)))
        case G_VARIANT_CLASS_UINT16: return .int(Int64(g_variant_get_uint16(value)))
        case G_VARIANT_CLASS_INT32: return .int(Int64(g_variant_get_int32(value)))
        case G_VARIANT_CLASS_UINT32: return .int(Int64(g_variant_get_uint32(value)))
        case G_VARIANT_CLASS_INT64: return .int(Int64(g_variant_get_int64(value)))
        case G_VARIANT_CLASS_UINT64: return .int(Int64(truncatingIfNeeded: g_variant_get_uint64(value)))
        case G_VARIANT_CLASS_DOUBLE: return .double(g_variant_get_double(value))
        case G_VARIANT_CLASS_STRING, G_VARIANT_CLASS_OBJECT_PATH, G_VARIANT_CLASS_SIGNATURE:
            return .string(string(value))
        case G_VARIANT_CLASS_VARIANT:
            let inner = g_variant_get_variant(value)!
            defer { g_variant_unref(inner) }
            return json(inner)
        case G_VARIANT_CLASS_ARRAY where !isByteArray(value):
            return .array(mapChildren(value, json))
        default:
            let text = g_variant_print(value, 1)!
            defer { g_free(text) }
            return .string(String(cString: text))
        }
    }

    /// The hints dictionary (`a{sv}`) as a JSON object, keys in the order sent.
    static func dictionary(_ value: OpaquePointer) -> JSONText {
        .object(mapChildren(value) { entry in
            let key = g_variant_get_child_value(entry, 0)!
            let boxed = g_variant_get_child_value(entry, 1)!
            defer { g_variant_unref(key); g_variant_unref(boxed) }
            return (string(key), json(boxed))
        })
    }

    /// Applies `body` to each child of a container; the child is only valid inside `body`.
    static func mapChildren<T>(_ value: OpaquePointer, _ body: (OpaquePointer) -> T) -> [T] {
        (0..<g_variant_n_children(value)).map { i in
            let child = g_variant_get_child_value(value, i)!
            defer { g_variant_unref(child) }
            return body(child)
        }
    }

    static func string(_ value: OpaquePointer) -> String {
        String(cString: g_variant_get_string(value, nil))
    }

    private static func isByteArray(_ value: OpaquePointer) -> Bool {
        String(cString: g_variant_get_type_string(value)) == "ay"
    }
}
