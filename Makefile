# SPDX-License-Identifier: GPL-2.0
#
# tempo: the entry point for people. Kbuild reads ./Kbuild, kmod/Kbuild and
# kunit/Kbuild; this file drives it, the test VMs (tools/vm/) and every lane.
# Each public target is listed here with what it runs (`make help` prints
# this list); the fragments included at the end hold their recipes.
#
# Build
#   make               kmod/tempo.ko and kunit/tempo_test.ko (KDIR below);
#                      the same as make modules
#   make deps          apt-get install what is missing (tools/vm/deps.sh)
#   make kernel        build (or find in ~/.cache/tempo) the test kernel
#   make userspace     libtempo.a, tempoctl, the guest test programs (static)
#   make examples      tools/examples/tempo_example.ko against tempo's exports
#   make clean         module objects and build/
#   make install       modules_install, headers, tempoctl, libtempo, man page,
#                      udev rule (DESTDIR, PREFIX, INSTALL_MOD_PATH); its parts
#                      alone: make install-headers, install-man, install-udev
#   make dkms-install  the tree to /usr/src/tempo-VERSION, dkms add/build/install
#   make help          this list
#
# Test (`.ci/run` runs check, then test-user, litmus, check-kcsan, compat,
# dkms-check and style, in this order)
#   make check         the debug test kernel under QEMU: every KUnit suite, the
#                      guest programs (uapi, mt, hostile, uring, fuzz), the
#                      example module, the ABI's 32-bit layout (abi32)
#   make test-user     the cores in userspace: TSan, det tests, libFuzzer
#   make litmus        herd7 + LKMM on every barrier pair (tools/litmus/)
#   make check-kcsan   every suite on the KCSAN kernel, with failslab
#   make compat        Debian 12 headers (build only); 6.12 and 7.2: W=1 C=2
#                      build, then make check on each
#   make dkms-check    dkms.conf through Debian 12's dkms on private trees
#   make verify        litmus, then check-kcsan
#   make style         7.2's checkpatch --strict and kernel-doc -Wall over kmod/
#                      include/ kunit/ (fetches and extracts the 7.2 source if needed);
#                      every cited path and function exists (tools/compat/cited.py)
#   make abi32         the UAPI layouts under -m32 (compat_ioctl relies on them)
#   make fuzz          the ioctl fuzzer alone (build/guest/tests/tempo_fuzz)
#   make user-build    the userspace build of the cores, tests and bench, not run
#
# Measure (never part of a test lane)
#   make user-bench    the userspace build's micro-benchmarks (build/user/bench.json)
#   make bench         tempo against its peers in the bench kernel (QEMU/TCG);
#                      tools/bench/README.md
#   make bench-kernel  build (or find) the bench kernel only
#   make bench-native  the same bench in an SMP User-Mode Linux 7.2 kernel, at
#                      native instruction costs, 3 boots (build/bench-native/)
#   make bench-native-kernel  build (or find) that UML kernel only
#   make bench-iso     a process on an isolated CPU (nohz_full=1, kernel variant
#                      bench+nohz) arms timers: tempo expires none there (TCG)
#   make demo          boot the test kernel, load tempo.ko, show its state
#
# KERNEL selects the kernel version: 6.1 (default, Debian 12's linux-source),
# or 6.12 / 7.2 (fetched from trixie / sid by tools/compat/fetch.sh; the test
# kernel variant then defaults to "tempo+trace", the debug kernel plus tracing).
# KDIR selects the kernel tree to build the modules against. Default: the
# running kernel's /lib/modules/$(uname -r)/build when present and KERNEL is
# unset, else the cached test kernel (built on first use). `make check` and
# `make demo` always use the test kernel variant KVARIANT (default "tempo",
# tools/vm/kernel/tempo.config).

ifneq ($(KERNEL),)
export TEMPO_KVER := $(KERNEL)
ifneq ($(KERNEL),6.1)
KVARIANT ?= tempo+trace
endif
KDIR ?=
endif

KVARIANT ?= tempo
export TEMPO_KVARIANT := $(KVARIANT)

HOST_KDIR := /lib/modules/$(shell uname -r)/build
KDIR ?= $(if $(wildcard $(HOST_KDIR)/Makefile),$(HOST_KDIR))

VM := tools/vm
# The VM runs serialise on this lock: one checkout, one build/ directory. The
# kernel is built before taking it (kernel.sh has its own lock per variant).
LOCK := flock build/.vm.lock

.PHONY: all modules deps kernel check demo clean help

all: modules

# The comment at the top of this file, from "Build" to its end.
help:
	@sed -n '/^# Build$$/,/^$$/s/^# \{0,1\}//p' $(firstword $(MAKEFILE_LIST))

deps:
	@$(VM)/deps.sh

kernel: deps
	@kdir=$$($(VM)/kernel.sh $(KVARIANT)) && echo "test kernel: $$kdir"

modules: deps
	@kdir='$(KDIR)'; \
	if [ -z "$$kdir" ]; then kdir=$$($(VM)/kernel.sh $(KVARIANT)) || exit 1; fi; \
	$(MAKE) -C "$$kdir" M=$(CURDIR) modules

check: deps
	@mkdir -p build
	@$(VM)/kernel.sh $(KVARIANT) >/dev/null || \
		{ echo "check: the test kernel did not build"; echo "0 passed, 1 failed"; exit 1; }
	@$(LOCK) $(VM)/check.sh

demo: kernel
	@mkdir -p build
	@$(LOCK) $(VM)/demo.sh

clean:
	@kdir='$(KDIR)'; \
	if [ -z "$$kdir" ]; then kdir=$$($(VM)/kernel.sh --path $(KVARIANT) 2>/dev/null); fi; \
	if [ -f "$$kdir/Makefile" ]; then $(MAKE) -C "$$kdir" M=$(CURDIR) clean; \
	else find . kmod kunit -maxdepth 1 -type f \( -name '*.o' -o -name '*.ko' \
		-o -name '*.mod' -o -name '*.mod.c' -o -name '.*.cmd' -o -name '*.symvers' \
		-o -name 'modules.order' \) -delete; fi
	rm -rf build

# The fragments: other kernels, install and dkms; the userspace build of the
# cores; the userspace tools (their include path is build/usr/include, the
# UAPI headers alone); the verification lanes; the bench.
include tools/compat/compat.mk
include tools/user-cores/user.mk
include tools/userspace.mk
include tools/verify.mk
include tools/bench/bench.mk

# The test lanes build the modules with their test points (kmod/testing.h);
# the example module is built against that same tempo.ko.
check check-kcsan: export TEMPO_TESTING := 1
check demo: userspace examples
check: abi32
clean: userspace-clean
