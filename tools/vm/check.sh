#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: build the test kernel (cached) and the modules against it, pack
# the initramfs, boot the VM, run every KUnit suite and userspace test program,
# and print a summary whose last line is "N passed, N failed[, N skipped]".
#
# Environment: TEMPO_KVARIANT (kernel variant, default "tempo"), TEMPO_EXTRA_KOS
# (more modules to load and collect suites from), TEMPO_CHECK_OUT (output
# directory, default build/check), TEMPO_KCSAN_SCOPE (space-separated regexes: a
# KCSAN report counts as a failure only if one matches its text, e.g. its
# stacks; see summarize.py --kcsan-scope), TEMPO_KCSAN_SCOPE_TOP (likewise, but
# matched only against the function that made each access: --kcsan-scope-top),
# TEMPO_MAKE_FLAGS (extra make arguments for the module build), TEMPO_TESTING
# (default 1: the modules are built with their test points, kmod/testing.h),
# plus those of run.sh.
# Outputs in the output directory: console.log, ktap.raw, results.ktap,
# results.json, kunit-parse.txt, modules.log.

set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
vm=$root/tools/vm
out=${TEMPO_CHECK_OUT:-$root/build/check}
variant=${TEMPO_KVARIANT:-tempo}
start=$(date +%s)

rm -rf "$out"
mkdir -p "$out"
# Any failure before the VM's verdict still ends with a summary line.
trap 'echo "check: failed before the tests could run"; echo "0 passed, 1 failed" | tee "$out/summary.txt"' ERR

kdir=$("$vm/kernel.sh" "$variant")

echo "check: building modules against $kdir"
# shellcheck disable=SC2086 # TEMPO_MAKE_FLAGS is a list of words
if ! make -C "$kdir" M="$root" TEMPO_TESTING="${TEMPO_TESTING:-1}" ${TEMPO_MAKE_FLAGS:-} modules >"$out/modules.log" 2>&1; then
	cat "$out/modules.log"
	false
fi
grep -E 'warning:|error:' "$out/modules.log" || true

# How many top-level results to expect: the suites compiled into each test
# module (.kunit_test_suites holds one pointer per suite), the programs, and the
# guest's module_unload.
count_suites() {
	local size
	size=$(readelf -S -W "$1" | sed -n \
		's/.* \.kunit_test_suites  *[A-Z_]*  *[0-9a-f]*  *[0-9a-f]*  *\([0-9a-f]*\) .*/\1/p')
	echo $((0x${size:-0} / 8))
}
expect=1
for ko in "$root/kunit/tempo_test.ko" ${TEMPO_EXTRA_KOS:-}; do
	expect=$((expect + $(count_suites "$ko")))
done
for f in "$root"/build/guest/tests/* "$vm"/guest/tests/*; do
	[ -f "$f" ] && [ -x "$f" ] && expect=$((expect + 1))
done

initrd=$root/build/vm/initramfs.cpio.gz
"$vm/initramfs.sh" "$kdir" "$initrd"

echo "check: booting the VM (console: ${out#"$root"/}/console.log)"
vm_rc=0
"$vm/run.sh" "$kdir" "$initrd" "$out" check || vm_rc=$?
if [ -f "$out/boot-retries" ]; then
	echo "check: the first boot stalled before /init and was retried" \
		"(${out#"$root"/}/console.boot-hang.log)"
fi

tr -d '\r' <"$out/ktap.raw" >"$out/results.ktap"
parse_rc=0
if [ -s "$out/results.ktap" ]; then
	python3 "$kdir/source/tools/testing/kunit/kunit.py" parse \
		--json="$out/results.json" "$out/results.ktap" \
		>"$out/kunit-parse.txt" 2>&1 || parse_rc=$?
fi

trap - ERR
echo "check: done in $(($(date +%s) - start)) s; results in ${out#"$root"/}/"
scope=()
set -f	# the regexes are words, not file patterns
for r in ${TEMPO_KCSAN_SCOPE:-}; do scope+=("--kcsan-scope=$r"); done
for r in ${TEMPO_KCSAN_SCOPE_TOP:-}; do scope+=("--kcsan-scope-top=$r"); done
set +f
python3 "$vm/summarize.py" --json "$out/results.json" --ktap "$out/results.ktap" \
	--console "$out/console.log" --allow "$vm/log-allow.txt" --expect "$expect" \
	--parse-rc "$parse_rc" --parse-log "$out/kunit-parse.txt" --vm-rc "$vm_rc" \
	"${scope[@]}" | tee "$out/summary.txt"
exit "${PIPESTATUS[0]}"
