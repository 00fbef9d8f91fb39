/// An instant on CLOCK_REALTIME: nanoseconds since the Unix epoch, UTC.
///
/// Wall-clock time can jump (NTP, a person setting the clock); deadlines that name a moment of the civil
/// calendar (`--at`, calendar triggers) are wall times. The core never reads the clock: callers pass it in.
public struct WallTime: Hashable, Comparable, Sendable, Codable {
    /// Nanoseconds since 1970-01-01T00:00:00Z.
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }
    /// `seconds` since the epoch; saturates at the ends of the representable range (about 1677 and 2262).
    public init(seconds: Int64) { self.nanoseconds = Saturating.multiply(seconds, 1_000_000_000) }

    /// Whole seconds since the epoch, rounded toward negative infinity.
    public var seconds: Int64 { CivilDateTime.floorDiv(nanoseconds, 1_000_000_000) }

    /// The first instant aviso schedules at: 1970-01-01T00:00:00Z.
    public static let earliestSupported = WallTime(nanoseconds: 0)
    /// The last instant aviso schedules at: 2199-12-31T23:59:59.999999999Z, the end of the years that systemd's
    /// calendar arithmetic covers, well inside what 64-bit nanoseconds (to 2262) and the kernel's clocks hold.
    public static let latestSupported = WallTime(
        nanoseconds: CivilDateTime.days(fromCivil: 2200, 1, 1) * 86_400 * 1_000_000_000 - 1)
    /// The years a date may name: 1970 to 2199.
    public static let supportedYears = 1970...2199

    /// Whether aviso can schedule at this instant (`earliestSupported...latestSupported`).
    public var isSupported: Bool { self >= Self.earliestSupported && self <= Self.latestSupported }

    // Arithmetic saturates instead of trapping or wrapping: a result past the ends of Int64 stays at the end, which
    // lies outside the supported range, so validation refuses it with a message instead of a wrapped date in 1732.
    public static func < (a: WallTime, b: WallTime) -> Bool { a.nanoseconds < b.nanoseconds }
    public static func + (a: WallTime, d: Span) -> WallTime { WallTime(nanoseconds: Saturating.add(a.nanoseconds, d.nanoseconds)) }
    public static func - (a: WallTime, d: Span) -> WallTime { WallTime(nanoseconds: Saturating.subtract(a.nanoseconds, d.nanoseconds)) }
    public static func - (a: WallTime, b: WallTime) -> Span { Span(nanoseconds: Saturating.subtract(a.nanoseconds, b.nanoseconds)) }

    public init(from decoder: any Decoder) throws {
        nanoseconds = try decoder.singleValueContainer().decode(Int64.self)
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(nanoseconds)
    }
}

/// An instant on CLOCK_BOOTTIME: nanoseconds since this boot, counting time spent suspended.
///
/// Only meaningful together with the boot it was read in (see `Now.bootID`).
public struct BootTime: Hashable, Comparable, Sendable, Codable {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public static func < (a: BootTime, b: BootTime) -> Bool { a.nanoseconds < b.nanoseconds }
    public static func + (a: BootTime, d: Span) -> BootTime { BootTime(nanoseconds: Saturating.add(a.nanoseconds, d.nanoseconds)) }
    public static func - (a: BootTime, b: BootTime) -> Span { Span(nanoseconds: Saturating.subtract(a.nanoseconds, b.nanoseconds)) }

    public init(from decoder: any Decoder) throws {
        nanoseconds = try decoder.singleValueContainer().decode(Int64.self)
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(nanoseconds)
    }
}

/// A length of elapsed time in nanoseconds (may be negative as a difference).
public struct Span: Hashable, Comparable, Sendable, Codable {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }
    /// Saturates at the ends of Int64, like all span arithmetic.
    public static func seconds(_ s: Int64) -> Span { Span(nanoseconds: Saturating.multiply(s, 1_000_000_000)) }
    public static func milliseconds(_ ms: Int64) -> Span { Span(nanoseconds: Saturating.multiply(ms, 1_000_000)) }
    public static let zero = Span(nanoseconds: 0)

    public static func < (a: Span, b: Span) -> Bool { a.nanoseconds < b.nanoseconds }
    public static func + (a: Span, b: Span) -> Span { Span(nanoseconds: Saturating.add(a.nanoseconds, b.nanoseconds)) }
    public static func * (a: Span, k: Int64) -> Span { Span(nanoseconds: Saturating.multiply(a.nanoseconds, k)) }

    public init(from decoder: any Decoder) throws {
        nanoseconds = try decoder.singleValueContainer().decode(Int64.self)
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(nanoseconds)
    }
}

/// One reading of both kernel clocks, taken together by the shell and passed into the core.
public struct Now: Hashable, Sendable {
    /// CLOCK_REALTIME.
    public var wall: WallTime
    /// CLOCK_BOOTTIME.
    public var boot: BootTime
    /// `/proc/sys/kernel/random/boot_id`: boot times from another boot are meaningless in this one.
    public var bootID: String

    public init(wall: WallTime, boot: BootTime, bootID: String) {
        self.wall = wall
        self.boot = boot
        self.bootID = bootID
    }
}

/// Int64 arithmetic that stops at the ends of the range: never traps, never wraps.
enum Saturating {
    static func add(_ a: Int64, _ b: Int64) -> Int64 {
        let (r, o) = a.addingReportingOverflow(b)
        return o ? (b > 0 ? .max : .min) : r
    }

    static func subtract(_ a: Int64, _ b: Int64) -> Int64 {
        let (r, o) = a.subtractingReportingOverflow(b)
        return o ? (b < 0 ? .max : .min) : r
    }

    static func multiply(_ a: Int64, _ b: Int64) -> Int64 {
        let (r, o) = a.multipliedReportingOverflow(by: b)
        return o ? ((a < 0) == (b < 0) ? .max : .min) : r
    }
}
