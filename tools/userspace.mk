# SPDX-License-Identifier: GPL-2.0
#
# Userspace side of tempo, included by the top-level Makefile:
#
#   make userspace   build/lib/libtempo.a, build/guest/bin/tempoctl and the
#                    KTAP test programs in build/guest/tests/ (static, for the VM)
#   make examples    tools/examples/tempo_example.ko against tempo's Module.symvers
#   make abi32       check the UAPI layouts under -m32 (compat_ioctl relies on it)
#
# The VM runner packs build/guest/{tests,bin}/ into the initramfs and runs each
# test program after the KUnit modules; TEMPO_EXTRA_KOS (exported below) makes
# it load the example module too.

TEMPO_ROOT := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST))/..)))
U_CC ?= cc
U_CFLAGS ?= -O2 -g
# Userspace sees the UAPI headers alone, staged as an installed system would
# have them (build/usr/include/uapi/), never include/tempo/ or kmod/.
U_INC := $(TEMPO_ROOT)/build/usr/include
U_UAPI := $(patsubst $(TEMPO_ROOT)/include/uapi/%,$(U_INC)/uapi/%,\
	$(wildcard $(TEMPO_ROOT)/include/uapi/*.h))
U_CFLAGS += -std=gnu11 -Wall -Wextra -Werror -I$(U_INC) -I$(TEMPO_ROOT)/tools/lib
U_LDFLAGS += -static -pthread

U_LIB := $(TEMPO_ROOT)/build/lib/libtempo.a
# tools/uapi-tests/hostile_*_test.c, one program per kind of attack (hostile.h).
HOSTILE_PARTS := sink limits abi share clock
U_TESTS := $(TEMPO_ROOT)/build/guest/tests/tempo_uapi $(TEMPO_ROOT)/build/guest/tests/tempo_mt \
	$(TEMPO_ROOT)/build/guest/tests/tempo_uring $(TEMPO_ROOT)/build/guest/tests/tempo_clocks \
	$(patsubst %,$(TEMPO_ROOT)/build/guest/tests/tempo_hostile_%,$(HOSTILE_PARTS))
U_BINS := $(TEMPO_ROOT)/build/guest/bin/tempoctl
U_HDRS := $(U_UAPI) $(TEMPO_ROOT)/tools/lib/libtempo.h

EXAMPLE_KO := $(TEMPO_ROOT)/tools/examples/tempo_example.ko
export TEMPO_EXTRA_KOS := $(strip $(TEMPO_EXTRA_KOS) $(EXAMPLE_KO))

.PHONY: userspace examples abi32 userspace-clean

userspace: $(U_LIB) $(U_TESTS) $(U_BINS)

$(U_INC)/uapi/%.h: $(TEMPO_ROOT)/include/uapi/%.h
	@install -D -m 0644 $< $@

$(U_LIB): $(TEMPO_ROOT)/tools/lib/libtempo.c $(U_HDRS)
	@mkdir -p $(dir $@)
	$(U_CC) $(U_CFLAGS) -c $< -o $(@:.a=.o)
	$(AR) rcs $@ $(@:.a=.o)

$(TEMPO_ROOT)/build/guest/tests/tempo_uapi: $(TEMPO_ROOT)/tools/uapi-tests/uapi_test.c \
		$(wildcard $(TEMPO_ROOT)/tools/uapi-tests/*.h) $(U_LIB)
	@mkdir -p $(dir $@)
	$(U_CC) $(U_CFLAGS) $< $(U_LIB) $(U_LDFLAGS) -o $@

$(TEMPO_ROOT)/build/guest/tests/tempo_mt: $(TEMPO_ROOT)/tools/uapi-tests/mt_test.c \
		$(wildcard $(TEMPO_ROOT)/tools/uapi-tests/*.h) $(U_LIB)
	@mkdir -p $(dir $@)
	$(U_CC) $(U_CFLAGS) $< $(U_LIB) $(U_LDFLAGS) -o $@

$(TEMPO_ROOT)/build/guest/tests/tempo_hostile_%: $(TEMPO_ROOT)/tools/uapi-tests/hostile_%_test.c \
		$(wildcard $(TEMPO_ROOT)/tools/uapi-tests/*.h) $(U_LIB)
	@mkdir -p $(dir $@)
	$(U_CC) $(U_CFLAGS) $< $(U_LIB) $(U_LDFLAGS) -o $@

$(TEMPO_ROOT)/build/guest/tests/tempo_clocks: $(TEMPO_ROOT)/tools/uapi-tests/clocks_test.c \
		$(wildcard $(TEMPO_ROOT)/tools/uapi-tests/*.h) $(U_LIB)
	@mkdir -p $(dir $@)
	$(U_CC) $(U_CFLAGS) $< $(U_LIB) $(U_LDFLAGS) -o $@

# liburing (liburing-dev, tools/vm/deps.sh) linked statically: the guest has no libraries.
$(TEMPO_ROOT)/build/guest/tests/tempo_uring: $(TEMPO_ROOT)/tools/uapi-tests/uring_test.c \
		$(wildcard $(TEMPO_ROOT)/tools/uapi-tests/*.h) $(TEMPO_ROOT)/tools/lib/libtempo_uring.h $(U_LIB)
	@mkdir -p $(dir $@)
	$(U_CC) $(U_CFLAGS) $< $(U_LIB) $(U_LDFLAGS) -luring -o $@

$(TEMPO_ROOT)/build/guest/bin/tempoctl: $(wildcard $(TEMPO_ROOT)/tools/tempoctl/*.[ch]) $(U_LIB)
	@mkdir -p $(dir $@)
	$(U_CC) $(U_CFLAGS) $(filter %.c,$^) $(U_LIB) $(U_LDFLAGS) -lm -o $@

# The example client module: a separate kbuild run that knows tempo's exports
# from its Module.symvers (Documentation/kbuild/modules.rst, "Symbols From
# Another External Module"). Needs `make modules` first.
examples: modules
	@kdir='$(KDIR)'; \
	if [ -z "$$kdir" ]; then kdir=$$($(TEMPO_ROOT)/tools/vm/kernel.sh $(KVARIANT)) || exit 1; fi; \
	$(MAKE) -C "$$kdir" M=$(TEMPO_ROOT)/tools/examples \
		KBUILD_EXTRA_SYMBOLS=$(TEMPO_ROOT)/Module.symvers modules

# Layout identity for 32-bit callers, without a 32-bit libc: a freestanding
# compile of the UAPI header and libtempo's static asserts.
abi32: $(U_UAPI)
	@printf '%s\n' '#include "uapi/tempo.h"' '#include <stddef.h>' \
		'#define TEMPO_ABI_SIZE(n, s) _Static_assert(sizeof(struct n) == (s), #n)' \
		'#define TEMPO_ABI_FIELD(n, f, o) _Static_assert(offsetof(struct n, f) == (o), #n "." #f)' \
		'#include "uapi/tempo_layout.h"' | \
	$(U_CC) -m32 -ffreestanding -fsyntax-only -I$(U_INC) \
		-idirafter /usr/include/$$($(U_CC) -print-multiarch) -x c - && \
	echo "abi32: layouts identical under -m32"

userspace-clean:
	rm -rf $(TEMPO_ROOT)/build/lib $(TEMPO_ROOT)/build/guest $(U_INC)
	-$(MAKE) -C $(TEMPO_ROOT)/tools/examples clean >/dev/null 2>&1 || true
