internal import CSystemd
import Glibc

/// The control socket systemd passes under socket activation (`aviso.socket`, or `systemd-socket-activate`).
public enum SocketActivation {
    /// The listening socket passed with `LISTEN_FDS`/`LISTEN_PID`, nil when none was passed (the daemon then makes
    /// its own). The variables are removed, so the programs actions start do not think they were passed sockets.
    ///
    /// Throws when what was passed is not a listening Unix stream socket: a unit that passes the wrong thing is a
    /// mistake to report, not to work around.
    public static func passedListener() throws(SystemError) -> Int32? {
        let count = sd_listen_fds(1)
        guard count > 0 else { return nil }
        let fd = SD_LISTEN_FDS_START
        for extra in 1..<count { close(fd + extra) }
        if count > 1 { Log.warning("systemd passed \(count) sockets; the first is the control socket, the others are closed") }
        guard sd_is_socket_unix(fd, Int32(SOCK_STREAM.rawValue), 1, nil, 0) > 0 else {
            close(fd)
            throw SystemError(refusing: "the socket systemd passed (LISTEN_FDS) is not a listening Unix stream socket; "
                + "check ListenStream= in aviso.socket")
        }
        return fd
    }
}
