#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Copy the kernel's userspace rbtree (tools/include/linux/rbtree.h,
# rbtree_augmented.h and tools/lib/rbtree.c: the copy perf builds) into
# $1/ksrc/ for the userspace build of kmod/delayq.c. Taken from the
# linux-source tree that tools/vm/kernel.sh extracted into the cache, or, if
# there is none, from Debian's /usr/src/linux-source-6.1.tar.xz (make deps).
# Nothing is kept in the repository.
set -eu
out=$1/ksrc
kver=${TEMPO_KVER:-6.1}
files="tools/include/linux/rbtree.h tools/include/linux/rbtree_augmented.h tools/lib/rbtree.c"
cache=${XDG_CACHE_HOME:-$HOME/.cache}/tempo
mkdir -p "$out/linux"
src=$(ls -d "$cache"/src-"$kver"-*/linux-source-"$kver" 2>/dev/null | tail -1 || true)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$src" ] || [ ! -f "$src/tools/lib/rbtree.c" ]; then
	tarball=/usr/src/linux-source-$kver.tar.xz
	[ -f "$tarball" ] || { echo "rbtree.sh: no linux-source-$kver (run make deps)" >&2; exit 1; }
	members=""
	for f in $files; do members="$members linux-source-$kver/$f"; done
	# shellcheck disable=SC2086
	tar -xJf "$tarball" -C "$tmp" $members
	src=$tmp/linux-source-$kver
fi
cp "$src/tools/include/linux/rbtree.h" "$src/tools/include/linux/rbtree_augmented.h" "$out/linux/"
cp "$src/tools/lib/rbtree.c" "$out/rbtree.c"
