import AvisoCore
import FoundationEssentials

/// The options of `avisoctl add`, by name without the dashes ("title", "in", "repeat", ...), turned into a request:
/// one meaning for the command line and the D-Bus API's `Add`.
///
/// A flag (`repeat`, `summary`) is present with any value ("", "true"); "false" leaves it out. `data` takes
/// KEY=VALUE (VALUE is JSON when it parses as JSON, a string otherwise) and may be given more than once.
public struct RequestOptions {
    /// Every option with its values, in the order given.
    public var values: [String: [String]]

    /// The options and flags `add` takes.
    public static let names: Set<String> = [
        "id", "title", "subtitle", "body", "in", "repeat", "at", "on", "tz", "dst", "thread", "category", "relevance",
        "level", "image", "data", "max-late", "priority", "summary",
    ]

    public init(_ values: [String: [String]]) { self.values = values }

    /// A mistake in one option: "--in: time span 'soon' ...".
    public struct Problem: Error, Sendable {
        public var message: String
    }

    /// The request these options describe; times are read in `zones.local` unless an option names a zone.
    public func request(zones: ZoneContext) throws(Problem) -> Request {
        if let unknown = values.keys.sorted().first(where: { !Self.names.contains($0) }) {
            throw Problem(message: "unknown option '\(unknown)' (known: \(Self.names.sorted().joined(separator: ", ")))")
        }
        var request = Request(id: value("id") ?? Self.generatedID(), content: try content(), trigger: try trigger(zones))
        if let span = value("max-late") {
            do throws(ValidationError) { request.maxLate = try TimeSpan.parse(span) } catch { throw fail("max-late", error.message) }
        }
        if let p = value("priority") {
            guard let n = Int(p), (0...99).contains(n) else { throw fail("priority", "'\(p)' is not a class from 0 to 99") }
            request.priority = n
        }
        return request
    }

    private func value(_ name: String) -> String? { values[name]?.last }

    /// A flag given and not "false".
    private func has(_ flag: String) -> Bool { values[flag].map { $0.last?.lowercased() != "false" } ?? false }

    private func fail(_ option: String, _ message: String) -> Problem { Problem(message: "--\(option): \(message)") }

    private func trigger(_ zones: ZoneContext) throws(Problem) -> Trigger {
        if let on = value("on") { return try calendar(on, zones) }
        if value("tz") != nil || value("dst") != nil { throw Problem(message: "--tz and --dst go with --on") }
        switch (value("in"), value("at")) {
        case (nil, nil): throw Problem(message: "add needs --in SPAN or --at TIME")
        case (_?, _?): throw Problem(message: "--in and --at cannot be used together")
        case (let span?, nil):
            do throws(ValidationError) {
                return .interval(try TimeSpan.parse(span), repeats: has("repeat"))
            } catch { throw fail("in", error.message) }
        case (nil, let time?):
            if has("repeat") { throw Problem(message: "--repeat goes with --in, not --at") }
            do throws(ValidationError) {
                return .date(try DateTimeInput.parse(time, localZone: zones.local, loadZone: zones.named))
            } catch { throw fail("at", error.message) }
        }
    }

    private func calendar(_ text: String, _ zones: ZoneContext) throws(Problem) -> Trigger {
        if value("in") != nil || value("at") != nil || has("repeat") { throw Problem(message: "--on cannot be used with --in, --at or --repeat") }
        let spec: CalendarSpec
        do throws(ValidationError) {
            spec = try CalendarSpec.parse(text, isZone: { zones.named($0) != nil })
        } catch { throw fail("on", error.message) }
        guard let policy = DSTPolicy(rawValue: value("dst") ?? "aviso") else {
            throw fail("dst", "'\(value("dst")!)' is not aviso or systemd")
        }
        var zone: String?
        if let tz = value("tz") {
            if spec.zone != nil || spec.isUTC { throw fail("tz", "the spec '\(text)' already names its zone") }
            if tz == "local" {
                zone = zones.local.name
            } else {
                guard zones.named(tz) != nil else { throw fail("tz", "unknown time zone '\(tz)'") }
                zone = tz
            }
        }
        return .calendar(CalendarTrigger(spec: text, zone: zone, policy: policy))
    }

    private func content() throws(Problem) -> Content {
        var c = Content(
            title: value("title") ?? "", subtitle: value("subtitle") ?? "", body: value("body") ?? "",
            threadID: value("thread"), categoryID: value("category"), image: value("image"),
            delivery: has("summary") ? .summary : nil)
        if let r = value("relevance") {
            guard let x = Double(r), x.isFinite else { throw fail("relevance", "'\(r)' is not a number (expected 0 to 1)") }
            c.relevance = x
        }
        if let l = value("level") {
            do throws(ValidationError) { c.level = try InterruptionLevel.parse(l) } catch { throw fail("level", error.message) }
        }
        for pair in values["data"] ?? [] {
            guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex else { throw fail("data", "'\(pair)' is not KEY=VALUE") }
            let value = String(pair[pair.index(after: eq)...])
            c.userInfo[String(pair[..<eq])] =
                (try? JSONDecoder().decode(JSONValue.self, from: Data(value.utf8))) ?? .string(value)
        }
        return c
    }

    /// A random identifier like "aviso-3f9c2a71d04e".
    public static func generatedID() -> String {
        let n = UInt64.random(in: 0..<(1 << 48))
        let hex = String(n, radix: 16)
        return "aviso-" + String(repeating: "0", count: 12 - hex.count) + hex
    }
}
