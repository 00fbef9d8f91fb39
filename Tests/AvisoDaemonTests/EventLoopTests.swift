import AvisoCore
import AvisoTestSupport
import Foundation
import Glibc
import Synchronization
import Testing

@testable import AvisoDaemon

extension Integration {
    /// The event loop every kernel source of the daemon shares: handlers on its thread, deadlines in order, jobs from
    /// any thread, and nothing called for a source once it is unwatched.
    @Suite(.timeLimit(.minutes(1)))
    struct EventLoopTests {
        /// What handlers saw, in order, and on which thread.
        final class Record: Sendable {
            let entries = Mutex<[String]>([])
            let offLoop = Mutex(0)

            func add(_ entry: String, on loop: EventLoop) {
                if !loop.isCurrent { offLoop.withLock { $0 += 1 } }
                entries.withLock { $0.append(entry) }
            }

            var all: [String] { entries.withLock { $0 } }
        }

        @Test func aReadyDescriptorCallsItsHandlerOnTheLoopUntilItIsUnwatched() throws {
            let loop = try EventLoop(name: "test-loop")
            defer { loop.stop() }
            let record = Record()
            let fd = try EventFD.create()
            defer { close(fd) }
            let token = try loop.watch(fd) { _ in
                EventFD.drain(fd)
                record.add("ready", on: loop)
            }
            EventFD.signal(fd)
            // A job given after the descriptor became ready runs after its handler: the handler ran by then.
            loop.executeAndWait {}
            #expect(record.all == ["ready"])

            loop.executeAndWait { loop.unwatch(token) }
            EventFD.signal(fd)
            loop.executeAndWait {}
            #expect(record.all == ["ready"], "an unwatched descriptor calls nothing")
            #expect(record.offLoop.withLock { $0 } == 0)
        }

        @Test func deadlinesRunOnceEachInTheOrderOfTheirMomentsAndAClearedOneNever() async throws {
            let loop = try EventLoop(name: "test-loop")
            defer { loop.stop() }
            let record = Record()
            let (done, finish) = AsyncStream.makeStream(of: Void.self)
            let now = EventLoop.monotonic()
            let late = loop.deadline {
                record.add("late", on: loop)
                finish.yield()
            }
            let early = loop.deadline { record.add("early", on: loop) }
            let cleared = loop.deadline { record.add("cleared", on: loop) }
            loop.setDeadline(late, at: now + 60_000_000)
            loop.setDeadline(cleared, at: now + 30_000_000)
            loop.setDeadline(early, at: now + 20_000_000)
            loop.setDeadline(cleared, at: nil)
            var iterator = done.makeAsyncIterator()
            await iterator.next()
            #expect(EventLoop.monotonic() >= now + 60_000_000, "a deadline never runs early")
            loop.executeAndWait {}
            #expect(record.all == ["early", "late"])
            #expect(record.offLoop.withLock { $0 } == 0)
        }

        @Test func jobsFromManyThreadsAllRunOnTheLoopAndStopRunsThoseGivenBeforeIt() throws {
            let loop = try EventLoop(name: "test-loop")
            let record = Record()
            DispatchQueue.concurrentPerform(iterations: 8) { i in
                for j in 0..<50 { loop.execute { record.add("\(i).\(j)", on: loop) } }
            }
            loop.stop()
            #expect(record.all.count == 400)
            #expect(record.offLoop.withLock { $0 } == 0)
            // After the loop has ended a job runs on the caller, not never.
            let ranAfterStop = Mutex(false)
            loop.executeAndWait { ranAfterStop.withLock { $0 = true } }
            #expect(ranAfterStop.withLock { $0 })
        }

        @Test func theDaemonWaitsOnOneLoopThread() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            let pid = try #require(f.daemon.pid)
            let names = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").compactMap { tid in
                try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/comm", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            }
            #expect(names.filter { $0 == "aviso-loop" }.count == 1, "threads: \(names.sorted())")
            #expect(names.filter { $0 == "aviso-scheduler" }.count == 1, "the scheduler's own thread: \(names.sorted())")
            for old in ["aviso-timers", "aviso-signals", "aviso-files", "aviso-control"] {
                #expect(!names.contains(old), "threads: \(names.sorted())")
            }
        }
    }
}

extension Integration {
    /// The watchdog's tick asks the scheduler for a ping, and asks no more while one waits for it.
    @Suite(.timeLimit(.minutes(1)))
    struct WatchdogTickTests {
        @Test func aPingThatWaitsForAStuckSchedulerIsNotDoubledAndPingsResumeAfter() async throws {
            let loop = try EventLoop(name: "test-loop")
            defer { loop.stop() }
            let (asked, ask) = AsyncStream.makeStream(of: Int.self)
            let (releases, release) = AsyncStream.makeStream(of: Void.self)
            let count = Mutex(0)
            let tick = WatchdogTick(loop: loop, every: .milliseconds(10)) {
                let n = count.withLock { c in
                    c += 1
                    return c
                }
                ask.yield(n)
                // The first ping is stuck until the test lets it go, as an actor would be.
                if n == 1 {
                    for await _ in releases { break }
                }
            }
            defer { tick.stop() }
            var pings = asked.makeAsyncIterator()
            #expect(await pings.next() == 1)
            // Six intervals pass on the loop while the first ping is stuck: no second one is asked for.
            let (passed, pass) = AsyncStream.makeStream(of: Void.self)
            let later = loop.deadline { pass.yield() }
            loop.setDeadline(later, at: EventLoop.monotonic() + 60_000_000)
            var waited = passed.makeAsyncIterator()
            await waited.next()
            #expect(count.withLock { $0 } == 1)
            release.yield()
            #expect(await pings.next() == 2)
            #expect(await pings.next() == 3)
        }
    }
}
