import AvisoCore
import FoundationEssentials

/// Loads zone rules from the system's tz database, so that aviso and the rest of the system agree.
///
/// Shared by daemon and client (both need "local time"); the parsing itself is the pure core's.
public enum ZoneDatabase {
    /// The tz database directory: `$TZDIR`, else /usr/share/zoneinfo.
    public static func directory(environment: [String: String]) -> String {
        environment["TZDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/share/zoneinfo"
    }

    /// The rules of the zone called `name` (like "Europe/Madrid" or "UTC"), or nil if there is no such zone.
    public static func load(_ name: String, environment: [String: String]) -> ZoneRules? {
        if name == "UTC" || name == "Etc/UTC" || name == "GMT" { return .utc }
        // A name must stay inside the database: no absolute paths, no '..'.
        guard !name.isEmpty, !name.hasPrefix("/"), !name.split(separator: "/").contains("..") else { return nil }
        return read(directory(environment: environment) + "/" + name, name: name)
    }

    /// The local zone as glibc sees it: `TZ` (":Name", "Name" or a path) when set, else /etc/localtime; UTC when
    /// neither gives usable rules.
    public static func local(environment: [String: String], localtimePath: String = "/etc/localtime") -> ZoneRules {
        if var tz = environment["TZ"] {
            if tz.hasPrefix(":") { tz.removeFirst() }
            if tz.isEmpty { return .utc }
            if tz.hasPrefix("/") { return read(tz, name: tz) ?? .utc }
            return load(tz, environment: environment) ?? .utc
        }
        return read(localtimePath, name: localName(localtimePath)) ?? .utc
    }

    /// The zone name /etc/localtime links to ("Europe/Madrid"), or "localtime" when it is not a link into the database.
    static func localName(_ path: String) -> String {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path) else { return "localtime" }
        let parts = target.split(separator: "/", omittingEmptySubsequences: false)
        guard let i = parts.lastIndex(of: "zoneinfo"), i + 1 < parts.count else { return "localtime" }
        return parts[(i + 1)...].joined(separator: "/")
    }

    private static func read(_ path: String, name: String) -> ZoneRules? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? ZoneRules.parse(tzif: [UInt8](data), name: name)
    }
}
