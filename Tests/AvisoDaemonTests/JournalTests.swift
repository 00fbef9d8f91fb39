import AvisoTestSupport
import Foundation
import Testing

extension Integration {
    /// With stderr connected to the journal (JOURNAL_STREAM), avisod logs journal entries with fields a person can filter
    /// on: `journalctl --user -u aviso AVISO_ID=tea`.
    ///
    /// The test binds the journal's socket itself, which needs root and no running journald: without them it is skipped.
    @Suite(.serialized, .timeLimit(.minutes(2)))
    struct JournalTests {
        static let directory = "/run/systemd/journal"
        static let socket = directory + "/socket"
        static var canBindTheJournalSocket: Bool { getuid() == 0 && access(socket, F_OK) != 0 }

        @Test(.enabled(if: canBindTheJournalSocket, "needs root and no journald (binds /run/systemd/journal/socket)"))
        func entriesCarryPriorityMessageAndTheRequestsFields() async throws {
            let madeDirectory = access(Self.directory, F_OK) != 0
            try FileManager.default.createDirectory(atPath: Self.directory, withIntermediateDirectories: true)
            let journal = try NotifySocketReceiver(path: Self.socket)
            defer {
                journal.close()
                if madeDirectory { rmdir(Self.directory) }
            }
            let bus = try DBusSession()
            let server = TestNotificationServer(busAddress: bus.address)
            try await server.start()
            let daemon = try DaemonProcess(busAddress: bus.address)
            daemon.journalStream = true
            try daemon.launch()
            let f = DaemonFixture(bus: bus, server: server, daemon: daemon)
            defer { f.stop() }
            // Its stderr stays silent: readiness is in the journal.
            _ = try await journal.waitFor(timeout: .seconds(20)) { $0.contains("ready; control socket") }
            try f.ctl("add", "--id", "tea", "--in", "50ms", "--title", "Tea", "--category", "im.received")
            let added = try await journal.waitFor(timeout: .seconds(5)) { $0.contains("\nAVISO_EVENT=added") }.fields
            #expect(added["AVISO_ID"] == "tea")
            #expect(added["AVISO_CATEGORY"] == "im.received")
            #expect(added["PRIORITY"] == "6")
            #expect(added["SYSLOG_IDENTIFIER"] == "avisod")
            #expect(added["MESSAGE"]?.hasPrefix("added 'tea'") == true, "\(added)")
            let delivered = try await journal.waitFor(timeout: .seconds(5)) { $0.contains("\nAVISO_EVENT=delivered") }.fields
            #expect(delivered["AVISO_ID"] == "tea")
            #expect(f.daemon.log.all.allSatisfy { !$0.contains("'tea'") }, "nothing about tea on stderr: \(f.daemon.log.all)")
        }
    }
}
