#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or find in the cache) a test kernel and print its O= directory.
#
#   tools/vm/kernel.sh [--path] [VARIANT]
#
# VARIANT names config fragments in tools/vm/kernel/: "tempo" merges tempo.config onto
# tinyconfig; "tempo+kcsan" merges tempo.config then kcsan.config. Default: tempo.
# A per-version overlay NAME@KVER.config (e.g. tempo@7.2.config), when present, is merged
# right after NAME.config and wins over it option by option: it holds the options that
# were renamed or removed since 6.1 ("# CONFIG_GONE is not set" drops a requirement).
# --path only prints the directory the variant would use, without building.
# --source only extracts the kernel source (once per package version) and prints its
# directory: what `make style` runs checkpatch and kernel-doc from.
#
# Environment:
#   TEMPO_KVER   kernel version (6.1): source from /usr/src/linux-source-$TEMPO_KVER.tar.xz,
#                else from the package tools/compat/fetch.sh extracted under the cache
#   TEMPO_CACHE  cache root (${XDG_CACHE_HOME:-$HOME/.cache}/tempo)
#   V=1          show the kernel build output instead of logging it to the build dir
#
# The build dir is keyed by the source package version, the fragments' option lines, the
# variant name and the compiler, so any change there builds a fresh kernel. A build is
# used only once its ".tempo-complete" stamp exists; an interrupted build resumes.
# Only stdout carries the directory; all chatter goes to stderr.

set -euo pipefail

# Bump to force every cached kernel to be rebuilt (e.g. after changing the build steps).
KEY_EPOCH=1

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
fragdir=$here/kernel
kver=${TEMPO_KVER:-6.1}
cache=${TEMPO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tempo}
tarball=/usr/src/linux-source-$kver.tar.xz
# Versions Debian 12 does not carry: tools/compat/fetch.sh extracts the .deb here.
pkgdir=$cache/pkg/linux-source-$kver
[ -f "$tarball" ] || [ ! -f "$pkgdir/VERSION" ] || tarball=$pkgdir/usr/src/linux-source-$kver.tar.xz

path_only=0
source_only=0
if [ "${1:-}" = "--path" ]; then
	path_only=1
	shift
elif [ "${1:-}" = "--source" ]; then
	source_only=1
	shift
fi
variant=${1:-tempo}

msg() { echo "kernel.sh: $*" >&2; }
die() { msg "error: $*"; exit 1; }

IFS=+ read -r -a frag_names <<<"$variant"
frags=()
for f in "${frag_names[@]}"; do
	[ -f "$fragdir/$f.config" ] || die "no fragment $fragdir/$f.config for variant '$variant'"
	frags+=("$fragdir/$f.config")
	[ ! -f "$fragdir/$f@$kver.config" ] || frags+=("$fragdir/$f@$kver.config")
done

[ -f "$tarball" ] || die "$tarball missing (run 'make deps', or tools/compat/fetch.sh $kver)"
if [ "$tarball" = "$pkgdir/usr/src/linux-source-$kver.tar.xz" ]; then
	srcver=$(cat "$pkgdir/VERSION")
else
	srcver=$(dpkg-query -W -f='${Version}' "linux-source-$kver" 2>/dev/null) ||
		srcver=$(stat -c '%s-%Y' "$tarball")
fi

key=$( {
	echo "epoch $KEY_EPOCH"
	echo "source $kver $srcver"
	echo "variant $variant"
	gcc --version | head -n1
	# Only the option lines: editing a comment must not cost a kernel build.
	cat "${frags[@]}" | grep -E '^(CONFIG_|# CONFIG_[A-Za-z0-9_]+ is not set)'
} | sha256sum | cut -c1-12)

# Extract the source once per package version; never modify it afterwards.
srcdir=$cache/src-$kver-$srcver/linux-source-$kver
extract_source() {
	[ ! -f "$srcdir/.tempo-extracted" ] || return 0
	mkdir -p "$cache"
	exec 8>"$cache/.lock-src-$kver"
	flock 8
	if [ ! -f "$srcdir/.tempo-extracted" ]; then
		msg "extracting $tarball"
		tmp=$cache/.src-$kver-$srcver.tmp.$$
		rm -rf "$tmp"
		mkdir -p "$tmp"
		tar -xf "$tarball" -C "$tmp"
		touch "$tmp/linux-source-$kver/.tempo-extracted"
		rm -rf "$cache/src-$kver-$srcver"
		mv "$tmp" "$cache/src-$kver-$srcver"
	fi
	exec 8>&-
}
if [ "$source_only" = 1 ]; then
	extract_source
	echo "$srcdir"
	exit 0
fi

objdir=$cache/kernel-$kver-$variant-$key
if [ "$path_only" = 1 ]; then
	echo "$objdir"
	exit 0
fi
if [ -f "$objdir/.tempo-complete" ]; then
	echo "$objdir"
	exit 0
fi

mkdir -p "$cache"
exec 9>"$cache/.lock-kernel-$kver-$variant-$key"
if ! flock -n 9; then
	msg "waiting for another build of $objdir"
	flock 9
fi
if [ -f "$objdir/.tempo-complete" ]; then
	echo "$objdir"
	exit 0
fi

extract_source

mkdir -p "$objdir"
log=$objdir/tempo-build.log
msg "building $variant kernel $kver in $objdir (log: $log)"
start=$(date +%s)

kmake() {
	if [ "${V:-0}" = 1 ]; then
		make -C "$srcdir" O="$objdir" ARCH=x86_64 "$@" >&2
	else
		make -C "$srcdir" O="$objdir" ARCH=x86_64 "$@" >>"$log" 2>&1
	fi
}

fail() {
	msg "kernel build failed: $1"
	[ "${V:-0}" = 1 ] || tail -n 40 "$log" >&2
	exit 1
}

: >"$log"
kmake tinyconfig || fail "tinyconfig"
(cd "$objdir" && "$srcdir/scripts/kconfig/merge_config.sh" -m -O "$objdir" \
	"$objdir/.config" "${frags[@]}") >>"$log" 2>&1 || fail "merge_config.sh"
kmake olddefconfig || fail "olddefconfig"

# tinyconfig silently drops options whose dependencies are missing: insist on each one.
# A later fragment's line for an option replaces an earlier one (per-version overlays).
declare -A want=()
order=()
for f in "${frags[@]}"; do
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*) opt=${line%%=*} ;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }
			opt=${opt%% *}
			;;
		*) continue ;;
		esac
		[ -n "${want[$opt]+set}" ] || order+=("$opt")
		want[$opt]=$line
	done <"$f"
done
missing=()
for opt in "${order[@]}"; do
	line=${want[$opt]}
	case "$line" in
	CONFIG_*=*) grep -qxF -- "$line" "$objdir/.config" || missing+=("$line") ;;
	*) grep -q "^$opt=" "$objdir/.config" && missing+=("$line") ;;
	esac
done
if [ "${#missing[@]}" -gt 0 ]; then
	msg "these fragment options did not take effect (missing dependency?):"
	for m in "${missing[@]}"; do
		have=$(grep -E "^(# )?${m%%=*}[= ]" "$objdir/.config" || echo "absent")
		msg "    $m   (got: $have)"
	done
	exit 1
fi

kmake -j"$(nproc)" bzImage modules || fail "make bzImage modules"
[ -f "$objdir/Module.symvers" ] || fail "no Module.symvers"
touch "$objdir/.tempo-complete"
msg "kernel built in $(($(date +%s) - start)) s"
echo "$objdir"
