import AvisoCore
import AvisoTestSupport
import Foundation
import Testing

extension Integration {
    /// Images given with notifications: checked when given, copied where aviso keeps them, the copy handed to the
    /// server, and deleted when nothing refers to it any more.
    @Suite(.timeLimit(.minutes(2)))
    struct AttachmentTests {
        /// A 1×1 PNG.
        static let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")!

        static func copies(_ f: DaemonFixture) -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: f.daemon.stateDirectory + "/attachments")) ?? []).sorted()
        }

        @Test func aPNGIsCopiedTheOriginalMayVanishAndTheCopyGoesWhenThePopupCloses() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            let original = f.daemon.directory + "/photo.png"
            try Self.png.write(to: URL(fileURLWithPath: original))
            try f.ctl("add", "--id", "pic", "--in", "1s", "--title", "Picture", "--image", original)
            let copies = Self.copies(f)
            #expect(copies.count == 1 && copies[0].hasSuffix(".png"), "\(copies)")
            let copy = f.daemon.stateDirectory + "/attachments/" + (copies.first ?? "")
            #expect(FileManager.default.contents(atPath: copy) == Self.png)
            try FileManager.default.removeItem(atPath: original)

            let n = try await f.server!.next("notify")
            #expect(n.hints?["image-path"] == .string(copy))
            #expect(FileManager.default.fileExists(atPath: copy), "kept while the popup is on screen")
            _ = try await f.daemon.log.next { $0.contains("delivered 'pic'") }
            f.server!.close(id: try #require(n.id), reason: 2)
            _ = try await f.daemon.log.next { $0.contains("notification 'pic' closed") }
            #expect(Self.copies(f).isEmpty, "the copy is deleted once its popup has gone: \(Self.copies(f))")
        }

        @Test func aTextFileNamedPNGIsRefusedAtAddWithAClearError() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            let fake = f.daemon.directory + "/notes.png"
            try "just words\n".write(toFile: fake, atomically: true, encoding: .utf8)
            let r = try f.daemon.ctl(["add", "--in", "1h", "--title", "Fake", "--image", fake])
            #expect(r.status == 1)
            #expect(r.stderr.contains("image '\(fake)' is not an image in a format gdk-pixbuf recognises"), "\(r.stderr)")
            #expect(try f.json("pending").isEmpty)
            #expect(Self.copies(f).isEmpty)
        }

        @Test func oneCopyServesTwoRequestsAndGoesWithTheLastOfThem() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            let original = f.daemon.directory + "/shared.png"
            try Self.png.write(to: URL(fileURLWithPath: original))
            try f.ctl("add", "--id", "a", "--in", "1h", "--title", "A", "--image", original)
            try f.ctl("add", "--id", "b", "--in", "1h", "--title", "B", "--image", original)
            #expect(Self.copies(f).count == 1)
            try f.ctl("remove", "a")
            #expect(Self.copies(f).count == 1, "b still shows it")
            try f.ctl("remove", "b")
            #expect(Self.copies(f).isEmpty)
        }

        @Test func aHooksInvalidImageIsDroppedAndTheRestShown() async throws {
            let f = try await HookTests.start([("pics", """
                #!/bin/sh
                printf 'not a picture' > "$(dirname "$0")/fake.png"
                echo "{\\"body\\": \\"with a bad picture\\", \\"image\\": \\"$(dirname "$0")/fake.png\\"}"
                """, "")])
            defer { f.stop() }
            let original = f.daemon.directory + "/photo.png"
            try Self.png.write(to: URL(fileURLWithPath: original))
            try f.ctl("add", "--id", "h", "--in", "100ms", "--title", "Hooked", "--category", "pics", "--image", original)
            let n = try await f.server!.next("notify")
            #expect(n.body == "with a bad picture")
            let kept = try #require(Self.copies(f).first)
            #expect(n.hints?["image-path"] == .string(f.daemon.stateDirectory + "/attachments/" + kept), "the request's own image stays")
            #expect(f.daemon.log.all.contains { $0.contains("'h': the content hook's image") && $0.contains("is not an image") })
        }

        @Test func aHooksImageIsCopiedAndShown() async throws {
            let f = try await HookTests.start([("drawn", """
                #!/bin/sh
                echo "{\\"image\\": \\"$(dirname "$0")/drawn.png\\"}"
                """, "")])
            defer { f.stop() }
            try Self.png.write(to: URL(fileURLWithPath: f.daemon.directory + "/drawn.png"))
            try f.ctl("add", "--id", "d", "--in", "100ms", "--title", "Drawn", "--category", "drawn")
            let n = try await f.server!.next("notify")
            let copy = try #require(Self.copies(f).first)
            #expect(n.hints?["image-path"] == .string(f.daemon.stateDirectory + "/attachments/" + copy))
        }
    }
}
