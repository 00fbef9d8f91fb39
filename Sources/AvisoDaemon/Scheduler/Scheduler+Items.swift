import AvisoCore
import AvisoProtocol

/// Items: their logs, their reminders re-planned from scratch on every change, and replace-by-prefix (`sync`).
extension Scheduler {
    static let itemSnoozesKey = "item-snoozes"

    /// An item's reminders as last planned, and what they were planned from. The planner is a pure function of
    /// these and of now; while they are the same and every reminder is still ahead, planning again from scratch
    /// gives the same reminders (a reminder that passed changes the answer, and then it is planned again), so a log
    /// re-plans in full only the item it changed.
    struct ItemPlan {
        struct Key: Hashable {
            var item: Item
            var logVersion: Int
            var snoozedUntil: WallTime?
            var zone: String
            var day: Int64
        }

        var key: Key
        var requests: [Request]

        func isCurrent(_ key: Key, at now: WallTime) -> Bool {
            self.key == key && requests.allSatisfy { if case .date(let t) = $0.trigger { t > now } else { false } }
        }
    }

    /// The items in effect (from the reminder files), by name.
    var items: [String: DeclaredItem] { reminders?.items ?? [:] }

    /// Reads the logs and snoozes kept in the store.
    func loadItems() throws(StoreError) {
        itemLogs = try store.itemLogs()
        itemSnoozes = [:]
        for line in (try store.state(Self.itemSnoozesKey) ?? "").split(separator: "\n") {
            let parts = line.split(separator: "\t")
            if parts.count == 2, let ns = Int64(parts[1]) { itemSnoozes[String(parts[0])] = WallTime(nanoseconds: ns) }
        }
    }

    /// Computes every item's reminders from scratch and makes the `item-` requests equal to them, together with
    /// `change` to a log, in one transaction; the caller reconciles. Returns the entry `removeLast` removed.
    ///
    /// Nothing is changed when the store refuses, and the error is thrown.
    @discardableResult
    func replanItems(log change: ItemLogChange? = nil) throws(StoreError) -> ItemLogEntry? {
        let current = now()
        var logs = itemLogs
        var versions = itemLogVersions
        switch change {
        case .add(let name, let entry)?:
            let index = logs[name, default: []].lastIndex { $0.at <= entry.at }.map { $0 + 1 } ?? 0
            logs[name, default: []].insert(entry, at: index)
            versions[name, default: 0] += 1
        case .removeLast(let name)?:
            _ = logs[name]?.popLast()
            versions[name, default: 0] += 1
        case nil:
            break
        }
        let zone = zones.local
        let today = zone.civil(at: current.wall).daysSinceEpoch
        var plans: [String: ItemPlan] = [:]
        var wanted: [Request] = []
        for (name, declared) in items {
            let item = declared.item
            let problemKey = "item " + name
            if let category = item.category, let why = book.problem(naming: category) {
                let problem = ConfigProblem(file: declared.file, line: declared.categoryLine,
                                            message: "[Item \(name)] Category=\(category): \(why); it has no reminders")
                if declaredProblems[problemKey] != problem { Log.error(problem.description) }
                declaredProblems[problemKey] = problem
                continue
            }
            declaredProblems[problemKey] = nil
            let key = ItemPlan.Key(item: item, logVersion: versions[name] ?? 0, snoozedUntil: itemSnoozes[name],
                                   zone: zone.name, day: today)
            if let last = itemPlans[name], last.isCurrent(key, at: current.wall) {
                plans[name] = last
                wanted += last.requests
                continue
            }
            let plan = ItemPlanner.plan(item, log: logs[name] ?? [], now: current.wall, zone: zone, snoozedUntil: itemSnoozes[name])
            let requests = plan.map { reminder in
                Request(id: item.requestID(at: reminder.at),
                        content: Content(title: item.title, body: reminder.body, categoryID: item.category ?? CategoryBook.itemCategory.name,
                                         userInfo: [Self.itemKey: .string(name)]),
                        trigger: .date(reminder.at), priority: item.priority)
            }
            plans[name] = ItemPlan(key: key, requests: requests)
            wanted += requests
        }
        for gone in declaredProblems.keys where gone.hasPrefix("item ") && items[String(gone.dropFirst(5))] == nil {
            declaredProblems[gone] = nil
        }
        let (info, removed) = try replace(prefix: Item.requestPrefix, with: wanted, log: change, at: current)
        itemLogs = logs
        itemLogVersions = versions
        itemPlans = plans
        if !info.added.isEmpty || !info.removed.isEmpty || !info.updated.isEmpty {
            Log.info("items re-planned: \(info.added.count) reminder(s) added, \(info.removed.count) removed, "
                + "\(info.updated.count) changed, \(info.unchanged.count) kept")
        }
        return removed
    }

    /// Re-plans the items after something changed (a file, the zone, the clock, a fired reminder); a failure is
    /// logged and the previous reminders stay.
    func replanItemsLogging(_ why: String) {
        guard !items.isEmpty || !requests.socketIdentifiers(withPrefix: Item.requestPrefix).isEmpty else { return }
        do { try replanItems() } catch { Log.error("cannot re-plan the items' reminders (\(why)): \(error)") }
    }

    /// The key of `Content.userInfo` that names the item a notification reminds of.
    static let itemKey = "aviso-item"

    /// Makes the socket requests under `prefix` equal to `wanted` in one transaction (with `change` to a log): new
    /// identifiers are added, missing ones removed (their popups closed, as `remove` does), changed ones replaced;
    /// identical ones keep their schedule. The requests must be valid (the caller checked).
    func replace(prefix: String, with wanted: [Request], log change: ItemLogChange?, at current: Now)
        throws(StoreError) -> (SyncInfo, ItemLogEntry?)
    {
        var info = SyncInfo()
        var existing = Set(requests.socketIdentifiers(withPrefix: prefix))
        var put: [ScheduledRequest] = []
        for request in wanted {
            let old = existing.remove(request.id).flatMap { requests[$0]?.request }
            if old == request {
                info.unchanged.append(request.id)
                continue
            }
            guard let next = try? request.firstDeadline(now: current, zones: zones) else {
                Log.warning("'\(request.id)' cannot be scheduled from now (\(request.trigger.summary)); left out")
                continue
            }
            if old == nil { info.added.append(request.id) } else { info.updated.append(request.id) }
            put.append(ScheduledRequest(request: request, added: current.wall, next: next))
        }
        info.removed = existing.sorted()
        let removed = try store.commit(log: change, deleting: info.removed, putting: put)
        storeRecovered()
        imagesLeaving((info.removed + info.updated).compactMap { requests[$0]?.request.content })
        for id in info.removed { requests[id] = nil }
        for r in put { requests[r.request.id] = r }
        cancelHooks(info.removed + info.updated)
        if !info.removed.isEmpty { forgetDelivered(Set(info.removed)) }
        return (info, removed)
    }

    /// `avisoctl sync --prefix P FILE`: every request is checked first; one mistake refuses the whole set.
    func sync(prefix: String, _ wanted: [Request]) -> Reply {
        var wanted = wanted
        if Item.requestPrefix.hasPrefix(prefix) || prefix.hasPrefix(Item.requestPrefix) {
            return .error(ReplyError(code: "invalid", message: """
                the prefix '\(prefix)' covers '\(Item.requestPrefix)', which belongs to items (their reminders are \
                re-planned from their logs); choose another prefix; nothing was changed
                """))
        }
        let current = now()
        var seen: Set<String> = []
        for (index, request) in wanted.enumerated() {
            let what = "requests[\(index)] '\(request.id)'"
            func refuse(_ why: String) -> Reply {
                .error(ReplyError(code: "invalid", message: "\(what): \(why); nothing was changed"))
            }
            guard request.id.hasPrefix(prefix) else { return refuse("does not start with the prefix '\(prefix)'") }
            guard seen.insert(request.id).inserted else { return refuse("the identifier is given twice") }
            if let file = requests[request.id]?.source { return refuse("is declared in \(file)") }
            do { _ = try request.validate(now: current, zones: zones, imageProblem: Attachments.problem) } catch {
                return refuse(error.message)
            }
            if let image = request.content.image {
                switch attachments.attach(image) {
                case .success(let copy): wanted[index].content.image = copy
                case .failure(let e): return refuse(e.message)
                }
            }
            if let category = request.content.categoryID, let why = book.problem(naming: category) { return refuse(why) }
        }
        var info: SyncInfo
        do {
            (info, _) = try replace(prefix: prefix, with: wanted, log: nil, at: current)
        } catch {
            return storageError("nothing was changed", error)
        }
        info.added.sort()
        info.updated.sort()
        info.unchanged.sort()
        Log.info("synced '\(prefix)': \(info.added.count) added, \(info.updated.count) changed, \(info.removed.count) removed, "
            + "\(info.unchanged.count) kept")
        reconcile()
        return .ok(.synced(info))
    }

    /// `avisoctl log NAME [--at TIME] [--count N]`.
    func logItem(_ name: String, at: WallTime?, count: Int?) -> Reply {
        guard let declared = items[name] else { return unknownItem(name) }
        let current = now().wall
        let at = at ?? current
        guard at <= current else {
            return .error(ReplyError(code: "invalid", message: """
                --at \(localTime(at)) is in the future; log what was done, up to now; nothing was changed
                """))
        }
        guard at >= WallTime.earliestSupported else {
            return .error(ReplyError(code: "invalid", message: "--at is before 1970; nothing was changed"))
        }
        let count = count ?? 1
        guard (1...1000).contains(count) else {
            return .error(ReplyError(code: "invalid", message: "--count \(count) is not a whole number from 1 to 1000; nothing was changed"))
        }
        return changeLog(declared, .add(item: name, entry: ItemLogEntry(at: at, count: count)))
    }

    /// `avisoctl unlog NAME`.
    func unlogItem(_ name: String) -> Reply {
        guard let declared = items[name] else { return unknownItem(name) }
        guard itemLogs[name]?.isEmpty == false else {
            return .error(ReplyError(code: "not-found", message: "nothing is logged for '\(name)'; nothing was changed"))
        }
        return changeLog(declared, .removeLast(item: name))
    }

    /// Changes a log and re-plans in one transaction; a log answers the item's reminders, so its popups close and
    /// a snooze ends.
    private func changeLog(_ declared: DeclaredItem, _ change: ItemLogChange) -> Reply {
        let name = declared.item.name
        let snooze = itemSnoozes.removeValue(forKey: name)
        do {
            try replanItems(log: change)
        } catch {
            itemSnoozes[name] = snooze
            return storageError("nothing was logged", error)
        }
        if snooze != nil { saveSnoozes() }
        switch change {
        case .add(_, let entry):
            Log.info("logged '\(name)' at \(localTime(entry.at))\(entry.count == 1 ? "" : " ×\(entry.count)")",
                     .event("logged", id: name))
            closePopups(ofItem: name)
        case .removeLast:
            Log.info("removed the latest entry of '\(name)'")
        }
        reconcile()
        return .ok(.item(itemInfo(declared)))
    }

    /// The `log` action of an item's reminder.
    func logFromAction(_ content: Content) {
        guard let name = itemName(content), let declared = items[name] else {
            return Log.warning("the log action of a notification that is not an item's reminder does nothing")
        }
        if case .error(let e) = changeLog(declared, .add(item: name, entry: ItemLogEntry(at: now().wall))) {
            Log.error("cannot log '\(name)': \(e.message)")
        }
    }

    /// A snooze of an item's reminder: the item's next reminder comes after `span`, with the text it will have then,
    /// and the earlier ones are dropped; a log ends it.
    func snoozeItem(_ name: String, for span: Span) {
        itemSnoozes[name] = now().wall + span
        saveSnoozes()
        replanItemsLogging("a snooze")
        reconcile()
    }

    /// The item a notification reminds of, if it is an item's.
    func itemName(_ content: Content) -> String? {
        if case .string(let name)? = content.userInfo[Self.itemKey] { return name }
        return nil
    }

    private func saveSnoozes() {
        let current = now().wall
        itemSnoozes = itemSnoozes.filter { $0.value > current }
        let text = itemSnoozes.keys.sorted().map { "\($0)\t\(itemSnoozes[$0]!.nanoseconds)" }.joined(separator: "\n")
        do { try store.setState(Self.itemSnoozesKey, text.isEmpty ? nil : text) } catch {
            Log.warning("cannot keep the items' snoozes: \(error)")
        }
    }

    private func closePopups(ofItem name: String) {
        for (serverID, popup) in popups where popup.kind != .summary && itemName(popup.content) == name {
            closePopup(serverID, of: popup.ids[0])
        }
    }

    private func unknownItem(_ name: String) -> Reply {
        let known = items.keys.sorted()
        return .error(ReplyError(code: "not-found", message: "no item '\(name)'"
            + (known.isEmpty ? " (no [Item NAME] group is declared)" : " (items: \(known.joined(separator: ", ")))")
            + "; nothing was changed"))
    }

    /// `avisoctl items`.
    func itemInfos() -> [ItemInfo] { items.keys.sorted().map { itemInfo(items[$0]!) } }

    func itemInfo(_ declared: DeclaredItem) -> ItemInfo {
        let item = declared.item
        let current = now().wall
        let s = ItemPlanner.summary(item, log: itemLogs[item.name] ?? [], now: current, zone: zones.local)
        let planned = (itemPlans[item.name]?.requests ?? []).compactMap { r -> WallTime? in
            guard requests[r.id] != nil, case .date(let t) = r.trigger, t > current else { return nil }
            return t
        }
        var goal: Int?
        switch item.kind {
        case .weekly(let times, _): goal = times
        case .daily(let r?): goal = r.goal
        default: break
        }
        return ItemInfo(
            name: item.name, title: item.title, kind: item.kind.summary, source: "\(declared.file):\(declared.line)",
            last: s.last.map(ISO8601.format), daysSince: s.daysSince, streak: s.streak,
            averageDays: s.averageInterval.map { (Double($0.nanoseconds) / 8.64e12).rounded() / 10 }, today: s.today,
            week: s.thisWeek, goal: goal, entries: s.entries, next: planned.min().map(ISO8601.format), planned: planned.count,
            snoozedUntil: itemSnoozes[item.name].flatMap { $0 > current ? ISO8601.format($0) : nil })
    }
}
