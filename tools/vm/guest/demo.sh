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
for f in $(find /sys/kernel/debug/tempo -type f | sort); do
	step "debugfs ${f#/sys/kernel/debug/}" cat "$f"
done

# /dev/tempo from userspace (tools/tempoctl; see README "Using /dev/tempo").
if command -v tempoctl >/dev/null; then
	step "what /dev/tempo offers" tempoctl info
	step "10000 timers spread over 1 s: every one on time, none early" \
		tempoctl arm count 10000 delay 100ms spread 1s
	step "a periodic timer, 20 ms" tempoctl watch period 20ms count 5
	step "arm 10000 timers, cancel them by cookie in one call" \
		tempoctl cancel count 10000 cookie
	step "a parallel pipeline: workers finish out of order, records come in order" \
		tempoctl order-demo workers 4 items 16
	step "the same pipeline writing its output itself, through a sink (no writer thread)" \
		sh -c 'tempoctl order-demo workers 4 items 12 sink | cat'
	step "the same numbers as JSON" tempoctl -j cancel count 1000
	step "module counters: nothing left behind" tempoctl stats
fi
# A client module (tools/examples/): timers, ordered completions, delay queue.
for ko in /tempo/extra/tempo_example.ko; do
	[ -f "$ko" ] || continue
	step "another module using tempo's API" insmod "$ko"
	step "what it reported" sh -c 'dmesg | grep tempo_example'
	rmmod tempo_example
done
echo
