#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run every userspace test of tools/user-cores (see user.mk); one KTAP line per
# test, a closing "N passed, N failed", nonzero exit on any failure. A test
# passes on exit status 0 alone: the det tests' harness (tools/uapi-tests/harness.h)
# exits nonzero when a case fails, the stress tests when a conservation check
# fails, libFuzzer on a crash.
# A TSan report, an ASan/UBSan report, a libFuzzer crash or a timeout fails.
# The benchmarks are not a test: user-build compiles them, make user-bench
# runs them.
set -u
out=${1:-build/user}
secs=${USER_STRESS_SECS:-3}
fuzz=${USER_FUZZ_SECS:-60}
ofuzz=${USER_ORDER_FUZZ_SECS:-20}
dfuzz=${USER_DELAYQ_FUZZ_SECS:-25}
# Each test's timeout: the longest fuzzing budget and some.
longest=$fuzz
for f in $ofuzz $dfuzz; do
	[ "$f" -gt "$longest" ] && longest=$f
done
pass=0 fail=0 n=0
export TSAN_OPTIONS="halt_on_error=0 exitcode=66 report_signal_unsafe=0"
export ASAN_OPTIONS="detect_leaks=1"
export UBSAN_OPTIONS="print_stacktrace=1 halt_on_error=1"

tests=(
	"wheel_det|$out/wheel_det_test"
	"wheel_stress_tsan_real_4cpu|$out/wheel_stress $secs 4 real"
	"wheel_stress_tsan_fake_3cpu|$out/wheel_stress $secs 3 fake"
	"wheel_fuzz|$out/wheel_fuzz -max_total_time=$fuzz -max_len=256 -timeout=10 -artifact_prefix=$out/ $out/corpus tools/user-cores/corpus/wheel"
	"order_det|$out/order_det_test"
	"order_stress_tsan_4cpu|$out/order_stress $secs 4"
	"order_stress_tsan_deadline_3cpu|$out/order_stress $secs 3 deadline"
	"order_fuzz|$out/order_fuzz -max_total_time=$ofuzz -max_len=256 -timeout=10 -artifact_prefix=$out/ $out/corpus_order tools/user-cores/corpus/order"
	"delayq_stress_tsan_4cpu|$out/delayq_stress $secs 4"
	"delayq_det|$out/delayq_det_test"
	"delayq_fuzz|$out/delayq_fuzz -max_total_time=$dfuzz -max_len=512 -timeout=10 -artifact_prefix=$out/ $out/corpus_delayq tools/user-cores/corpus/delayq"
	"clock_det|$out/clock_det_test"
	"harness|$out/harness_test"
	"fault_det|$out/fault_det_test"
)
echo "KTAP version 1"
echo "1..${#tests[@]}"
mkdir -p "$out/corpus" "$out/corpus_order" "$out/corpus_delayq" "$out/logs"
for t in "${tests[@]}"; do
	name=${t%%|*}
	cmd=${t#*|}
	n=$((n + 1))
	log=$out/logs/$name.log
	timeout --foreground $((secs * 10 + longest + 120)) $cmd >"$log" 2>&1
	rc=$?
	grep -E "^# (SUMMARY|Totals:)" "$log" | sed 's/^/# /'
	if [ $rc -eq 0 ] && ! grep -qE "WARNING: ThreadSanitizer|ERROR: AddressSanitizer|runtime error:" "$log"; then
		echo "ok $n $name"
		pass=$((pass + 1))
	else
		grep -E "^not ok|: Expected |SUMMARY: |EARLY|ORDER|OVERLAP|DUP|WRONG|HERD|CONSERVATION|wheel_fuzz:|order_fuzz:|delayq_fuzz:|WARNING:" "$log" | sort | uniq -c | sort -rn | head -8 | sed 's/^/# /'
		echo "# see $log (exit $rc)"
		echo "not ok $n $name"
		fail=$((fail + 1))
	fi
done
echo "# test-user: $pass passed, $fail failed"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
