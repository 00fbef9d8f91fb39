import AvisoCore
import AvisoProtocol

extension Scheduler {
    /// The store key of what `avisoctl quiet` said.
    static let quietKey = "quiet"

    /// `avisoctl quiet [on [--for|--until] | off]`: changes what was said, keeps it across restarts, and releases
    /// what quiet hours held when they end.
    func quietCommand(_ change: QuietChange) -> Reply {
        let current = now().wall
        let override: QuietOverride?
        switch change {
        case .state:
            return .ok(.quiet(quietInfo()))
        case .on(let until):
            if let until, until <= current {
                return .error(ReplyError(code: "invalid", message: """
                    quiet until \(ISO8601.format(until)) ends in the past (it is now \(ISO8601.format(current))); nothing changed
                    """))
            }
            if let until, until > .latestSupported {
                return .error(ReplyError(code: "invalid", message: """
                    quiet until \(ISO8601.format(until)) ends after \(ISO8601.format(.latestSupported)), the last instant \
                    aviso can schedule; use 'quiet on' without an end instead; nothing changed
                    """))
            }
            override = .on(until: until)
        case .off:
            override = quiet.turnedOff(at: current, in: zones.local)
        }
        let heldBefore = Set(((try? store.outbox()) ?? []).filter { hold($0, at: current) == "quiet" }.map(\.id))
        do {
            try store.setState(Self.quietKey, override.map(Self.text))
        } catch {
            return storageError("quiet hours were not changed", error)
        }
        quiet.override = override
        releasedFromQuiet = heldBefore
        deliverOutbox()
        releasedFromQuiet = []
        let info = quietInfo()
        Log.info("quiet: \(info.reason)")
        return .ok(.quiet(info))
    }

    /// What `quiet` and `status` report.
    func quietInfo() -> QuietInfo {
        let current = now().wall
        let isQuiet = quiet.isQuiet(at: current, in: zones.local)
        let hours = quiet.hours.ranges.map(\.description)
        let reason: String
        switch quiet.activeOverride(at: current) {
        case .on(let until?): reason = "turned on until \(localTime(until))"
        case .on(nil): reason = "turned on until turned off"
        case .off(let until): reason = "turned off until \(localTime(until))"
        case nil: reason = hours.isEmpty ? "no quiet hours" : "quiet hours " + hours.joined(separator: ", ")
        }
        let held = ((try? store.outbox()) ?? []).filter { hold($0, at: current) != nil }.count
        return QuietInfo(quiet: isQuiet, reason: reason, until: quiet.nextChange(after: current, in: zones.local).map(ISO8601.format),
                         hours: hours, held: held)
    }

    /// "on", "on NANOSECONDS" or "off NANOSECONDS", as kept in the store.
    static func text(_ override: QuietOverride) -> String {
        switch override {
        case .on(nil): "on"
        case .on(let until?): "on \(until.nanoseconds)"
        case .off(let until): "off \(until.nanoseconds)"
        }
    }

    static func quietOverride(_ text: String) -> QuietOverride? {
        let words = text.split(separator: " ")
        switch (words.first, words.count > 1 ? Int64(words[1]) : nil) {
        case ("on", nil) where words.count == 1: return .on(until: nil)
        case ("on", let ns?): return .on(until: WallTime(nanoseconds: ns))
        case ("off", let ns?): return .off(until: WallTime(nanoseconds: ns))
        default: return nil
        }
    }
}
