// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation-failure injection on the cores' create paths, in userspace:
 * the shim's fail-nth (tempo_fail_nth, tools/user-cores/include/
 * tempo_user.h) fails the Nth allocation of one call, for N = 1, 2, ...
 * until the call no longer reaches the Nth allocation. A failed call must
 * return its error; a successful one a working object. Built with ASan, so
 * LeakSanitizer fails the run on anything an error path forgot to free. The
 * kernel counterpart is kunit/fault_test.c (suite tempo_fault, check-kcsan).
 */
#define _GNU_SOURCE
#include <linux/types.h>
#include <tempo/delayq.h>
#include <tempo/order.h>
#include "internal.h"
#include "sim.h"
#include "harness.h"

#define MAX_NTH	64

static void order_create_window(u32 window)
{
	struct tempo_order_opts opts = { .first_ticket = 5 };
	unsigned int nth, left = 0, failed = 0;
	struct tempo_order *o;
	u64 ticket = 0;

	for (nth = 1; nth <= MAX_NTH; nth++) {
		tempo_fail_nth = nth;
		o = tempo_order_create(window, &opts);
		left = tempo_fail_nth;
		tempo_fail_nth = 0;
		if (IS_ERR(o)) {
			EXPECT_EQ(PTR_ERR(o), -ENOMEM, "window %u nth %u: %ld", window, nth, PTR_ERR(o));
			EXPECT_EQ(left, 0, "window %u nth %u: error without a failure", window, nth);
			failed++;
			continue;
		}
		EXPECT_NE(o, NULL, "window %u nth %u", window, nth);
		if (!o)
			break;
		EXPECT_TRUE(tempo_order_ticket_try(o, &ticket) == 0 && ticket == 5, "nth %u", nth);
		EXPECT_EQ(tempo_order_trash(o, ticket), 1, "nth %u: the head drains itself", nth);
		tempo_order_destroy(o);
		if (left)
			break;
	}
	EXPECT_GT(left, 0, "window %u: still failing at nth %u", window, MAX_NTH);
	EXPECT_GE(failed, 3, "window %u: only %u failures (kzalloc, ring, percpu expected)",
		  window, failed);
	printf("    # order_create(%u): %u allocations, %u -> -ENOMEM\n", window, nth - 1, failed);
}

static void order_create_small(void) { order_create_window(64); }
static void order_create_large(void) { order_create_window(4096); }

static void delayq_create(void)
{
	unsigned int nth, left = 0, failed = 0;
	struct tempo_delayq *q;

	for (nth = 1; nth <= MAX_NTH; nth++) {
		tempo_fail_nth = nth;
		q = tempo_delayq_create();
		left = tempo_fail_nth;
		tempo_fail_nth = 0;
		if (!q) {
			EXPECT_EQ(left, 0, "nth %u: NULL without a failure", nth);
			failed++;
			continue;
		}
		EXPECT_EQ(tempo_delayq_destroy(q, NULL, NULL), 0, "nth %u", nth);
		if (left)
			break;
	}
	EXPECT_TRUE(left > 0 && failed >= 1, "left %u failed %u", left, failed);
	printf("    # delayq_create: %u allocations, %u -> NULL\n", nth - 1, failed);
}

static const struct test_case cases[] = {
	TEST_CASE_VOID(order_create_small),
	TEST_CASE_VOID(order_create_large),
	TEST_CASE_VOID(delayq_create),
	{}
};

int main(void)
{
	int rc;

	tempo_sim_init(2, true, false);
	if (tempo_wheel_init(100000, 10) || tempo_order_init() || tempo_delayq_init())
		return 1;
	rc = test_run("fault_det", cases);
	tempo_delayq_exit();
	tempo_order_exit();
	tempo_wheel_exit();
	return rc;
}
