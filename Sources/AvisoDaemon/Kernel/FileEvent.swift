/// What the file watcher saw, after debouncing.
public enum FileEvent: Sendable, Hashable {
    /// Something under the configuration directory changed: `aviso.conf`, the `reminders/` directory or a
    /// `*.conf` file in it (created, written, renamed in or out, deleted), or the directory itself reappeared.
    /// `paths` are full paths: a file, `reminders/` itself, or the configuration directory (then rescan all).
    case configChanged(paths: Set<String>)
    /// The zone file (/etc/localtime) was replaced, rewritten, removed or created: re-read the local zone.
    case zoneChanged
    /// A watch could not be set (ENOSPC: the user's inotify watch limit is reached). Changes under that path go
    /// unnoticed until the next event or `avisoctl reload`; the watcher retries on every later event.
    case watchFailed(SystemError)
}
