/// A `ContentHook=` of a `[Category NAME]`: a program that may improve a notification before it is shown, within a
/// time and a memory budget (iOS's notification service extension, for local notifications).
///
/// The program gets the notification as one JSON object on stdin and answers with JSON lines on stdout, each a patch
/// (`HookPatch`) laid over the best version so far. At `timeout` its process group gets SIGTERM and `grace` to print
/// a last line, then SIGKILL; whatever the best version is then is shown.
public struct ContentHook: Hashable, Sendable {
    /// The program and its arguments (no shell).
    public var argv: [String]
    public var timeout: Span
    /// Bytes of address space (RLIMIT_AS), or the scope's MemoryMax= under a systemd user manager.
    public var memory: Int64

    public init(argv: [String], timeout: Span = ContentHook.defaultTimeout, memory: Int64 = ContentHook.defaultMemory) {
        self.argv = argv
        self.timeout = timeout
        self.memory = memory
    }

    public static let defaultTimeout = Span.seconds(5)
    /// As iOS gives a service extension about 30 seconds.
    public static let maximumTimeout = Span.seconds(30)
    public static let defaultMemory: Int64 = 24 << 20
    /// Below this no interpreter starts.
    public static let minimumMemory: Int64 = 4 << 20
    /// After SIGTERM, the time to print a last line before SIGKILL.
    public static let grace = Span.seconds(1)

    /// How a run ended, as `stats` counts it and the `hook` event says.
    public enum Outcome: String, Hashable, Sendable, CaseIterable {
        /// Exited with status 0.
        case completed
        /// Still running at its timeout: stopped, its best version shown.
        case expired
        /// Could not start, or exited with another status.
        case failed
        /// Ended by a signal that aviso did not send (the OOM killer in a scope over MemoryMax=, a crash).
        case killed
    }
}

/// Byte sizes as systemd writes them (`MemoryMax=`): a number with an optional K, M, G or T suffix, powers of 1024.
public enum ByteSize {
    /// Parses "24M", "512K", "1G", "1048576". Errors quote the text and say what is accepted.
    public static func parse(_ text: String) throws(ValidationError) -> Int64 {
        let t = String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
        let units: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40]
        var digits = Substring(t)
        var factor: Int64 = 1
        if let last = t.last, let f = units[Character(last.uppercased())] {
            factor = f
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int64(digits) else {
            throw ValidationError(.size, "size '\(text)' is not a number of bytes with an optional K, M, G or T, like '24M'")
        }
        let (bytes, overflow) = n.multipliedReportingOverflow(by: factor)
        guard !overflow else { throw ValidationError(.size, "size '\(text)' is too large") }
        return bytes
    }

    /// "24M", "1536K", "100": the largest unit that divides the size.
    public static func format(_ bytes: Int64) -> String {
        for (suffix, f) in [("T", Int64(1) << 40), ("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)] where bytes != 0 && bytes % f == 0 {
            return "\(bytes / f)\(suffix)"
        }
        return "\(bytes)"
    }
}

/// One line a content hook printed: the fields it changes. Fields left out keep the best version's value; `thread`
/// and `image` may be null to clear them.
public struct HookPatch: Hashable, Sendable {
    public var title: String?
    public var subtitle: String?
    public var body: String?
    /// Some(nil) clears the image.
    public var image: String??
    public var relevance: Double?
    public var level: InterruptionLevel?
    public var thread: String??
    /// Merged into the request's data, key by key.
    public var data: [String: JSONValue]?

    public init() {}

    public static let fields = ["title", "subtitle", "body", "image", "relevance", "level", "thread", "data"]

    /// Reads a patch from a decoded JSON object; throws (code `.hook`) the first field that is unknown or of the wrong
    /// type, so the whole line is ignored and the best version stays.
    public init(_ object: [String: JSONValue]) throws(ValidationError) {
        func fail(_ why: String) -> ValidationError { ValidationError(.hook, why) }
        func text(_ key: String) throws(ValidationError) -> String? {
            guard let v = object[key] else { return nil }
            guard case .string(let s) = v else { throw fail("'\(key)' is not a string") }
            return s
        }
        func optionalText(_ key: String) throws(ValidationError) -> String?? {
            guard let v = object[key] else { return nil }
            switch v {
            case .null: return .some(nil)
            case .string(let s): return .some(s)
            default: throw fail("'\(key)' is neither a string nor null")
            }
        }
        if let unknown = object.keys.sorted().first(where: { !Self.fields.contains($0) }) {
            throw fail("unknown field '\(unknown)' (known: \(Self.fields.joined(separator: ", ")))")
        }
        title = try text("title")
        subtitle = try text("subtitle")
        body = try text("body")
        image = try optionalText("image")
        if case .some(.some(let path)) = image {
            guard path.hasPrefix("/") else { throw fail("image '\(path)' is not an absolute path") }
            guard !path.utf8.contains(0) else { throw fail("image path contains a NUL byte") }
        }
        thread = try optionalText("thread")
        if case .some(.some(let t)) = thread, t.isEmpty { throw fail("'thread' is empty; give a name or null") }
        if let v = object["relevance"] {
            guard case .number(let r) = v, r.isFinite, (0...1).contains(r) else { throw fail("'relevance' is not a number within 0...1") }
            relevance = r
        }
        if let v = object["level"] {
            guard case .string(let s) = v else { throw fail("'level' is not a string") }
            do throws(ValidationError) { level = try InterruptionLevel.parse(s) } catch { throw fail(error.message) }
        }
        if let v = object["data"] {
            guard case .object(let o) = v else { throw fail("'data' is not an object") }
            data = o
        }
        if [title, subtitle, body].allSatisfy({ $0 == nil }) && image == nil && relevance == nil && level == nil
            && thread == nil && data == nil {
            throw fail("changes nothing (give any of \(Self.fields.joined(separator: ", ")))")
        }
    }

    /// The content with this patch laid over it. A patch that would leave neither title nor body keeps the old ones.
    public func applied(to content: Content) -> Content {
        var c = content
        if let title { c.title = title }
        if let subtitle { c.subtitle = subtitle }
        if let body { c.body = body }
        if c.title.isEmpty && c.body.isEmpty { (c.title, c.body) = (content.title, content.body) }
        if let image { c.image = image }
        if let relevance { c.relevance = relevance }
        if let level { c.level = level }
        if let thread { c.threadID = thread }
        if let data { c.userInfo.merge(data) { _, new in new } }
        return c
    }
}
