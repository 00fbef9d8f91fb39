import AvisoCore
import AvisoProtocol

extension Scheduler {
    /// The person chose an action of a popup (a button, the popup itself as `default`, or an inline reply).
    func invoked(_ serverID: UInt32, key: String, text: String?) {
        let token = activationTokens.removeValue(forKey: serverID)
        guard let popup = popups[serverID], popup.kind != .summary else {
            return Log.notice("action '\(key)' for notification \(serverID), which aviso does not know, is ignored")
        }
        guard let category = category(of: popup.content), let action = action(key, in: category) else {
            return Log.notice("action '\(key)' of '\(popup.ids[0])' is not one of its category's; ignored")
        }
        actedOn.insert(serverID)
        perform(action, on: popup.ids[0], content: popup.content, serverID: serverID, text: text, token: token)
    }

    /// The action a server's key stands for in `category`: `default` its DefaultAction, `inline-reply` its first
    /// input action, anything else an action of its list by name.
    func action(_ key: String, in category: NotificationCategory) -> Action? {
        switch key {
        case "default": return category.defaultAction.flatMap(book.action)
        case "inline-reply": return book.buttons(of: category).first(where: \.input)
        default:
            let names = category.referencedActions
            return names.contains(key) ? book.action(key) : nil
        }
    }

    /// Runs an action for the notification `id` whose popup showed `content` (`serverID`, when on screen).
    ///
    /// An input action without its text asks for it first with the prompt program, off the scheduler; the answer
    /// comes back here. Every action is recorded as an event.
    func perform(_ action: Action, on id: String, content: Content, serverID: UInt32?, text: String?, token: String?) {
        if action.input && text == nil {
            guard let prompt else {
                return Log.warning("'\(action.name)' of '\(id)' needs typed text and no prompt program is installed")
            }
            runner.ask(prompt, title: content.title, action: action) { answer in
                Task { await self.answered(answer, action: action, id: id, content: content, serverID: serverID, token: token) }
            }
            return
        }
        let at = now().wall
        actionCount += 1
        record([StoredEvent(at: at, id: id, event: "action", action: action.name, text: text, category: content.categoryID)])
        Log.info("'\(id)': \(action.name) (\(action.verb.text))", .event("action", id: id, category: content.categoryID))
        switch action.verb {
        case .snooze(let span):
            if let item = itemName(content), items[item] != nil { snoozeItem(item, for: span) } else {
                snooze(id, content: content, for: span)
            }
            closePopup(serverID, of: id)
        case .showAgain:
            showAgain(id, content: content, replacing: serverID)
        case .change:
            var changed = content
            changed.body = text ?? ""
            showAgain(id, content: changed, replacing: serverID)
        case .dismiss:
            closePopup(serverID, of: id)
        case .open(let uri):
            runner.open(uri, token: action.foreground ? token : nil)
        case .exec(let argv):
            let event = ActionEvent(id: id, action: action.name, text: text, token: token, category: content.categoryID,
                                    title: content.title, body: content.body, at: at)
            runner.exec(argv, event: event, token: action.foreground ? token : nil)
        case .log:
            logFromAction(content)
            closePopup(serverID, of: id)
        }
    }

    private func answered(_ answer: String?, action: Action, id: String, content: Content, serverID: UInt32?, token: String?) {
        guard let answer else { return Log.info("'\(id)': \(action.name) cancelled at its prompt") }
        perform(action, on: id, content: content, serverID: serverID, text: answer, token: token)
    }

    /// Shows the notification again after `span`, as a one-shot request: under its own identifier when that is free
    /// (a one-shot request that has fired), else under "ID~snooze".
    private func snooze(_ id: String, content: Content, for span: Span) {
        let snoozeID = requests[id] == nil ? id : id + "~snooze"
        let current = now()
        let request = Request(id: snoozeID, content: content, trigger: .interval(span, repeats: false))
        guard let first = try? request.firstDeadline(now: current, zones: zones) else { return }
        let scheduled = ScheduledRequest(request: request, added: current.wall, next: first)
        do {
            try store.put(scheduled)
        } catch {
            return Log.error("cannot snooze '\(id)': \(error)")
        }
        requests[snoozeID] = scheduled
        reconcile()
    }

    /// Shows `content` again for `id`, in place of its popup when it is still on screen.
    private func showAgain(_ id: String, content: Content, replacing serverID: UInt32?) {
        let onScreen = serverID.flatMap { popups[$0] }
        let kind = onScreen?.kind == .single || onScreen == nil ? ShownPopup.Kind.single : onScreen!.kind
        let ids = onScreen?.ids ?? [id]
        try? store.updateDeliveredContent(id, content: content)
        submit(Delivery(popup: ShownPopup(kind: kind, ids: [id] + ids.filter { $0 != id }, content: content),
                        replaces: onScreen == nil ? 0 : serverID!, fresh: onScreen == nil ? [id] : []))
    }

    /// Closes the popup of `id` (aviso closing it, recorded as `closed`) and forgets its delivered notifications.
    func closePopup(_ serverID: UInt32?, of id: String) {
        guard let serverID, let popup = popups.removeValue(forKey: serverID) else { return }
        delivery.close(serverID: serverID)
        let at = now().wall
        do {
            try store.recordClosed(popup.ids, reason: CloseReason.closedByCall.rawValue, at: at)
        } catch {
            Log.error("cannot record that \(popup.ids.map { "'\($0)'" }.joined(separator: ", ")) closed: \(error)")
        }
        record(popup.ids.map { StoredEvent(at: at, id: $0, event: "closed", category: popup.content.categoryID) })
    }

    /// `avisoctl respond ID ACTION [--text TEXT]`: an action of a delivered notification, as if chosen on screen.
    func respond(_ id: String, action name: String, text: String?) -> Reply {
        let record: DeliveredRecord?
        do {
            record = try store.delivered().first { $0.id == id }
        } catch {
            return storageError("nothing was done", error)
        }
        guard let record else { return notFound([id], "delivered notification") }
        let onScreen = popups.first { $0.value.ids.contains(id) && $0.value.kind != .summary }
        let content = onScreen?.value.ids.first == id ? onScreen!.value.content : record.content
        guard let category = category(of: content) else {
            return .error(ReplyError(code: "invalid", message: "'\(id)' has no category with actions; nothing was done"))
        }
        guard let action = action(name, in: category) else {
            let known = category.referencedActions
            return .error(ReplyError(code: "invalid", message: """
                '\(name)' is not an action of [Category \(category.name)]\(known.isEmpty ? "" : " (its actions: \(known.joined(separator: ", ")))"); \
                nothing was done
                """))
        }
        if action.input && text == nil {
            return .error(ReplyError(code: "invalid", message: "'\(action.name)' takes typed text: give --text; nothing was done"))
        }
        perform(action, on: id, content: content, serverID: onScreen?.key, text: text, token: nil)
        return .ok(.responded(id))
    }

    /// `avisoctl categories`.
    func categoryInfos() -> [CategoryInfo] {
        book.categories.values.sorted { $0.value.name < $1.value.name }.map { declared in
            let c = declared.value
            let actions = book.buttons(of: c) + [c.defaultAction, c.dismissAction].compactMap { $0.flatMap(book.action) }
                .filter { a in !c.actions.contains(a.name) }
            return CategoryInfo(
                name: c.name, source: declared.line == 0 ? declared.file : "\(declared.file):\(declared.line)",
                actions: actions.map { a in
                    ActionInfo(name: a.name, label: a.label, run: a.verb.text, input: a.input, destructive: a.destructive,
                               foreground: a.foreground, placeholder: a.placeholder.isEmpty ? nil : a.placeholder,
                               submit: a.submit.isEmpty ? nil : a.submit)
                },
                defaultAction: c.defaultAction, dismiss: c.dismissAction, hiddenPreviews: c.hiddenPreviews?.rawValue,
                delivery: c.delivery?.rawValue, thread: c.thread, level: c.level?.rawValue,
                hook: c.hook.map { h in
                    h.argv.map(CommandLineWords.quote).joined(separator: " ")
                        + " (timeout \(TimeSpan.format(h.timeout)), memory \(ByteSize.format(h.memory)))"
                })
        }
    }
}
