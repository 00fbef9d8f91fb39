import AvisoCore
import AvisoProtocol

/// Owns the model, the armed timers and the fire path. Every change to any of them goes through this actor.
///
/// The model lives in `requests`; the armed set is derived from it by `reconcile()`, which plans the window in the
/// pure core and applies the difference to the timer backend. A one-shot request is moved to the outbox in the same
/// transaction that removes it from the model, and from the outbox to the delivered set before the popup is shown:
/// after a crash at any point it is never shown twice.
public actor Scheduler {
    /// The actor runs on a thread of its own (`aviso-scheduler`): its store's commits wait for the disk there, and an
    /// edited file is parsed there, off the threads that run every other task.
    private let thread = ActorThread(name: "aviso-scheduler")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }
    let store: Store
    let timers: any TimerBackend
    let delivery: any NotificationDelivery
    let systemd: SystemdNotifier
    let now: @Sendable () -> Now
    /// Where images given with notifications are copied.
    let attachments: Attachments
    /// Something that referred to a copied image went away: unreferenced copies are deleted at the next reconcile.
    var attachmentsMayBeUnused = true
    /// aviso's state directory: content hooks run there.
    let stateDirectory: String
    /// Runs content hooks (`Scheduler+Hooks`).
    let hookRunner = HookRunner()
    /// Hooks started before their request is due, by request id.
    var earlyHooks: [String: EarlyHook] = [:]
    /// Hooks of firings in the outbox, by request id; a finished one holds the version to show.
    var outboxHooks: [String: HookRun] = [:]
    let loadConfiguration: @Sendable () -> ConfigLoadResult
    let version: String
    /// The declared reminders (reminders/*.conf); nil when the daemon runs without a configuration directory.
    let reminders: ReminderDirectory?
    /// aviso.conf, whose change on disk means a reload.
    let configFile: String
    /// Where zone rules come from; `zones` is re-read from it when the local zone changes.
    let zoneLookup: ZoneLookup
    var zones: ZoneContext

    var configuration: Configuration
    var configErrors: [ConfigProblem] = []
    /// Declared reminders that parsed but cannot be scheduled (never elapse, out of range), by identifier.
    var declaredProblems: [String: ConfigProblem] = [:]
    var requests: RequestModel
    var armed: [String: TimerSpec] = [:]
    /// The armed timers in window order (soonest first), as last planned.
    var window: [TimerSpec] = []
    /// Counters since start, for `stats`.
    var evictions: [Int: Int] = [:]
    var firedCount = 0
    var deliveredCount = 0
    var skippedCount = 0
    var reconcileCount = 0
    var actionCount = 0
    /// Popups on screen of the current server, by its id.
    var popups: [UInt32: ShownPopup] = [:]
    /// The actions and categories in effect (aviso.conf and reminder files).
    var book = CategoryBook()
    /// Whether the session is locked (logind's LockedHint); nil until logind says.
    var locked: Bool?
    /// Quiet hours and what `avisoctl quiet` said.
    var quiet: QuietPolicy
    /// What quiet held when `avisoctl quiet off` (or a shorter `on`) ended it: released as a crowd like anything
    /// held, though the new policy no longer calls their due time quiet.
    var releasedFromQuiet: Set<String> = []
    /// Popups a person chose an action of: many servers close a popup after an action (reason "dismissed"), which is
    /// not a dismissal.
    var actedOn: Set<UInt32> = []
    /// Signals for server ids not known yet, while Notify answers are on their way (`handle(_:)`).
    var early: [UInt32: [NotifierEvent]] = [:]
    /// The last activation token a server sent for a popup, for the action that follows it.
    var activationTokens: [UInt32: String] = [:]
    /// Every item's log, oldest first, by item name (`Scheduler+Items`).
    var itemLogs: [String: [ItemLogEntry]] = [:]
    /// Items whose reminder was snoozed, and until when.
    var itemSnoozes: [String: WallTime] = [:]
    /// Bumped on each change to an item's log: part of what a plan depends on.
    var itemLogVersions: [String: Int] = [:]
    /// Each item's last plan, reused while what it was computed from is the same (`Scheduler+Items`).
    var itemPlans: [String: ItemPlan] = [:]
    /// Readers of `avisoctl events --follow`.
    var followers: [Int: AsyncStream<Reply>.Continuation] = [:]
    var nextFollower = 0
    /// What the server cannot show as configured, for `status`.
    var presentationNotes: Set<String> = []
    /// What asks for typed text where the server has no inline replies; nil when nothing is installed.
    var prompt: PromptTool?
    /// Starts what actions run.
    let runner: ActionRunner
    /// The daemon's environment: PATH for programs, and what actions' programs inherit.
    let environment: [String: String]
    var serverOwner: String?
    var server: ServerInfo?
    var waitingReason: String?
    /// Notify calls whose answers have not arrived, by token.
    var deliveries: [UInt64: Delivery] = [:]
    var nextDeliveryToken: UInt64 = 0
    /// Retries of deliveries the server did not take.
    var deliveryRetry: Backoff
    /// The last write the store refused (disk full, read-only), while due work waits for it; nil when writes succeed.
    var storeFailure: String?
    /// The declared reminders of a change could not be stored: the model holds what the store holds, behind the
    /// files, until a write succeeds and they are compared again.
    var declaredBehind = false
    var storeFailureCount = 0
    /// Retries of due work the store could not record.
    var storeRetry: Backoff
    let started: Now
    var lastStatus = ""

    public init(
        store: Store, timers: any TimerBackend, delivery: any NotificationDelivery, systemd: SystemdNotifier,
        configuration: ConfigLoadResult, version: String,
        now: @escaping @Sendable () -> Now, stateDirectory: String,
        loadConfiguration: @escaping @Sendable () -> ConfigLoadResult, reminders: ReminderDirectory? = nil,
        configFile: String = "", zoneLookup: ZoneLookup, environment: [String: String] = [:]
    ) {
        self.zoneLookup = zoneLookup
        self.zones = zoneLookup.context()
        self.reminders = reminders
        self.configFile = configFile
        self.store = store
        self.timers = timers
        self.delivery = delivery
        self.systemd = systemd
        self.now = now
        self.stateDirectory = stateDirectory
        self.attachments = Attachments(directory: stateDirectory.isEmpty ? "" : stateDirectory + "/attachments")
        self.loadConfiguration = loadConfiguration
        self.version = version
        self.configuration = configuration.configuration ?? .defaults
        self.started = now()
        self.requests = RequestModel(rules: self.configuration.priorities, bootID: started.bootID)
        self.configErrors = configuration.errors
        self.deliveryRetry = Backoff(initial: self.configuration.retryInitial)
        self.storeRetry = Backoff(initial: self.configuration.retryInitial)
        self.quiet = QuietPolicy(hours: self.configuration.quietHours)
        self.environment = environment
        self.runner = ActionRunner(environment: environment)
    }

    deinit { thread.stop() }

    /// Loads the model from the store, arms the window and resumes deliveries left in the outbox.
    public func start() async throws(StoreError) {
        let added = try store.requests()
        popups = Self.popups(from: try store.delivered())
        quiet.override = (try? store.state(Self.quietKey)).flatMap { $0.flatMap(Self.quietOverride) }
        try loadItems()
        reminders?.load()
        // The table takes the whole model at once, without the quarter left empty by growing it one by one.
        requests.reserveCapacity(added.count + (reminders?.reminders.keys.count ?? 0))
        for r in added { requests[r.request.id] = r }
        rebuildBook()
        if let reminders { adoptDeclared(reminders, stored: try adoptStoredSchedules(reminders)) }
        Log.info("loaded \(requests.count) request(s)")
        store.releaseCache()
        releaseFreeHeap()
        if let why = store.unwritable {
            Log.error(why + "; new requests are refused, and due notifications wait until it can be")
            storeFailure = why
        }
        catchUp()
        // After what came due while the daemon was stopped is delivered: the items' reminders from now on.
        replanItemsLogging("start")
        reconcile()
    }

    func priorityClass(of r: ScheduledRequest) -> Int { requests.priorityClass(of: r) }

    /// The whole model as the window planner sees it.
    func windowEntries() -> [WindowEntry] { requests.windowEntries }

    /// Recomputes the window from the whole model and applies the difference: a no-op touches no timer.
    func reconcile() {
        let current = now()
        reconcileCount += 1
        startHooksBeyondWindow(at: current)
        let planned = requests.armed(now: current, limit: configuration.window, budgets: configuration.priorities.budgets)
        let desired = hooksConfigured ? planned.map(withHookLead) : planned
        for action in Reconciler.diff(desired: desired, armed: armed) {
            switch action {
            case .arm(let spec):
                do {
                    try timers.arm(spec)
                    armed[spec.id] = spec
                } catch {
                    Log.error("cannot arm the timer of '\(spec.id)': \(error)")
                    armed[spec.id] = nil
                }
            case .disarm(let id):
                timers.disarm(id)
                armed[id] = nil
                // Still in the model and still due some day, yet no longer armed: another request took its slot.
                if let r = requests[id], r.next != nil {
                    let c = priorityClass(of: r)
                    evictions[c, default: 0] += 1
                    Log.notice("evicted '\(id)' (class \(c)) from the window: an earlier or more important request took its slot",
                               .event("evicted", id: id, category: r.request.content.categoryID))
                }
            }
        }
        window = desired
        if attachmentsMayBeUnused { collectAttachments() }
        publishStatus()
    }

    /// A timer event from the backend.
    public func handle(_ event: TimerEvent) async {
        switch event {
        case .fired(Self.presentationTimer):
            deliverOutbox()
        case .fired(let id):
            armed[id] = nil
            if startEarlyHook(id) { return reconcile() }
            let current = now()
            if requests.due(now: current).contains(where: { $0 != id }) {
                // Others are due too (the same second, or timers that woke together): fired together and released
                // in release order, not in the order their timers were read.
                catchUp()
            } else {
                fire(id, manual: false)
            }
            if id.hasPrefix(Item.requestPrefix) {
                // Repeats cover today and tomorrow: each one fired moves that horizon along.
                replanItemsLogging("a reminder fired")
                reconcile()
            }
        case .clockChanged:
            Log.notice("the wall clock changed: re-planning wall-clock deadlines")
            clampCalendarDeadlines()
            for (id, spec) in armed where spec.clock == .realtime { armed[id] = nil }
            catchUp()
            replanItemsLogging("the clock changed")
            reconcile()
        }
    }

    /// Sleep and resume, and the session's lock state, from logind.
    ///
    /// Before sleep nothing needs saving (every change is committed when it is made). On resume the window is
    /// reconciled at once, so what came due during the sleep is delivered now rather than when each timer notices.
    public func handle(_ event: SleepEvent) async {
        switch event {
        case .preparingForSleep:
            Log.info("the system is going to sleep")
        case .resumed:
            Log.info("the system resumed: reconciling")
            for (id, spec) in armed where spec.clock == .realtime { armed[id] = nil }
            catchUp()
            replanItemsLogging("resume")
            reconcile()
        case .lockChanged(let isLocked):
            lockChanged(isLocked)
        }
    }

    /// Fires a due request (or, when `manual`, any pending request): records the firing and delivers it.
    ///
    /// With a server present and nothing queued, the firing and the start of its delivery are one transaction, so
    /// the popup is requested after a single disk flush; otherwise the firing goes to the outbox. A late firing
    /// always goes through the outbox, so that several late ones can be folded into one summary. When the store
    /// cannot record the firing, nothing is shown and the request stays due: it is retried (`storeFailed`).
    ///
    /// Returns the store's error when the firing could not be recorded.
    @discardableResult
    func fire(_ id: String, manual: Bool) -> StoreError? {
        let current = now()
        let occurrence = requests[id]?.next
        let prepared: (ScheduledRequest, OutboxEntry)?
        do {
            prepared = try prepareFiring(id, manual: manual, at: current)
        } catch {
            // Not re-armed: the request stays due and the store retry takes it up, rather than a timer firing at
            // once, again and again, while the disk is full.
            storeFailed("recording the skip of '\(id)'", error)
            return error
        }
        guard let (r, prepared) = prepared else {
            reconcile()
            return nil
        }
        var entry = prepared
        let direct = bindHook(&entry, occurrence: occurrence) && !entry.late && serverOwner != nil && hold(entry, at: current.wall) == nil
            && ((try? store.outboxIsEmpty()) ?? false)
        do {
            if direct {
                try store.recordFiringAndBeginDelivery(r, entry: entry, at: current.wall)
            } else {
                try store.recordFiring(r, outbox: entry)
            }
        } catch {
            storeFailed("recording the firing of '\(id)'", error)
            return error
        }
        recorded(r)
        if direct { releasePlan([entry]).forEach(present) }
        if let why = hold(entry, at: current.wall) {
            Log.info("'\(id)' is held: \(why == "quiet" ? "it is quiet" : "it waits for the next summary time")",
                     .event("held", id: id, category: entry.content.categoryID))
        }
        reconcile()
        deliverOutbox()
        return nil
    }

    /// Takes a firing that the store committed into the model and the counters.
    private func recorded(_ r: ScheduledRequest) {
        requests[r.request.id] = Self.staysInModel(r) ? r : nil
        firedCount += 1
        Log.debug("fired '\(r.request.id)'", .event("fired", id: r.request.id, category: r.request.content.categoryID))
        storeRecovered()
    }

    /// Whether a request stays in the model: one that fires again, and a declared one even when it will not (so its
    /// file does not declare it anew, and fire it again, at the next start). A one-shot request added over the
    /// socket leaves once fired. The store keeps the same rule.
    static func staysInModel(_ r: ScheduledRequest) -> Bool {
        r.next != nil || r.request.trigger.repeats || r.source != nil
    }

    /// The request's state after firing and what to deliver; nil when nothing is due (an early wake after a
    /// clock step) or when the occurrence is later than its MaxLate (then the skip is recorded here, and a failure
    /// to record it is thrown).
    func prepareFiring(_ id: String, manual: Bool, at current: Now) throws(StoreError) -> (ScheduledRequest, OutboxEntry)? {
        guard var r = requests[id], let due = r.next else { return nil }
        if !manual && !due.isDue(at: current) { return nil }
        let dueWall = manual ? current.wall : due.expectedWall(in: current)
        if !manual { r.next = Schedule.deadline(after: due, trigger: r.request.trigger, now: current, zones: zones) }
        else if !r.request.trigger.repeats { r.next = nil }
        let lateness = Span.seconds((current.wall - dueWall).nanoseconds / 1_000_000_000)
        if !manual, let limit = r.request.maxLate ?? configuration.maxLate, lateness > limit {
            if Self.staysInModel(r) { try store.put(r) } else { try store.deleteRequests([id]) }
            requests[id] = Self.staysInModel(r) ? r : nil
            skippedCount += 1
            storeRecovered()
            Log.notice("""
                skipped '\(id)' due at \(ISO8601.format(dueWall)): \(TimeSpan.format(lateness)) late, more than its \
                MaxLate of \(TimeSpan.format(limit))
                """, .event("skipped", id: id, category: r.request.content.categoryID))
            return nil
        }
        r.fireCount += 1
        r.lastFired = current.wall
        let late = !manual && lateness > Self.lateAfter
        return (r, OutboxEntry(id: id, content: r.request.content, due: dueWall, late: late))
    }

    /// After the clock was set back, a stored calendar deadline may lie further ahead than the spec's next elapse
    /// from the new now: it is not trusted, but clamped to that elapse, as systemd clamps a last-trigger stamp from
    /// the future. Deadlines that a forward step left in the past stay and are delivered once, as missed.
    func clampCalendarDeadlines() {
        let current = now()
        for (id, r) in requests {
            guard case .calendar = r.request.trigger, case .wall(let stored)? = r.next,
                  let fresh = Schedule.firstDeadline(for: r.request.trigger, now: current, zones: zones),
                  case .wall(let freshWall) = fresh, freshWall < stored else { continue }
            var updated = r
            updated.next = fresh
            try? store.put(updated)
            requests[id] = updated
            Log.info("'\(id)': next elapse moved back to \(ISO8601.format(freshWall)) after the clock change")
        }
    }

    /// A delivery this long after its due time says that it is late.
    static let lateAfter = Span.seconds(60)

    /// Records every request already due as fired, then delivers the outbox once: after a start, a resume or a
    /// clock step, what was missed arrives together (as one summary when there are many), not one timer at a time.
    func catchUp() {
        recordMissed()
        reconcile()
        deliverOutbox()
    }

    /// The recording half of `catchUp()`: every due request fired into the outbox, nothing delivered yet. The
    /// firings are committed in one transaction: what came due together costs one disk flush.
    func recordMissed() {
        let current = now()
        var firings: [(ScheduledRequest, OutboxEntry)] = []
        for id in requests.due(now: current).sorted() {
            do {
                let occurrence = requests[id]?.next
                guard let (r, prepared) = try prepareFiring(id, manual: false, at: current) else { continue }
                var entry = prepared
                _ = bindHook(&entry, occurrence: occurrence)
                firings.append((r, entry))
            } catch {
                storeFailed("recording the skip of '\(id)'", error)
                break
            }
        }
        do {
            try store.recordFirings(firings)
        } catch {
            let first = firings.first?.0.request.id ?? ""
            return storeFailed("recording the firing of '\(first)'\(firings.count > 1 ? " and \(firings.count - 1) more" : "")", error)
        }
        firings.forEach { recorded($0.0) }
    }

    /// A write that due work needed failed (disk full, read-only, I/O error): nothing was shown or changed for it.
    /// The work stays due and is tried again with backoff, and at once after the next write that succeeds.
    /// `logged`: the caller has said what failed, and what waits for it.
    func storeFailed(_ doing: String, _ error: StoreError, logged: Bool = false) {
        storeFailureCount += 1
        if storeFailure == nil && !logged { Log.error("\(doing) failed: \(error.message); due notifications wait and are retried") }
        storeFailure = "\(doing) failed: \(error.message)"
        storeRetry.schedule(maximum: configuration.retryMaximum) { ticket in await self.retryStore(ticket) }
    }

    /// A write succeeded: the store works again, and due work waiting for it is tried now rather than at the next
    /// backoff.
    func storeRecovered() {
        guard storeFailure != nil else { return }
        storeFailure = nil
        Log.notice("the database accepts writes again; due notifications are on their way")
        let waiting = storeRetry.isPending
        storeRetry.reset(to: configuration.retryInitial)
        if waiting { Task { self.catchUpAfterStoreFailure() } }
    }

    private func retryStore(_ ticket: Int) {
        guard storeRetry.claim(ticket) else { return }
        catchUpAfterStoreFailure()
    }

    /// Tries the due work again; when nothing failed this time, the store works again.
    private func catchUpAfterStoreFailure() {
        let failures = storeFailureCount
        if declaredBehind, let reminders {
            // Compared whole with the model again, which clears the mark once it is stored.
            adoptDeclared(reminders)
            reconcile()
        }
        catchUp()
        if storeFailureCount == failures { storeRecovered() }
    }

    func describe(_ reason: WaitReason) -> String {
        switch reason {
        case .behind(let n): "behind \(n) earlier request\(n == 1 ? "" : "s")"
        case .overBudget(let c, let budget): "over the budget of class \(c) (\(budget) slot\(budget == 1 ? "" : "s"))"
        }
    }

    /// The systemd status line: armed count and the next fire.
    func publishStatus() {
        var line = "\(armed.count) armed of \(requests.count)"
        if let first = window.first, let next = requests.next(of: first.id) {
            line += "; next '\(first.id)' at \(ISO8601.format(next.expectedWall(in: now())))"
        }
        if let reason = waitingReason { line += "; waiting: \(reason)" }
        if line != lastStatus {
            lastStatus = line
            systemd.status(line)
        }
    }

    /// Pings the systemd watchdog from this actor, so a stuck scheduler stops pinging (`WatchdogTick` asks).
    public func pingWatchdog() {
        systemd.watchdog()
    }

    /// Stops running content hooks and closes the database at shutdown; nothing may use the scheduler afterwards.
    public func closeStore() {
        hookRunner.stopAll()
        store.close()
    }

    /// The status line, for READY=1.
    public var statusLine: String { lastStatus }
}
