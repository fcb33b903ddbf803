#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Flat profile of a `make bench-native` boot recorded with TEMPO_BENCH_PERF=1.

    perf-syms.py PERF.DATA BOOT.LOG TEMPO.KO TEMPO_BENCH.KO [N]

perf resolves the UML kernel's own symbols from its `linux` binary; the
modules live in UML's memory (a host file mapping), so their samples come out
unresolved. This maps them through the .text addresses the guest printed
(BENCH-INFO tempo_text=, bench_text=) and `nm` of the two .ko files, and
prints the N (40) hottest symbols with their share of all samples.
"""
import bisect
import collections
import re
import subprocess
import sys


def syms(ko):
    out = subprocess.run(["nm", "--defined-only", ko], capture_output=True, text=True).stdout
    s = []
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in "tT":
            s.append((int(p[0], 16), p[2]))
    return sorted(s)


def module_maps(log, tko, bko):
    """The two modules' .text bases (from the boot log) with their symbols."""
    text = {}
    for line in open(log, errors="replace"):
        for k, v in re.findall(r"(tempo_text|bench_text)=(0x[0-9a-f]+)", line):
            text[k] = int(v, 16)
    return [(text.get("tempo_text"), syms(tko), "tempo"),
            (text.get("bench_text"), syms(bko), "tempo_bench")]


def resolve(ip, mods):
    """The module symbol of an address perf left unresolved, or None."""
    for base, s, mod in mods:
        if base is None or not s or ip < base or ip >= base + s[-1][0] + 4096:
            continue
        i = bisect.bisect_right([a for a, _ in s], ip - base) - 1
        if i >= 0:
            return f"{s[i][1]} [{mod}]"
    return None


def main():
    data, log, tko, bko = sys.argv[1:5]
    n = int(sys.argv[5]) if len(sys.argv) > 5 else 40
    mods = module_maps(log, tko, bko)
    out = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym"],
                         capture_output=True, text=True).stdout
    count = collections.Counter()
    total = 0
    for line in out.splitlines():
        p = line.split(None, 1)
        if not p:
            continue
        total += 1
        ip = int(p[0], 16)
        name = p[1].strip() if len(p) > 1 and p[1].strip() != "[unknown]" else None
        count[name or resolve(ip, mods) or "[unknown]"] += 1
    print(f"{total} samples")
    for name, c in count.most_common(n):
        print(f"{100.0 * c / total:6.2f}%  {name}")


if __name__ == "__main__":
    main()
