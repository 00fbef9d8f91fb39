import AvisoCore
internal import CNotify

extension NotificationBus {
    /// Sends Notify for `content` and calls `completion` once with the outcome, on this thread.
    ///
    /// Calls leave in the order `show` is called (those waiting for the server's capabilities wait in order). The
    /// body is formatted for the server's capabilities (`body-markup`), fetched once per server.
    func show(_ popup: Popup, ownerHint: String?, completion: @escaping @Sendable (DeliveryOutcome) -> Void) {
        guard connect() else { return completion(.notShown(.noServer("no D-Bus session bus"))) }
        withCapabilities(ownerHint: ownerHint) { [self] capabilities in
            guard let connection else { return completion(.notShown(.noServer("no D-Bus session bus"))) }
            let text = NotificationText(popup.content, markup: capabilities.contains("body-markup"))
            // The well-known name, not the owner we last heard of: a server that restarted, or one that D-Bus
            // activates on demand, takes it. The reply's sender says who did.
            let message = g_dbus_message_new_method_call(NotificationBus.name, NotificationBus.path, NotificationBus.name, "Notify")!
            defer { g_object_unref(UnsafeMutableRawPointer(message)) }
            g_dbus_message_set_body(message, notifyArguments(popup, text, actions: capabilities.contains("actions")))
            BusCall.send(on: thread, connection, message: message) { reply, error in
                completion(NotificationBus.outcome(reply: reply, error: error))
            }
        }
    }

    /// What a Notify reply says: an id and who gave it, a refusal, or nothing that can be trusted.
    private static func outcome(reply: OpaquePointer?, error: UnsafeMutablePointer<GError>?) -> DeliveryOutcome {
        guard let reply else {
            // No reply at all: the connection closed after the call was handed to it.
            return .unconfirmed("the session bus connection closed before the server answered: "
                + (error.map { String(cString: $0.pointee.message) } ?? "unknown error"))
        }
        if g_dbus_message_get_message_type(reply) == G_DBUS_MESSAGE_TYPE_ERROR {
            let name = g_dbus_message_get_error_name(reply).map { String(cString: $0) } ?? ""
            var gerror: UnsafeMutablePointer<GError>?
            g_dbus_message_to_gerror(reply, &gerror)
            let failure = deliveryError(gerror, doing: "Notify")
            if let gerror { g_error_free(gerror) }
            // NoReply comes from the bus when the server left (or hung past the bus's own limit) while the call was
            // in its queue or in its hands: it may have shown the popup.
            if name == "org.freedesktop.DBus.Error.NoReply" { return .unconfirmed(failure.message) }
            return .notShown(failure)
        }
        let sender = g_dbus_message_get_sender(reply).map { String(cString: $0) } ?? ""
        let signature = g_dbus_message_get_signature(reply).map { String(cString: $0) } ?? ""
        guard signature == "u", let body = g_dbus_message_get_body(reply) else {
            return .unconfirmed("the server \(sender) answered Notify with '(\(signature))' instead of a notification id")
        }
        return .shown(serverID: GVariantReader.uint32(body, at: 0), owner: sender)
    }

    /// Notify's arguments: (app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout). Buttons
    /// go only to a server with the `actions` capability.
    private func notifyArguments(_ popup: Popup, _ text: NotificationText, actions: Bool) -> OpaquePointer {
        let content = popup.content
        let level = content.level.hints
        var hints: [(String, OpaquePointer)] = [("urgency", g_variant_new_byte(level.urgency))]
        if level.transient { hints.append(("transient", g_variant_new_boolean(1))) }
        if level.suppressSound { hints.append(("suppress-sound", g_variant_new_boolean(1))) }
        if level.resident { hints.append(("resident", g_variant_new_boolean(1))) }
        if let category = content.categoryID { hints.append(("category", g_variant_new_string(category))) }
        if let thread = content.threadID {
            // dunst and mako stack by x-dunst-stack-tag; GNOME/Ubuntu's notify-osd lineage by the canonical hint.
            hints.append(("x-dunst-stack-tag", g_variant_new_string(thread)))
            hints.append(("x-canonical-private-synchronous", g_variant_new_string(thread)))
        }
        if let image = content.image { hints.append(("image-path", g_variant_new_string(image))) }
        if let sound = popup.sound, !level.suppressSound { hints.append(("sound-name", g_variant_new_string(sound))) }
        if let placeholder = popup.replyPlaceholder {
            hints.append(("x-kde-reply-placeholder-text", g_variant_new_string(placeholder)))
        }
        if let submit = popup.replySubmit { hints.append(("x-kde-reply-submit-button-text", g_variant_new_string(submit))) }
        hints.append(("desktop-entry", g_variant_new_string(desktopEntry)))
        let entryType = g_variant_type_new("{sv}")
        let stringType = g_variant_type_new("s")
        defer {
            g_variant_type_free(entryType)
            g_variant_type_free(stringType)
        }
        var entries: [OpaquePointer?] = hints.map { key, value in
            g_variant_new_dict_entry(g_variant_new_string(key), g_variant_new_variant(value))
        }
        var buttons: [OpaquePointer?] = actions
            ? popup.buttons.flatMap { [g_variant_new_string($0.key), g_variant_new_string($0.label)] } : []
        var arguments: [OpaquePointer?] = [
            g_variant_new_string(appName),
            g_variant_new_uint32(popup.replaces),
            g_variant_new_string(""),
            g_variant_new_string(text.summary),
            g_variant_new_string(text.body),
            g_variant_new_array(stringType, &buttons, gsize(buttons.count)),
            g_variant_new_array(entryType, &entries, gsize(entries.count)),
            // 0 never expires (critical stays until dismissed), -1 lets the server decide.
            g_variant_new_int32(level.expireTimeout),
        ]
        return g_variant_new_tuple(&arguments, gsize(arguments.count))
    }
}
