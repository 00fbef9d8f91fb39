import AvisoTestSupport
import Foundation
import Testing

extension Integration {
    /// The man pages in doc/ (scdoc): they build, man renders them without a warning, and avisoctl(1) has every command.
    struct ManPageTests {
        static let doc = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("doc").path

        @Test(arguments: ["avisoctl.1", "avisod.8", "aviso.conf.5"])
        func thePageBuildsAndRendersWithoutWarnings(page: String) throws {
            let out = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID().uuidString)-\(page)").path
            defer { try? FileManager.default.removeItem(atPath: out) }
            let built = try DaemonProcess.run("/bin/sh", ["-c", "scdoc < \"$1\" > \"$2\"", "sh", "\(Self.doc)/\(page).scd", out])
            #expect(built.status == 0, "scdoc: \(built.stderr)")
            let shown = try DaemonProcess.run("/usr/bin/man", ["--warnings", "-l", out],
                                              environment: ["MANWIDTH": "80", "LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"])
            #expect(shown.status == 0)
            #expect(shown.stderr.isEmpty, "man --warnings: \(shown.stderr)")
            #expect(shown.stdout.contains("NAME"))
        }

        @Test func avisoctlsPageHasEveryCommand() throws {
            let page = try String(contentsOfFile: Self.doc + "/avisoctl.1.scd", encoding: .utf8)
            let verbs = try CompletionTests.avisoctlVerbs()
            #expect(verbs.count > 15)
            for verb in verbs { #expect(page.contains("\n*\(verb)*"), "avisoctl(1) lacks '\(verb)'") }
        }
    }
}
