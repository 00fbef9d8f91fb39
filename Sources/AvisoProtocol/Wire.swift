import AvisoCore

/// The version of the control protocol; every message carries it as `v`.
public let protocolVersion = 1

/// The longest request line the daemon accepts, in bytes (newline excluded).
public let maximumLineLength = 1 << 20

/// Which requests a removal applies to.
public enum Selector: Hashable, Sendable, Codable {
    case ids([String])
    case prefix(String)
    case all
}

/// A request sent by a client: one JSON object on one line.
public enum Command: Hashable, Sendable {
    /// Add or replace a request.
    case add(Request)
    /// The armed requests, soonest first.
    case pending
    /// Remove pending requests (and their popups, if on screen).
    case remove(Selector)
    /// The delivered notifications still tracked.
    case delivered
    /// Forget delivered notifications and close their popups.
    case removeDelivered(Selector)
    /// Deliver a pending request now.
    case fire(String)
    /// Daemon status.
    case status
    /// Re-read the configuration.
    case reload
    /// The whole model: armed and waiting requests, with why each one waits.
    case list
    /// Counters since the daemon started.
    case stats
    /// The categories in effect and their actions.
    case categories
    /// Runs an action of a delivered notification, as if its button had been pressed (with typed text for an
    /// input action).
    case respond(id: String, action: String, text: String?)
    /// The interaction events kept; with `follow`, the connection then stays open and each new event follows as
    /// one more reply line.
    case events(follow: Bool)
    /// Reads or changes quiet hours.
    case quiet(QuietChange)
    /// Replaces every request added over the socket whose identifier starts with `prefix` by `requests`, in one
    /// transaction: all of them are valid and start with the prefix, or nothing changes.
    case sync(prefix: String, requests: [Request])
    /// Logs an item (at `at`, nil: now; `count` times, nil: once) and re-plans its reminders.
    case log(item: String, at: WallTime?, count: Int?)
    /// Removes the latest entry of an item's log and re-plans its reminders.
    case unlog(item: String)
    /// The items and what their logs say.
    case items
}

/// What `sync` changed, by identifier.
public struct SyncInfo: Hashable, Sendable, Codable {
    public var added: [String]
    /// Kept identifiers whose request changed.
    public var updated: [String]
    public var removed: [String]
    /// Identical requests kept as they were, with their schedules.
    public var unchanged: [String]

    public init(added: [String] = [], updated: [String] = [], removed: [String] = [], unchanged: [String] = []) {
        self.added = added
        self.updated = updated
        self.removed = removed
        self.unchanged = unchanged
    }
}

/// An item and what its log says, as `items` shows it.
public struct ItemInfo: Hashable, Sendable, Codable {
    public var name: String
    public var title: String
    /// "interval 28d", "daily", "daily every 1h30min 08:00-21:00", "weekly 3", "event".
    public var kind: String
    /// "FILE:LINE" of its `[Item NAME]` group.
    public var source: String
    /// ISO 8601 UTC of the latest entry.
    public var last: String?
    /// Local days from the latest entry's day to today.
    public var daysSince: Int?
    /// Consecutive days with an entry, up to today (or yesterday, while today has none).
    public var streak: Int
    /// The average interval between entries, in days; nil with fewer than two.
    public var averageDays: Double?
    /// Today's count.
    public var today: Int
    /// This week's count, for a weekly item.
    public var week: Int?
    /// `Goal=` of a repeating daily item, `Times=` of a weekly one.
    public var goal: Int?
    /// Entries in the log.
    public var entries: Int
    /// ISO 8601 UTC of its next reminder; nil when none is planned.
    public var next: String?
    /// How many reminders are planned (at most 24).
    public var planned: Int
    /// ISO 8601 UTC of a snooze still ahead.
    public var snoozedUntil: String?

    public init(name: String, title: String, kind: String, source: String, last: String?, daysSince: Int?, streak: Int,
                averageDays: Double?, today: Int, week: Int?, goal: Int?, entries: Int, next: String?, planned: Int,
                snoozedUntil: String?) {
        self.name = name
        self.title = title
        self.kind = kind
        self.source = source
        self.last = last
        self.daysSince = daysSince
        self.streak = streak
        self.averageDays = averageDays
        self.today = today
        self.week = week
        self.goal = goal
        self.entries = entries
        self.next = next
        self.planned = planned
        self.snoozedUntil = snoozedUntil
    }
}

/// What `quiet` asks.
public enum QuietChange: Hashable, Sendable {
    /// Only the state.
    case state
    /// Quiet now, until an instant (nil: until `off`).
    case on(until: WallTime?)
    /// Not quiet now (inside the daily ranges: until the range ends).
    case off
}

/// One interaction with a notification, as `events` lists it.
public struct EventInfo: Hashable, Sendable, Codable {
    /// ISO 8601 UTC, with milliseconds.
    public var t: String
    public var id: String
    /// `delivered`, `action`, `dismissed`, `expired`, `closed` (by aviso or another client), `replaced`, `held`,
    /// `hook`.
    public var event: String
    public var action: String?
    public var text: String?
    public var category: String?
    /// Of a `hook` event: completed, expired, failed or killed.
    public var outcome: String?
    /// Of a `hook` event: how long the hook ran, in milliseconds.
    public var durationMs: Int?

    public init(t: String, id: String, event: String, action: String? = nil, text: String? = nil, category: String? = nil,
                outcome: String? = nil, durationMs: Int? = nil) {
        self.t = t
        self.id = id
        self.event = event
        self.action = action
        self.text = text
        self.category = category
        self.outcome = outcome
        self.durationMs = durationMs
    }
}

/// An action as `categories` shows it.
public struct ActionInfo: Hashable, Sendable, Codable {
    public var name: String
    public var label: String
    /// `Run=` as written back: "snooze 10min", "exec notify-send done".
    public var run: String
    public var input: Bool
    public var destructive: Bool
    public var foreground: Bool
    public var placeholder: String?
    public var submit: String?

    public init(name: String, label: String, run: String, input: Bool, destructive: Bool, foreground: Bool,
                placeholder: String?, submit: String?) {
        self.name = name
        self.label = label
        self.run = run
        self.input = input
        self.destructive = destructive
        self.foreground = foreground
        self.placeholder = placeholder
        self.submit = submit
    }
}

/// A category as `categories` shows it.
public struct CategoryInfo: Hashable, Sendable, Codable {
    public var name: String
    /// "FILE:LINE" of its `[Category NAME]` group.
    public var source: String
    /// Its buttons, in the order shown.
    public var actions: [ActionInfo]
    public var defaultAction: String?
    public var dismiss: String?
    public var hiddenPreviews: String?
    public var delivery: String?
    public var thread: String?
    public var level: String?
    /// Its content hook: `ContentHook=` with its budget ("/usr/lib/x --flag (timeout 5s, memory 24M)").
    public var hook: String?

    public init(name: String, source: String, actions: [ActionInfo], defaultAction: String?, dismiss: String?,
                hiddenPreviews: String?, delivery: String?, thread: String?, level: String?, hook: String? = nil) {
        self.name = name
        self.source = source
        self.actions = actions
        self.defaultAction = defaultAction
        self.dismiss = dismiss
        self.hiddenPreviews = hiddenPreviews
        self.delivery = delivery
        self.thread = thread
        self.level = level
        self.hook = hook
    }
}

/// What `quiet` reports.
public struct QuietInfo: Hashable, Sendable, Codable {
    public var quiet: Bool
    /// Why: "22:00-07:00", "turned on", "turned on until ...", "turned off until ...".
    public var reason: String
    /// ISO 8601 UTC of the next change, when known.
    public var until: String?
    /// `[Quiet] Hours`, as ranges.
    public var hours: [String]
    /// Notifications held now (quiet or waiting for a scheduled summary).
    public var held: Int

    public init(quiet: Bool, reason: String, until: String?, hours: [String], held: Int) {
        self.quiet = quiet
        self.reason = reason
        self.until = until
        self.hours = hours
        self.held = held
    }
}

/// Interactions per category, as `stats` counts them: which categories are noise (dismissed without an action).
public struct CategoryStats: Hashable, Sendable, Codable {
    public var delivered: Int
    /// Each action's count, by name.
    public var actions: [String: Int]
    public var dismissed: Int
    public var expired: Int
    /// How its content hook's runs ended; nil when none ran.
    public var hooks: HookStats?

    public init(delivered: Int = 0, actions: [String: Int] = [:], dismissed: Int = 0, expired: Int = 0, hooks: HookStats? = nil) {
        self.delivered = delivered
        self.actions = actions
        self.dismissed = dismissed
        self.expired = expired
        self.hooks = hooks
    }
}

/// Content hook runs of a category by how they ended.
public struct HookStats: Hashable, Sendable, Codable {
    /// Exited with status 0.
    public var completed = 0
    /// Stopped at their timeout (their best version shown).
    public var expired = 0
    /// Could not start, or exited with another status.
    public var failed = 0
    /// Ended by a signal aviso did not send (out of memory in a scope, a crash).
    public var killed = 0

    public init(completed: Int = 0, expired: Int = 0, failed: Int = 0, killed: Int = 0) {
        self.completed = completed
        self.expired = expired
        self.failed = failed
        self.killed = killed
    }
}

/// One request of the whole model, as `list` shows it.
public struct ListItem: Hashable, Sendable, Codable {
    public var id: String
    public var title: String
    /// ISO 8601 UTC of the next fire; nil when it will not fire again.
    public var next: String?
    /// The priority class, 0 (highest) to 99.
    public var priorityClass: Int
    /// `armed` or `waiting`.
    public var state: String
    /// For waiting requests: "behind 64 earlier requests" or "over the budget of class 90 (4 slots)".
    public var reason: String?
    /// The reminder file that declares it, `item NAME` for an item's reminder, or `socket`.
    public var source: String
    public var trigger: String

    public init(id: String, title: String, next: String?, priorityClass: Int, state: String, reason: String?,
                source: String, trigger: String) {
        self.id = id
        self.title = title
        self.next = next
        self.priorityClass = priorityClass
        self.state = state
        self.reason = reason
        self.source = source
        self.trigger = trigger
    }

    enum CodingKeys: String, CodingKey {
        case id, title, next, state, reason, source, trigger
        case priorityClass = "class"
    }
}

/// What `stats` reports.
public struct StatsInfo: Hashable, Sendable, Codable {
    /// Evictions per priority class since start: an armed request that lost its timer to an earlier or more
    /// important one. Keys are class numbers as strings (JSON object keys).
    public var evictions: [String: Int]
    public var fired: Int
    public var delivered: Int
    /// Occurrences skipped because they were later than their MaxLate.
    public var skipped: Int
    public var reconciles: Int
    /// Interactions per category ("" for notifications without one), from the kept events.
    public var categories: [String: CategoryStats]?

    public init(evictions: [String: Int], fired: Int, delivered: Int, skipped: Int, reconciles: Int,
                categories: [String: CategoryStats]? = nil) {
        self.evictions = evictions
        self.fired = fired
        self.delivered = delivered
        self.skipped = skipped
        self.reconciles = reconciles
        self.categories = categories
    }
}

/// A pending (armed or waiting) request as the client sees it.
public struct PendingItem: Hashable, Sendable, Codable {
    public var id: String
    public var title: String
    public var body: String
    /// ISO 8601 in UTC, like 2026-12-01T08:00:00Z.
    public var next: String
    /// A human description of the trigger, such as "in 10min", "every 1h30min", "at 2026-12-01T08:00:00Z".
    public var trigger: String
    /// The kernel clock the timer is armed on.
    public var clock: KernelClock
    public var request: Request

    public init(id: String, title: String, body: String, next: String, trigger: String, clock: KernelClock, request: Request) {
        self.id = id
        self.title = title
        self.body = body
        self.next = next
        self.trigger = trigger
        self.clock = clock
        self.request = request
    }
}

/// A delivered notification still tracked by the daemon.
public struct DeliveredItem: Hashable, Sendable, Codable {
    public var id: String
    public var title: String
    public var body: String
    /// ISO 8601 in UTC.
    public var delivered: String
    /// The id the notification server gave the popup (nil while unknown).
    public var serverID: UInt32?
    /// Whether the popup is believed to be still on screen.
    public var onScreen: Bool
    /// Due but held: "quiet" (quiet hours) or "summary" (waiting for the next scheduled summary); nil when shown.
    public var held: String?

    public init(id: String, title: String, body: String, delivered: String, serverID: UInt32?, onScreen: Bool,
                held: String? = nil) {
        self.id = id
        self.title = title
        self.body = body
        self.delivered = delivered
        self.serverID = serverID
        self.onScreen = onScreen
        self.held = held
    }
}

/// The notification server on the session bus, as GetServerInformation and GetCapabilities report it.
public struct ServerInfo: Hashable, Sendable, Codable {
    public var name: String
    public var vendor: String
    public var version: String
    public var specVersion: String
    public var capabilities: [String]

    public init(name: String, vendor: String, version: String, specVersion: String, capabilities: [String]) {
        self.name = name
        self.vendor = vendor
        self.version = version
        self.specVersion = specVersion
        self.capabilities = capabilities
    }
}

/// A configuration problem, with where it is.
public struct ConfigProblem: Hashable, Sendable, Codable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var message: String

    public init(file: String, line: Int?, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    /// "FILE:LINE: MESSAGE", as compilers and systemd print problems.
    public var description: String { line.map { "\(file):\($0): \(message)" } ?? "\(file): \(message)" }
}

/// What `status` reports.
public struct StatusInfo: Hashable, Sendable, Codable {
    public var version: String
    public var uptimeSeconds: Double
    public var armed: Int
    public var total: Int
    public var window: Int
    /// ISO 8601 UTC of the soonest armed deadline.
    public var nextFire: String?
    public var nextID: String?
    /// nil while no notification server owns org.freedesktop.Notifications.
    public var server: ServerInfo?
    /// Deliveries that are due but waiting, and why.
    public var waiting: Int
    public var waitingReason: String?
    /// Popups sent to the server whose answer has not arrived (a slow or frozen server); nil from older daemons.
    public var sending: Int?
    public var configErrors: [ConfigProblem]
    /// What is wrong with the database, in sentences: damage found and repaired at start (what was salvaged, where
    /// the damaged file was kept), rows set aside, a write that failed. Nil or empty when all is well.
    public var storage: [String]?
    /// Whether notifications are held by quiet hours now.
    public var quiet: Bool?
    /// Whether the session is locked (hidden previews apply); nil when unknown.
    public var locked: Bool?
    /// What the server cannot show as configured: "the text action 'note' is left out: ...".
    public var presentation: [String]?

    public init(
        version: String, uptimeSeconds: Double, armed: Int, total: Int, window: Int, nextFire: String?,
        nextID: String?, server: ServerInfo?, waiting: Int, waitingReason: String?, sending: Int? = nil,
        configErrors: [ConfigProblem], storage: [String]? = nil, quiet: Bool? = nil, locked: Bool? = nil,
        presentation: [String]? = nil
    ) {
        self.version = version
        self.uptimeSeconds = uptimeSeconds
        self.armed = armed
        self.total = total
        self.window = window
        self.nextFire = nextFire
        self.nextID = nextID
        self.server = server
        self.waiting = waiting
        self.waitingReason = waitingReason
        self.sending = sending
        self.configErrors = configErrors
        self.storage = storage
        self.quiet = quiet
        self.locked = locked
        self.presentation = presentation
    }
}

/// What a successful reply carries.
public enum ReplyResult: Hashable, Sendable {
    /// `add`: the identifier of the request.
    case added(String)
    case pending([PendingItem])
    /// `remove`, `remove-delivered`: the identifiers affected.
    case removed([String])
    case delivered([DeliveredItem])
    case fired(String)
    case status(StatusInfo)
    case reloaded([ConfigProblem])
    case list([ListItem])
    case stats(StatsInfo)
    case categories([CategoryInfo])
    /// `respond`: the identifier of the notification acted on.
    case responded(String)
    case events([EventInfo])
    case quiet(QuietInfo)
    case synced(SyncInfo)
    /// `log`, `unlog`: the item's state after the change.
    case item(ItemInfo)
    case items([ItemInfo])
}

/// Why the daemon refused a request.
public struct ReplyError: Error, Hashable, Sendable, Codable {
    /// Stable, machine-readable: `invalid`, `not-found`, `malformed`, `too-large`, `unsupported-version`,
    /// `unknown-op`, `storage` (the database refused the write: nothing changed), `busy`, `timeout`, `permission`,
    /// `internal`.
    public var code: String
    /// A sentence a person can act on.
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}

/// A reply: one JSON object on one line.
public enum Reply: Hashable, Sendable {
    case ok(ReplyResult)
    case error(ReplyError)
}
