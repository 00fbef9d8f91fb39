/// Why the notification server closed a notification (the NotificationClosed `reason`).
public enum CloseReason: UInt32, Sendable, Hashable {
    /// It timed out.
    case expired = 1
    /// The user dismissed it.
    case dismissed = 2
    /// CloseNotification was called (by aviso or another client).
    case closedByCall = 3
    /// The server did not say; also used for reasons outside the specification.
    case undefined = 4
}

/// Something the notification server did on its own: closed a popup, appeared, or went away.
public enum NotifierEvent: Sendable, Hashable {
    /// NotificationClosed for `serverID`. Sent for every id, including ones shown before a daemon restart and ones
    /// shown by other programs: the receiver matches ids it knows and ignores the rest.
    case closed(serverID: UInt32, reason: CloseReason)
    /// A (new) unique bus name now owns org.freedesktop.Notifications. After a server restart ids from the old
    /// server mean nothing to the new one.
    case serverAppeared(owner: String)
    /// org.freedesktop.Notifications lost its owner; `show` fails with `isNoServer` until a server appears.
    case serverVanished
    /// ActionInvoked: the person chose the action `key` of `serverID` (`default` for a click on the popup).
    case actionInvoked(serverID: UInt32, key: String)
    /// NotificationReplied: the person sent `text` in the inline reply field of `serverID`.
    case replied(serverID: UInt32, text: String)
    /// ActivationToken: the token for focusing what an action of `serverID` opens; sent just before ActionInvoked.
    case activationToken(serverID: UInt32, token: String)
}

extension NotifierEvent {
    /// The popup the event is about, if it is about one.
    var serverID: UInt32? {
        switch self {
        case .closed(let id, _), .actionInvoked(let id, _), .replied(let id, _), .activationToken(let id, _): id
        case .serverAppeared, .serverVanished: nil
        }
    }
}
