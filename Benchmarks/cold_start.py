#!/usr/bin/env python3
"""Cold start with a large declared model, beside `remind -n`, then memory over fire cycles.

    cold_start.py BIN_DIR N FIRES [FIRE_SECONDS]

Generates N reminders (model.py) over 100 files and the equivalent Remind file; times avisod from exec to READY=1
with an empty state directory (every reminder is stored on this start) and again with that state (second start);
times `remind -n`; reports VmRSS/VmHWM of the second daemon, then fires a few repeating reminders FIRES times over the
control socket (at most FIRE_SECONDS, default 60) and reports the time of each round trip, avisod's CPU time (user and
system, all threads) per fire, and VmRSS again. A round trip includes the commit's fdatasync, which takes no CPU time
while the disk works: the CPU time is avisod's own work, its D-Bus call included."""
import os, shutil, subprocess, sys, time
from daemon import Daemon, remind_seconds, work_dir

bin_dir, n, fires = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
fire_seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 60
work = work_dir()
try:
    config, state, remind_file = os.path.join(work, "config"), os.path.join(work, "state"), os.path.join(work, "model.rem")
    subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "model.py"), str(n), config, remind_file],
                   check=True)
    d = Daemon(os.path.join(bin_dir, "avisod"), config, state, work)
    first = d.start()
    d.stop()
    log_lines = sum(1 for _ in open(d.log_path, "rb"))
    second = d.start()
    remind = remind_seconds(remind_file)
    print(f"cold start, {n:,} declared reminders in 100 files: first start (empty state) {first * 1000:.0f} ms, "
          f"second start {second * 1000:.0f} ms; remind -n on the same model {remind * 1000:.0f} ms; "
          f"ratio avisod/remind {first / remind:.1f}× first, {second / remind:.1f}× second "
          f"(first start logged {log_lines:,} lines)")
    rss, hwm = d.memory()
    print(f"memory with {n:,} reminders loaded: VmRSS {rss:.1f} MiB, VmHWM {hwm:.1f} MiB")
    # Fire cycles: a few repeating reminders, fired FIRES times in all or for FIRE_SECONDS, whichever ends first;
    # every delivery goes to the test server.
    c = d.connect()
    ids = ["r000001", "r000002", "r000003", "r000004"]
    cpu_before = d.cpu_seconds()
    begin = time.monotonic()
    cycles = 0
    while cycles < fires and time.monotonic() - begin < fire_seconds:
        c.call({"op": "fire", "id": ids[cycles % len(ids)]})
        cycles += 1
    took = time.monotonic() - begin
    cpu = d.cpu_seconds() - cpu_before
    c.close()
    after, hwm_after = d.memory()
    print(f"memory over {cycles:,} fire cycles on {len(ids)} repeating reminders of {n:,} ({took:.1f} s, "
          f"{took / cycles * 1000:.2f} ms each, avisod CPU {cpu / cycles * 1000:.2f} ms each): VmRSS {rss:.1f} -> {after:.1f} MiB ({after - rss:+.1f}), "
          f"VmHWM {hwm:.1f} -> {hwm_after:.1f} MiB")
    d.stop()
finally:
    if os.environ.get("KEEP_WORK"):
        print("kept", work)
    else:
        shutil.rmtree(work, ignore_errors=True)
