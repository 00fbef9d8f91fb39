/// When the content of a notification is hidden: `HiddenPreviews=` (iOS's "show previews").
public enum HiddenPreviews: String, Hashable, Sendable, CaseIterable {
    /// Always shown in full.
    case never
    /// Only the title (if `ShowTitle=`) and a placeholder while the session is locked.
    case whenLocked = "when-locked"
    /// Only the title (if `ShowTitle=`) and a placeholder, always.
    case always
}

/// How a notification reaches the screen.
public enum DeliveryMode: String, Hashable, Sendable, Codable, CaseIterable {
    /// When it is due (held only by quiet hours).
    case immediate
    /// With the next scheduled summary (`[Summary] At=`), folded into one popup.
    case summary
}

/// A `[Category NAME]` group: the actions of a kind of notification and how it is presented.
///
/// A request names its category (`--category`, `Category=`); every field left out here means "no opinion": the
/// request's own value, or the global default, applies.
public struct NotificationCategory: Hashable, Sendable {
    public var name: String
    /// Action names, in the order their buttons are shown (destructive ones go last).
    public var actions: [String]
    /// Run when the popup itself is clicked (the freedesktop `default` action).
    public var defaultAction: String?
    /// Run when the person dismisses the popup (iOS's customDismissAction).
    public var dismissAction: String?
    public var hiddenPreviews: HiddenPreviews?
    /// Whether a hidden preview still shows the title.
    public var showTitle: Bool?
    /// A sound-naming-spec name (`sound-name` hint).
    public var sound: String?
    /// The thread of requests that name none.
    public var thread: String?
    /// The interruption level of requests that name none.
    public var level: InterruptionLevel?
    /// The text of a thread's folded popup: `%u` is how many more are folded in ("%u more reminders").
    public var threadSummary: String?
    public var delivery: DeliveryMode?
    /// A program that may improve each notification before it is shown (`ContentHook=`).
    public var hook: ContentHook?

    public init(
        name: String, actions: [String] = [], defaultAction: String? = nil, dismissAction: String? = nil,
        hiddenPreviews: HiddenPreviews? = nil, showTitle: Bool? = nil, sound: String? = nil, thread: String? = nil,
        level: InterruptionLevel? = nil, threadSummary: String? = nil, delivery: DeliveryMode? = nil,
        hook: ContentHook? = nil
    ) {
        self.name = name
        self.actions = actions
        self.defaultAction = defaultAction
        self.dismissAction = dismissAction
        self.hiddenPreviews = hiddenPreviews
        self.showTitle = showTitle
        self.sound = sound
        self.thread = thread
        self.level = level
        self.threadSummary = threadSummary
        self.delivery = delivery
        self.hook = hook
    }

    /// The categories of the freedesktop notification specification ("im.received", "transfer.complete", ...):
    /// always known, with no actions, so the spec's hints keep working without declaring them.
    public static func isFreedesktop(_ name: String) -> Bool {
        let classes = ["call", "device", "email", "im", "network", "presence", "transfer"]
        let base = name.split(separator: ".", maxSplits: 1).first.map(String.init) ?? name
        return classes.contains(base)
    }

    /// The names of every action the category refers to (buttons, default, dismiss), each once.
    public var referencedActions: [String] {
        var seen: [String] = []
        for name in actions + [defaultAction, dismissAction].compactMap({ $0 }) where !seen.contains(name) {
            seen.append(name)
        }
        return seen
    }

    /// The thread's popup text for `count` notifications folded in besides the one shown.
    public static func threadText(_ format: String, folded count: Int) -> String {
        var out = ""
        var rest = Substring(format)
        while let percent = rest.firstIndex(of: "%") {
            out += rest[..<percent]
            let after = rest.index(after: percent)
            if after < rest.endIndex, rest[after] == "u" {
                out += String(count)
                rest = rest[rest.index(after: after)...]
            } else if after < rest.endIndex, rest[after] == "%" {
                out += "%"
                rest = rest[rest.index(after: after)...]
            } else {
                out += "%"
                rest = rest[after...]
            }
        }
        return out + rest
    }

    /// The thread text when no category says.
    public static let defaultThreadSummary = "%u more in this thread"
}
