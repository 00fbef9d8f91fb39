import AvisoCore
import AvisoProtocol

extension Scheduler {
    /// Makes the model agree with the declared reminders: new ones are added, changed ones updated, ones no longer
    /// declared removed (with their popups). A reminder whose trigger did not change keeps its schedule, so an
    /// `Every=` rhythm survives restarts and edits of other keys.
    ///
    /// With `changes` (what a reload of the directory reported) only those identifiers are looked at, so editing one
    /// file of a large model costs what that file holds; without, the whole directory is compared with the model.
    ///
    /// `stored`: at start, what `adoptStoredSchedules` did. The identifiers whose stored schedules it did not take
    /// are planned anew if still declared, else removed. The reminders it took are as declared already and are not
    /// looked at again: when it took as many as there are names declared, none is.
    func adoptDeclared(_ directory: ReminderDirectory, changes: ReminderChanges? = nil, stored: StoredAdoption? = nil) {
        let current = now()
        let declared = directory.reminders
        var gone: [String] = []
        let candidates: [String]
        if let changes {
            gone = changes.removed.filter { requests[$0]?.source != nil && declared[$0] == nil }
            candidates = Array(changes.added.union(changes.updated))
        } else if let stored {
            for id in stored.left where declared[id] == nil && requests[id] == nil { gone.append(id) }
            // Each schedule taken is a distinct name in effect: when all were taken, no name is left to plan.
            candidates = stored.taken == declared.keys.count ? [] : declared.keys.filter { requests[$0]?.source == nil }
        } else {
            for (id, r) in requests where r.source != nil && declared[id] == nil { gone.append(id) }
            candidates = Array(declared.keys)
        }
        // What changed, held once (100,000 at a first start); which are new and their lines only for the log.
        var changed: [ScheduledRequest] = []
        changed.reserveCapacity(candidates.count)
        var added = 0
        var details: [(id: String, isNew: Bool, line: Int)] = []
        let deadlines = FirstDeadlines()
        // A whole directory (a first start) is written on a thread of its own while the rest is planned here; with
        // no thread to be had, here at the end.
        let writer = candidates.count > Self.handoffBatch ? StoreWriter(store) : nil
        var batch: [ScheduledRequest] = []
        // Beside a writer each is put in the model as soon as it is planned (at a first start, 100,000 inserts no
        // longer wait for the commit); what it replaced is kept, to be put back if the write fails.
        var replaced: [ScheduledRequest] = []
        // The model is a local variable for the loop (nothing in it reads `requests`): each use of the actor's
        // property copied the whole struct, for each of 100,000 reminders at a first start.
        var model = RequestModel(rules: requests.rules, bootID: started.bootID)
        swap(&model, &requests)
        let storedLeft = stored?.left ?? []
        for id in candidates {
            guard var d = declared[id] else { continue }
            // The image as the model holds it (the copy, named by its content): an unchanged file compares equal.
            attachImage(&d)
            let old = model[id]
            if let old, old.source == nil {
                Log.warning("'\(id)' is declared in \(d.file): it replaces the request of that name added over the socket")
            }
            if let old, old.source == d.file, old.request == d.request {
                if !declaredProblems.isEmpty { declaredProblems[id] = nil }
                continue
            }
            guard let r = schedule(d, replacing: old, modified: directory.modificationTime(of: d.file), at: current,
                                   deadlines: deadlines) else {
                continue
            }
            if !declaredProblems.isEmpty { declaredProblems[id] = nil }
            let isNew = old == nil && (storedLeft.isEmpty || !storedLeft.contains(id))
            changed.append(r)
            if let writer {
                batch.append(r)
                if batch.count == Self.handoffBatch {
                    writer.batches.put(batch)
                    batch.removeAll(keepingCapacity: true)
                }
                if let old { replaced.append(old) }
                model[id] = r
            }
            if isNew { added += 1 }
            if changed.count <= 20 { details.append((id, isNew, d.line)) }
        }
        swap(&model, &requests)
        do {
            // One transaction for the whole directory: 100,000 reminders load with one disk flush, not 100,000.
            if let writer {
                writer.batches.put(batch)
                try writer.finish()
            } else {
                try store.put(changed)
            }
        } catch {
            // Said once, not at each retry while the disk stays full.
            if !declaredBehind {
                Log.error("cannot store the declared reminders: \(error); they are stored and planned once the database accepts writes")
            }
            declaredBehind = true
            storeFailed("storing the declared reminders", error, logged: true)
            if writer != nil {
                for r in changed { requests[r.request.id] = nil }
                for old in replaced { requests[old.request.id] = old }
            }
            return
        }
        if changed.count <= 20 {
            for (r, detail) in zip(changed, details).sorted(by: { $0.1.id < $1.1.id }) {
                let what = detail.isNew ? "declared" : "updated"
                Log.info("\(what) '\(detail.id)' from \(r.source ?? "?"):\(detail.line) (\(r.request.trigger.summary))",
                         .event(what, id: detail.id, category: r.request.content.categoryID))
            }
        } else {
            Log.info("declared \(added) and updated \(changed.count - added) reminder(s) from \(directory.path)")
        }
        if writer == nil { for r in changed { requests[r.request.id] = r } }
        // A whole comparison that was stored leaves nothing behind.
        if changes == nil && stored == nil { declaredBehind = false }
        for id in gone { declaredProblems[id] = nil }
        do {
            try removeFromModel(gone.sorted(), why: "no longer declared")
        } catch {
            Log.error("cannot remove reminders no longer declared: \(error)")
        }
        for p in directory.problems { Log.error(p.description) }
        for w in directory.warnings { Log.warning(w.description) }
    }

    /// At start, before `adoptDeclared`: each stored schedule whose reminder the same file still declares with the
    /// same trigger is taken as it is, without a write, unless its category has gone meanwhile.
    ///
    /// Two stages on two threads: a thread of its own reads the store's rows and finds each one's declaration, and
    /// hands them over in batches; this one checks each against its trigger and adds it to the model. At 100,000
    /// reminders each stage is about half of the work, and no table of all the schedules is built beside the model
    /// (at most a few batches wait). The store and the directory are the reading thread's until it has finished:
    /// this thread only waits for batches meanwhile.
    func adoptStoredSchedules(_ directory: ReminderDirectory) throws(StoreError) -> StoredAdoption {
        let (store, directory) = (Lent(store), Lent(directory))
        let handoff = Handoff<StoredRow>(capacity: 4)
        let read: @Sendable (Handoff<StoredRow>) -> Void = { handoff in
            var batch: [StoredRow] = []
            batch.reserveCapacity(Self.handoffBatch)
            var cursor = ReminderDirectory.Cursor()
            do throws(StoreError) {
                try store.value.forEachDeclaredSchedule { id, schedule in
                    let declaration = directory.value.declaration(id, from: schedule.source, after: &cursor)
                    batch.append(StoredRow(id: id, declaration: declaration, schedule: schedule))
                    guard batch.count == Self.handoffBatch else { return }
                    handoff.put(batch)
                    batch.removeAll(keepingCapacity: true)
                }
                handoff.put(batch)
                handoff.finish()
            } catch {
                handoff.put(batch)
                handoff.finish(failure: error)
            }
        }
        var batches = handoff
        if KernelThread.start(name: "aviso-adopting", { read(handoff) }) != 0 {
            // Out of threads: the rows are read here first, every batch kept.
            batches = Handoff<StoredRow>(capacity: .max)
            read(batches)
        }
        var left: Set<String> = []
        var taken = 0
        // The model is a local variable for the loop (nothing in it reads `requests`): each use of the actor's
        // property copied the whole struct, a retain and a release of each of its tables, for each of 100,000 rows.
        var model = RequestModel(rules: requests.rules, bootID: started.bootID)
        swap(&model, &requests)
        defer { swap(&model, &requests) }
        let problems = !declaredProblems.isEmpty
        while var rows = batches.take() {
            // Taken out of the batch, not copied from it (a retain and a release of each field, for 100,000 rows);
            // the order they are added in does not matter.
            while let row = rows.popLast() {
                guard var d = row.declaration else {
                    left.insert(row.id)
                    continue
                }
                // The image as the model holds it (the copy, named by its content): an unchanged file compares equal.
                attachImage(&d)
                // A request of that name added over the socket stays.
                guard let kept = row.schedule.scheduling(d.request, declaredIn: d.file),
                      d.request.categoryID.flatMap({ book.problem(naming: $0) }) == nil,
                      model.addIfAbsent(kept) else {
                    left.insert(row.id)
                    continue
                }
                taken += 1
                if problems { declaredProblems[row.id] = nil }
            }
        }
        if let failure = batches.failure as? StoreError { throw failure }
        return StoredAdoption(left: left, taken: taken)
    }

    /// How many rows or schedules go from one thread to the other at a time, in the two stages of a start.
    static let handoffBatch = 512

    /// A stored schedule and the declaration of its name, if any, as the reading thread hands them over.
    struct StoredRow: Sendable {
        var id: String
        var declaration: DeclaredReminder?
        var schedule: DeclaredSchedule
    }

    /// Writes the batches it is handed on a thread of its own (aviso-storing), in one transaction. The store is that
    /// thread's until `finish()` returns.
    final class StoreWriter {
        let batches = Handoff<ScheduledRequest>(capacity: 4)
        private let done = Handoff<Never>(capacity: 1)

        /// Nil when no thread can be started: the caller then writes on its own.
        init?(_ store: Store) {
            let (batches, done) = (batches, done)
            let store = Lent(store)
            let rc = KernelThread.start(name: "aviso-storing") {
                do throws(StoreError) {
                    try store.value.put(from: batches)
                    done.finish()
                } catch {
                    done.finish(failure: error)
                }
            }
            guard rc == 0 else { return nil }
        }

        /// Says that no batch follows, and waits until the transaction is committed or has failed.
        func finish() throws(StoreError) {
            batches.finish()
            done.drain()
            if let failure = done.failure as? StoreError { throw failure }
        }
    }

    /// What `adoptStoredSchedules` did.
    struct StoredAdoption {
        /// The identifiers of the rows not taken (declared otherwise, or no longer declared).
        var left: Set<String>
        /// How many schedules were taken.
        var taken: Int
    }

    /// A declared reminder's image checked and copied; one that cannot be shown is dropped with a warning, and the
    /// rest of the reminder stands.
    func attachImage(_ d: inout DeclaredReminder) {
        guard let image = d.request.image else { return }
        switch attachments.attach(image) {
        case .success(let copy): d.request.content.image = copy
        case .failure(let e):
            Log.warning("\(d.file):\(d.line): [Reminder \(d.request.id)] Image=: \(e.message); it is shown without the image")
            d.request.content.image = nil
        }
    }

    /// The model's entry for a declared reminder: its schedule kept when only other keys changed, else planned anew
    /// from `current`. Nil when it cannot be scheduled (it never elapses, it is out of range): the problem is logged
    /// and listed by `status`, and a previous version, if any, stays in effect.
    ///
    /// An `At=` already past is not a mistake in the file: if the file was written before that moment (`modified`,
    /// asked only then), the daemon was not running when it came due, and it is delivered as missed; otherwise it
    /// never fires.
    func schedule(_ d: DeclaredReminder, replacing old: ScheduledRequest?, modified: @autoclosure () -> WallTime?,
                  at current: Now, deadlines: FirstDeadlines) -> ScheduledRequest?
    {
        let request = d.request
        if let category = request.categoryID, let why = book.problem(naming: category) {
            let kept = old == nil ? "" : " (its last good version stays in effect)"
            let problem = ConfigProblem(file: d.file, line: d.categoryLine, message: "[Reminder \(request.id)] Category=\(category): \(why)\(kept)")
            declaredProblems[request.id] = problem
            Log.error(problem.description)
            return nil
        }
        if let old, old.source != nil, old.request.trigger == request.trigger {
            var kept = old
            kept.request = request
            kept.source = d.file
            return kept
        }
        do {
            let next = try deadlines.of(request, now: current, zones: zones)
            return ScheduledRequest(request: request, added: current.wall, next: next, source: d.file)
        } catch {
            if error.code == .pastDate, case .date(let at) = request.trigger {
                if let modified = modified(), modified < at {
                    return ScheduledRequest(request: request, added: current.wall, next: .wall(at), source: d.file)
                }
                Log.warning("""
                    \(d.file):\(d.triggerLine): [Reminder \(request.id)] At= \(localTime(at)) had already passed when the \
                    file was written; it will not fire
                    """)
                return ScheduledRequest(request: request, added: current.wall, next: nil, source: d.file)
            }
            let kept = old == nil ? "" : " (its last good version stays in effect)"
            let problem = ConfigProblem(file: d.file, line: d.triggerLine, message: "[Reminder \(request.id)] \(error.message)\(kept)")
            declaredProblems[request.id] = problem
            Log.error(problem.description)
            return nil
        }
    }

    /// Removes requests from the model and closes their popups still on screen: no ghost is left behind.
    ///
    /// Throws, with nothing changed, when the store cannot record the removal.
    func removeFromModel(_ ids: [String], why: String) throws(StoreError) {
        guard !ids.isEmpty else { return }
        try store.deleteRequests(ids)
        imagesLeaving(ids.compactMap { requests[$0]?.request.content })
        for id in ids { requests[id] = nil }
        cancelHooks(ids)
        Log.info("removed \(ids.map { "'\($0)'" }.joined(separator: ", ")) (\(why))", .event("removed", ids: ids))
        forgetDelivered(Set(ids))
    }

    /// Closes the popups of these requests that are still on screen (or on their way) and drops them from the
    /// delivered set.
    func forgetDelivered(_ ids: Set<String>) {
        do {
            let records = try store.delivered().filter { ids.contains($0.id) }
            if !records.isEmpty {
                try store.deleteDelivered(records.map(\.id))
                imagesLeaving(records.map(\.content))
            }
        } catch {
            return Log.error("cannot forget the delivered notifications of \(ids.sorted()): \(error)")
        }
        takeOffScreen(ids)
    }

    /// These requests leave their popups: a popup left with none of its requests is closed (recorded as closed by
    /// aviso); one on its way is closed as soon as the server gives its id.
    func takeOffScreen(_ ids: Set<String>) {
        cancelDeliveries(of: ids)
        let at = now().wall
        for (serverID, popup) in popups where !ids.isDisjoint(with: popup.ids) {
            let left = popup.ids.filter { !ids.contains($0) }
            guard left.isEmpty else {
                popups[serverID]?.ids = left
                continue
            }
            popups[serverID] = nil
            delivery.close(serverID: serverID)
            record(popup.ids.map { StoredEvent(at: at, id: $0, event: "closed", category: popup.content.categoryID) })
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
            if changes.presentation {
                // Categories came or went: every declared reminder's Category= is checked again.
                rebuildBook()
                adoptDeclared(reminders)
            } else {
                adoptDeclared(reminders, changes: changes)
            }
            if changes.items || changes.presentation { replanItemsLogging("the reminder files changed") }
        case .zoneChanged:
            zoneChanged()
            itemPlans = [:]
            _ = reminders.reparseAll()
            adoptDeclared(reminders)
            replanItemsLogging("the time zone changed")
        case .watchFailed(let error):
            Log.error("the configuration directory is no longer watched: \(error); use avisoctl reload after edits")
        }
        reconcile()
    }
}

/// The first deadlines of the calendar triggers planned in one adoption, from one `now`: 100,000 reminders share far
/// fewer distinct triggers, and each is planned once.
///
/// Found by the trigger's identity, which the equal triggers read from files share (a reading keeps one of each):
/// hashing each trigger's text, and again at each growth of the table, was more than half of this planning at a first
/// start of 100,000. The trigger is kept beside its deadline, so that its identity is not reused while the table lives.
final class FirstDeadlines {
    private var known: [ObjectIdentifier: (trigger: CalendarTrigger, deadline: Deadline)] = [:]

    /// `request.firstDeadline(now:zones:)`, planned once per calendar trigger (a failure is not kept).
    func of(_ request: Request, now: Now, zones: ZoneContext) throws(ValidationError) -> Deadline {
        guard case .calendar(let c) = request.trigger else { return try request.firstDeadline(now: now, zones: zones) }
        if let d = known[c.identity]?.deadline { return d }
        let d = try request.firstDeadline(now: now, zones: zones)
        known[c.identity] = (c, d)
        return d
    }
}
