import Testing

/// The daemon's integration suites, run one test at a time; everything outside this group runs in parallel.
///
/// Why serial, in the order it matters:
/// - timing: they start real processes (avisod, dbus-daemon, the test notification server, logind's stand-in,
///   shells, systemd tools) and watch what arrives against deadlines and budgets (fire precision, watchdog gaps,
///   hooks that must end before the instant); on two cores, two such tests side by side measure each other;
/// - process-wide state: the failure-injection table (`SyscallTests`, `FileWatcherTests`), signal masks and
///   signals sent to this process (`SignalsTests`), the wall clock stepped in place (`TimerBackendTests`).
///
/// The pure suites (AvisoCore's, AvisoProtocol's, and here the configuration, key-file, reminder-file and store
/// suites, which touch nothing but their own temporary files) run beside this group.
@Suite(.serialized) enum Integration {}
