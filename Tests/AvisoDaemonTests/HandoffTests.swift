import Testing

@testable import AvisoDaemon

/// Batches from one thread to another: all of them, in order, and then why the producer stopped early.
@Suite(.timeLimit(.minutes(1)))
struct HandoffTests {
    struct Stopped: Error {}

    @Test func everyBatchArrivesInOrderThenTheFailure() {
        let handoff = Handoff<Int>(capacity: 2)
        KernelThread.spawn(name: "test-producer") {
            for start in stride(from: 0, to: 10_000, by: 100) { handoff.put(Array(start..<(start + 100))) }
            handoff.put([])
            handoff.finish(failure: Stopped())
        }
        var all: [Int] = []
        while let batch = handoff.take() {
            #expect(batch.count == 100, "an empty batch is not handed over")
            all += batch
        }
        #expect(all == Array(0..<10_000))
        #expect(handoff.failure is Stopped)
    }

    @Test func aProducerThatFinishesAtOnceEndsTheConsumer() {
        let handoff = Handoff<Int>(capacity: 1)
        KernelThread.spawn(name: "test-producer") { handoff.finish() }
        #expect(handoff.take() == nil)
        #expect(handoff.failure == nil)
    }
}
