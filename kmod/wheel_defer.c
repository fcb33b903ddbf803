// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: timer wheel: deferrable
 *
 * A TEMPO_TIMER_DEFERRABLE timer lives in a second wheel of its base,
 * dwheel, with the same owner-only rules (I1-I8, LAZY, PARKING; base_wheel()
 * picks the wheel by the timer's flags, which are fixed while a base holds
 * it). What differs is what makes the owner collect it:
 *
 * - dwheel never programs the hrtimer. Its next expiry arms the carrier, a
 *   per-CPU timer_list with TIMER_DEFERRABLE | TIMER_PINNED (base_carry()),
 *   so the kernel's own deferrable base runs it when the CPU is awake anyway
 *   (a tick, whatever woke the CPU) and never wakes an idle one. It is aimed
 *   1/8 short of the bucket, because a timer_list is late by up to 1/8 of its
 *   delay; one that comes early finds nothing due and is re-armed nearer.
 * - base_process(), whatever runs it (the hrtimer, a kick, the carrier),
 *   collects both wheels, so a CPU woken for a precise timer also runs every
 *   deferrable one due by then.
 * - Messages about deferrable timers from other CPUs (arm, cancel, forward,
 *   a lazy re-arm's poke) go to a second inbox, dinbox, which sends no IPI.
 *   The pusher that finds it empty queues dkick, a TIMER_DEFERRABLE
 *   timer_list on the owner for the next jiffy, which drains it
 *   (base_dkick() in kmod/wheel_inbox.c, beside the other kicks; P8): a busy
 *   CPU places the message at its next tick, an idle one when it wakes.
 *   The main inbox would not do: a precise message that found it non-empty
 *   would not kick either.
 * - The exception is tempo_timer_cancel_sync(), which waits for the owner
 *   (kmod/wheel_sync.c, CANCEL_SYNC).
 *
 * Hotplug treats dinbox, dwheel, the carrier and dkick as the main ones
 * (kmod/wheel_cpu.c, HOTPLUG).
 *
 * Cost to precise timers: a test of the timer's flags where the wheel is
 * chosen (link, unlink; at placement one test covers slack and
 * DEFERRABLE, base_choose()), and two more empty checks in base_process()
 * (dinbox, dwheel.next_expiry). An eager arm or a settle reads the flags
 * once and passes them down. The arm, cancel and lazy paths read nothing
 * else.
 */

#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/smp.h>
#include <linux/timer.h>

#include <tempo/timer.h>

#include "compat.h"
#include "wheel.h"
#include "wheel_base.h"

/*
 * Arm base's carrier for @bucket_expiry if that is earlier than planned
 * (DEFERRABLE). A timer_list is late by up to 1/8 of its delay (its own
 * levels): aim 1/8 short, so it fires before the bucket, finds it not yet
 * due, and is re-armed nearer (a few runs per expiry, only while the CPU is
 * awake). Out of line, in this file, so that base_link() stays small enough
 * to inline into the eager arm. Owner, irqs off.
 */
void base_carry(struct tempo_base *base, u64 bucket_expiry)
{
	u64 at = bucket_expiry * tick_ns, now = ktime_get_ns();
	unsigned long delta = 0;

	if (bucket_expiry >= base->dprogrammed)
		return;
	base->dprogrammed = bucket_expiry;
	if (at > now)
		delta = div_u64(at - now, TICK_NSEC);
	mod_timer(&base->carrier, jiffies + delta - delta / 8);
}

/*
 * The carrier (DEFERRABLE): the kernel runs it when this CPU is awake anyway
 * and its deferrable timer_list is due. Softirq; it was migrated to another
 * CPU only if base_cpu_offline() raced with its re-arm, and then it is stale.
 */
void base_carrier_fn(struct timer_list *tl)
{
	struct tempo_base *base = timer_container_of(base, tl, carrier);

	local_irq_disable();
	if (base->cpu == smp_processor_id()) {
		base->dprogrammed = TEMPO_NEVER;
		base->stats.dexpiries++;
		base_kicked(base);
	}
	local_irq_enable();
}
