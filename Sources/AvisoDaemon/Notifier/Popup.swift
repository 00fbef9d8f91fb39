import AvisoCore

/// What one Notify call shows: the content as it is to be seen, its buttons, and the popup it takes the place of.
public struct Popup: Hashable, Sendable {
    /// One button, or the popup's own click (`default`), or a text field (`inline-reply`).
    public struct Button: Hashable, Sendable {
        public var key: String
        public var label: String

        public init(key: String, label: String) {
            self.key = key
            self.label = label
        }
    }

    /// What is shown (already redacted or folded by the caller).
    public var content: Content
    /// The actions, in order; sent only where the server has the `actions` capability.
    public var buttons: [Button]
    /// The server id of a popup this one updates in place (`replaces_id`); 0 for a new one.
    public var replaces: UInt32
    /// A sound-naming-spec name (`sound-name`).
    public var sound: String?
    /// The placeholder and button text of an inline reply (`x-kde-reply-placeholder-text`,
    /// `x-kde-reply-submit-button-text`), when `buttons` has `inline-reply`.
    public var replyPlaceholder: String?
    public var replySubmit: String?

    public init(
        content: Content, buttons: [Button] = [], replaces: UInt32 = 0, sound: String? = nil,
        replyPlaceholder: String? = nil, replySubmit: String? = nil
    ) {
        self.content = content
        self.buttons = buttons
        self.replaces = replaces
        self.sound = sound
        self.replyPlaceholder = replyPlaceholder
        self.replySubmit = replySubmit
    }
}
