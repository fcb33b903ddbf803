// SPDX-License-Identifier: GPL-2.0
/*
 * DEBUG HOOK: random delays at the racy points of the cores, built
 * only with TEMPO_INJECT_DELAY=1 (make check-kcsan). See kmod/internal.h.
 * Called with interrupts off and from hardirq: it busy-waits, never sleeps.
 */

#include <linux/delay.h>
#include <linux/module.h>
#include <linux/random.h>

#include "internal.h"

static unsigned int inject_delay;
module_param(inject_delay, uint, 0644);
MODULE_PARM_DESC(inject_delay,
		 "debug builds only: wait up to this many us at 1 in 8 racy points (0 = off)");

void tempo_inject_delay(void)
{
	unsigned int max = READ_ONCE(inject_delay);
	u32 r;

	if (!max)
		return;
	r = get_random_u32();
	if (r & 7)
		return;
	udelay((r >> 3) % (max + 1));
}
