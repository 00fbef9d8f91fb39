/// The part of a test D-Bus server that is its own: the methods it answers and the stdin commands it obeys.
///
/// A `BusServer` owns the bus name, registers the object and reads stdin, then hands each call and command here.
/// Everything happens on the main thread's GLib main loop, so implementations need no locks.
public protocol BusObject: AnyObject {
    /// Answers one method call on the object.
    ///
    /// `parameters` is the call's argument tuple (a `GVariant *`, valid only during the call); `invocation` is the
    /// `GDBusMethodInvocation *` that must be answered exactly once (value or D-Bus error), now or later.
    func call(_ method: String, parameters: OpaquePointer, invocation: OpaquePointer)

    /// Runs one stdin command, already split into words (never empty, never `quit`: the server handles that).
    ///
    /// Returns false when the command is unknown or malformed; the server then reports an "error" event.
    func command(_ words: [String]) -> Bool

    /// The value of `property` of `interface` on the object at `path` (a floating `GVariant *`), or nil when there
    /// is none. Only servers that export properties need it.
    func property(_ property: String, of interface: String, at path: String) -> OpaquePointer?
}

extension BusObject {
    public func property(_ property: String, of interface: String, at path: String) -> OpaquePointer? { nil }
}
