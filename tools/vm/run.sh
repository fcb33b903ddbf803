#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the test VM once.
#
#   tools/vm/run.sh KDIR INITRD OUTDIR MODE
#
# Writes OUTDIR/console.log (serial console, ttyS0) and OUTDIR/ktap.raw (what the
# guest writes to ttyS1). MODE is passed to /init as tempo_mode= (check, demo).
#
# Environment:
#   TEMPO_VM_TIMEOUT  seconds before the guest counts as hung (900)
#   TEMPO_VM_SMP      vCPUs (2)          TEMPO_VM_MEM  MiB (2048; KASAN needs room)
#   TEMPO_VM_APPEND   extra kernel command line
#   TEMPO_TEST_TIMEOUT  per userspace test program, seconds (600)
#   TEMPO_VM_SHOW=1   copy the console to stdout as it runs
#   TEMPO_VM_BOOT_TIMEOUT  seconds for the kernel to start /init (300)
#
# A boot that has not started /init (its first line, "tempo-vm: mode ...") within
# TEMPO_VM_BOOT_TIMEOUT is killed and booted once more: nothing of tempo has run
# yet, and the KCSAN kernel under TCG has been seen to stall for good in its
# early initcalls (once in 15 boots). The stalled boot's console is kept as
# OUTDIR/console.boot-hang.log, and OUTDIR/boot-retries counts the retries.
#
# Exit status: 0 when QEMU exited by itself, 124 when the guest hung.

set -euo pipefail

kdir=${1:?usage: run.sh KDIR INITRD OUTDIR MODE}
initrd=${2:?}
outdir=${3:?}
mode=${4:?}
tmo=${TEMPO_VM_TIMEOUT:-900}
mkdir -p "$outdir"
console=$outdir/console.log
: >"$outdir/ktap.raw"

# TCG on a busy host starves the vCPUs while guest time runs on. So skip the boot
# check that the PIT interrupt arrives in time ("IO-APIC + timer doesn't work!"
# panics), and give the lockup, RCU-stall and hung-task detectors more slack.
append="console=ttyS0 panic=-1 printk.devkmsg=on no_timer_check watchdog_thresh=60"
append+=" rcupdate.rcu_cpu_stall_timeout=120 sysctl.kernel.hung_task_timeout_secs=300"
append+=" tempo_mode=$mode"
append+=" tempo_test_timeout=${TEMPO_TEST_TIMEOUT:-600} ${TEMPO_VM_APPEND:-}"

qemu=(qemu-system-x86_64
	-accel tcg,thread=multi -cpu max
	-smp "${TEMPO_VM_SMP:-2}" -m "${TEMPO_VM_MEM:-2048}"
	-nodefaults -display none -monitor none -no-reboot
	-serial stdio -serial "file:$outdir/ktap.raw"
	-kernel "$kdir/arch/x86/boot/bzImage" -initrd "$initrd"
	-append "$append")

boot_tmo=${TEMPO_VM_BOOT_TIMEOUT:-300}
rm -f "$outdir/console.boot-hang.log" "$outdir/boot-retries"

# One boot: QEMU's exit status, or 200 when /init had not started by boot_tmo.
boot() {
	local pid show=0 waited=0 rc=0
	: >"$outdir/ktap.raw"
	: >"$console"
	timeout -k 10 "$tmo" "${qemu[@]}" </dev/null >"$console" 2>&1 &
	pid=$!
	if [ "${TEMPO_VM_SHOW:-0}" = 1 ]; then
		tail -n +1 -f --pid="$pid" "$console" &
		show=$!
	fi
	while kill -0 "$pid" 2>/dev/null && ! grep -q '^tempo-vm: mode ' "$console"; do
		if [ "$waited" -ge "$boot_tmo" ]; then
			kill "$pid" 2>/dev/null || true
			rc=200
			break
		fi
		sleep 2
		waited=$((waited + 2))
	done
	if [ "$rc" = 200 ]; then
		wait "$pid" || true
	else
		wait "$pid" || rc=$?
	fi
	[ "$show" = 0 ] || wait "$show" || true
	return "$rc"
}

rc=0
boot || rc=$?
if [ "$rc" = 200 ]; then
	mv "$console" "$outdir/console.boot-hang.log"
	echo 1 >"$outdir/boot-retries"
	echo "run.sh: the kernel had not started /init after ${boot_tmo}s (boot hang);" \
		"booting again. Stalled console: $outdir/console.boot-hang.log" >&2
	rc=0
	boot || rc=$?
	if [ "$rc" = 200 ]; then
		echo "run.sh: the second boot had not started /init after ${boot_tmo}s either;" \
			"giving up. Console: $console" >&2
		exit 124
	fi
fi

if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	echo "run.sh: the guest did not power off within ${tmo}s (hung?); killed QEMU." \
		"Console: $console; set TEMPO_VM_TIMEOUT to allow longer." >&2
	exit 124
fi
if [ "$rc" != 0 ]; then
	echo "run.sh: QEMU exited with status $rc; console: $console" >&2
	tail -n 5 "$console" >&2
	exit "$rc"
fi
