#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`: boot the test VM, load tempo.ko, run tools/vm/guest/demo.sh in the
# guest (extend that script with more steps), power off. The console is shown
# as it runs and kept in build/demo/console.log.

set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
vm=$root/tools/vm
out=$root/build/demo

kdir=$("$vm/kernel.sh" "${TEMPO_KVARIANT:-tempo}")
make -C "$kdir" M="$root" modules
"$vm/initramfs.sh" "$kdir" "$root/build/vm/initramfs.cpio.gz"
rm -rf "$out"
TEMPO_VM_SHOW=1 TEMPO_VM_APPEND="quiet ${TEMPO_VM_APPEND:-}" \
	"$vm/run.sh" "$kdir" "$root/build/vm/initramfs.cpio.gz" "$out" demo
if grep -q '^tempo-vm: FAIL' "$out/console.log"; then
	echo "demo: failed (see build/demo/console.log)" >&2
	exit 1
fi
grep -q '^tempo-vm: done' "$out/console.log" || {
	echo "demo: the guest did not finish (see build/demo/console.log)" >&2
	exit 1
}
