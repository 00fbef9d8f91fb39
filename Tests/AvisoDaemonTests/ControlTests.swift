import AvisoTestSupport
import Foundation
import Glibc
import Testing

extension Integration {
    /// avisoctl's verbs and exit codes against a real daemon, and the daemon's resilience to bad socket input.
    @Suite(.timeLimit(.minutes(2)))
    struct ControlTests {
        @Test func addingAnExistingIdentifierReplacesIt() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            try f.ctl("add", "--id", "dup", "--in", "1h", "--title", "Old")
            try f.ctl("add", "--id", "dup", "--in", "2h", "--title", "New")
            let pending = try f.json("pending")
            #expect(pending.count == 1)
            #expect(pending.first?["title"] as? String == "New")
        }

        @Test func removeByIdPrefixAndAll() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            for id in ["a1", "a2", "b1", "c1"] { try f.ctl("add", "--id", id, "--in", "1h", "--title", id) }
            #expect(try f.ctl("remove", "b1") == "b1\n")
            #expect(try f.ctl("remove", "--prefix", "a") == "a1\na2\n")
            #expect(try f.json("pending").map { $0["id"] as? String } == ["c1"])
            #expect(try f.ctl("remove", "--all") == "c1\n")
            #expect(try f.json("pending").isEmpty)
        }

        @Test func removingAnUnknownIdentifierIsRefusedAndChangesNothing() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            try f.ctl("add", "--id", "keep", "--in", "1h", "--title", "Keep")
            let r = try f.daemon.ctl(["remove", "keep", "ghost"])
            #expect(r.status == 1)
            #expect(r.stderr.contains("'ghost'"))
            #expect(try f.json("pending").map { $0["id"] as? String } == ["keep"])
        }

        @Test(arguments: [
            (["add", "--in", "10min"], "title"),
            (["add", "--title", "x", "--in", "30s", "--repeat"], "60"),
            (["add", "--title", "x", "--in", "10min", "--relevance", "1.5"], "relevance"),
            (["add", "--title", "x", "--at", "2001-01-01 09:00"], "past"),
            (["add", "--title", "x", "--in", "10min", "--image", "/no/such/image.png"], "/no/such/image.png"),
            (["add", "--title", "x", "--in", "10min", "--id", "bad\u{7}id"], "control"),
            (["add", "--title", "x", "--in", "10min", "--id", String(repeating: "i", count: 256)], "255"),
        ])
        func invalidRequestsAreRefusedWithAReason(args: [String], mentions: String) async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            let r = try f.daemon.ctl(args)
            #expect(r.status == 1, "\(args): \(r.stderr)")
            #expect(r.stderr.lowercased().contains(mentions), "\(args): \(r.stderr)")
            #expect(try f.json("pending").isEmpty)
        }

        @Test(arguments: [
            ["add", "--title", "x"],
            ["add", "--title", "x", "--in", "7mn"],
            ["add", "--title", "x", "--in", "1h", "--at", "2030-01-01 09:00"],
            ["add", "--title", "x", "--in", "1h", "--level", "loud"],
            ["add", "--title", "x", "--in", "1h", "--relevance", "nan"],
            ["add", "--title", "x", "--at", "2030-13-01 09:00"],
            ["add", "--title", "x", "--at", "2030-01-01 09:00 Mars/Olympus"],
            ["add", "--bogus"],
            ["remove"],
            ["frobnicate"],
        ])
        func usageErrorsExitWith2(args: [String]) async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            let r = try f.daemon.ctl(args)
            #expect(r.status == 2, "\(args): \(r.stderr)")
            #expect(!r.stderr.isEmpty)
        }

        @Test func anUnreachableDaemonExitsWith3AndSaysHowToStartIt() throws {
            let r = try DaemonProcess.run(Products.path("avisoctl"), ["--socket", "/nonexistent/aviso.sock", "pending"])
            #expect(r.status == 3)
            #expect(r.stderr.contains("systemctl --user start aviso.service"))
        }

        @Test func everyCommandHasHelp() throws {
            for verb in ["add", "pending", "remove", "delivered", "remove-delivered", "fire", "status", "reload"] {
                let r = try DaemonProcess.run(Products.path("avisoctl"), [verb, "--help"])
                #expect(r.status == 0)
                #expect(r.stdout.contains("Usage: avisoctl \(verb)"))
            }
        }

        @Test func malformedAndOversizedInputGetErrorsAndTheDaemonKeepsServing() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            #expect(try RawClient.exchange(f.daemon.socket, Array("{not json\n".utf8)).contains("\"malformed\""))
            #expect(try RawClient.exchange(f.daemon.socket, [0xff, 0xfe, 0x0a]).contains("\"ok\":false"))
            #expect(try RawClient.exchange(f.daemon.socket, Array("{\"v\":1,\"op\":\"explode\"}\n".utf8)).contains("unknown-op"))
            #expect(try RawClient.exchange(f.daemon.socket, Array("{\"v\":9,\"op\":\"status\"}\n".utf8)).contains("unsupported-version"))
            let huge = [UInt8](repeating: UInt8(ascii: "a"), count: 2 << 20) + [10]
            #expect(try RawClient.exchange(f.daemon.socket, huge).contains("too-large"))
            try f.ctl("add", "--id", "after", "--in", "1h", "--title", "Still alive")
            #expect(try f.json("pending").map { $0["id"] as? String } == ["after"])
        }
    }
}

/// Writes raw bytes to the control socket and reads one reply line.
enum RawClient {
    /// A connected socket; the caller closes it.
    static func connect(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let p = Array(path.utf8)
            raw.copyBytes(from: p)
            raw[p.count] = 0
        }
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard ok == 0 else {
            let e = errno
            close(fd)
            throw BusFixtureError("connect failed: errno \(e)")
        }
        return fd
    }

    static func exchange(_ path: String, _ bytes: [UInt8]) throws -> String {
        let fd = try connect(path)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { break }  // the daemon may close early on an oversized line; its reply is still readable
            sent += n
        }
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !reply.contains(10) {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            reply += buffer[0..<n]
        }
        return String(decoding: reply, as: UTF8.self)
    }
}
