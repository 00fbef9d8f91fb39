import AvisoCore
import AvisoTestSupport
import Foundation
import Testing

/// A private bus, optionally a test notification server on it, and a real avisod on that bus.
struct DaemonFixture {
    let bus: DBusSession
    let server: TestNotificationServer?
    let daemon: DaemonProcess

    /// `before` runs once the daemon's directories exist and before it starts (to mount, write or break things).
    static func start(
        server withServer: Bool = true, capabilities: [String]? = nil, serverName: String? = nil, badReplies: Bool = false,
        ignoreReplaces: Bool = false, invokeBeforeReply: String? = nil,
        environment: [String: String] = [:], config: String? = nil, before: ((DaemonProcess) throws -> Void)? = nil
    ) async throws -> DaemonFixture {
        let bus = try DBusSession()
        var server: TestNotificationServer?
        if withServer {
            let s = TestNotificationServer(busAddress: bus.address, capabilities: capabilities, name: serverName,
                                           badReplies: badReplies, ignoreReplaces: ignoreReplaces,
                                           invokeBeforeReply: invokeBeforeReply)
            try await s.start()
            server = s
        }
        let daemon = try DaemonProcess(busAddress: bus.address, environment: environment)
        if let config { try daemon.writeConfig(config) }
        try before?(daemon)
        try await daemon.start()
        return DaemonFixture(bus: bus, server: server, daemon: daemon)
    }

    /// Runs avisoctl and expects exit status 0; returns its standard output.
    @discardableResult
    func ctl(_ args: String..., sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let r = try daemon.ctl(args)
        #expect(r.status == 0, "avisoctl \(args) failed (\(r.status)): \(r.stderr)", sourceLocation: sourceLocation)
        return r.stdout
    }

    /// `avisoctl JSON-verb --json` decoded as an array of objects; throws when the output is anything else, so that
    /// an empty result is a real one.
    func json(_ verb: String) throws -> [[String: Any]] {
        let out = try ctl(verb, "--json")
        guard let array = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]] else {
            throw BusFixtureError("avisoctl \(verb) --json printed no array of objects: \(out)")
        }
        return array
    }

    /// `avisoctl status --json` decoded.
    func status() throws -> [String: Any] {
        let out = try ctl("status", "--json")
        guard let object = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any] else {
            throw BusFixtureError("avisoctl status --json printed no object: \(out)")
        }
        return object
    }

    func stop() {
        daemon.signal(SIGTERM)
        server?.stop()
        bus.stop()
    }
}
