import Foundation
import Glibc
import Synchronization
import Testing

@testable import AvisoDaemon

/// The executor that gives the scheduler actor a thread of its own: its calls run there, one at a time, and an actor
/// blocked on it (a commit waiting for the disk) holds up no other task.
@Suite(.timeLimit(.minutes(1)))
struct ActorThreadTests {
    static func currentThreadName() -> String {
        let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
        return comm.trimmingCharacters(in: .newlines)
    }

    actor Probe {
        private let thread: ActorThread
        nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }
        private var inside = 0
        private(set) var overlaps = 0
        private(set) var order: [Int] = []

        init(name: String) { thread = ActorThread(name: name) }

        /// Records `i` and says which thread ran it; yields the processor inside, so overlapping calls would be seen.
        func record(_ i: Int) -> String {
            inside += 1
            if inside > 1 { overlaps += 1 }
            sched_yield()
            order.append(i)
            inside -= 1
            return ActorThreadTests.currentThreadName()
        }

        func block(_ entered: AsyncStream<Void>.Continuation, until release: DispatchSemaphore) {
            entered.yield()
            release.wait()
        }
    }

    @Test func anActorsCallsRunOnItsThreadOneAtATimeInTheOrderTheyCame() async {
        let probe = Probe(name: "test-actor")
        var names: Set<String> = []
        for i in 0..<200 { names.insert(await probe.record(i)) }
        #expect(names == ["test-actor"])
        #expect(await probe.order == Array(0..<200))

        // Calls from many tasks at once are still one at a time.
        await withTaskGroup(of: String.self) { group in
            for i in 200..<1_200 { group.addTask { await probe.record(i) } }
            for await name in group { names.insert(name) }
        }
        #expect(names == ["test-actor"])
        #expect(await probe.overlaps == 0)
        #expect(await Set(probe.order) == Set(0..<1_200))
    }

    /// More actors blocked at once than Swift's shared pool has threads: on that pool they would hold every thread,
    /// and the task after them would not run until they were released (here by a plain thread after 10 s, so that
    /// this fails rather than hangs, the test's own time limit needing the pool too).
    @Test func blockedActorsHoldUpNoOtherTask() async {
        let count = ProcessInfo.processInfo.activeProcessorCount + 4
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let releasedLate = Mutex(false)
        let probes = (0..<count).map { Probe(name: "test-blocked-\($0)") }
        KernelThread.spawn(name: "test-release") {
            guard finished.wait(timeout: .now() + 10) == .timedOut else { return }
            releasedLate.withLock { $0 = true }
            for _ in 0..<count { release.signal() }
        }
        let (entered, enter) = AsyncStream.makeStream(of: Void.self)
        for probe in probes { Task.detached { await probe.block(enter, until: release) } }
        var inside = 0
        for await _ in entered {
            inside += 1
            if inside == count { break }
        }
        let answer = await Task.detached { 6 * 7 }.value
        #expect(answer == 42)
        #expect(!releasedLate.withLock { $0 }, "a task waited until the blocked actors were released")
        finished.signal()
        if !releasedLate.withLock({ $0 }) { for _ in probes { release.signal() } }
        // Each actor answers again once released.
        for probe in probes { #expect(await probe.record(0).hasPrefix("test-blocked")) }
    }
}
