# SPDX-License-Identifier: GPL-2.0
#
# Other kernels (issue 9). Included at the top of the Makefile, before KVARIANT and KDIR
# take their defaults.
#
#   make check KERNEL=7.2     build tempo against linux-source-7.2 (fetched from sid by
#                             tools/compat/fetch.sh) and run every test on it; also
#                             KERNEL=6.12 (trixie) and KERNEL=6.1. The default is 6.1.
#   make compat               every supported kernel: Debian 12's headers (build only),
#                             6.12 and 7.2 (build with W=1 C=2, then make check);
#                             "N passed, N failed" over the kernels (tools/compat/compat.sh)
#   make install              modules_install, headers to $(PREFIX)/include, tools, man
#                             page, udev rule (DESTDIR, PREFIX, INSTALL_MOD_PATH)
#   make dkms-install         copy the tree to /usr/src/tempo-$(TEMPO_VERSION), dkms add/build/install
#   make style                checkpatch --strict and kernel-doc -Wall over kmod/ include/ kunit/
#
# With KERNEL set, the test kernel variant defaults to "tempo+trace" for the kernels
# fetched here (the debug kernel plus tracing, so that the tracepoints are exercised), and
# the modules build against that kernel rather than the host's.

ifneq ($(KERNEL),)
export TEMPO_KVER := $(KERNEL)
ifneq ($(KERNEL),6.1)
KVARIANT ?= tempo+trace
endif
KDIR ?=
endif

TEMPO_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf 2>/dev/null)
PREFIX ?= /usr/local
DESTDIR ?=
STYLE_SRCS = $(shell find kmod include kunit -name '*.[ch]' ! -name '*.mod.c' | sort)
# A kernel tree for the style tools: 7.2's checkpatch when it is extracted, else 6.1's.
STYLE_TREE = $(firstword $(wildcard $(or $(TEMPO_CACHE),$(HOME)/.cache/tempo)/src-7.2-*/linux-source-7.2) \
	$(wildcard $(or $(TEMPO_CACHE),$(HOME)/.cache/tempo)/src-6.1-*/linux-source-6.1))

.PHONY: compat compat-fetch style install install-headers install-man install-udev \
	dkms-install

deps: compat-fetch
compat-fetch:
	@$(if $(filter-out 6.1,$(KERNEL)),tools/compat/fetch.sh $(KERNEL))

compat: deps
	@tools/compat/compat.sh

style:
	@tree='$(STYLE_TREE)'; [ -n "$$tree" ] || { echo "style: no kernel source tree (make kernel)"; exit 1; }; \
	echo "style: $$tree"; rc=0; \
	$$tree/scripts/checkpatch.pl --strict --no-tree --terse --show-types -f $(STYLE_SRCS) \
		| grep -v '^total: 0 errors, 0 warnings, 0 checks' | grep . && rc=1; \
	$$tree/scripts/kernel-doc -none -Wall $(STYLE_SRCS) 2>&1 | grep . && rc=1; \
	[ $$rc = 0 ] && echo "style: checkpatch --strict and kernel-doc -Wall clean"; exit $$rc
