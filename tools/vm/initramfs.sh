#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Pack the test VM's initramfs; no root needed (gen_init_cpio writes the owners
# and device nodes itself).
#
#   tools/vm/initramfs.sh KDIR OUT.cpio.gz
#
# Contents:
#   /init, /tempo/demo.sh      from tools/vm/guest/
#   /bin/busybox               static busybox (applet links made by /init)
#   /tempo/tempo.ko, /tempo/tempo_test.ko   built modules (must exist)
#   /tempo/extra/*.ko          each path in $TEMPO_EXTRA_KOS (space separated)
#   /tempo/tests/*             executables in build/guest/tests/ and tools/vm/guest/tests/
#                              (KTAP on stdout)
#   /tempo/bin/*               executables in build/guest/bin/ (on PATH)

set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
kdir=${1:?usage: initramfs.sh KDIR OUT.cpio.gz}
out=${2:?usage: initramfs.sh KDIR OUT.cpio.gz}
busybox=${BUSYBOX:-/bin/busybox}
work=$(dirname "$out")
mkdir -p "$work"

die() { echo "initramfs.sh: error: $*" >&2; exit 1; }

[ -x "$busybox" ] && { ldd "$busybox" 2>&1 || true; } | grep -q 'not a dynamic' ||
	die "$busybox is not a static busybox (install busybox-static)"

# gen_init_cpio is one C file in the kernel source; build our own copy of it.
gen=$work/gen_init_cpio
gensrc=$kdir/source/usr/gen_init_cpio.c
[ -f "$gensrc" ] || gensrc=$kdir/usr/gen_init_cpio.c
[ -f "$gensrc" ] || die "no usr/gen_init_cpio.c under $kdir"
if [ ! -x "$gen" ] || [ "$gensrc" -nt "$gen" ]; then
	gcc -O2 -o "$gen" "$gensrc"
fi

list=$work/initramfs.list
{
	echo "dir /dev 0755 0 0"
	echo "nod /dev/console 0600 0 0 c 5 1"
	for d in /bin /proc /sys /tmp /tempo /tempo/extra /tempo/tests /tempo/bin; do
		echo "dir $d 0755 0 0"
	done
	echo "file /bin/busybox $busybox 0755 0 0"
	echo "file /init $root/tools/vm/guest/init 0755 0 0"
	echo "file /tempo/demo.sh $root/tools/vm/guest/demo.sh 0755 0 0"
	for ko in "$root/kmod/tempo.ko" "$root/kunit/tempo_test.ko"; do
		[ -f "$ko" ] || die "$ko not built"
		echo "file /tempo/$(basename "$ko") $ko 0644 0 0"
	done
	for ko in ${TEMPO_EXTRA_KOS:-}; do
		[ -f "$ko" ] || die "extra module $ko not found"
		echo "file /tempo/extra/$(basename "$ko") $(realpath "$ko") 0644 0 0"
	done
	for sub in tests bin; do
		for f in "$root/build/guest/$sub"/*; do
			[ -f "$f" ] && [ -x "$f" ] || continue
			echo "file /tempo/$sub/$(basename "$f") $f 0755 0 0"
		done
	done
	# Guest-side test scripts (e.g. tempo_trace, the tracepoints on a tracing kernel).
	for f in "$root/tools/vm/guest/tests"/*; do
		[ -f "$f" ] && [ -x "$f" ] || continue
		echo "file /tempo/tests/$(basename "$f") $f 0755 0 0"
	done
} >"$list"

"$gen" "$list" | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
