#!/usr/bin/env python3
"""Editing one reminder file in a large declared model: from the rename() of the saved file to the re-armed window.

    edit_bench.py BIN_DIR N EDITS

Generates N reminders (model.py, 100 files), starts avisod, then EDITS times rewrites one file the way editors save
(write a temporary file, rename it over the old one) with one reminder moved to a new time 20 + k minutes from now,
which puts it at the front of the window. For each edit it takes, in this process, the time until the daemon logs
"updated 'ID'" and the time until `pending` (the armed window, over the control socket) shows the new instant."""
import datetime, os, re, shutil, statistics, sys, time
from daemon import Daemon, work_dir, write_model

bin_dir, n, edits = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
work = work_dir()
try:
    config, state, _ = write_model(n, work)
    d = Daemon(os.path.join(bin_dir, "avisod"), config, state, work)
    d.start()
    c = d.connect()
    path = os.path.join(config, "aviso", "reminders", "050.conf")
    original = open(path).read()
    rid = re.search(r"\[Reminder (\w+)\]", original).group(1)
    first_group_end = original.index("\n\n")
    to_log, to_window = [], []
    for k in range(edits):
        local = datetime.datetime.now().replace(second=0, microsecond=0) + datetime.timedelta(minutes=20 + k)
        expected = local.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        group = f"[Reminder {rid}]\nTitle=Edited {k}\nOnCalendar=*-*-* {local:%H:%M}\n"
        with open(path + ".tmp", "w") as f:
            f.write(group + original[first_group_end:])
        log_size = os.path.getsize(d.log_path)
        needle = f"updated '{rid}'".encode()
        begin = time.monotonic()
        os.rename(path + ".tmp", path)
        logged = None
        while time.monotonic() - begin < 5:
            with open(d.log_path, "rb") as log:
                log.seek(log_size)
                if needle in log.read():
                    logged = time.monotonic() - begin
                    break
            time.sleep(0.0002)
        armed = None
        while time.monotonic() - begin < 5:
            window = c.call({"op": "pending"})["pending"]
            if any(p["id"] == rid and p["next"] == expected for p in window):
                armed = time.monotonic() - begin
                break
        if logged is None or armed is None:
            raise SystemExit(f"edit {k}: the window did not show '{rid}' at {expected} within 5 s (log: {d.log_path})")
        to_log.append(logged * 1000)
        to_window.append(armed * 1000)
    c.close()
    d.stop()
    print(f"edit one file of {n:,} declared reminders, {edits} edits: rename -> \"updated\" logged median "
          f"{statistics.median(to_log):.1f} ms (max {max(to_log):.1f}); rename -> new instant in the armed window "
          f"(pending) median {statistics.median(to_window):.1f} ms (max {max(to_window):.1f})")
finally:
    if os.environ.get("KEEP_WORK"):
        print("kept", work)
    else:
        shutil.rmtree(work, ignore_errors=True)
