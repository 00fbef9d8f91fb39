import FoundationEssentials

/// The process environment, read once.
enum ProcessEnvironment {
    static let current: [String: String] = ProcessInfo.processInfo.environment
}
