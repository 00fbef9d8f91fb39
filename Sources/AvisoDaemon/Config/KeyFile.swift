internal import CNotify

/// A parsed GLib key file (GKeyFile): groups, keys and raw values, nothing more.
///
/// Owned by one caller for the duration of one parse; call `free()` when done.
struct KeyFile {
    private let handle: OpaquePointer
    /// GLib's message when the text did not parse; the other accessors then see an empty file.
    let loadError: String?

    /// Parses `bytes`; nil only if GLib could not allocate a key file.
    init?(_ bytes: [UInt8]) {
        guard let handle = g_key_file_new() else { return nil }
        self.handle = handle
        var error: UnsafeMutablePointer<GError>?
        // A terminating NUL, outside the given length, so even empty text has a valid pointer.
        let data = bytes.map { CChar(bitPattern: $0) } + [0]
        let loaded = data.withUnsafeBufferPointer { chars in
            g_key_file_load_from_data(handle, chars.baseAddress, gsize(bytes.count), G_KEY_FILE_NONE, &error)
        }
        if loaded == 0 {
            loadError = error.map { String(cString: $0.pointee.message) } ?? "the file could not be parsed"
        } else {
            loadError = nil
        }
        if let error { g_error_free(error) }
    }

    func free() { g_key_file_free(handle) }

    /// The groups, in file order.
    func groups() -> [String] {
        var count: gsize = 0
        return strings(g_key_file_get_groups(handle, &count))
    }

    /// The keys of `group`, in file order (localised keys such as `Key[de]` included).
    func keys(in group: String) -> [String] {
        var count: gsize = 0
        return strings(g_key_file_get_keys(handle, group, &count, nil))
    }

    /// The raw value of `key` in `group`, escapes not interpreted.
    func value(_ group: String, _ key: String) -> String? {
        guard let raw = g_key_file_get_value(handle, group, key, nil) else { return nil }
        defer { g_free(raw) }
        return String(cString: raw)
    }

    /// The value of `key` in `group` with escapes (`\n`, `\t`, `\\`, `\s`) interpreted; nil if absent or if an
    /// escape is invalid.
    func string(_ group: String, _ key: String) -> String? {
        guard let raw = g_key_file_get_string(handle, group, key, nil) else { return nil }
        defer { g_free(raw) }
        return String(cString: raw)
    }

    private func strings(_ vector: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?) -> [String] {
        guard let vector else { return [] }
        defer { g_strfreev(vector) }
        var result: [String] = []
        var index = 0
        while let item = vector[index] {
            result.append(String(cString: item))
            index += 1
        }
        return result
    }
}
