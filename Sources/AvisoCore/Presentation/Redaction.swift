/// Hidden previews: what a popup shows of a notification whose content is not to be seen (the session is locked, or
/// its category always hides it).
public enum Redaction {
    /// The body shown instead of the content when nothing says otherwise (`[Privacy] Placeholder=`).
    public static let defaultPlaceholder = "Notification"

    /// Whether `policy` hides the content now.
    public static func hides(_ policy: HiddenPreviews, locked: Bool) -> Bool {
        switch policy {
        case .never: false
        case .whenLocked: locked
        case .always: true
        }
    }

    /// What is shown of `content` when it is hidden: the title only if `showTitle`, and `placeholder`; no subtitle,
    /// no image, no thread summary. Level, category and relevance stay: they decide how, not what.
    public static func hidden(_ content: Content, showTitle: Bool, placeholder: String) -> Content {
        var shown = content
        shown.title = showTitle ? content.title : placeholder
        shown.subtitle = ""
        shown.body = showTitle ? placeholder : ""
        shown.image = nil
        shown.userInfo = [:]
        return shown
    }
}
