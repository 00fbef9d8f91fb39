import AvisoCore
import AvisoDaemon
import AvisoProtocol
import Foundation
import Testing

/// Writes `text` (or raw bytes) to a fresh file and loads it.
private func load(_ text: String) throws -> (ConfigLoadResult, String) {
    try load(bytes: Array(text.utf8))
}

private func load(bytes: [UInt8]) throws -> (ConfigLoadResult, String) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("aviso-config-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("aviso.conf").path
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return (ConfigLoader.load(path: path), path)
}

@Suite struct ConfigurationTests {
    @Test func aMissingFileGivesTheDefaultsWithoutProblems() {
        let result = ConfigLoader.load(path: "/nonexistent/aviso-\(UUID().uuidString)/aviso.conf")
        #expect(result.configuration == Configuration.defaults)
        #expect(result.errors.isEmpty)
        #expect(result.warnings.isEmpty)
    }

    @Test func theDefaultsAreThoseDocumented() {
        #expect(Configuration.defaults.window == 64)
        #expect(Configuration.defaults.retryInitial == .seconds(1))
        #expect(Configuration.defaults.retryMaximum == .seconds(60))
        #expect(Configuration.defaults.maxLate == nil)
        #expect(Configuration.defaults.summaryThreshold == 3)
        #expect(Configuration.defaults.priorities == PriorityRules.shipped)
    }

    @Test func anEmptyFileOrOnlyCommentsGivesTheDefaults() throws {
        for text in ["", "# nothing\n\n  # here\n", "[Scheduler]\n"] {
            let (result, _) = try load(text)
            #expect(result.configuration == Configuration.defaults, "for \(text.debugDescription)")
            #expect(result.errors.isEmpty)
        }
    }

    @Test func everyKeyIsRead() throws {
        let (result, _) = try load("""
            # mine
            [Scheduler]
            Window=8

            [Delivery]
            RetryInitial=500ms
            RetryMaximum = 2min 30s
            """)
        #expect(result.errors.isEmpty)
        #expect(result.warnings.isEmpty)
        #expect(result.configuration == Configuration(window: 8, retryInitial: .milliseconds(500), retryMaximum: .seconds(150)))
    }

    @Test func theShippedExampleIsValidAndSpellsOutTheDefaults() throws {
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("config/aviso.conf").path
        let result = ConfigLoader.load(path: example)
        #expect(result.errors.isEmpty, "\(result.errors)")
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        #expect(result.configuration == Configuration.defaults)
        let text = try String(contentsOfFile: example, encoding: .utf8)
        for key in ["Window=64", "RetryInitial=1s", "RetryMaximum=1min", "SummaryThreshold=3", "user.=0", "#MaxLate=2h"] {
            #expect(text.contains("\n\(key)\n"), "the example sets \(key) explicitly")
        }
    }

    @Test(arguments: [
        ("0", "out of range"), ("65", "out of range"), ("abc", "not a whole number"), ("", "not a whole number"),
        ("-3", "out of range"), ("6.5", "not a whole number"),
    ])
    func aBadWindowIsAnErrorOnItsLine(value: String, reason: String) throws {
        let (result, path) = try load("# first\n[Delivery]\nRetryInitial=2s\n\n[Scheduler]\nWindow=\(value)\n")
        #expect(result.configuration == nil, "the caller keeps its previous configuration")
        #expect(result.errors.count == 1)
        let problem = try #require(result.errors.first)
        #expect(problem.file == path)
        #expect(problem.line == 6)
        #expect(problem.message.contains(reason), "\(problem.message)")
        #expect(problem.message.contains("Window"))
    }

    @Test(arguments: ["7mn", "soon", "", "0"])
    func aBadSpanIsAnErrorOnItsLine(value: String) throws {
        let (result, _) = try load("[Delivery]\nRetryInitial=1s\nRetryMaximum=\(value)\n")
        #expect(result.configuration == nil)
        let problem = try #require(result.errors.first)
        #expect(problem.line == 3)
        #expect(problem.message.contains("RetryMaximum"), "\(problem.message)")
    }

    @Test func anInitialRetryLongerThanTheMaximumIsAnError() throws {
        let (result, _) = try load("[Delivery]\nRetryMaximum=10s\nRetryInitial=1min\n")
        #expect(result.configuration == nil)
        #expect(result.errors.first?.line == 3)
        #expect(result.errors.first?.message.contains("RetryMaximum") == true)
    }

    @Test(arguments: [
        ("[Scheduler]\nWindow=4\nthis line is wrong\n", 3),
        ("Window=4\n[Scheduler]\n", 1),
        ("# ok\n[Scheduler\nWindow=4\n", 2),
    ])
    func aSyntaxErrorNamesItsLine(text: String, line: Int) throws {
        let (result, path) = try load(text)
        #expect(result.configuration == nil)
        let problem = try #require(result.errors.first)
        #expect(problem.file == path)
        #expect(problem.line == line, "\(problem.message)")
        #expect(problem.message.contains("syntax"))
    }

    @Test func unknownGroupsAndKeysAreWarningsWithTheirLines() throws {
        let (result, path) = try load("[Scheduler]\nWindow=10\nWindw=3\n\n[Colours]\nRed=1\n")
        #expect(result.errors.isEmpty)
        #expect(result.configuration?.window == 10, "warnings do not discard the file")
        #expect(result.warnings.map(\.line) == [3, 5])
        #expect(result.warnings.allSatisfy { $0.file == path })
        #expect(result.warnings.first?.message.contains("Windw") == true)
        #expect(result.warnings.last?.message.contains("Colours") == true)
    }

    @Test func binaryGarbageIsAnErrorNotACrash() throws {
        let garbage = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
        let (binary, _) = try load(bytes: garbage)
        #expect(binary.configuration == nil)
        #expect(!binary.errors.isEmpty)

        let (latin1, _) = try load(bytes: Array("[Scheduler]\n# caf".utf8) + [0xE9] + Array("\nWindow=3\n".utf8))
        #expect(latin1.configuration == nil)
        #expect(latin1.errors.first?.line == 2)
        #expect(latin1.errors.first?.message.contains("UTF-8") == true)
    }

    @Test func aDirectoryInsteadOfAFileIsAnError() {
        let result = ConfigLoader.load(path: FileManager.default.temporaryDirectory.path)
        #expect(result.configuration == nil)
        #expect(result.errors.count == 1)
    }

    // MARK: scheduler limits, priorities and budgets

    @Test func maxLateAndSummaryThresholdAreRead() throws {
        let (result, _) = try load("[Scheduler]\nMaxLate=1h 30min\nSummaryThreshold=5\n")
        #expect(result.errors.isEmpty, "\(result.errors)")
        #expect(result.configuration?.maxLate == .seconds(5_400))
        #expect(result.configuration?.summaryThreshold == 5)
        let (infinite, _) = try load("[Scheduler]\nMaxLate=infinity\n")
        #expect(infinite.errors.isEmpty)
        #expect(infinite.configuration != nil)
        #expect(infinite.configuration?.maxLate == nil)
    }

    @Test(arguments: [
        ("MaxLate=0", "MaxLate"), ("MaxLate=soon", "MaxLate"), ("SummaryThreshold=0", "out of range"),
        ("SummaryThreshold=many", "not a whole number"),
    ])
    func badSchedulerLimitsAreErrorsOnTheirLine(line: String, reason: String) throws {
        let (result, path) = try load("[Scheduler]\nWindow=5\n\(line)\n")
        #expect(result.configuration == nil)
        let problem = try #require(result.errors.first)
        #expect(problem.file == path)
        #expect(problem.line == 3)
        #expect(problem.message.contains(reason), "\(problem.message)")
    }

    @Test func prioritiesAreLaidOverTheShippedOnesAndBudgetsRead() throws {
        let (result, _) = try load("""
            [Priorities]
            work.=30
            habit.=40
            work.urgent.=5
            [Budgets]
            40=8
            99=20
            """)
        #expect(result.errors.isEmpty, "\(result.errors)")
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        let rules = try #require(result.configuration?.priorities)
        #expect(rules.priorityClass(for: "work.review") == 30)
        #expect(rules.priorityClass(for: "work.urgent.deploy") == 5)
        #expect(rules.priorityClass(for: "habit.water") == 40, "a configured prefix replaces the shipped class")
        #expect(rules.priorityClass(for: "user.medication") == PriorityRules.shipped.priorityClass(for: "user.x"))
        #expect(rules.priorityClass(for: "stranger") == 99)
        #expect(rules.budgets == [40: 8, 99: 20])
    }

    @Test(arguments: [
        ("[Priorities]\nwork.=100\n", 2, "priority class"),
        ("[Priorities]\nwork.=high\n", 2, "priority class"),
        ("[Priorities]\nwork.=-1\n", 2, "priority class"),
        ("[Budgets]\n# x\nhabit=4\n", 3, "not a priority class"),
        ("[Budgets]\n150=4\n", 2, "not a priority class"),
        ("[Budgets]\n50=0\n", 2, "window slots"),
        ("[Budgets]\n50=65\n", 2, "window slots"),
    ])
    func badPrioritiesAndBudgetsAreErrorsOnTheirLine(text: String, line: Int, reason: String) throws {
        let (result, _) = try load(text)
        #expect(result.configuration == nil)
        let problem = try #require(result.errors.first)
        #expect(problem.line == line, "\(problem.message)")
        #expect(problem.message.contains(reason), "\(problem.message)")
    }

    @Test func aFifoIsAnErrorNotAHang() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("aviso-fifo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("aviso.conf").path
        #expect(mkfifo(path, 0o600) == 0)
        let result = ConfigLoader.load(path: path)
        #expect(result.configuration == nil)
        #expect(result.errors.first?.message.contains("not a regular file") == true)
    }

    /// `/proc/self/mem` is a regular file of size 0 whose reading fails with EIO; `/proc/self/environ` reads as text
    /// (the daemon's environment, which a syntax error would quote into the journal).
    @Test(arguments: ["/proc/self/mem", "/proc/self/environ", "/sys/kernel/mm/transparent_hugepage/enabled"])
    func aFileOfTheKernelIsRefusedByName(_ target: String) throws {
        guard access(target, F_OK) == 0 else { return print("skipped: \(target) is not on this machine") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("aviso-proc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("aviso.conf").path
        #expect(symlink(target, path) == 0)
        let result = ConfigLoader.load(path: path)
        #expect(result.configuration == nil)
        #expect(result.errors.map(\.message)
            == ["cannot read the configuration file: it is a file of the kernel (/proc or /sys), not one of text"])
    }
}

/// `ContentHook=`, `HookTimeout=` and `HookMemory=` of a `[Category NAME]`.
@Suite struct ContentHookConfigurationTests {
    func category(_ keys: String) throws -> (NotificationCategory?, ConfigLoadResult) {
        let (result, _) = try load("[Category build]\n" + keys + "\n")
        return (result.configuration.flatMap { CategoryBook(configuration: $0, reminders: nil).category("build") }, result)
    }

    @Test func aHookTakesItsArgumentsAndDefaults() throws {
        let (c, result) = try category("ContentHook=/bin/cat --show-all \"two words\"")
        #expect(result.errors.isEmpty && result.warnings.isEmpty)
        #expect(c?.hook == ContentHook(argv: ["/bin/cat", "--show-all", "two words"], timeout: .seconds(5), memory: 24 << 20))
    }

    @Test func itsBudgetIsRead() throws {
        let (c, _) = try category("ContentHook=/bin/cat\nHookTimeout=1.5s\nHookMemory=8192K")
        #expect(c?.hook?.timeout == .milliseconds(1500) && c?.hook?.memory == 8 << 20)
    }

    @Test func mistakesAreReportedAtTheirLine() throws {
        let cases: [(String, line: Int, String)] = [
            ("ContentHook=/bin/cat\nHookTimeout=45s", 3, "HookTimeout=45s is not within 0 and 30s"),
            ("ContentHook=/bin/cat\nHookTimeout=soon", 3, "time span 'soon'"),
            ("ContentHook=/bin/cat\nHookMemory=1K", 3, "HookMemory=1K is less than 4M"),
            ("ContentHook=/bin/cat\nHookMemory=lots", 3, "size 'lots' is not a number of bytes"),
            ("ContentHook=\"/bin/cat", 2, "ContentHook='\"/bin/cat'"),
        ]
        for (keys, line, message) in cases {
            let (_, result) = try category(keys)
            #expect(result.errors.contains { $0.line == line && $0.message.contains(message) }, "\(keys): \(result.errors)")
        }
    }

    @Test func aProgramThatCannotRunNowIsAWarningAndABudgetWithoutAHookIsIgnored() throws {
        let (c, result) = try category("ContentHook=/nonexistent/hook")
        #expect(result.errors.isEmpty)
        #expect(result.warnings.contains { $0.line == 2 && $0.message.contains("does not exist or is not executable") })
        #expect(c?.hook?.argv == ["/nonexistent/hook"])
        let (d, lone) = try category("HookTimeout=3s")
        #expect(d?.hook == nil && lone.warnings.contains { $0.message.contains("HookTimeout= without ContentHook= is ignored") })
    }
}
