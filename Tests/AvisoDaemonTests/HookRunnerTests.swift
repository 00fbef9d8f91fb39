import AvisoCore
import Foundation
import Testing

@testable import AvisoDaemon

/// The hook runner on its own: what it says when a hook cannot start names the call that failed, so a state
/// directory that has gone is not reported as a missing program.
@Suite(.timeLimit(.minutes(1)))
struct HookRunnerTests {
    func failure(program: String, directory: String) async -> HookResult {
        let runner = HookRunner()
        let job = HookJob(id: "x", hook: ContentHook(argv: [program]), argv: [program], program: program,
                          limitAddressSpace: false, environment: [:], directory: directory, input: Array("{}".utf8),
                          original: Content(title: "original"))
        let (results, sink) = AsyncStream.makeStream(of: HookResult.self)
        _ = runner.start(job) { sink.yield($0) }
        for await result in results { return result }
        Issue.record("the runner finished no run")
        return HookResult(id: "", token: 0, content: Content(title: ""), original: Content(title: ""), outcome: .failed,
                          duration: .zero, patches: 0, detail: "", errors: "", rejected: [])
    }

    @Test func aWorkingDirectoryThatIsGoneIsNamedAsSuch() async {
        let gone = FileManager.default.temporaryDirectory.path + "/aviso-gone-\(UUID().uuidString)"
        let result = await failure(program: "/bin/cat", directory: gone)
        #expect(result.outcome == .failed)
        #expect(result.detail == "cannot start /bin/cat: chdir to \(gone): No such file or directory", "\(result.detail)")
        #expect(result.content.title == "original")
    }

    @Test func aProgramThatIsMissingIsNamedAsSuch() async {
        let result = await failure(program: "/nonexistent/hook", directory: "/")
        #expect(result.detail == "cannot start /nonexistent/hook: execve: No such file or directory", "\(result.detail)")
    }
}
