import CKernel
import Glibc
import Testing

@testable import AvisoDaemon

extension Integration {
    /// Signals arrive as values on an async stream.
    ///
    /// In the daemon, `Signals` is made on the main thread before any other starts, so every thread blocks the
    /// signals and one sent to the process stays pending until the signalfd reads it. A test process already has an
    /// unblocked main thread (the test runner's) that would take such a signal, so the test sends to the loop's
    /// thread with tgkill: the signalfd reads those the same way. The signals are SIGWINCH and SIGURG, whose default
    /// action is "ignore": should an unblocked thread take one, the test times out instead of killing the test run.
    @Suite struct SignalsTests {
        @Test func signalsArriveOnTheStream() async throws {
            let signals = Signals([SIGWINCH, SIGURG])
            // Made after the signals are blocked on this thread, so its thread blocks them too.
            let loop = try EventLoop(name: "test-signals")
            defer { loop.stop() }
            try signals.watch(on: loop)
            let (received, forward) = AsyncStream.makeStream(of: Int32.self)
            let consumer = Task {
                for await signo in signals.events { forward.yield(signo) }
            }
            // The failure bound: ending the stream makes a missing signal fail the test instead of hanging it.
            let bound = Task {
                try await Task.sleep(for: .seconds(10))
                forward.finish()
            }
            defer {
                bound.cancel()
                consumer.cancel()
            }
            var arrivals = received.makeAsyncIterator()
            let send = { (signo: Int32) in aviso_tgkill(getpid(), loop.threadID, signo) }

            #expect(send(SIGWINCH) == 0)
            #expect(send(SIGURG) == 0)
            // Pending standard signals are read lowest number first, not in the order sent; compare as a set.
            let first = await arrivals.next()
            let second = await arrivals.next()
            #expect(Set([first, second]) == [SIGWINCH, SIGURG])

            // A signal that was read can arrive again: the stream serves the daemon's whole life (every SIGHUP).
            #expect(send(SIGWINCH) == 0)
            #expect(await arrivals.next() == SIGWINCH)
        }
    }
}
