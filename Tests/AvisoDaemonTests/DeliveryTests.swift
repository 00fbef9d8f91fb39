import AvisoTestSupport
import Foundation
import Testing

extension Integration {
    /// What reaches the notification server when requests added with avisoctl come due.
    @Suite(.timeLimit(.minutes(2)))
    struct DeliveryTests {
        @Test func aDueRequestArrivesWithItsContentAndHints() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            let id = try f.ctl("add", "--id", "tea", "--in", "300ms", "--title", "Tea", "--subtitle", "Kitchen & <hall>",
                               "--body", "Take the tea bag out", "--thread", "drinks", "--category", "im.received")
            #expect(id == "tea\n")
            let pending = try f.json("pending")
            #expect(pending.map { $0["id"] as? String } == ["tea"])
            #expect((pending.first?["next"] as? String)?.hasSuffix("Z") == true)

            let n = try #require(try await f.server?.next("notify"))
            #expect(n.appName == "aviso")
            #expect(n.summary == "Tea")
            #expect(n.body == "<b>Kitchen &amp; &lt;hall&gt;</b>\nTake the tea bag out")
            #expect(n.hints?["urgency"] == .number(1))
            #expect(n.hints?["category"] == .string("im.received"))
            #expect(n.hints?["x-dunst-stack-tag"] == .string("drinks"))
            #expect(n.hints?["x-canonical-private-synchronous"] == .string("drinks"))
            #expect(n.hints?["desktop-entry"] == .string("aviso"))
            #expect(n.expireTimeout == -1)

            #expect(try f.json("pending").isEmpty)
            let delivered = try f.json("delivered")
            #expect(delivered.map { $0["id"] as? String } == ["tea"])
            #expect(delivered.first?["serverID"] as? Int == Int(n.id ?? 0))
        }

        @Test func withoutBodyMarkupTheSubtitleIsPlainText() async throws {
            let f = try await DaemonFixture.start(capabilities: ["body"])
            defer { f.stop() }
            try f.ctl("add", "--in", "100ms", "--title", "T", "--subtitle", "a < b", "--body", "x & y")
            let n = try #require(try await f.server?.next("notify"))
            #expect(n.body == "a < b\nx & y")
        }

        @Test(arguments: [("passive", 0, -1), ("active", 1, -1), ("time-sensitive", 1, -1), ("critical", 2, 0)])
        func levelsMapToUrgencyAndExpiry(level: String, urgency: Int, expire: Int32) async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            try f.ctl("add", "--in", "50ms", "--title", level, "--level", level)
            let n = try #require(try await f.server?.next("notify"))
            #expect(n.hints?["urgency"] == .number(Double(urgency)))
            #expect(n.expireTimeout == expire)
        }

        @Test func requestsArriveInFireOrderNotAddOrder() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            try f.ctl("add", "--id", "c", "--in", "900ms", "--title", "third")
            try f.ctl("add", "--id", "a", "--in", "300ms", "--title", "first")
            try f.ctl("add", "--id", "b", "--in", "600ms", "--title", "second")
            #expect(try f.json("pending").map { $0["id"] as? String } == ["a", "b", "c"])
            var titles: [String] = []
            for _ in 0..<3 { titles.append(try await f.server!.next("notify").summary ?? "") }
            #expect(titles == ["first", "second", "third"])
        }

        @Test func closingThePopupRemovesItFromDelivered() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            try f.ctl("add", "--id", "x", "--in", "50ms", "--title", "X")
            let n = try await f.server!.next("notify")
            _ = try await f.daemon.log.next { $0.contains("delivered 'x'") }
            f.server!.close(id: n.id!, reason: 2)
            _ = try await f.daemon.log.next { $0.contains("'x' closed") }
            #expect(try f.json("delivered").isEmpty)
        }

        /// A request has one popup on screen: each firing of a repeating one replaces it in place, and closing it
        /// leaves nothing of it delivered. Another request keeps a popup of its own.
        @Test func eachFiringOfARepeatingRequestReplacesItsPopup() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            try f.ctl("add", "--id", "water", "--in", "1h", "--repeat", "--title", "Drink water")
            try f.ctl("add", "--id", "tea", "--in", "1h", "--repeat", "--title", "Tea")
            try f.ctl("fire", "water")
            let first = try await f.server!.next("notify")
            #expect(first.replacesID == 0)
            _ = try await f.daemon.log.next { $0.contains("delivered 'water'") }
            try f.ctl("fire", "tea")
            let tea = try await f.server!.next("notify")
            #expect(tea.replacesID == 0, "another request is a popup of its own")
            _ = try await f.daemon.log.next { $0.contains("delivered 'tea'") }
            try f.ctl("fire", "water")
            let second = try await f.server!.next("notify")
            #expect(second.replacesID == first.id)
            #expect(second.summary == "Drink water")
            _ = try await f.daemon.log.next { $0.contains("delivered 'water'") }
            f.server!.close(id: first.id!, reason: 2)
            _ = try await f.daemon.log.next { $0.contains("'water' closed") }
            #expect(try f.json("delivered").compactMap { $0["id"] as? String } == ["tea"])
        }

        /// A server that answers a replacement with a new id has left the old popup on screen: aviso closes it, and
        /// follows the new one.
        @Test func aServerThatDoesNotReplaceHasTheOldPopupClosed() async throws {
            let f = try await DaemonFixture.start(ignoreReplaces: true)
            defer { f.stop() }
            try f.ctl("add", "--id", "water", "--in", "1h", "--repeat", "--title", "Drink water")
            try f.ctl("fire", "water")
            let first = try await f.server!.next("notify")
            _ = try await f.daemon.log.next { $0.contains("delivered 'water'") }
            try f.ctl("fire", "water")
            let second = try await f.server!.next("notify")
            #expect(second.replacesID == first.id && second.id != first.id)
            #expect(try await f.server!.next("close").id == first.id)
            _ = try await f.daemon.log.next { $0.contains("delivered 'water' as notification \(second.id!)") }
            f.server!.close(id: second.id!, reason: 2)
            _ = try await f.daemon.log.next { $0.contains("'water' closed") }
            #expect(try f.json("delivered").isEmpty)
        }

        @Test func removeDeliveredClosesThePopupOnScreen() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            try f.ctl("add", "--id", "y", "--in", "50ms", "--title", "Y")
            let n = try await f.server!.next("notify")
            _ = try await f.daemon.log.next { $0.contains("delivered 'y'") }
            #expect(try f.ctl("remove-delivered", "y") == "y\n")
            let close = try await f.server!.next("close")
            #expect(close.id == n.id)
            #expect(try f.json("delivered").isEmpty)
        }

        @Test func fireDeliversAPendingRequestNow() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            try f.ctl("add", "--id", "later", "--in", "1h", "--title", "Later")
            try f.ctl("fire", "later")
            #expect(try await f.server!.next("notify").summary == "Later")
            #expect(try f.json("pending").isEmpty)
        }

        @Test func aRepeatingRequestStaysPendingAfterFiring() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            try f.ctl("add", "--id", "water", "--in", "60s", "--repeat", "--title", "Water")
            try f.ctl("fire", "water")
            #expect(try await f.server!.next("notify").summary == "Water")
            let pending = try f.json("pending")
            #expect(pending.map { $0["id"] as? String } == ["water"])
            #expect((pending.first?["trigger"] as? String)?.contains("every") == true)
        }
    }
}
