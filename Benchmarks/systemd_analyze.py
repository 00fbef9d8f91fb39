#!/usr/bin/env python3
"""`systemd-analyze calendar` per spec, process included: RUNS invocations of each spec read from stdin, timed."""
import statistics, subprocess, sys, time

runs = int(sys.argv[1])
specs = [l.strip() for l in sys.stdin if l.strip()]
per_spec = []
for spec in specs:
    begin = time.monotonic()
    for _ in range(runs):
        subprocess.run(["systemd-analyze", "calendar", spec], stdout=subprocess.DEVNULL, check=True)
    per_spec.append((time.monotonic() - begin) / runs)
print(f"systemd-analyze calendar, {len(specs)} specs × {runs} runs (process included): median "
      f"{statistics.median(per_spec) * 1e6:.0f} µs per spec (min {min(per_spec) * 1e6:.0f}, max {max(per_spec) * 1e6:.0f})")
