import AvisoTestSupport
import Foundation
import Testing

extension Integration {
    /// The shell completions in completions/: they load in bash, zsh and fish, complete verbs and flags, and offer the
    /// daemon's own identifiers where an argument is one.
    @Suite(.timeLimit(.minutes(2)))
    struct CompletionTests {
        static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("completions").path
        /// avisoctl of this build first on PATH.
        static var path: String {
            (Products.path("avisoctl") as NSString).deletingLastPathComponent + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        }

        /// What bash's completion function offers for `line`, the cursor at its end.
        static func bash(_ line: String) throws -> [String] {
            let script = """
                source \(directory)/avisoctl.bash
                read -ra COMP_WORDS <<< "$1"
                [[ $1 == *" " ]] && COMP_WORDS+=("")
                COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
                _avisoctl
                printf '%s\\n' "${COMPREPLY[@]}"
                """
            let r = try DaemonProcess.run("/bin/bash", ["-c", script, "bash", line], environment: ["PATH": path])
            #expect(r.status == 0, "\(r.stderr)")
            return r.stdout.split(separator: "\n").map(String.init).filter { !$0.isEmpty }.sorted()
        }

        /// What fish offers for `line` (candidates without their descriptions).
        static func fish(_ line: String, socket: String? = nil) throws -> [String] {
            var env = ["PATH": path, "HOME": NSTemporaryDirectory()]
            env["AVISO_SOCKET"] = socket
            let r = try DaemonProcess.run("/usr/bin/fish", ["--no-config", "-c", "source \(directory)/avisoctl.fish; complete -C '\(line)'"],
                                          environment: env)
            #expect(r.status == 0, "\(r.stderr)")
            return r.stdout.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }.sorted()
        }

        @Test func everyShellLoadsItsCompletion() throws {
            for (shell, file) in [("/bin/bash", "avisoctl.bash"), ("/usr/bin/zsh", "_avisoctl"), ("/usr/bin/fish", "avisoctl.fish")] {
                let r = try DaemonProcess.run(shell, ["-n", Self.directory + "/" + file])
                #expect(r.status == 0 && r.stderr.isEmpty, "\(shell) -n \(file): \(r.stderr)")
            }
        }

        @Test func verbsAndFlagsAreCompleted() throws {
            #expect(try Self.bash("avisoctl rem") == ["remove", "remove-delivered"])
            #expect(try Self.fish("avisoctl rem") == ["remove", "remove-delivered"])
            #expect(try Self.bash("avisoctl add --lev") == ["--level"])
            #expect(try Self.bash("avisoctl add --level t") == ["time-sensitive"])
            #expect(try Self.bash("avisoctl quiet o") == ["off", "on"])
            // Every verb of `avisoctl --help` is offered, and nothing else.
            let verbs = try Self.avisoctlVerbs()
            #expect(try Self.bash("avisoctl ") == (verbs + ["help"]).sorted())
            #expect(try Self.fish("avisoctl ") == (verbs + ["help"]).sorted())
        }

        @Test func identifiersComeFromTheDaemon() async throws {
            let f = try await DaemonFixture.start()
            defer { f.stop() }
            try f.ctl("add", "--id", "tea", "--in", "1h", "--title", "Tea")
            try f.ctl("add", "--id", "team-call", "--in", "2h", "--title", "Call")
            try f.ctl("add", "--id", "bins", "--in", "3h", "--title", "Bins")
            let socket = f.daemon.socket
            #expect(try Self.bash("avisoctl --socket \(socket) remove te") == ["tea", "team-call"])
            #expect(try Self.bash("avisoctl --socket \(socket) fire ") == ["bins", "tea", "team-call"])
            #expect(try Self.fish("avisoctl remove te", socket: socket) == ["tea", "team-call"])
        }

        /// The commands `avisoctl --help` lists, in its order.
        static func avisoctlVerbs() throws -> [String] {
            let help = try DaemonProcess.run(Products.path("avisoctl"), ["--help"]).stdout
            let commands = help.components(separatedBy: "Commands:")[1].components(separatedBy: "Options:")[0]
            return commands.split(separator: "\n").compactMap { line -> String? in
                line.hasPrefix("  ") && !line.hasPrefix("   ") ? line.split(separator: " ").first.map(String.init) : nil
            }
        }
    }
}
