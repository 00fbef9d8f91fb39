import AvisoProtocol

/// What reading a configuration file found.
public struct ConfigLoadResult: Sendable {
    /// The configuration, or nil when there were errors: the caller keeps the last good one.
    public var configuration: Configuration?
    /// Problems that make the file unusable (syntax, values out of range), each with file and line.
    public var errors: [ConfigProblem]
    /// Things that were ignored (unknown groups and keys), each with file and line.
    public var warnings: [ConfigProblem]

    /// A result; `configuration` should be nil whenever `errors` is not empty.
    public init(configuration: Configuration?, errors: [ConfigProblem] = [], warnings: [ConfigProblem] = []) {
        self.configuration = configuration
        self.errors = errors
        self.warnings = warnings
    }
}
