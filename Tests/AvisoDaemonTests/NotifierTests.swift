import AvisoCore
import AvisoDaemon
import AvisoTestSupport
import Foundation
import Testing

extension Integration {
    /// Notifier against a real private dbus-daemon and a real notification server (aviso-test-notifyd).
    ///
    /// libnotify and GLib's session connection are per process, so these run one at a time on the shared test bus.
    @Suite(.serialized)
    struct NotifierTests {
        let bus = DBusSession.shared

        @Test func notifySendsTitleMarkupBodyAndHints() async throws {
            try await withServer { server, notifier, _ in
                let content = Content(
                    title: "Tea", subtitle: "Kitchen & <hall>", body: "Steep \"3\" min", threadID: "drinks",
                    categoryID: "im.received", level: .active, image: "/usr/share/pixmaps/tea.png")
                let shown = try await notifier.show(content)
                let n = try await server.next("notify")
                #expect(n.summary == "Tea")
                #expect(n.body == "<b>Kitchen &amp; &lt;hall&gt;</b>\nSteep &quot;3&quot; min")
                #expect(n.appName == "aviso-tests")
                #expect(n.hints?["urgency"] == .number(1))
                #expect(n.hints?["category"] == .string("im.received"))
                #expect(n.hints?["x-dunst-stack-tag"] == .string("drinks"))
                #expect(n.hints?["x-canonical-private-synchronous"] == .string("drinks"))
                #expect(n.hints?["image-path"] == .string("/usr/share/pixmaps/tea.png"))
                #expect(n.hints?["desktop-entry"] == .string("aviso"))
                #expect(n.expireTimeout == -1)
                #expect(shown.serverID == n.id)
                #expect(shown.owner == server.unique)
            }
        }

        @Test func plainBodyWhenServerHasNoMarkup() async throws {
            try await withServer(capabilities: ["body", "actions"]) { server, notifier, _ in
                _ = try await notifier.show(Content(title: "Sum", subtitle: "a < b", body: "x & y"))
                #expect(try await server.next("notify").body == "a < b\nx & y")
                _ = try await notifier.show(Content(title: "Sum", body: "just <body>"))
                #expect(try await server.next("notify").body == "just <body>")
            }
        }

        @Test func markupEscapesBodyWithoutSubtitle() async throws {
            try await withServer { server, notifier, _ in
                _ = try await notifier.show(Content(title: "Sum", body: "1 < 2 & 'q'"))
                #expect(try await server.next("notify").body == "1 &lt; 2 &amp; &apos;q&apos;")
            }
        }

        @Test func emptyTitleMovesBodyToSummary() async throws {
            try await withServer { server, notifier, _ in
                _ = try await notifier.show(Content(body: "Only a body & more"))
                let n = try await server.next("notify")
                #expect(n.summary == "Only a body & more")
                #expect(n.body == "")
            }
        }

        @Test(arguments: [
            (InterruptionLevel.passive, 0, -1), (.active, 1, -1), (.timeSensitive, 1, -1), (.critical, 2, 0),
        ])
        func urgencyAndExpiryPerLevel(level: InterruptionLevel, urgency: Int, expire: Int32) async throws {
            try await withServer { server, notifier, _ in
                _ = try await notifier.show(Content(title: "Level", level: level))
                let n = try await server.next("notify")
                #expect(n.hints?["urgency"] == .number(Double(urgency)))
                #expect(n.expireTimeout == expire)
            }
        }

        @Test func noServerThenServerAppears() async throws {
            let events = NotifierEventRecorder()
            let notifier = Notifier(appName: "aviso-tests", desktopEntry: "aviso", onEvent: events.record)
            defer { notifier.stop() }
            await notifier.start()
            #expect(notifier.currentOwner == nil)
            let error = await #expect(throws: DeliveryError.self) { _ = try await notifier.show(Content(title: "Nobody")) }
            #expect(error?.isNoServer == true)
            #expect(error?.message.contains("no notification server") == true)

            let server = TestNotificationServer(busAddress: bus.address)
            try await server.start()
            defer { server.stop() }
            #expect(try await events.next() == .serverAppeared(owner: server.unique))
            #expect(notifier.currentOwner == server.unique)
            let shown = try await notifier.show(Content(title: "Now"))
            let n = try await server.next("notify")
            #expect(n.summary == "Now")
            #expect(shown.serverID == n.id)
        }

        @Test func serverRestartIsFollowed() async throws {
            let first = TestNotificationServer(busAddress: bus.address, capabilities: ["body", "body-markup"])
            try await first.start()
            let events = NotifierEventRecorder()
            let notifier = Notifier(appName: "aviso-tests", desktopEntry: "aviso", onEvent: events.record)
            defer { notifier.stop() }
            await notifier.start()
            #expect(try await events.next() == .serverAppeared(owner: first.unique))
            _ = try await notifier.show(Content(title: "One", subtitle: "S", body: "B"))
            #expect(try await first.next("notify").body == "<b>S</b>\nB")

            first.stop()
            #expect(try await events.next() == .serverVanished)
            let second = TestNotificationServer(busAddress: bus.address, capabilities: ["body"])
            try await second.start()
            defer { second.stop() }
            #expect(second.unique != first.unique)
            #expect(try await events.next() == .serverAppeared(owner: second.unique))
            let shown = try await notifier.show(Content(title: "Two", subtitle: "S", body: "B"))
            let n = try await second.next("notify")
            #expect(n.summary == "Two")
            // The new server has no body-markup: capabilities are per server, not remembered from the first.
            #expect(n.body == "S\nB")
            #expect(shown.owner == second.unique)
        }

        @Test func closedSignalsAndCloseCalls() async throws {
            try await withServer { server, notifier, events in
                let a = try await notifier.show(Content(title: "A")).serverID
                let b = try await notifier.show(Content(title: "B")).serverID
                server.close(id: a, reason: 2)
                #expect(try await events.next() == .closed(serverID: a, reason: .dismissed))
                await notifier.close(serverID: b)
                #expect(try await server.next("close").id == b)
                #expect(try await events.next() == .closed(serverID: b, reason: .closedByCall))
                // Ids the daemon never showed (earlier daemon runs, other programs) are reported too.
                server.close(id: 999, reason: 1)
                #expect(try await events.next() == .closed(serverID: 999, reason: .expired))
            }
        }

        @Test func serverInfoReportsNameVersionAndCapabilities() async throws {
            try await withServer(capabilities: ["body", "persistence"], name: "fake-shell", version: "4.2") { _, notifier, _ in
                let info = try #require(await notifier.serverInfo())
                #expect(info.name == "fake-shell")
                #expect(info.version == "4.2")
                #expect(info.capabilities == ["body", "persistence"])
            }
        }

        /// Runs `body` with a fresh server on the shared bus and a started notifier that has seen it appear.
        private func withServer(
            capabilities: [String]? = nil, name: String? = nil, version: String? = nil,
            _ body: (TestNotificationServer, Notifier, NotifierEventRecorder) async throws -> Void
        ) async throws {
            let server = TestNotificationServer(busAddress: bus.address, capabilities: capabilities, name: name, version: version)
            try await server.start()
            defer { server.stop() }
            let events = NotifierEventRecorder()
            let notifier = Notifier(appName: "aviso-tests", desktopEntry: "aviso", onEvent: events.record)
            defer { notifier.stop() }
            await notifier.start()
            #expect(try await events.next() == .serverAppeared(owner: server.unique))
            try await body(server, notifier, events)
        }
    }
}

/// Collects Notifier events and hands them out in order, waiting at most a timeout (a failure bound).
final class NotifierEventRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var buffered: [NotifierEvent] = []
    private var waiter: CheckedContinuation<NotifierEvent?, Never>?

    var record: @Sendable (NotifierEvent) -> Void { { [self] event in deliver(event) } }

    func next(timeout: Duration = .seconds(10)) async throws -> NotifierEvent {
        let timer = Task { [self] in
            try await Task.sleep(for: timeout)
            lock.withLock { waiter.take() }?.resume(returning: nil)
        }
        defer { timer.cancel() }
        let event: NotifierEvent? = await withCheckedContinuation { continuation in
            lock.lock()
            if buffered.isEmpty {
                waiter = continuation
                lock.unlock()
            } else {
                let first = buffered.removeFirst()
                lock.unlock()
                continuation.resume(returning: first)
            }
        }
        guard let event else { throw BusFixtureError("no Notifier event within \(timeout)") }
        return event
    }

    private func deliver(_ event: NotifierEvent) {
        let waiting: CheckedContinuation<NotifierEvent?, Never>? = lock.withLock {
            if let w = waiter.take() { return w }
            buffered.append(event)
            return nil
        }
        waiting?.resume(returning: event)
    }
}
