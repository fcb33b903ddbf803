// SPDX-License-Identifier: GPL-2.0
/*
 * tempo timer wheel: the wheel proper, a hierarchical, non-cascading wheel
 * driven by an explicit clock, with one owner at a time. It knows nothing of
 * CPUs, interrupts or real time (kmod/wheel.c wraps one per CPU), so the
 * KUnit suite and tools/user-cores/ drive it tick by tick. Its small calls (level,
 * slot, link, del, forward) are inline in kmod/wheel.h, for the arm and
 * settle paths; what runs once per collection is here.
 */

/**
 * DOC: timer wheel: the wheel
 *
 * Struct tempo_wheel, kmod/wheel.h.
 *
 *
 * Linux's non-cascading design (kernel/time/timer.c): LVL_DEPTH levels of 64
 * slots, each level 8 times coarser than the one below. A timer goes into the
 * level whose range holds its distance from the wheel clock, into the slot of
 * its expiry rounded UP to the level's granularity, and stays there until that
 * slot is collected: there is no cascading, so a timer is moved only by its
 * owner's own operations. Lateness is bounded by the level granularity, which
 * is at most 1/8 (12.5%) of the delay. With tick = 1 ms and 10 levels::
 *
 *	Level  Granularity        Range (delay)
 *	  0        1 ms            0 ms  -        62 ms
 *	  1        8 ms           63 ms  -       503 ms
 *	  2       64 ms          504 ms  -     4.03 s      <- far levels from here
 *	  3      512 ms         4.03 s   -    32.25 s
 *	  4     4.10 s         32.25 s   -     4.30 min
 *	  5    32.77 s          4.30 min -    34.41 min
 *	  6     4.37 min       34.41 min -     4.59 h
 *	  7    34.95 min        4.59 h   -    36.70 h
 *	  8     4.66 h         36.70 h   -    12.23 d
 *	  9    37.28 h         12.23 d   -    94.76 d (maximum, see below)
 *
 * The maximum delay is LVL_START(depth) - 2 * LVL_GRAN(depth - 1) ticks:
 * 8,187,281,408 ticks (about 2^32.9) for 10 levels. Longer delays are refused
 * with -ERANGE, never wrapped or clamped. /sys/kernel/debug/tempo/wheel/geometry
 * prints this table for the loaded tick_ns and levels, and the first far level.
 *
 * Beside level 0, two levels hold TEMPO_TIMER_FINE timers: the near level,
 * due within two ticks, in slots of a 64th of a tick (15.6 us at tick_ns =
 * 1 ms), and the fine level, the 64 ticks after those, a tick a slot (NEAR).
 *
 * Each level has a 64-bit occupancy mask, so the next expiry is found with a
 * rotate and a find-first-set per level (O(levels)) and the hrtimer is armed
 * for exactly that tick, or the near level's next occupied boundary if that
 * comes first: empty slots are skipped, and an empty wheel has no hrtimer
 * armed at all. Collection moves whole slots off the wheel in hardirq
 * context and sorts them (base_collect()): a timer due as it was placed goes
 * to the expired list, whose callbacks the per-CPU work item then runs in
 * batches in process context; a lazily cancelled one is dropped and a lazily
 * re-armed one re-placed, there and then.
 */

/**
 * DOC: timer wheel: the near and fine levels
 *
 * The near level. Beside level 0, each wheel has TEMPO_NEAR_SLOTS (128)
 * slots of a 64th of a tick, two ticks from the level's clock, near_clk. They are
 * named by boundaries counted from time 0: boundary b is the instant
 * tempo_near_ns(b), every 64th one a tick's start (kmod/wheel.h); a near slot
 * is collected at its boundary, and a FINE timer of deadline D is due at the
 * first boundary at or after it, tempo_near_of(D). The level's masks and lists
 * follow the levels' in struct tempo_wheel, so linking, unlinking, parking and
 * the evacuation treat its slots as any other; the collection takes them in
 * boundary order (tempo_wheel_near_collect()), and the hrtimer is armed for
 * the earlier of the levels' next bucket and the next occupied boundary
 * (base_next(), I5).
 *
 * The fine level. Beside level 0, TEMPO_FINE_SLOTS (64) slots of a tick hold
 * the FINE timers of the 64 ticks after the near level's two, from its own
 * clock fine_clk: [fine_clk + 2, fine_clk + 66). Each slot keeps its earliest
 * boundary (fine_first, exact after a link, early after an unlink, and
 * reset when a link finds the slot empty), and the hrtimer is armed for the
 * earliest of its first occupied slot (tempo_wheel_fine_next()): no timer
 * of a later slot, a later tick, is due before it. Every collection of the
 * near level then moves to it the fine slots of the ticks it now covers,
 * the current and the next (tempo_wheel_near_collect()), and fine_clk on.
 * So a FINE timer due within 65 ticks costs one expiry, its own, and none
 * at the start of its tick to move it nearer: the move comes with the
 * expiry of the first of its tick, or with any collection in the tick
 * before. A stale fine_first is of the same tick as the slot's timers, so
 * the expiry it asks for finds the tick covered and moves the slot.
 *
 * Placement (base_choose_fine(), tempo_wheel_fine_slot()). A FINE timer whose
 * boundary b lies within the near level's two ticks goes into b's slot; a b
 * passed already, into the slot collected next. Else, if b's tick, b / 64,
 * lies in the fine level's window, into its slot there (it does from the
 * near level's reach on: the near level covers every tick to fine_clk + 1).
 * Any other goes into the levels, by b's tick rounded DOWN to its level's
 * granule (tempo_wheel_slot_floor()), so that the slot is collected at or
 * before b, never after. Collected before it is due, the timer is placed
 * again, from the clock of then, at most a granule before b: into a lower
 * level, or the fine or the near level. So a FINE timer is placed at most
 * once per level it passes, each time in O(1). A boundary that starts a
 * tick needs no near slot: in a slot of the levels collected right at that
 * tick, the timer is due.
 *
 * The near level's clock moves past the last boundary reached at every
 * collection, and at every FINE placement to the current tick's first
 * boundary, never past an occupied one (tempo_wheel_near_forward()), so that
 * a timer due this tick or the next fits. The fine level's moves only with
 * the collections, which move its slots along: a placement's forward may
 * take the near level past a fine slot's tick, whose expiry is then due and
 * moves it. If the near level's clock lags (its earliest slot due and not
 * yet collected: an hrtimer held off), a timer may find no room there and go
 * to the fine level or the levels: to the slot of its tick when that is at
 * or after the clock there, else to the slot collected next, and then it is
 * due already (a clock passes a tick only at a collection, which collects
 * the near level too, or once that tick has begun).
 *
 * Slack. A FINE timer's slack is kept in 64ths of a tick, in the same code as
 * a tick timer's (SLACK). tempo_wheel_fine_aim() aims it at the last multiple
 * of the slack in its window, from b to the last boundary within the deadline
 * plus the slack, so that FINE timers with one slack whose windows overlap
 * share a boundary, and an expiry. A slack of a tick or more aims at whole
 * ticks of the granule of the level the window ends in, buckets of their own
 * level, where the timer needs no near slot, and shares the tick timers'
 * expiries.
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
