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
                guard let first = try store.outbox().first else { break }
                entry = first
                guard try store.beginDelivery(entry.id, at: now().wall) != nil else { continue }
            } catch {
                Log.error("outbox: \(error)")
                break
            }
            do {
                let (serverID, owner) = try await delivery.show(entry.content, serverOwnerHint: serverOwner)
                if owner != serverOwner { await serverAppeared(owner) }
                try? store.setServerID(entry.id, serverID: serverID, owner: owner)
                onScreen[serverID] = entry.id
                Log.info("delivered '\(entry.id)' as notification \(serverID)\(entry.late ? " (late)" : "")")
                waitingReason = nil
                retryDelay = configuration.retryInitial
            } catch {
                try? store.abortDelivery(entry.id)
                let reason = error.isNoServer
                    ? "no notification server on the session bus"
                    : "the notification server refused: \(error.message)"
                if waitingReason != reason { Log.warning("'\(entry.id)' is waiting: \(reason)") }
                waitingReason = reason
                scheduleRetry()
                break
            }
        }
        publishStatus()
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
