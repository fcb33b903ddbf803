#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make litmus`: run every tools/litmus/*.litmus with herd7 and the Linux-kernel memory model
# (tools/memory-model of the kernel source that tools/vm/kernel.sh extracted) and check it.
#
#   tools/litmus/run.sh [TEST.litmus...]
#
# Each test's header comment carries two lines the runner reads:
#   Result: Never|Sometimes|Always   what herd7 must report for the test as written
#   Weaken: L1 L2+L3 ...             for each item, the lines of the test tagged
#                                    "// LMM(L)" (every L of a "+" group at once) are
#                                    weakened: acquire/release/full RMWs become _relaxed,
#                                    smp_load_acquire/smp_store_release become
#                                    READ_ONCE/WRITE_ONCE, smp_mb() is deleted. Each
#                                    weakened copy must no longer be "Never": the barrier
#                                    at that label is what the result depends on.
#   File: kmod/x.c                   the source the labels come from: every label with a
#                                    colon must occur there as "LMM(label)", so a test
#                                    cannot outlive the barrier it encodes. (Labels without
#                                    a colon name the kernel's side of a pair, e.g.
#                                    set_current_state.) Skipped while the file is not on
#                                    this branch.
# A test whose weakened copies stay "Never" checks nothing; the runner fails it.
#
# Environment: HERD7 (a herd7 command; default: tools/litmus/herd7.sh fetches one),
# LKMM_DIR (default: tools/memory-model of the cached kernel source), TEMPO_CACHE.
# Output: one "ok"/"not ok" line per check; the last line is "N passed, N failed".

set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${TEMPO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tempo}
herd=$("$here/herd7.sh")
lkmm=${LKMM_DIR:-}
if [ -z "$lkmm" ]; then
	lkmm=$(ls -d "$cache"/src-6.1-*/linux-source-6.1/tools/memory-model 2>/dev/null | tail -n1)
fi
[ -f "$lkmm/linux-kernel.cfg" ] || {
	echo "litmus: no tools/memory-model (run 'make kernel' to extract the source, or set LKMM_DIR)"
	echo "0 passed, 1 failed"
	exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
notok() { fail=$((fail + 1)); echo "not ok - $*"; }

# herd7's verdict for one file: Never, Sometimes or Always.
verdict() {
	(cd "$lkmm" && timeout 120 $herd -conf linux-kernel.cfg "$1") >"$tmp/out" 2>&1 || true
	sed -n 's/^Observation [^ ]* \([A-Za-z]*\) .*/\1/p' "$tmp/out"
}

weaken() {	# weaken FILE LABELS(+-separated) > OUT
	LABELS=$2 perl -pe '
		BEGIN { @l = split /\+/, $ENV{LABELS}; }
		my $hit = 0;
		for my $l (@l) { $hit = 1 if index($_, "LMM($l)") >= 0; }
		if ($hit) {
			s/\b(cmpxchg|xchg)(_acquire|_release)?\(/$1_relaxed(/g;
			s/\batomic_(\w+?)(_acquire|_release)?\(/atomic_$1_relaxed(/g
				if !/atomic_\w+_relaxed\(/;
			s/\bsmp_load_acquire\((\w+)\)/READ_ONCE(*$1)/g;
			s/\bsmp_store_release\((\w+),/WRITE_ONCE(*$1,/g;
			s/\bsmp_mb\(\);//g;
		}' "$1"
}

tests=("$@")
[ "${#tests[@]}" -gt 0 ] || tests=("$here"/*.litmus)
for t in "${tests[@]}"; do
	t=$(realpath "$t")
	name=$(basename "$t" .litmus)
	want=$(sed -n 's/^ \* Result: *\([A-Za-z]*\).*/\1/p' "$t" | head -n1)
	weak=$(sed -n 's/^ \* Weaken: *//p' "$t" | head -n1)
	if [ -z "$want" ]; then
		notok "$name: no ' * Result:' line in its header"
		continue
	fi
	src=$(sed -n 's/^ \* File: *//p' "$t" | head -n1)
	if [ -z "$src" ]; then
		notok "$name: no ' * File:' line in its header"
	elif [ ! -f "$here/../../$src" ]; then
		echo "ok - $name: labels in $src # SKIP $src is not on this branch"
	else
		missing=$(grep -o 'LMM([a-z_]*:[A-Z])' "$t" | sort -u | while read -r l; do
			grep -qF "$l" "$here/../../$src" || echo "$l"; done)
		if [ -n "$missing" ]; then
			notok "$name: not in $src: "$missing
		else
			ok "$name: every label is in $src"
		fi
	fi
	got=$(verdict "$t")
	if [ "$got" = "$want" ]; then
		ok "$name: $got"
	else
		notok "$name: herd7 says '${got:-nothing}', expected $want"
		sed 's/^/#   /' "$tmp/out" | head -n 20
	fi
	[ "$want" = Never ] || continue
	if [ -z "$weak" ]; then
		notok "$name: no ' * Weaken:' line; nothing shows the test depends on a barrier"
		continue
	fi
	for w in $weak; do
		first=${w%%+*}
		grep -qF "LMM($first)" "$t" || { notok "$name: Weaken names $first, no line tagged LMM($first)"; continue; }
		weaken "$t" "$w" >"$tmp/$name.litmus"
		got=$(verdict "$tmp/$name.litmus")
		if [ -n "$got" ] && [ "$got" != Never ]; then
			ok "$name without $w: $got"
		else
			notok "$name without $w: herd7 says '${got:-nothing}'; the barrier is not what the result rests on"
		fi
	done
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
