#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or find in the cache) the SMP User-Mode Linux kernel of
# `make bench-native` and print its directory (the `linux` binary is
# DIR/linux, the module build dir is DIR).
#
#   tools/bench/uml/kernel.sh [--path]
#
# The source is linux-source-7.2 from tools/compat/fetch.sh, extracted into a
# private copy under the cache and patched with tools/bench/uml/*.patch (in
# name order); the config is ARCH=um defconfig plus uml.config. The directory
# is keyed like tools/vm/kernel.sh's: source package version, the patches'
# and the fragment's content, the compiler. A build is used only once its
# ".tempo-complete" stamp exists.
#
# Environment: TEMPO_CACHE (cache root), V=1 (show the build output).

set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
kver=7.2
cache=${TEMPO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tempo}
pkgdir=$cache/pkg/linux-source-$kver

msg() { echo "uml/kernel.sh: $*" >&2; }
die() { msg "error: $*"; exit 1; }

path_only=0
[ "${1:-}" != "--path" ] || path_only=1

[ -f "$pkgdir/VERSION" ] || "$root/tools/compat/fetch.sh" "$kver" >&2 ||
	die "could not fetch linux-source-$kver"
srcver=$(cat "$pkgdir/VERSION")
tarball=$pkgdir/usr/src/linux-source-$kver.tar.xz
[ -f "$tarball" ] || die "$tarball missing"

patches=("$here"/*.patch)
key=$( {
	echo "source $kver $srcver"
	gcc --version | head -n1
	cat "${patches[@]}" "$here/uml.config"
	sed -n '/^# build steps/,$p' "$0"
} | sha256sum | cut -c1-12)

dir=$cache/uml-$kver-$key
if [ "$path_only" = 1 ]; then
	echo "$dir"
	exit 0
fi
[ -f "$dir/.tempo-complete" ] && { echo "$dir"; exit 0; }

mkdir -p "$cache"
exec 9>"$cache/.lock-uml-$kver-$key"
flock -n 9 || { msg "waiting for another build of $dir"; flock 9; }
[ -f "$dir/.tempo-complete" ] && { echo "$dir"; exit 0; }

# build steps (their text is part of the key)
src=$dir/src
log=$dir/build.log
mkdir -p "$dir"
: >"$log"
start=$(date +%s)
if [ ! -f "$src/.tempo-patched" ]; then
	msg "extracting $tarball into $src"
	rm -rf "$src" "$dir/src.tmp"
	mkdir -p "$dir/src.tmp"
	tar -xf "$tarball" -C "$dir/src.tmp"
	for p in "${patches[@]}"; do
		msg "applying $(basename "$p")"
		patch -d "$dir/src.tmp/linux-source-$kver" -p1 --no-backup-if-mismatch \
			<"$p" >>"$log" || die "$(basename "$p") does not apply"
	done
	mv "$dir/src.tmp/linux-source-$kver" "$src"
	rmdir "$dir/src.tmp"
	touch "$src/.tempo-patched"
fi
kmake() {
	if [ "${V:-0}" = 1 ]; then
		nice make -C "$src" ARCH=um SUBARCH=x86_64 "$@" >&2
	else
		nice make -C "$src" ARCH=um SUBARCH=x86_64 "$@" >>"$log" 2>&1
	fi
}
fail() { msg "build failed: $1 (log: $log)"; tail -n 30 "$log" >&2; exit 1; }
msg "building UML $kver in $src (log: $log)"
kmake defconfig || fail defconfig
(cd "$src" && ARCH=um SUBARCH=x86_64 scripts/kconfig/merge_config.sh -m .config \
	"$here/uml.config") >>"$log" 2>&1 || fail merge_config.sh
kmake olddefconfig || fail olddefconfig
missing=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*) grep -qxF -- "$line" "$src/.config" || { msg "not taken: $line"; missing=1; } ;;
	esac
done <"$here/uml.config"
[ "$missing" = 0 ] || die "uml.config options did not take effect"
kmake -j"$(nproc)" linux modules || fail "make linux modules"
ln -sfn src/linux "$dir/linux"
touch "$dir/.tempo-complete"
msg "UML kernel built in $(($(date +%s) - start)) s"
echo "$dir"
