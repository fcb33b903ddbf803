// SPDX-License-Identifier: GPL-2.0
/*
 * Test points (kmod/testing.h), built only with TEMPO_TESTING=1: the hook a
 * KUnit case installs, the random busy-wait of tempo.inject_delay that
 * make check-kcsan turns on to widen race windows, and the hold a test in
 * the VM arms with tempo.test_hold. Points are reached with interrupts off
 * and from hardirq: nothing here sleeps, but the hold at a point that
 * testing.h marks "may be held".
 */

#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/wait.h>
#include <kunit/visibility.h>

#include "testing.h"

static unsigned int inject_delay;
module_param(inject_delay, uint, 0644);
MODULE_PARM_DESC(inject_delay,
		 "testing builds only: wait up to this many us at 1 in 8 test points (0 = off)");

static tempo_test_hook_t test_hook;

/* The hold: the point armed (its number + 1, 0 = none) and whether a thread sleeps there. */
static unsigned int test_hold;
static atomic_t test_held = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(test_hold_wq);

#define TEST_HOLD_MAX	(30 * HZ)	/* a forgotten hold never wedges a thread */

/* The points testing.h marks "may be held", by the name test_hold takes. */
static const char *const test_hold_names[] = {
	[TEMPO_TP_DEV_TICKET_TAKEN]	= "dev_ticket_taken",
};

static int test_hold_set(const char *val, const struct kernel_param *kp)
{
	unsigned int i, armed = 0;

	if (!sysfs_streq(val, "none")) {
		for (i = 0; i < ARRAY_SIZE(test_hold_names); i++)
			if (test_hold_names[i] && sysfs_streq(val, test_hold_names[i]))
				armed = i + 1;
		if (!armed)
			return -EINVAL;
	}
	WRITE_ONCE(test_hold, armed);
	wake_up_all(&test_hold_wq);
	return 0;
}

static int test_hold_get(char *buf, const struct kernel_param *kp)
{
	unsigned int armed = READ_ONCE(test_hold);

	return sysfs_emit(buf, "%s\n", armed ? test_hold_names[armed - 1] : "none");
}

static const struct kernel_param_ops test_hold_ops = {
	.set	= test_hold_set,
	.get	= test_hold_get,
};
module_param_cb(test_hold, &test_hold_ops, NULL, 0600);
MODULE_PARM_DESC(test_hold,
		 "testing builds only: hold the first thread that reaches this test point (dev_ticket_taken) until set to none");

static int test_held_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&test_held));
}

static const struct kernel_param_ops test_held_ops = {
	.get	= test_held_get,
};
module_param_cb(test_held, &test_held_ops, NULL, 0400);
MODULE_PARM_DESC(test_held, "testing builds only: 1 while a thread is held at test_hold's point");

/**
 * tempo_test_set_hook() - install the hook every test point calls
 * @hook: the hook, or NULL to remove it.
 *
 * One hook for the module: a test filters on the point and object it wants.
 * Removing it does not wait for a hook already running; a test that frees
 * what its hook uses first makes sure no point is in flight (the cores' own
 * teardown does, for the objects it destroys).
 */
void tempo_test_set_hook(tempo_test_hook_t hook)
{
	WRITE_ONCE(test_hook, hook);
}
EXPORT_SYMBOL_IF_KUNIT(tempo_test_set_hook);

/* A point testing.h marks "may be held": process context, no lock held. */
static bool test_point_may_hold(enum tempo_test_point where)
{
	return where < ARRAY_SIZE(test_hold_names) && test_hold_names[where];
}

/* Hold the first thread at @where while test_hold names it; the others pass. */
static void test_point_hold(enum tempo_test_point where)
{
	unsigned int armed = where + 1;

	if (READ_ONCE(test_hold) != armed || atomic_cmpxchg(&test_held, 0, 1))
		return;
	wait_event_interruptible_timeout(test_hold_wq, READ_ONCE(test_hold) != armed,
					 TEST_HOLD_MAX);
	atomic_set(&test_held, 0);
}

void tempo_test_point(enum tempo_test_point where, const void *obj, u64 arg,
		      unsigned int state)
{
	tempo_test_hook_t hook = READ_ONCE(test_hook);
	unsigned int max = READ_ONCE(inject_delay);
	u32 r;

	if (unlikely(hook))
		hook(where, obj, arg, state);
	if (unlikely(READ_ONCE(test_hold)) && test_point_may_hold(where))
		test_point_hold(where);
	if (!max)
		return;
	r = get_random_u32();
	if (r & 7)
		return;
	udelay((r >> 3) % (max + 1));
}
