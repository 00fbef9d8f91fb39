import AvisoCore
import AvisoProtocol

extension Scheduler {
    /// Makes the model agree with the declared reminders: new ones are added, changed ones updated, ones no longer
    /// declared removed (with their popups). A reminder whose trigger did not change keeps its schedule, so an
    /// `Every=` rhythm survives restarts and edits of other keys.
    ///
    /// With `changes` (what a reload of the directory reported) only those identifiers are looked at, so editing one
    /// file of a large model costs what that file holds; without, the whole directory is compared with the model.
    func adoptDeclared(_ directory: ReminderDirectory, changes: ReminderChanges? = nil) async {
        let current = now()
        let declared = directory.reminders
        var gone: [String] = []
        let candidates: [String]
        if let changes {
            gone = changes.removed.filter { requests[$0]?.source != nil && declared[$0] == nil }
            candidates = Array(changes.added.union(changes.updated))
        } else {
            for (id, r) in requests where r.source != nil && declared[id] == nil { gone.append(id) }
            candidates = Array(declared.keys)
        }
        var changed: [(ScheduledRequest, isNew: Bool, line: Int)] = []
        for id in candidates {
            guard let d = declared[id] else { continue }
            let old = requests[id]
            if let old, old.source == nil {
                Log.warning("'\(id)' is declared in \(d.file): it replaces the request of that name added over the socket")
            }
            if let old, old.source == d.file, old.request == d.request { continue }
            var r = ScheduledRequest(
                request: d.request, added: current.wall,
                next: Schedule.firstDeadline(for: d.request.trigger, now: current, zones: zones), source: d.file)
            if let old, old.request.trigger == d.request.trigger, old.source != nil {
                r.added = old.added
                r.next = old.next
                r.fireCount = old.fireCount
                r.lastFired = old.lastFired
            }
            changed.append((r, old == nil, d.line))
        }
        do {
            // One transaction for the whole directory: 100,000 reminders load with one disk flush, not 100,000.
            try store.put(changed.map(\.0))
        } catch {
            Log.error("cannot store the declared reminders: \(error)")
            return
        }
        for (r, _, _) in changed { requests[r.request.id] = r }
        if changed.count <= 20 {
            for (r, isNew, line) in changed.sorted(by: { $0.0.request.id < $1.0.request.id }) {
                Log.info("\(isNew ? "declared" : "updated") '\(r.request.id)' from \(r.source ?? "?"):\(line) (\(r.request.trigger.summary))")
            }
        } else {
            let added = changed.filter(\.isNew).count
            Log.info("declared \(added) and updated \(changed.count - added) reminder(s) from \(directory.path)")
        }
        await removeFromModel(gone.sorted(), why: "no longer declared")
        for p in directory.problems { Log.error(p.description + " (its last good version stays in effect)") }
        for w in directory.warnings { Log.warning(w.description) }
    }

    /// Removes requests from the model and closes their popups still on screen: no ghost is left behind.
    func removeFromModel(_ ids: [String], why: String) async {
        guard !ids.isEmpty else { return }
        do {
            try store.deleteRequests(ids)
        } catch {
            Log.error("cannot remove \(ids): \(error)")
            return
        }
        for id in ids { requests[id] = nil }
        Log.info("removed \(ids.map { "'\($0)'" }.joined(separator: ", ")) (\(why))")
        await forgetDelivered(Set(ids))
    }

    /// Closes the popups of these requests that are still on screen and drops them from the delivered set.
    func forgetDelivered(_ ids: Set<String>) async {
        guard let records = try? store.delivered() else { return }
        let matched = records.filter { ids.contains($0.id) }
        guard !matched.isEmpty else { return }
        try? store.deleteDelivered(matched.map(\.id))
        for d in matched {
            guard let sid = d.serverID, d.serverOwner == serverOwner, onScreen.removeValue(forKey: sid) != nil else {
                continue
            }
            await delivery.close(serverID: sid)
        }
    }

    /// Re-reads the local zone and re-plans floating calendar triggers (those without a zone of their own), so a
    /// person who flies keeps their 09:00 reminder at 09:00 local time.
    func zoneChanged() {
        let started = KernelClocks.now()
        let old = zones.local.name
        zoneLookup.localChanged()
        zones = zoneLookup.context()
        let current = now()
        var moved = 0
        for (id, r) in requests {
            guard case .calendar(let c) = r.request.trigger, c.zone == nil else { continue }
            var updated = r
            updated.next = Schedule.firstDeadline(for: r.request.trigger, now: current, zones: zones)
            guard updated.next != r.next else { continue }
            try? store.put(updated)
            requests[id] = updated
            moved += 1
        }
        reconcile()
        let took = Double((KernelClocks.now().boot - started.boot).nanoseconds) / 1e6
        Log.notice("the local time zone changed from \(old) to \(zones.local.name): \(moved) floating request(s) re-planned in \(took) ms")
    }

    /// A change under the configuration directory or of the local time zone.
    public func handle(_ event: FileEvent) async {
        guard let reminders else { return }
        switch event {
        case .configChanged(let paths):
            let whole = paths.contains(reminders.path) || paths.contains { !$0.hasPrefix(reminders.path + "/") }
            let changes = reminders.reload(changed: whole ? nil : paths)
            if paths.contains(configFile) { _ = reload() }
            guard !changes.isEmpty || !reminders.problems.isEmpty else { return }
            await adoptDeclared(reminders, changes: changes)
        case .zoneChanged:
            zoneChanged()
            _ = reminders.reparseAll()
            await adoptDeclared(reminders)
        case .watchFailed(let error):
            Log.error("the configuration directory is no longer watched: \(error); use avisoctl reload after edits")
        }
        reconcile()
    }
}
