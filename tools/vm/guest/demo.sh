#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make demo`, run by /init with tempo.ko loaded and PATH holding
# /tempo/bin (where userspace tools from build/guest/bin are installed).
# Add steps with `step "<title>" <command...>`.

step() {
	echo
	echo "### $1"
	shift
	echo "\$ $*"
	"$@"
}

step "the device node" ls -l /dev/tempo
step "the module" grep -w ^tempo /proc/modules
for f in /sys/module/tempo/parameters/*; do
	[ -e "$f" ] && step "parameter $(basename "$f")" cat "$f"
done
for f in /sys/kernel/debug/tempo/*; do
	[ -f "$f" ] && step "debugfs $(basename "$f")" cat "$f"
done
echo
