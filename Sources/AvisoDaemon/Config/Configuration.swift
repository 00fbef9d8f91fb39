import AvisoCore

/// The daemon's settings from `aviso.conf`; every field has a default, so an empty or missing file is valid.
public struct Configuration: Hashable, Sendable {
    /// How many timers are armed at once (`[Scheduler] Window`), 1...64.
    public var window: Int = 64
    /// The first wait before retrying a delivery that found no notification server (`[Delivery] RetryInitial`).
    public var retryInitial: Span = .seconds(1)
    /// The longest wait between delivery retries; the wait doubles up to it (`[Delivery] RetryMaximum`).
    public var retryMaximum: Span = .seconds(60)
    /// The default lateness limit of missed occurrences (`[Scheduler] MaxLate`): an occurrence found later than this
    /// after its due time is skipped and the skip recorded. nil (absent, or `infinity`): no limit. A request's own
    /// `maxLate` wins.
    public var maxLate: Span? = nil
    /// More than this many missed notifications due at once on return are delivered as one summary notification
    /// (`[Scheduler] SummaryThreshold`, default 3).
    public var summaryThreshold: Int = 3
    /// Priority classes by identifier prefix and per-class window budgets: the shipped prefixes with
    /// `[Priorities]` laid over them, and `[Budgets]`.
    public var priorities: PriorityRules = .shipped

    /// The allowed values of `window`.
    public static let windowRange = 1...64
    /// The allowed values of `summaryThreshold`.
    public static let summaryThresholdRange = 1...1000
    /// The configuration of a missing or empty file.
    public static let defaults = Configuration()

    /// The defaults.
    public init() {}

    /// A configuration with every value given; `window` should be in `windowRange`.
    public init(window: Int, retryInitial: Span, retryMaximum: Span) {
        self.window = window
        self.retryInitial = retryInitial
        self.retryMaximum = retryMaximum
    }
}
