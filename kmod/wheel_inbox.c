// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: timer wheel: the inbox
 *
 * How a CPU has the owner of a timer act on it, since only the owner touches
 * its wheel (MODEL, I1). The message is the timer itself: whoever sets QU in
 * its state word for @cpu pushes its msg node on that base's inbox, an llist
 * (I2), and the owner, when it drains the inbox, settles the timer from what
 * its state word and expires say then (base_settle() with SETTLE_POPPED). A
 * message carries no data, so it never goes stale: one in flight stands for
 * every change to the word until it pops. The senders, all through
 * timer_send() with interrupts off: a remote eager arm or cancel, a settle
 * that forwards a timer to the CPU it should live on, a lazy re-arm's poke
 * (timer_poke()) and cancel_sync's release (timer_release()).
 *
 * - inbox_push() is llist_add() that refuses a sealed inbox; the owner drains
 *   with inbox_take(), llist_del_all() that leaves a seal in place, both
 *   inboxes at once between two collections (base_process()), oldest first.
 * - Only the pusher that found the inbox empty kicks (base_kick()): a csd to
 *   another CPU, whose function only raises that CPU's irq_work (wait
 *   contexts, INVARIANTS), or its own irq_work for the calling CPU. The
 *   irq_work processes the base as the hrtimer does (base_kicked()). One kick
 *   serves every message pushed until the owner drains.
 * - A deferrable timer's messages go to the second inbox, dinbox, which no
 *   IPI drains: its first pusher queues dkick, a deferrable timer_list for
 *   the owner's next jiffy (base_dkick(), base_dkick_fn(); DEFERRABLE).
 * - A base going offline seals both inboxes (inbox_seal(), HOTPLUG). A push
 *   that meets the seal moves its message to an online CPU, or drops it if
 *   the dying CPU still holds the timer, whose evacuation settles it
 *   (timer_send()). Where a timer goes when its CPU takes none:
 *   fallback_cpu().
 *
 * The inbox's barrier pairs (the memory ordering section lists the others):
 *
 * P2  inbox_push:A (release cmpxchg of the inbox head) pairs with
 *     inbox_take:A (acquire cmpxchg to NULL): the owner sees the state the
 *     pusher published before the push.
 * P5  Hotplug: inbox_seal:A (xchg of the inbox head to INBOX_SEALED) is fully
 *     ordered with inbox_push:A on the same word: a push either lands before
 *     the seal (and is in the batch the seal returns) or sees the seal and
 *     either drops it (the timer is still LK on the sealed base, whose
 *     evacuation will settle it) or moves it elsewhere.
 * P8  Store buffering between a deferrable push and dkick (DEFERRABLE).
 *     inbox_push:A on dinbox, then base_dkick:A (fully ordered xchg of
 *     dkick_armed, which queues dkick if it read 0). base_dkick_fn clears
 *     dkick_armed, then base_dkick_fn:A (smp_mb()), then drains dinbox
 *     (inbox_take:A). Either the pusher reads 0 and queues dkick again, or
 *     the drain takes its message.
 */

#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/cpumask.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/llist.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/timer.h>

#include <tempo/timer.h>

#include "compat.h"
#include "testing.h"
#include "wheel.h"
#include "wheel_base.h"

enum push_result { PUSH_FIRST, PUSH_MORE, PUSH_SEALED };

/* llist_add() that refuses a sealed inbox. */
static enum push_result inbox_push(struct llist_head *inbox, struct tempo_timer *t)
{
	struct llist_node *first = READ_ONCE(inbox->first);

	do {
		if (first == INBOX_SEALED)
			return PUSH_SEALED;
		t->msg.next = first;
		tempo_test_point(TEMPO_TP_WHEEL_PUSH, t, (unsigned long)first, 0);
		/* LMM(inbox_push:A): pairs with inbox_take:A and inbox_seal:A. */
	} while (!try_cmpxchg_release(&inbox->first, &first, &t->msg));
	return first ? PUSH_MORE : PUSH_FIRST;
}

/*
 * Seal @inbox for a base going offline: from now on a push meets the seal,
 * and timer_send() moves or drops its message. Owner, irqs off.
 * Return: what the inbox held, oldest first.
 */
struct llist_node *inbox_seal(struct llist_head *inbox)
{
	struct llist_node *first;

	/* LMM(inbox_seal:A): pairs with inbox_push:A (P5). */
	first = xchg(&inbox->first, INBOX_SEALED);
	return llist_reverse_order(first);
}

/*
 * Make @cpu drain its inbox soon. Only the pusher that found the inbox empty
 * kicks. If the csd is still busy (-EBUSY) with an earlier kick, because the
 * owner's hrtimer emptied the inbox in the meantime, that kick has not started
 * yet (the csd is unlocked just before its function runs), so it will drain
 * our message: nothing more to do. The csd's function raises the owner's
 * irq_work, which drains (wait contexts, INVARIANTS); if that irq_work is
 * still pending, it has not started either (its pending bit is cleared just
 * before it runs). A kick to ourselves raises the irq_work directly:
 * smp_call_function_single_async() would run the function right here, in the
 * middle of the caller's own update of the wheel.
 */
static void base_kick(struct tempo_base *base, unsigned int cpu)
{
	int ret;

	if (cpu == smp_processor_id()) {
		irq_work_queue(&base->kick);
		return;
	}
	ret = smp_call_function_single_async(cpu, &base->csd);
	WARN_ON_ONCE(ret && ret != -EBUSY);
}

/*
 * The first message on @cpu's deferrable inbox: make @cpu drain it at its
 * next tick, without waking it (DEFERRABLE). dkick_armed says that dkick is
 * queued, or that its function has not yet cleared the flag: exactly one
 * pusher queues it (add_timer_on() wants a timer that is not pending).
 */
static void base_dkick(struct tempo_base *base, unsigned int cpu)
{
	/*
	 * LMM(base_dkick:A): fully ordered, after inbox_push:A; pairs with
	 * base_dkick_fn:A (P8).
	 */
	if (atomic_xchg(&base->dkick_armed, 1))
		return;
	base->dkick.expires = jiffies + 1;
	add_timer_on(&base->dkick, cpu);
}

/*
 * Push @t, whose state has QUEUED set for @cpu, to @cpu's inbox and kick @cpu
 * if the inbox was empty. With @defer, to @cpu's deferrable inbox, which
 * base_dkick() has drained at @cpu's next tick, not at once (DEFERRABLE).
 *
 * If @cpu is going offline its inbox is sealed (P5), and what we do depends on
 * whether @cpu still has @t on a list:
 * - LINKED (with cpu == @cpu): @cpu's evacuation has not settled @t yet and
 *   will, from the state word, which already holds the change we were sending.
 *   The message is redundant: clear QUEUED and stop. We must not move @t's cpu
 *   here: the new owner would take LINKED for its own and list_del() the entry
 *   from the dying CPU's list while that CPU walks it (I1;
 *   tools/user-cores/wheel_det_test.c forces this interleaving).
 * - not LINKED: nobody holds @t but our message; move it to an online CPU (we
 *   hold QUEUED, so nobody else changes cpu). That includes PARKED: @cpu did
 *   its unlink before it sealed (P5 orders it before our push), so the entry
 *   is on no list, and the new holder's settle clears PARKED.
 * The evacuation's settle and this cmpxchg race on the state word: if the
 * evacuation wins it sees QUEUED, leaves @t to our message and clears LINKED,
 * and our cmpxchg then fails and takes the second branch.
 *
 * Interrupts are off, which holds off stop_machine() and so keeps @cpu online
 * between a successful push and the kick: a sealed inbox is the only way a
 * CPU refuses messages.
 */
void timer_send(struct tempo_base *local, struct tempo_timer *t, unsigned int cpu,
		bool defer)
{
	for (;;) {
		struct tempo_base *base = per_cpu_ptr(bases, cpu);
		unsigned int to;
		long old, new;

		switch (inbox_push(defer ? &base->dinbox : &base->inbox, t)) {
		case PUSH_FIRST:
			if (defer) {
				base_dkick(base, cpu);
			} else {
				local->stats.kicks++;
				base_kick(base, cpu);
			}
			fallthrough;
		case PUSH_MORE:
			local->stats.sent++;
			return;
		case PUSH_SEALED:
			break;
		}
		to = fallback_cpu(cpu);
		old = atomic_long_read(&t->state);
		do {
			if (old & TT_LINKED)
				new = old & ~TT_QUEUED;
			else
				new = tt_set_cpu(old, to);
		} while (!atomic_long_try_cmpxchg(&t->state, &old, new));
		if (new & TT_LINKED)
			return;		/* the evacuation of @cpu settles @t */
		cpu = to;
	}
}

/*
 * A remote kick, or cancel_sync's poke (timer_release()), raw hardirq: hand
 * over to the irq_work (wait contexts, INVARIANTS).
 */
void base_kick_csd(void *info)
{
	struct tempo_base *base = info;

	irq_work_queue(&base->kick);
}

/* Drain the deferrable inbox (base_dkick()). Softirq. */
void base_dkick_fn(struct timer_list *tl)
{
	struct tempo_base *base = timer_container_of(base, tl, dkick);

	atomic_set(&base->dkick_armed, 0);
	/* LMM(base_dkick_fn:A): pairs with base_dkick:A (P8). */
	smp_mb();
	tempo_test_point(TEMPO_TP_WHEEL_DKICK, base, 0, 0);
	local_irq_disable();
	if (base->cpu == smp_processor_id())
		base_kicked(base);
	else if (base_accepts(base->cpu) && READ_ONCE(base->dinbox.first))
		base_dkick(base, base->cpu);	/* migrated by hotplug: go home */
	local_irq_enable();
}
