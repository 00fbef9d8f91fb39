#!/usr/bin/env python3
"""Content hooks: what a trivial hook costs a delivery, against the same notifications without one, same run.

    hooks_bench.py SOCKET SERVER_OUT DAEMON_PID N

The harness's aviso.conf declares the category `hooked` with a cat-like hook (reads its input, prints one line) and
HookTimeout=1s, so each hook starts one second before its notification is due.
- precision: N requests 10 ms apart, alternately with and without the hook, due from 3 s ahead; lateness of each
  Notify seen by the test server behind its scheduled instant, per kind; every hooked one must carry the hook's body.
- CPU per delivery: avisod's user+system time (/proc/PID/stat) over those N deliveries, per kind, measured in two
  separate rounds (plain first, then hooked) so that the two are not mixed.
- burst: N requests due in the same instant, first without then with the hook: lateness of each Notify behind it.
Also the hooks' own run times, from the `hook` events."""
import json, os, statistics, sys, time
from daemon import Connection

sock_path, server_out, pid, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
ctl = Connection(sock_path)
events = open(server_out)
events.seek(0, os.SEEK_END)
ticks = os.sysconf("SC_CLK_TCK")


def add(rid, at, hooked):
    content = {"title": rid, "body": "plain"}
    if hooked:
        content["categoryID"] = "hooked"
    ctl.call({"op": "add", "request": {"id": rid, "trigger": {"kind": "date", "at": at}, "content": content}})


def cpu():
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / ticks


def collect(due, timeout):
    """Lateness in ms of each Notify whose summary is in `due`; checks the hooked ones were improved."""
    late, end = {}, time.time() + timeout
    while len(late) < len(due) and time.time() < end:
        line = events.readline()
        if not line:
            time.sleep(0.01)
            continue
        e = json.loads(line)
        if e.get("event") == "notify" and e.get("summary") in due:
            rid = e["summary"]
            if rid.startswith("h") and e.get("body") != "improved":
                sys.exit(f"{rid} was shown without the hook's version: {e.get('body')!r}")
            late[rid] = (e["at_ns"] - due[rid]) / 1e6
    if len(late) < len(due):
        sys.exit(f"only {len(late)} of {len(due)} notifications arrived")
    return late


def summary(values):
    values = sorted(values)
    p99 = values[min(len(values) - 1, int(round(0.99 * len(values))) - 1)]
    return f"median {statistics.median(values):.2f} ms, p99 {p99:.2f} ms, max {values[-1]:.2f} ms"


def round_of(prefix, hooked, count, spacing_ns):
    start = time.time_ns() + 3_000_000_000
    due = {}
    for i in range(count):
        rid = f"{prefix}{i:03d}"
        due[rid] = start + i * spacing_ns
        add(rid, due[rid], hooked)
    before = cpu()
    late = collect(due, 30 + count * 0.05)
    # The last popup is in: let the daemon settle its bookkeeping before reading its CPU time.
    time.sleep(0.3)
    return late, (cpu() - before) * 1000 / count


plain, plain_cpu = round_of("p", False, n, 10_000_000)
hooked, hooked_cpu = round_of("h", True, n, 10_000_000)
print(f"fire precision over {n} timers 10 ms apart: without a hook {summary(plain.values())}; "
      f"with a trivial hook {summary(hooked.values())}")
print(f"avisod CPU per delivery: without a hook {plain_cpu:.2f} ms, with a trivial hook {hooked_cpu:.2f} ms "
      f"(starting and reading the hook)")
plain_burst, _ = round_of("pb", False, n, 0)
burst, _ = round_of("hb", True, n, 0)
print(f"{n} notifications due in the same instant, behind it: without a hook {summary(plain_burst.values())}; "
      f"with a trivial hook {summary(burst.values())}")
reply = ctl.call({"op": "events"})
runs = [e["durationMs"] for e in reply.get("events", []) if e.get("event") == "hook"]
if runs:
    print(f"the hooks' own run times: median {statistics.median(runs)} ms, max {max(runs)} ms over {len(runs)} runs")
