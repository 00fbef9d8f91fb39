import AvisoCore
import AvisoProtocol

/// Owns the model, the armed timers and the fire path. Every change to any of them goes through this actor.
///
/// The model lives in `requests`; the armed set is derived from it by `reconcile()`, which plans the window in the
/// pure core and applies the difference to the timer backend. A one-shot request is moved to the outbox in the same
/// transaction that removes it from the model, and from the outbox to the delivered set before the popup is shown:
/// after a crash at any point it is never shown twice.
public actor Scheduler {
    let store: Store
    let timers: any TimerBackend
    let delivery: any NotificationDelivery
    let systemd: SystemdNotifier
    let now: @Sendable () -> Now
    let fileExists: @Sendable (String) -> Bool
    let loadConfiguration: @Sendable () -> ConfigLoadResult
    let version: String

    var configuration: Configuration
    var configErrors: [ConfigProblem] = []
    var requests: [String: ScheduledRequest] = [:]
    var armed: [String: TimerSpec] = [:]
    /// The armed timers in window order (soonest first), as last planned.
    var window: [TimerSpec] = []
    /// Popups on screen of the current server: its id -> request id.
    var onScreen: [UInt32: String] = [:]
    var serverOwner: String?
    var server: ServerInfo?
    var waitingReason: String?
    var retryDelay: Span
    var retryTask: Task<Void, Never>?
    var delivering = false
    let started: Now
    var lastStatus = ""

    public init(
        store: Store, timers: any TimerBackend, delivery: any NotificationDelivery, systemd: SystemdNotifier,
        configuration: ConfigLoadResult, version: String,
        now: @escaping @Sendable () -> Now, fileExists: @escaping @Sendable (String) -> Bool,
        loadConfiguration: @escaping @Sendable () -> ConfigLoadResult
    ) {
        self.store = store
        self.timers = timers
        self.delivery = delivery
        self.systemd = systemd
        self.now = now
        self.fileExists = fileExists
        self.loadConfiguration = loadConfiguration
        self.version = version
        self.configuration = configuration.configuration ?? .defaults
        self.configErrors = configuration.errors
        self.retryDelay = self.configuration.retryInitial
        self.started = now()
    }

    /// Loads the model from the store, arms the window and resumes deliveries left in the outbox.
    public func start() throws(StoreError) {
        for r in try store.requests() { requests[r.request.id] = r }
        for d in try store.delivered() where d.serverID != nil {
            if let sid = d.serverID { onScreen[sid] = d.id }
        }
        reconcile()
        Log.info("loaded \(requests.count) request(s); \(armed.count) armed")
        Task { await self.deliverOutbox() }
    }

    /// Recomputes the window from the whole model and applies the difference: a no-op touches no timer.
    func reconcile() {
        let current = now()
        let entries = requests.values.compactMap { r in
            r.next.map { WindowEntry(id: r.request.id, deadline: $0, priorityClass: 99) }
        }
        let plan = WindowPlanner.plan(entries, now: current, limit: configuration.window)
        for action in Reconciler.diff(desired: plan.armed, armed: armed) {
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
            }
        }
        window = plan.armed
        publishStatus()
    }

    /// A timer event from the backend.
    public func handle(_ event: TimerEvent) async {
        switch event {
        case .fired(let id):
            armed[id] = nil
            await fire(id, manual: false)
        case .clockChanged:
            Log.notice("the wall clock changed: re-arming wall-clock deadlines")
            for (id, spec) in armed where spec.clock == .realtime { armed[id] = nil }
            reconcile()
        }
    }

    /// Moves a due request (or, when `manual`, any pending request) to the outbox and delivers it.
    func fire(_ id: String, manual: Bool) async {
        let current = now()
        guard var r = requests[id], let due = r.next else { return reconcile() }
        if !manual && !due.isDue(at: current) {
            // Early wake (a clock step moved the deadline): arm again.
            return reconcile()
        }
        let dueWall = manual ? current.wall : due.expectedWall(in: current)
        if !manual { r.next = Schedule.deadline(after: due, trigger: r.request.trigger, now: current) }
        else if !r.request.trigger.repeats { r.next = nil }
        r.fireCount += 1
        let late = !manual && (current.wall - dueWall) > .seconds(60)
        do {
            try store.recordFiring(r, outbox: OutboxEntry(id: id, content: r.request.content, due: dueWall, late: late))
        } catch {
            Log.error("cannot record the firing of '\(id)': \(error)")
            return
        }
        requests[id] = r.next == nil ? nil : r
        reconcile()
        await deliverOutbox()
    }

    /// The systemd status line: armed count and the next fire.
    func publishStatus() {
        var line = "\(armed.count) armed of \(requests.count)"
        if let first = window.first, let r = requests[first.id], let next = r.next {
            line += "; next '\(first.id)' at \(ISO8601.format(next.expectedWall(in: now())))"
        }
        if let reason = waitingReason { line += "; waiting: \(reason)" }
        if line != lastStatus {
            lastStatus = line
            systemd.status(line)
        }
    }

    /// Pings the systemd watchdog from this actor, so a stuck scheduler stops pinging.
    public func watchdogLoop(every interval: Duration) async {
        while !Task.isCancelled {
            systemd.watchdog()
            try? await Task.sleep(for: interval)
        }
    }

    /// The status line, for READY=1.
    public var statusLine: String { lastStatus }
}
