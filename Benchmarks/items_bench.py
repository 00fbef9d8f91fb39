#!/usr/bin/env python3
"""`avisoctl log` to the re-planned window, with many items and a long log.

    items_bench.py BIN_DIR ITEMS ENTRIES LOGS

Declares ITEMS items of the five kinds in equal parts (interval, daily, weekly, event, daily with Repeat=30min all day,
so each of those plans 24 reminders), puts ENTRIES log entries into the database spread over the past year, starts
avisod, and logs LOGS times over the control socket, each time to another item. The daemon answers `log` after the
log is committed together with the re-planned item- set and the window is re-armed, so the round trip measured here
is the whole path. It also times `avisoctl log` as a process (spawn and exit included) and checks that the model
holds the reminders it should."""
import os, random, sqlite3, statistics, subprocess, sys, time
from daemon import Daemon, work_dir

bin_dir, n_items, n_entries, n_logs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
kinds = [
    "Kind=interval\nEvery=28d\n", "Kind=daily\nAt=21:00\n", "Kind=weekly\nTimes=3\nAt=18:00\n", "Kind=event\n",
    "Kind=daily\nRepeat=30min\nFrom=00:00\nTo=24:00\nGoal=1000\nUnit=glasses\n",
]
work = work_dir()
try:
    config, state = os.path.join(work, "config"), os.path.join(work, "state")
    os.makedirs(os.path.join(config, "aviso", "reminders"))
    names = [f"item{i:03d}" for i in range(n_items)]
    with open(os.path.join(config, "aviso", "reminders", "items.conf"), "w") as f:
        for i, name in enumerate(names):
            f.write(f"[Item {name}]\nTitle=Item {i}\n{kinds[i % len(kinds)]}\n")
    d = Daemon(os.path.join(bin_dir, "avisod"), config, state, work)
    d.start()
    d.stop()
    # The log, written straight into the database while the daemon is stopped.
    db = sqlite3.connect(os.path.join(state, "aviso", "aviso.db"))
    now_ns = time.time_ns()
    rng = random.Random(9)
    rows = [(names[k % n_items], now_ns - rng.randrange(1, 365 * 86400) * 10**9, 1) for k in range(n_entries)]
    db.executemany("INSERT INTO item_log (item, at, count) VALUES (?, ?, ?)", rows)
    db.commit()
    db.close()
    d.start()
    c = d.connect()
    items = c.call({"op": "items"})["items"]
    entries = sum(i["entries"] for i in items)
    planned = sum(i["planned"] for i in items)
    assert len(items) == n_items and entries == n_entries, (len(items), entries)
    times = []
    for k in range(n_logs):
        begin = time.perf_counter()
        reply = c.call({"op": "log", "id": names[k % n_items]})
        times.append((time.perf_counter() - begin) * 1000)
        assert reply["item"]["entries"] >= 1
    ctl = []
    for k in range(20):
        begin = time.perf_counter()
        subprocess.run([os.path.join(bin_dir, "avisoctl"), "--socket", d.socket_path, "log", names[k]],
                       stdout=subprocess.DEVNULL, check=True)
        ctl.append((time.perf_counter() - begin) * 1000)
    times.sort()
    print(f"items: log -> re-planned window, {n_items} items ({planned} reminders planned), {n_entries} log entries: "
          f"median {statistics.median(times):.2f} ms, p90 {times[int(len(times) * 0.9)]:.2f} ms, "
          f"max {times[-1]:.2f} ms over {n_logs} logs (control socket round trip); "
          f"avisoctl log as a process: median {statistics.median(ctl):.1f} ms")
    c.close()
    d.stop()
finally:
    subprocess.run(["rm", "-rf", work])
