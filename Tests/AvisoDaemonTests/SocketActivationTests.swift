import AvisoTestSupport
import Foundation
import Testing

extension Integration {
    /// Under socket activation (aviso.socket) the first client starts avisod, which serves the socket it is passed.
    @Suite(.timeLimit(.minutes(2)))
    struct SocketActivationTests {
        @Test func aClientOfAStoppedDaemonStartsItAndIsAnsweredOnThePassedSocket() async throws {
            let daemon = try DaemonProcess(busAddress: nil)
            try daemon.launchSocketActivated()
            defer { daemon.signal(SIGTERM) }
            _ = try await daemon.log.next { $0.contains("Listening on \(daemon.socket)") }
            #expect(daemon.log.all.allSatisfy { !$0.contains("avisod") }, "nothing has started avisod yet")

            // The first connection starts avisod; avisoctl waits for its answer like for any slow daemon.
            let r = try daemon.ctl(["status", "--json"])
            #expect(r.status == 0, "\(r.stderr)")
            let status = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            #expect(status["version"] as? String != nil)
            _ = try await daemon.log.first { $0.contains("ready; control socket \(daemon.socket) (passed by systemd)") }
            #expect(try daemon.ctl(["add", "--id", "tea", "--in", "1h", "--title", "Tea"]).status == 0)

            // The socket is systemd's: avisod leaves it in place when it stops.
            daemon.signal(SIGTERM)
            #expect(try await daemon.waitForExit() == 0)
            var info = stat()
            #expect(lstat(daemon.socket, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK, "the passed socket is still there")
        }

        @Test func aPassedSocketThatIsNotAListeningStreamIsRefusedSayingSo() async throws {
            let daemon = try DaemonProcess(busAddress: nil)
            try daemon.launchSocketActivated(datagram: true)
            defer { daemon.signal(SIGKILL) }
            _ = try await daemon.log.next { $0.contains("Listening on \(daemon.socket)") }
            // A datagram to the socket starts avisod.
            let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (i, b) in daemon.socket.utf8.enumerated() { raw[i] = b }
            }
            let sent = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, "x", 1, 0, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            #expect(sent == 1)
            let line = try await daemon.log.first { $0.contains("cannot start") }
            #expect(line.contains("not a listening Unix stream socket"), "\(line)")
            #expect(try await daemon.waitForExit() == 1)
        }
    }
}
