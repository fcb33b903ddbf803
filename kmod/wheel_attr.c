// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: timer wheel: attributes
 *
 * What a timer is and what the wheel says of it, apart from arming and
 * cancelling it: tempo_timer_init() fixes its kind (its TEMPO_TIMER_* flags),
 * tempo_timer_set_slack() stores its slack (SLACK, below), and the queries
 * read a timer's state word or the loaded wheel's parameters. None of them
 * touches a base: they need no CPU, no interrupts off and no message.
 */

/**
 * DOC: timer wheel: slack
 *
 * A timer's slack (tempo_timer_set_slack()) lives in bits 8..15 of
 * tempo_timer.flags, as ticks rounded down (tempo_slack_encode(), wheel.h);
 * a FINE timer's in 64ths of a tick, aimed as FINE says.
 * It changes one thing: where the owner places the timer (base_choose()).
 * With slack S ticks and a deadline D, the window is the ticks from
 * expiry_tick(D) to floor(D / tick) + S, at least S of them; the timer goes
 * to the last multiple of S (rounded down to its level's granule) in the
 * window, if that tick is a bucket of its own level, else where it goes
 * without slack (tempo_wheel_slot_slack()). Timers with the same slack
 * whose windows hold that multiple share its bucket, hence one hrtimer
 * expiry. The placement stays within I6, and the collection, the lazy rule
 * and the claim are unchanged: a slot is a slot. So the expiry is never
 * early and never later than max(D + S ticks, the bucket without slack).
 * The lazy rule checks a far slot against the bound without slack, so a
 * lazily re-armed timer stays within that bound for its new delay; a slot
 * that a slack put beyond it fails the rule, and the re-arm is eager and
 * places the timer with its slack again. A timer with neither slack nor
 * DEFERRABLE pays one test of its flags at placement (base_choose()).
 *
 * The flags word is written at init and by tempo_timer_set_slack(), which
 * the caller does not run concurrently with init or itself. An owner reads
 * it once per placement: after its acquire read of the state word
 * (base_settle:A) or, for its own eager arm, at the start of
 * timer_arm_tick(), after the caller's store, for every try of its cmpxchg:
 * an arm that follows tempo_timer_set_slack() publishes the slack with its
 * fully ordered cmpxchg (P1), so its placement uses that slack. A placement
 * concurrent with the store uses either slack; both satisfy the bound of
 * the slack the caller then arms with, or of the one before, whichever is
 * larger, until the next arm.
 */

#include <linux/bug.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/module.h>

#include <tempo/timer.h>

#include "compat.h"
#include "wheel.h"
#include "wheel_base.h"

/**
 * tempo_timer_init - initialise a timer
 * @timer: the timer
 * @fn: its callback
 * @flags: TEMPO_TIMER_* flags; TEMPO_TIMER_FINE is not taken with
 *	TEMPO_TIMER_COARSE or TEMPO_TIMER_DEFERRABLE, nor TEMPO_TIMER_IRQ with
 *	TEMPO_TIMER_DEFERRABLE (a warning, and the timer is initialised without
 *	it)
 *
 * Context: any; @timer must be idle and held by no CPU: never armed, or its
 * callback claimed, or stopped by tempo_timer_cancel_sync().
 */
void tempo_timer_init(struct tempo_timer *timer, tempo_timer_fn_t fn, unsigned int flags)
{
	WARN_ON_ONCE(flags & ~TEMPO_TIMER_FLAGS);
	if (WARN_ON_ONCE((flags & TEMPO_TIMER_FINE) &&
			 (flags & (TEMPO_TIMER_COARSE | TEMPO_TIMER_DEFERRABLE))))
		flags &= ~TEMPO_TIMER_FINE;
	if (WARN_ON_ONCE((flags & TEMPO_TIMER_IRQ) && (flags & TEMPO_TIMER_DEFERRABLE)))
		flags &= ~TEMPO_TIMER_IRQ;
	INIT_LIST_HEAD(&timer->entry);
	timer->msg.next = NULL;
	atomic_long_set(&timer->state, tt_set_cpu(0, TT_CPU_NONE));
	timer->expires = 0;
	timer->fn = fn;
	timer->bucket = TEMPO_NO_BUCKET;
	timer->flags = flags & TEMPO_TIMER_FLAGS;
	timer->want_cpu = TT_CPU_NONE;
	timer->idx = TEMPO_IDX_EXPIRED;
}
EXPORT_SYMBOL_NS_GPL(tempo_timer_init, "TEMPO");

/**
 * tempo_timer_set_slack - let a timer fire up to @slack_ns after its deadline
 * @timer: the timer
 * @slack_ns: the slack; 0 for none, as after tempo_timer_init()
 *
 * See "tempo timer slack" in include/tempo/timer.h: the slack is kept in
 * ticks, or for a TEMPO_TIMER_FINE timer in 64ths of a tick, rounded down
 * (tempo_timer_get_slack() says what was kept), and takes
 * effect at the next placement of the timer: every eager arm, and the owner's
 * re-placement of a lazily re-armed timer. A pending timer keeps the slot it
 * has until then; a lazy re-arm keeps it only within the wheel's own bound
 * for its new delay.
 *
 * Context: any but NMI; not concurrently with tempo_timer_init() or another
 * tempo_timer_set_slack() of @timer (arms and cancels may run meanwhile).
 * Return: 0, or -ERANGE if @slack_ns exceeds tempo_timer_max_delay_ns()
 * (nothing changes).
 */
int tempo_timer_set_slack(struct tempo_timer *timer, u64 slack_ns)
{
	u32 flags = READ_ONCE(timer->flags) & ~TEMPO_SLACK_MASK;
	u64 units;

	if (slack_ns > max_delay_ns)
		return -ERANGE;
	/* FINE: in near boundaries, the 64ths of a tick (FINE). */
	units = flags & TEMPO_TIMER_FINE ? near_floor(slack_ns) : ns_to_tick_floor(slack_ns);
	flags |= tempo_slack_encode(units) << TEMPO_SLACK_SHIFT;
	/*
	 * Read once per placement by the CPU that places the timer
	 * (base_choose(), SLACK): an arm after this store publishes it with
	 * its fully ordered cmpxchg (P1), and a placement that races with it
	 * uses either slack.
	 */
	WRITE_ONCE(timer->flags, flags);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(tempo_timer_set_slack, "TEMPO");

/**
 * tempo_timer_get_slack - the slack a timer has
 * @timer: the timer
 *
 * Context: any.
 * Return: the slack in ns, as kept: tempo_timer_set_slack()'s rounded down to
 * what the encoding holds, in whole ticks (64ths of a tick for a
 * TEMPO_TIMER_FINE timer).
 */
u64 tempo_timer_get_slack(const struct tempo_timer *timer)
{
	u32 flags = READ_ONCE(timer->flags);
	u64 units = tempo_slack_decode((flags & TEMPO_SLACK_MASK) >> TEMPO_SLACK_SHIFT);

	return flags & TEMPO_TIMER_FINE ? near_ns(units) : units * tick_ns;
}
EXPORT_SYMBOL_NS_GPL(tempo_timer_get_slack, "TEMPO");

/**
 * tempo_timer_pending - whether a timer is armed
 * @timer: the timer
 *
 * Context: any. The answer may be stale by the time the caller uses it.
 * Return: true if @timer is armed and its callback has not been claimed.
 */
bool tempo_timer_pending(const struct tempo_timer *timer)
{
	return atomic_long_read(&timer->state) & TT_PENDING;
}
EXPORT_SYMBOL_NS_GPL(tempo_timer_pending, "TEMPO");

/**
 * tempo_timer_expires - when a pending timer is due
 * @timer: the timer
 * @expires_ns: where the answer goes
 *
 * The answer is the deadline the timer was armed with, rounded up to the
 * tick: CLOCK_MONOTONIC nanoseconds (as ktime_get_ns()), never earlier than
 * the deadline asked for and less than tempo_timer_tick_ns() later. The
 * expiry itself may then come up to tempo_timer_slack_ns() later still. For
 * a TEMPO_TIMER_FINE timer, rounded up to the 64th of a tick instead, and
 * the expiry comes then, or within the timer's slack.
 *
 * Context: any. The answer may be stale by the time the caller uses it; racing
 * with an arm of @timer it is that arm's deadline or the one before.
 * Return: true if @timer is pending, with its deadline in *@expires_ns; false
 * if it is not (never armed, cancelled, or its callback was claimed), with
 * *@expires_ns set to 0.
 */
bool tempo_timer_expires(const struct tempo_timer *timer, u64 *expires_ns)
{
	/* LMM(tempo_timer_expires:A): pairs with timer_arm_tick:B, timer_arm_lazy:C (P1). */
	long state = atomic_long_read_acquire(&timer->state);

	if (!(state & TT_PENDING)) {
		*expires_ns = 0;
		return false;
	}
	if (READ_ONCE(timer->flags) & TEMPO_TIMER_FINE)
		*expires_ns = near_ns(near_of(READ_ONCE(timer->expires)));
	else
		*expires_ns = expiry_tick(READ_ONCE(timer->expires)) * tick_ns;
	return true;
}
EXPORT_SYMBOL_NS_GPL(tempo_timer_expires, "TEMPO");

/**
 * tempo_timer_tick_ns - the length of a wheel tick
 *
 * Context: any.
 * Return: nanoseconds per tick (module parameter tick_ns).
 */
u64 tempo_timer_tick_ns(void)
{
	return tick_ns;
}
EXPORT_SYMBOL_NS_GPL(tempo_timer_tick_ns, "TEMPO");

/**
 * tempo_timer_max_delay_ns - the longest delay arm accepts
 *
 * Context: any.
 * Return: nanoseconds.
 */
u64 tempo_timer_max_delay_ns(void)
{
	return max_delay_ns;
}
EXPORT_SYMBOL_NS_GPL(tempo_timer_max_delay_ns, "TEMPO");

/**
 * tempo_timer_slack_ns - how late a timer of a given delay may fire
 * @delay_ns: the delay
 *
 * Context: any.
 * Return: the bound on the lateness of the expiry (before the workqueue runs
 * the callback): the granularity of the level @delay_ns goes into, at least
 * one tick.
 */
u64 tempo_timer_slack_ns(u64 delay_ns)
{
	u64 ticks = ns_to_tick_ceil(delay_ns) + 1;
	unsigned int lvl;

	for (lvl = 0; lvl < wheel_depth - 1; lvl++)
		if (ticks < TEMPO_LVL_START(lvl + 1))
			break;
	return TEMPO_LVL_GRAN(lvl) * tick_ns;
}
EXPORT_SYMBOL_NS_GPL(tempo_timer_slack_ns, "TEMPO");
