import AvisoCore
import AvisoTestSupport
import Foundation
import Glibc
import Testing

@testable import AvisoDaemon

/// sd_notify messages as systemd receives them, through a real NOTIFY_SOCKET.
///
/// The notifier reads the environment it is given, so these tests change nothing the rest of the process shares.
@Suite struct SystemdNotifierTests {
    /// A notifier whose NOTIFY_SOCKET is a fresh receiver, for the duration of `body`.
    static func withReceiver(
        abstract: Bool = false, _ body: (NotifySocketReceiver, SystemdNotifier) async throws -> Void
    ) async throws {
        let receiver = try NotifySocketReceiver(path: abstract ? "@aviso-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max))" : nil)
        defer { receiver.close() }
        try await body(receiver, SystemdNotifier(environment: ["NOTIFY_SOCKET": receiver.path]))
    }

    @Test func readySendsReadyWithTheStatus() async throws {
        try await Self.withReceiver { receiver, notifier in
            notifier.ready(status: "3 reminders armed")
            let message = try await receiver.nextMessage(timeout: .seconds(5))
            #expect(message.text == "READY=1\nSTATUS=3 reminders armed")
            #expect(message.fields == ["READY": "1", "STATUS": "3 reminders armed"])
        }
    }

    @Test func eachStateChangeSendsItsAssignment() async throws {
        try await Self.withReceiver { receiver, notifier in
            notifier.status("reloading\nconfiguration")
            notifier.watchdog()
            notifier.reloading(monotonicUsec: 123_456_789)
            notifier.stopping()
            var texts: [String] = []
            for _ in 0..<4 { texts.append(try await receiver.next(timeout: .seconds(5))) }
            #expect(texts == [
                "STATUS=reloading configuration",
                "WATCHDOG=1",
                "RELOADING=1\nMONOTONIC_USEC=123456789",
                "STOPPING=1",
            ])
            let arrivals = receiver.history.map(\.arrival)
            #expect(arrivals == arrivals.sorted())
        }
    }

    @Test func waitingForAMessageSkipsOthersAndTimesOutWhenNoneMatches() async throws {
        try await Self.withReceiver { receiver, notifier in
            notifier.status("starting")
            notifier.watchdog()
            let ping = try await receiver.waitFor(timeout: .seconds(5)) { $0 == "WATCHDOG=1" }
            #expect(ping.text == "WATCHDOG=1")
            await #expect(throws: NotifySocketReceiver.Failure.self) {
                try await receiver.waitFor(timeout: .milliseconds(100)) { $0.hasPrefix("READY=1") }
            }
            #expect(receiver.history.map(\.text) == ["STATUS=starting", "WATCHDOG=1"])
        }
    }

    @Test func theReloadTimestampIsMonotonicMicroseconds() async throws {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        let before = UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1_000
        let usec = SystemdNotifier.monotonicUsec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        let after = UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1_000
        #expect(usec >= before && usec <= after)
    }

    @Test func anAbstractSocketIsReachedByItsExactName() async throws {
        try await Self.withReceiver(abstract: true) { receiver, notifier in
            #expect(receiver.path.hasPrefix("@"))
            notifier.ready(status: "abstract")
            let message = try await receiver.next(timeout: .seconds(5))
            #expect(message == "READY=1\nSTATUS=abstract")
        }
    }

    /// A manager that stops reading (its queue full) must not stop the daemon: every message is sent without
    /// waiting, and one that does not fit is dropped, as one sent to a socket that is gone.
    @Test func aManagerThatNeverReadsDoesNotBlockTheSender() throws {
        let path = "/tmp/aviso-notify-full-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #expect(fd >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        defer { unlink(path) }
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": path])
        let done = DispatchSemaphore(value: 0)
        // Far more datagrams than a unix socket queues (net.unix.max_dgram_qlen), never read.
        Thread.detachNewThread {
            for i in 0..<5_000 { notifier.status("line \(i)") }
            notifier.watchdog()
            done.signal()
        }
        let returned = done.wait(timeout: .now() + 20) == .success
        #expect(returned, "a full NOTIFY_SOCKET blocked the sender")
        // Closing the receiver wakes a sender that blocked, so a failure does not leave a thread stuck.
        close(fd)
        if !returned { _ = done.wait(timeout: .now() + 20) }
    }

    @Test func withoutNotifySocketEveryCallIsANoOp() {
        for environment in [[:], ["NOTIFY_SOCKET": ""], ["NOTIFY_SOCKET": "relative.sock"]] {
            let notifier = SystemdNotifier(environment: environment)
            notifier.ready(status: "nobody listens")
            notifier.watchdog()
            notifier.stopping()
            #expect(notifier.watchdogInterval == nil)
        }
    }

    @Test func theWatchdogIntervalIsHalfTheTimeoutForThisProcessOnly() {
        func interval(_ environment: [String: String]) -> Span? { SystemdNotifier(environment: environment).watchdogInterval }
        #expect(interval(["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "\(getpid())"]) == .seconds(15))
        #expect(interval(["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "\(getpid() + 1)"]) == nil)
        #expect(interval(["WATCHDOG_USEC": "4000000"]) == .seconds(2))
        #expect(interval(["WATCHDOG_USEC": "0"]) == nil)
        #expect(interval(["WATCHDOG_USEC": "soon"]) == nil)
        #expect(interval([:]) == nil)
    }
}

/// Log lines as journald reads them from stderr.
@Suite struct LogTests {
    @Test func eachPriorityHasItsSdDaemonPrefix() {
        #expect(Log.line(.error, "x") == "<3>x\n")
        #expect(Log.line(.warning, "x") == "<4>x\n")
        #expect(Log.line(.notice, "x") == "<5>x\n")
        #expect(Log.line(.info, "x") == "<6>x\n")
        #expect(Log.line(.debug, "x") == "<7>x\n")
    }

    @Test func aMessageIsAlwaysOneLine() {
        #expect(Log.line(.error, "reminders/week.conf:\nline 4\r\nbad") == "<3>reminders/week.conf: line 4  bad\n")
    }

    @Test func linesReachTheFileDescriptorWhole() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        Log.emit(.warning, "clock stepped\nre-planning", to: fds[1])
        Log.emit(.info, "armed 2 timers", to: fds[1])
        close(fds[1])
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        #expect(String(decoding: bytes, as: UTF8.self) == "<4>clock stepped re-planning\n<6>armed 2 timers\n")
    }
}
