/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the wheel's userspace tests: a state word's reading and a clock driver. */
#ifndef _TEMPO_WHEEL_HARNESS_H
#define _TEMPO_WHEEL_HARNESS_H

#include <linux/types.h>
#include <tempo/timer.h>
#include "internal.h"
#include "sim.h"
#include "wheel.h"	/* the state word's bits, TT_* */

static inline long h_state(struct tempo_timer *t)
{
	return __atomic_load_n(&t->state.counter, __ATOMIC_ACQUIRE);
}

/*
 * Deterministic mode: move the fake clock to @until, stopping at every
 * hrtimer expiry on the way and delivering everything due there.
 */
static inline void h_drive_until(u64 until)
{
	tempo_sim_run_all();
	for (;;) {
		u64 now = ktime_get_ns(), next = tempo_sim_next_hrtimer();

		if (next > until || next == U64_MAX) {
			if (until > now)
				tempo_sim_clock_set(until);
			tempo_sim_run_all();
			return;
		}
		if (next > now)
			tempo_sim_clock_set(next);
		tempo_sim_run_all();
	}
}

#endif
