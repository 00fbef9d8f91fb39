import AvisoTestSupport
import Foundation
import Testing

extension Integration {
    /// The shipped user unit is one systemd accepts, pointing at the avisod that `make install` puts in ~/.local/bin.
    struct UnitFileTests {
        static let unit = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("systemd/aviso.service").path

        @Test func systemdAnalyzeVerifiesTheUserUnit() throws {
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("aviso-home-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: home) }
            try FileManager.default.createDirectory(atPath: home + "/.local/bin", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: home + "/run", withIntermediateDirectories: true)
            chmod(home + "/run", 0o700)
            try FileManager.default.createSymbolicLink(atPath: home + "/.local/bin/avisod", withDestinationPath: Products.path("avisod"))
            var env = ProcessInfo.processInfo.environment
            env["HOME"] = home
            env["XDG_RUNTIME_DIR"] = home + "/run"
            let socketUnit = (Self.unit as NSString).deletingLastPathComponent + "/aviso.socket"
            let r = try DaemonProcess.run("/usr/bin/systemd-analyze", ["--user", "verify", Self.unit, socketUnit], environment: env)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.isEmpty, "\(r.stderr)")
            let text = try String(contentsOfFile: Self.unit, encoding: .utf8)
            for line in ["Type=notify", "WatchdogSec=", "Restart=on-failure", "ExecReload=", "Also=aviso.socket"] {
                #expect(text.contains(line))
            }
            let socket = try String(contentsOfFile: socketUnit, encoding: .utf8)
            for line in ["ListenStream=%t/aviso/ctl.sock", "SocketMode=0600", "DirectoryMode=0700"] { #expect(socket.contains(line)) }
        }
    }
}
