# SPDX-License-Identifier: GPL-2.0
#
# The cores in userspace (tools/user-cores/): the very same kmod/*.c files, built
# against the shim headers in tools/user-cores/include and run on simulated CPUs.
#
#   make test-user          every userspace test, KTAP, "N passed, N failed"
#   make user-bench         the native benchmarks only (build/user/bench.json)
#
# Knobs: USER_STRESS_SECS (per TSan stress run, default 3),
#        USER_FUZZ_SECS (wheel libFuzzer time, default 60),
#        USER_ORDER_FUZZ_SECS (order libFuzzer time, default 20),
#        USER_DELAYQ_FUZZ_SECS (delay queue libFuzzer time, default 25).

USER_CC ?= clang
USER_OUT := build/user
USER_DIR := tools/user-cores
USER_STRESS_SECS ?= 3
USER_FUZZ_SECS ?= 60
USER_ORDER_FUZZ_SECS ?= 20
USER_DELAYQ_FUZZ_SECS ?= 25
USER_KSRC := $(USER_OUT)/ksrc
# The tests use the one test harness, tools/uapi-tests/harness.h; a case during
# which the shim's WARN() fires fails (TEST_WARN_COUNT).
USER_CFLAGS := -std=gnu11 -g -O1 -Wall -Wno-unused-function -fno-omit-frame-pointer \
	-I$(USER_DIR)/include -Iinclude -Ikmod -I$(USER_DIR) -I$(USER_KSRC) -Itools/uapi-tests \
	-DTEST_WARN_COUNT=tempo_user_warnings
USER_ASAN := -fsanitize=address,undefined -fno-sanitize=pointer-overflow \
	-fno-sanitize-recover=undefined
USER_TSAN := -fsanitize=thread
USER_FUZZ := -fsanitize=fuzzer,address,undefined -fno-sanitize=pointer-overflow
USER_SIM := $(USER_DIR)/sim.c
USER_HDRS := $(wildcard $(USER_DIR)/*.h $(USER_DIR)/include/*.h \
	$(USER_DIR)/include/*/*.h) kmod/wheel.h kmod/wheel_base.h kmod/occupancy.h include/tempo/timer.h \
	tools/uapi-tests/harness.h
USER_WHEEL := kmod/wheel.c kmod/wheel_levels.c kmod/wheel_debugfs.c
USER_WHEEL += kmod/wheel_sync.c kmod/wheel_cpu.c kmod/wheel_defer.c kmod/wheel_coarse.c
USER_WHEEL += kmod/wheel_attr.c kmod/wheel_inbox.c kmod/wheel_owner.c
USER_HDRS += include/tempo/order.h include/tempo/delayq.h kmod/internal.h kmod/clock.h kmod/delayq_internal.h
# The det and stress tests see the cores' test points (kmod/testing.h) and
# supply tempo_test_point() themselves.
USER_ORDER := $(USER_WHEEL) kmod/order.c
# The delay queue's rbtree: the kernel's own userspace copy, taken from the
# linux-source tree at build time (tools/user-cores/rbtree.sh), never kept here.
USER_RBTREE := $(USER_KSRC)/rbtree.c
USER_DELAYQ := $(USER_WHEEL) kmod/clock.c kmod/delayq.c kmod/delayq_clock.c kmod/delayq_life.c $(USER_RBTREE)
USER_TESTING := -DTEMPO_TESTING

USER_BINS := $(USER_OUT)/wheel_det_test $(USER_OUT)/wheel_stress \
	$(USER_OUT)/wheel_fuzz $(USER_OUT)/bench \
	$(USER_OUT)/order_det_test $(USER_OUT)/order_stress $(USER_OUT)/order_fuzz \
	$(USER_OUT)/delayq_stress $(USER_OUT)/delayq_det_test $(USER_OUT)/delayq_fuzz \
	$(USER_OUT)/fault_det_test $(USER_OUT)/clock_det_test $(USER_OUT)/harness_test

$(USER_RBTREE): $(USER_DIR)/rbtree.sh
	$(USER_DIR)/rbtree.sh $(USER_OUT)

# With the test points: the test runs another CPU's operations at the cores' racy points.
$(USER_OUT)/wheel_det_test: $(USER_DIR)/wheel_det_test.c $(USER_SIM) $(USER_WHEEL) $(USER_HDRS)
	@mkdir -p $(@D)
	$(USER_CC) $(USER_CFLAGS) $(USER_TESTING) $(USER_ASAN) -o $@ $(filter %.c,$^) -lpthread

$(USER_OUT)/wheel_stress: $(USER_DIR)/wheel_stress.c $(USER_SIM) $(USER_WHEEL) $(USER_HDRS)
	@mkdir -p $(@D)
	$(USER_CC) $(USER_CFLAGS) $(USER_TSAN) -o $@ $(filter %.c,$^) -lpthread

$(USER_OUT)/wheel_fuzz: $(USER_DIR)/wheel_fuzz.c $(USER_SIM) $(USER_WHEEL) $(USER_HDRS)
	@mkdir -p $(@D)
	$(USER_CC) $(USER_CFLAGS) $(USER_FUZZ) -o $@ $(filter %.c,$^) -lpthread

# order_det_test.c includes kmod/order.c (to name its slot states): not linked again.
$(USER_OUT)/order_det_test: $(USER_DIR)/order_det_test.c $(USER_SIM) $(USER_ORDER) $(USER_HDRS)
	@mkdir -p $(@D)
	$(USER_CC) $(USER_CFLAGS) $(USER_TESTING) $(USER_ASAN) -o $@ \
		$(filter-out kmod/order.c,$(filter %.c,$^)) -lpthread

$(USER_OUT)/order_stress: $(USER_DIR)/order_stress.c $(USER_SIM) $(USER_ORDER) $(USER_HDRS)
	@mkdir -p $(@D)
	$(USER_CC) $(USER_CFLAGS) $(USER_TESTING) $(USER_TSAN) -o $@ $(filter %.c,$^) -lpthread

$(USER_OUT)/order_fuzz: $(USER_DIR)/order_fuzz.c $(USER_SIM) $(USER_ORDER) $(USER_HDRS)
	@mkdir -p $(@D)
	$(USER_CC) $(USER_CFLAGS) $(USER_FUZZ) -o $@ $(filter %.c,$^) -lpthread

$(USER_OUT)/delayq_stress: $(USER_DIR)/delayq_stress.c $(USER_SIM) $(USER_DELAYQ) $(USER_HDRS)
	@mkdir -p $(@D)
	$(USER_CC) $(USER_CFLAGS) $(USER_TESTING) $(USER_TSAN) -o $@ $(filter %.c,$^) -lpthread

$(USER_OUT)/delayq_det_test: $(USER_DIR)/delayq_det_test.c $(USER_SIM) $(USER_DELAYQ) $(USER_HDRS)
	@mkdir -p $(@D)
	$(USER_CC) $(USER_CFLAGS) $(USER_ASAN) -o $@ $(filter %.c,$^) -lpthread

$(USER_OUT)/delayq_fuzz: $(USER_DIR)/delayq_fuzz.c $(USER_SIM) $(USER_DELAYQ) $(USER_HDRS)
	@mkdir -p $(@D)
	$(USER_CC) $(USER_CFLAGS) $(USER_FUZZ) -o $@ $(filter %.c,$^) -lpthread

$(USER_OUT)/clock_det_test: $(USER_DIR)/clock_det_test.c $(USER_SIM) $(USER_DELAYQ) $(USER_HDRS)
	@mkdir -p $(@D)
	$(USER_CC) $(USER_CFLAGS) $(USER_ASAN) -o $@ $(filter %.c,$^) -lpthread

# The test harness itself: a case that dies is undone from the harness's process.
$(USER_OUT)/harness_test: tools/uapi-tests/harness_test.c tools/uapi-tests/harness.h
	@mkdir -p $(@D)
	$(USER_CC) $(filter-out -DTEST_WARN_COUNT=%,$(USER_CFLAGS)) $(USER_ASAN) -o $@ $(filter %.c,$^)

# Allocation-failure paths under ASan/LeakSanitizer.
$(USER_OUT)/fault_det_test: $(USER_DIR)/fault_det_test.c $(USER_SIM) $(USER_ORDER) kmod/clock.c kmod/delayq.c \
		kmod/delayq_clock.c kmod/delayq_life.c $(USER_RBTREE) $(USER_HDRS)
	@mkdir -p $(@D)
	$(USER_CC) $(USER_CFLAGS) $(USER_ASAN) -o $@ $(filter %.c,$^) -lpthread

$(USER_OUT)/bench: $(USER_DIR)/bench.c $(USER_SIM) $(USER_ORDER) kmod/clock.c kmod/delayq.c \
		kmod/delayq_clock.c kmod/delayq_life.c $(USER_RBTREE) $(USER_HDRS)
	@mkdir -p $(@D)
	$(USER_CC) $(filter-out -O1,$(USER_CFLAGS)) -O2 -o $@ $(filter %.c,$^) -lpthread

.PHONY: test-user user-build user-bench
user-build: $(USER_BINS)

test-user: deps
	@mkdir -p $(USER_OUT)
	@$(MAKE) --no-print-directory user-build >$(USER_OUT)/build.log 2>&1 || \
		{ cat $(USER_OUT)/build.log; echo "test-user: build failed"; echo "0 passed, 1 failed"; exit 1; }
	@USER_STRESS_SECS=$(USER_STRESS_SECS) USER_FUZZ_SECS=$(USER_FUZZ_SECS) \
		USER_ORDER_FUZZ_SECS=$(USER_ORDER_FUZZ_SECS) \
		USER_DELAYQ_FUZZ_SECS=$(USER_DELAYQ_FUZZ_SECS) \
		$(USER_DIR)/run.sh $(USER_OUT)

user-bench: $(USER_OUT)/bench
	@$(USER_OUT)/bench $(USER_OUT)/bench.json
	@python3 tools/bench/report.py --user $(USER_OUT)/bench.json
