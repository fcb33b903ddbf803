#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make compat`: build tempo against every supported kernel and test it on each.
#
#   6.1-headers  Debian 12's own headers (linux-headers-amd64): build only, W=1 C=2
#   6.12, 7.2    linux-source from trixie / sid (tools/compat/fetch.sh), the debug test
#                kernel with tracing ("tempo+trace"): W=1 C=2 build, then `make check`
#
# Each kernel works on its own copy of the tree in build/compat/<kernel>/, so the
# checkout's objects are untouched and one kernel's objects never meet another's.
# A kernel passes when its build has no warning at all (compiler, sparse, modpost) and
# its tests pass. One line per kernel, then "N passed, N failed" (kernels), which is
# also written to build/compat/summary.txt.
#
# Environment: TEMPO_COMPAT_KERNELS (default "6.1-headers 6.12 7.2").

set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$root/build/compat
kernels=${TEMPO_COMPAT_KERNELS:-6.1-headers 6.12 7.2}
passed=0
failed=0
lines=()

mkdir -p "$out"
# A sparse new enough for every kernel (tools/compat/sparse.sh); without one, C=2 would be
# skipped silently on 7.2, so that counts as a failed build.
sparse=$("$root/tools/compat/sparse.sh") || sparse=

# The headers the linux-headers-amd64 metapackage points at.
debian_headers() {
	local dep
	dep=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null) || return 1
	dep=${dep%% *}
	[ -f "/usr/src/$dep/Makefile" ] && echo "/usr/src/$dep"
}

copy_tree() {
	rm -rf "$1"
	mkdir -p "$1"
	rsync -a --exclude /.git --exclude /build "$root/" "$1/"
}

# build KDIR TREE LOG: W=1 with sparse on every file; prints the warning count.
build() {
	make -C "$2" clean KDIR="$1" >/dev/null 2>&1
	if [ -z "$sparse" ] || ! make -C "$1" M="$2" W=1 C=2 CHECK="$sparse" modules >"$3" 2>&1; then
		echo fail
		return
	fi
	grep -cE 'warning:|error:|^WARNING|not available or not up to date' "$3"
}

describe() {	# describe WARNINGS
	case $1 in
	fail) echo "build failed" ;;
	0) echo "W=1 C=2 clean" ;;
	*) echo "W=1 C=2: $1 warnings" ;;
	esac
}

result() {	# result KERNEL OK TEXT
	if [ "$2" = 1 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
	lines+=("$(printf 'compat: %-12s %s %s' "$1" "$([ "$2" = 1 ] && echo PASS || echo FAIL)" "$3")")
	echo "${lines[-1]}"
}

for k in $kernels; do
	start=$(date +%s)
	tree=$out/$k
	case $k in
	*-headers)
		kdir=$(debian_headers) || { result "$k" 0 "no linux-headers-amd64 (make deps)"; continue; }
		copy_tree "$tree"
		w=$(build "$kdir" "$tree" "$tree/build.log")
		if [ "$w" = 0 ]; then
			result "$k" 1 "$(basename "$kdir"): built, W=1 C=2 clean ($(($(date +%s) - start)) s)"
		else
			grep -E 'warning:|error:|^WARNING' "$tree/build.log" | head -n 20
			result "$k" 0 "$(basename "$kdir"): $(describe "$w") (build/compat/$k/build.log)"
		fi
		;;
	*)
		if ! "$root/tools/compat/fetch.sh" "$k" ||
			! kdir=$(TEMPO_KVER=$k "$root/tools/vm/kernel.sh" tempo+trace); then
			result "$k" 0 "the test kernel did not build"
			continue
		fi
		copy_tree "$tree"
		w=$(build "$kdir" "$tree" "$tree/build.log")
		[ "$w" = 0 ] || grep -E 'warning:|error:|^WARNING' "$tree/build.log" | head -n 20
		make -C "$tree" check KERNEL="$k" </dev/null >"$tree/check.log" 2>&1
		# The verdict check.sh wrote (make's own lines come after it in check.log).
		sum=$(tail -n 1 "$tree/build/check/summary.txt" 2>/dev/null)
		[ -n "$sum" ] || sum=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$tree/check.log" | tail -n 1)
		[ -n "$sum" ] || sum="no summary (build/compat/$k/check.log)"
		ok=0
		[ "$w" = 0 ] && grep -qE '^[0-9]+ passed, 0 failed' <<<"$sum" && ok=1
		[ "$ok" = 1 ] || tail -n 30 "$tree/check.log"
		result "$k" "$ok" "$(describe "$w"); check: $sum ($(($(date +%s) - start)) s)"
		;;
	esac
done

echo
printf '%s\n' "${lines[@]}"
# Also in build/compat/summary.txt, for callers that read the verdict after make's own
# "Error" line (as .ci/run does with build/check/summary.txt).
echo "$passed passed, $failed failed" | tee "$out/summary.txt"
[ "$failed" = 0 ]
