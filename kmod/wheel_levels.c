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
	w->near_clk = clk << TEMPO_NEAR_SHIFT;
	w->near_next = TEMPO_NEVER;
	w->fine_clk = clk;
	w->depth = clamp(depth, TEMPO_LVL_DEPTH_MIN, TEMPO_LVL_DEPTH_MAX);
	memset(w->occupied, 0, sizeof(w->occupied));
	for (i = 0; i < TEMPO_WHEEL_VECTORS; i++)
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

/*
 * The earliest occupied boundary of the near level, or TEMPO_NEVER: its two
 * masks as one ring of TEMPO_NEAR_SLOTS bits, searched from near_clk.
 */
static u64 wheel_near_first(const struct tempo_wheel *w)
{
	const u64 *m = &w->occupied[TEMPO_NEAR_OFFS / TEMPO_LVL_SIZE];
	unsigned int pos = w->near_clk & TEMPO_NEAR_MASK, half = pos / TEMPO_LVL_SIZE;
	unsigned int bit = pos & TEMPO_LVL_MASK;
	/* From pos to the end of its half, the other half, then its half's start. */
	u64 here = m[half] >> bit, there = m[half ^ 1];

	if (here)
		return w->near_clk + __ffs64(here);
	if (there)
		return w->near_clk + (TEMPO_LVL_SIZE - bit) + __ffs64(there);
	here = m[half] & (BIT_ULL(bit) - 1);
	if (here)
		return w->near_clk + (2 * TEMPO_LVL_SIZE - bit) + __ffs64(here);
	return TEMPO_NEVER;
}

/**
 * tempo_wheel_near_forward - move the near level's clock forward to @b
 * @w: the wheel
 * @b: a boundary that has been reached
 *
 * As tempo_wheel_forward(): up to the earliest occupied boundary, never past
 * it, so that a placement from @b on finds the two ticks ahead in the level.
 * A stale @w->near_next behind @b is made exact first.
 */
void tempo_wheel_near_forward(struct tempo_wheel *w, u64 b)
{
	if (w->near_next < b)
		w->near_next = wheel_near_first(w);
	b = min(b, w->near_next);
	if (b > w->near_clk)
		w->near_clk = b;
}
EXPORT_SYMBOL_IF_KUNIT(tempo_wheel_near_forward);

/* The fine level's occupancy mask. */
static inline u64 *wheel_fine_mask(struct tempo_wheel *w)
{
	return &w->occupied[TEMPO_FINE_OFFS / TEMPO_LVL_SIZE];
}

/* The first occupied tick of the fine level, from its window's start. */
static u64 wheel_fine_first_tick(const struct tempo_wheel *w)
{
	u64 start = w->fine_clk + 2;

	return start + tempo_occupancy_next(w->occupied[TEMPO_FINE_OFFS / TEMPO_LVL_SIZE],
					    start & (TEMPO_FINE_SLOTS - 1));
}

/**
 * tempo_wheel_fine_next - the earliest boundary the fine level holds
 * @w: the wheel
 *
 * The first of its first occupied slot: no timer of a later slot, a later
 * tick, is due before it. Early after an unlink, never late.
 *
 * Return: a boundary, or TEMPO_NEVER for an empty fine level.
 */
u64 tempo_wheel_fine_next(const struct tempo_wheel *w)
{
	if (!w->occupied[TEMPO_FINE_OFFS / TEMPO_LVL_SIZE])
		return TEMPO_NEVER;
	return w->fine_first[wheel_fine_first_tick(w) & (TEMPO_FINE_SLOTS - 1)];
}
EXPORT_SYMBOL_IF_KUNIT(tempo_wheel_fine_next);

/*
 * Move every slot of the fine level whose tick the near level now covers to
 * @expired, and its clock on to the near level's tick. Return: slots moved.
 */
static unsigned int wheel_fine_pull(struct tempo_wheel *w, struct list_head *expired)
{
	u64 top = (w->near_clk >> TEMPO_NEAR_SHIFT) + 1, *mask = wheel_fine_mask(w);
	unsigned int slots = 0;

	while (*mask) {
		u64 tick = wheel_fine_first_tick(w);
		unsigned int pos = tick & (TEMPO_FINE_SLOTS - 1);

		if (tick > top)
			break;
		*mask &= ~BIT_ULL(pos);
		list_splice_tail_init(&w->vectors[TEMPO_FINE_OFFS + pos], expired);
		slots++;
	}
	if (top - 1 > w->fine_clk)
		w->fine_clk = top - 1;
	return slots;
}

/**
 * tempo_wheel_near_collect - move every near slot due at boundary @b to @expired
 * @w: the wheel
 * @b: the latest boundary reached (tempo_near_floor() of the time)
 * @expired: list the due timers are appended to
 *
 * Every slot of a boundary at or before @b, in boundary order; the clock
 * then moves past @b. Then every slot of the fine level whose tick the near
 * level now covers (the current tick and the next), for the caller to place
 * in the near level or find due. O(1) per slot collected, plus one search of
 * the masks per slot.
 *
 * Return: the number of slots collected.
 */
unsigned int tempo_wheel_near_collect(struct tempo_wheel *w, u64 b, struct list_head *expired)
{
	unsigned int slots = 0;

	while (w->near_next <= b) {
		u64 at = w->near_next;
		unsigned int idx = TEMPO_NEAR_OFFS + (at & TEMPO_NEAR_MASK);
		u64 bit = BIT_ULL(idx & TEMPO_LVL_MASK);

		/* A stale near_next (its slot emptied since) collects nothing. */
		if (w->occupied[idx / TEMPO_LVL_SIZE] & bit) {
			w->occupied[idx / TEMPO_LVL_SIZE] &= ~bit;
			list_splice_tail_init(&w->vectors[idx], expired);
			slots++;
		}
		w->near_clk = at + 1;
		w->near_next = wheel_near_first(w);
	}
	if (b >= w->near_clk)
		w->near_clk = b + 1;
	return slots + wheel_fine_pull(w, expired);
}
EXPORT_SYMBOL_IF_KUNIT(tempo_wheel_near_collect);

/**
 * tempo_wheel_empty - whether no slot is occupied
 * @w: the wheel
 *
 * Return: true if every slot, the near level's included, is empty.
 */
bool tempo_wheel_empty(const struct tempo_wheel *w)
{
	unsigned int lvl;

	for (lvl = 0; lvl < TEMPO_WHEEL_MASKS; lvl++)
		if (w->occupied[lvl])
			return false;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(tempo_wheel_empty);
