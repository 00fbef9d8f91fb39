import AvisoCore
import AvisoProtocol
import Glibc

/// Reads `aviso.conf` (GLib key-file format) into a `Configuration`.
///
/// ```
/// [Scheduler]
/// Window=64
/// MaxLate=2h
/// SummaryThreshold=3
/// [Priorities]
/// work.=30
/// [Budgets]
/// 50=8
/// [Delivery]
/// RetryInitial=1s
/// RetryMaximum=1min
/// ```
public enum ConfigLoader {
    /// The largest configuration file read; anything bigger is surely not a configuration file.
    static let maximumFileSize = 1 << 20

    private static let knownKeys: [String: Set<String>] = [
        "Scheduler": ["Window", "MaxLate", "SummaryThreshold"],
        "Delivery": ["RetryInitial", "RetryMaximum"],
        "Quiet": ["Hours"],
        "Summary": ["At"],
        "Privacy": ["HiddenPreviews", "ShowTitle", "Placeholder"],
        "Prompt": ["Program"],
        "Events": ["Keep"],
    ]

    /// Groups whose keys are names chosen by the person (identifier prefixes, class numbers).
    private static let openGroups: Set<String> = ["Priorities", "Budgets"]

    /// Reads and checks the file at `path`.
    ///
    /// A missing file gives the defaults and no problems. Any error makes `configuration` nil, so the caller keeps
    /// the configuration it had; warnings (unknown groups and keys) do not. Never traps, whatever the bytes.
    public static func load(path: String, environment: [String: String] = [:]) -> ConfigLoadResult {
        let bytes: [UInt8]
        switch FileBytes.read(path, limit: maximumFileSize, what: "the configuration file") {
        case .missing: return ConfigLoadResult(configuration: .defaults)
        case .failed(let why): return ConfigLoadResult(configuration: nil, errors: [ConfigProblem(file: path, line: nil, message: why)])
        case .read(let b, _): bytes = b
        }
        return parse(bytes, file: path, environment: environment)
    }

    /// Checks key-file text; `file` only names it in problems; `environment` gives the PATH that `exec` actions and
    /// the prompt program are looked up in.
    static func parse(_ bytes: [UInt8], file: String, environment: [String: String] = [:]) -> ConfigLoadResult {
        var problems = ProblemCollector(file: file)
        let keyFile = KeyFile(bytes)
        if let line = keyFile.binaryLine {
            problems.error(line, "the file is not UTF-8 text (line \(line) has invalid bytes); is it a configuration file?")
            return result(nil, problems)
        }
        if let syntax = keyFile.error {
            problems.error(syntax.line, "syntax error: \(syntax.message)")
            return result(nil, problems)
        }

        var configuration = Configuration.defaults
        var priorities: [String: Int] = [:]
        var budgets: [Int: Int] = [:]
        configuration.groups.read(keyFile, file: file, into: &problems) {
            ProgramPath.problem($0, path: environment["PATH"])
        }
        for group in keyFile.groups() where !PresentationGroups.handles(group) {
            let isOpen = openGroups.contains(group)
            guard isOpen || knownKeys[group] != nil else {
                problems.warning(keyFile.line(ofGroup: group), """
                    unknown group [\(group)] is ignored (known: [Scheduler], [Delivery], [Priorities], [Budgets], \
                    [Quiet], [Summary], [Privacy], [Prompt], [Events], [Action NAME], [Category NAME])
                    """)
                continue
            }
            for key in keyFile.keys(in: group) {
                let line = keyFile.line(ofKey: key, in: group)
                let value = (keyFile.value(group, key) ?? "").trimmed()
                switch group {
                case "Priorities":
                    if let c = priorityClass(value, key: key, line: line, into: &problems) { priorities[key] = c }
                    continue
                case "Budgets":
                    if let (c, k) = budget(key: key, value: value, line: line, into: &problems) { budgets[c] = k }
                    continue
                default:
                    break
                }
                guard let known = knownKeys[group], known.contains(key) else {
                    let list = knownKeys[group, default: []].sorted().joined(separator: ", ")
                    problems.warning(line, "unknown key '\(key)' in [\(group)] is ignored (known: \(list))")
                    continue
                }
                switch key {
                case "Window":
                    guard let n = Int(value) else {
                        problems.error(line, "[\(group)] Window='\(value)' is not a whole number; give one from 1 to 64")
                        continue
                    }
                    guard Configuration.windowRange.contains(n) else {
                        problems.error(line, "[\(group)] Window=\(n) is out of range; give a number from 1 to 64")
                        continue
                    }
                    configuration.window = n
                case "SummaryThreshold":
                    guard let n = Int(value) else {
                        problems.error(line, "[\(group)] SummaryThreshold='\(value)' is not a whole number; give one from "
                            + "\(Configuration.summaryThresholdRange.lowerBound) to \(Configuration.summaryThresholdRange.upperBound)")
                        continue
                    }
                    guard Configuration.summaryThresholdRange.contains(n) else {
                        problems.error(line, "[\(group)] SummaryThreshold=\(n) is out of range; give a number from "
                            + "\(Configuration.summaryThresholdRange.lowerBound) to \(Configuration.summaryThresholdRange.upperBound)")
                        continue
                    }
                    configuration.summaryThreshold = n
                case "MaxLate":
                    if value.lowercased() == "infinity" {
                        configuration.maxLate = nil
                        continue
                    }
                    guard let span = positiveSpan(value, group: group, key: key, line: line, into: &problems) else { continue }
                    configuration.maxLate = span
                case "RetryInitial", "RetryMaximum":
                    guard let span = positiveSpan(value, group: group, key: key, line: line, into: &problems) else { continue }
                    if key == "RetryInitial" { configuration.retryInitial = span } else { configuration.retryMaximum = span }
                case "Hours":
                    do throws(ValidationError) { configuration.quietHours = try QuietHours.parse(value) } catch {
                        problems.error(line, "[Quiet] Hours=\(value): \(error.message)")
                    }
                case "At":
                    do throws(ValidationError) { configuration.summaryTimes = try DailyTimes.parse(value) } catch {
                        problems.error(line, "[Summary] At=\(value): \(error.message)")
                    }
                case "HiddenPreviews":
                    if let p = HiddenPreviews(rawValue: value.lowercased()) { configuration.hiddenPreviews = p } else {
                        problems.error(line, "[Privacy] HiddenPreviews='\(value)' is not one of never, when-locked, always")
                    }
                case "ShowTitle":
                    switch value.lowercased() {
                    case "true", "yes", "1": configuration.showTitle = true
                    case "false", "no", "0": configuration.showTitle = false
                    default: problems.error(line, "[Privacy] ShowTitle='\(value)' is not true or false")
                    }
                case "Placeholder":
                    configuration.placeholder = keyFile.string(group, key) ?? value
                case "Program":
                    configuration.prompt = promptProgram(value, line: line, path: environment["PATH"], into: &problems)
                case "Keep":
                    guard let n = Int(value), Configuration.eventsKeptRange.contains(n) else {
                        problems.error(line, "[Events] Keep='\(value)' is not a number of events from "
                            + "\(Configuration.eventsKeptRange.lowerBound) to \(Configuration.eventsKeptRange.upperBound)")
                        continue
                    }
                    configuration.eventsKept = n
                default:
                    break
                }
            }
        }
        configuration.priorities = PriorityRules.shipped.merging(PriorityRules(prefixes: priorities, budgets: budgets))
        if problems.errors.isEmpty && configuration.retryInitial > configuration.retryMaximum {
            problems.error(keyFile.line(ofKey: "RetryInitial", in: "Delivery"), """
                [Delivery] RetryInitial=\(TimeSpan.format(configuration.retryInitial)) is longer than \
                RetryMaximum=\(TimeSpan.format(configuration.retryMaximum)); make RetryMaximum at least RetryInitial
                """)
        }
        return result(problems.errors.isEmpty ? configuration : nil, problems)
    }

    /// `[Prompt] Program=`: automatic (empty), none, zenity/kdialog/yad, or a command line whose program exists.
    private static func promptProgram(
        _ value: String, line: Int?, path: String?, into problems: inout ProblemCollector
    ) -> PromptProgram {
        switch value.lowercased() {
        case "", "auto", "automatic": return .automatic
        case "none": return .none
        default:
            do throws(ValidationError) {
                let argv = try CommandLineWords.split(value)
                if let program = argv.first, let why = ProgramPath.problem(program, path: path) {
                    problems.error(line, "[Prompt] Program=\(value): \(why)")
                }
                return argv.isEmpty ? .automatic : .command(argv)
            } catch {
                problems.error(line, "[Prompt] Program=\(value): \(error.message)")
                return .automatic
            }
        }
    }

    /// A span that must be longer than zero, or nil after recording the error.
    private static func positiveSpan(
        _ value: String, group: String, key: String, line: Int?, into problems: inout ProblemCollector
    ) -> Span? {
        let span: Span
        do throws(ValidationError) {
            span = try TimeSpan.parse(value)
        } catch {
            problems.error(line, "[\(group)] \(key): \(error.message)")
            return nil
        }
        guard span > .zero else {
            problems.error(line, "[\(group)] \(key)=\(value) must be longer than zero, like '1s'")
            return nil
        }
        return span
    }

    /// `[Priorities] PREFIX=CLASS`: the class, or nil after recording the error.
    private static func priorityClass(
        _ value: String, key: String, line: Int?, into problems: inout ProblemCollector
    ) -> Int? {
        let range = PriorityRules.classRange
        guard let c = Int(value), range.contains(c) else {
            problems.error(line, "[Priorities] \(key)='\(value)' is not a priority class; give a whole number from "
                + "\(range.lowerBound) (highest) to \(range.upperBound) (lowest)")
            return nil
        }
        return c
    }

    /// `[Budgets] CLASS=K`: the class and its budget, or nil after recording the error.
    private static func budget(
        key: String, value: String, line: Int?, into problems: inout ProblemCollector
    ) -> (Int, Int)? {
        let range = PriorityRules.classRange
        guard let c = Int(key), range.contains(c) else {
            problems.error(line, "[Budgets] '\(key)' is not a priority class; write CLASS=SLOTS with a class from "
                + "\(range.lowerBound) to \(range.upperBound), like 50=8")
            return nil
        }
        guard let k = Int(value), Configuration.windowRange.contains(k) else {
            problems.error(line, "[Budgets] \(key)='\(value)' is not a number of window slots; give a whole number from "
                + "\(Configuration.windowRange.lowerBound) to \(Configuration.windowRange.upperBound)")
            return nil
        }
        return (c, k)
    }

    private static func result(_ configuration: Configuration?, _ problems: ProblemCollector) -> ConfigLoadResult {
        ConfigLoadResult(configuration: configuration, errors: problems.errors, warnings: problems.warnings)
    }
}
