/// How one Notify call ended.
///
/// The difference between the last two is what keeps "never twice": a popup that was certainly not shown may be sent
/// again, one that may have been shown may not.
public enum DeliveryOutcome: Sendable, Hashable {
    /// The server took it and gave it `serverID`; `owner` is the server's unique bus name.
    case shown(serverID: UInt32, owner: String)
    /// The server certainly did not show it: nobody owns the name, the server refused the call, or the call never
    /// left. It may be sent again.
    case notShown(DeliveryError)
    /// The call went out but no usable answer came back: the server left the bus before answering, or answered with
    /// something other than an id. It may be on screen, so it is not sent again; why, for the log.
    case unconfirmed(String)
}
