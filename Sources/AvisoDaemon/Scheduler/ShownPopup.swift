import AvisoCore

/// A popup on screen, or asked for: the requests it stands for and what it shows.
struct ShownPopup: Hashable, Sendable {
    enum Kind: Hashable, Sendable {
        /// One notification.
        case single
        /// Several, as one summary (missed, released after quiet hours, or a scheduled summary).
        case summary
        /// The notifications of one thread folded into one popup, which shows the most relevant.
        case thread(String)
    }

    var kind: Kind
    /// The requests it stands for; the first is the one whose content it shows (a summary shows none of them alone).
    var ids: [String]
    /// What it shows, in full (before hidden previews): to show it again in place on unlock, and for actions.
    var content: Content
    /// Shown with its content hidden, because the session was locked (updated in place on unlock).
    var hiddenWhileLocked = false

    /// The thread it folds, if any.
    var thread: String? {
        if case .thread(let t) = kind { return t }
        return nil
    }
}

/// A Notify call on its way: the popup it will be, the one it replaces, and which of its requests were removed
/// meanwhile.
struct Delivery {
    var popup: ShownPopup
    /// The server id of the popup it updates in place; 0 for a new one.
    var replaces: UInt32 = 0
    /// Requests newly delivered by it (a thread's others, already on screen in the popup it replaces, are not; a
    /// repeating request's new firing is): they get `delivered` events.
    var fresh: [String]
    /// Removed (`remove-delivered`, `remove`, a file edit) before the server answered: closed as soon as the popup's
    /// id is known if nothing else is left in it, so nothing stays on screen that aviso does not track.
    var cancelled: Set<String> = []

    var ids: [String] { popup.ids }
}
