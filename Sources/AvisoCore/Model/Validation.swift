extension Request {
    /// The longest identifier accepted, in UTF-8 bytes.
    public static let maximumIdentifierLength = 255

    /// The shortest interval a repeating trigger may have (as iOS: 60 seconds).
    public static let minimumRepeatInterval = Span.seconds(60)

    /// Checks the request before it is stored and returns its first deadline; throws the first problem found,
    /// naming the field and value. A request that passes can fire: its first deadline exists and is in range.
    ///
    /// `now` decides whether a date is in the past and where the first deadline falls; `zones` resolves calendar
    /// triggers (an anchoring zone that `zones.named` cannot load is refused); `imageProblem` is asked about the
    /// image path and returns why it cannot be used, or nil (the core does no I/O). Rules: a non-empty identifier
    /// of at most 255 UTF-8 bytes without control characters; a title or a body; relevance finite and within 0...1;
    /// a priority class within 0...99; a MaxLate longer than zero; a positive interval, at least 60 s if it
    /// repeats; a date after `now`; a calendar spec that elapses again; every deadline within
    /// `WallTime.earliestSupported...latestSupported`; an image given as an absolute path that `imageProblem`
    /// accepts.
    public func validate(
        now: Now, zones: ZoneContext, imageProblem: (String) -> String?
    ) throws(ValidationError) -> Deadline {
        try validateFields(imageProblem: imageProblem)
        return try firstDeadline(now: now, zones: zones)
    }

    /// The checks of `validate` that do not depend on time: identifier, content, priority, MaxLate and image.
    public func validateFields(imageProblem: (String) -> String?) throws(ValidationError) {
        try Self.validateIdentifier(id)
        if content.title.isEmpty && content.body.isEmpty {
            throw ValidationError(.emptyContent, "request '\(id)' has neither a title nor a body; give at least one")
        }
        if let r = content.relevance {
            guard r.isFinite else { throw ValidationError(.relevance, "relevance \(r) is not a number between 0 and 1") }
            guard (0...1).contains(r) else { throw ValidationError(.relevance, "relevance \(r) is outside 0...1") }
        }
        if let p = priority, !PriorityRules.classRange.contains(p) {
            throw ValidationError(.priority, "priority \(p) is not a class from 0 (highest) to 99 (lowest)")
        }
        if let limit = maxLate, limit <= .zero {
            throw ValidationError(.maxLate, "maxLate \(TimeSpan.format(limit)) must be longer than zero, like '30min'")
        }
        if let image = content.image {
            guard image.hasPrefix("/") else {
                throw ValidationError(.image, "image '\(image)' is not an absolute path; give the full path, starting with '/'")
            }
            guard !image.utf8.contains(0) else {
                throw ValidationError(.image, "image path '\(Self.printable(image))' contains a NUL byte")
            }
            if let why = imageProblem(image) { throw ValidationError(.image, "image '\(image)' \(why)") }
        }
    }

    /// The trigger's first deadline as seen from `now`, or why there is none: the checks of `validate` that depend
    /// on time and zones.
    public func firstDeadline(now: Now, zones: ZoneContext) throws(ValidationError) -> Deadline {
        switch trigger {
        case .interval(let span, let repeats):
            guard span > .zero else {
                throw ValidationError(.interval, "interval \(TimeSpan.format(span)) must be longer than zero")
            }
            if repeats && span < Self.minimumRepeatInterval {
                throw ValidationError(.interval,
                                      "repeating interval \(TimeSpan.format(span)) is shorter than the minimum of 60s")
            }
            guard now.wall + span <= WallTime.latestSupported else {
                throw ValidationError(.interval, "interval \(TimeSpan.format(span)) is too long: it would end after "
                    + "\(ISO8601.format(WallTime.latestSupported)), the last moment aviso can schedule")
            }
        case .calendar(let c):
            let spec = try c.parsed()
            if let own = spec.zone, let given = c.zone, own != given {
                throw ValidationError(.calendar, "OnCalendar: '\(c.spec)' names the zone '\(own)' and the request "
                    + "names '\(given)'; give the zone once")
            }
            if let name = c.effectiveZone, zones.named(name) == nil {
                throw ValidationError(.timeZone, name.isEmpty
                    ? "time zone '' is empty; give a name like Europe/Madrid, or none to follow the local zone"
                    : "unknown time zone '\(name)'; give a name of the tz database like Europe/Madrid or UTC")
            }
            guard let next = c.nextElapse(after: now.wall, zones: zones) else {
                throw ValidationError(.calendar, "OnCalendar: '\(c.spec)' never elapses after \(ISO8601.format(now.wall)) "
                    + "(aviso schedules up to \(ISO8601.format(WallTime.latestSupported))); nothing would ever be shown")
            }
            return .wall(next)
        case .date(let at):
            guard at.isSupported else {
                throw ValidationError(.dateTime, "date \(ISO8601.format(at)) is outside the range aviso can schedule "
                    + "(\(ISO8601.format(WallTime.earliestSupported)) to \(ISO8601.format(WallTime.latestSupported)))")
            }
            guard at > now.wall else {
                throw ValidationError(.pastDate, "date \(ISO8601.format(at)) is in the past (it is now \(ISO8601.format(now.wall)))")
            }
        }
        if let deadline = Schedule.firstDeadline(for: trigger, now: now, zones: zones) { return deadline }
        // Not reached: intervals and dates always have a first deadline, and calendar triggers returned above.
        throw ValidationError(.calendar, "request '\(id)' has no first deadline")
    }

    /// Checks an identifier alone (also used for removal by id).
    public static func validateIdentifier(_ id: String) throws(ValidationError) {
        if id.isEmpty { throw ValidationError(.identifier, "identifier is empty") }
        let bytes = id.utf8.count
        if bytes > maximumIdentifierLength {
            throw ValidationError(.identifier,
                                  "identifier is \(bytes) bytes long (UTF-8); the limit is \(maximumIdentifierLength)")
        }
        // Printable ASCII throughout (nearly every identifier) is looked at byte by byte, not scalar by scalar.
        var text = id
        if text.withUTF8({ $0.allSatisfy { $0 >= 0x20 && $0 < 0x7F } }) { return }
        for (position, c) in id.unicodeScalars.enumerated() where c.value < 0x20 || (0x7F...0x9F).contains(c.value) {
            throw ValidationError(.identifier, "identifier '\(printable(id))' contains the control character "
                + "\(hex(c)) at position \(position + 1); identifiers must be printable")
        }
    }

    private static func hex(_ c: Unicode.Scalar) -> String {
        let digits = String(c.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// The identifier with control characters shown as "?", so the message itself stays printable.
    static func printable(_ id: String) -> String {
        var out = String.UnicodeScalarView()
        for c in id.unicodeScalars {
            out.append(c.value < 0x20 || (0x7F...0x9F).contains(c.value) ? "?" : c)
        }
        return String(out)
    }
}

extension InterruptionLevel {
    /// Parses "passive", "active", "time-sensitive" or "critical" (case does not matter).
    ///
    /// The error (code `.level`) lists the valid values.
    public static func parse(_ s: String) throws(ValidationError) -> InterruptionLevel {
        let key = s.lowercased()
        if let level = InterruptionLevel(rawValue: key) { return level }
        if key == "timesensitive" || key == "time_sensitive" { return .timeSensitive }
        let valid = allCases.map(\.rawValue).joined(separator: ", ")
        throw ValidationError(.level, "interruption level '\(s)' is not one of \(valid)")
    }
}
