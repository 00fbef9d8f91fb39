import AvisoCore
import AvisoProtocol
import Foundation

/// Times `CalendarSpec.nextElapse` and Foundation's `Calendar.nextDate` on the same events, zones and instants.
///
/// Each sample is one chain of `chain` calls, each starting where the previous answer left off, so the walk crosses
/// DST changes as a running daemon would; a sample's value is the chain's time divided by its length, which keeps
/// clock-read overhead out of the figure. The first round warms caches and is not counted.
struct ElapseBenchmark {
    /// One case in one zone, ready to run.
    struct Subject {
        let label: String
        let spec: CalendarSpec
        let rules: ZoneRules
        let calendar: Calendar
        let components: [DateComponents]
    }

    /// Per-call nanoseconds, one value per chain.
    struct Samples {
        var aviso: [Double] = []
        var systemd: [Double] = []
        var foundation: [Double] = []
        /// Chained answers compared with Foundation's, and how many were equal.
        var compared = 0
        var agreed = 0
    }

    let subjects: [Subject]
    let starts: [WallTime]
    let chain: Int
    let rounds: Int

    /// Builds the subjects from `BenchCase.mix` × `BenchCase.zones`; fails with a message when a zone is missing.
    init(starts: Int = 64, chain: Int = 16, rounds: Int = 3) throws {
        let environment = ProcessInfo.processInfo.environment
        var subjects: [Subject] = []
        for zone in BenchCase.zones {
            guard let rules = ZoneDatabase.load(zone, environment: environment), let tz = TimeZone(identifier: zone) else {
                throw BenchError("the zone \(zone) is not in the tz database (install tzdata)")
            }
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = tz
            for c in BenchCase.mix {
                let spec = try CalendarSpec.parse(c.spec + " " + zone)
                subjects.append(Subject(label: "\(c.label) \(zone)", spec: spec, rules: rules, calendar: calendar,
                                        components: c.components))
            }
        }
        self.subjects = subjects
        // Spread over 2026 at odd seconds, so chains start on every kind of day, DST days included.
        let base: Int64 = 1_767_225_600  // 2026-01-01T00:00:00Z
        self.starts = (0..<starts).map { WallTime(seconds: base + Int64($0) * (365 * 86_400 / Int64(starts)) + 12_345) }
        self.chain = chain
        self.rounds = rounds
    }

    /// Runs every subject from every start, `rounds` times; returns the samples per subject label and in total.
    func run() -> (total: Samples, perSubject: [(String, Samples)]) {
        var total = Samples()
        var per: [(String, Samples)] = []
        for subject in subjects {
            var s = Samples()
            for round in 0..<rounds {
                for start in starts {
                    let a = timeAviso(subject, from: start, policy: .aviso)
                    let y = timeAviso(subject, from: start, policy: .systemd)
                    let f = timeFoundation(subject, from: start)
                    guard round > 0 else { continue }
                    s.aviso.append(a.perCall)
                    s.systemd.append(y.perCall)
                    s.foundation.append(f.perCall)
                    for (x, z) in zip(a.answers, f.answers) {
                        s.compared += 1
                        if x == z { s.agreed += 1 }
                    }
                }
            }
            total.aviso += s.aviso
            total.systemd += s.systemd
            total.foundation += s.foundation
            total.compared += s.compared
            total.agreed += s.agreed
            per.append((subject.label, s))
        }
        return (total, per)
    }

    private func timeAviso(_ s: Subject, from start: WallTime, policy: DSTPolicy) -> (perCall: Double, answers: [Int64]) {
        var answers: [Int64] = []
        answers.reserveCapacity(chain)
        var t = start
        let begin = Stopwatch.now()
        for _ in 0..<chain {
            guard let next = s.spec.nextElapse(after: t, in: s.rules, policy: policy) else { break }
            answers.append(next.seconds)
            t = next
        }
        let took = Stopwatch.now() - begin
        return (Double(took) / Double(chain), answers)
    }

    private func timeFoundation(_ s: Subject, from start: WallTime) -> (perCall: Double, answers: [Int64]) {
        var answers: [Int64] = []
        answers.reserveCapacity(chain)
        var d = Date(timeIntervalSince1970: Double(start.seconds))
        let begin = Stopwatch.now()
        for _ in 0..<chain {
            var best: Date?
            for c in s.components {
                if let n = s.calendar.nextDate(after: d, matching: c, matchingPolicy: .nextTime), best == nil || n < best! {
                    best = n
                }
            }
            guard let best else { break }
            answers.append(Int64(best.timeIntervalSince1970.rounded(.down)))
            d = best
        }
        let took = Stopwatch.now() - begin
        return (Double(took) / Double(chain), answers)
    }
}
