import Glibc

/// Which inotify watches the file watcher holds, and what each one is for.
///
/// Rebuilt by `refresh()` after any event that may have created or removed a watched path: the table is derived
/// from what exists now, never patched. Owned by `FileWatcher.init` until the watcher thread starts, then only
/// by that thread.
final class WatchTable: @unchecked Sendable {
    enum Kind: Hashable {
        case configDirectory
        case remindersDirectory
        case zoneDirectory
        case zoneFile
        /// The nearest existing parent of a directory that is missing: waits for it to reappear.
        case ancestor
    }

    struct Watched: Hashable {
        var path: String
        var kind: Kind
    }

    static let directoryMask: Inotify.Mask = [
        .create, .delete, .movedFrom, .movedTo, .closeWrite, .modify, .attrib, .deleteSelf, .moveSelf, .onlyDirectory,
    ]
    static let fileMask: Inotify.Mask = [.modify, .attrib, .closeWrite, .deleteSelf, .moveSelf]
    /// Adds to an existing watch's mask instead of replacing it, for two roles on one inode.
    private static let maskAdd = Inotify.Mask(rawValue: 0x2000_0000)

    let fd: Int32
    let configDirectory: String
    let configFileName: String
    let remindersDirectory: String
    let zoneFile: String
    let zoneDirectory: String
    private(set) var byWatch: [Int32: [Watched]] = [:]

    init(fd: Int32, configFile: String, zoneFile: String) {
        self.fd = fd
        let config = Self.split(Self.normalized(configFile))
        configDirectory = config.directory
        configFileName = config.name
        remindersDirectory = (configDirectory == "/" ? "" : configDirectory) + "/reminders"
        self.zoneFile = Self.normalized(zoneFile)
        zoneDirectory = Self.split(self.zoneFile).directory
    }

    /// The watch on the configuration directory itself, nil when it is not watched (it does not exist). A new
    /// number means a new directory: one removed and created again.
    var configDirectoryWatch: Int32? { watch(of: .configDirectory) }
    /// The watch on the zone file's directory, likewise.
    var zoneDirectoryWatch: Int32? { watch(of: .zoneDirectory) }

    private func watch(of kind: Kind) -> Int32? {
        byWatch.first { $0.value.contains { $0.kind == kind } }?.key
    }

    /// What the watch `wd` is for; empty for a watch already dropped.
    func watched(_ wd: Int32) -> [Watched] { byWatch[wd] ?? [] }

    /// Watches what exists now and drops the rest; returns the errors of watches that could not be set (ENOENT
    /// from a path removed meanwhile is not one: the parent's event brings another refresh).
    func refresh() -> [SystemError] {
        var desired: [Watched] = []
        let config = Self.nearestExisting(configDirectory)
        if config == configDirectory {
            desired.append(Watched(path: configDirectory, kind: .configDirectory))
            if Self.isDirectory(remindersDirectory) {
                desired.append(Watched(path: remindersDirectory, kind: .remindersDirectory))
            }
        } else {
            desired.append(Watched(path: config, kind: .ancestor))
        }
        let zone = Self.nearestExisting(zoneDirectory)
        if zone == zoneDirectory {
            desired.append(Watched(path: zoneDirectory, kind: .zoneDirectory))
            if access(zoneFile, F_OK) == 0 { desired.append(Watched(path: zoneFile, kind: .zoneFile)) }
        } else {
            desired.append(Watched(path: zone, kind: .ancestor))
        }

        var next: [Int32: [Watched]] = [:]
        var errors: [SystemError] = []
        for item in desired {
            let mask = (item.kind == .zoneFile ? Self.fileMask : Self.directoryMask).union(Self.maskAdd)
            do throws(SystemError) {
                let wd = try Inotify.addWatch(fd, item.path, mask)
                next[wd, default: []].append(item)
            } catch {
                if error.errno != .noEntry && error.errno.rawValue != ENOTDIR { errors.append(error) }
            }
        }
        for wd in byWatch.keys where next[wd] == nil { Inotify.removeWatch(fd, wd) }
        byWatch = next
        return errors
    }

    /// The watch was removed by the kernel (IN_IGNORED): forget it without calling inotify_rm_watch.
    func forget(_ wd: Int32) { byWatch[wd] = nil }

    static func normalized(_ path: String) -> String {
        var p = path
        while p.count > 1 && p.hasSuffix("/") { p.removeLast() }
        return p
    }

    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// `path` if it is a directory, else its nearest parent that is one.
    static func nearestExisting(_ path: String) -> String {
        var p = path
        while !isDirectory(p) {
            let parent = split(p).directory
            if parent == p { return p }
            p = parent
        }
        return p
    }
}
