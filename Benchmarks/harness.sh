# Shared set-up for the benchmarks: a private session bus, the test notification server, a release avisod.
# Source it; it defines BIN, WORK, DBUS_SESSION_BUS_ADDRESS, AVISO_SOCKET, start_daemon, stop_all.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN="$ROOT/.build/release"
WORK=$(mktemp -d /tmp/aviso-bench.XXXXXX)
mkdir -p "$WORK/run" "$WORK/config/aviso" && chmod 700 "$WORK/run"
export XDG_RUNTIME_DIR="$WORK/run" XDG_STATE_HOME="$WORK/state" XDG_CONFIG_HOME="$WORK/config"
export AVISO_SOCKET="$WORK/run/aviso/ctl.sock"
unset NOTIFY_SOCKET WATCHDOG_USEC

cat > "$WORK/session.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:path=$WORK/bus</listen>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>
CONF
dbus-daemon --config-file="$WORK/session.conf" --fork --print-pid=1 > "$WORK/dbus.pid"
export DBUS_SESSION_BUS_ADDRESS="unix:path=$WORK/bus"

# The test server reports each Notify with its arrival time; its stdin stays open on a fifo until stop_all.
mkfifo "$WORK/server.in"
# Inline replies too, so the change action can be answered as KDE Plasma would.
"$BIN/aviso-test-notifyd" --caps actions,body,body-markup,persistence,inline-reply < "$WORK/server.in" > "$WORK/server.out" &
SERVER_PID=$!
exec 9> "$WORK/server.in"
until grep -q '"ready"' "$WORK/server.out" 2>/dev/null; do sleep 0.05; done

# The category the interaction benchmarks use: snooze, change (typed text) and exec (tee, which copies the event it
# reads on stdin into a fifo the benchmark reads: the moment it arrives is when the program ran).
mkfifo "$WORK/exec.fifo"
cat > "$WORK/config/aviso/aviso.conf" <<CONF
[Action later]
Run=snooze 10min

[Action note]
Run=change
Input=true

[Action hook]
Run=exec /usr/bin/tee $WORK/exec.fifo

[Category bench]
Actions=later;note;hook

[Category hooked]
ContentHook=$WORK/trivial-hook
HookTimeout=1s
CONF
# A trivial content hook (hooks_bench.py): reads its input, prints one line.
printf '#!/bin/sh\ncat > /dev/null\necho %s\n' "'{\"body\": \"improved\"}'" > "$WORK/trivial-hook"
chmod +x "$WORK/trivial-hook"

start_daemon() {
    "$BIN/avisod" 2> "$WORK/daemon.log" &
    DAEMON_PID=$!
    until grep -q "ready; control socket" "$WORK/daemon.log" 2>/dev/null; do sleep 0.05; done
}

stop_all() {
    [ -n "${DAEMON_PID:-}" ] && kill "$DAEMON_PID" 2>/dev/null && wait "$DAEMON_PID" 2>/dev/null || true
    exec 9>&- || true
    kill "$SERVER_PID" 2>/dev/null || true
    kill "$(cat "$WORK/dbus.pid")" 2>/dev/null || true
    rm -rf "$WORK"
}
trap stop_all EXIT
