#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-iso`: the isolation lane (tools/bench/README.md, "Isolation").
# Two TCG boots of tools/bench/run.sh with TEMPO_BENCH_ONLY=iso:
#   isolated  kernel variant bench+nohz (bench.config + nohz.config: NO_HZ_FULL),
#             booted with nohz_full=1 isolcpus=nohz,domain,1 irqaffinity=0; the
#             guest fails the run unless CPU 1 is nohz_full;
#   plain     the bench kernel, no isolation: the same program, for comparison.
# In each, a process pinned to CPU 1 arms 10,000 unpinned timers through
# /dev/tempo over about a second and reads their records (tools/bench/isoarm.c),
# against the same program arming nothing; per CPU, the run's LOC, CAL and RES
# interrupts and tempo's wheel expiries, work items and kicks. The lane passes
# when, in the isolated boot's sleep runs (where the timers fire; a polling
# reader makes /dev/tempo arm none), tempo's wheel expired on CPU 0 in every
# run and on CPU 1 in none.
# Kernels are built on demand (tools/vm/kernel.sh; bench+nohz once, a few minutes).
#
#   tools/bench/iso.sh
#
# Environment: TEMPO_BENCH_REPS (3) repetitions per boot; TEMPO_ISO_BOOTS
# ("isolated plain") which boots, in order. Writes build/bench-iso/LABEL.raw
# (the guest's lines), LABEL.console.log and summary.txt.

set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$root/build/bench-iso
msg() { echo "bench-iso: $*" >&2; }
die() { msg "error: $*"; exit 1; }

mkdir -p "$out"
boot() {	# boot LABEL VARIANT ISO APPEND
	msg "$1 boot: kernel variant $2, extra command line '$4'"
	rm -f "$out/$1.raw"
	TEMPO_BENCH_KVARIANT=$2 TEMPO_BENCH_ONLY=iso TEMPO_BENCH_ISO=$3 \
		TEMPO_BENCH_REPS=${TEMPO_BENCH_REPS:-3} TEMPO_VM_APPEND="$4" \
		"$root/tools/bench/run.sh" >/dev/null || die "$1 boot failed"
	cp "$root/build/bench/vm/ktap.raw" "$out/$1.raw"
	cp "$root/build/bench/vm/console.log" "$out/$1.console.log"
}
boots=${TEMPO_ISO_BOOTS:-isolated plain}
for b in $boots; do
	case $b in
	isolated) boot isolated bench+nohz 1 "nohz_full=1 isolcpus=nohz,domain,1 irqaffinity=0" ;;
	plain) boot plain bench 0 "" ;;
	*) die "TEMPO_ISO_BOOTS: '$b' is neither isolated nor plain" ;;
	esac
done

# shellcheck disable=SC2086 # $boots: one argument per boot
python3 - "$out" $boots <<'PY' | tee "$out/summary.txt"
import statistics, sys
out = sys.argv[1]
STATS = ("loc", "cal", "res", "wheel_expiries", "work_items", "kicks")
rows, bad = {}, []
for label in sys.argv[2:]:
    for line in open(f"{out}/{label}.raw", errors="replace"):
        f = line.split()
        if f[:1] == ["BENCH-ERR"]:
            bad.append(f"{label}: {line.strip()}")
        if f[:1] != ["BENCH"] or "name=iso" not in f:
            continue
        kv = dict(x.split("=", 1) for x in f[1:] if "=" in x)
        key = (label, kv["mode"], kv["system"], kv["cpu"])
        rows.setdefault(key, {}).setdefault(kv["stat"], []).append(int(kv["value"]))
print("isolation lane: per run of isoarm (10,000 timers over ~1 s, or none), per CPU;")
print("median [min-max] over repetitions. tempo's timers are armed from CPU 1.")
print(f"{'boot':9} {'mode':5} {'system':6} {'cpu':3} " + " ".join(f"{s:>16}" for s in STATS))
for key in sorted(rows):
    v = rows[key]
    cells = []
    for s in STATS:
        x = v.get(s, [])
        cells.append(f"{statistics.median(x):.0f} [{min(x)}-{max(x)}]" if x else "-")
    print(f"{key[0]:9} {key[1]:5} {key[2]:6} {key[3]:3} " + " ".join(f"{c:>16}" for c in cells))
for b in bad:
    print("ERROR", b)
def runs(label, cpu):	# tempo's wheel expiries per sleep run (poll arms no timer)
    return [x for (l, m, s, c), v in sorted(rows.items())
            if (l, m, s, c) == (label, "sleep", "tempo", cpu) for x in v.get("wheel_expiries", [])]
iso1, iso0, plain1 = runs("isolated", "1"), runs("isolated", "0"), runs("plain", "1")
# Not vacuous: the timers did expire, on the housekeeping CPU.
ok = bool(iso1) and not bad and max(iso1) == 0 and min(iso0) > 0
if "isolated" not in sys.argv[2:]:
    print("isolated: not run (TEMPO_ISO_BOOTS)")
print(f"isolated, sleep: tempo wheel expiries on CPU 1 per run {iso1}, on CPU 0 {iso0}"
      f" -> {'PASS' if ok else 'FAIL'} (CPU 1: all 0; CPU 0: each > 0)")
print(f"plain, sleep (for comparison): tempo wheel expiries on CPU 1 per run {plain1}")
sys.exit(0 if ok else 1)
PY
