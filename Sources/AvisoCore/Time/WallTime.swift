/// An instant on CLOCK_REALTIME: nanoseconds since the Unix epoch, UTC.
///
/// Wall-clock time can jump (NTP, a person setting the clock); deadlines that name a moment of the civil
/// calendar (`--at`, calendar triggers) are wall times. The core never reads the clock: callers pass it in.
public struct WallTime: Hashable, Comparable, Sendable, Codable {
    /// Nanoseconds since 1970-01-01T00:00:00Z.
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }
    public init(seconds: Int64) { self.nanoseconds = seconds * 1_000_000_000 }

    /// Whole seconds since the epoch, rounded toward negative infinity.
    public var seconds: Int64 {
        nanoseconds >= 0 ? nanoseconds / 1_000_000_000 : -((-nanoseconds + 999_999_999) / 1_000_000_000)
    }

    public static func < (a: WallTime, b: WallTime) -> Bool { a.nanoseconds < b.nanoseconds }
    public static func + (a: WallTime, d: Span) -> WallTime { WallTime(nanoseconds: a.nanoseconds &+ d.nanoseconds) }
    public static func - (a: WallTime, d: Span) -> WallTime { WallTime(nanoseconds: a.nanoseconds &- d.nanoseconds) }
    public static func - (a: WallTime, b: WallTime) -> Span { Span(nanoseconds: a.nanoseconds &- b.nanoseconds) }

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
    public static func + (a: BootTime, d: Span) -> BootTime { BootTime(nanoseconds: a.nanoseconds &+ d.nanoseconds) }
    public static func - (a: BootTime, b: BootTime) -> Span { Span(nanoseconds: a.nanoseconds &- b.nanoseconds) }

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
    public static func seconds(_ s: Int64) -> Span { Span(nanoseconds: s * 1_000_000_000) }
    public static func milliseconds(_ ms: Int64) -> Span { Span(nanoseconds: ms * 1_000_000) }
    public static let zero = Span(nanoseconds: 0)

    public static func < (a: Span, b: Span) -> Bool { a.nanoseconds < b.nanoseconds }
    public static func + (a: Span, b: Span) -> Span { Span(nanoseconds: a.nanoseconds &+ b.nanoseconds) }
    public static func * (a: Span, k: Int64) -> Span { Span(nanoseconds: a.nanoseconds &* k) }

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
