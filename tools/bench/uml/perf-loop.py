#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Flat profile of one measured loop of a `make bench-native` boot (TEMPO_BENCH_PERF=1).

    perf-loop.py PERF.DATA BOOT.LOG TEMPO.KO TEMPO_BENCH.KO MARKS [N]

MARKS is a comma-separated list of functions that run only inside the loop
(for dq0: dq_immediate_body,delayq_wait,tempo_delayq_take). The loop's
windows are the stretches of the host thread that has most MARKS samples in
which no two MARKS samples are more than 10 ms apart (and that last 20 ms or
more); every sample of that thread inside a window counts, whatever its
function. This leaves out the lane's setup and teardown, which a whole-boot
profile (perf-syms.py) mixes in. Module addresses are mapped by perf-syms.py's
module_maps() and resolve(). Prints the N (40) hottest symbols with their share of the loop's
samples, then the shares of: the clock read, the lock, UML's interrupt-flag
emulation, might_sleep()'s cond_resched, the bench module and tempo.ko.
"""
import collections
import importlib.util
import os
import re
import subprocess
import sys

_spec = importlib.util.spec_from_file_location(
    "perf_syms", os.path.join(os.path.dirname(os.path.abspath(__file__)), "perf-syms.py"))
perf_syms = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(perf_syms)

GAP = 0.010
MIN_WINDOW = 0.020
GROUPS = [
    ("clock read", r"vdso|^ktime_get|timer_read|os_nsecs|clock_gettime"),
    ("lock", r"_raw_spin_(un)?lock"),
    ("interrupt flag", r"um_set_signals|um_get_signals|unblock_signals|block_signals|"
                       r"os_ipis_deferred|uml_curr_cpu"),
    ("cond_resched", r"__cond_resched|rcu_all_qs"),
    ("bench module", r"\[tempo_bench\]"),
    ("tempo.ko", r"\[tempo\]"),
]


def main():
    data, log, tko, bko, marks = sys.argv[1:6]
    n = int(sys.argv[6]) if len(sys.argv) > 6 else 40
    marks = set(marks.split(","))
    mods = perf_syms.module_maps(log, tko, bko)
    out = subprocess.run(["perf", "script", "-i", data, "-F", "tid,time,ip,sym"],
                         capture_output=True, text=True).stdout
    samples = []
    for line in out.splitlines():
        m = re.match(r"\s*(\d+)\s+([\d.]+):\s+([0-9a-f]+)\s*(.*)", line)
        if not m:
            continue
        tid, t, ip = int(m.group(1)), float(m.group(2)), int(m.group(3), 16)
        name = m.group(4).strip()
        if not name or name == "[unknown]":
            name = perf_syms.resolve(ip, mods) or "[unknown]"
        samples.append((tid, t, name))
    hits = [(tid, t) for tid, t, name in samples if name.split(" ")[0] in marks]
    if not hits:
        sys.exit("no sample in " + ",".join(sorted(marks)))
    tid = collections.Counter(x for x, _ in hits).most_common(1)[0][0]
    windows = []
    for t in sorted(t for x, t in hits if x == tid):
        if windows and t - windows[-1][1] < GAP:
            windows[-1][1] = t
        else:
            windows.append([t, t])
    windows = [w for w in windows if w[1] - w[0] >= MIN_WINDOW]
    count = collections.Counter(name for x, t, name in samples
                                if x == tid and any(a <= t <= b for a, b in windows))
    total = sum(count.values())
    print(f"{total} samples in {len(windows)} windows of thread {tid}: " +
          " ".join(f"{1000 * (b - a):.0f} ms" for a, b in windows))
    for name, c in count.most_common(n):
        print(f"{100.0 * c / total:6.2f}%  {name}")
    groups = collections.Counter()
    for name, c in count.items():
        for g, rx in GROUPS:
            if re.search(rx, name):
                groups[g] += c
                break
        else:
            groups["other"] += c
    print("groups: " + ", ".join(f"{g} {100.0 * groups[g] / total:.1f}%"
                                 for g in [g for g, _ in GROUPS] + ["other"]))


if __name__ == "__main__":
    main()
