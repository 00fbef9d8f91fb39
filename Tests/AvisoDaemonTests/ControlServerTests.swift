import AvisoDaemon
import AvisoProtocol
import Foundation
import Testing

/// Runs blocking socket calls on their own thread: parking the few cooperative threads in `recv` could starve the
/// server's handler tasks, which need one.
private func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

/// A blocking test client; every read gives up after 5 seconds, the failure bound of these tests.
private final class Client: @unchecked Sendable {
    let fd: Int32
    private var pending: [UInt8] = []

    init?(_ path: String) {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if rc != 0 {
            close(fd)
            return nil
        }
    }

    deinit { close(fd) }

    /// Sends everything it can; false once the server closed the connection.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    /// The next line without its newline; nil at end of stream or after the timeout.
    func readLine() -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                defer { pending.removeSubrange(...newline) }
                return Array(pending[..<newline])
            }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if n <= 0 { return nil }
            pending += chunk[..<n]
        }
    }

    /// Whether the server closed the connection before the timeout: end of stream, or a reset when the server
    /// closed with our unread bytes still queued (what closing on an oversized line does).
    func isClosedByServer() -> Bool {
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, 0)
        return n == 0 || (n < 0 && errno == ECONNRESET)
    }
}

/// A server on a fresh socket path whose handler answers `fire(id)` with `fired(id)` and everything else with an
/// empty pending list.
private struct Fixture {
    let directory: String
    let path: String
    let server: ControlServer

    init(limits: ControlServer.Limits = .init()) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("aviso-ctl-\(UUID().uuidString.prefix(8))").path
        path = directory + "/run/aviso/control.sock"
        server = ControlServer(path: path, limits: limits)
        try server.start { command in
            if case .fire(let id) = command { return .reply(.ok(.fired(id))) }
            return .reply(.ok(.pending([])))
        }
    }

    func tearDown() {
        server.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Sends each line on one connection and collects one reply line per request.
    func exchange(_ lines: [[UInt8]]) async -> [[UInt8]?] {
        let path = self.path
        return await offPool {
            guard let client = Client(path) else { return lines.map { _ in nil } }
            return lines.map { line in client.send(line) ? client.readLine() : nil }
        }
    }

    /// A full round trip on a new connection: proves the server still serves.
    func servesAnotherClient() async -> Bool {
        let reply = await exchange([Codec.encode(Command.fire("ping"))]).first ?? nil
        guard let reply else { return false }
        return (try? Codec.decodeReply(reply, to: .fire("ping"))) == .ok(.fired("ping"))
    }
}

private func errorCode(_ line: [UInt8]?) -> String? {
    guard let line, case .error(let e)? = try? Codec.decodeReply(line, to: .status) else { return nil }
    return e.code
}

private func errorMessage(_ line: [UInt8]?) -> String {
    guard let line, case .error(let e)? = try? Codec.decodeReply(line, to: .status) else { return "" }
    return e.message
}

extension Integration {
    @Suite struct ControlServerTests {
        @Test func aRequestGetsTheHandlersReplyAndTheConnectionStaysOpen() async throws {
            let fixture = try Fixture()
            defer { fixture.tearDown() }
            let replies = await fixture.exchange([Codec.encode(Command.fire("tea")), Codec.encode(Command.fire("coffee"))])
            #expect(try Codec.decodeReply(#require(replies[0]), to: .fire("tea")) == .ok(.fired("tea")))
            #expect(try Codec.decodeReply(#require(replies[1]), to: .fire("coffee")) == .ok(.fired("coffee")))
        }

        @Test(arguments: [
            ("not json at all", "malformed"),
            (#"{"v":1,"op":"dance"}"#, "unknown-op"),
            (#"{"op":"status"}"#, "unsupported-version"),
            (#"{"v":1,"op":"fire"}"#, "malformed"),
        ])
        func aBadRequestGetsItsErrorAndTheServerGoesOn(line: String, code: String) async throws {
            let fixture = try Fixture()
            defer { fixture.tearDown() }
            let replies = await fixture.exchange([Array(line.utf8) + [10], Codec.encode(Command.fire("after"))])
            #expect(errorCode(replies[0]) == code, "\(errorMessage(replies[0]))")
            #expect(try Codec.decodeReply(#require(replies[1]), to: .fire("after")) == .ok(.fired("after")),
                    "the same connection serves the next line")
            #expect(await fixture.servesAnotherClient())
        }

        @Test func nonUTF8IsMalformedAndSaysSo() async throws {
            let fixture = try Fixture()
            defer { fixture.tearDown() }
            let replies = await fixture.exchange([[0x7B, 0xFF, 0xFE, 0x80, 0x7D, 0x0A], Codec.encode(Command.fire("next"))])
            #expect(errorCode(replies[0]) == "malformed")
            #expect(errorMessage(replies[0]).contains("UTF-8"))
            #expect(try Codec.decodeReply(#require(replies[1]), to: .fire("next")) == .ok(.fired("next")))
        }

        @Test func anOversizedLineIsRefusedAndItsConnectionClosed() async throws {
            let fixture = try Fixture()
            defer { fixture.tearDown() }
            let path = fixture.path
            let (reply, closed) = await offPool { () -> ([UInt8]?, Bool) in
                guard let client = Client(path) else { return (nil, false) }
                let huge = #"{"v":1,"op":"fire","id":""# + String(repeating: "x", count: 2 << 20) + "\"}\n"
                client.send(Array(huge.utf8))  // the server stops reading halfway, so this may fail: fine
                return (client.readLine(), client.isClosedByServer())
            }
            #expect(errorCode(reply) == "too-large", "\(errorMessage(reply))")
            #expect(closed)
            #expect(await fixture.servesAnotherClient())
        }

        @Test func aStalledClientDoesNotBlockOthers() async throws {
            let fixture = try Fixture()
            defer { fixture.tearDown() }
            let stalled = try #require(Client(fixture.path))
            stalled.send(Array(#"{"v":1,"op":"fi"#.utf8))
            let silent = try #require(Client(fixture.path))  // connected, says nothing
            #expect(await fixture.servesAnotherClient())
            // The stalled request still completes once the rest of the line arrives.
            let reply = await offPool { () -> [UInt8]? in
                stalled.send(Array(#"re","id":"late"}"#.utf8) + [10])
                return stalled.readLine()
            }
            #expect(try Codec.decodeReply(#require(reply), to: .fire("late")) == .ok(.fired("late")))
            _ = silent
        }

        @Test func aClientThatSendsNoCompleteRequestInTimeIsToldAndClosed() async throws {
            var limits = ControlServer.Limits()
            limits.requestTimeoutMilliseconds = 200
            let fixture = try Fixture(limits: limits)
            defer { fixture.tearDown() }
            let silent = try #require(Client(fixture.path))
            let partial = try #require(Client(fixture.path))
            partial.send(Array(#"{"v":1,"op":"fi"#.utf8))
            let (first, second) = await offPool { (silent.readLine(), partial.readLine()) }
            #expect(errorCode(first) == "timeout", "\(errorMessage(first))")
            #expect(errorMessage(second).contains("no complete request within"))
            #expect(await offPool { silent.isClosedByServer() && partial.isClosedByServer() })
            #expect(await fixture.servesAnotherClient())
        }

        @Test func atItsLimitTheLongestIdleConnectionMakesRoomForANewClient() async throws {
            var limits = ControlServer.Limits()
            limits.maximumConnections = 4
            let fixture = try Fixture(limits: limits)
            defer { fixture.tearDown() }
            let idle = (0..<4).compactMap { _ in Client(fixture.path) }
            #expect(idle.count == 4)
            // A round trip on each proves all four are held (their order of waiting is the order they were answered).
            for c in idle {
                #expect(await offPool { c.send(Codec.encode(Command.fire("hold"))) && c.readLine() != nil })
            }
            #expect(await fixture.servesAnotherClient(), "a fifth client is served")
            let evicted = await offPool { idle[0].readLine() }
            #expect(errorCode(evicted) == "timeout" && errorMessage(evicted).contains("to make room"), "\(errorMessage(evicted))")
            #expect(await offPool { idle[1].send(Codec.encode(Command.fire("still"))) && idle[1].readLine() != nil },
                    "the others are still served")
        }

        @Test func theSocketIsPrivateToTheUser() throws {
            let fixture = try Fixture()
            defer { fixture.tearDown() }
            var info = stat()
            #expect(stat(fixture.path, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o600)
            #expect(stat((fixture.path as NSString).deletingLastPathComponent, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o700)
        }

        @Test func aSecondDaemonOnTheSamePathIsRefused() async throws {
            let fixture = try Fixture()
            defer { fixture.tearDown() }
            let second = ControlServer(path: fixture.path)
            let error = #expect(throws: SystemError.self) { try second.bind() }
            #expect(error?.description.contains("another avisod is running on \(fixture.path)") == true)
            #expect(await fixture.servesAnotherClient(), "the first daemon keeps its socket")
        }

        @Test func aStaleSocketFileIsReplacedAndStopRemovesTheSocket() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("aviso-ctl-\(UUID().uuidString.prefix(8))").path
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let path = directory + "/control.sock"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            // A socket file nobody listens on: what a killed daemon leaves behind.
            let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(stale, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            close(stale)
            #expect(bound == 0)

            let server = ControlServer(path: path)
            try server.start { _ in .reply(.ok(.fired("x"))) }
            let connected = await offPool { Client(path) != nil }
            #expect(connected)
            server.stop()
            #expect(!FileManager.default.fileExists(atPath: path))
        }

        @Test func stopEndsOpenConnections() async throws {
            let fixture = try Fixture()
            let client = try #require(Client(fixture.path))
            // One answered request proves the server holds this connection (not just the kernel's backlog).
            let answered = await offPool { client.send(Codec.encode(Command.fire("a"))) && client.readLine() != nil }
            #expect(answered)
            fixture.tearDown()
            let closed = await offPool { client.isClosedByServer() }
            #expect(closed)
        }

        @Test func anotherUserIsRefused() async throws {
            guard getuid() == 0 else {
                print("skipped: connecting as another uid needs root (setpriv --reuid=65534)")
                return
            }
            let fixture = try Fixture()
            defer { fixture.tearDown() }
            // Let uid 65534 reach the socket, so that only the server's own check can stop it.
            for (dir, mode) in [(fixture.directory, 0o755), (fixture.directory + "/run", 0o755), (fixture.directory + "/run/aviso", 0o755)] {
                #expect(chmod(dir, mode_t(mode)) == 0)
            }
            #expect(chmod(fixture.path, 0o666) == 0)
            let script = """
                import socket, sys
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.settimeout(5)
                s.connect(sys.argv[1])
                try:
                    s.sendall(b'{"v":1,"op":"status"}\\n')
                except OSError:
                    pass  # the server may refuse before reading; its error line is still waiting to be read
                data = b''
                while not data.endswith(b'\\n'):
                    chunk = s.recv(4096)
                    if not chunk: break
                    data += chunk
                sys.stdout.write(data.decode())
                """
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script, fixture.path]
            let output = Pipe()
            let errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            let data = await offPool { output.fileHandleForReading.readDataToEndOfFile() }
            let diagnostics = await offPool { errors.fileHandleForReading.readDataToEndOfFile() }
            process.waitUntilExit()
            let line = Array(data).split(separator: 10).first.map(Array.init)
            #expect(errorCode(line) == "permission",
                    "got: \(String(decoding: data, as: UTF8.self)) \(String(decoding: diagnostics, as: UTF8.self))")
            #expect(await fixture.servesAnotherClient())
        }
    }
}
