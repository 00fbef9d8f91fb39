/// A notification could not be handed to the notification server.
public struct DeliveryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// True when nobody serves org.freedesktop.Notifications (or there is no session bus): retrying is pointless
    /// until `NotifierEvent.serverAppeared` arrives.
    public var isNoServer: Bool
    /// What went wrong, with the D-Bus error text, for the log and `avisoctl status`.
    public var message: String

    /// Makes an error; `isNoServer` decides whether the caller waits for a server or treats it as a failure.
    public init(isNoServer: Bool, message: String) {
        self.isNoServer = isNoServer
        self.message = message
    }

    /// The message, so interpolating the error reads well in logs.
    public var description: String { message }

    static func noServer(_ detail: String) -> DeliveryError {
        DeliveryError(isNoServer: true, message: "no notification server on the session bus (\(detail))")
    }
}
