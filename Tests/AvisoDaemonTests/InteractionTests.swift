import AvisoTestSupport
import Foundation
import Testing

extension Integration {
    /// The popup answering back, end to end: buttons sent as the server can show them, each action verb run when the
    /// server emits ActionInvoked or NotificationReplied (or `avisoctl respond` asks), and each interaction an event.
    @Suite(.timeLimit(.minutes(2)))
    struct InteractionTests {
        /// Actions for every verb and a category that lists them.
        static let config = """
            [Action done]
            Label=Done
            Run=dismiss

            [Action later]
            Label=Snooze
            Run=snooze 2min

            [Action again]
            Label=Again
            Run=repeat

            [Action note]
            Label=Change
            Run=change
            Input=true
            Placeholder=New text
            Submit=Save

            [Action forget]
            Label=Forget
            Run=dismiss
            Destructive=true

            [Category chores]
            Actions=forget;done;later;again;note
            DefaultAction=again

            """

        /// Writes an executable shell script into the daemon's directory and returns its path.
        static func script(_ daemon: DaemonProcess, _ name: String, _ body: String) throws -> String {
            let path = daemon.directory + "/" + name
            try ("#!/bin/sh\n" + body).write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o755)
            return path
        }

        /// Adds `id` due in 50 ms with `args` (title, category...) and waits until avisod has it delivered; returns the
        /// Notify the server saw.
        func delivered(_ f: DaemonFixture, _ id: String, _ args: String...) async throws -> TestNotificationServer.Event {
            let r = try f.daemon.ctl(["add", "--id", id, "--in", "50ms"] + args)
            #expect(r.status == 0, "\(r.stderr)")
            let n = try await f.server!.next("notify")
            _ = try await f.daemon.log.next { $0.contains("delivered '\(id)'") }
            return n
        }

        /// `avisoctl events --json`: one object per line.
        func events(_ f: DaemonFixture) throws -> [[String: Any]] {
            try f.ctl("events", "--json").split(separator: "\n").map { line in
                guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                    throw BusFixtureError("not an event: \(line)")
                }
                return object
            }
        }

        @Test func buttonsGoOutInOrderWithDestructiveLastAndTheDefaultAction() async throws {
            // A prompt program is there: the text action is a button too.
            let f = try await DaemonFixture.start(config: Self.config + "[Prompt]\nProgram=/bin/true\n")
            defer { f.stop() }
            try f.ctl("add", "--id", "bins", "--in", "50ms", "--title", "Bins", "--category", "chores")
            let n = try await f.server!.next("notify")
            #expect(n.actions == ["done", "Done", "later", "Snooze", "again", "Again", "note", "Change", "forget", "Forget",
                                  "default", "Again"])
            #expect(n.hints?["category"] == .string("chores"))
        }

        @Test func xfce4NotifydIsNotSentTheDefaultActionTwice() async throws {
            // It draws `default` as a button: where the default action is a button already, it is left out.
            let f = try await DaemonFixture.start(serverName: "Xfce Notify Daemon", config: Self.config + """
                [Category single]
                Actions=done
                DefaultAction=done

                """)
            defer { f.stop() }
            _ = try await f.daemon.log.next { $0.contains("notification server: Xfce Notify Daemon") }
            try f.ctl("add", "--id", "bins", "--in", "50ms", "--title", "Bins", "--category", "single")
            #expect(try await f.server!.next("notify").actions == ["done", "Done"])
        }

        @Test func aServerWithoutActionsGetsNoButtonsAndRespondStillWorks() async throws {
            let f = try await DaemonFixture.start(capabilities: ["body"], config: Self.config)
            defer { f.stop() }
            try f.ctl("add", "--id", "bins", "--in", "50ms", "--title", "Bins", "--category", "chores")
            let n = try await f.server!.next("notify")
            #expect(n.actions == [])
            _ = try await f.daemon.log.next { $0.contains("delivered 'bins'") }
            try f.ctl("respond", "bins", "again")
            let again = try await f.server!.next("notify")
            #expect(again.replacesID == n.id)
            #expect(again.summary == "Bins")
        }

        @Test func snoozeClosesThePopupAndArmsItAgainForItsSpan() async throws {
            let f = try await DaemonFixture.start(config: Self.config)
            defer { f.stop() }
            let n = try await delivered(f, "bins", "--title", "Bins", "--category", "chores")
            let clicked = Date()
            f.server!.invoke(id: n.id!, key: "later")
            let close = try await f.server!.next("close")
            #expect(close.id == n.id)
            // Re-armed as a one-shot under its own id (free: the one-shot has fired), two minutes from the click.
            _ = try await f.daemon.log.next { $0.contains("'bins': later (snooze 2min)") }
            let pending = try f.json("pending")
            #expect(pending.map { $0["id"] as? String } == ["bins"])
            // `next` is in whole seconds, truncated.
            let text = try #require(pending.first?["next"] as? String)
            let next = try #require(ISO8601DateFormatter().date(from: text))
            let span = next.timeIntervalSince(clicked)
            #expect(span > 118.9 && span < 121, "armed \(span) s after the click")
            #expect(try f.json("delivered").isEmpty)
        }

        @Test func snoozingARepeatingRequestUsesItsSnoozeID() async throws {
            let f = try await DaemonFixture.start(config: Self.config)
            defer { f.stop() }
            try f.ctl("add", "--id", "water", "--in", "1h", "--repeat", "--title", "Water", "--category", "chores")
            try f.ctl("fire", "water")
            _ = try await f.server!.next("notify")
            _ = try await f.daemon.log.next { $0.contains("delivered 'water'") }
            // The repeating request keeps its own schedule; the snooze is a one-shot of its own beside it.
            try f.ctl("respond", "water", "later")
            _ = try await f.daemon.log.next { $0.contains("'water': later") }
            let pending = try f.json("pending")
            #expect(Set(pending.compactMap { $0["id"] as? String }) == ["water", "water~snooze"])
            #expect(pending.first { $0["id"] as? String == "water~snooze" }?["title"] as? String == "Water")
        }

        @Test func repeatShowsItAgainInPlace() async throws {
            let f = try await DaemonFixture.start(config: Self.config)
            defer { f.stop() }
            let n = try await delivered(f, "bins", "--title", "Bins", "--body", "Tuesday", "--category", "chores")
            f.server!.invoke(id: n.id!, key: "default")
            let again = try await f.server!.next("notify")
            #expect(again.replacesID == n.id)
            #expect(again.body == "Tuesday")
            _ = try await f.daemon.log.next { $0.contains("'bins': again (repeat)") }
        }

        @Test func dismissClosesThePopupAndForgetsIt() async throws {
            let f = try await DaemonFixture.start(config: Self.config)
            defer { f.stop() }
            let n = try await delivered(f, "bins", "--title", "Bins", "--category", "chores")
            f.server!.invoke(id: n.id!, key: "done")
            let close = try await f.server!.next("close")
            #expect(close.id == n.id)
            #expect(try f.json("delivered").isEmpty)
            let events = try events(f).map { "\($0["event"] as? String ?? "")/\($0["action"] as? String ?? "")" }
            #expect(events == ["delivered/", "action/done", "closed/"])
        }

        @Test func anInlineReplyChangesTheBodyInPlace() async throws {
            let caps = ["actions", "body", "body-markup", "inline-reply"]
            let f = try await DaemonFixture.start(capabilities: caps, config: Self.config)
            defer { f.stop() }
            try f.ctl("add", "--id", "bins", "--in", "50ms", "--title", "Bins", "--body", "Tuesday", "--category", "chores")
            let n = try await f.server!.next("notify")
            #expect(n.actions?.contains("inline-reply") == true)
            #expect(n.actions?.contains("note") == false)
            #expect(n.hints?["x-kde-reply-placeholder-text"] == .string("New text"))
            #expect(n.hints?["x-kde-reply-submit-button-text"] == .string("Save"))
            _ = try await f.daemon.log.next { $0.contains("delivered 'bins'") }
            f.server!.reply(id: n.id!, text: "Wednesday, not Tuesday")
            let changed = try await f.server!.next("notify")
            #expect(changed.replacesID == n.id)
            #expect(changed.body == "Wednesday, not Tuesday")
            let action = try #require(try events(f).first { $0["event"] as? String == "action" })
            #expect(action["action"] as? String == "note")
            #expect(action["text"] as? String == "Wednesday, not Tuesday")
            // The new text is what `delivered` holds, so a later action sees it too.
            #expect(try f.json("delivered").first?["body"] as? String == "Wednesday, not Tuesday")
        }

        @Test func withoutInlineRepliesATextActionAsksWithThePromptProgram() async throws {
            var promptPath = ""
            let f = try await DaemonFixture.start(config: Self.config) { daemon in
                promptPath = try Self.script(daemon, "prompt", """
                    printf '%s|%s|%s' "$AVISO_PROMPT_TITLE" "$AVISO_PROMPT_TEXT" "$AVISO_PROMPT_SUBMIT" > "$0.asked"
                    echo 'typed at the prompt'
                    """)
                try daemon.writeConfig(Self.config + "[Prompt]\nProgram=\(promptPath)\n")
            }
            defer { f.stop() }
            try f.ctl("add", "--id", "bins", "--in", "50ms", "--title", "Bins", "--category", "chores")
            let n = try await f.server!.next("notify")
            #expect(n.actions?.contains("note") == true)
            #expect(n.actions?.contains("inline-reply") == false)
            _ = try await f.daemon.log.next { $0.contains("delivered 'bins'") }
            f.server!.invoke(id: n.id!, key: "note")
            let changed = try await f.server!.next("notify")
            #expect(changed.replacesID == n.id)
            #expect(changed.body == "typed at the prompt")
            #expect(try String(contentsOfFile: promptPath + ".asked", encoding: .utf8) == "Bins|New text|Save")
        }

        @Test func aTextActionWithNeitherInlineRepliesNorAPromptIsLeftOutWithTheReason() async throws {
            let f = try await DaemonFixture.start(config: Self.config + "[Prompt]\nProgram=none\n")
            defer { f.stop() }
            try f.ctl("add", "--id", "bins", "--in", "50ms", "--title", "Bins", "--category", "chores")
            let n = try await f.server!.next("notify")
            #expect(n.actions?.contains("note") == false)
            let notes = try f.status()["presentation"] as? [String] ?? []
            #expect(notes.contains { $0.contains("'note'") && $0.contains("no prompt program") }, "\(notes)")
            // From the terminal the text is given directly.
            try f.ctl("respond", "bins", "note", "--text", "from the terminal")
            let changed = try await f.server!.next("notify")
            #expect(changed.body == "from the terminal")
        }

        @Test func execRunsTheProgramWithTheEventOnStdinAndInItsEnvironment() async throws {
            var hookPath = ""
            let f = try await DaemonFixture.start(config: Self.config) { daemon in
                hookPath = try Self.script(daemon, "hook", """
                    cat > "$0.stdin"
                    printf '%s|%s|%s|%s' "$AVISO_ID" "$AVISO_ACTION" "$AVISO_TEXT" "$AVISO_ACTIVATION_TOKEN" > "$0.env"
                    echo 'hook says hello' >&2
                    """)
                try daemon.writeConfig(Self.config + """
                    [Action log]
                    Label=Log it
                    Run=exec \(hookPath) --flag
                    Foreground=true

                    [Category logged]
                    Actions=log

                    """)
            }
            defer { f.stop() }
            let n = try await delivered(f, "pill", "--title", "Pill", "--body", "\"blue\"", "--category", "logged")
            f.server!.invoke(id: n.id!, key: "log", token: "token-123")
            let exited = try await f.daemon.log.next { $0.contains("'pill': log:") && $0.contains("exited") }
            #expect(exited.contains("exited 0: hook says hello"), "\(exited)")
            #expect(try String(contentsOfFile: hookPath + ".env", encoding: .utf8) == "pill|log||token-123")
            let stdin = try String(contentsOfFile: hookPath + ".stdin", encoding: .utf8)
            let event = try #require(try JSONSerialization.jsonObject(with: Data(stdin.utf8)) as? [String: Any])
            #expect(event["id"] as? String == "pill")
            #expect(event["action"] as? String == "log")
            #expect(event["body"] as? String == "\"blue\"")
            #expect(event["category"] as? String == "logged")
            #expect(event["activationToken"] as? String == "token-123")
        }

        @Test func aProgramThatWritesMuchAndNeverReadsALargeEventEndsAndIsReaped() async throws {
            // It fills its stderr pipe without reading its stdin: the event must be written as it reads and its stderr
            // read meanwhile, or both sides wait for ever.
            let f = try await DaemonFixture.start(config: Self.config + """
                [Action chatty]
                Run=exec /bin/sh -c "head -c 200000 /dev/zero >&2"

                [Category big]
                Actions=chatty

                """)
            defer { f.stop() }
            // 120 KB of body: more than a pipe holds.
            let body = String(repeating: "x", count: 120_000)
            try f.ctl("add", "--id", "big", "--in", "50ms", "--title", "Big", "--body", body, "--category", "big")
            _ = try await f.daemon.log.next { $0.contains("delivered 'big'") }
            try f.ctl("respond", "big", "chatty")
            _ = try await f.daemon.log.next { $0.contains("'big': chatty: /bin/sh exited 0") }
        }

        @Test func dismissingRunsTheCategorysDismissActionAndStatsCountIt() async throws {
            var hookPath = ""
            let f = try await DaemonFixture.start(config: Self.config) { daemon in
                hookPath = try Self.script(daemon, "dismissed", "echo \"$AVISO_ID\" >> \"$0.ids\"\n")
                try daemon.writeConfig(Self.config + """
                    [Action noted]
                    Run=exec \(hookPath)

                    [Category nag]
                    Actions=done
                    Dismiss=noted

                    """)
            }
            defer { f.stop() }
            for id in ["a", "b", "c"] {
                try f.ctl("add", "--id", id, "--in", "50ms", "--title", id.uppercased(), "--category", "nag")
            }
            var shown: [String: UInt32] = [:]
            for _ in 0..<3 {
                let n = try await f.server!.next("notify")
                shown[n.summary!.lowercased()] = n.id
            }
            _ = try await f.daemon.log.first { $0.contains("delivered 'c'") }
            f.server!.close(id: shown["a"]!, reason: 2)  // dismissed by the person
            f.server!.close(id: shown["b"]!, reason: 1)  // expired
            f.server!.invoke(id: shown["c"]!, key: "done")
            _ = try await f.daemon.log.next { $0.contains("'a': noted:") && $0.contains("exited 0") }
            _ = try await f.daemon.log.first { $0.contains("'c': done") }
            #expect(try String(contentsOfFile: hookPath + ".ids", encoding: .utf8) == "a\n")
            let out = try f.ctl("stats", "--json")
            let stats = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
            let nag = try #require((stats["categories"] as? [String: Any])?["nag"] as? [String: Any])
            #expect(nag["delivered"] as? Int == 3)
            #expect(nag["dismissed"] as? Int == 1)
            #expect(nag["expired"] as? Int == 1)
            #expect((nag["actions"] as? [String: Int])?["done"] == 1)
            #expect((nag["actions"] as? [String: Int])?["noted"] == 1)
        }

        @Test func anActionThatArrivesBeforeTheNotifyAnswerIsKeptUntilIt() async throws {
            // The server emits ActionInvoked before it answers Notify: the action must wait for the id, not be lost.
            let f = try await DaemonFixture.start(invokeBeforeReply: "done", config: Self.config)
            defer { f.stop() }
            try f.ctl("add", "--id", "bins", "--in", "50ms", "--title", "Bins", "--category", "chores")
            let n = try await f.server!.next("notify")
            _ = try await f.server!.next("invoked")
            _ = try await f.daemon.log.next { $0.contains("'bins': done (dismiss)") }
            #expect(try await f.server!.next("close").id == n.id)
            #expect(try f.json("delivered").isEmpty)
        }

        @Test func anActionForAnUnknownPopupOrKeyIsIgnoredAndLogged() async throws {
            let f = try await DaemonFixture.start(config: Self.config)
            defer { f.stop() }
            let n = try await delivered(f, "bins", "--title", "Bins", "--category", "chores")
            f.server!.invoke(id: 9_999, key: "done")
            _ = try await f.daemon.log.next { $0.contains("notification 9999, which aviso does not know, is ignored") }
            f.server!.invoke(id: n.id!, key: "rm -rf")
            _ = try await f.daemon.log.next { $0.contains("action 'rm -rf' of 'bins' is not one of its category's") }
            #expect(try f.json("delivered").map { $0["id"] as? String } == ["bins"])
        }

        @Test func respondRefusesWhatIsNotThereAndChangesNothing() async throws {
            let f = try await DaemonFixture.start(config: Self.config)
            defer { f.stop() }
            try f.ctl("add", "--id", "bins", "--in", "50ms", "--title", "Bins", "--category", "chores")
            try f.ctl("add", "--id", "plain", "--in", "50ms", "--title", "Plain")
            _ = try await f.daemon.log.next { $0.contains("delivered 'bins'") }
            _ = try await f.daemon.log.first { $0.contains("delivered 'plain'") }
            let before = try f.ctl("delivered", "--json")
            let cases: [([String], String)] = [
                (["respond", "nope", "done"], "nope"),
                (["respond", "bins", "launch"], "'launch' is not an action of [Category chores] (its actions: forget, done, later, again, note"),
                (["respond", "bins", "note"], "give --text"),
                (["respond", "plain", "done"], "'plain' has no category with actions"),
            ]
            for (args, message) in cases {
                let r = try f.daemon.ctl(args)
                #expect(r.status != 0, "\(args)")
                #expect(r.stderr.contains(message), "\(args): \(r.stderr)")
            }
            #expect(try f.ctl("delivered", "--json") == before)
            #expect(try events(f).allSatisfy { $0["event"] as? String == "delivered" })
        }

        @Test func eventsFollowSeesEachEventAsItHappens() async throws {
            let f = try await DaemonFixture.start(config: Self.config)
            defer { f.stop() }
            let follow = try f.daemon.ctlProcess(["events", "--follow", "--json"])
            defer { follow.terminate() }
            try f.ctl("add", "--id", "bins", "--in", "50ms", "--title", "Bins", "--category", "chores")
            let n = try await f.server!.next("notify")
            let delivered = try await follow.lines.next { $0.contains("\"delivered\"") }
            #expect(delivered.contains("\"id\":\"bins\""))
            f.server!.invoke(id: n.id!, key: "done")
            let action = try await follow.lines.next { $0.contains("\"action\"") }
            #expect(action.contains("\"action\":\"done\""))
            #expect(action.contains("\"category\":\"chores\""))
            _ = try await follow.lines.next { $0.contains("\"closed\"") }
        }
    }
}
