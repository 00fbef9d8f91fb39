#!/usr/bin/env python3
"""Instructions (callgrind) of a start with a large declared model, beside `remind -n` on the same model.

    instructions.py BIN_DIR N

Generates N reminders (model.py), starts avisod once to store their schedules (not counted), then counts the
instructions of: reading the reminder directory in process (`aviso-bench directory DIR 1`), a second start of avisod
from exec to READY=1 and its stop, a first start on an empty state directory, and `remind -n` on the equivalent Remind
file. Counts are the sum over all threads: they say how much work a start is, not how long it takes on two cores,
and unlike times they are the same from one run to the next whatever else the machine does (this machine's speed
drifts by a third within minutes). Nothing comes due during the runs: the model has no reminder in the hour after it
is made, so the second start delivers nothing and every run counts the same work.

The binaries are copied without their debug information, which this toolchain writes in a form valgrind cannot read."""
import os, re, shutil, subprocess, sys, tempfile
from daemon import Daemon, work_dir, write_model


def stripped(binary, work):
    out = os.path.join(work, os.path.basename(binary) + ".stripped")
    subprocess.run(["strip", "--strip-debug", "-o", out, binary], check=True)
    return out


def collected(text):
    m = re.findall(r"Collected : (\d+)", text)
    if not m:
        raise SystemExit("callgrind reported no count:\n" + text[-2000:])
    return int(m[-1])


def callgrind(argv, work):
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + os.path.join(work, "cg.out")] + argv,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return collected(out.stderr)


def daemon_start(avisod, config, state, work):
    """Instructions of one avisod from exec to READY=1 and its stop on SIGTERM, through a wrapper that runs it under
    callgrind (the Daemon helper waits for READY=1 on its own NOTIFY_SOCKET)."""
    wrapper = os.path.join(work, "avisod-callgrind")
    with open(wrapper, "w") as f:
        f.write(f'#!/bin/sh\nexec valgrind --tool=callgrind --callgrind-out-file={work}/cg.daemon.out {avisod} "$@"\n')
    os.chmod(wrapper, 0o755)
    d = Daemon(wrapper, config, state, work)
    log_start = os.path.getsize(d.log_path) if os.path.exists(d.log_path) else 0
    d.start(timeout=900)
    d.stop()
    with open(d.log_path, errors="replace") as f:
        f.seek(log_start)
        return collected(f.read())


bin_dir, n = sys.argv[1], int(sys.argv[2])
work = work_dir()
try:
    config, state, remind_file = write_model(n, work)
    avisod = stripped(os.path.join(bin_dir, "avisod"), work)
    bench = stripped(os.path.join(bin_dir, "aviso-bench"), work)
    # The state a second start finds: every schedule stored by a first start.
    d = Daemon(os.path.join(bin_dir, "avisod"), config, state, work)
    d.start()
    d.stop()
    reading = callgrind([bench, "directory", os.path.join(config, "aviso", "reminders"), "1"], work)
    second = daemon_start(avisod, config, state, work)
    first = daemon_start(avisod, config, tempfile.mkdtemp(prefix="state.", dir=work), work)
    remind = callgrind(["remind", "-n", remind_file], work)
    per = lambda ir: f"{ir / 1e9:.2f} G ({ir / n:,.0f} a reminder)"
    print(f"instructions, {n:,} declared reminders in 100 files (callgrind, all threads): reading the directory "
          f"{per(reading)}; avisod second start to READY=1 and stop {per(second)}, first start {per(first)}; "
          f"remind -n {per(remind)}; ratio avisod/remind {second / remind:.2f}× second, {first / remind:.2f}× first")
finally:
    shutil.rmtree(work, ignore_errors=True)
