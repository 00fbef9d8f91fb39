import AvisoCore
import FoundationEssentials

/// Turns commands and replies into single JSON lines and back.
///
/// Decoding never traps: whatever the bytes, the result is a value or a `ReplyError` that says what was wrong.
public enum Codec {
    private struct CommandFrame: Codable {
        var v: Int?
        var op: String?
        var request: Request?
        var ids: [String]?
        var prefix: String?
        var all: Bool?
        var id: String?
        var action: String?
        var text: String?
        var follow: Bool?
        /// `quiet`: "on", "off" or absent (the state).
        var mode: String?
        /// `quiet on`: nanoseconds since the epoch.
        var until: WallTime?
        /// `sync`: the new set.
        var requests: [Request]?
        /// `log`: when it was done, nanoseconds since the epoch.
        var at: WallTime?
        /// `log`: how many.
        var count: Int?
    }

    private struct ReplyFrame: Codable {
        var v: Int
        var ok: Bool
        var error: ReplyError?
        var id: String?
        var ids: [String]?
        var pending: [PendingItem]?
        var delivered: [DeliveredItem]?
        var status: StatusInfo?
        var problems: [ConfigProblem]?
        var list: [ListItem]?
        var stats: StatsInfo?
        var categories: [CategoryInfo]?
        var events: [EventInfo]?
        var quiet: QuietInfo?
        var sync: SyncInfo?
        var item: ItemInfo?
        var items: [ItemInfo]?
    }

    /// One line (with its trailing newline) for `command`.
    public static func encode(_ command: Command) -> [UInt8] {
        var f = CommandFrame(v: protocolVersion)
        switch command {
        case .add(let r): f.op = "add"; f.request = r
        case .pending: f.op = "pending"
        case .remove(let s): f.op = "remove"; put(s, into: &f)
        case .delivered: f.op = "delivered"
        case .removeDelivered(let s): f.op = "remove-delivered"; put(s, into: &f)
        case .fire(let id): f.op = "fire"; f.id = id
        case .status: f.op = "status"
        case .reload: f.op = "reload"
        case .list: f.op = "list"
        case .stats: f.op = "stats"
        case .categories: f.op = "categories"
        case .respond(let id, let action, let text): f.op = "respond"; f.id = id; f.action = action; f.text = text
        case .events(let follow): f.op = "events"; f.follow = follow ? true : nil
        case .quiet(let change):
            f.op = "quiet"
            switch change {
            case .state: break
            case .on(let until): f.mode = "on"; f.until = until
            case .off: f.mode = "off"
            }
        case .sync(let prefix, let requests): f.op = "sync"; f.prefix = prefix; f.requests = requests
        case .log(let item, let at, let count): f.op = "log"; f.id = item; f.at = at; f.count = count
        case .unlog(let item): f.op = "unlog"; f.id = item
        case .items: f.op = "items"
        }
        return line(f)
    }

    private static func put(_ s: Selector, into f: inout CommandFrame) {
        switch s {
        case .ids(let ids): f.ids = ids
        case .prefix(let p): f.prefix = p
        case .all: f.all = true
        }
    }

    /// The deepest nesting of arrays and objects a line may have. Requests need four levels (user data adds its
    /// own); Foundation's parser recurses per level and crashes past about 512, so depth is checked first.
    public static let maximumNesting = 64

    /// Parses one request line (without its newline).
    public static func decodeCommand(_ bytes: some Collection<UInt8>) throws(ReplyError) -> Command {
        if let depth = excessiveNesting(bytes) {
            throw ReplyError(code: "malformed", message: "request nests arrays or objects \(depth) levels deep; "
                + "the limit is \(maximumNesting)")
        }
        let f: CommandFrame
        do {
            f = try JSONDecoder().decode(CommandFrame.self, from: Data(bytes))
        } catch {
            throw ReplyError(code: "malformed", message: "request is not a valid JSON object of the aviso protocol: \(describe(error))")
        }
        guard let v = f.v else {
            throw ReplyError(code: "unsupported-version", message: "request has no protocol version 'v' (this daemon speaks \(protocolVersion))")
        }
        guard v == protocolVersion else {
            throw ReplyError(code: "unsupported-version", message: "protocol version \(v) is not supported (this daemon speaks \(protocolVersion))")
        }
        guard let op = f.op else { throw ReplyError(code: "malformed", message: "request has no 'op'") }
        switch op {
        case "add":
            guard let r = f.request else { throw ReplyError(code: "malformed", message: "'add' needs a 'request' object") }
            return .add(r)
        case "pending": return .pending
        case "remove": return .remove(try selector(f, op))
        case "delivered": return .delivered
        case "remove-delivered": return .removeDelivered(try selector(f, op))
        case "fire":
            guard let id = f.id else { throw ReplyError(code: "malformed", message: "'fire' needs an 'id'") }
            return .fire(id)
        case "status": return .status
        case "reload": return .reload
        case "list": return .list
        case "stats": return .stats
        case "categories": return .categories
        case "respond":
            guard let id = f.id, let action = f.action else {
                throw ReplyError(code: "malformed", message: "'respond' needs an 'id' and an 'action'")
            }
            return .respond(id: id, action: action, text: f.text)
        case "events": return .events(follow: f.follow ?? false)
        case "quiet":
            switch f.mode {
            case nil: return .quiet(.state)
            case "on": return .quiet(.on(until: f.until))
            case "off": return .quiet(.off)
            case let other?:
                throw ReplyError(code: "malformed", message: "'quiet' mode '\(other)' is not on or off")
            }
        case "sync":
            guard let prefix = f.prefix, !prefix.isEmpty, let requests = f.requests else {
                throw ReplyError(code: "malformed", message: "'sync' needs a non-empty 'prefix' and a 'requests' array (empty to remove them all)")
            }
            return .sync(prefix: prefix, requests: requests)
        case "log":
            guard let item = f.id else { throw ReplyError(code: "malformed", message: "'log' needs an 'id', the item's name") }
            return .log(item: item, at: f.at, count: f.count)
        case "unlog":
            guard let item = f.id else { throw ReplyError(code: "malformed", message: "'unlog' needs an 'id', the item's name") }
            return .unlog(item: item)
        case "items": return .items
        default:
            throw ReplyError(code: "unknown-op", message: "unknown operation '\(op)'")
        }
    }

    private static func selector(_ f: CommandFrame, _ op: String) throws(ReplyError) -> Selector {
        switch (f.ids, f.prefix, f.all) {
        case (let ids?, nil, nil) where !ids.isEmpty: return .ids(ids)
        case (nil, let p?, nil) where !p.isEmpty: return .prefix(p)
        case (nil, nil, true?): return .all
        default:
            throw ReplyError(code: "malformed", message: "'\(op)' needs exactly one of a non-empty 'ids', a non-empty 'prefix' or 'all': true")
        }
    }

    /// One line (with its trailing newline) for `reply`.
    public static func encode(_ reply: Reply) -> [UInt8] {
        var f = ReplyFrame(v: protocolVersion, ok: true)
        switch reply {
        case .error(let e): f.ok = false; f.error = e
        case .ok(let r):
            switch r {
            case .added(let id), .fired(let id): f.id = id
            case .pending(let p): f.pending = p
            case .removed(let ids): f.ids = ids
            case .delivered(let d): f.delivered = d
            case .status(let s): f.status = s
            case .reloaded(let p): f.problems = p
            case .list(let l): f.list = l
            case .stats(let s): f.stats = s
            case .categories(let c): f.categories = c
            case .responded(let id): f.id = id
            case .events(let e): f.events = e
            case .quiet(let q): f.quiet = q
            case .synced(let s): f.sync = s
            case .item(let i): f.item = i
            case .items(let i): f.items = i
            }
        }
        return line(f)
    }

    /// Parses one reply line to `command`; the command tells which result to expect.
    public static func decodeReply(_ bytes: some Collection<UInt8>, to command: Command) throws(ReplyError) -> Reply {
        if excessiveNesting(bytes) != nil {
            throw ReplyError(code: "malformed", message: "the daemon's reply nests deeper than \(maximumNesting) levels")
        }
        let f: ReplyFrame
        do {
            f = try JSONDecoder().decode(ReplyFrame.self, from: Data(bytes))
        } catch {
            throw ReplyError(code: "malformed", message: "the daemon's reply is not valid: \(describe(error))")
        }
        if !f.ok { return .error(f.error ?? ReplyError(code: "internal", message: "the daemon refused without a reason")) }
        let missing = ReplyError(code: "malformed", message: "the daemon's reply lacks its result")
        switch command {
        case .add: guard let id = f.id else { throw missing }; return .ok(.added(id))
        case .fire: guard let id = f.id else { throw missing }; return .ok(.fired(id))
        case .pending: return .ok(.pending(f.pending ?? []))
        case .remove, .removeDelivered: return .ok(.removed(f.ids ?? []))
        case .delivered: return .ok(.delivered(f.delivered ?? []))
        case .status: guard let s = f.status else { throw missing }; return .ok(.status(s))
        case .reload: return .ok(.reloaded(f.problems ?? []))
        case .list: return .ok(.list(f.list ?? []))
        case .stats: guard let s = f.stats else { throw missing }; return .ok(.stats(s))
        case .categories: return .ok(.categories(f.categories ?? []))
        case .respond: guard let id = f.id else { throw missing }; return .ok(.responded(id))
        case .events: return .ok(.events(f.events ?? []))
        case .quiet: guard let q = f.quiet else { throw missing }; return .ok(.quiet(q))
        case .sync: guard let s = f.sync else { throw missing }; return .ok(.synced(s))
        case .log, .unlog: guard let i = f.item else { throw missing }; return .ok(.item(i))
        case .items: return .ok(.items(f.items ?? []))
        }
    }

    private static func line(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Only a non-finite number cannot be written; validation keeps them out, and if one slips through the peer
        // gets a line it rejects with a reason instead of this process trapping.
        guard let data = try? encoder.encode(value) else {
            return Array(#"{"error":{"code":"internal","message":"a value could not be written as JSON"},"ok":false,"v":1}"#.utf8) + [10]
        }
        return [UInt8](data) + [10]
    }

    /// The depth reached when it exceeds `maximumNesting` (the scan stops there), nil when the line stays within it.
    /// Brackets inside strings do not count; the scan does not judge whether the JSON is otherwise valid.
    static func excessiveNesting(_ bytes: some Collection<UInt8>) -> Int? {
        var depth = 0
        var inString = false
        var escaped = false
        for b in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if b == UInt8(ascii: "\\") {
                    escaped = true
                } else if b == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch b {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > maximumNesting { return depth }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth = max(depth - 1, 0)
            default: break
            }
        }
        return nil
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.typeMismatch(_, let c), DecodingError.valueNotFound(_, let c),
             DecodingError.dataCorrupted(let c):
            let path = c.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? c.debugDescription : "\(path): \(c.debugDescription)"
        case DecodingError.keyNotFound(let k, let c):
            let path = (c.codingPath + [k]).map(\.stringValue).joined(separator: ".")
            return "missing '\(path)'"
        default:
            return "\(error)"
        }
    }
}
