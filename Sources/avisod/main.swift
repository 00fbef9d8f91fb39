import AvisoDaemon
import Dispatch
import FoundationEssentials
import Glibc

// avisod: the composition root only.
// Signals are blocked before any other thread exists: this file has no top-level `await`, so it runs synchronously
// on the main thread and the threads that run tasks, started just below, inherit the mask. The main
// thread then parks on a semaphore rather than in dispatchMain(), which would unblock the signals on it.
let signals = Signals([SIGTERM, SIGINT, SIGHUP])
// Tasks run on aviso's own threads, which block until there is work (no once-a-second pool monitor).
if !TaskThreads.install() { fail("cannot start the threads that run tasks") }
// A closed stderr or a peer gone mid-write, and a write past a file-size limit, are errors to handle, not reasons to die.
signal(SIGPIPE, SIG_IGN)
signal(SIGXFSZ, SIG_IGN)

let help = """
    Usage: avisod [--socket PATH] [--config FILE] [--state-dir DIR]

    The aviso notification scheduler daemon. Run it as a systemd user service (aviso.service) or in a terminal.

      --socket PATH     Control socket (default: $AVISO_SOCKET, else $XDG_RUNTIME_DIR/aviso/ctl.sock)
      --config FILE     Configuration (default: $XDG_CONFIG_HOME/aviso/aviso.conf)
      --state-dir DIR   Where the request database lives (default: $XDG_STATE_HOME/aviso)
      --version         Print the version
      -h, --help        Show this help
    """

var options = DaemonOptions.defaults(environment: ProcessInfo.processInfo.environment)

func fail(_ message: String) -> Never {
    let line = Array("avisod: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(2)
}

var args = Array(CommandLine.arguments.dropFirst())[...]
while let arg = args.popFirst() {
    func value() -> String {
        guard let v = args.popFirst() else { fail("option '\(arg)' needs a value") }
        return v
    }
    switch arg {
    case "-h", "--help": print(help); exit(0)
    case "--version": print("avisod \(Daemon.version)"); exit(0)
    case "--socket": options.socket = value()
    case "--config": options.configFile = value()
    case "--state-dir": options.stateDirectory = value()
    default: fail("unknown argument '\(arg)' (see 'avisod --help')")
    }
}

let chosen = options
Task.detached { exit(await Daemon.run(chosen, signals: signals)) }
DispatchSemaphore(value: 0).wait()
