# SPDX-License-Identifier: GPL-2.0
#
# Other kernels, install and dkms; included by the top-level Makefile, which
# lists the targets and sets KERNEL, KVARIANT and KDIR.
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
#   make dkms-check           dkms.conf through Debian 12's dkms (apt-get download, not
#                             installed) on private trees under build/dkms: add, build,
#                             install, remove for the 6.1 headers; "N passed, N failed"
#                             (tools/compat/dkms-check.sh)
#   make style                checkpatch --strict and kernel-doc -Wall over kmod/ include/ kunit/;
#                             every path, function and tracker number the tree cites
#                             (tools/compat/cited.py)

TEMPO_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf 2>/dev/null)
PREFIX ?= /usr/local
DESTDIR ?=
STYLE_SRCS = $(shell find kmod include kunit -name '*.[ch]' ! -name '*.mod.c' | sort)
# The style tools are 7.2's (checkpatch's newest rules, kernel-doc -Wall, which 6.1's
# kernel-doc lacks): the source is fetched (tools/compat/fetch.sh) and extracted
# (tools/vm/kernel.sh --source) if it is not yet, whatever else the machine has built.
STYLE_KVER := 7.2

# checkpatch --strict, with three exceptions. ALLOC_WITH_SIZEOF wants kzalloc_obj(), which
# only 7.x has. compat.h is where LINUX_VERSION_CODE belongs. trace.h follows the layout of
# every TRACE_EVENT in the kernel (include/trace/events/), which --strict dislikes.
CHECKPATCH := --strict --no-tree --terse --show-types --ignore ALLOC_WITH_SIZEOF
STYLE_OWN_RULES := kmod/compat.h kmod/trace.h

.PHONY: compat compat-fetch style install install-headers install-man install-udev \
	dkms-install dkms-check

deps: compat-fetch
compat-fetch:
	@$(if $(filter-out 6.1,$(KERNEL)),tools/compat/fetch.sh $(KERNEL))

compat: deps
	@tools/compat/compat.sh

style: deps
	@tools/compat/fetch.sh $(STYLE_KVER) && \
	tree=$$(TEMPO_KVER=$(STYLE_KVER) tools/vm/kernel.sh --source tempo) && [ -d "$$tree" ] || \
		{ echo "style: no $(STYLE_KVER) kernel source tree"; exit 1; }; \
	echo "style: $$tree"; rc=0; \
	{ $$tree/scripts/checkpatch.pl $(CHECKPATCH) -f $(filter-out $(STYLE_OWN_RULES),$(STYLE_SRCS)); \
	  $$tree/scripts/checkpatch.pl $(CHECKPATCH) --ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON \
		-f kmod/compat.h; \
	  $$tree/scripts/checkpatch.pl $(CHECKPATCH) --ignore OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT \
		-f kmod/trace.h; } | grep -v '^total: ' | grep . && rc=1; \
	$$tree/scripts/kernel-doc -none -Wall $(STYLE_SRCS) 2>&1 | grep . && rc=1; \
	tools/compat/cited.py "$$tree" || rc=1; \
	[ $$rc = 0 ] && echo "style: checkpatch --strict, kernel-doc -Wall and citations clean"; \
	exit $$rc

# ---- install ----------------------------------------------------------------------------
# modules_install honours INSTALL_MOD_PATH (a staging root) and KDIR (default: the running
# kernel's build directory); the rest honours DESTDIR and PREFIX.
UDEVDIR ?= /usr/lib/udev/rules.d
MANDIR ?= $(PREFIX)/share/man
TEMPOCTL := build/guest/bin/tempoctl

install: modules install-headers install-tools install-man install-udev
	@kdir='$(KDIR)'; \
	if [ -z "$$kdir" ]; then kdir=$$($(VM)/kernel.sh $(KVARIANT)) || exit 1; fi; \
	$(MAKE) -C "$$kdir" M=$(CURDIR) modules_install

install-headers:
	install -d $(DESTDIR)$(PREFIX)/include/tempo
	install -m 0644 include/tempo/*.h $(DESTDIR)$(PREFIX)/include/tempo/
	@if [ -f include/uapi/tempo.h ]; then \
		echo install -D -m 0644 include/uapi/tempo.h $(DESTDIR)$(PREFIX)/include/uapi/tempo.h; \
		install -D -m 0644 include/uapi/tempo.h $(DESTDIR)$(PREFIX)/include/uapi/tempo.h; fi
	@if [ -f tools/lib/libtempo.h ]; then \
		echo install -D -m 0644 tools/lib/libtempo.h $(DESTDIR)$(PREFIX)/include/libtempo.h; \
		install -D -m 0644 tools/lib/libtempo.h $(DESTDIR)$(PREFIX)/include/libtempo.h; fi

# tempoctl and libtempo come with the userspace tools (tools/userspace.mk); skipped when
# the tree has none.
install-tools:
	@if [ -f tools/tempoctl/tempoctl.c ]; then \
		$(MAKE) --no-print-directory userspace && \
		install -D -m 0755 $(TEMPOCTL) $(DESTDIR)$(PREFIX)/bin/tempoctl && \
		install -D -m 0644 build/lib/libtempo.a $(DESTDIR)$(PREFIX)/lib/libtempo.a && \
		echo "install: tempoctl, libtempo.a into $(DESTDIR)$(PREFIX)"; \
	else echo "install: no tools/tempoctl in this tree, skipping the tools"; fi

install-man:
	install -D -m 0644 tools/man/tempoctl.8 $(DESTDIR)$(MANDIR)/man8/tempoctl.8

install-udev:
	install -D -m 0644 tools/udev/60-tempo.rules $(DESTDIR)$(UDEVDIR)/60-tempo.rules

# DKMS: the tree (without build output) under /usr/src, then dkms builds and installs
# tempo.ko for the running kernel and, from then on, for every new kernel in
# BUILD_EXCLUSIVE_KERNEL.
# What of the tree goes to /usr/src: no VCS data, no build output. dkms-check copies the same.
export DKMS_TAR_EXCLUDE := --exclude=./.git --exclude=./build --exclude=*.o --exclude=*.ko \
	--exclude=*.mod --exclude=*.mod.c --exclude=.*.cmd --exclude=*.symvers \
	--exclude=modules.order
dkms-install:
	@[ -n "$(TEMPO_VERSION)" ] || { echo "dkms-install: no PACKAGE_VERSION in dkms.conf"; exit 1; }
	rm -rf $(DESTDIR)/usr/src/tempo-$(TEMPO_VERSION)
	install -d $(DESTDIR)/usr/src/tempo-$(TEMPO_VERSION)
	tar -c $(DKMS_TAR_EXCLUDE) -f - . | tar -x -C $(DESTDIR)/usr/src/tempo-$(TEMPO_VERSION)
	dkms install tempo/$(TEMPO_VERSION)

# dkms.conf through Debian 12's dkms without installing it or writing outside build/dkms
# and the tempo cache (tools/compat/dkms-check.sh says how).
dkms-check:
	@tools/compat/dkms-check.sh
