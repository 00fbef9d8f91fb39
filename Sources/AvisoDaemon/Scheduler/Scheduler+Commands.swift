import AvisoCore
import AvisoProtocol

extension Scheduler {
    /// Serves one control-socket command. Refusals change nothing.
    public func handle(_ command: Command) async -> Reply {
        switch command {
        case .add(let request): return add(request)
        case .pending: return .ok(.pending(pendingItems()))
        case .remove(let selector): return remove(selector)
        case .delivered: return deliveredItems()
        case .removeDelivered(let selector): return removeDelivered(selector)
        case .fire(let id):
            guard requests[id]?.next != nil else { return notFound([id], "pending request") }
            if let error = fire(id, manual: true) { return storageError("it was not fired", error) }
            return .ok(.fired(id))
        case .status: return .ok(.status(status()))
        case .list: return .ok(.list(listItems()))
        case .stats:
            return .ok(.stats(StatsInfo(
                evictions: Dictionary(uniqueKeysWithValues: evictions.map { (String($0.key), $0.value) }),
                fired: firedCount, delivered: deliveredCount, skipped: skippedCount, reconciles: reconcileCount,
                categories: try? store.categoryStats())))
        case .reload: return .ok(.reloaded(reload()))
        case .categories: return .ok(.categories(categoryInfos()))
        case .respond(let id, let action, let text): return respond(id, action: action, text: text)
        case .events: return events(follow: false).0
        case .quiet(let change): return quietCommand(change)
        case .sync(let prefix, let requests): return sync(prefix: prefix, requests)
        case .log(let item, let at, let count): return logItem(item, at: at, count: count)
        case .unlog(let item): return unlogItem(item)
        case .items: return .ok(.items(itemInfos()))
        }
    }

    /// The D-Bus API's Add: `avisoctl add`'s options, read with this daemon's zones.
    public func add(options: [String: [String]]) -> Reply {
        do throws(RequestOptions.Problem) {
            return add(try RequestOptions(options).request(zones: zones))
        } catch {
            return .error(ReplyError(code: "invalid", message: error.message + "; nothing was added"))
        }
    }

    func add(_ request: Request) -> Reply {
        var request = request
        let current = now()
        if let file = requests[request.id]?.source {
            return .error(ReplyError(code: "invalid", message: """
                '\(request.id)' is declared in \(file); edit it there, or add the request under another identifier
                """))
        }
        if request.id.hasPrefix(Item.requestPrefix) {
            return .error(ReplyError(code: "invalid", message: """
                identifiers starting with '\(Item.requestPrefix)' belong to items, whose reminders are re-planned from \
                their logs; add the request under another identifier
                """))
        }
        let first: Deadline
        do {
            first = try request.validate(now: current, zones: zones, imageProblem: Attachments.problem)
        } catch {
            return .error(ReplyError(code: "invalid", message: error.message))
        }
        if let image = request.content.image {
            switch attachments.attach(image) {
            case .success(let copy): request.content.image = copy
            case .failure(let e): return .error(ReplyError(code: "invalid", message: e.message + "; nothing was added"))
            }
        }
        if let category = request.content.categoryID, let why = book.problem(naming: category) {
            return .error(ReplyError(code: "invalid", message: why))
        }
        let scheduled = ScheduledRequest(request: request, added: current.wall, next: first)
        do {
            try store.put(scheduled)
        } catch {
            return storageError("the request was not added", error)
        }
        storeRecovered()
        let replaced = requests[request.id] != nil
        if replaced {
            cancelHooks([request.id])
            imagesLeaving([requests[request.id]?.request.content].compactMap { $0 })
        }
        requests[request.id] = scheduled
        Log.info("\(replaced ? "replaced" : "added") '\(request.id)' (\(request.trigger.summary))",
                 .event(replaced ? "replaced" : "added", id: request.id, category: request.content.categoryID))
        reconcile()
        return .ok(.added(request.id))
    }

    func pendingItems() -> [PendingItem] {
        let current = now()
        return window.compactMap { spec in
            guard let r = requests[spec.id], let next = r.next else { return nil }
            return PendingItem(
                id: spec.id, title: r.request.content.title, body: r.request.content.body,
                next: ISO8601.format(next.expectedWall(in: current)), trigger: r.request.trigger.summary,
                clock: spec.clock, request: r.request)
        }
    }

    /// Removes socket requests. Declared reminders live in their files, and items' reminders follow their logs:
    /// naming one is an error, and --prefix and --all pass them by.
    func remove(_ selector: Selector) -> Reply {
        if case .ids(let ids) = selector {
            let declared = ids.compactMap { id in
                requests[id]?.source.map { "'\(id)' is declared in \($0)" }
                    ?? requests[id].flatMap { itemName($0.request.content) }.map { "'\(id)' is a reminder of the item '\($0)'" }
            }
            if !declared.isEmpty {
                return .error(ReplyError(code: "invalid", message: declared.joined(separator: "; ")
                    + "; remove it from its file, or log the item, instead; nothing was changed"))
            }
        }
        let ids: [String]
        let removable = requests.values.filter { $0.source == nil && !$0.request.id.hasPrefix(Item.requestPrefix) }
        switch select(selector, from: removable.map(\.request.id)) {
        case .failure(let unknown): return notFound(unknown.ids, "pending request")
        case .success(let matched): ids = matched
        }
        do {
            try removeFromModel(ids, why: "avisoctl remove")
        } catch {
            return storageError("nothing was removed", error)
        }
        storeRecovered()
        reconcile()
        return .ok(.removed(ids))
    }

    func listItems() -> [ListItem] {
        let current = now()
        let armedIDs = Set(window.map(\.id))
        // Why each request waits needs the whole order: planned here, for `list`, not on every fire.
        let plan = WindowPlanner.plan(
            windowEntries(), now: current, limit: configuration.window, budgets: configuration.priorities.budgets)
        let waiting = Dictionary(plan.waiting.map { ($0.id, $0.reason) }, uniquingKeysWith: { a, _ in a })
        return requests.values.map { r -> (WallTime?, ListItem) in
            let wall = r.next.map { $0.expectedWall(in: current) }
            let id = r.request.id
            return (wall, ListItem(
                id: id, title: r.request.content.title.isEmpty ? r.request.content.body : r.request.content.title,
                next: wall.map(ISO8601.format), priorityClass: priorityClass(of: r),
                state: armedIDs.contains(id) ? "armed" : "waiting",
                reason: armedIDs.contains(id) ? nil : waiting[id].map(describe) ?? "will not fire again",
                source: r.source ?? itemName(r.request.content).map { "item \($0)" } ?? "socket",
                trigger: r.request.trigger.summary))
        }
        .sorted { a, b in
            switch (a.0, b.0) {
            case let (x?, y?) where x != y: return x < y
            case (nil, _?): return false
            case (_?, nil): return true
            default: return a.1.id < b.1.id
            }
        }
        .map(\.1)
    }

    /// The delivered notifications, then those due but held (quiet hours, a scheduled summary).
    func deliveredItems() -> Reply {
        do {
            let current = now().wall
            let held = try store.outbox().compactMap { e in
                hold(e, at: current).map { why in
                    DeliveredItem(id: e.id, title: e.content.title, body: e.content.body, delivered: ISO8601.format(e.due),
                                  serverID: nil, onScreen: false, held: why)
                }
            }
            return .ok(.delivered(try store.delivered().map { d in
                DeliveredItem(
                    id: d.id, title: d.content.title, body: d.content.body, delivered: ISO8601.format(d.delivered),
                    serverID: d.serverID, onScreen: d.serverID != nil && d.serverOwner == serverOwner)
            } + held))
        } catch {
            return .error(ReplyError(code: "internal", message: "could not read delivered notifications: \(error)"))
        }
    }

    func removeDelivered(_ selector: Selector) -> Reply {
        let records: [DeliveredRecord]
        do { records = try store.delivered() } catch {
            return .error(ReplyError(code: "internal", message: "could not read delivered notifications: \(error)"))
        }
        let ids: [String]
        switch select(selector, from: records.map(\.id)) {
        case .failure(let unknown): return notFound(unknown.ids, "delivered notification")
        case .success(let matched): ids = matched
        }
        do { try store.deleteDelivered(ids) } catch {
            return storageError("nothing was removed", error)
        }
        storeRecovered()
        imagesLeaving(records.filter { ids.contains($0.id) }.map(\.content))
        takeOffScreen(Set(ids))
        if attachmentsMayBeUnused { collectAttachments() }
        return .ok(.removed(ids))
    }

    func status() -> StatusInfo {
        let current = now()
        let first = window.first.flatMap { requests[$0.id] }
        let waitingCount = (try? store.outbox().count) ?? 0
        return StatusInfo(
            version: version, uptimeSeconds: Double((current.boot - started.boot).nanoseconds) / 1e9,
            armed: armed.count, total: requests.count, window: configuration.window,
            nextFire: first?.next.map { ISO8601.format($0.expectedWall(in: current)) }, nextID: first?.request.id,
            server: serverOwner.map { owner in
                server ?? ServerInfo(name: "unknown (\(owner) did not describe itself)", vendor: "", version: "",
                                     specVersion: "", capabilities: [])
            }, waiting: waitingCount,
            waitingReason: waitingCount > 0 ? waitingReason : nil, sending: deliveries.values.reduce(0) { $0 + $1.ids.count },
            configErrors: configErrors + (reminders?.problems ?? []) + book.problems
                + declaredProblems.values.sorted { $0.description < $1.description },
            storage: store.report + (storeFailure.map { [$0 + "; new requests are refused, due notifications wait"] } ?? []),
            quiet: quiet.isQuiet(at: current.wall, in: zones.local), locked: locked, presentation: presentationNotes.sorted())
    }

    /// Re-reads the configuration; with errors the previous one stays in effect and the errors are returned.
    public func reload() -> [ConfigProblem] {
        systemd.reloading(monotonicUsec: SystemdNotifier.monotonicUsec())
        let result = loadConfiguration()
        for w in result.warnings { Log.warning(w.description) }
        configErrors = result.errors
        if let c = result.configuration {
            configuration = c
            requests.rules = c.priorities
            quiet.hours = c.quietHours
            rebuildBook()
            if let reminders { adoptDeclared(reminders) }
            replanItemsLogging("reload")
            Log.info("configuration reloaded: window \(c.window)")
        } else {
            for e in result.errors { Log.error(e.description + " (previous configuration kept)") }
        }
        reconcile()
        deliverOutbox()
        systemd.ready(status: lastStatus)
        return result.errors
    }

    /// Which of `ids` a selector names; explicit identifiers that do not exist are an error, reported all at once.
    func select(_ selector: Selector, from ids: [String]) -> Result<[String], UnknownIDs> {
        switch selector {
        case .all: return .success(ids.sorted())
        case .prefix(let p): return .success(ids.filter { $0.hasPrefix(p) }.sorted())
        case .ids(let wanted):
            let known = Set(ids)
            let unknown = wanted.filter { !known.contains($0) }
            return unknown.isEmpty ? .success(Array(Set(wanted)).sorted()) : .failure(UnknownIDs(ids: unknown))
        }
    }

    /// A refusal because the store could not commit: says that nothing changed, and why (disk full, read-only).
    func storageError(_ outcome: String, _ error: StoreError) -> Reply {
        .error(ReplyError(code: "storage", message: "\(outcome): \(error.message)"))
    }

    func notFound(_ ids: [String], _ what: String) -> Reply {
        let list = ids.map { "'\($0)'" }.joined(separator: ", ")
        return .error(ReplyError(code: "not-found", message: "no \(what) \(list); nothing was changed"))
    }
}

/// Identifiers a command named that do not exist.
struct UnknownIDs: Error {
    var ids: [String]
}
