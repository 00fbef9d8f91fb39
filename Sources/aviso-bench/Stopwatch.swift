import Glibc

/// Monotonic nanoseconds for timing batches of calls; the vDSO makes a read cost tens of nanoseconds.
enum Stopwatch {
    /// CLOCK_MONOTONIC now, in nanoseconds.
    static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// The median of `samples` (which must not be empty).
    static func median(_ samples: [Double]) -> Double {
        let s = samples.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    /// The value below which `fraction` of `samples` lie (nearest rank).
    static func percentile(_ samples: [Double], _ fraction: Double) -> Double {
        let s = samples.sorted()
        return s[min(s.count - 1, max(0, Int((fraction * Double(s.count)).rounded(.up)) - 1))]
    }
}
