import AvisoCore
import AvisoProtocol
import Testing

private let sample = Request(
    id: "tea",
    content: Content(title: "Tea", body: "Steep for 4 min", threadID: "kitchen", relevance: 0.5, level: .timeSensitive,
                     userInfo: ["cups": .number(2), "tags": .array([.string("a"), .null]), "ok": .bool(true)]),
    trigger: .interval(.seconds(240), repeats: false))

private func decode(_ text: String) throws(ReplyError) -> Command {
    try Codec.decodeCommand(Array(text.utf8))
}

private func code(of text: String) -> String? {
    do {
        _ = try decode(text)
        return nil
    } catch {
        return error.code
    }
}

@Suite struct CodecTests {
    @Test(arguments: [
        Command.add(sample), .add(Request(id: "at", content: Content(title: "x"), trigger: .date(WallTime(seconds: 1_800_000_000)))),
        .pending, .remove(.ids(["a", "b"])), .remove(.prefix("med.")), .remove(.all), .delivered,
        .removeDelivered(.ids(["x"])), .fire("tea"), .status, .reload,
    ])
    func everyCommandRoundTripsAsOneLine(command: Command) throws {
        let line = Codec.encode(command)
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(line.dropLast().contains(UInt8(ascii: "\n")) == false, "one request per line")
        #expect(try Codec.decodeCommand(line.dropLast()) == command)
    }

    @Test func handWrittenRequestsDecodeAsDocumented() throws {
        #expect(try decode(#"{"v":1,"op":"fire","id":"tea"}"#) == .fire("tea"))
        #expect(try decode(#"{"v":1,"op":"remove-delivered","prefix":"med."}"#) == .removeDelivered(.prefix("med.")))
        #expect(try decode(#"{"v":1,"op":"add","request":{"id":"w","content":{"title":"Water","subtitle":"","body":"","level":"active","userInfo":{}},"trigger":{"kind":"interval","nanoseconds":5400000000000,"repeats":true}}}"#)
            == .add(Request(id: "w", content: Content(title: "Water"), trigger: .interval(.seconds(5400), repeats: true))))
    }

    @Test(arguments: [
        ("", "malformed"), ("[1,2]", "malformed"), ("{\"v\":1", "malformed"), ("{\"op\":\"status\"}", "unsupported-version"),
        ("{\"v\":2,\"op\":\"status\"}", "unsupported-version"), ("{\"v\":1}", "malformed"),
        ("{\"v\":1,\"op\":\"explode\"}", "unknown-op"), ("{\"v\":1,\"op\":\"add\"}", "malformed"),
        ("{\"v\":1,\"op\":\"remove\"}", "malformed"), ("{\"v\":1,\"op\":\"remove\",\"ids\":[]}", "malformed"),
        ("{\"v\":1,\"op\":\"remove\",\"ids\":[\"a\"],\"all\":true}", "malformed"),
        ("{\"v\":\"1\",\"op\":\"status\"}", "malformed"),
    ])
    func badRequestsGetAStableCode(text: String, expected: String) {
        #expect(code(of: text) == expected)
    }

    @Test func unsupportedVersionSaysWhichVersionTheDaemonSpeaks() {
        do {
            _ = try decode(#"{"v":7,"op":"status"}"#)
            Issue.record("version 7 was accepted")
        } catch {
            #expect(error.message.contains("7"))
            #expect(error.message.contains("\(protocolVersion)"))
        }
    }

    @Test func repliesRoundTripForTheirCommand() throws {
        let status = StatusInfo(
            version: "0.1", uptimeSeconds: 12.5, armed: 3, total: 70, window: 64, nextFire: "2026-12-01T08:00:00Z",
            nextID: "tea", server: ServerInfo(name: "dunst", vendor: "knopwob", version: "1.9", specVersion: "1.2",
                                              capabilities: ["body", "actions"]),
            waiting: 1, waitingReason: "no notification server", configErrors: [ConfigProblem(file: "a.conf", line: 3, message: "bad")])
        let pending = PendingItem(id: "tea", title: "Tea", body: "", next: "2026-12-01T08:00:00Z", trigger: "in 4min",
                                  clock: .boottime, request: sample)
        let delivered = DeliveredItem(id: "tea", title: "Tea", body: "b", delivered: "2026-12-01T08:00:00Z", serverID: 9, onScreen: true)
        let cases: [(Command, Reply)] = [
            (.add(sample), .ok(.added("tea"))), (.fire("tea"), .ok(.fired("tea"))), (.pending, .ok(.pending([pending]))),
            (.remove(.all), .ok(.removed(["a", "b"]))), (.delivered, .ok(.delivered([delivered]))),
            (.status, .ok(.status(status))), (.reload, .ok(.reloaded([ConfigProblem(file: "f", line: nil, message: "m")]))),
            (.status, .error(ReplyError(code: "internal", message: "disk full"))),
        ]
        for (command, reply) in cases {
            let line = Codec.encode(reply)
            #expect(line.last == UInt8(ascii: "\n"))
            #expect(try Codec.decodeReply(line.dropLast(), to: command) == reply)
        }
    }

    @Test func anErrorReplyHasTheDocumentedShape() throws {
        let line = String(decoding: Codec.encode(Reply.error(ReplyError(code: "permission", message: "no"))), as: UTF8.self)
        #expect(line == #"{"error":{"code":"permission","message":"no"},"ok":false,"v":1}"# + "\n")
    }

    @Test func aReplyMissingItsResultIsMalformed() {
        #expect(throws: ReplyError.self) { try Codec.decodeReply(Array(#"{"v":1,"ok":true}"#.utf8), to: .fire("x")) }
        #expect(throws: ReplyError.self) { try Codec.decodeReply(Array("garbage".utf8), to: .status) }
    }

    @Test func arbitraryBytesNeverTrap() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for length in 0..<400 {
            var bytes: [UInt8] = []
            for _ in 0..<length {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                bytes.append(UInt8(truncatingIfNeeded: state >> 33))
            }
            _ = try? Codec.decodeCommand(bytes)
            _ = try? Codec.decodeReply(bytes, to: .status)
        }
        // Valid JSON with hostile shapes.
        for text in [#"{"v":1,"op":"add","request":{"id":1}}"#, #"{"v":1e999,"op":"status"}"#, #"{"v":-1}"#,
                     String(repeating: "[", count: 10_000)] {
            #expect(code(of: text) != nil)
        }
    }
}
