#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch and extract the Debian kernel source packages Debian 12 does not carry.
#
#   tools/compat/fetch.sh KVER...      e.g. tools/compat/fetch.sh 6.12 7.2
#
# apt-get download runs with tools/compat/sources.list (trixie, sid) and private apt state
# under the tempo cache, so the machine's apt configuration is neither read for sources nor
# changed. The .deb is extracted with dpkg-deb -x into
# $TEMPO_CACHE/pkg/linux-source-KVER/ (never into the repo); tools/vm/kernel.sh finds the
# tarball there. Quick and silent when the package is already extracted; TEMPO_FETCH_UPDATE=1
# refreshes the package lists and takes a newer upload if there is one.

set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${TEMPO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tempo}
apt_state=$cache/apt
debs=$cache/debs

msg() { echo "fetch.sh: $*" >&2; }

apt_opts=(-q -o "Dir::Etc::SourceList=$here/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$apt_state/lists" -o "Dir::Cache=$apt_state"
	-o "Dir::Cache::Archives=$apt_state/archives" -o APT::Sandbox::User=root)

[ "$#" -gt 0 ] || { echo "usage: $0 KVER..." >&2; exit 2; }

exec 9>"$cache/.lock-fetch" 2>/dev/null || { mkdir -p "$cache"; exec 9>"$cache/.lock-fetch"; }
flock 9

updated=0
update() {
	[ "$updated" = 0 ] || return 0
	mkdir -p "$apt_state/lists/partial" "$apt_state/archives/partial"
	msg "apt-get update (private lists in $apt_state)"
	apt-get "${apt_opts[@]}" update >&2
	updated=1
}

for kver in "$@"; do
	pkg=linux-source-$kver
	dest=$cache/pkg/$pkg
	if [ -f "$dest/VERSION" ] && [ "${TEMPO_FETCH_UPDATE:-0}" != 1 ]; then
		continue
	fi
	[ -d "$apt_state/lists" ] && [ "${TEMPO_FETCH_UPDATE:-0}" != 1 ] || update
	ver=$(apt-cache "${apt_opts[@]}" show --no-all-versions "$pkg" 2>/dev/null |
		sed -n 's/^Version: //p' | head -n1) || true
	if [ -z "$ver" ]; then
		update
		ver=$(apt-cache "${apt_opts[@]}" show --no-all-versions "$pkg" |
			sed -n 's/^Version: //p' | head -n1)
	fi
	[ -n "$ver" ] || { msg "no $pkg in tools/compat/sources.list"; exit 1; }
	if [ -f "$dest/VERSION" ] && [ "$(cat "$dest/VERSION")" = "$ver" ]; then
		continue
	fi
	mkdir -p "$debs"
	deb=$debs/${pkg}_${ver}_all.deb
	if [ ! -f "$deb" ]; then
		msg "downloading $pkg $ver"
		(cd "$debs" && apt-get "${apt_opts[@]}" download "$pkg=$ver" >&2)
	fi
	msg "extracting $deb into $dest"
	rm -rf "$dest.tmp"
	mkdir -p "$dest.tmp"
	dpkg-deb -x "$deb" "$dest.tmp"
	dpkg-deb -f "$deb" Version >"$dest.tmp/VERSION"
	rm -rf "$dest"
	mv "$dest.tmp" "$dest"
done
