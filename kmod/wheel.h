/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The wheel proper: a hierarchical, non-cascading timer wheel driven by an
 * explicit clock. It knows nothing of CPUs, interrupts or real time, so the
 * KUnit suite can drive it tick by tick. kmod/wheel.c wraps one per CPU. Its
 * calls of every arm are inline here; kmod/wheel_levels.c has the rest.
 * Below them, what kmod/wheel.c shares with its debugfs view
 * (kmod/wheel_debugfs.c) and its tests: the state word's bits, the per-CPU
 * counters.
 *
 * Not a public API: the wheel's files include it, and so do the tests that
 * drive a wheel tick by tick, kunit/wheel_test.c and tools/user-cores.
 */
#ifndef _TEMPO_WHEEL_H
#define _TEMPO_WHEEL_H

#include <linux/list.h>
#include <linux/math64.h>
#include <linux/types.h>
#include <kunit/visibility.h>
#include <tempo/timer.h>

#define TEMPO_LVL_CLK_SHIFT	3
#define TEMPO_LVL_CLK_DIV	BIT(TEMPO_LVL_CLK_SHIFT)
#define TEMPO_LVL_CLK_MASK	(TEMPO_LVL_CLK_DIV - 1)
#define TEMPO_LVL_SHIFT(n)	((n) * TEMPO_LVL_CLK_SHIFT)
#define TEMPO_LVL_GRAN(n)	(1ULL << TEMPO_LVL_SHIFT(n))
#define TEMPO_LVL_BITS		6
#define TEMPO_LVL_SIZE		BIT(TEMPO_LVL_BITS)
#define TEMPO_LVL_MASK		(TEMPO_LVL_SIZE - 1)
#define TEMPO_LVL_OFFS(n)	((n) * TEMPO_LVL_SIZE)
/* First delta (in ticks) that no longer fits level n - 1. */
#define TEMPO_LVL_START(n)	((u64)(TEMPO_LVL_SIZE - 1) << (((n) - 1) * TEMPO_LVL_CLK_SHIFT))

#define TEMPO_LVL_DEPTH_MIN	4
#define TEMPO_LVL_DEPTH_MAX	11
#define TEMPO_LVL_DEPTH_DEFAULT	10
#define TEMPO_WHEEL_SLOTS	(TEMPO_LVL_SIZE * TEMPO_LVL_DEPTH_MAX)

/*
 * The levels of TEMPO_TIMER_FINE timers (kmod/wheel_levels.c, NEAR), beside level 0:
 * the near level, TEMPO_NEAR_SLOTS slots of 1/TEMPO_NEAR_PER_TICK of a tick,
 * two ticks in all; and the fine level, TEMPO_FINE_SLOTS slots of a tick,
 * the 64 ticks after those two. Their slots follow the levels' in the wheel's
 * vectors and masks, so a slot index and its occupancy bit name any slot alike.
 */
#define TEMPO_NEAR_SHIFT	6
#define TEMPO_NEAR_PER_TICK	BIT(TEMPO_NEAR_SHIFT)
#define TEMPO_NEAR_SLOTS	(2 * TEMPO_NEAR_PER_TICK)
#define TEMPO_NEAR_MASK		(TEMPO_NEAR_SLOTS - 1)
#define TEMPO_NEAR_OFFS		TEMPO_WHEEL_SLOTS
#define TEMPO_FINE_SLOTS	TEMPO_LVL_SIZE
#define TEMPO_FINE_OFFS		(TEMPO_NEAR_OFFS + TEMPO_NEAR_SLOTS)
#define TEMPO_WHEEL_VECTORS	(TEMPO_FINE_OFFS + TEMPO_FINE_SLOTS)
#define TEMPO_WHEEL_MASKS	(TEMPO_WHEEL_VECTORS / TEMPO_LVL_SIZE)

/* "No expiry": the wheel is empty. */
#define TEMPO_NEVER		U64_MAX
/* tempo_timer.idx of a timer that sits on an expired list, not in a slot. */
#define TEMPO_IDX_EXPIRED	0xffff

/**
 * struct tempo_wheel - one wheel, owned by one context at a time
 * @clk: the next tick to collect; every tick before it has been collected
 * @next_expiry: the earliest bucket expiry among the occupied slots of the
 *	levels, or TEMPO_NEVER. Never later than the truth (a stale value may be
 *	early, which costs one empty collection, never a late timer).
 * @near_clk: the next boundary of the near level to collect (a boundary is
 *	a tick times TEMPO_NEAR_PER_TICK plus a fraction, see tempo_near_ns());
 *	its occupied slots hold boundaries in [near_clk, near_clk +
 *	TEMPO_NEAR_SLOTS)
 * @near_next: the earliest occupied boundary of the near level, or
 *	TEMPO_NEVER; never later than the truth, as @next_expiry
 * @fine_clk: the fine level's clock, a tick: its occupied slots hold the
 *	ticks [fine_clk + 2, fine_clk + 2 + TEMPO_FINE_SLOTS)
 * @depth: number of levels in use
 * @occupied: per 64 slots of @vectors (a level, the near level's two
 *	halves, the fine level), bit i set iff that slot i is non-empty
 * @fine_first: per slot of the fine level, its earliest boundary: exact
 *	after a link, early after an unlink (stale, as @next_expiry)
 * @vectors: the slots, intrusive lists of tempo_timer.entry: the levels'
 *	TEMPO_WHEEL_SLOTS, the near level's TEMPO_NEAR_SLOTS (the slot of
 *	boundary b is TEMPO_NEAR_OFFS + (b & TEMPO_NEAR_MASK)), the fine
 *	level's TEMPO_FINE_SLOTS (tick t's is TEMPO_FINE_OFFS + (t & 63))
 */
struct tempo_wheel {
	u64			clk;
	u64			next_expiry;
	u64			near_clk;
	u64			near_next;
	u64			fine_clk;
	unsigned int		depth;
	u64			occupied[TEMPO_WHEEL_MASKS];
	u64			fine_first[TEMPO_FINE_SLOTS];
	struct list_head	vectors[TEMPO_WHEEL_VECTORS];
};

/* The largest delay (in ticks) a wheel of @depth levels accepts. */
static inline u64 tempo_wheel_max_ticks(unsigned int depth)
{
	/*
	 * One granule of the last level is kept in reserve for the lag of the
	 * wheel clock behind real time, so that an accepted delay always fits.
	 */
	return TEMPO_LVL_START(depth) - 2 * TEMPO_LVL_GRAN(depth - 1);
}

/*
 * ns -> ticks without a division instruction (placements, and the exact lazy
 * rule of an arm): for every x < 2^63,
 *
 *	floor(x / d) = (x * m) >> (63 + l),  l = ceil(log2 d),
 *	                                     m = floor(2^(63 + l) / d) + 1
 *
 * (Granlund and Montgomery, "Division by invariant integers using
 * multiplication", 1994, theorem 4.2 with N = 63: it needs
 * 2^(63+l) <= m * d <= 2^(63+l) + 2^l, and m * d - 2^(63+l) = d - (2^(63+l)
 * mod d) lies in (0, d], d <= 2^l). m < 2^64 because d > 2^(l-1). A larger x
 * (only a deadline near KTIME_MAX, which arm then refuses) is divided.
 * The pure KUnit suite compares it with the division at the boundaries.
 */
struct tempo_tick_div {
	u64		mult;
	u32		div;
	unsigned int	shift;
};

static inline void tempo_tick_div_init(struct tempo_tick_div *r, u32 d)
{
	unsigned int l = d > 1 ? fls64(d - 1) : 0;
	u64 q = div64_u64(1ULL << 63, d), rem = (1ULL << 63) - q * d;

	/* 2^(63+l) = (q * d + rem) * 2^l; rem * 2^l < d * 2^32 fits in 64 bits */
	r->div = d;
	r->shift = 63 + l;
	r->mult = (q << l) + div64_u64(rem << l, d) + 1;
}

static inline u64 tempo_tick_div(const struct tempo_tick_div *r, u64 x)
{
	if (unlikely(x >> 63))
		return div64_u64(x, r->div);
	return mul_u64_u64_shr(x, r->mult, r->shift);
}

/*
 * The near level's time (kmod/wheel_levels.c, NEAR), with @r the tick's reciprocal
 * (tempo_tick_div_init() of the tick): boundary b is the instant
 *
 *	tempo_near_ns(b) = (b / 64) * tick + ceil((b % 64) * tick / 64)
 *
 * so that every 64th boundary is a tick's start, and a near slot, collected
 * at its boundary, is 1/64 of a tick (rounded up to the ns). Boundary b is
 * reached at time t iff b <= tempo_near_floor(t) = (t / tick) * 64 +
 * floor((t % tick) * 64 / tick): with t = q * tick + s, ceil(k * tick / 64)
 * <= s iff k * tick / 64 <= s iff k <= s * 64 / tick (s < tick, so k < 64).
 * The first boundary at or after a deadline d >= 1 is then
 * tempo_near_of(d) = tempo_near_floor(d - 1) + 1, which is never before d
 * and less than a slot after it. No division, and no product beyond
 * 64 * tick: exact for every ns below 2^63 (tempo_tick_div()). The pure
 * KUnit suite compares them with the division at the boundaries.
 */
static inline u64 tempo_near_floor(const struct tempo_tick_div *r, u64 ns)
{
	u64 q = tempo_tick_div(r, ns);

	return (q << TEMPO_NEAR_SHIFT) +
	       tempo_tick_div(r, (ns - q * r->div) << TEMPO_NEAR_SHIFT);
}

static inline u64 tempo_near_of(const struct tempo_tick_div *r, u64 ns)
{
	return ns ? tempo_near_floor(r, ns - 1) + 1 : 0;
}

static inline u64 tempo_near_ns(const struct tempo_tick_div *r, u64 b)
{
	return (b >> TEMPO_NEAR_SHIFT) * r->div +
	       (((b & (TEMPO_NEAR_PER_TICK - 1)) * r->div + TEMPO_NEAR_PER_TICK - 1) >>
		TEMPO_NEAR_SHIFT);
}

/*
 * The lazy rule (kmod/wheel.c, LAZY) without a division or a loop: may a
 * timer whose far slot is collected at @bucket (that tick's start, in ns) be
 * re-armed to @expires (ns), @delay_ns ahead, and stay there? Yes if the
 * wait, in whole ticks from the expiry tick to the bucket, is less than the
 * granule of the level a fresh arm of @delay_ns would get. That is exactly
 * when the wait in ns, w = bucket - expires, is less than that granule in ns
 * (the bucket is a tick's start); w < tick is no wait at all (step[0]). For
 * a longer one, the lowest level whose granule exceeds w is one of two,
 * granules being 8 apart, and the lower one's granule decides which:
 * step[fls64(w)] holds it, and the least delay each of the two serves,
 * TEMPO_LVL_START in ns (S64_MAX past the last level). The pure KUnit suite
 * compares it with the rule in ticks.
 */
struct tempo_lazy_step {
	u64	gran;
	s64	min_delay[2];
};

struct tempo_lazy {
	u64			tick;
	struct tempo_lazy_step	step[65];
};

static inline void tempo_lazy_init(struct tempo_lazy *r, u32 tick, unsigned int levels)
{
	unsigned int k, lvl, i;

	r->tick = tick;
	r->step[0].gran = 0;
	for (i = 0; i < 2; i++)
		r->step[0].min_delay[i] = S64_MIN;	/* no wait: any delay */
	for (k = 1; k <= 64; k++) {
		struct tempo_lazy_step *step = &r->step[k];
		u64 gran = tick;

		/* The lowest level whose granule exceeds 2^(k - 1). */
		for (lvl = 0; lvl < levels && gran <= BIT_ULL(k - 1); lvl++)
			gran = gran > U64_MAX / TEMPO_LVL_CLK_DIV ? U64_MAX :
			       gran * TEMPO_LVL_CLK_DIV;
		step->gran = gran;
		for (i = 0; i < 2; i++) {
			unsigned int l = lvl + i;

			step->min_delay[i] = l >= levels ? S64_MAX :
					     l ? (s64)(TEMPO_LVL_START(l) * tick) : 0;
		}
	}
}

/*
 * What tempo_timer.bucket holds for a timer in no far slot (I8). The lazy
 * rule refuses it by itself, with no test of its own: for a deadline below
 * 3 * 2^61 ns (an arm's: the clock, below 2^61 ns for 73 years, plus the
 * longest delay, at most 2^62 by tempo_wheel_params_ok()) the wait,
 * S64_MAX - expires, is 2^61 or more; no level's granule exceeds 2^61 (at
 * most 2^60: a tick of 1 s, 11 levels), so the step it falls to (62 or 63)
 * serves no delay, and 1/64 of a delay of at most 2^62 is far below it.
 * Bit 62 is set in it and in no bucket (a tick's start before 2^62 ns).
 */
#define TEMPO_NO_BUCKET		((u64)S64_MAX)

static inline bool tempo_bucket_far(u64 bucket)
{
	return !(bucket & BIT_ULL(62));
}

static inline bool tempo_lazy_ok(const struct tempo_lazy *r, u64 bucket, u64 expires,
				 s64 delay_ns)
{
	s64 wait = bucket - expires;
	const struct tempo_lazy_step *step;

	/*
	 * First without the table: a wait of at most 1/64 of the delay is
	 * served. (A wait w of W >= 1 ticks, W * tick <= w, has for its level
	 * the lowest L with GRAN(L - 1) <= W, whose start, 63 * GRAN(L - 1)
	 * ticks, is less than 64 * w. L is in the wheel for every delay up
	 * to its largest, tempo_wheel_max_ticks() ticks, which an arm's is.)
	 */
	if (wait <= delay_ns >> TEMPO_LVL_BITS)
		return true;
	/* A wait of no tick is step[0], which serves every delay. */
	/* Masked, not branched on: a loop's timers fall on either side at random. */
	step = &r->step[fls64(wait) & -(unsigned int)(wait >= (s64)r->tick)];
	return delay_ns >= step->min_delay[(u64)wait >= step->gran];
}

/**
 * tempo_wheel_level - the level a timer expiring at @expires goes into now
 * @w: the wheel
 * @expires: absolute tick
 *
 * Return: the level; expiries at or before the clock go into level 0.
 */
static inline unsigned int tempo_wheel_level(const struct tempo_wheel *w, u64 expires)
{
	u64 delta = expires - w->clk;
	unsigned int lvl;

	if ((s64)delta < 0)
		return 0;
	for (lvl = 0; lvl < w->depth - 1; lvl++)
		if (delta < TEMPO_LVL_START(lvl + 1))
			break;
	return lvl;
}

/*
 * The slot for @expires at @lvl, and the tick it is collected at: @expires
 * rounded up to the level granularity, so a timer is never collected early.
 * kernel/time/timer.c rounds with (expires >> shift) + 1, one granule more
 * than needed when expires is aligned; the exact ceiling keeps I6 (the
 * bucket stays below clk + 63 granules + 1, inside the revolution).
 */
static inline unsigned int tempo_wheel_slot_of(unsigned int lvl, u64 expires, u64 *bucket_expiry)
{
	u64 units = (expires + TEMPO_LVL_GRAN(lvl) - 1) >> TEMPO_LVL_SHIFT(lvl);

	*bucket_expiry = units << TEMPO_LVL_SHIFT(lvl);
	return TEMPO_LVL_OFFS(lvl) + (units & TEMPO_LVL_MASK);
}

/**
 * tempo_wheel_slot - the slot a timer expiring at @expires goes into now
 * @w: the wheel
 * @expires: absolute tick
 * @bucket: set to the tick at which that slot is collected
 *
 * Return: the slot's index in @w->vectors.
 */
static inline unsigned int tempo_wheel_slot(const struct tempo_wheel *w, u64 expires,
					    u64 *bucket)
{
	if ((s64)(expires - w->clk) < 0) {
		/* Already due: the slot collected next. */
		expires = w->clk;
	} else if (WARN_ON_ONCE(expires - w->clk >= TEMPO_LVL_START(w->depth))) {
		/*
		 * Impossible: arm refuses delays beyond tempo_wheel_max_ticks()
		 * and the clock never lags a granule of the last level. Park it
		 * in the farthest slot; the claim re-places timers that are not
		 * due yet (I7), so this costs a late timer, never an early one.
		 */
		expires = w->clk + TEMPO_LVL_START(w->depth) - 1;
	}
	return tempo_wheel_slot_of(tempo_wheel_level(w, expires), expires, bucket);
}

/*
 * A timer's slack (include/tempo/timer.h, "tempo timer slack"), in bits 8..15
 * of tempo_timer.flags: a number of ticks in 8 bits, rounded down. Codes
 * 0..15 are that many ticks; code c >= 16 is (8 + (c & 7)) << ((c >> 3) - 1)
 * ticks: 1/8 precision, up to 15 << 30 ticks, beyond the longest delay of a
 * wheel of the default 10 levels; a longer slack is kept as that.
 */
#define TEMPO_SLACK_SHIFT	8
#define TEMPO_SLACK_MASK	(0xffU << TEMPO_SLACK_SHIFT)

static inline u32 tempo_slack_encode(u64 ticks)
{
	unsigned int e;

	if (ticks < 16)
		return ticks;
	e = fls64(ticks) - 4;	/* ticks >> e is 8..15 */
	if (e > 30)
		return 0xff;
	return ((e + 1) << 3) | ((ticks >> e) & 7);
}

static inline u64 tempo_slack_decode(u32 code)
{
	if (code < 16)
		return code;
	return (u64)(8 | (code & 7)) << ((code >> 3) - 1);
}

/**
 * tempo_wheel_slot_slack - the slot for a timer with a window of slack
 * @w: the wheel
 * @expires: absolute tick, the first at which the timer is due
 * @last: the last tick at which it may still expire (@expires - 1 + @slack
 *	or more: its deadline plus its slack, rounded down to a tick)
 * @slack: the slack, in ticks
 * @bucket: set to the tick at which that slot is collected
 *
 * The grid is @slack rounded down to the granule of the level @expires goes
 * into; the timer is aimed at the last multiple of the grid at or before
 * @last, which is at or after @expires since the window holds at least
 * @slack ticks. If that tick is not a bucket of its own level (it crossed
 * into a coarser one), or the grid is empty, the timer goes where
 * tempo_wheel_slot() puts it. So the bucket is never before @expires and
 * never after max(@last, tempo_wheel_slot()'s bucket), and it lies within
 * its level's revolution (I6 of kmod/wheel.c): an aligned tick less than
 * TEMPO_LVL_START(lvl + 1) ahead of the clock is its own bucket.
 *
 * Return: the slot's index in @w->vectors.
 */
static inline unsigned int tempo_wheel_slot_slack(const struct tempo_wheel *w, u64 expires,
						  u64 last, u64 slack, u64 *bucket)
{
	unsigned int idx = tempo_wheel_slot(w, expires, bucket), lvl;
	u64 grid = slack & ~(TEMPO_LVL_GRAN(idx / TEMPO_LVL_SIZE) - 1), at;

	/* Due already, or no grid: the natural slot is the earliest and best. */
	if (!grid || (s64)(expires - w->clk) <= 0)
		return idx;
	last = min(last, w->clk + TEMPO_LVL_START(w->depth) - 1);
	at = div64_u64(last, grid) * grid;
	if (at < expires)
		return idx;
	lvl = tempo_wheel_level(w, at);
	if (at & (TEMPO_LVL_GRAN(lvl) - 1))
		return idx;
	return tempo_wheel_slot_of(lvl, at, bucket);
}

/**
 * tempo_wheel_slot_floor - the slot for a timer to be collected at or before @tick
 * @w: the wheel
 * @tick: absolute tick
 * @bucket: set to the tick at which that slot is collected
 *
 * A FINE timer's (kmod/wheel_levels.c, NEAR): the slot of @tick in the level of its
 * distance, @tick rounded DOWN to that level's granule, so that the slot is
 * collected at or before @tick, never after; the collection places the timer
 * again, nearer. Rounded down, the bucket stays ahead of the clock and
 * within the level's revolution (I6): at level L >= 1 the distance is at
 * least TEMPO_LVL_START(L), 63/8 of the level's granule, and a granule at
 * most is taken off it.
 *
 * Return: the slot's index in @w->vectors.
 */
static inline unsigned int tempo_wheel_slot_floor(const struct tempo_wheel *w, u64 tick,
						  u64 *bucket)
{
	unsigned int lvl;
	u64 units;

	if ((s64)(tick - w->clk) < 0)
		tick = w->clk;	/* due already (FINE says when): the slot collected next */
	else if (WARN_ON_ONCE(tick - w->clk >= TEMPO_LVL_START(w->depth)))
		tick = w->clk + TEMPO_LVL_START(w->depth) - 1;	/* as tempo_wheel_slot() */
	lvl = tempo_wheel_level(w, tick);
	units = tick >> TEMPO_LVL_SHIFT(lvl);
	*bucket = units << TEMPO_LVL_SHIFT(lvl);
	return TEMPO_LVL_OFFS(lvl) + (units & TEMPO_LVL_MASK);
}

/**
 * tempo_wheel_fine_slot - the slot for a FINE timer due at boundary @b
 * @w: the wheel, its clocks moved forward to now (tempo_wheel_forward(),
 *	tempo_wheel_near_forward())
 * @b: the boundary the timer is aimed at (tempo_near_of() of its deadline,
 *	or tempo_wheel_fine_aim()'s)
 * @bucket: set to the boundary of the near or fine slot, or the tick of the
 *	level slot, that it is collected at
 *
 * kmod/wheel_levels.c, NEAR: the near slot of @b if @b lies within the near level's
 * two ticks (a boundary passed already: the one collected next); else the
 * fine slot of @b's tick, if that lies within the fine level's 64 ticks (it
 * does whenever @b is not in the near level and the tick is before
 * @w->fine_clk + 66, since the near level covers every tick to
 * @w->fine_clk + 1); else the slot of @b's tick in the levels, rounded down
 * (tempo_wheel_slot_floor()): collected at or before @b, and placed again
 * then. Collected there at @b's tick exactly, with @b a tick's first
 * boundary, it is due.
 *
 * Return: the slot's index in @w->vectors.
 */
static inline unsigned int tempo_wheel_fine_slot(const struct tempo_wheel *w, u64 b, u64 *bucket)
{
	u64 tick = b >> TEMPO_NEAR_SHIFT;

	if ((s64)(b - w->near_clk) < (s64)TEMPO_NEAR_SLOTS) {
		*bucket = max(b, w->near_clk);
		return TEMPO_NEAR_OFFS + (*bucket & TEMPO_NEAR_MASK);
	}
	if (tick - (w->fine_clk + 2) < TEMPO_FINE_SLOTS) {
		*bucket = b;
		return TEMPO_FINE_OFFS + (tick & (TEMPO_FINE_SLOTS - 1));
	}
	return tempo_wheel_slot_floor(w, tick, bucket);
}

/**
 * tempo_wheel_fine_aim - the boundary a FINE timer with a slack is aimed at
 * @w: the wheel, its clock moved forward to now
 * @r: the tick's reciprocal
 * @expires: the deadline, ns
 * @slack: the slack, in boundaries (64ths of a tick), at least 1
 *
 * kmod/wheel_levels.c, NEAR: the last multiple of the slack's grid at or after the
 * first boundary at or after @expires and at or before the last boundary at
 * or before @expires plus the slack (tempo_near_ns() of it). A slack of a
 * tick or more has a grid of whole ticks, rounded down to the granule of the
 * level that the window's last tick goes into, so that the aim is a bucket of
 * its own level (as tempo_wheel_slot_slack()); when that leaves no grid, or
 * the window holds no multiple, the first boundary. So the aim is never
 * before @expires, and after it by at most the slack or less than a 64th of
 * a tick, whichever is more.
 *
 * Return: the boundary.
 */
static inline u64 tempo_wheel_fine_aim(const struct tempo_wheel *w, const struct tempo_tick_div *r,
				       u64 expires, u64 slack)
{
	u64 b = tempo_near_of(r, expires), grid = slack, at;
	u64 last = tempo_near_floor(r, expires + tempo_near_ns(r, slack));

	if (slack >= TEMPO_NEAR_PER_TICK) {
		unsigned int lvl = tempo_wheel_level(w, last >> TEMPO_NEAR_SHIFT);

		grid = (slack >> TEMPO_NEAR_SHIFT) & ~(TEMPO_LVL_GRAN(lvl) - 1);
		if (!grid)
			return b;
		grid <<= TEMPO_NEAR_SHIFT;
	}
	at = div64_u64(last, grid) * grid;
	return max(at, b);
}

/**
 * tempo_wheel_link - link @t into slot @idx of @w
 * @w: the wheel
 * @t: an unlinked timer
 * @idx: a slot tempo_wheel_slot() (or another of the slot choosers above)
 *	chose, with the clocks unchanged since
 * @bucket: the tick at which that slot is collected, or for a slot of the
 *	near or the fine level the timer's boundary
 */
static inline void tempo_wheel_link(struct tempo_wheel *w, struct tempo_timer *t,
				    unsigned int idx, u64 bucket)
{
	u64 *mask = &w->occupied[idx / TEMPO_LVL_SIZE], bit = BIT_ULL(idx & TEMPO_LVL_MASK);

	if (idx >= TEMPO_FINE_OFFS) {
		u64 *first = &w->fine_first[idx - TEMPO_FINE_OFFS];

		/* An empty slot's first is stale: this link makes it exact. */
		if (!(*mask & bit) || bucket < *first)
			*first = bucket;
	} else if (idx >= TEMPO_NEAR_OFFS) {
		if (bucket < w->near_next)
			w->near_next = bucket;
	} else if (bucket < w->next_expiry) {
		w->next_expiry = bucket;
	}
	list_add_tail(&t->entry, &w->vectors[idx]);
	*mask |= bit;
	t->idx = idx;
}

/**
 * tempo_wheel_del - unlink @t from its slot or from an expired list
 * @w: the wheel
 * @t: a linked timer
 *
 * next_expiry is left as it is: an early value only costs an empty
 * collection (I4).
 */
static inline void tempo_wheel_del(struct tempo_wheel *w, struct tempo_timer *t)
{
	unsigned int idx = t->idx;

	list_del_init(&t->entry);
	/*
	 * A collected timer's idx still names the slot it came from; that
	 * slot may have been refilled since, so only clear the bit when the
	 * slot really is empty (I3).
	 */
	if (idx != TEMPO_IDX_EXPIRED && list_empty(&w->vectors[idx]))
		w->occupied[idx / TEMPO_LVL_SIZE] &= ~BIT_ULL(idx & TEMPO_LVL_MASK);
}

/**
 * tempo_wheel_forward - move an idle stretch of the clock forward to @now
 * @w: the wheel
 * @now: the current tick
 *
 * Inserting relative to a stale clock would put short timers into coarse
 * levels. The clock may move up to the earliest occupied bucket, never past
 * it (I4, I6).
 */
static inline void tempo_wheel_forward(struct tempo_wheel *w, u64 now)
{
	u64 to = min(now, w->next_expiry);

	if (to > w->clk)
		w->clk = to;
}

void tempo_wheel_setup(struct tempo_wheel *w, unsigned int depth, u64 clk);
unsigned int tempo_wheel_collect(struct tempo_wheel *w, u64 now, struct list_head *expired);
void tempo_wheel_near_forward(struct tempo_wheel *w, u64 b);
unsigned int tempo_wheel_near_collect(struct tempo_wheel *w, u64 b, struct list_head *expired);
u64 tempo_wheel_fine_next(const struct tempo_wheel *w);
bool tempo_wheel_empty(const struct tempo_wheel *w);

/*
 * The timers and bases of kmod/wheel*.c, for the debugfs view (kmod/wheel_debugfs.c)
 * and for the tests that check a state word (tools/user-cores/wheel_harness.h):
 * the design comment at the top of kmod/wheel.c says what each bit means.
 */
/* The state word. */
#define TT_PENDING	BIT(0)
#define TT_LINKED	BIT(1)
#define TT_QUEUED	BIT(2)
#define TT_SHUTDOWN	BIT(3)
#define TT_PARKED	BIT(4)
#define TT_MOVED	BIT(5)
#define TT_HELD		(TT_LINKED | TT_QUEUED | TT_PARKED)
#define TT_CPU_SHIFT	8
#define TT_CPU_BITS	16
#define TT_CPU_MASK	(((1UL << TT_CPU_BITS) - 1) << TT_CPU_SHIFT)
#define TT_CPU_NONE	((1U << TT_CPU_BITS) - 1)
#define TT_SEQ_SHIFT	(TT_CPU_SHIFT + TT_CPU_BITS)
#define TT_SEQ_ONE	BIT(TT_SEQ_SHIFT)

static inline unsigned int tt_cpu(long state)
{
	return (state & TT_CPU_MASK) >> TT_CPU_SHIFT;
}

static inline long tt_set_cpu(long state, unsigned int cpu)
{
	return (state & ~TT_CPU_MASK) | ((long)cpu << TT_CPU_SHIFT);
}

static inline unsigned long tt_seq(long state)
{
	return (unsigned long)state >> TT_SEQ_SHIFT;
}

#define TEMPO_LATE_BUCKETS	24

/*
 * Counters of what happened on one CPU; written by that CPU only, with
 * interrupts off. Lazy operations count nothing: what they change shows up
 * when the owner settles the timer. taken - fired - released, summed over the
 * CPUs, is the number of timers on a list or an inbox (LINKED or QUEUED):
 * pending ones and garbage (stats_hold()).
 */
struct tempo_wheel_stats {
	u64	taken;		/* a timer no list or inbox held is linked or queued */
	u64	fired;		/* callbacks claimed */
	u64	released;	/* let go of, without a callback */
	u64	sent;		/* messages pushed to another CPU's inbox */
	u64	kicks;		/* IPIs (or self irq_works) raised for them */
	u64	forwarded;	/* timers moved to another CPU by their owner */
	u64	expiries;	/* runs of the hrtimer */
	u64	dispatches;	/* runs of the work item */
	u64	swept;		/* lazily cancelled timers dropped at collection */
	u64	replaced;	/* lazily re-armed timers re-placed at collection */
	u64	dexpiries;	/* runs of the deferrable carrier (a timer_list) */
	u64	late[TEMPO_LATE_BUCKETS];	/* log2(late in us) at dispatch */
};

void tempo_wheel_cpu_stats(unsigned int cpu, struct tempo_wheel_stats *s, bool *online);
void tempo_wheel_geometry(u32 *tick, unsigned int *depth, unsigned int *lazy_level,
			  s64 *jiffies_base);
#if IS_ENABLED(CONFIG_KUNIT) || !defined(__KERNEL__)
/* kmod/wheel_cpu.c's, for the tests: static in a module built without KUnit. */
bool tempo_wheel_params_ok(u32 tick, unsigned int levels);
bool tempo_wheel_cpu_quiet(unsigned int cpu, bool *hrtimer_armed);
#endif

#endif /* _TEMPO_WHEEL_H */
