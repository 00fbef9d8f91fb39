#!/usr/bin/env python3
"""Fire precision: from each request's scheduled instant to the Notify call seen on D-Bus by the test server.

Adds N one-shot requests over the control socket with nanosecond-exact wall-clock deadlines (10 ms apart, starting
2 s from now), waits for all N Notify calls, and prints median, p99 and max lateness in milliseconds."""
import json, socket, statistics, sys, time

sock_path, server_out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
start = time.time_ns() + 2_000_000_000
due = {}
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sock_path)
f = s.makefile("rwb")
for i in range(n):
    at = start + i * 10_000_000
    rid = f"precision-{i:03d}"
    due[rid] = at
    req = {"v": 1, "op": "add", "request": {"id": rid, "trigger": {"kind": "date", "at": at},
           "content": {"title": rid, "subtitle": "", "body": "", "level": "active", "userInfo": {}}}}
    f.write((json.dumps(req) + "\n").encode()); f.flush()
    reply = json.loads(f.readline())
    assert reply["ok"], reply
# Summaries are request ids, so arrival lines map back to their deadlines.
late = {}
deadline = time.time() + 30 + n * 0.01
while len(late) < n and time.time() < deadline:
    with open(server_out) as out:
        for line in out:
            e = json.loads(line)
            if e.get("event") == "notify" and e["summary"] in due:
                late[e["summary"]] = (e["at_ns"] - due[e["summary"]]) / 1e6
    time.sleep(0.2)
values = sorted(late.values())
if len(values) < n:
    sys.exit(f"only {len(values)} of {n} notifications arrived")
p99 = values[min(len(values) - 1, int(round(0.99 * len(values))) - 1)]
print(f"fire precision over {n} timers: median {statistics.median(values):.2f} ms, p99 {p99:.2f} ms, "
      f"max {values[-1]:.2f} ms, min {values[0]:.2f} ms")
