import AvisoDaemon
import Glibc

/// Reading a whole directory of reminder files as a start does (`ReminderDirectory.load`), in process, several
/// times: wall time and the CPU time of all threads for each reading.
enum DirectoryBenchmark {
    static func run(_ path: String, rounds: Int) -> (wall: [Double], cpu: [Double], reminders: Int) {
        let zones = ZoneLookup.system(environment: [:])
        var wall: [Double] = [], cpu: [Double] = [], reminders = 0
        for _ in 0..<rounds {
            let directory = ReminderDirectory(path: path, zones: zones)
            let (w0, c0) = (Stopwatch.now(), cpuNanoseconds())
            directory.load()
            wall.append(Double(Stopwatch.now() - w0))
            cpu.append(Double(cpuNanoseconds() - c0))
            reminders = directory.declaredCount
        }
        return (wall, cpu, reminders)
    }

    private static func cpuNanoseconds() -> Int64 {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let user = Int64(usage.ru_utime.tv_sec) * 1_000_000_000 + Int64(usage.ru_utime.tv_usec) * 1_000
        return user + Int64(usage.ru_stime.tv_sec) * 1_000_000_000 + Int64(usage.ru_stime.tv_usec) * 1_000
    }
}
