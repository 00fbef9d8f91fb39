import Foundation

// aviso-bench: the in-process benchmarks of Benchmarks/run (the daemon-level ones are Python scripts there).
let usage = """
    Usage: aviso-bench elapse [--detail]   median cost of a next-elapse computation beside Foundation's nextDate
           aviso-bench specs               the benchmark's specs with their zones, one a line (for systemd-analyze)
           aviso-bench directory DIR [N]   read a directory of reminder files N times (default 5) as a start does
    """

func us(_ ns: Double) -> String { String(format: "%.2f µs", ns / 1_000) }

let args = Array(CommandLine.arguments.dropFirst())
switch args.first {
case "specs":
    for zone in BenchCase.zones { for c in BenchCase.mix { print("\(c.spec) \(zone)") } }
case "elapse":
    do {
        let bench = try ElapseBenchmark()
        let (t, per) = bench.run()
        if args.contains("--detail") {
            for (label, s) in per {
                print("  \(label): aviso \(us(Stopwatch.median(s.aviso))), systemd policy \(us(Stopwatch.median(s.systemd))), "
                      + "Foundation \(us(Stopwatch.median(s.foundation))), agree \(s.agreed)/\(s.compared)")
            }
        }
        let a = Stopwatch.median(t.aviso), f = Stopwatch.median(t.foundation)
        print("next elapse, \(bench.subjects.count) spec×zone cases, \(t.aviso.count * bench.chain) calls: "
              + "aviso median \(us(a)) (p90 \(us(Stopwatch.percentile(t.aviso, 0.9))); systemd policy "
              + "\(us(Stopwatch.median(t.systemd)))) | Foundation Calendar.nextDate median \(us(f)) "
              + "(p90 \(us(Stopwatch.percentile(t.foundation, 0.9)))), \(String(format: "%.0f", f / a))× aviso; "
              + "answers agree \(t.agreed) of \(t.compared)")
    } catch {
        FileHandle.standardError.write(Data("aviso-bench: \(error)\n".utf8))
        exit(1)
    }
case "directory" where args.count >= 2:
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: args[1], isDirectory: &isDirectory), isDirectory.boolValue else {
        FileHandle.standardError.write(Data("aviso-bench: \(args[1]) is not a directory of reminder files\n".utf8))
        exit(1)
    }
    let rounds = args.count > 2 ? Int(args[2]) : 5
    guard let rounds, rounds >= 1 else {
        FileHandle.standardError.write(Data("aviso-bench: the number of readings must be a whole number of at least 1\n".utf8))
        exit(2)
    }
    let (wall, cpu, n) = DirectoryBenchmark.run(args[1], rounds: rounds)
    let ms = { (ns: Double) in String(format: "%.0f ms", ns / 1_000_000) }
    print("reading \(n) reminders in \(args[1]), \(wall.count) times: median \(ms(Stopwatch.median(wall))) "
          + "(min \(ms(wall.min() ?? 0))), CPU median \(ms(Stopwatch.median(cpu))) (min \(ms(cpu.min() ?? 0)))")
default:
    FileHandle.standardError.write(Data(usage.utf8))
    exit(2)
}
