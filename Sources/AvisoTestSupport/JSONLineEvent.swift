/// One JSON line printed by a test server child process, decoded; see `JSONLineProcess`.
public protocol JSONLineEvent: Decodable, Sendable {
    /// The kind of event: "ready" first, once the server is serving; then whatever the server reports.
    var event: String { get }
}
