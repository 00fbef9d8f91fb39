/// Where the control socket lives; shared so that daemon and client agree.
public enum SocketPath {
    /// The socket path for a user: `AVISO_SOCKET` if set, else `$XDG_RUNTIME_DIR/aviso/ctl.sock`, else
    /// `/run/user/UID/aviso/ctl.sock` (where systemd puts XDG_RUNTIME_DIR).
    ///
    /// `--socket` on either command line overrides all of these; the caller applies it.
    public static func resolve(environment: [String: String], uid: UInt32) -> String {
        if let explicit = environment["AVISO_SOCKET"], !explicit.isEmpty { return explicit }
        let runtime = environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/run/user/\(uid)"
        return runtime + "/aviso/ctl.sock"
    }
}
