import AvisoCore
import AvisoProtocol

/// How a group of due notifications goes out.
enum Release {
    /// One popup standing for several.
    case summary([OutboxEntry])
    /// The notifications of a thread: folded into its popup.
    case thread(String, [OutboxEntry])
    /// One on its own.
    case single(OutboxEntry)

    var entries: [OutboxEntry] {
        switch self {
        case .summary(let e), .thread(_, let e): e
        case .single(let e): [e]
        }
    }
}

extension Scheduler {
    /// The timer id that wakes the scheduler when quiet hours end or a scheduled summary is due; requests' ids
    /// cannot hold control characters, so it never meets one of theirs.
    static let presentationTimer = "\u{1}presentation"

    /// Hands the outbox to the notification server, without waiting for answers.
    ///
    /// What is held waits (quiet hours, a scheduled summary). The rest goes out in release order: a scheduled
    /// summary as one popup; more than `SummaryThreshold` notifications that were missed or held by quiet hours as
    /// one summary (time-sensitive and critical ones never fold into it); the others one by one, the notifications
    /// of a thread folded into its popup. Each entry is committed as delivered before its popup is requested (at
    /// most once). A popup the server certainly did not show goes back to the outbox and is retried with backoff,
    /// or at once when a server appears. While no server owns the name, one popup at a time is sent (the call may
    /// start one through D-Bus activation); the rest wait for its answer. What goes out together is recorded as
    /// delivered in one transaction.
    func deliverOutbox() {
        let queue: [OutboxEntry]
        do {
            queue = try store.outbox()
        } catch {
            return storeFailed("reading the outbox", error)
        }
        let current = now().wall
        defer {
            armPresentationTimer(queue, at: current)
            publishStatus()
        }
        // Content hooks: an entry whose hook runs waits for it; one that needs a hook gets it started now.
        let ready = passHooks(queue.filter { hold($0, at: current) == nil })
        let probing = serverOwner == nil
        if ready.isEmpty || (probing && !deliveries.isEmpty) { return }
        // All of them begun in one transaction (one disk flush), then shown in release order.
        let releases = probing ? Array(releasePlan(ready).prefix(1)) : releasePlan(ready)
        guard begin(releases.flatMap(\.entries), at: current) else { return }
        releases.forEach(present)
    }

    /// Records entries as delivered before their popup is requested, in one transaction; false (and the store retry
    /// scheduled) when the store refuses, with nothing taken.
    func begin(_ entries: [OutboxEntry], at: WallTime) -> Bool {
        do {
            try store.beginDelivery(entries.map(\.id), at: at)
        } catch {
            storeFailed("recording the delivery of '\(entries.first?.id ?? "")'\(entries.count > 1 ? " and \(entries.count - 1) more" : "")", error)
            return false
        }
        return true
    }

    /// Why an outbox entry waits now ("quiet", "summary"), or nil when it goes out.
    func hold(_ entry: OutboxEntry, at now: WallTime) -> String? {
        if let times = configuration.summaryTimes, deliveryMode(of: entry.content) == .summary,
           let next = times.next(after: entry.due, in: zones.local), next > now {
            return "summary"
        }
        if !level(of: entry.content).breaksThroughQuiet, quiet.isQuiet(at: now, in: zones.local) { return "quiet" }
        return nil
    }

    /// The order and grouping in which ready entries go out.
    func releasePlan(_ ready: [OutboxEntry]) -> [Release] {
        var rest = ReleaseOrder.sorted(ready) { e in
            ReleaseOrder.Key(relevance: e.content.relevance, level: level(of: e.content), due: e.due, id: e.id)
        }
        var plan: [Release] = []
        if configuration.summaryTimes != nil {
            let scheduled = rest.filter { deliveryMode(of: $0.content) == .summary }
            if scheduled.count > 1 {
                plan.append(.summary(scheduled))
                rest.removeAll { deliveryMode(of: $0.content) == .summary }
            }
        }
        // Missed while away, or held while quiet: a crowd of them becomes one summary instead of a storm.
        let crowd = rest.filter { e in
            !level(of: e.content).breaksThroughQuiet
                && (e.late || releasedFromQuiet.contains(e.id) || quiet.isQuiet(at: e.due, in: zones.local))
        }
        if crowd.count > configuration.summaryThreshold {
            plan.append(.summary(crowd))
            let folded = Set(crowd.map(\.id))
            rest.removeAll { folded.contains($0.id) }
        }
        var threadAt: [String: Int] = [:]
        for e in rest {
            guard let t = thread(of: e.content) else {
                plan.append(.single(e))
                continue
            }
            if let i = threadAt[t], case .thread(_, let earlier) = plan[i] {
                plan[i] = .thread(t, earlier + [e])
            } else {
                threadAt[t] = plan.count
                plan.append(.thread(t, [e]))
            }
        }
        return plan
    }

    /// Asks for the popup of entries already recorded as delivered.
    func present(_ release: Release) {
        switch release {
        case .single(let e):
            // A request has at most one popup on screen: the next firing of a repeating one (or of one added again
            // under its identifier) takes the place of the popup still showing it, as a thread's does.
            let existing = popups.first { $0.value.kind == .single && $0.value.ids == [e.id] }
            submit(Delivery(popup: ShownPopup(kind: .single, ids: [e.id], content: content(of: e)),
                            replaces: existing?.key ?? 0, fresh: [e.id]))
        case .summary(let entries):
            let items = entries.map { e in
                SummaryText.Item(id: e.id, content: e.content, due: e.due, note: e.late || e.due < now().wall - Self.lateAfter
                    ? "(due at \(localTime(e.due)))" : "")
            }
            let content = SummaryText.compose(items)
            submit(Delivery(popup: ShownPopup(kind: .summary, ids: ReleaseOrder.sorted(entries) {
                ReleaseOrder.Key(relevance: $0.content.relevance, level: level(of: $0.content), due: $0.due, id: $0.id)
            }.map(\.id), content: content), fresh: entries.map(\.id)))
        case .thread(let t, let entries):
            let existing = popups.first { $0.value.thread == t }
            // The thread's most relevant item is shown (ties: the newest): the one shown so far, or a new one.
            var candidates = entries.map { (id: $0.id, content: content(of: $0), due: $0.due) }
            if let (_, shown) = existing { candidates.append((shown.ids[0], shown.content, WallTime(nanoseconds: .min))) }
            let chosen = candidates.min { a, b in
                let (ra, rb) = (a.content.relevance ?? 0, b.content.relevance ?? 0)
                return ra != rb ? ra > rb : a.due > b.due
            }!
            let others = ((existing?.value.ids ?? []) + entries.map(\.id)).filter { $0 != chosen.id }
            submit(Delivery(popup: ShownPopup(kind: .thread(t), ids: [chosen.id] + others, content: chosen.content),
                            replaces: existing?.key ?? 0, fresh: entries.map(\.id)))
        }
    }

    /// What the popup of an outbox entry says: a late one says when it was due, in the person's local time.
    func content(of entry: OutboxEntry) -> Content {
        var content = entry.content
        if entry.late {
            let note = "(due at \(localTime(entry.due)))"
            content.body = content.body.isEmpty ? note : content.body + "\n" + note
        }
        return content
    }

    /// Sends one popup; its answer comes back to `deliveryFinished`. The popup's image is checked again here: the
    /// file may have changed since the request was added, and the server would read whatever is there.
    func submit(_ delivery: Delivery) {
        var delivery = delivery
        if let image = delivery.popup.content.image, let why = ImageFile.problem(image) {
            Log.warning("'\(delivery.ids.joined(separator: "', '"))': image '\(image)' \(why); shown without it")
            delivery.popup.content.image = nil
        }
        let (popup, hidden) = makePopup(delivery.popup, replaces: delivery.replaces)
        delivery.popup.hiddenWhileLocked = hidden && locked == true
        let token = nextDeliveryToken
        nextDeliveryToken += 1
        deliveries[token] = delivery
        Log.debug("sending '\(delivery.ids.joined(separator: "', '"))' to the notification server")
        self.delivery.show(popup, serverOwnerHint: serverOwner) { outcome in
            Task { await self.deliveryFinished(token, outcome) }
        }
    }

    /// Records what the server answered for one popup.
    func deliveryFinished(_ token: UInt64, _ outcome: DeliveryOutcome) async {
        guard let finished = deliveries.removeValue(forKey: token) else { return }
        var popup = finished.popup
        popup.ids.removeAll { finished.cancelled.contains($0) }
        let names = finished.ids.map { "'\($0)'" }.joined(separator: ", ")
        switch outcome {
        case .shown(let serverID, let owner):
            releaseHooks(finished.fresh)
            waitingReason = nil
            deliveryRetry.reset(to: configuration.retryInitial)
            let previous = finished.replaces == 0 ? nil : popups.removeValue(forKey: finished.replaces)
            if previous != nil, serverID != finished.replaces {
                // The server showed a popup beside the one it was asked to replace: that one is closed, as replacing
                // it would have removed it, so that nothing stays on screen that aviso no longer tracks.
                delivery.close(serverID: finished.replaces)
                Log.debug("the server answered \(serverID) for a replacement of notification \(finished.replaces): "
                    + "closed that one")
            }
            if popup.ids.isEmpty {
                // Removed while the server was answering: nothing may stay on screen that aviso no longer tracks.
                delivery.close(serverID: serverID)
                Log.info("\(names) was removed while being delivered: notification \(serverID) closed")
            } else {
                try? store.setServerID(popup.ids, serverID: serverID, owner: owner)
                popups[serverID] = popup
                for e in early.removeValue(forKey: serverID) ?? [] { await handle(e) }
                let fresh = finished.fresh.filter { popup.ids.contains($0) }
                deliveredCount += fresh.count
                let at = now().wall
                var events = fresh.map { StoredEvent(at: at, id: $0, event: "delivered", category: popup.content.categoryID) }
                if let previous, previous.ids.first != popup.ids.first, let replaced = previous.ids.first {
                    events.append(StoredEvent(at: at, id: replaced, event: "replaced", category: previous.content.categoryID))
                }
                record(events)
                Log.info(describe(popup, serverID: serverID, fresh: fresh.count),
                         .event("delivered", ids: fresh, category: popup.content.categoryID))
            }
            if owner != serverOwner { await serverAppeared(owner) }
            if deliveries.isEmpty { replayEarly() }
            deliverOutbox()
        case .notShown(let error):
            if deliveries.isEmpty { replayEarly() }
            for id in finished.fresh where popup.ids.contains(id) { try? store.abortDelivery(id) }
            let reason = error.isNoServer
                ? "no notification server on the session bus"
                : "the notification server refused: \(error.message)"
            if waitingReason != reason { Log.warning("\(names) \(finished.ids.count == 1 ? "is" : "are") waiting: \(reason)") }
            waitingReason = reason
            scheduleRetry()
        case .unconfirmed(let why):
            releaseHooks(finished.fresh)
            if deliveries.isEmpty { replayEarly() }
            // At most once: it may be on screen, so it stays delivered (its popup id unknown) and is not sent again.
            Log.warning("\(names) may or may not have been shown: \(why); it is not sent again")
        }
        publishStatus()
    }

    private func describe(_ popup: ShownPopup, serverID: UInt32, fresh: Int) -> String {
        switch popup.kind {
        case .single: "delivered '\(popup.ids[0])' as notification \(serverID)"
        case .summary: "delivered \(popup.ids.count) notifications as one summary, notification \(serverID)"
        case .thread(let t):
            popup.ids.count == 1 ? "delivered '\(popup.ids[0])' as notification \(serverID) (thread \(t))"
                : "delivered \(fresh) into thread \(t), notification \(serverID) showing '\(popup.ids[0])' and \(popup.ids.count - 1) more"
        }
    }

    /// The most signals kept for popups whose Notify answer is still on its way.
    static let earlyEventLimit = 256

    /// Every answer is in: signals kept for ids that none of them gave are handled now (and logged as unknown).
    private func replayEarly() {
        let kept = early
        early = [:]
        for (_, events) in kept { for e in events { Task { await self.handle(e) } } }
    }

    /// Popups of these requests that are on their way: closed as soon as the server gives their id.
    func cancelDeliveries(of ids: Set<String>) {
        for (token, d) in deliveries {
            let hit = ids.intersection(d.ids)
            if !hit.isEmpty { deliveries[token]?.cancelled.formUnion(hit) }
        }
    }

    /// Wakes the scheduler when held notifications may go out: when quiet hours end, at the next scheduled summary.
    func armPresentationTimer(_ queue: [OutboxEntry], at now: WallTime) {
        var wake: WallTime?
        for e in queue {
            switch hold(e, at: now) {
            case "summary": wake = min(wake ?? .latestSupported, configuration.summaryTimes?.next(after: now, in: zones.local) ?? .latestSupported)
            case "quiet": wake = min(wake ?? .latestSupported, quiet.nextChange(after: now, in: zones.local) ?? .latestSupported)
            default: break
            }
        }
        guard let wake, wake < .latestSupported else { return timers.disarm(Self.presentationTimer) }
        do {
            try timers.arm(TimerSpec(id: Self.presentationTimer, clock: .realtime, deadline: wake.nanoseconds))
        } catch {
            Log.error("cannot arm the timer for held notifications: \(error)")
        }
    }

    /// "09:00" today, else "2026-11-29 09:00", in the local zone.
    func localTime(_ t: WallTime) -> String {
        let c = zones.local.civil(at: t)
        let today = zones.local.civil(at: now().wall)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let clock = "\(two(c.hour)):\(two(c.minute))"
        if (c.year, c.month, c.day) == (today.year, today.month, today.day) { return clock }
        return "\(c.year)-\(two(c.month))-\(two(c.day)) \(clock)"
    }

    /// Tries the outbox again after the current backoff delay, doubling it up to the configured maximum. One retry
    /// is pending at a time, however many popups failed together.
    func scheduleRetry() {
        deliveryRetry.schedule(maximum: configuration.retryMaximum) { ticket in await self.retryDelivery(ticket) }
    }

    private func retryDelivery(_ ticket: Int) {
        guard deliveryRetry.claim(ticket) else { return }
        deliverOutbox()
    }

    /// An event from the notification server connection.
    public func handle(_ event: NotifierEvent) async {
        // A signal about a popup whose Notify answer has not been handled yet (both come from the server in order,
        // but reach the scheduler on separate paths): kept until the answer is, then handled.
        if let serverID = event.serverID, popups[serverID] == nil, !deliveries.isEmpty,
           early.values.reduce(0, { $0 + $1.count }) < Self.earlyEventLimit {
            early[serverID, default: []].append(event)
            return
        }
        switch event {
        case .closed(let serverID, let reason):
            closed(serverID, reason: reason)
        case .serverAppeared(let owner):
            await serverAppeared(owner)
            deliveryRetry.reset(to: configuration.retryInitial)
            deliverOutbox()
        case .serverVanished:
            Log.notice("the notification server left the session bus")
            serverOwner = nil
            server = nil
        case .actionInvoked(let serverID, let key):
            invoked(serverID, key: key, text: nil)
        case .replied(let serverID, let text):
            invoked(serverID, key: "inline-reply", text: text)
        case .activationToken(let serverID, let token):
            activationTokens[serverID] = token
        }
    }

    /// The server closed a popup: every notification it stood for leaves the delivered set, and a dismissal runs
    /// the category's Dismiss action. A close that follows an action is not a dismissal.
    func closed(_ serverID: UInt32, reason: CloseReason) {
        activationTokens[serverID] = nil
        let acted = actedOn.remove(serverID) != nil
        // A server that closes a popup after an action while aviso shows it again in its place: the new popup
        // takes over when the server answers.
        if acted, deliveries.values.contains(where: { $0.replaces == serverID }) { return }
        guard let popup = popups.removeValue(forKey: serverID) else { return }
        let at = now().wall
        do {
            try store.recordClosed(popup.ids, reason: reason.rawValue, at: at)
        } catch {
            Log.error("cannot record that \(popup.ids.map { "'\($0)'" }.joined(separator: ", ")) closed: \(error)")
        }
        let what = switch reason {
        case .expired: "expired"
        case .dismissed where !acted: "dismissed"
        case .dismissed, .closedByCall, .undefined: "closed"
        }
        record(popup.ids.map { StoredEvent(at: at, id: $0, event: what, category: popup.content.categoryID) })
        if popup.content.image != nil { collectAttachments() }
        Log.info(popup.ids.count == 1 ? "notification '\(popup.ids[0])' closed (\(reason))"
            : "notification \(serverID) closed (\(reason)): \(popup.ids.count) notifications",
            .event(what, ids: popup.ids, category: popup.content.categoryID))
        if reason == .dismissed, !acted, popup.kind != .summary, let name = category(of: popup.content)?.dismissAction,
           let action = book.action(name) {
            perform(action, on: popup.ids[0], content: popup.content, serverID: nil, text: nil, token: nil)
        }
    }

    /// A (new) server owns org.freedesktop.Notifications: the ids of an earlier owner mean nothing to it.
    func serverAppeared(_ owner: String) async {
        guard owner != serverOwner else { return }
        serverOwner = owner
        do {
            try store.clearServerIDs(exceptOwner: owner)
            popups = Self.popups(from: try store.delivered().filter { $0.serverOwner == owner })
        } catch {
            Log.error("cannot update delivered notifications for the new server: \(error)")
        }
        let info = await delivery.serverInfo()
        // Another server may have taken the name while this one was being asked.
        guard serverOwner == owner else { return }
        server = info
        Log.info("notification server: \(server.map { "\($0.name) \($0.version)" } ?? "unknown") (\(owner))")
    }

    /// The popups on screen, as the delivered set remembers them: records sharing a server id are one popup (a
    /// summary, or a thread's folded popup).
    static func popups(from records: [DeliveredRecord]) -> [UInt32: ShownPopup] {
        var grouped: [UInt32: [DeliveredRecord]] = [:]
        for r in records { if let sid = r.serverID { grouped[sid, default: []].append(r) } }
        return grouped.mapValues { group in
            let thread = group[0].content.threadID
            let kind: ShownPopup.Kind = group.count == 1 ? thread.map { .thread($0) } ?? .single
                : group.allSatisfy({ $0.content.threadID == thread && thread != nil }) ? .thread(thread!) : .summary
            return ShownPopup(kind: kind, ids: group.map(\.id), content: group[0].content)
        }
    }
}
