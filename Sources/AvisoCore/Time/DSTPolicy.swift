/// What a calendar trigger does with local times that a daylight-saving change skips or repeats.
///
/// Set per request (`"dst"` in a calendar trigger); `aviso` is the default.
public enum DSTPolicy: String, Hashable, Sendable, Codable, CaseIterable {
    /// Never skip, never fire twice. A local time that does not exist that day (spring forward) fires at the first
    /// instant after the gap; a local time that happens twice (fall back) fires once, at its first occurrence, for
    /// specs with fixed hours; specs whose hour is `*` (`*:30`, `*:0/15`, hourly, minutely) keep their cadence through
    /// the repeated hour, firing at every real instant whose local time matches.
    case aviso
    /// Exactly what systemd 252 computes (`systemd-analyze calendar`): times in a gap are skipped, and the repeated
    /// hour is seen once, the way glibc's `mktime` resolves it.
    case systemd
}
