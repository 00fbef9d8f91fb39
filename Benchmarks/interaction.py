#!/usr/bin/env python3
"""Interaction benchmarks against a release avisod, its test notification server and the bench category.

actions: N times per action, a notification is shown, the server emits ActionInvoked (or NotificationReplied) and
    the effect is timed from the signal leaving the server: snooze (re-armed; the CloseNotification that follows the
    store write and the timer arm), change (the new text's Notify), exec (the program has run: `tee` copies the event
    from its stdin into a fifo read here). Prints median and p99 per action.
quiet: quiet on, N notifications due at the same instant held, quiet off; the time from `quiet off` to the summary's
    Notify, and avisod's RSS before and after.

Usage: interaction.py actions|quiet SOCKET SERVER_OUT SERVER_IN EXEC_FIFO DAEMON_PID N"""
import json, os, select, socket, statistics, sys, time

what, sock_path, server_out, server_in, fifo, pid, n = sys.argv[1:8]
n = int(n)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sock_path)
ctl = s.makefile("rwb")
commands = open(server_in, "w")
events = open(server_out)
events.seek(0, os.SEEK_END)
# Read and write, so that it never reads end-of-file between two runs of the program.
exec_fifo = os.open(fifo, os.O_RDWR)


def call(request):
    ctl.write((json.dumps(dict(v=1, **request)) + "\n").encode())
    ctl.flush()
    reply = json.loads(ctl.readline())
    assert reply["ok"], reply
    return reply


def add(rid, at, category=None):
    content = {"title": rid, "subtitle": "", "body": "", "level": "active", "userInfo": {}}
    if category:
        content["categoryID"] = category
    call({"op": "add", "request": {"id": rid, "trigger": {"kind": "date", "at": at}, "content": content}})


def server(command):
    commands.write(command + "\n")
    commands.flush()


def next_event(match, timeout=10.0):
    """The next server event for which match(e) holds; others are passed over. Polls the file it appends to."""
    end = time.time() + timeout
    buffer = ""
    while time.time() < end:
        chunk = events.readline()
        if not chunk:
            time.sleep(0.0002)
            continue
        buffer += chunk
        if not buffer.endswith("\n"):
            continue
        e, buffer = json.loads(buffer), ""
        if match(e):
            return e
    sys.exit("timed out waiting for the notification server")


def rss():
    return next(int(l.split()[1]) for l in open(f"/proc/{pid}/status") if l.startswith("VmRSS")) / 1024


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p * len(values))) - 1)]


if what == "actions":
    results = {"snooze": [], "change": [], "exec": []}
    for i in range(n):
        for name in results:
            rid = f"act-{name}-{i:03d}"
            add(rid, time.time_ns() + 20_000_000, category="bench")
            shown = next_event(lambda e: e.get("event") == "notify" and e.get("summary") == rid)
            sid = shown["id"]
            if name == "snooze":
                server(f"action {sid} later")
                sent = next_event(lambda e: e.get("event") == "invoked" and e.get("id") == sid)["at_ns"]
                done = next_event(lambda e: e.get("event") == "close" and e.get("id") == sid)["at_ns"]
            elif name == "change":
                server(f"reply {sid} changed {i}")
                sent = next_event(lambda e: e.get("event") == "replied" and e.get("id") == sid)["at_ns"]
                done = next_event(lambda e: e.get("event") == "notify" and e.get("replaces_id") == sid)["at_ns"]
            else:
                server(f"action {sid} hook")
                ready, _, _ = select.select([exec_fifo], [], [], 10)
                assert ready, "the exec action did not run"
                done = time.time_ns()
                while b"\n" not in os.read(exec_fifo, 65536):
                    pass
                sent = next_event(lambda e: e.get("event") == "invoked" and e.get("id") == sid)["at_ns"]
            results[name].append((done - sent) / 1e6)
            if name != "snooze":
                call({"op": "remove-delivered", "ids": [rid]})
    call({"op": "remove", "all": True})
    for name, values in results.items():
        print(f"action {name}: ActionInvoked to effect over {len(values)}: median {statistics.median(values):.2f} ms, "
              f"p99 {percentile(values, 0.99):.2f} ms, max {max(values):.2f} ms")

elif what == "quiet":
    call({"op": "quiet", "mode": "on"})
    at = time.time_ns() + 2_000_000_000
    for i in range(n):
        add(f"held-{i:04d}", at)
    end = time.time() + 60
    while call({"op": "quiet"})["quiet"]["held"] < n:
        assert time.time() < end, "the notifications were not held"
        time.sleep(0.05)
    before = rss()
    start = time.time_ns()
    call({"op": "quiet", "mode": "off"})
    summary = next_event(lambda e: e.get("event") == "notify" and "more" in e.get("summary", ""), timeout=60)
    took = (summary["at_ns"] - start) / 1e6
    after = rss()
    print(f"quiet release of {n} held: summary '{summary['summary']}' on D-Bus {took:.1f} ms after 'quiet off'; "
          f"RSS {before:.1f} MiB before, {after:.1f} MiB after")
    call({"op": "remove-delivered", "all": True})
