// SPDX-License-Identifier: GPL-2.0
/*
 * tempo timer wheel: the wheel proper, a hierarchical, non-cascading wheel
 * driven by an explicit clock, with one owner at a time. It knows nothing of
 * CPUs, interrupts or real time (kmod/wheel.c wraps one per CPU), so the
 * KUnit suite and tools/user-cores/ drive it tick by tick. Its small calls (level,
 * slot, link, del, forward) are inline in kmod/wheel.h, for the arm and
 * settle paths; what runs once per collection is here.
 */

#include <linux/bitops.h>
#include <linux/list.h>
#include <linux/string.h>

#include "occupancy.h"
#include "wheel.h"

/**
 * tempo_wheel_setup - empty a wheel and set its clock
 * @w: the wheel
 * @depth: levels, TEMPO_LVL_DEPTH_MIN..TEMPO_LVL_DEPTH_MAX
 * @clk: the first tick to collect
 */
void tempo_wheel_setup(struct tempo_wheel *w, unsigned int depth, u64 clk)
{
	unsigned int i;

	w->clk = clk;
	w->next_expiry = TEMPO_NEVER;
	w->depth = clamp(depth, TEMPO_LVL_DEPTH_MIN, TEMPO_LVL_DEPTH_MAX);
	memset(w->occupied, 0, sizeof(w->occupied));
	for (i = 0; i < TEMPO_WHEEL_SLOTS; i++)
		INIT_LIST_HEAD(&w->vectors[i]);
}
EXPORT_SYMBOL_IF_KUNIT(tempo_wheel_setup);

/* The earliest bucket expiry from the current clock (kernel/time/timer.c). */
static u64 wheel_next_expiry(const struct tempo_wheel *w)
{
	u64 clk = w->clk, next = TEMPO_NEVER;
	unsigned int lvl;

	for (lvl = 0; lvl < w->depth; lvl++) {
		int pos = tempo_occupancy_next(w->occupied[lvl], clk & TEMPO_LVL_MASK);
		u64 lvl_clk = clk & TEMPO_LVL_CLK_MASK;

		if (pos >= 0) {
			u64 tmp = (clk + pos) << TEMPO_LVL_SHIFT(lvl);

			if (tmp < next)
				next = tmp;
			/* Nothing in a higher level can expire before this. */
			if (pos <= ((TEMPO_LVL_CLK_DIV - lvl_clk) & TEMPO_LVL_CLK_MASK))
				break;
		}
		/*
		 * The clock of the next level: its next slot to collect is the
		 * current one if this level's clock is aligned, else the one
		 * after (see timer_recalc_next_expiry() in kernel/time/timer.c).
		 */
		clk = (clk >> TEMPO_LVL_CLK_SHIFT) + (lvl_clk ? 1 : 0);
	}
	return next;
}

/**
 * tempo_wheel_collect - move every slot due at or before @now to @expired
 * @w: the wheel
 * @now: the current tick
 * @expired: list the due timers are appended to
 *
 * Return: the number of slots collected.
 */
unsigned int tempo_wheel_collect(struct tempo_wheel *w, u64 now, struct list_head *expired)
{
	unsigned int slots = 0;

	while (w->next_expiry <= now) {
		u64 clk = w->next_expiry;
		unsigned int lvl;

		w->clk = clk;
		for (lvl = 0; lvl < w->depth; lvl++) {
			unsigned int pos = clk & TEMPO_LVL_MASK;

			if (w->occupied[lvl] & BIT_ULL(pos)) {
				w->occupied[lvl] &= ~BIT_ULL(pos);
				list_splice_tail_init(&w->vectors[TEMPO_LVL_OFFS(lvl) + pos],
						      expired);
				slots++;
			}
			/* Higher levels are due only on their granule boundary. */
			if (clk & TEMPO_LVL_CLK_MASK)
				break;
			clk >>= TEMPO_LVL_CLK_SHIFT;
		}
		w->clk++;
		w->next_expiry = wheel_next_expiry(w);
	}
	return slots;
}
EXPORT_SYMBOL_IF_KUNIT(tempo_wheel_collect);

/**
 * tempo_wheel_empty - whether no slot is occupied
 * @w: the wheel
 *
 * Return: true if every slot is empty.
 */
bool tempo_wheel_empty(const struct tempo_wheel *w)
{
	unsigned int lvl;

	for (lvl = 0; lvl < TEMPO_LVL_DEPTH_MAX; lvl++)
		if (w->occupied[lvl])
			return false;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(tempo_wheel_empty);
