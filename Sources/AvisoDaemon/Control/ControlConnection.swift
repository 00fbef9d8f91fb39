import AvisoProtocol

/// One client connection of the control socket, as the server's loop keeps it.
///
/// A connection is served one request at a time: while a request is with the handler or its reply is being sent,
/// nothing more is read from it, so what it can make the daemon buffer is bounded by one line.
struct ControlConnection {
    /// Distinguishes this connection from a later one that reuses its descriptor number.
    let id: UInt64
    /// Its place in the event loop.
    let watch: EventLoop.Token
    var framer = LineFramer(limit: maximumLineLength)
    /// Complete lines read and not yet answered, oldest first.
    var lines: [[UInt8]] = []
    /// Reply bytes the client has not taken yet.
    var outgoing: [UInt8] = []
    /// A request is with the handler.
    var serving = false
    /// The client closed its end; it is answered, then closed.
    var peerClosed = false
    /// Close once `outgoing` is sent (after refusing an oversized line).
    var closeAfterReply = false
    /// When the next complete request must have arrived (monotonic milliseconds).
    var readDeadline: Int64
    /// When the client must have taken more of its reply.
    var writeDeadline: Int64?
    /// When the connection began waiting for its next request, as a count of such moments across the server: the
    /// longest-idle one (lowest) makes room for a newcomer.
    var idleSince: UInt64
    /// The epoll events currently asked for.
    var interest: Epoll.Events = [.readable, .peerClosed]
    /// Whether the loop watches it at all (a peer that hung up is taken out).
    var watched = true
    /// Its request is a stream (`events --follow`): lines keep coming until the client leaves.
    var streaming = false
    /// The task answering its current request, cancelled when the connection is dropped.
    var task: Task<Void, Never>?

    init(id: UInt64, watch: EventLoop.Token, idleSince: UInt64, readDeadline: Int64) {
        self.id = id
        self.watch = watch
        self.idleSince = idleSince
        self.readDeadline = readDeadline
    }

    /// Waiting for a request: nothing read is pending, nothing is being served or sent.
    var isIdle: Bool { !serving && outgoing.isEmpty && lines.isEmpty }

    /// The deadline that applies now: for the client to take what is sent, else (idle) to send a request; none while
    /// the handler works (the daemon's time, not the client's) or a stream waits for its next line.
    var deadline: Int64? {
        if !outgoing.isEmpty { return writeDeadline }
        return serving ? nil : readDeadline
    }

    /// What to wait for: writability while a reply is unsent, input while idle, the client leaving while it follows
    /// a stream, nothing otherwise.
    var wantedEvents: Epoll.Events {
        if !outgoing.isEmpty { return streaming ? [.writable, .peerClosed] : .writable }
        if streaming { return .peerClosed }
        return isIdle && !peerClosed ? [.readable, .peerClosed] : []
    }
}
