import AvisoTestSupport
import Foundation
import Testing

extension Integration {
    /// When and how popups reach the screen: release order, quiet hours, threads, scheduled summaries and hidden previews,
    /// against the real daemon and a test notification server (and a test logind for the lock state).
    @Suite(.timeLimit(.minutes(2)))
    struct PresentationDeliveryTests {
        /// "YYYY-MM-DDTHH:MM:SSZ" for a whole second at least `ahead` from now.
        static func wholeSecond(ahead: TimeInterval) -> String {
            let formatter = ISO8601DateFormatter()
            return formatter.string(from: Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + ahead).rounded(.up)))
        }

        @Test func notificationsDueInTheSameSecondArriveByRelevanceThenLevel() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            let at = Self.wholeSecond(ahead: 1)
            for (id, relevance, level) in [("low", "0.2", "active"), ("high", "0.9", "active"), ("mid", "0.5", "passive"),
                                           ("mid-active", "0.5", "active")] {
                try f.ctl("add", "--id", id, "--at", at, "--title", id, "--relevance", relevance, "--level", level)
            }
            var order: [String] = []
            for _ in 0..<4 { order.append(try await f.server!.next("notify").summary ?? "") }
            #expect(order == ["high", "mid-active", "mid", "low"])
        }

        @Test func quietHoldsWhatIsDueAndReleasesItAsOneSummaryLedByTheMostRelevant() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            try f.ctl("quiet", "on")
            let items = [("water", "Water", "0.3"), ("medication", "Medication", "0.95"), ("post", "Post", "0.1"),
                         ("call", "Call mum", "0.7"), ("plants", "Plants", "0.5")]
            for (id, title, relevance) in items {
                try f.ctl("add", "--id", id, "--in", "100ms", "--title", title, "--relevance", relevance)
            }
            try f.ctl("add", "--id", "train", "--in", "300ms", "--title", "Train leaves", "--level", "time-sensitive")
            // The time-sensitive one breaks through; the five wait.
            let train = try await f.server!.next("notify")
            #expect(train.summary == "Train leaves")
            let quiet = try #require(try JSONSerialization.jsonObject(with: Data(f.ctl("quiet", "--json").utf8)) as? [String: Any])
            #expect(quiet["quiet"] as? Bool == true)
            #expect(quiet["held"] as? Int == 5)
            let held = try f.json("delivered").filter { $0["held"] as? String == "quiet" }.compactMap { $0["id"] as? String }
            #expect(Set(held) == Set(items.map(\.0)))

            try f.ctl("quiet", "off")
            let summary = try await f.server!.next("notify")
            #expect(summary.summary == "Medication and 4 more")
            #expect(summary.body == "• Medication\n• Call mum\n• Plants\n• Water\n• Post")
            _ = try await f.daemon.log.next { $0.contains("delivered 5 notifications as one summary") }
            // Closing the summary closes the five it stands for; the train stays.
            f.server!.close(id: summary.id!, reason: 2)
            _ = try await f.daemon.log.next { $0.contains("5 notifications") && $0.contains("closed") }
            #expect(try f.json("delivered").map { $0["id"] as? String } == ["train"])
        }

        @Test func quietThatEndsInThePastOrAfter2199IsRefusedAndNothingChanges() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            try f.ctl("quiet", "on", "--for", "1h")
            let before = try f.ctl("quiet", "--json")
            for (args, message) in [(["quiet", "on", "--until", "2020-01-01 10:00"], "ends in the past"),
                                    (["quiet", "on", "--for", "290y"], "ends after 2199-12-31T23:59:59Z")] {
                let r = try f.daemon.ctl(args)
                #expect(r.status == 1, "\(args)")
                #expect(r.stderr.contains(message) && r.stderr.contains("nothing changed"), "\(r.stderr)")
            }
            #expect(try f.ctl("quiet", "--json") == before)
        }

        @Test func quietSaidWithAvisoctlLastsAcrossARestart() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            try f.ctl("quiet", "on", "--for", "2h")
            try f.ctl("add", "--id", "held", "--in", "50ms", "--title", "Held")
            _ = try await f.daemon.log.next { $0.contains("'held' is held: it is quiet") }
            f.daemon.signal(SIGTERM)
            _ = try await f.daemon.waitForExit()
            try await f.daemon.start()
            let quiet = try #require(try JSONSerialization.jsonObject(with: Data(f.ctl("quiet", "--json").utf8)) as? [String: Any])
            #expect(quiet["quiet"] as? Bool == true)
            #expect(quiet["held"] as? Int == 1)
            #expect((quiet["reason"] as? String)?.hasPrefix("turned on until") == true)
            #expect(f.server!.events.filter { $0.event == "notify" }.isEmpty)
        }

        @Test func aThreadOfThreeIsOnePopupShowingItsMostRelevantAndClosingItClosesAll() async throws {
            let f = try await DaemonFixture.start(config: """
                [Action done]
                Run=dismiss

                [Category chat]
                Actions=done
                ThreadSummary=%u more from Ana

                """)
            defer { f.stop() }
            try f.ctl("add", "--id", "m1", "--in", "50ms", "--title", "Ana", "--body", "lunch?", "--thread", "ana",
                      "--category", "chat", "--relevance", "0.5")
            let first = try await f.server!.next("notify")
            #expect(first.body == "lunch?")
            _ = try await f.daemon.log.next { $0.contains("delivered 'm1'") }
            try f.ctl("add", "--id", "m2", "--in", "50ms", "--title", "Ana", "--body", "URGENT: keys", "--thread", "ana",
                      "--category", "chat", "--relevance", "0.9")
            let second = try await f.server!.next("notify")
            #expect(second.replacesID == first.id)
            #expect(second.body == "URGENT: keys\n1 more from Ana")
            _ = try await f.daemon.log.next { $0.contains("delivered 1 into thread ana") }
            try f.ctl("add", "--id", "m3", "--in", "50ms", "--title", "Ana", "--body", "ok", "--thread", "ana",
                      "--category", "chat", "--relevance", "0.1")
            let third = try await f.server!.next("notify")
            #expect(third.replacesID == first.id)
            #expect(third.body == "URGENT: keys\n2 more from Ana", "the most relevant stays in front")
            _ = try await f.daemon.log.next { $0.contains("showing 'm2' and 2 more") }
            #expect(Set(try f.json("delivered").compactMap { $0["id"] as? String }) == ["m1", "m2", "m3"])

            // An action on the folded popup acts on the one it shows, and closing it closes all three.
            f.server!.invoke(id: first.id!, key: "done")
            let close = try await f.server!.next("close")
            #expect(close.id == first.id)
            #expect(try f.json("delivered").isEmpty)
        }

        @Test func aScheduledSummaryWaitsForItsTimeAndArrivesAsOnePopup() async throws {
            // The daemon's local clock is put 52 s past a minute, and that minute's end is the summary time.
            let (offset, minute) = FixedZoneFile.offsetPlacing(second: 52)
            let f = try await DaemonFixture.start(config: "[Summary]\nAt=\(minute)\n") { daemon in
                let zone = daemon.directory + "/zone"
                try FixedZoneFile.write(zone, offsetSeconds: offset)
                daemon.environment["TZ"] = zone
            }
            defer { f.stop() }
            try f.ctl("add", "--id", "news", "--in", "50ms", "--title", "News", "--summary", "--relevance", "0.4")
            try f.ctl("add", "--id", "bills", "--in", "50ms", "--title", "Bills", "--summary", "--relevance", "0.8")
            try f.ctl("add", "--id", "now", "--in", "100ms", "--title", "Not summarised")
            let first = try await f.server!.next("notify")
            #expect(first.summary == "Not summarised")
            let held = try f.json("delivered").filter { $0["held"] as? String == "summary" }.compactMap { $0["id"] as? String }
            #expect(Set(held) == ["news", "bills"])
            let summary = try await f.server!.next("notify", timeout: .seconds(15))
            #expect(summary.summary == "Bills and 1 more")
            #expect(summary.body == "• Bills\n• News")
        }

        @Test func aLockedSessionHidesPreviewsAndUnlockingRevealsThemInPlace() async throws {
            let system = try DBusSession()
            defer { system.stop() }
            let logind = TestLogind(busAddress: system.address)
            try await logind.start()
            defer { logind.stop() }
            let f = try await DaemonFixture.start(
                environment: ["DBUS_SYSTEM_BUS_ADDRESS": system.address],
                config: """
                    [Privacy]
                    Placeholder=Something for you

                    [Category health]
                    HiddenPreviews=when-locked
                    ShowTitle=false

                    [Category mail]
                    HiddenPreviews=when-locked
                    ShowTitle=true

                    """)
            defer { f.stop() }
            _ = try await f.daemon.log.next { $0.contains("the session is unlocked") }
            logind.lock()
            _ = try await f.daemon.log.next { $0.contains("the session is locked") }
            try f.ctl("add", "--id", "pill", "--in", "50ms", "--title", "Pill", "--body", "Blue one", "--category", "health")
            try f.ctl("add", "--id", "mail", "--in", "100ms", "--title", "Mail", "--body", "From the bank", "--category", "mail")
            try f.ctl("add", "--id", "open", "--in", "150ms", "--title", "Open", "--body", "Not private")
            var hidden: [String: TestNotificationServer.Event] = [:]
            for _ in 0..<3 {
                let n = try await f.server!.next("notify")
                hidden[n.body ?? ""] = n
            }
            // ShowTitle=false: not even the title; the placeholder stands in for it.
            let pill = try #require(hidden.values.first { $0.summary == "Something for you" })
            #expect(pill.body == "")
            let mail = try #require(hidden.values.first { $0.summary == "Mail" })
            #expect(mail.body == "Something for you")
            #expect(hidden["Not private"]?.summary == "Open")
            _ = try await f.daemon.log.first { $0.contains("delivered 'open'") }

            logind.unlock()
            var revealed: [UInt32: TestNotificationServer.Event] = [:]
            for _ in 0..<2 {
                let n = try await f.server!.next("notify")
                revealed[n.replacesID ?? 0] = n
            }
            #expect(revealed[pill.id!]?.summary == "Pill")
            #expect(revealed[pill.id!]?.body == "Blue one")
            #expect(revealed[mail.id!]?.body == "From the bank")
            _ = try await f.daemon.log.next { $0.contains("the session is unlocked") }
        }

        @Test func brokenActionsAndCategoriesInAReminderFileAreErrorsAtTheirLinesAndTheRestStands() async throws {
            let f = try await DaemonFixture.start { daemon in
                let dir = daemon.directory + "/config/aviso/reminders"
                try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
                try """
                    [Action ok]
                    Run=dismiss

                    [Action rockets]
                    Run=launch rockets

                    [Action hook]
                    Run=exec /nonexistent/hook

                    [Category chores]
                    Actions=ok;ghost

                    [Reminder bins]
                    Title=Bins
                    Every=1h
                    Category=chores

                    [Reminder nope]
                    Title=Nope
                    Every=1h
                    Category=missing

                    """.write(toFile: dir + "/home.conf", atomically: true, encoding: .utf8)
            }
            defer { f.stop() }
            let problems = (try f.status()["configErrors"] as? [[String: Any]] ?? []).map {
                "\($0["line"] as? Int ?? 0): \($0["message"] as? String ?? "")"
            }
            #expect(problems.contains { $0.hasPrefix("5: ") && $0.contains("unknown verb 'launch'") }, "\(problems)")
            #expect(problems.contains { $0.hasPrefix("8: ") && $0.contains("/nonexistent/hook") }, "\(problems)")
            #expect(problems.contains { $0.hasPrefix("11: ") && $0.contains("'ghost'") }, "\(problems)")
            #expect(problems.contains { $0.hasPrefix("21: ") && $0.contains("unknown category 'missing'") }, "\(problems)")
            // What is right stands: the category with its one good action, and the reminder that names it.
            let all = try f.json("categories")
            // The category of items' reminders is built in and listed too.
            #expect(all.first { $0["name"] as? String == "item" }?["source"] as? String == "(built in)")
            let categories = all.filter { $0["source"] as? String != "(built in)" }
            #expect(categories.map { $0["name"] as? String } == ["chores"])
            #expect((categories.first?["actions"] as? [[String: Any]])?.map { $0["name"] as? String } == ["ok"])
            #expect(try f.json("pending").map { $0["id"] as? String } == ["bins"])
            // An unknown category from the terminal is refused and nothing is stored.
            let r = try f.daemon.ctl(["add", "--id", "x", "--in", "1h", "--title", "X", "--category", "missing"])
            #expect(r.status != 0)
            #expect(r.stderr.contains("unknown category 'missing'; declared: chores"), "\(r.stderr)")
            #expect(try f.json("pending").map { $0["id"] as? String } == ["bins"])
        }
    }
}
