import AvisoCore
internal import CNotify
internal import CShims

extension NotificationBus {
    /// Shows `content` through libnotify; runs on the GLib thread and may block it for up to libnotify's 25 s.
    func show(_ content: Content, ownerHint: String?) -> Result<(serverID: UInt32, owner: String), DeliveryError> {
        let markup = capabilities(ownerHint: ownerHint).contains("body-markup")
        let text = NotificationText(content, markup: markup)
        var result = notify(content, text)
        if case .failure(let error) = result, error.isNoServer, owner.withLock({ $0 }) != nil {
            // The watch says a server is there, so libnotify's cached proxy is talking to a previous owner:
            // drop it (re-initialising creates a fresh one) and try once more.
            notify_uninit()
            notify_init(appName)
            result = notify(content, text)
        }
        return result.map { id in (id, owner.withLock { $0 } ?? lookUpOwner() ?? "") }
    }

    private func notify(_ content: Content, _ text: NotificationText) -> Result<UInt32, DeliveryError> {
        let notification = notify_notification_new(text.summary, text.body, nil)!
        defer { g_object_unref(UnsafeMutableRawPointer(notification)) }
        notify_notification_set_urgency(notification, NotifyUrgency(UInt32(content.level.urgency)))
        // 0 is NOTIFY_EXPIRES_NEVER (stays until dismissed), -1 NOTIFY_EXPIRES_DEFAULT (the server decides).
        notify_notification_set_timeout(notification, content.level == .critical ? 0 : -1)
        if let category = content.categoryID {
            notify_notification_set_category(notification, category)
        }
        if let thread = content.threadID {
            // dunst and mako stack by x-dunst-stack-tag; GNOME/Ubuntu's notify-osd lineage by the canonical hint.
            notify_notification_set_hint_string(notification, "x-dunst-stack-tag", thread)
            notify_notification_set_hint_string(notification, "x-canonical-private-synchronous", thread)
        }
        if let image = content.image {
            notify_notification_set_hint_string(notification, "image-path", image)
        }
        notify_notification_set_hint_string(notification, "desktop-entry", desktopEntry)

        var error: UnsafeMutablePointer<GError>?
        guard notify_notification_show(notification, &error) != 0 else {
            return .failure(NotificationBus.deliveryError(error, doing: "Notify"))
        }
        return .success(UInt32(bitPattern: aviso_notification_id(notification)))
    }
}
