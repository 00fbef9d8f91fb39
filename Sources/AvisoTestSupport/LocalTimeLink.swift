import Foundation

/// A stand-in for /etc/localtime (the daemon reads it through `AVISO_LOCALTIME`): a symbolic link into the zone
/// database that `change(to:)` replaces as timedatectl does, with a new link renamed over the old one.
public final class LocalTimeLink {
    public let directory: String
    /// The link's path, for `AVISO_LOCALTIME`.
    public var path: String { directory + "/localtime" }

    public init(zone: String) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("aviso-zone-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/usr/share/zoneinfo/" + zone)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// Points the link at another zone in one rename; false when the rename failed.
    @discardableResult
    public func change(to zone: String) throws -> Bool {
        try FileManager.default.createSymbolicLink(atPath: directory + "/new", withDestinationPath: "/usr/share/zoneinfo/" + zone)
        return rename(directory + "/new", path) == 0
    }
}
