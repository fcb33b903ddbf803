#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make dkms-check: exercise dkms.conf with Debian 12's own dkms, without installing dkms
# and without touching /usr/src, /var/lib/dkms or /lib/modules.
#
#   tools/compat/dkms-check.sh          (run from the top of the tree; make dkms-check)
#
# Debian 12's dkms package is fetched with `apt-get download dkms` (the machine's normal
# apt sources; bookworm main carries it) into $TEMPO_CACHE/dkms/ and extracted there with
# dpkg-deb -x. Its dkms script then runs on private trees under build/dkms/:
#   --sourcetree  build/dkms/src      the tree copied as `make dkms-install` copies it
#   --dkmstree    build/dkms/tree     dkms's build area (instead of /var/lib/dkms)
#   --installtree build/dkms/root/lib/modules  (instead of /lib/modules)
# against Debian 12's kernel headers (--kernelsourcedir /usr/src/linux-headers-6.1.*-amd64,
# from `make deps`; DKMS_KVER=<release> picks another /usr/src/linux-headers-<release>).
# dkms's module signing gets a private key (mok_signing_key/mok_certificate in the
# environment; the default would be generated in /var/lib/dkms), install and remove run
# with --no-depmod (dkms's depmod has no base directory option), and depmod runs here
# instead with -b on the private root, against the headers' Module.symvers.
#
# Checks, in order (stops at the first failure):
#   add          dkms add tempo/VERSION
#   build        dkms build -k KVER: tempo.ko built, vermagic KVER, MODULE_VERSION the
#                PACKAGE_VERSION of dkms.conf, signed
#   install      dkms install -k KVER: tempo.ko in <installtree>/KVER/updates/dkms/
#   symbols      depmod -e -E Module.symvers: every symbol tempo.ko needs is exported by
#                KVER, with matching modversions CRCs
#   exclusive    BUILD_EXCLUSIVE_KERNEL refuses a kernel outside the tested series (exit 77)
#   remove       dkms remove --all: the private trees are empty again
#   system       /var/lib/dkms, /usr/src/tempo-VERSION, /lib/modules/KVER/updates/dkms
#                look as they did before (nothing leaked out of the private trees)
# The last line is "N passed, N failed"; the exit status is nonzero on any failure.
# build/dkms/ is removed on success and kept on failure (make.log is under build/dkms/tree).

set -uo pipefail

cache=${TEMPO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tempo}/dkms
work=$PWD/build/dkms
passed=0
failed=0

say() { echo "dkms-check: $*"; }
ok() { say "ok   $1${2:+ ($2)}"; passed=$((passed + 1)); }
finish() {
	if [ "$failed" = 0 ]; then rm -rf "$work"
	elif [ -d "$work" ]; then say "private trees kept in $work"; fi
	echo "$passed passed, $failed failed"
	[ "$failed" = 0 ] && exit 0
	exit 1
}
fail() {
	say "FAIL $1: $2"
	[ -n "${3:-}" ] && [ -f "$3" ] && sed 's/^/    /' "$3"
	failed=$((failed + 1))
	finish
}

[ -f dkms.conf ] && [ -f Kbuild ] || { say "run from the top of the tempo tree"; exit 2; }
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
[ -n "$version" ] || fail setup "no PACKAGE_VERSION in dkms.conf"

# ---- Debian 12's dkms, private -----------------------------------------------------------
mkdir -p "$cache"
exec 9>"$cache/.lock" && flock 9
dkms=$cache/root/usr/sbin/dkms
if [ ! -x "$dkms" ]; then
	rm -rf "$cache/root" "$cache"/dkms_*.deb
	say "apt-get download dkms (into $cache)"
	# As root, apt's _apt sandbox user cannot write into $HOME: download as root.
	(cd "$cache" && apt-get -q -o APT::Sandbox::User=root download dkms) >"$cache/download.log" 2>&1 ||
		fail setup "apt-get download dkms failed" "$cache/download.log"
	deb=$(ls "$cache"/dkms_*.deb 2>/dev/null | head -n1)
	[ -n "$deb" ] || fail setup "apt-get download dkms left no .deb" "$cache/download.log"
	dpkg-deb -x "$deb" "$cache/root" || fail setup "dpkg-deb -x $deb failed"
fi
dkms_version=$(bash "$dkms" --version 2>/dev/null) || fail setup "$dkms does not run"

# ---- the kernel --------------------------------------------------------------------------
if [ -n "${DKMS_KVER:-}" ]; then
	kver=$DKMS_KVER
else
	kver=$(ls -d /usr/src/linux-headers-6.1.*-amd64 2>/dev/null | sed 's|.*/linux-headers-||' |
		sort -V | tail -n1)
fi
kdir=/usr/src/linux-headers-$kver
[ -n "$kver" ] && [ -f "$kdir/Makefile" ] ||
	fail setup "no Debian 12 kernel headers in /usr/src/linux-headers-6.1.*-amd64 (make deps)"
say "$dkms_version (Debian 12), tempo/$version, kernel $kver ($kdir)"

# ---- private trees -----------------------------------------------------------------------
rm -rf "$work"
src=$work/src
tree=$work/tree
root=$work/root
lib=$root/lib/modules
mkdir -p "$src/tempo-$version" "$tree" "$lib/$kver" "$work/tmp" || fail setup "mkdir $work"
# The same copy as `make dkms-install` (tools/compat/compat.mk, DKMS_TAR_EXCLUDE).
set -f
# shellcheck disable=SC2086 # the exclusions are words (set -f: not globs)
tar -c ${DKMS_TAR_EXCLUDE:---exclude=./.git --exclude=./build} -f - . |
	tar -x -C "$src/tempo-$version" || fail setup "copying the tree to $src"
set +f

# What the system has now, to compare with afterwards.
snapshot() {
	ls -la --time-style=+%s /var/lib/dkms "/usr/src/tempo-$version" \
		"/lib/modules/$kver/updates/dkms" 2>&1
}
before=$(snapshot)

export TMPDIR=$work/tmp
export mok_signing_key=$work/mok.key mok_certificate=$work/mok.pub
unset sign_file
dk() { bash "$dkms" "$@" --dkmstree "$tree" --sourcetree "$src" --installtree "$lib"; }
log=$work/dkms.log
mv=(-m tempo -v "$version")
arch=$(uname -m)

# add
dk add "${mv[@]}" >"$log" 2>&1 || fail add "dkms add exited $?" "$log"
[ -L "$tree/tempo/$version/source" ] || fail add "no $tree/tempo/$version/source" "$log"
ok add

# build
dk build "${mv[@]}" -k "$kver" --kernelsourcedir "$kdir" >"$log" 2>&1 ||
	fail build "dkms build exited $? (make.log: $tree/tempo/$version/build/make.log)" "$log"
built=$tree/tempo/$version/$kver/$arch/module/tempo.ko
[ -f "$built" ] || fail build "no $built" "$log"
vermagic=$(modinfo -F vermagic "$built" | awk '{print $1}')
[ "$vermagic" = "$kver" ] || fail build "vermagic '$vermagic', expected '$kver'"
modversion=$(modinfo -F version "$built")
[ "$modversion" = "$version" ] ||
	fail build "MODULE_VERSION '$modversion' (kmod/main.c), dkms.conf says '$version'"
signer=$(modinfo -F signer "$built")
ok build "vermagic $vermagic, version $modversion${signer:+, signed by \"$signer\"}"

# install
dk install --no-depmod "${mv[@]}" -k "$kver" --kernelsourcedir "$kdir" >"$log" 2>&1 ||
	fail install "dkms install exited $?" "$log"
installed=$lib/$kver/updates/dkms/tempo.ko
[ -f "$installed" ] || fail install "no $installed" "$log"
dk status >"$log" 2>&1
grep -q "^tempo/$version, $kver, $arch: installed" "$log" ||
	fail install "dkms status does not say installed" "$log"
ok install "${installed#"$work/"}"

# symbols: depmod warns (and still exits 0) on unknown symbols or CRC mismatches.
touch "$lib/$kver"/modules.{order,builtin,builtin.modinfo}
depmod -b "$root" -e -E "$kdir/Module.symvers" "$kver" >"$log" 2>&1 ||
	fail symbols "depmod exited $?" "$log"
grep -q . "$log" && fail symbols "depmod -e reports problems" "$log"
grep -q "^updates/dkms/tempo.ko:" "$lib/$kver/modules.dep" ||
	fail symbols "tempo.ko not in modules.dep" "$lib/$kver/modules.dep"
ok symbols "depmod -e -E $kdir/Module.symvers: nothing unknown"

# exclusive: a kernel outside BUILD_EXCLUSIVE_KERNEL is refused, not built.
dk build "${mv[@]}" -k 5.10.0-99-amd64 --kernelsourcedir "$kdir" >"$log" 2>&1
rc=$?
[ "$rc" = 77 ] || fail exclusive "dkms build -k 5.10.0-99-amd64 exited $rc, expected 77" "$log"
ok exclusive "5.10.0-99-amd64 refused"

# remove
dk remove "${mv[@]}" --all --no-depmod >"$log" 2>&1 || fail remove "dkms remove exited $?" "$log"
[ ! -e "$installed" ] || fail remove "$installed still there" "$log"
[ ! -e "$tree/tempo" ] || fail remove "$tree/tempo still there" "$log"
ok remove

# system
after=$(snapshot)
[ "$before" = "$after" ] || fail system "system paths changed: before: $before; after: $after"
ok system "/var/lib/dkms, /usr/src/tempo-$version, /lib/modules/$kver/updates/dkms untouched"

finish
