#!/usr/bin/env python3
"""Generates one reminder model twice: as aviso reminder files and as an equivalent Remind file.

    model.py N CONFIG_HOME REMIND_FILE [FILES]

Writes N reminders spread over FILES (default 100) files CONFIG_HOME/aviso/reminders/NNN.conf, and REMIND_FILE with
the same reminders in Remind's language. The mix (seeded, so every run plans the same model): daily at a time, Mon..Fri
at a time, weekly, monthly, yearly, and every N days; one calendar reminder in ten is anchored to a zone. Remind has no
per-reminder zones, so there those reminders follow local time. Times within the next hour are avoided so that the
benchmarks measure planning, not a storm of deliveries."""
import os, random, sys, time

ZONES = ["Europe/Madrid", "America/New_York", "Australia/Lord_Howe"]
DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def reminders(n, rng):
    """Yields (id, aviso keys, remind line) for n reminders."""
    now = time.localtime()
    soon = {((now.tm_hour * 60 + now.tm_min + k) // 60 % 24) for k in range(-5, 65)}
    hours = [h for h in range(24) if h not in soon]
    today = time.strftime("%Y-%m-%d", now)
    for i in range(n):
        rid = f"r{i:06d}"
        hh, mm = rng.choice(hours), rng.randrange(60)
        at = f"{hh:02d}:{mm:02d}"
        kind = rng.random()
        zone = [f"TimeZone={rng.choice(ZONES)}"] if rng.random() < 0.1 else []
        if kind < 0.30:
            keys, rem = [f"OnCalendar=*-*-* {at}"] + zone, f"REM AT {at}"
        elif kind < 0.55:
            keys, rem = [f"OnCalendar=Mon..Fri {at}"] + zone, f"REM Mon Tue Wed Thu Fri AT {at}"
        elif kind < 0.65:
            d = rng.randrange(7)
            keys, rem = [f"OnCalendar={DAYS[d]} {at}"] + zone, f"REM {DAYS[d]} AT {at}"
        elif kind < 0.75:
            d = rng.randrange(1, 29)
            keys, rem = [f"OnCalendar=*-*-{d:02d} {at}"] + zone, f"REM {d} AT {at}"
        elif kind < 0.80:
            m, d = rng.randrange(12), rng.randrange(1, 29)
            keys, rem = [f"OnCalendar=*-{m + 1:02d}-{d:02d} {at}"] + zone, f"REM {MONTHS[m]} {d} AT {at}"
        else:
            every = rng.randrange(1, 61)
            keys, rem = [f"Every={every}d"], f"REM {today} *{every}"
        yield rid, [f"Title=Reminder {i}", f"Body=Body of reminder {i}"] + keys, f"{rem} MSG Reminder {i}"


def main():
    n, config_home, remind_file = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    files = int(sys.argv[4]) if len(sys.argv) > 4 else 100
    directory = os.path.join(config_home, "aviso", "reminders")
    os.makedirs(directory, exist_ok=True)
    rng = random.Random(20260714)
    per_file = (n + files - 1) // files
    groups, remind = [], []
    for rid, keys, rem in reminders(n, rng):
        groups.append(f"[Reminder {rid}]\n" + "\n".join(keys) + "\n")
        remind.append(rem)
    for f in range(files):
        chunk = groups[f * per_file:(f + 1) * per_file]
        if chunk:
            with open(os.path.join(directory, f"{f:03d}.conf"), "w") as out:
                out.write("\n".join(chunk))
    with open(remind_file, "w") as out:
        out.write("\n".join(remind) + "\n")


if __name__ == "__main__":
    main()
