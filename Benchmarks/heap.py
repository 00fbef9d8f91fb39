#!/usr/bin/env python3
"""Where the heap goes with a large declared model: heaptrack of a second start, by the aviso function that allocated.

    heap.py BIN_DIR N

Generates N reminders (model.py), starts avisod once to store their schedules (not measured), then starts it again
under heaptrack, waits for READY=1 and stops it with SIGTERM. What is still allocated when it exits is what the loaded
model holds (a stopping avisod frees little), and heaptrack's peak is the high-water of the start. Prints both, then
the live bytes grouped by the innermost aviso function on each allocation's stack, largest first."""
import collections, os, shutil, signal, subprocess, sys
from daemon import Daemon, work_dir, write_model

bin_dir, n = sys.argv[1], int(sys.argv[2])
work = work_dir()
try:
    config, state, _ = write_model(n, work)
    d = Daemon(os.path.join(bin_dir, "avisod"), config, state, work)
    d.start()
    d.stop()

    # heaptrack is a script that runs avisod as its child: the wrapper execs it, and SIGTERM goes to avisod itself.
    data = os.path.join(work, "heap")
    wrapper = os.path.join(work, "avisod-under-heaptrack")
    with open(wrapper, "w") as f:
        f.write(f'#!/bin/sh\nexec heaptrack -o {data} {os.path.join(bin_dir, "avisod")} "$@" >/dev/null\n')
    os.chmod(wrapper, 0o755)
    d = Daemon(wrapper, config, state, work)
    d.start()
    daemons = subprocess.run(["pgrep", "-P", str(d.process.pid), "-x", "avisod"], capture_output=True,
                             text=True).stdout.split()
    if len(daemons) != 1:
        raise SystemExit(f"expected one avisod under heaptrack (pid {d.process.pid}), found {daemons}")
    os.kill(int(daemons[0]), signal.SIGTERM)
    # The wrapper ends once heaptrack has written out what it recorded.
    d.process.wait(120)
    d.log.close()
    recorded = next(os.path.join(work, f) for f in os.listdir(work) if f.startswith("heap."))

    summary = subprocess.run(["heaptrack_print", "-f", recorded, "-p", "0", "-a", "0", "-T", "0"],
                             capture_output=True, text=True, check=True).stdout
    for line in summary.splitlines():
        if line.startswith(("peak heap memory consumption", "total memory leaked")):
            print(f"heaptrack, second start of {n:,} reminders: {line.strip()}")
    stacks = os.path.join(work, "stacks.txt")
    subprocess.run(["heaptrack_print", "-f", recorded, "--flamegraph-cost-type", "leaked", "-F", stacks],
                   capture_output=True, check=True)
    stacks_by_size = []
    for line in open(stacks):
        stack, _, size = line.rstrip().rpartition(" ")
        stacks_by_size.append((stack.split(";"), int(size)))
    frames = sorted({f for stack, _ in stacks_by_size for f in stack})
    demangled = dict(zip(frames, subprocess.run(["swift", "demangle", "--simplified"], input="\n".join(frames),
                                                capture_output=True, text=True, check=True).stdout.splitlines()))
    # The standard library's containers, specialised for aviso's types: the aviso function that grew one is a frame up.
    CONTAINERS = ("_ContiguousArrayBuffer", "ContiguousArray", "Array.", "_NativeDictionary", "Dictionary",
                  "_NativeSet")
    by_function = collections.Counter()
    for stack, size in stacks_by_size:
        ours = [demangled[f] for f in stack if ("Aviso" in f or "avisod" in f)
                and not demangled[f].removeprefix("specialized ").startswith(CONTAINERS)]
        by_function[ours[-1] if ours else demangled[stack[-1]] or "(unknown)"] += size
    total = sum(by_function.values())
    print(f"live at exit, {total / 1e6:.2f} MB, by the innermost aviso function that allocated:")
    for name, size in by_function.most_common(15):
        print(f"  {size / 1e6:6.2f} MB  {name[:150]}")
finally:
    shutil.rmtree(work, ignore_errors=True)
