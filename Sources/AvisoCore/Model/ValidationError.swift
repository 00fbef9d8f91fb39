/// Bad input: what was wrong, in a sentence a person can act on.
///
/// Thrown by parsing and validation in the core; the daemon sends `message` back to the client unchanged.
public struct ValidationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of mistake it is; stable, for tests and `--json` consumers.
    public struct Code: RawRepresentable, Hashable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let identifier = Code(rawValue: "identifier")
        public static let emptyContent = Code(rawValue: "empty-content")
        public static let relevance = Code(rawValue: "relevance")
        public static let level = Code(rawValue: "level")
        public static let interval = Code(rawValue: "interval")
        public static let pastDate = Code(rawValue: "past-date")
        public static let image = Code(rawValue: "image")
        public static let timeSpan = Code(rawValue: "time-span")
        public static let dateTime = Code(rawValue: "date-time")
        public static let timeZone = Code(rawValue: "time-zone")
        public static let userInfo = Code(rawValue: "user-info")
        public static let priority = Code(rawValue: "priority")
        public static let maxLate = Code(rawValue: "max-late")
        public static let size = Code(rawValue: "size")
        public static let hook = Code(rawValue: "hook")
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
