# SPDX-License-Identifier: GPL-2.0
#
# tempo verification lanes, included by the top-level Makefile after its own
# definitions (deps, VM, LOCK) and tools/userspace.mk (U_INC, U_UAPI).
#
#   make litmus        herd7 + LKMM on tools/litmus/*.litmus (no VM; ~10 s)
#   make check-kcsan   every KUnit suite (stress included) and guest test program on the
#                      KCSAN kernel variant (tools/vm/kernel/kcsan.config), with tempo.ko
#                      built with its test points (TEMPO_TESTING=1, kmod/testing.h) and
#                      loaded with tempo.inject_delay on. Fails
#                      on any test failure, kernel splat, or KCSAN report involving
#                      tempo code: a [tempo] frame in the stack of either access (below
#                      an interrupt entry, the frames are the interrupted task's and do
#                      not count), or an access made by the test or example modules'
#                      own code ([tempo_test], [tempo_example] as the first frame; their
#                      calls into kernel primitives, such as usleep_range(), do not
#                      make the kernel's races there theirs). Other KCSAN reports are
#                      listed, not counted. build/check-kcsan/.
#                      The same run is the allocation-failure lane: the KCSAN kernel has
#                      FAILSLAB, FAIL_PAGE_ALLOC and KMEMLEAK, the VM's init arms them for
#                      fail-nth, the tempo_fault suite (kunit/fault_test.c) fails each
#                      allocation of the create paths in turn, and the init fails the run
#                      on a kmemleak report whose allocation stack names tempo code.
#   make fuzz          build/guest/tests/tempo_fuzz (tools/fuzz/fuzz_ioctl.c, static): the
#                      /dev/tempo ioctl fuzzer, run by the VM with the other guest test
#                      programs, so `make check` runs it on the KASAN kernel and
#                      `make check-kcsan` on the KCSAN one: 20 s as root, then 20 s as
#                      uid 65534 in a forked child (KTAP "fuzz_unprivileged"), as any
#                      user may open /dev/tempo.
#   make verify        litmus, then check-kcsan
#
# Knobs: KCSAN_APPEND (kernel command line of the KCSAN run), KCSAN_SMP (vCPUs),
# KCSAN_VM_TIMEOUT (seconds before the guest counts as hung; TEMPO_VM_TIMEOUT in
# the environment wins): 1500, against make check's 900, as the KCSAN guest took
# 250 to 370 s at a host load of 2 to 4 but 440 to 530 s at 5 to 6.
# tempo.* parameters reach tempo.ko (the guest's init passes them to insmod), but
# tempo_test.* ones cannot reach the suites on 6.1: KUnit runs a module's suites
# from the MODULE_STATE_COMING notifier, before load_module() parses its
# parameters (6.12 and 7.2 run them at MODULE_STATE_LIVE, after). So the stress
# cases run their default budgets here, and stretch them when the kernel is slow.

KCSAN_SMP ?= 2
KCSAN_VM_TIMEOUT ?= 1500
KCSAN_APPEND ?= tempo.inject_delay=20 kcsan.skip_watch=1000

.PHONY: litmus check-kcsan verify fuzz

FUZZ_BIN := build/guest/tests/tempo_fuzz
FUZZ_CFLAGS := -O2 -g -std=gnu11 -Wall -Wextra -Werror -I$(U_INC) -Itools/uapi-tests -static -pthread

fuzz: $(FUZZ_BIN)

$(FUZZ_BIN): tools/fuzz/fuzz_ioctl.c tools/uapi-tests/harness.h tools/uapi-tests/kids.h $(U_UAPI)
	@mkdir -p $(dir $@)
	$(CC) $(FUZZ_CFLAGS) $< -o $@

# The VM packs build/guest/tests/: build the fuzzer before either check.
check check-kcsan: fuzz

litmus:
	@tools/litmus/run.sh

# The guest test programs, and the example client module built against the KCSAN
# kernel (check.sh loads it as TEMPO_EXTRA_KOS, as `make check` does).
# Like `make check`, the last line on stdout is "N passed, N failed[, N skipped]"
# (make's own "Error" line follows on stderr) and build/check-kcsan/summary.txt
# holds it; a failure before the VM runs writes "0 passed, 1 failed" there, never
# leaving an older run's verdict in place.
KCSAN_SUMMARY := build/check-kcsan/summary.txt
check-kcsan: deps userspace
	@mkdir -p $(dir $(KCSAN_SUMMARY)) && rm -f $(KCSAN_SUMMARY)
	@$(VM)/kernel.sh kcsan >/dev/null || \
		{ echo "check-kcsan: the KCSAN kernel did not build"; \
		  echo "0 passed, 1 failed" | tee $(KCSAN_SUMMARY); exit 1; }
	@kdir=$$($(VM)/kernel.sh kcsan) && \
		$(MAKE) --no-print-directory KDIR="$$kdir" examples >build/check-kcsan-examples.log 2>&1 || \
		{ cat build/check-kcsan-examples.log; echo "check-kcsan: the example module did not build"; \
		  echo "0 passed, 1 failed" | tee $(KCSAN_SUMMARY); exit 1; }
	@TEMPO_KVARIANT=kcsan TEMPO_CHECK_OUT=$(CURDIR)/build/check-kcsan \
		TEMPO_KCSAN_SCOPE='\[tempo\]' TEMPO_KCSAN_SCOPE_TOP='\[tempo' \
		TEMPO_VM_SMP=$(KCSAN_SMP) TEMPO_VM_APPEND="$(KCSAN_APPEND) $(TEMPO_VM_APPEND)" \
		TEMPO_VM_TIMEOUT=$${TEMPO_VM_TIMEOUT:-$(KCSAN_VM_TIMEOUT)} \
		$(LOCK) $(VM)/check.sh

verify: litmus check-kcsan
