#!/usr/bin/env python3
"""Cold start with a large declared model, beside `remind -n`, then memory over fire cycles.

    cold_start.py BIN_DIR N FIRES [FIRE_SECONDS]

Generates N reminders (model.py) over 100 files and the equivalent Remind file; times avisod from exec to READY=1
with an empty state directory (every reminder is stored on this start) and again with that state (second start);
times `remind -n`; reports VmRSS/VmHWM of the second daemon, then fires a few repeating reminders FIRES times over the
control socket (at most FIRE_SECONDS, default 60) and reports the time of each round trip, avisod's CPU time (user and
system, all threads) per fire, and VmRSS again. A round trip includes the commit's fdatasync, which takes no CPU time
while the disk works: the CPU time is avisod's own work, its D-Bus call included (the Notify is sent on GLib's threads
after the reply). Last, the same fires (at most 3,000) with a copy of the state on tmpfs, where the fdatasync costs
nothing: the round trip beyond the fsync and the D-Bus call."""
import os, shutil, sys, tempfile, time
from daemon import Daemon, remind_seconds, work_dir, write_model

IDS = ["r000001", "r000002", "r000003", "r000004"]
BUS_THREADS = {"aviso-glib", "gdbus", "gmain"}


def fire_cycles(d, limit, seconds):
    """Fires the reminders of IDS in turn, `limit` times or for `seconds`; returns (cycles, seconds, median round
    trip, avisod CPU seconds, the part of them on GLib's and GDBus's threads)."""
    c = d.connect()
    before = d.cpu_seconds_by_thread()
    times = []
    begin = time.monotonic()
    while len(times) < limit and time.monotonic() - begin < seconds:
        t = time.monotonic()
        c.call({"op": "fire", "id": IDS[len(times) % len(IDS)]})
        times.append(time.monotonic() - t)
    took = time.monotonic() - begin
    spent = {k: v - before.get(k, 0) for k, v in d.cpu_seconds_by_thread().items()}
    c.close()
    return (len(times), took, sorted(times)[len(times) // 2], sum(spent.values()),
            sum(v for (_, name), v in spent.items() if name in BUS_THREADS))

bin_dir, n, fires = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
fire_seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 60
work = work_dir()
try:
    config, state, remind_file = write_model(n, work)
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
    cycles, took, median, cpu, bus_cpu = fire_cycles(d, fires, fire_seconds)
    after, hwm_after = d.memory()
    print(f"memory over {cycles:,} fire cycles on {len(IDS)} repeating reminders of {n:,} ({took:.1f} s, "
          f"{took / cycles * 1000:.2f} ms each, median {median * 1000:.2f} ms; avisod CPU {cpu / cycles * 1000:.2f} ms each, "
          f"{bus_cpu / cycles * 1000:.2f} of it on the D-Bus threads): VmRSS {rss:.1f} -> {after:.1f} MiB "
          f"({after - rss:+.1f}), VmHWM {hwm:.1f} -> {hwm_after:.1f} MiB")
    d.stop()
    # The same fires with the state on tmpfs, where the commit's fdatasync costs nothing: a fire beyond the fsync
    # (the Notify goes out on the D-Bus threads and the reply does not wait for it).
    fast_state = tempfile.mkdtemp(prefix="aviso-model-state.", dir="/dev/shm")
    try:
        shutil.copytree(state, fast_state, dirs_exist_ok=True)
        d = Daemon(os.path.join(bin_dir, "avisod"), config, fast_state, work)
        d.start()
        cycles, took, median, cpu, bus_cpu = fire_cycles(d, min(fires, 3000), fire_seconds)
        print(f"fire round trip with the state on tmpfs (no fsync), {cycles:,} fires at {n:,}: median "
              f"{median * 1000:.2f} ms, mean {took / cycles * 1000:.2f} ms; avisod CPU {cpu / cycles * 1000:.2f} ms "
              f"each, {(cpu - bus_cpu) / cycles * 1000:.2f} of it off the D-Bus threads")
        d.stop()
    finally:
        shutil.rmtree(fast_state, ignore_errors=True)
finally:
    if os.environ.get("KEEP_WORK"):
        print("kept", work)
    else:
        shutil.rmtree(work, ignore_errors=True)
