import Glibc
import TestBusServerKit

// aviso-test-logind: a scriptable stand-in for systemd-logind's Manager on a test system bus.
// Usage: aviso-test-logind   (the bus is the one in DBUS_SYSTEM_BUS_ADDRESS)
// Stdin: `sleep` emits PrepareForSleep(true), `resume` PrepareForSleep(false), `lock`/`unlock` set the session's
// LockedHint, `quit` (or end of input) exits.
// Stdout: one JSON object per line: ready, inhibit, released, sleep, resume, get-user, locked, unlocked, lost, error.

if CommandLine.arguments.count > 1 {
    EventLine.write("aviso-test-logind: takes no arguments; it serves the bus in DBUS_SYSTEM_BUS_ADDRESS", to: 2)
    exit(2)
}
// A client closing its end of a pipe we still write to must not kill the server.
signal(SIGPIPE, SIG_IGN)
let server = LogindServer()
exit(server.run())
