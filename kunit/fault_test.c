// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "tempo_fault": allocation-failure injection (issue 8).
 *
 * For N = 1, 2, 3 ... each case fails the Nth fault-injection point that its
 * own task reaches inside one create call (current->fail_nth, what
 * /proc/self/fail-nth sets; lib/fault-inject.c), until a call completes
 * without reaching the Nth point. Every call that saw a failure must either
 * return -ENOMEM having left nothing behind (the module's own counters in
 * debugfs: "domains" of tempo/order, "queues" of tempo/delayq), or succeed
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

/* More injection points than any create call reaches, allocator fallbacks included. */
#define FAULT_MAX_NTH	400

/* The value of "@key <n>" in a debugfs file of tempo, or -1. */
static long fault_debugfs_value(struct kunit *test, const char *path,
				const char *key)
{
	struct file *f;
	char *buf, *p;
	loff_t pos = 0;
	ssize_t len;
	long val = -1;
	size_t klen = strlen(key);

	buf = kunit_kzalloc(test, 1024, GFP_KERNEL);
	if (!buf)
		return -1;
	f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f))
		return -1;
	len = kernel_read(f, buf, 1023, &pos);
	filp_close(f, NULL);
	if (len <= 0)
		return -1;
	buf[len] = '\0';
	for (p = buf; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (!strncmp(p, key, klen) && p[klen] == ' ') {
			if (sscanf(p + klen + 1, "%ld", &val) != 1)
				val = -1;
			break;
		}
	}
	return val;
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
		kunit_skip(test, "needs CONFIG_FAULT_INJECTION and CONFIG_FAILSLAB (make check-kcsan)");
	fault_arm(1);
	q = tempo_delayq_create();
	left = fault_disarm();
	if (q)
		tempo_delayq_destroy(q, NULL, NULL);
	if (left)
		kunit_skip(test, "failslab ignores sleeping allocations (set debugfs failslab/ignore-gfp-wait to N)");
}

static void fault_order_create_window(struct kunit *test, u32 window)
{
	const char *path = "/sys/kernel/debug/tempo/order";
	struct tempo_order_opts opts = { .first_ticket = 5 };
	unsigned int nth, left = 0, failed = 0, absorbed = 0;
	long domains = fault_debugfs_value(test, path, "domains");
	struct tempo_order *o;
	u64 ticket;

	KUNIT_ASSERT_GE(test, domains, 0);
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
			KUNIT_EXPECT_EQ_MSG(test, fault_debugfs_value(test, path, "domains"),
					    domains, "window %u, fail_nth %u: a failed create left a domain",
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
	KUNIT_EXPECT_EQ(test, fault_debugfs_value(test, path, "domains"), domains);
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
	const char *path = "/sys/kernel/debug/tempo/delayq";
	long queues = fault_debugfs_value(test, path, "queues");
	unsigned int nth, left = 0, failed = 0;
	struct tempo_delayq *q;

	fault_require(test);
	KUNIT_ASSERT_GE(test, queues, 0);
	for (nth = 1; nth <= FAULT_MAX_NTH; nth++) {
		fault_arm(nth);
		q = tempo_delayq_create();
		left = fault_disarm();
		if (!q) {
			KUNIT_EXPECT_EQ_MSG(test, left, 0u,
					    "fail_nth %u: NULL without an injected failure", nth);
			KUNIT_EXPECT_EQ_MSG(test, fault_debugfs_value(test, path, "queues"),
					    queues, "fail_nth %u: a failed create counted a queue", nth);
			failed++;
			continue;
		}
		KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, NULL, NULL), 0u);
		if (left)
			break;
	}
	KUNIT_EXPECT_GT(test, left, 0u);
	KUNIT_EXPECT_GE(test, failed, 1u);
	KUNIT_EXPECT_EQ(test, fault_debugfs_value(test, path, "queues"), queues);
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
