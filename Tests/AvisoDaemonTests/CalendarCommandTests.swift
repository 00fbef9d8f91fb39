import AvisoTestSupport
import Foundation
import Testing

extension Integration {
    /// `avisoctl calendar` beside `systemd-analyze calendar`: the same base time written as systemd takes it, and the
    /// fractions of seconds that systemd computes kept in `--json`.
    struct CalendarCommandTests {
        @Test func epochBaseTimesAndFractionalElapsesAgreeWithSystemd() throws {
            let specs = ["*:*:0/1.1", "*-*-* 07:11:23.42", "Fri *-*-* 07:11:23.5"]
            let env = ["TZ": "UTC", "PATH": "/usr/bin:/bin"]
            let ours = try DaemonProcess.run(Products.path("avisoctl"),
                                             ["calendar", "--json", "--iterations", "3", "--base-time", "@1447398683.42"] + specs,
                                             environment: env)
            #expect(ours.status == 0, "\(ours.stderr)")
            let answers = try #require(try JSONSerialization.jsonObject(with: Data(ours.stdout.utf8)) as? [[String: Any]])
            let next = answers.map { $0["next"] as? [String] ?? [] }
            #expect(next[0] == ["2015-11-13T07:11:24.200000Z", "2015-11-13T07:11:25.300000Z", "2015-11-13T07:11:26.400000Z"])
            #expect(next[1].first == "2015-11-14T07:11:23.420000Z", "23.42 itself is not after the base time")

            // systemd-analyze prints whole seconds: ours, cut to seconds, are its answers.
            let systemd = try DaemonProcess.run("/usr/bin/systemd-analyze",
                                                ["calendar", "--iterations=3", "--base-time=@1447398683.42", "--"] + specs,
                                                environment: env)
            #expect(systemd.status == 0, "\(systemd.stderr)")
            let theirs = systemd.stdout.split(separator: "\n").filter { $0.contains("Next elapse:") || $0.contains("Iter. #") }
                .map { line in String(line.split(separator: " ").suffix(3).prefix(2).joined(separator: "T")) + "Z" }
            let cut = next.flatMap { $0 }.map { String($0.prefix(19)) + "Z" }
            #expect(cut == theirs, "systemd-analyze: \(systemd.stdout)")
        }
    }
}
