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
    /// The `[Action NAME]` and `[Category NAME]` groups of aviso.conf (reminder files may declare more).
    var groups = PresentationGroups()
    /// When notifications are held back (`[Quiet] Hours`); no ranges by default.
    public var quietHours = QuietHours()
    /// When notifications delivered by summary arrive (`[Summary] At`); nil: such notifications are not held.
    public var summaryTimes: DailyTimes?
    /// Whether content is hidden when no category says (`[Privacy] HiddenPreviews`, default never).
    public var hiddenPreviews: HiddenPreviews = .never
    /// Whether a hidden preview shows the title (`[Privacy] ShowTitle`, default false).
    public var showTitle = false
    /// What a hidden preview shows instead of the content (`[Privacy] Placeholder`).
    public var placeholder = Redaction.defaultPlaceholder
    /// What asks for the text of a text-input action on servers without inline replies (`[Prompt] Program`).
    public var prompt: PromptProgram = .automatic
    /// How many interaction events are kept (`[Events] Keep`, default 10,000).
    public var eventsKept = 10_000

    /// The allowed values of `window`.
    public static let windowRange = 1...64
    /// The allowed values of `summaryThreshold`.
    public static let summaryThresholdRange = 1...1000
    /// The allowed values of `eventsKept`.
    public static let eventsKeptRange = 100...10_000_000
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

/// The program that asks for typed text when the notification server has no inline replies (`[Prompt] Program=`).
public enum PromptProgram: Hashable, Sendable {
    /// The first of zenity, kdialog and yad that is installed.
    case automatic
    /// No prompt: text-input actions are left out where the server has no inline replies.
    case none
    /// A program and its arguments: it gets `AVISO_PROMPT_TITLE`, `AVISO_PROMPT_TEXT` and `AVISO_PROMPT_SUBMIT` in
    /// its environment and prints the answer on stdout; a non-zero exit is a cancel.
    case command([String])
}
