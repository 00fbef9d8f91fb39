import AvisoCore

/// The daemon's settings from `aviso.conf`; every field has a default, so an empty or missing file is valid.
public struct Configuration: Hashable, Sendable {
    /// How many timers are armed at once (`[Scheduler] Window`), 1...64.
    public var window: Int = 64
    /// The first wait before retrying a delivery that found no notification server (`[Delivery] RetryInitial`).
    public var retryInitial: Span = .seconds(1)
    /// The longest wait between delivery retries; the wait doubles up to it (`[Delivery] RetryMaximum`).
    public var retryMaximum: Span = .seconds(60)

    /// The allowed values of `window`.
    public static let windowRange = 1...64
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
