import AvisoCore
import AvisoProtocol
import Synchronization

/// Turns the keys of one `[Reminder NAME]` group into a request, collecting every problem with its line.
struct ReminderBuilder {
    struct Problem {
        var line: Int?
        var message: String
    }

    let name: String
    let group: String
    let groupLine: Int?
    let values: ReminderValues
    let zones: ZoneLookup
    let specs: CalendarSpecCache
    /// Where the file's titles and bodies are kept, and its contents' extras shared.
    let texts: TextArena
    let extras: SharedExtras
    private(set) var problems: [Problem] = []
    private(set) var warnings: [Problem] = []

    init(name: String, group: String, groupLine: Int?, values: ReminderValues, zones: ZoneLookup,
         specs: CalendarSpecCache, texts: TextArena, extras: SharedExtras) {
        self.name = name
        self.group = group
        self.groupLine = groupLine
        self.values = values
        self.zones = zones
        self.specs = specs
        self.texts = texts
        self.extras = extras
    }

    /// The request and the line of the key that says when, or nil when a problem was recorded.
    mutating func build() -> (Request, triggerLine: Int?)? {
        let (title, body) = (values.title ?? texts.append(""), values.body ?? texts.append(""))
        var content = Content(title: title, subtitle: text(.subtitle), body: body, in: texts)
        content.threadID = optional(.thread)
        content.categoryID = optional(.category)
        if let (value, line) = entry(.relevance) {
            if let r = Double(value), r.isFinite, (0...1).contains(r) { content.relevance = r } else {
                fail(line, "Relevance='\(value)' is not a number from 0 to 1, like 0.5")
            }
        }
        if let (value, line) = entry(.level) {
            do throws(ValidationError) { content.level = try InterruptionLevel.parse(value) } catch {
                fail(line, "Level: \(error.message)")
            }
        }
        if let (value, line) = entry(.image) {
            if value.hasPrefix("/") { content.image = value } else {
                fail(line, "Image='\(value)' is not an absolute path; give the full path, starting with '/'")
            }
        }
        var priority: Int?
        if let (value, line) = entry(.priority) {
            if let p = Int(value), PriorityRules.classRange.contains(p) { priority = p } else {
                fail(line, "Priority='\(value)' is not a priority class; give a whole number from 0 (highest) to 99 (lowest)")
            }
        }
        var maxLate: Span?
        if let (value, line) = entry(.maxLate) {
            maxLate = positiveSpan(value, key: "MaxLate", line: line)
        }
        if title.isEmpty && body.isEmpty {
            fail(groupLine, "reminder '\(name)' has neither Title= nor Body=; give at least one")
        }
        let trigger = buildTrigger()
        guard problems.isEmpty, let (trigger, triggerLine) = trigger else { return nil }
        content.shareExtras(in: extras)
        return (Request(id: name, content: content, trigger: trigger, maxLate: maxLate, priority: priority), triggerLine)
    }

    /// The keys that say when.
    private static let whenKeys: [ReminderFile.Key] = [.onCalendar, .at, .every]

    /// The trigger from exactly one of OnCalendar=, At= and Every=, with TimeZone= and DST= where they apply, and the
    /// line of that key.
    private mutating func buildTrigger() -> (Trigger, line: Int?)? {
        var given: (key: ReminderFile.Key, value: String, line: Int?)?
        var count = 0
        for key in Self.whenKeys {
            guard let (value, line) = values[key] else { continue }
            count += 1
            if given == nil { given = (key, value, line) }
        }
        guard count == 1, let (when, value, line) = given else {
            let whens = Self.whenKeys.filter { values[$0] != nil }
            if whens.isEmpty {
                fail(groupLine, "reminder '\(name)' says not when: give one of OnCalendar=, At= or Every=")
            } else {
                let line = whens.compactMap { values[$0]?.line }.max()
                fail(line, "reminder '\(name)' has \(whens.map { $0.name + "=" }.joined(separator: " and ")); give only one of them")
            }
            return nil
        }
        var zone: (name: String, rules: ZoneRules)?
        if let (value, line) = entry(.timeZone) {
            if let rules = zones.load(value) { zone = (value, rules) } else {
                fail(line, "TimeZone='\(value)' is not a zone of the tz database; give a name like Europe/Madrid or UTC")
            }
        }
        var policy = DSTPolicy.aviso
        if let (value, line) = entry(.dst) {
            if let p = DSTPolicy(rawValue: value.lowercased()) { policy = p } else {
                fail(line, "DST='\(value)' is not one of aviso, systemd")
            }
        }
        if when != .onCalendar {
            if values[.dst] != nil { warn(values[.dst]?.line, "DST= only applies to OnCalendar= and is ignored") }
        }
        switch when {
        case .at:
            do throws(ValidationError) {
                let at = try DateTimeInput.parse(value, localZone: zone?.rules ?? zones.local(), loadZone: zones.load)
                return (.date(at), line)
            } catch {
                fail(line, "At: \(error.message)")
                return nil
            }
        case .every:
            if values[.timeZone] != nil { warn(values[.timeZone]?.line, "TimeZone= does not apply to Every= and is ignored") }
            guard let span = positiveSpan(value, key: "Every", line: line) else { return nil }
            guard span >= Request.minimumRepeatInterval else {
                fail(line, "Every=\(value) is shorter than the minimum of 60s")
                return nil
            }
            return (.interval(span, repeats: true), line)
        default:
            if let known = specs.trigger(value, zone: zone?.name, policy: policy) { return (.calendar(known), line) }
            let spec: CalendarSpec
            do throws(ValidationError) {
                spec = try specs.parse(value, zones: zones)
            } catch {
                fail(line, error.message)
                return nil
            }
            if let named = spec.zone, let zone, named != zone.name {
                fail(values[.timeZone]?.line, "TimeZone=\(zone.name) contradicts the zone '\(named)' at the end of OnCalendar=; give one")
                return nil
            }
            return (.calendar(specs.keep(CalendarTrigger(spec: value, parsed: spec, zone: zone?.name, policy: policy))), line)
        }
    }

    private func entry(_ key: ReminderFile.Key) -> (String, Int?)? {
        values[key].map { ($0.value, $0.line) }
    }

    private func text(_ key: ReminderFile.Key) -> String { values[key]?.value ?? "" }

    private func optional(_ key: ReminderFile.Key) -> String? {
        guard let v = values[key]?.value, !v.isEmpty else { return nil }
        return v
    }

    private mutating func positiveSpan(_ value: String, key: String, line: Int?) -> Span? {
        do throws(ValidationError) {
            let span = try specs.span(value)
            guard span > .zero else {
                fail(line, "\(key)=\(value) must be longer than zero, like '1h'")
                return nil
            }
            return span
        } catch {
            fail(line, "\(key): \(error.message)")
            return nil
        }
    }

    private mutating func fail(_ line: Int?, _ message: String) {
        problems.append(Problem(line: line, message: "[\(group)] \(message)"))
    }

    private mutating func warn(_ line: Int?, _ message: String) {
        warnings.append(Problem(line: line, message: "[\(group)] \(message)"))
    }
}

/// The parsed texts of one reading of a directory. Calendar triggers, by spec text, zone and DST policy: 100,000
/// reminders hold far fewer distinct triggers, and each is found again with one lookup and shared by all the reminders
/// that give it. Each text is parsed once per reading thread, also when it comes with several zones. The spans of
/// `Every=` and `MaxLate=`, by text. The component chains of the specs, each distinct one once. (Only what was valid
/// is kept: a mistake is parsed, and reported, each time.)
///
/// Used by one thread at a time: each reading thread has its own, and the threads keep the first trigger any of them
/// found (`Shared`), so equal triggers are one object and each is parsed about once. A thread takes a lock only to look
/// for or keep a trigger it has not seen itself, and the table is cut in shards, each with its own lock, so that two
/// threads seldom wait for each other.
final class CalendarSpecCache: @unchecked Sendable {
    fileprivate struct Key: Hashable {
        var text: String
        var zone: String?
        var policy: DSTPolicy
    }

    /// The triggers all the reading threads of one reading have kept.
    final class Shared: Sendable {
        fileprivate final class Shard: Sendable {
            let triggers = Mutex<[Key: CalendarTrigger]>([:])
        }
        fileprivate let shards = (0..<16).map { _ in Shard() }
        init() {}
    }

    private let shared: Shared
    private var triggers: [Key: CalendarTrigger] = [:]
    private var parsed: [String: CalendarSpec] = [:]
    /// The chains of the specs parsed here, shared between them.
    private var chains = CalendarChains()
    private var spans: [String: Span] = [:]

    init(sharing shared: Shared = Shared()) { self.shared = shared }

    /// The trigger kept for these, if any: this thread's, else one another thread kept (then it is not parsed here
    /// too).
    func trigger(_ text: String, zone: String?, policy: DSTPolicy) -> CalendarTrigger? {
        let key = Key(text: text, zone: zone, policy: policy)
        if let mine = triggers[key] { return mine }
        guard let theirs = shard(of: key).triggers.withLock({ $0[key] }) else { return nil }
        triggers[key] = theirs
        return theirs
    }

    /// The spec `text` parsed with the zones `zones` can load.
    func parse(_ text: String, zones: ZoneLookup) throws(ValidationError) -> CalendarSpec {
        if let spec = parsed[text] { return spec }
        let spec = chains.shared(try CalendarSpec.parse(text, isZone: { zones.load($0) != nil }))
        parsed[text] = spec
        return spec
    }

    /// The span `text` gives (`TimeSpan.parse`).
    func span(_ text: String) throws(ValidationError) -> Span {
        if let span = spans[text] { return span }
        let span = try TimeSpan.parse(text)
        spans[text] = span
        return span
    }

    /// Keeps a valid trigger for the reminders that give the same, and returns the one to use: another thread's,
    /// when it kept an equal one first (one lookup, which inserts this one when there is none).
    func keep(_ trigger: CalendarTrigger) -> CalendarTrigger {
        let key = Key(text: trigger.spec, zone: trigger.zone, policy: trigger.policy)
        let kept = shard(of: key).triggers.withLock { all in Self.first(&all[key, default: trigger]) }
        triggers[key] = kept
        return kept
    }

    private func shard(of key: Key) -> Shared.Shard {
        shared.shards[Int(UInt(bitPattern: key.hashValue) % UInt(shared.shards.count))]
    }

    private static func first(_ kept: inout CalendarTrigger) -> CalendarTrigger { kept }
}
