#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the path of a sparse that the newest supported kernel accepts, building it once.
#
# 7.2's scripts/checker-valid.sh needs __typeof_unqual__, which Debian 12's sparse 0.6.4
# lacks (the kernel then skips C=1 with only a make warning), and sid's binary package
# needs a newer glibc. So: sid's source package, fetched with `apt-get source` through
# tools/compat/sources.list and the private apt state of fetch.sh, built under
# $TEMPO_CACHE/sparse-src/ (sparse alone: no llvm, gtk, libxml, sqlite).

set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${TEMPO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tempo}
ver=${TEMPO_SPARSE_VERSION:-0.6.5~rc1-2}
dir=$cache/sparse-src
bin=$dir/src-$ver/sparse

if [ -x "$bin" ]; then
	echo "$bin"
	exit 0
fi
apt_state=$cache/apt
apt_opts=(-q -o "Dir::Etc::SourceList=$here/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$apt_state/lists" -o "Dir::Cache=$apt_state"
	-o "Dir::Cache::Archives=$apt_state/archives" -o APT::Sandbox::User=root)
mkdir -p "$dir" "$apt_state/lists/partial" "$apt_state/archives/partial"
exec 9>"$dir/.lock"
flock 9
if [ ! -x "$bin" ]; then
	orig=$(ls "$dir"/sparse_"${ver%-*}".orig.tar.* 2>/dev/null | head -n1) || true
	if [ -z "$orig" ]; then
		apt-get "${apt_opts[@]}" update >&2
		(cd "$dir" && apt-get "${apt_opts[@]}" source --download-only "sparse=$ver" >&2)
		orig=$(ls "$dir"/sparse_"${ver%-*}".orig.tar.* | head -n1)
	fi
	rm -rf "$dir/src-$ver.tmp"
	mkdir -p "$dir/src-$ver.tmp"
	tar -xf "$orig" -C "$dir/src-$ver.tmp" --strip-components=1
	make -C "$dir/src-$ver.tmp" -j"$(nproc)" sparse HAVE_LLVM=no HAVE_GTK=no \
		HAVE_LIBXML=no HAVE_SQLITE=no >&2
	rm -rf "$dir/src-$ver"
	mv "$dir/src-$ver.tmp" "$dir/src-$ver"
fi
echo "$bin"
