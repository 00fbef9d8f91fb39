import AvisoDaemon
import AvisoTestSupport
import Foundation
import Testing

extension Integration {
    /// SleepWatcher against a real private dbus-daemon standing in for the system bus and a test logind
    /// (aviso-test-logind) that hands out inhibitor fds and emits PrepareForSleep on command.
    ///
    /// Most tests give the watcher a private connection to a bus of their own; one goes through `g_bus_get`, whose
    /// system connection GLib caches per process, on the shared `DBusSession.system`. Serialized to keep the load of
    /// bus daemons and GLib threads low on a busy machine.
    @Suite(.serialized)
    struct SleepWatcherTests {
        @Test func takesASleepDelayInhibitorAtStart() async throws {
            try await withLogind { logind, watcher, _ in
                let inhibit = try await logind.next("inhibit")
                #expect(inhibit.what == "sleep")
                #expect(inhibit.mode == "delay")
                #expect(inhibit.who == "aviso")
                #expect(inhibit.why == "Saving notification state before sleep")
                #expect(watcher.holdsInhibitor)
            }
        }

        @Test func sleepWaitsForReleaseAndResumeTakesANewInhibitor() async throws {
            try await withLogind { logind, watcher, events in
                let first = try await logind.next("inhibit")
                logind.sleep()
                #expect(try await events.next() == .preparingForSleep)
                // The watcher keeps logind waiting until the caller says state is on disk.
                #expect(watcher.holdsInhibitor)
                #expect(!logind.events.contains { $0.event == "released" })

                watcher.releaseInhibitor()
                #expect(try await logind.next("released").id == first.id)

                logind.resume()
                #expect(try await events.next() == .resumed)
                let second = try await logind.next("inhibit")
                #expect(second.id != first.id)
                #expect(second.mode == "delay")
                #expect(second.what == "sleep")

                // The next night works the same way.
                logind.sleep()
                #expect(try await events.next() == .preparingForSleep)
                watcher.releaseInhibitor()
                #expect(try await logind.next("released").id == second.id)
            }
        }

        @Test func theGraphicalSessionsLockedHintIsFollowed() async throws {
            try await withLogind(includeLock: true) { logind, _, events in
                // GetUser, then the user's Display, then that session's LockedHint: unlocked at first.
                #expect(try await events.next() == .lockChanged(false))
                _ = try await logind.next("get-user")
                logind.lock()
                #expect(try await events.next() == .lockChanged(true))
                logind.unlock()
                #expect(try await events.next() == .lockChanged(false))
            }
        }

        @Test func stopClosesTheInhibitor() async throws {
            try await withLogind { logind, watcher, _ in
                let inhibit = try await logind.next("inhibit")
                watcher.stop()
                #expect(try await logind.next("released").id == inhibit.id)
                #expect(!watcher.holdsInhibitor)
            }
        }

        @Test func noLogindOnTheBus() async throws {
            let bus = try DBusSession()
            defer { bus.stop() }
            let watcher = SleepWatcher(busAddress: bus.address, onEvent: { _ in })
            defer { watcher.stop() }
            await watcher.start()
            #expect(!watcher.holdsInhibitor)
            watcher.releaseInhibitor()
        }

        @Test func noBusAtAll() async throws {
            let missing = "unix:path=" + NSTemporaryDirectory() + "/aviso-no-bus-\(getpid())/bus"
            let watcher = SleepWatcher(busAddress: missing, onEvent: { _ in })
            defer { watcher.stop() }
            await watcher.start()
            #expect(!watcher.holdsInhibitor)
            watcher.releaseInhibitor()
        }

        @Test func logindAppearingLaterIsFollowed() async throws {
            let bus = try DBusSession()
            defer { bus.stop() }
            let events = SleepEventRecorder()
            let watcher = SleepWatcher(busAddress: bus.address, onEvent: events.record)
            defer { watcher.stop() }
            await watcher.start()
            #expect(!watcher.holdsInhibitor)

            let logind = TestLogind(busAddress: bus.address)
            try await logind.start()
            defer { logind.stop() }
            #expect(try await logind.next("inhibit").mode == "delay")
            logind.sleep()
            #expect(try await events.next() == .preparingForSleep)
        }

        @Test func logindRestartIsFollowed() async throws {
            let bus = try DBusSession()
            defer { bus.stop() }
            let first = TestLogind(busAddress: bus.address)
            try await first.start()
            let events = SleepEventRecorder()
            let watcher = SleepWatcher(busAddress: bus.address, onEvent: events.record)
            defer { watcher.stop() }
            await watcher.start()
            _ = try await first.next("inhibit")
            first.stop()

            let second = TestLogind(busAddress: bus.address)
            try await second.start()
            defer { second.stop() }
            #expect(second.unique != first.unique)
            #expect(try await second.next("inhibit").what == "sleep")
            second.sleep()
            #expect(try await events.next() == .preparingForSleep)
        }

        @Test func lookAlikeSignalsFromOthersAreIgnored() async throws {
            try await withLogind { logind, _, events in
                _ = try await logind.next("inhibit")
                try emitPrepareForSleep(false, on: logind.busAddress)
                // The impostor's signal reached the bus first; had it been taken, `.resumed` would come first.
                logind.sleep()
                #expect(try await events.next() == .preparingForSleep)
            }
        }

        @Test func defaultSystemBusHonoursTheEnvironment() async throws {
            let system = DBusSession.system
            let logind = TestLogind(busAddress: system.address)
            try await logind.start()
            defer { logind.stop() }
            let events = SleepEventRecorder()
            let watcher = SleepWatcher(onEvent: events.record)
            defer { watcher.stop() }
            await watcher.start()
            #expect(try await logind.next("inhibit").mode == "delay")
            #expect(watcher.holdsInhibitor)
            logind.sleep()
            #expect(try await events.next() == .preparingForSleep)
        }

        /// Runs `body` with a fresh bus, a test logind on it, and a started watcher connected to that bus.
        private func withLogind(
            includeLock: Bool = false, _ body: (TestLogind, SleepWatcher, SleepEventRecorder) async throws -> Void
        ) async throws {
            let bus = try DBusSession()
            defer { bus.stop() }
            let logind = TestLogind(busAddress: bus.address)
            try await logind.start()
            defer { logind.stop() }
            let events = SleepEventRecorder(includeLock: includeLock)
            let watcher = SleepWatcher(busAddress: bus.address, onEvent: events.record)
            defer { watcher.stop() }
            await watcher.start()
            try await body(logind, watcher, events)
        }

        /// Emits PrepareForSleep(start) on logind's path and interface from another connection, as any bus client can.
        private func emitPrepareForSleep(_ start: Bool, on address: String) throws {
            let gdbus = Process()
            gdbus.executableURL = URL(fileURLWithPath: "/usr/bin/gdbus")
            gdbus.arguments = [
                "emit", "--address", address, "--object-path", "/org/freedesktop/login1",
                "--signal", "org.freedesktop.login1.Manager.PrepareForSleep", start ? "true" : "false",
            ]
            try gdbus.run()
            gdbus.waitUntilExit()
            #expect(gdbus.terminationStatus == 0)
        }
    }
}

/// Collects SleepWatcher events and hands them out in order, waiting at most a timeout (a failure bound).
final class SleepEventRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var buffered: [SleepEvent] = []
    private var waiter: (id: Int, continuation: CheckedContinuation<SleepEvent?, Never>)?
    private var nextID = 0
    /// Waiters whose timeout fired before they were installed.
    private var expired: Set<Int> = []

    /// Whether lock changes are kept too; otherwise only sleep and resume are.
    private let includeLock: Bool

    init(includeLock: Bool = false) {
        self.includeLock = includeLock
    }

    var record: @Sendable (SleepEvent) -> Void {
        { [self] event in
            if case .lockChanged = event, !includeLock { return }
            deliver(event)
        }
    }

    func next(timeout: Duration = .seconds(10)) async throws -> SleepEvent {
        let id: Int = lock.withLock { nextID += 1; return nextID }
        let timer = Task { [self] in
            try await Task.sleep(for: timeout)
            let waiting: CheckedContinuation<SleepEvent?, Never>? = lock.withLock {
                guard let w = waiter, w.id == id else {
                    expired.insert(id)
                    return nil
                }
                waiter = nil
                return w.continuation
            }
            waiting?.resume(returning: nil)
        }
        defer { timer.cancel() }
        let event: SleepEvent? = await withCheckedContinuation { continuation in
            lock.lock()
            if !buffered.isEmpty {
                let first = buffered.removeFirst()
                lock.unlock()
                continuation.resume(returning: first)
            } else if expired.remove(id) != nil {
                lock.unlock()
                continuation.resume(returning: nil)
            } else {
                waiter = (id, continuation)
                lock.unlock()
            }
        }
        guard let event else { throw BusFixtureError("no SleepWatcher event within \(timeout)") }
        return event
    }

    private func deliver(_ event: SleepEvent) {
        let waiting: CheckedContinuation<SleepEvent?, Never>? = lock.withLock {
            if let w = waiter {
                waiter = nil
                return w.continuation
            }
            buffered.append(event)
            return nil
        }
        waiting?.resume(returning: event)
    }
}
