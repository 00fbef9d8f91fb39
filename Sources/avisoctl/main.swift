import AvisoProtocol
import Glibc

/// avisoctl: a thin client for avisod. One file per verb; this file only dispatches.
let version = "0.1.0"

// A parent may have started us with signals blocked (threads of many runtimes block them and children inherit the
// mask): `events --follow` must still end on Ctrl-C or SIGTERM.
var unblocked = sigset_t()
sigemptyset(&unblocked)
sigprocmask(SIG_SETMASK, &unblocked, nil)

struct Context {
    var socket: String
    func send(_ command: Command) -> ReplyResult { Output.result(Connection.send(command, to: socket)) }
}

let usage = """
    Usage: avisoctl [--socket PATH] COMMAND [OPTIONS]

    Schedule and manage desktop notifications delivered by avisod.

    Commands:
      add               Schedule a notification (prints its identifier)
      pending           List the armed requests, soonest first
      remove            Remove pending requests
      delivered         List delivered notifications still tracked
      remove-delivered  Forget delivered notifications and close their popups
      fire              Deliver a pending request now
      status            Show the daemon's state
      reload            Re-read the configuration
      list              List the whole model: armed and waiting requests, and why they wait
      stats             Counters: evictions per priority class, firings, deliveries; per category the
                        deliveries, actions, dismissals and expiries
      categories        List the categories and their actions
      respond           Run an action of a delivered notification (for servers without buttons, and scripts)
      events            Show what happened to notifications; --follow streams them
      quiet             Show or change quiet hours: quiet on [--for SPAN|--until TIME], quiet off
      items             List the items and what their logs say: last time, streak, average, next reminder
      log               Log that an item was done (re-plans its reminders)
      unlog             Remove the latest entry of an item's log
      sync              Replace every request under a prefix with the set in a JSON file, at once
      calendar          Show the normalised form and next elapses of OnCalendar specs (no daemon needed)

    Options:
      --socket PATH     Control socket (default: $AVISO_SOCKET, else $XDG_RUNTIME_DIR/aviso/ctl.sock)
      --version         Print the version
      -h, --help        Show this help; 'avisoctl COMMAND --help' shows a command's help

    Exit status: 0 ok, 1 refused by the daemon (its reason on stderr), 2 usage error, 3 daemon not reachable (not
    running, no answer within 60s, or the socket belongs to another user).
    """

enum CLI {
    static func main() -> Never {
        var args = Array(CommandLine.arguments.dropFirst())
        var socketPath = SocketPath.resolve(environment: ProcessEnvironment.current, uid: getuid())

        while let first = args.first, first.hasPrefix("-") {
            args.removeFirst()
            switch first {
            case "-h", "--help": Output.line(usage); exit(0)
            case "--version": Output.line("avisoctl \(version) (protocol \(protocolVersion))"); exit(0)
            case "--socket":
                guard let path = args.first else { Output.fail(2, "option '--socket' needs a value") }
                socketPath = path
                args.removeFirst()
            case let s where s.hasPrefix("--socket="):
                socketPath = String(s.dropFirst("--socket=".count))
            default:
                Output.fail(2, "unknown option '\(first)' (see 'avisoctl --help')")
            }
        }

        guard let verb = args.first else {
            FileHandleOut.stderr(usage + "\n")
            exit(2)
        }
        let rest = Array(args.dropFirst())
        let context = Context(socket: socketPath)

        let verbs: [String: (help: String, run: ([String], Context) -> Void)] = [
            "add": (Add.help, Add.run),
            "pending": (Pending.help, Pending.run),
            "remove": (Remove.help, Remove.run),
            "delivered": (Delivered.help, Delivered.run),
            "remove-delivered": (RemoveDelivered.help, RemoveDelivered.run),
            "fire": (Fire.help, Fire.run),
            "status": (Status.help, Status.run),
            "reload": (Reload.help, Reload.run),
            "list": (List.help, List.run),
            "stats": (Stats.help, Stats.run),
            "calendar": (CalendarVerb.help, CalendarVerb.run),
            "categories": (Categories.help, Categories.run),
            "respond": (Respond.help, Respond.run),
            "events": (Events.help, Events.run),
            "quiet": (Quiet.help, Quiet.run),
            "items": (Items.help, Items.run),
            "log": (LogItem.help, LogItem.run),
            "unlog": (Unlog.help, Unlog.run),
            "sync": (Sync.help, Sync.run),
        ]

        if verb == "help" {
            if let topic = rest.first, let v = verbs[topic] { Output.line(v.help) } else { Output.line(usage) }
            exit(0)
        }
        guard let command = verbs[verb] else {
            Output.fail(2, "unknown command '\(verb)' (see 'avisoctl --help')")
        }
        if rest.contains("--help") || rest.contains("-h") {
            Output.line(command.help)
            exit(0)
        }
        command.run(rest, context)
        exit(0)
    }
}

CLI.main()
