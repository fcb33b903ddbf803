#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make deps`: install the Debian packages the build and the test VM need.
# Quick and silent when everything is present (one dpkg-query); otherwise
# apt-get update + install of just the missing ones (sudo when not root).

set -euo pipefail

pkgs=(linux-source-6.1 qemu-system-x86 busybox-static bc flex bison libelf-dev
	libssl-dev cpio kmod python3 dwarves gcc make xz-utils rsync
	clang libclang-rt-14-dev liburing-dev
	linux-headers-amd64 sparse)	# Debian 12's own headers (the build-only lane), C=1

installed=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${pkgs[@]}" 2>/dev/null |
	awk '$2 == "installed" { print $1 }') || true
missing=()
for p in "${pkgs[@]}"; do
	grep -qx -- "$p" <<<"$installed" || missing+=("$p")
done
[ "${#missing[@]}" -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}"
sudo=()
if [ "$(id -u)" != 0 ]; then
	command -v sudo >/dev/null || { echo "deps: need root or sudo to install" >&2; exit 1; }
	sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
	--no-install-recommends "${missing[@]}"
