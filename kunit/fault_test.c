// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "tempo_fault": allocation-failure injection.
 *
 * For N = 1, 2, 3 ... each case fails the Nth fault-injection point that its
 * own task reaches inside one create call (current->fail_nth, what
 * /proc/self/fail-nth sets; lib/fault-inject.c), until a call completes
 * without reaching the Nth point. Every call that saw a failure must either
 * return -ENOMEM having left nothing behind (the module's own count of live
 * ordering domains, tempo_order_stats_all(); a delay queue counted but not
 * freed makes rmmod tempo WARN "delay queues leaked"), or succeed
 * (an allocator fallback absorbed the failure: kvmalloc falls back to
 * vmalloc) with a working object. Leaked memory is kmemleak's part: the test
 * VM's init scans after the tests and fails on an unreferenced object whose
 * allocation stack names tempo code (tools/vm/guest/init).
 *
 * Needs CONFIG_FAULT_INJECTION with FAILSLAB (and FAIL_PAGE_ALLOC for the
 * page-allocator paths), only in the KCSAN kernel (`make check-kcsan`), and
 * failslab/fail_page_alloc told not to ignore sleeping allocations
 * (ignore-gfp-wait = N, which the VM's init sets). Skips otherwise.
 */

#include <kunit/test.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <tempo/delayq.h>
#include <tempo/order.h>

#include "internal.h"

/* More injection points than any create call reaches, allocator fallbacks included. */
#define FAULT_MAX_NTH	400

/* Live ordering domains, the module's own count (debugfs tempo/order "domains"). */
static u64 fault_order_domains(void)
{
	struct tempo_order_stats st;

	return tempo_order_stats_all(&st);
}

#if IS_ENABLED(CONFIG_FAULT_INJECTION)
/* Arm the Nth injection point of this task; fault_disarm() returns what was left. */
static void fault_arm(unsigned int nth)
{
	WRITE_ONCE(current->fail_nth, nth);
}

static unsigned int fault_disarm(void)
{
	unsigned int left = READ_ONCE(current->fail_nth);

	WRITE_ONCE(current->fail_nth, 0);
	return left;
}
#else
static void fault_arm(unsigned int nth) { }
static unsigned int fault_disarm(void) { return 1; }
#endif

/*
 * Skip unless an injection at N = 1 is reached by @probe: without
 * FAULT_INJECTION, or with failslab ignoring GFP_KERNEL allocations, the
 * counter is never consumed.
 */
static void fault_require(struct kunit *test)
{
	struct tempo_delayq *q;
	unsigned int left;

	if (!IS_ENABLED(CONFIG_FAULT_INJECTION) || !IS_ENABLED(CONFIG_FAILSLAB))
		kunit_skip(test,
			   "needs CONFIG_FAULT_INJECTION and CONFIG_FAILSLAB (make check-kcsan)");
	fault_arm(1);
	q = tempo_delayq_create();
	left = fault_disarm();
	if (q)
		tempo_delayq_destroy(q, NULL, NULL);
	if (left)
		kunit_skip(test,
			   "failslab ignores sleeping allocations (failslab/ignore-gfp-wait)");
}

static void fault_order_create_window(struct kunit *test, u32 window)
{
	struct tempo_order_opts opts = { .first_ticket = 5 };
	unsigned int nth, left = 0, failed = 0, absorbed = 0;
	u64 domains = fault_order_domains();
	struct tempo_order *o;
	u64 ticket;

	for (nth = 1; nth <= FAULT_MAX_NTH; nth++) {
		fault_arm(nth);
		o = tempo_order_create(window, &opts);
		left = fault_disarm();
		if (IS_ERR(o)) {
			KUNIT_EXPECT_EQ_MSG(test, PTR_ERR(o), -ENOMEM,
					    "window %u, fail_nth %u", window, nth);
			KUNIT_EXPECT_EQ_MSG(test, left, 0u,
					    "window %u, fail_nth %u: error without an injected failure",
					    window, nth);
			KUNIT_EXPECT_EQ_MSG(test, fault_order_domains(), domains,
					    "window %u, fail_nth %u: a failed create left a domain",
					    window, nth);
			failed++;
			continue;
		}
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, o);
		if (!left)
			absorbed++;
		/* The domain works whatever the allocators went through. */
		KUNIT_EXPECT_EQ(test, tempo_order_ticket_try(o, &ticket), 0);
		KUNIT_EXPECT_EQ(test, ticket, 5ull);
		/* The head is trashed by its caller, who drains: 1. */
		KUNIT_EXPECT_EQ(test, tempo_order_trash(o, ticket), 1);
		tempo_order_destroy(o);
		if (left)
			break;
	}
	KUNIT_EXPECT_GT_MSG(test, left, 0u, "window %u: still failing at fail_nth %u",
			    window, FAULT_MAX_NTH);
	KUNIT_EXPECT_GE_MSG(test, failed, 1u, "window %u: no injected failure reached tempo",
			    window);
	KUNIT_EXPECT_EQ(test, fault_order_domains(), domains);
	kunit_info(test, "order_create(%u): %u injection points, %u -> -ENOMEM, %u absorbed by allocator fallbacks\n",
		   window, nth - 1, failed, absorbed);
}

/* A small ring comes from kmalloc: every failure is an -ENOMEM. */
static void fault_order_create_small(struct kunit *test)
{
	fault_require(test);
	fault_order_create_window(test, 64);
}

/* A ring larger than a page: kvcalloc's kmalloc, then its vmalloc fallback. */
static void fault_order_create_large(struct kunit *test)
{
	fault_require(test);
	fault_order_create_window(test, 4096);
}

static void fault_delayq_create(struct kunit *test)
{
	unsigned int nth, left = 0, failed = 0;
	struct tempo_delayq *q;

	fault_require(test);
	for (nth = 1; nth <= FAULT_MAX_NTH; nth++) {
		fault_arm(nth);
		q = tempo_delayq_create();
		left = fault_disarm();
		if (!q) {
			KUNIT_EXPECT_EQ_MSG(test, left, 0u,
					    "fail_nth %u: NULL without an injected failure", nth);
			failed++;
			continue;
		}
		KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, NULL, NULL), 0u);
		if (left)
			break;
	}
	KUNIT_EXPECT_GT(test, left, 0u);
	KUNIT_EXPECT_GE(test, failed, 1u);
	kunit_info(test, "delayq_create: %u injection points, %u -> NULL\n", nth - 1, failed);
}

static struct kunit_case fault_cases[] = {
	KUNIT_CASE(fault_order_create_small),
	KUNIT_CASE(fault_order_create_large),
	KUNIT_CASE(fault_delayq_create),
	{}
};

static struct kunit_suite fault_suite = {
	.name = "tempo_fault",
	.test_cases = fault_cases,
};

kunit_test_suite(fault_suite);
