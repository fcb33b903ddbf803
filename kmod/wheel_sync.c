// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: timer wheel: cancel_sync
 *
 * tempo_timer_cancel_sync() and tempo_timer_shutdown_sync(): after them the
 * caller owns the timer's memory again. A cancel stops the expiry, but the
 * wheel may still hold the entry (a lazy cancel leaves it in its far slot,
 * an eager one parks it until its unlink is done: PARKING) and the callback
 * may be running. So cancel_sync, in a loop that ends when nobody armed the
 * timer again meanwhile:
 *
 * 1. cancels it (tempo_timer_cancel());
 * 2. lets go of a held timer (timer_release(), below, with the owner's
 *    base_settle()): on this CPU it settles or unparks it itself, with
 *    interrupts off; a timer another CPU holds gets
 *    a message through that CPU's main inbox, which kicks, whose settle lets
 *    go of it and wakes the waiter (base_settle:C);
 * 3. waits until LK, QU and PK are clear or the timer is pending again (P3);
 * 4. waits until no CPU's dispatcher or interrupt runs its callback (P4).
 *
 * A deferrable timer's message may wait on an idle CPU's dinbox
 * (DEFERRABLE), which kicks nobody: step 2 has that CPU process its base
 * with an IPI (base_kick_csd(), by smp_call_function_single(), which any
 * number of callers may use at once), and step 3 waits a jiffy at a time and
 * pokes again: the message may be pushed after the poke.
 *
 * Races: with cancel and with the owner's collection, drain and claim,
 * none needs a lock (each step decides on the state word by cmpxchg, or
 * waits for what the owner publishes); with an arm, the caller serialises
 * (the concurrency matrix, INVARIANTS). Shutdown sets SHUTDOWN first, so a
 * callback or another path can no longer arm the timer again.
 */

#include <linux/irq_work.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/timekeeping.h>
#include <linux/wait_bit.h>

#include <tempo/timer.h>

#include "compat.h"
#include "wheel.h"
#include "wheel_base.h"

/*
 * Let go of a timer that a CPU still holds, cancelled: in a slot (a lazy
 * cancel) or parked (an eager one whose unlink may still be under way, so
 * the memory is not the caller's yet). On this CPU, with interrupts off, no
 * section of ours is under way: the timer is settled (or unparked) here;
 * any other CPU is sent a message, whose settle lets go of it and wakes us
 * (base_settle:C).
 */
static void timer_release(struct tempo_timer *timer)
{
	struct tempo_base *local;
	unsigned long flags;
	unsigned int this, poke = TT_CPU_NONE;
	bool send = false;
	long old, new;

	local_irq_save(flags);
	local = this_cpu_ptr(bases);
	this = smp_processor_id();
	old = atomic_long_read(&timer->state);
	do {
		/*
		 * A deferrable message may wait on an idle CPU's inbox: have it
		 * drained now (tempo_timer_cancel_sync() asks again until it is).
		 */
		if ((old & (TT_PENDING | TT_QUEUED)) == TT_QUEUED && timer_defers(timer)) {
			poke = tt_cpu(old);
			goto out;
		}
		/* Armed again, a message settles it already, or nothing holds it. */
		if ((old & (TT_PENDING | TT_QUEUED)) || !(old & (TT_LINKED | TT_PARKED)))
			goto out;
		send = tt_cpu(old) != this || !local->online;
		if (!send && (old & TT_LINKED)) {
			base_settle(local, timer, 0, ktime_get_ns());
			goto out;
		}
		new = send ? old | TT_QUEUED : old & ~TT_PARKED;
	} while (!atomic_long_try_cmpxchg(&timer->state, &old, new));
	base_count_hold(local, old, new);
	if (send) {
		/* Someone waits for it: through the inbox that kicks. */
		timer_send(local, timer, tt_cpu(old), false);
	} else {
		/* LMM(timer_release:A): as base_settle:C (P3), for other waiters. */
		smp_mb();
		wake_up_var(timer);
	}
out:
	local_irq_restore(flags);
	/*
	 * Any number of callers, unlike base_kick()'s csd; an offline CPU has
	 * sealed its inbox and moved the message (-ENXIO: nothing to do).
	 */
	if (poke != TT_CPU_NONE)
		smp_call_function_single(poke, base_kick_csd, per_cpu_ptr(bases, poke), 0);
}

/* Whether @timer is pending again or held by no CPU, for cancel_sync. */
static bool timer_let_go(struct tempo_timer *timer)
{
	return !(atomic_long_read_acquire(&timer->state) & TT_HELD) ||
	       (atomic_long_read(&timer->state) & TT_PENDING);
}

/*
 * Wait until timer_let_go(). A deferrable timer's message may be pushed on an
 * idle CPU's inbox after timer_release() poked that CPU: wait a jiffy at a
 * time, and the caller pokes again. Return: true when let go.
 */
static bool timer_wait_held(struct tempo_timer *timer)
{
	if (likely(!timer_defers(timer))) {
		wait_var_event(timer, timer_let_go(timer));
		return true;
	}
	return wait_var_event_timeout(timer, timer_let_go(timer), 1);
}

static bool timer_is_running(struct tempo_timer *timer)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		if (READ_ONCE(per_cpu_ptr(bases, cpu)->running) == timer ||
		    READ_ONCE(per_cpu_ptr(bases, cpu)->irq_running) == timer)
			return true;
	return false;
}

/**
 * tempo_timer_cancel_sync - stop a timer and wait until it is quiet
 * @timer: the timer
 *
 * On return @timer is not pending, no CPU holds it, and its callback is not
 * running anywhere, so it may be freed, provided nobody else re-arms it (a
 * callback re-arming its own timer is handled: this loops until it stops).
 * Must not be called from the callback itself, nor while holding a lock the
 * callback takes.
 *
 * Context: process context, may sleep.
 * Return: true if a pending expiry was stopped.
 */
bool tempo_timer_cancel_sync(struct tempo_timer *timer)
{
	bool ret = false;
	unsigned int cpu;

	might_sleep();
	do {
		ret |= tempo_timer_cancel(timer);
		timer_release(timer);
		/* Pairs with base_settle:C (P3). */
		while (!timer_wait_held(timer))
			timer_release(timer);
		/* Pairs with base_dispatch:C and base_run_irq:C (P4). */
		for_each_possible_cpu(cpu) {
			struct tempo_base *base = per_cpu_ptr(bases, cpu);

			wait_var_event(&base->running, READ_ONCE(base->running) != timer);
			wait_var_event(&base->irq_running, READ_ONCE(base->irq_running) != timer);
		}
	} while (atomic_long_read(&timer->state) & TT_PENDING);
	WARN_ON_ONCE(timer_is_running(timer));
	return ret;
}
EXPORT_SYMBOL_NS_GPL(tempo_timer_cancel_sync, "TEMPO");

/**
 * tempo_timer_shutdown_sync - cancel_sync, after which every arm is refused
 * @timer: the timer
 *
 * For teardown: a callback that re-arms its own timer, or another path that
 * would, can no longer bring it back (cf. timer_shutdown_sync()).
 *
 * Context: process context, may sleep.
 * Return: true if a pending expiry was stopped.
 */
bool tempo_timer_shutdown_sync(struct tempo_timer *timer)
{
	atomic_long_fetch_or(TT_SHUTDOWN, &timer->state);
	return tempo_timer_cancel_sync(timer);
}
EXPORT_SYMBOL_NS_GPL(tempo_timer_shutdown_sync, "TEMPO");
