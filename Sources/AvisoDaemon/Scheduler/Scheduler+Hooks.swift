import AvisoCore
import AvisoProtocol

/// A content hook's run for one notification.
struct HookRun: Sendable {
    var token: UInt64
    /// The best version when it ended; nil while it runs.
    var result: Content?
}

/// Content hooks in the scheduler.
///
/// A request whose category has a `ContentHook=` has its timer armed `HookTimeout` before it is due: that wake starts
/// the hook (an *early* run, for that occurrence) and re-arms the timer at the due instant. If the hook has ended by
/// then, the improved content goes out at once, on the usual fast path. Otherwise the firing waits in the outbox and is
/// released when the hook ends or its budget does. A firing without an early run (late, manual, held by quiet hours,
/// or its early run was for another occurrence) runs the hook when it is released.
extension Scheduler {
    func hook(of content: Content) -> ContentHook? { category(of: content)?.hook }

    /// Whether any category has a content hook: without one, no timer is moved earlier and no hook started.
    var hooksConfigured: Bool { book.categories.values.contains { $0.value.hook != nil } }

    /// A window timer moved `HookTimeout` earlier when its request has a hook that has not started for its next
    /// occurrence.
    func withHookLead(_ spec: TimerSpec) -> TimerSpec {
        guard let r = requests[spec.id], let hook = hook(of: r.request.content),
              earlyHooks[spec.id]?.occurrence != r.next else { return spec }
        var early = spec
        early.deadline = spec.deadline &- min(hook.timeout.nanoseconds, spec.deadline)
        return early
    }

    /// The early wake of a request with a hook: the hook starts for the occurrence due next. False when this wake is
    /// not one (the request is due, or has no hook, or its hook already runs for that occurrence).
    func startEarlyHook(_ id: String) -> Bool {
        let current = now()
        guard let r = requests[id], let next = r.next, !next.isDue(at: current), let hook = hook(of: r.request.content),
              earlyHooks[id]?.occurrence != next else { return false }
        // One started for an occurrence that never fired (skipped as too late, say) is of no use any more.
        if let stale = earlyHooks.removeValue(forKey: id), stale.run.result == nil { hookRunner.cancel(stale.run.token) }
        let due = next.expectedWall(in: current)
        let token = runHook(id: id, hook: hook, content: r.request.content, due: due, late: false, attempt: r.fireCount + 1)
        earlyHooks[id] = EarlyHook(run: HookRun(token: token), occurrence: next)
        Log.debug("'\(id)': starting its content hook \(TimeSpan.format(hook.timeout)) before it is due")
        return true
    }

    /// Starts the hooks whose early wake has come but who have no timer to say so: requests beyond the 64-timer window
    /// (a burst larger than the window) due within their `HookTimeout`. Called before the window is planned, so
    /// those in it are then armed at their instant. Looks at most at the window plus the hooks that may run at once.
    func startHooksBeyondWindow(at current: Now) {
        guard hooksConfigured else { return }
        var order = requests.ordered(now: current)
        for _ in 0..<(configuration.window + HookRunner.concurrencyLimit) {
            guard let e = order.next(), e.deadline.expectedWall(in: current) <= current.wall + ContentHook.maximumTimeout else { return }
            guard let r = requests[e.id], let hook = hook(of: r.request.content),
                  e.deadline.expectedWall(in: current) + Span(nanoseconds: -hook.timeout.nanoseconds) <= current.wall else { continue }
            _ = startEarlyHook(e.id)
        }
    }

    /// Binds a firing to its hook: the early run's result when it is ready (the entry then carries the improved
    /// content and may go out at once), or the run still going (it waits in the outbox). Returns whether the entry is
    /// ready to be shown now.
    func bindHook(_ entry: inout OutboxEntry, occurrence: Deadline?) -> Bool {
        if let old = outboxHooks.removeValue(forKey: entry.id), old.result == nil { hookRunner.cancel(old.token) }
        guard hook(of: entry.content) != nil else { return true }
        guard let early = earlyHooks.removeValue(forKey: entry.id) else { return false }
        guard early.occurrence == occurrence else {
            hookRunner.cancel(early.run.token)
            return false
        }
        outboxHooks[entry.id] = early.run
        guard let result = early.run.result else { return false }
        entry.content = result
        return true
    }

    /// The outbox entries that may be shown now as far as hooks go, with their hooks' content; a hook is started for
    /// each entry that needs one and has none.
    func passHooks(_ ready: [OutboxEntry]) -> [OutboxEntry] {
        ready.compactMap { e in
            guard let hook = hook(of: e.content) else { return e }
            if let run = outboxHooks[e.id] {
                guard let result = run.result else { return nil }
                var shown = e
                shown.content = result
                return shown
            }
            let attempt = (requests[e.id]?.fireCount).map { max($0, 1) } ?? 1
            outboxHooks[e.id] = HookRun(token: runHook(id: e.id, hook: hook, content: e.content, due: e.due, late: e.late, attempt: attempt))
            return nil
        }
    }

    /// Popups were shown (or may have been): their firings' hooks are done with. Until then a firing that goes back
    /// to the outbox (no server) keeps its hook's version.
    func releaseHooks(_ ids: [String]) {
        for id in ids { outboxHooks[id] = nil }
    }

    /// Stops the hooks of removed requests.
    func cancelHooks(_ ids: some Sequence<String>) {
        for id in ids {
            if let e = earlyHooks.removeValue(forKey: id), e.run.result == nil { hookRunner.cancel(e.run.token) }
            if let o = outboxHooks.removeValue(forKey: id), o.result == nil { hookRunner.cancel(o.token) }
        }
    }

    private func runHook(id: String, hook: ContentHook, content: Content, due: WallTime, late: Bool, attempt: Int) -> UInt64 {
        let job = HookCommand.job(id: id, hook: hook, content: content, due: due, late: late, attempt: attempt,
                                  environment: environment, stateDirectory: stateDirectory)
        return hookRunner.start(job) { result in Task { await self.hookFinished(result) } }
    }

    /// A hook ended: its best version (an image it named checked and copied, else the one before) is kept for the
    /// firing, counted, and the outbox is tried again.
    func hookFinished(_ result: HookResult) {
        let early = earlyHooks[result.id]?.run.token == result.token
        guard early || outboxHooks[result.id]?.token == result.token else {
            return Log.debug("'\(result.id)': the content hook of a notification no longer waiting ended (\(result.detail))")
        }
        var content = result.content
        if let image = content.image, image != result.original.image {
            switch attachments.attach(image) {
            case .success(let copy): content.image = copy
            case .failure(let e):
                Log.warning("'\(result.id)': the content hook's \(e.message); shown without it")
                content.image = result.original.image
            }
        }
        let category = content.categoryID
        let ms = result.duration.nanoseconds / 1_000_000
        var line = "'\(result.id)': content hook \(result.outcome.rawValue) in \(ms) ms (\(result.detail)), \(result.patches) patch\(result.patches == 1 ? "" : "es") applied"
        if !result.rejected.isEmpty { line += "; ignored: " + result.rejected.joined(separator: "; ") }
        if !result.errors.isEmpty { line += "; stderr: " + result.errors }
        if result.outcome == .completed { Log.info(line, .event("hook", id: result.id, category: category)) } else {
            Log.warning(line, .event("hook", id: result.id, category: category))
        }
        record([StoredEvent(at: now().wall, id: result.id, event: "hook", action: result.outcome.rawValue, text: String(ms),
                            category: category)])
        if early {
            earlyHooks[result.id]?.run.result = content
        } else {
            outboxHooks[result.id]?.result = content
            do {
                try store.replaceOutboxContent(result.id, content)
            } catch {
                Log.error("cannot keep the content hook's version of '\(result.id)': \(error)")
            }
            deliverOutbox()
        }
    }
}

/// A hook started before its request is due, for one occurrence.
struct EarlyHook: Sendable {
    var run: HookRun
    /// The deadline it was started for: a firing of another one (the request changed) does not take its result.
    var occurrence: Deadline
}

extension Scheduler {
    /// Requests or notifications with these contents are going away: if one had an image, unreferenced copies are
    /// deleted at the next reconcile.
    func imagesLeaving(_ contents: [Content]) {
        if contents.contains(where: { $0.image != nil }) { attachmentsMayBeUnused = true }
    }

    /// Deletes the copied images that nothing refers to: no request, no outbox entry, nothing delivered, no hook's
    /// version waiting to be shown.
    func collectAttachments() {
        attachmentsMayBeUnused = false
        guard attachments.hasCopies() else { return }
        var used = Set(requests.values.compactMap(\.request.content.image))
        do {
            used.formUnion(try store.outbox().compactMap(\.content.image))
            used.formUnion(try store.delivered().compactMap(\.content.image))
        } catch {
            // Without the whole picture nothing is deleted.
            return Log.error("cannot tell which images are still in use: \(error)")
        }
        used.formUnion(earlyHooks.values.compactMap(\.run.result?.image))
        used.formUnion(outboxHooks.values.compactMap(\.result?.image))
        let deleted = attachments.collect(keeping: used)
        if deleted > 0 { Log.debug("deleted \(deleted) image cop\(deleted == 1 ? "y" : "ies") no longer in use") }
    }
}
