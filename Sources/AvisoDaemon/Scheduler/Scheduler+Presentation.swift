import AvisoCore
import AvisoProtocol

extension Scheduler {
    /// The declared category a content names; nil for none, a freedesktop one or an unknown one.
    func category(of content: Content) -> NotificationCategory? { book.category(content.categoryID) }

    /// The thread a content belongs to: its own, else its category's.
    func thread(of content: Content) -> String? { content.threadID ?? category(of: content)?.thread }

    /// The interruption level: a category's `Level=` applies to requests left at the default (active).
    func level(of content: Content) -> InterruptionLevel {
        content.level == .active ? category(of: content)?.level ?? .active : content.level
    }

    /// How a content reaches the screen: its own mode, else its category's, else at once.
    func deliveryMode(of content: Content) -> DeliveryMode {
        content.delivery ?? category(of: content)?.delivery ?? .immediate
    }

    /// The Notify call for a popup: its content (hidden where previews are hidden now), its level, how many more a
    /// thread's popup folds in, and the buttons of its category as this server can show them. Returns whether the
    /// content was hidden.
    func makePopup(_ shown: ShownPopup, replaces: UInt32) -> (Popup, hidden: Bool) {
        var content = shown.content
        content.level = level(of: content)
        let categories = shown.kind == .summary ? [] : [category(of: content)].compactMap { $0 }
        let policy = categories.first?.hiddenPreviews ?? configuration.hiddenPreviews
        let hidden = Redaction.hides(policy, locked: locked == true)
        if hidden {
            let showTitle = categories.first?.showTitle ?? configuration.showTitle
            content = Redaction.hidden(content, showTitle: showTitle, placeholder: configuration.placeholder)
        }
        if shown.thread != nil, shown.ids.count > 1 {
            // How many more the thread's popup folds in, after what it shows.
            let format = categories.first?.threadSummary ?? NotificationCategory.defaultThreadSummary
            let note = NotificationCategory.threadText(format, folded: shown.ids.count - 1)
            content.body = content.body.isEmpty ? note : content.body + "\n" + note
        }
        var popup = Popup(content: content, replaces: replaces, sound: categories.first?.sound)
        guard let category = categories.first else { return (popup, hidden) }
        let capabilities = Set(server?.capabilities ?? ["actions"])
        for action in book.buttons(of: category) {
            if !action.input {
                popup.buttons.append(Popup.Button(key: action.name, label: action.label))
            } else if capabilities.contains("inline-reply"), popup.replyPlaceholder == nil {
                // One text field per popup: the first input action becomes the inline reply.
                popup.buttons.append(Popup.Button(key: "inline-reply", label: action.label))
                popup.replyPlaceholder = action.placeholder.isEmpty ? action.label : action.placeholder
                popup.replySubmit = action.submit.isEmpty ? nil : action.submit
            } else if prompt != nil {
                popup.buttons.append(Popup.Button(key: action.name, label: action.label))
            } else {
                presentationNotes.insert("""
                    the text action '\(action.name)' of [Category \(category.name)] is left out: the notification \
                    server has no inline replies and no prompt program (zenity, kdialog or yad) is installed
                    """)
            }
        }
        if let name = category.defaultAction, let action = book.action(name),
           !(Self.drawsDefaultAsButton.contains(server?.name ?? "") && popup.buttons.contains { $0.key == name }) {
            popup.buttons.append(Popup.Button(key: "default", label: action.label))
        }
        return (popup, hidden)
    }

    /// Servers that draw the `default` action as one more button instead of running it on a click on the popup
    /// (measured: xfce4-notifyd 0.7); where the default action is already a button it is not sent twice to them.
    static let drawsDefaultAsButton: Set<String> = ["Xfce Notify Daemon"]

    /// The session was locked or unlocked: popups of hidden-when-locked categories still on screen are shown again
    /// in place, hidden or in full.
    func lockChanged(_ isLocked: Bool) {
        guard locked != isLocked else { return }
        locked = isLocked
        Log.info("the session is \(isLocked ? "locked" : "unlocked")")
        for (serverID, shown) in popups where shown.kind != .summary {
            let policy = category(of: shown.content)?.hiddenPreviews ?? configuration.hiddenPreviews
            guard policy == .whenLocked, shown.hiddenWhileLocked != isLocked else { continue }
            submit(Delivery(popup: shown, replaces: serverID, fresh: []))
        }
        publishStatus()
    }

    /// Rebuilds the actions and categories in effect from aviso.conf and the reminder files, and logs new problems.
    func rebuildBook() {
        let rebuilt = CategoryBook(configuration: configuration, reminders: reminders)
        for p in rebuilt.problems where !book.problems.contains(p) { Log.error(p.description) }
        book = rebuilt
        prompt = PromptTool.resolve(configuration.prompt, path: environment["PATH"])
        presentationNotes = []
    }

    /// Keeps events (for `avisoctl events` and `stats`) and hands them to whoever follows them.
    func record(_ events: [StoredEvent]) {
        guard !events.isEmpty else { return }
        do {
            try store.recordEvents(events, keep: configuration.eventsKept)
        } catch {
            Log.warning("cannot keep \(events.count) event(s): \(error)")
        }
        let lines = events.map(Self.info)
        for (_, follower) in followers { for e in lines { follower.yield(.ok(.events([e]))) } }
    }

    static func info(_ e: StoredEvent) -> EventInfo {
        if e.event == "hook" {
            return EventInfo(t: ISO8601.formatMilliseconds(e.at), id: e.id, event: e.event, category: e.category,
                             outcome: e.action, durationMs: e.text.flatMap { Int($0) })
        }
        return EventInfo(t: ISO8601.formatMilliseconds(e.at), id: e.id, event: e.event, action: e.action, text: e.text,
                         category: e.category)
    }

    /// The kept events, and (when `follow`) a stream of the ones to come, which ends when its reader stops.
    public func events(follow: Bool) -> (Reply, AsyncStream<Reply>?) {
        let kept: [EventInfo]
        do {
            kept = try store.events().map(Self.info)
        } catch {
            return (storageError("the events cannot be read", error), nil)
        }
        guard follow else { return (.ok(.events(kept)), nil) }
        let (stream, continuation) = AsyncStream.makeStream(of: Reply.self, bufferingPolicy: .bufferingNewest(1_000))
        let key = nextFollower
        nextFollower += 1
        followers[key] = continuation
        continuation.onTermination = { _ in Task { await self.unfollow(key) } }
        return (.ok(.events(kept)), stream)
    }

    private func unfollow(_ key: Int) { followers[key] = nil }
}
