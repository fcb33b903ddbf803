# SPDX-License-Identifier: GPL-2.0
#
# tempo: the entry point for people. Kbuild reads ./Kbuild, kmod/Kbuild and
# kunit/Kbuild; this file only drives it and the test VM (tools/vm/).
#
#   make            build kmod/tempo.ko and kunit/tempo_test.ko
#   make check      boot the test kernel under QEMU and run every test
#   make demo       boot the test kernel, load tempo.ko, show its state
#   make kernel     build (or find in the cache) the test kernel
#   make deps       apt-get install what is missing
#   make clean      remove module objects and build/
#   make test-user  the cores in userspace: TSan, libFuzzer, benchmarks (tools/user/)
#
# KDIR selects the kernel to build the modules against. Default: the running
# kernel's /lib/modules/$(uname -r)/build when present, else the cached test
# kernel (built on first use). `make check` and `make demo` always use the test
# kernel variant KVARIANT (default "tempo", tools/vm/kernel/tempo.config).

# Other kernels (KERNEL=6.12, KERNEL=7.2), make compat, install, dkms, style.
include tools/compat/compat.mk

KVARIANT ?= tempo
export TEMPO_KVARIANT := $(KVARIANT)

HOST_KDIR := /lib/modules/$(shell uname -r)/build
KDIR ?= $(if $(wildcard $(HOST_KDIR)/Makefile),$(HOST_KDIR))

VM := tools/vm
# The VM runs serialise on this lock: one checkout, one build/ directory. The
# kernel is built before taking it (kernel.sh has its own lock per variant).
LOCK := flock build/.vm.lock

.PHONY: all modules deps kernel check demo clean test-user

all: modules

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

include tools/user/user.mk

# Verification lanes (litmus, check-kcsan): tools/verify.mk.
include tools/verify.mk

# Userspace (libtempo, tempoctl, the VM's KTAP test programs) and the example
# client module: tools/userspace.mk.
include tools/userspace.mk
check demo: userspace examples
clean: userspace-clean
include tools/bench/bench.mk
