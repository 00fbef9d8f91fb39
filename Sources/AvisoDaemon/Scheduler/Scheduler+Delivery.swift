import AvisoCore
import AvisoProtocol

/// A Notify call on its way: which requests it shows, and which of them were removed meanwhile.
struct Delivery {
    var ids: [String]
    /// Several ids: a summary of missed notifications, closed as one popup.
    var isSummary: Bool
    /// Removed (`remove-delivered`, `remove`, a file edit) before the server answered: their popup is closed as soon
    /// as its id is known, so nothing stays on screen that aviso does not track.
    var cancelled: Set<String> = []
}

extension Scheduler {
    /// Hands the outbox to the notification server, oldest first, without waiting for answers.
    ///
    /// Each entry is committed as delivered before its popup is requested (at most once). Answers arrive in
    /// `deliveryFinished`: a popup the server certainly did not show goes back to the outbox and is retried with
    /// exponential backoff, or at once when a server appears. While no server owns the name, one entry at a time is
    /// sent (the call may start one through D-Bus activation); the rest wait for its answer.
    func deliverOutbox() {
        defer { publishStatus() }
        var queue: [OutboxEntry]
        do {
            queue = try store.outbox()
        } catch {
            return storeFailed("reading the outbox", error)
        }
        let probing = serverOwner == nil
        if queue.isEmpty || (probing && !deliveries.isEmpty) { return }
        let late = queue.filter(\.late)
        if late.count > configuration.summaryThreshold {
            beginSummary(of: late)
            if probing { return }
            queue.removeAll(where: \.late)
        }
        for entry in queue {
            do {
                guard try store.beginDelivery(entry.id, at: now().wall) != nil else { continue }
            } catch {
                return storeFailed("recording the delivery of '\(entry.id)'", error)
            }
            submit(Delivery(ids: [entry.id], isSummary: false), content(of: entry))
            if probing { return }
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
    func submit(_ delivery: Delivery, _ content: Content) {
        var content = content
        if let image = content.image, let why = imageProblem(image) {
            Log.warning("'\(delivery.ids.joined(separator: "', '"))': image '\(image)' \(why); shown without it")
            content.image = nil
        }
        let token = nextDeliveryToken
        nextDeliveryToken += 1
        deliveries[token] = delivery
        Log.debug("sending '\(delivery.ids.joined(separator: "', '"))' to the notification server")
        self.delivery.show(content, serverOwnerHint: serverOwner) { outcome in
            Task { await self.deliveryFinished(token, outcome) }
        }
    }

    /// Records what the server answered for one popup.
    func deliveryFinished(_ token: UInt64, _ outcome: DeliveryOutcome) async {
        guard let finished = deliveries.removeValue(forKey: token) else { return }
        let kept = finished.ids.filter { !finished.cancelled.contains($0) }
        let names = finished.ids.map { "'\($0)'" }.joined(separator: ", ")
        switch outcome {
        case .shown(let serverID, let owner):
            waitingReason = nil
            deliveryRetry.reset(to: configuration.retryInitial)
            if kept.isEmpty {
                // Removed while the server was answering: nothing may stay on screen that aviso no longer tracks.
                delivery.close(serverID: serverID)
                Log.info("\(names) was removed while being delivered: notification \(serverID) closed")
            } else {
                for id in kept { try? store.setServerID(id, serverID: serverID, owner: owner) }
                if finished.isSummary { summaries[serverID] = kept } else { onScreen[serverID] = kept[0] }
                deliveredCount += kept.count
                Log.info(finished.isSummary
                    ? "delivered \(kept.count) missed notifications as one summary, notification \(serverID)"
                    : "delivered '\(kept[0])' as notification \(serverID)")
            }
            if owner != serverOwner { await serverAppeared(owner) }
            deliverOutbox()
        case .notShown(let error):
            for id in kept { try? store.abortDelivery(id) }
            let reason = error.isNoServer
                ? "no notification server on the session bus"
                : "the notification server refused: \(error.message)"
            if waitingReason != reason { Log.warning("\(names) \(finished.ids.count == 1 ? "is" : "are") waiting: \(reason)") }
            waitingReason = reason
            scheduleRetry()
        case .unconfirmed(let why):
            // At most once: it may be on screen, so it stays delivered (its popup id unknown) and is not sent again.
            Log.warning("\(names) may or may not have been shown: \(why); it is not sent again")
        }
        publishStatus()
    }

    /// Delivers many late notifications as one summary popup instead of a storm; each is recorded as delivered
    /// with the summary's server id, and closing the summary closes them all.
    func beginSummary(of entries: [OutboxEntry]) {
        let at = now().wall
        var begun: [OutboxEntry] = []
        for e in entries {
            do {
                if try store.beginDelivery(e.id, at: at) != nil { begun.append(e) }
            } catch {
                storeFailed("recording the delivery of '\(e.id)'", error)
                break
            }
        }
        guard !begun.isEmpty else { return }
        let lines = begun.map { e in
            let title = e.content.title.isEmpty ? e.content.body : e.content.title
            return "• \(title) (due at \(localTime(e.due)))"
        }
        let summary = Content(
            title: "\(begun.count) missed reminders", body: lines.joined(separator: "\n"),
            level: begun.map(\.content.level).max(by: { $0.urgency < $1.urgency }) ?? .active)
        submit(Delivery(ids: begun.map(\.id), isSummary: true), summary)
    }

    /// Popups of these requests that are on their way: closed as soon as the server gives their id.
    func cancelDeliveries(of ids: Set<String>) {
        for (token, d) in deliveries {
            let hit = ids.intersection(d.ids)
            if !hit.isEmpty { deliveries[token]?.cancelled.formUnion(hit) }
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
        switch event {
        case .closed(let serverID, let reason):
            if let ids = summaries.removeValue(forKey: serverID) {
                for id in ids { try? store.recordClosed(id, reason: reason.rawValue, at: now().wall) }
                Log.info("summary notification \(serverID) closed (\(reason))")
                return
            }
            guard let id = onScreen.removeValue(forKey: serverID) else { return }
            do {
                try store.recordClosed(id, reason: reason.rawValue, at: now().wall)
                Log.info("notification '\(id)' closed (\(reason))")
            } catch {
                Log.error("cannot record that '\(id)' was closed: \(error)")
            }
        case .serverAppeared(let owner):
            await serverAppeared(owner)
            deliveryRetry.reset(to: configuration.retryInitial)
            deliverOutbox()
        case .serverVanished:
            Log.notice("the notification server left the session bus")
            serverOwner = nil
            server = nil
        }
    }

    /// A (new) server owns org.freedesktop.Notifications: the ids of an earlier owner mean nothing to it.
    func serverAppeared(_ owner: String) async {
        guard owner != serverOwner else { return }
        serverOwner = owner
        do {
            try store.clearServerIDs(exceptOwner: owner)
            onScreen = [:]
            summaries = [:]
            for d in try store.delivered() where d.serverOwner == owner {
                if let sid = d.serverID { onScreen[sid] = d.id }
            }
        } catch {
            Log.error("cannot update delivered notifications for the new server: \(error)")
        }
        let info = await delivery.serverInfo()
        // Another server may have taken the name while this one was being asked.
        guard serverOwner == owner else { return }
        server = info
        Log.info("notification server: \(server.map { "\($0.name) \($0.version)" } ?? "unknown") (\(owner))")
    }
}
