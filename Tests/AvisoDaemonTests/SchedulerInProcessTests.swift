import AvisoCore
import AvisoDaemon
import AvisoProtocol
import AvisoTestSupport
import Foundation
import Synchronization
import Testing

extension Integration {
    /// The scheduler actor in this process, with fakes at its seams: a timer backend that records what is armed, a
    /// delivery that records popups and answers at once, and a clock the test sets. No daemon, no bus, no kernel timer:
    /// what it does with the window, the fire path and content hooks' early wake is seen directly.
    struct SchedulerInProcessTests {
        final class FakeTimers: TimerBackend, @unchecked Sendable {
            let armed = Mutex<[String: TimerSpec]>([:])
            let events: AsyncStream<TimerEvent>
            private let sink: AsyncStream<TimerEvent>.Continuation
            init() { (events, sink) = AsyncStream.makeStream(of: TimerEvent.self) }
            func arm(_ spec: TimerSpec) throws(SystemError) { armed.withLock { $0[spec.id] = spec } }
            func disarm(_ id: String) { _ = armed.withLock { $0.removeValue(forKey: id) } }
            var armedCount: Int { armed.withLock { $0.count } }
            var ids: Set<String> { armed.withLock { Set($0.keys) } }
        }

        final class FakeDelivery: NotificationDelivery, @unchecked Sendable {
            let shown = Mutex<[Popup]>([])
            func show(_ popup: Popup, serverOwnerHint: String?, completion: @escaping @Sendable (DeliveryOutcome) -> Void) {
                let id = shown.withLock { list in
                    list.append(popup)
                    return UInt32(list.count)
                }
                completion(.shown(serverID: id, owner: ":1.1"))
            }
            func close(serverID: UInt32) {}
            func serverInfo() async -> ServerInfo? { nil }
            var titles: [String] { shown.withLock { $0.map(\.content.title) } }
        }

        /// The wall and boot time the scheduler reads, moved by the test.
        final class TestClock: Sendable {
            let now = Mutex(Now(wall: WallTime(seconds: 1_800_000_000), boot: BootTime(nanoseconds: 1_000_000_000_000), bootID: "boot"))
        }

        /// A scheduler over a fresh store, its fakes and its clock.
        struct Rig {
            let scheduler: Scheduler
            let timers: FakeTimers
            let delivery: FakeDelivery
            let clock = TestClock()
            let directory: String

            init(window: Int = 3, config: String = "") throws {
                directory = FileManager.default.temporaryDirectory.appendingPathComponent("aviso-inproc-\(UUID().uuidString)").path
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
                try (config + "\n[Scheduler]\nWindow=\(window)\n").write(toFile: directory + "/aviso.conf", atomically: true, encoding: .utf8)
                let loaded = ConfigLoader.load(path: directory + "/aviso.conf")
                let clock = self.clock
                timers = FakeTimers()
                delivery = FakeDelivery()
                scheduler = Scheduler(
                    store: try Store(path: directory + "/aviso.db"), timers: timers, delivery: delivery, systemd: SystemdNotifier(environment: [:]),
                    configuration: loaded, version: "test", now: { clock.now.withLock { $0 } }, stateDirectory: directory,
                    loadConfiguration: { loaded }, zoneLookup: testZones)
            }

            func advance(_ span: Span) {
                clock.now.withLock { now in
                    now.wall = now.wall + span
                    now.boot = now.boot + span
                }
            }

            func add(_ id: String, in span: Span, category: String? = nil) async throws {
                let at = clock.now.withLock { $0.wall } + span
                let reply = await scheduler.handle(.add(Request(id: id, content: Content(title: id, categoryID: category), trigger: .date(at))))
                guard case .ok(.added) = reply else { throw BusFixtureError("add \(id): \(reply)") }
            }

            func stats() async throws -> StatsInfo {
                guard case .ok(.stats(let s)) = await scheduler.handle(.stats) else { throw BusFixtureError("no stats") }
                return s
            }

            /// Starts the scheduler with a notification server present.
            func start() async throws {
                try await scheduler.start()
                await scheduler.handle(NotifierEvent.serverAppeared(owner: ":1.1"))
            }

            /// The kernel timer of `id` fires (and, being one-shot, is no longer armed).
            func fire(_ id: String) async {
                timers.disarm(id)
                await scheduler.handle(TimerEvent.fired(id: id))
            }

            func remove() { try? FileManager.default.removeItem(atPath: directory) }
        }

        @Test func theWindowHoldsTheSoonestAndAnEarlierArrivalEvictsTheLatest() async throws {
            let rig = try Rig(window: 3)
            defer { rig.remove() }
            try await rig.start()
            for (id, minutes) in [("d", 40), ("a", 10), ("c", 30), ("b", 20)] { try await rig.add(id, in: .seconds(Int64(minutes) * 60)) }
            #expect(rig.timers.ids == ["a", "b", "c"])
            try await rig.add("first", in: .seconds(60))
            #expect(rig.timers.ids == ["first", "a", "b"])
            #expect(try await rig.stats().evictions.values.reduce(0, +) == 2, "d lost its slot to b, then c to first")
        }

        @Test func aFiredTimerDeliversOnceAndTheNextRequestTakesTheSlot() async throws {
            let rig = try Rig(window: 2)
            defer { rig.remove() }
            try await rig.start()
            for (id, minutes) in [("a", 1), ("b", 2), ("c", 3)] { try await rig.add(id, in: .seconds(Int64(minutes) * 60)) }
            rig.advance(.seconds(60))
            await rig.fire("a")
            #expect(rig.delivery.titles == ["a"])
            #expect(rig.timers.ids == ["b", "c"])
            // A stale wake for a request no longer there, or one not due yet, changes nothing.
            await rig.fire("a")
            await rig.fire("c")
            #expect(rig.delivery.titles == ["a"])
            #expect(try await rig.stats().fired == 1)
        }

        @Test func wakesDueTogetherAreReleasedTogetherWhateverTimerCameFirst() async throws {
            let rig = try Rig(window: 8)
            defer { rig.remove() }
            try await rig.start()
            for id in ["x", "y", "z"] { try await rig.add(id, in: .seconds(60)) }
            rig.advance(.seconds(61))
            await rig.fire("z")
            #expect(rig.delivery.titles == ["x", "y", "z"], "released together, in release order (due, then id)")
            for id in ["x", "y"] { await rig.fire(id) }
            #expect(rig.delivery.titles.count == 3, "each once")
        }

        @Test func aRequestWithAContentHookIsArmedItsTimeoutEarlyAndThenAtItsInstant() async throws {
            let rig = try Rig(window: 4, config: "[Category hooked]\nContentHook=/bin/cat\nHookTimeout=7s\n")
            defer { rig.remove() }
            try await rig.start()
            try await rig.add("plain", in: .seconds(60))
            try await rig.add("hooked", in: .seconds(60), category: "hooked")
            let due = rig.clock.now.withLock { $0.wall } + .seconds(60)
            let armed = rig.timers.armed.withLock { $0 }
            #expect(armed["plain"]?.deadline == due.nanoseconds)
            #expect(armed["hooked"]?.deadline == (due + .seconds(-7)).nanoseconds, "woken 7 s early to start its hook")
            // The early wake starts the hook and re-arms the timer at the instant itself.
            rig.advance(.seconds(53))
            await rig.fire("hooked")
            #expect(rig.timers.armed.withLock { $0["hooked"]?.deadline } == due.nanoseconds)
            #expect(rig.delivery.titles.isEmpty, "nothing is shown before it is due")
        }
    }
}
