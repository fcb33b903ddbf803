// SPDX-License-Identifier: GPL-2.0
/*
 * Test points (kmod/testing.h), built only with TEMPO_TESTING=1: the hook a
 * KUnit case installs, and the random busy-wait of tempo.inject_delay that
 * make check-kcsan turns on to widen race windows. Points are reached with
 * interrupts off and from hardirq: nothing here sleeps.
 */

#include <linux/delay.h>
#include <linux/module.h>
#include <linux/random.h>
#include <kunit/visibility.h>

#include "testing.h"

static unsigned int inject_delay;
module_param(inject_delay, uint, 0644);
MODULE_PARM_DESC(inject_delay,
		 "testing builds only: wait up to this many us at 1 in 8 test points (0 = off)");

static tempo_test_hook_t test_hook;

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

void tempo_test_point(enum tempo_test_point where, const void *obj, u64 arg,
		      unsigned int state)
{
	tempo_test_hook_t hook = READ_ONCE(test_hook);
	unsigned int max = READ_ONCE(inject_delay);
	u32 r;

	if (unlikely(hook))
		hook(where, obj, arg, state);
	if (!max)
		return;
	r = get_random_u32();
	if (r & 7)
		return;
	udelay((r >> 3) % (max + 1));
}
