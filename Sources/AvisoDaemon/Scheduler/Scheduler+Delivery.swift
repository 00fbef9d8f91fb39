import AvisoCore
import AvisoProtocol

extension Scheduler {
    /// Hands the outbox to the notification server, oldest first, one at a time.
    ///
    /// Each entry is committed as delivered before the popup is requested (at most once); when the server certainly
    /// did not take it (no server on the bus, a refusal), the entry goes back to the outbox and is retried with
    /// exponential backoff, or at once when a server appears.
    func deliverOutbox() async {
        guard !delivering else { return }
        delivering = true
        defer { delivering = false }
        while true {
            let entry: OutboxEntry
            do {
                let all = try store.outbox()
                let late = all.filter(\.late)
                if late.count > configuration.summaryThreshold {
                    guard await sendSummary(of: late) else { break }
                    continue
                }
                guard let first = all.first else { break }
                entry = first
                guard try store.beginDelivery(entry.id, at: now().wall) != nil else { continue }
            } catch {
                Log.error("outbox: \(error)")
                break
            }
            guard await send(entry) else { break }
        }
        publishStatus()
    }

    /// Requests the popup of an entry already recorded as delivered; on failure puts it back into the outbox and
    /// schedules a retry. Returns whether the server took it.
    func send(_ entry: OutboxEntry) async -> Bool {
        var content = entry.content
        if entry.late {
            // A late popup says when it was due, in the person's local time.
            let note = "(due at \(localTime(entry.due)))"
            content.body = content.body.isEmpty ? note : content.body + "\n" + note
        }
        do {
            let (serverID, owner) = try await delivery.show(content, serverOwnerHint: serverOwner)
            if owner != serverOwner { await serverAppeared(owner) }
            try? store.setServerID(entry.id, serverID: serverID, owner: owner)
            onScreen[serverID] = entry.id
            deliveredCount += 1
            Log.info("delivered '\(entry.id)' as notification \(serverID)\(entry.late ? " (late)" : "")")
            waitingReason = nil
            retryDelay = configuration.retryInitial
            return true
        } catch {
            try? store.abortDelivery(entry.id)
            let reason = error.isNoServer
                ? "no notification server on the session bus"
                : "the notification server refused: \(error.message)"
            if waitingReason != reason { Log.warning("'\(entry.id)' is waiting: \(reason)") }
            waitingReason = reason
            scheduleRetry()
            return false
        }
    }

    /// Delivers many late notifications as one summary popup instead of a storm; each is recorded as delivered
    /// with the summary's server id, and closing the summary closes them all.
    func sendSummary(of entries: [OutboxEntry]) async -> Bool {
        let at = now().wall
        var begun: [OutboxEntry] = []
        for e in entries where (try? store.beginDelivery(e.id, at: at)) != nil { begun.append(e) }
        let lines = begun.map { e in
            let title = e.content.title.isEmpty ? e.content.body : e.content.title
            return "• \(title) (due at \(localTime(e.due)))"
        }
        let summary = Content(
            title: "\(begun.count) missed reminders", body: lines.joined(separator: "\n"),
            level: begun.map(\.content.level).max(by: { $0.urgency < $1.urgency }) ?? .active)
        do {
            let (serverID, owner) = try await delivery.show(summary, serverOwnerHint: serverOwner)
            if owner != serverOwner { await serverAppeared(owner) }
            for e in begun { try? store.setServerID(e.id, serverID: serverID, owner: owner) }
            summaries[serverID] = begun.map(\.id)
            deliveredCount += begun.count
            Log.info("delivered \(begun.count) missed notifications as one summary, notification \(serverID)")
            return true
        } catch {
            for e in begun { try? store.abortDelivery(e.id) }
            waitingReason = error.isNoServer ? "no notification server on the session bus"
                : "the notification server refused: \(error.message)"
            scheduleRetry()
            return false
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

    /// Tries the outbox again after the current backoff delay, doubling it up to the configured maximum.
    func scheduleRetry() {
        retryTask?.cancel()
        let delay = retryDelay
        retryDelay = min(retryDelay * 2, configuration.retryMaximum)
        retryTask = Task {
            try? await Task.sleep(for: .nanoseconds(delay.nanoseconds))
            guard !Task.isCancelled else { return }
            await self.deliverOutbox()
        }
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
            retryTask?.cancel()
            retryDelay = configuration.retryInitial
            await deliverOutbox()
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
        server = await delivery.serverInfo()
        Log.info("notification server: \(server.map { "\($0.name) \($0.version)" } ?? "unknown") (\(owner))")
    }
}
