// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: timer wheel: the owner's run
 *
 * What a base's owner does when its hrtimer fires or a kick reaches it
 * (base_hrtimer_fn(), base_kicked()): base_process() collects what is due
 * (base_collect()), places the messages of its inboxes (base_settle(),
 * kmod/wheel.c), runs the interrupt callbacks (IRQ, below), queues the
 * dispatcher and says when the hrtimer is next needed (I5). The dispatcher,
 * a work item bound to the CPU (base_dispatch()), claims each collected timer
 * (I7) and runs its callback in process context. Invariants and barrier
 * pairs: kmod/wheel.c.
 */

/**
 * DOC: timer wheel: interrupt callbacks
 *
 * A TEMPO_TIMER_IRQ timer's callback runs in the interrupt that finds it due,
 * not on the workqueue. The collection (base_collect()) moves such a timer,
 * found due as placed, to base->irq_due instead of the expired list, and so
 * does a settle that keeps a collected timer (KEEP). base_process() then,
 * after both collections and the inbox, and before it reads the next expiry,
 * claims and runs each (base_run_irq()): the claim is the dispatcher's,
 * base_settle() with SETTLE_DUE (I7), and base->irq_running names the timer
 * around it for tempo_timer_cancel_sync(), as base->running does for the
 * dispatcher (P4). irq_due lives within one interrupts-off section of the
 * owner and is empty whenever another begins, so neither hotplug nor the
 * dispatcher sees it; a message drained between the two collections that
 * reaches a timer there unlinks it as from any list. The callback may arm
 * and cancel timers of this CPU: the wheel is consistent by then, inside the
 * hrtimer's callback base_program() is off (programmed = 0), and the next
 * expiry is read after. An IRQ timer is not DEFERRABLE (tempo_timer_init()
 * refuses the mix), but the carrier's softirq, which collects this wheel too,
 * may find it due (include/tempo/timer.h says so).
 */

#include <linux/bug.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/llist.h>
#include <linux/math64.h>
#include <linux/sched.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>

#include "testing.h"
#include "trace.h"
#include "wheel.h"
#include "wheel_base.h"

/*
 * Collect every slot of @w due at @now (ns; @now_tick its tick), the near
 * level's too, and sort what comes out (LAZY): a timer due as its owner
 * placed it goes to the expired list for the dispatcher to claim; a FINE one
 * placed for later goes to the near level (base_near_move()); any other is
 * settled here, in the interrupt, so that a lazily cancelled one costs no
 * work item and a lazily re-armed one is re-placed on time.
 * Owner, hardirq or irqs off.
 */
static void base_collect(struct tempo_base *base, struct tempo_wheel *w, u64 now,
			 u64 now_tick)
{
	struct tempo_timer *t, *next;
	LIST_HEAD(due);
	unsigned int slots;

	slots = tempo_wheel_collect(w, now_tick, &due);
	if (w->near_next != TEMPO_NEVER || tempo_wheel_fine_next(w) != TEMPO_NEVER)
		slots += tempo_wheel_near_collect(w, near_floor(now), &due);
	if (!slots)
		return;
	list_for_each_entry(t, &due, entry)
		WRITE_ONCE(t->bucket, TEMPO_NO_BUCKET);
	/* LMM(base_collect:A): pairs with timer_arm_lazy:C and :D (P7). */
	smp_mb();
	list_for_each_entry_safe(t, next, &due, entry) {
		/* LMM(base_collect:B): pairs with timer_arm_tick:B, timer_arm_lazy:C (P1). */
		long state = atomic_long_read_acquire(&t->state);
		u64 expires = READ_ONCE(t->expires);

		if ((state & (TT_PENDING | TT_MOVED)) == TT_PENDING &&
		    expiry_due(READ_ONCE(t->flags), expires, now)) {
			/* An IRQ timer runs in this interrupt (IRQ). */
			if (unlikely(timer_irq(t)))
				list_move_tail(&t->entry, &base->irq_due);
			continue;
		}
		if ((state & (TT_PENDING | TT_MOVED)) == TT_PENDING &&
		    (READ_ONCE(t->flags) & TEMPO_TIMER_FINE) &&
		    base_near_move(base, t, expires, now_tick))
			continue;
		list_del_init(&t->entry);
		base_settle(base, t, SETTLE_UNLINKED | SETTLE_COLLECTED, now);
	}
	list_splice_tail(&due, &base->expired);
}

static void record_lateness(struct tempo_base *base, struct tempo_timer *t, u64 now_ns);

/*
 * Run the IRQ timers this interrupt found due (IRQ), in the order found, each
 * claimed as the dispatcher claims (I7): a message on its way, or an arm or
 * cancel since, leaves it to the owner's next placement instead. @now is the
 * reading the collection used. Owner, in base_process(), irqs off.
 */
static void base_run_irq(struct tempo_base *base, u64 now)
{
	struct tempo_timer *t;

	while ((t = list_first_entry_or_null(&base->irq_due, struct tempo_timer, entry))) {
		bool fire;

		list_del_init(&t->entry);
		/* LMM(base_run_irq:A): before the claim (P4). */
		WRITE_ONCE(base->irq_running, t);
		/* LMM(base_run_irq:B): the claim is base_settle's cmpxchg. */
		fire = base_settle(base, t, SETTLE_UNLINKED | SETTLE_DUE, now);
		if (fire) {
			record_lateness(base, t, now);
			t->fn(t);	/* may re-arm or free t */
		}
		WRITE_ONCE(base->irq_running, NULL);
		/* LMM(base_run_irq:C): pairs with cancel_sync's wait (P4). */
		smp_mb();
		wake_up_var(&base->irq_running);
	}
}

/*
 * When base's hrtimer is next needed, ns: its wheel's next bucket, or near or
 * fine boundary (I5).
 */
static u64 base_next(const struct tempo_base *base)
{
	const struct tempo_wheel *w = &base->wheel;
	u64 next = TEMPO_NEVER;

	u64 fine = tempo_wheel_fine_next(w);

	if (w->next_expiry != TEMPO_NEVER)
		next = w->next_expiry * tick_ns;
	if (w->near_next != TEMPO_NEVER)
		next = min(next, near_ns(w->near_next));
	if (fine != TEMPO_NEVER)
		next = min(next, near_ns(fine));
	return next;
}

/*
 * llist_del_all() that leaves a sealed inbox sealed (kmod/wheel_inbox.c).
 * Owner only.
 */
static struct llist_node *inbox_take(struct llist_head *inbox)
{
	struct llist_node *first = READ_ONCE(inbox->first);

	do {
		if (!first || first == INBOX_SEALED)
			return NULL;
		/* LMM(inbox_take:A): pairs with inbox_push:A. */
	} while (!try_cmpxchg_acquire(&inbox->first, &first, NULL));
	return llist_reverse_order(first);
}

/*
 * Drain the inbox and collect what is due. Owner, hardirq or irqs off.
 * Return: when the hrtimer is next needed (ns), or TEMPO_NEVER.
 */
static u64 base_process(struct tempo_base *base)
{
	struct tempo_timer *t, *next;
	struct llist_node *msgs;
	u64 now = ktime_get_ns(), tick = ns_to_tick_floor(now);

	/*
	 * Collect before placing the messages: an overdue slot (a late
	 * hrtimer, a starved vCPU) holds the clock back, and a timer placed
	 * against a lagging clock lands in a coarser level than its delay
	 * needs. Collect again for messages that were already due.
	 */
	base_collect(base, &base->wheel, now, tick);
	base_collect(base, &base->dwheel, now, tick);
	msgs = inbox_take(&base->inbox);
	llist_for_each_entry_safe(t, next, msgs, msg)
		base_settle(base, t, SETTLE_POPPED, now);
	msgs = inbox_take(&base->dinbox);
	llist_for_each_entry_safe(t, next, msgs, msg)
		base_settle(base, t, SETTLE_POPPED, now);
	base_collect(base, &base->wheel, now, tick);
	base_collect(base, &base->dwheel, now, tick);
	/* Their callbacks may arm timers: before the next expiry is read. */
	if (unlikely(!list_empty(&base->irq_due)))
		base_run_irq(base, now);
	if (!list_empty(&base->expired))
		queue_work_on(base->cpu, dispatch_wq, &base->work);
	if (base->dwheel.next_expiry != TEMPO_NEVER)
		base_carry(base, base->dwheel.next_expiry);
	return base_next(base);
}

enum hrtimer_restart base_hrtimer_fn(struct hrtimer *hrtimer)
{
	struct tempo_base *base = container_of(hrtimer, struct tempo_base, hrtimer);
	u64 next;

	/*
	 * Inside its own callback the hrtimer must not be restarted with
	 * hrtimer_start(): programmed = 0 makes base_program() a no-op while
	 * base_process() places timers, and the return value re-arms it.
	 */
	base->programmed = 0;
	base->stats.expiries++;
	next = base->online ? base_process(base) : TEMPO_NEVER;
	base->programmed = TEMPO_NEVER;
	if (next == TEMPO_NEVER)
		return HRTIMER_NORESTART;
	base->programmed = next;
	hrtimer_set_expires(hrtimer, ns_to_ktime(next));
	return HRTIMER_RESTART;
}

void base_kicked(struct tempo_base *base)
{
	u64 next;

	if (!base->online)
		return;	/* the hotplug teardown drains a going base */
	next = base_process(base);
	if (next != TEMPO_NEVER)
		base_program(base, next);
}

/* The irq_work that a kick raises (kmod/wheel_inbox.c): process the base. */
void base_kick_irq_work(struct irq_work *work)
{
	base_kicked(container_of(work, struct tempo_base, kick));
}

static void record_lateness(struct tempo_base *base, struct tempo_timer *t, u64 now_ns)
{
	u64 expires = READ_ONCE(t->expires);
	s64 late_ns = now_ns - expires;
	u64 late_us = late_ns > 0 ? div_u64(late_ns, NSEC_PER_USEC) : 0;

	trace_tempo_timer_fire(t, expires, late_ns);
	base->stats.late[min_t(unsigned int, fls64(late_us), TEMPO_LATE_BUCKETS - 1)]++;
}

/*
 * Run the collected callbacks of one base, in process context on its CPU.
 *
 * The clock is read once per DISPATCH_CLOCK_EVERY timers, not per timer, and
 * again whenever the stale reading says a timer is not due yet, so the claim
 * (I7) never runs a timer on a reading that makes it early. Lateness
 * statistics read low by at most the time of DISPATCH_CLOCK_EVERY callbacks.
 */
#define DISPATCH_CLOCK_EVERY	16

void base_dispatch(struct work_struct *work)
{
	struct tempo_base *base = container_of(work, struct tempo_base, work);
	unsigned int n = 0;
	u64 now_ns = 0;

	/* Only this CPU writes its counters; the work item runs with irqs on. */
	local_irq_disable();
	base->stats.dispatches++;
	local_irq_enable();
	for (;;) {
		struct tempo_timer *t;
		bool fire;

		local_irq_disable();
		/* Bound work never runs elsewhere while the CPU is online (I1). */
		WARN_ON_ONCE(base->cpu != smp_processor_id());
		t = list_first_entry_or_null(&base->expired, struct tempo_timer, entry);
		if (!t) {
			local_irq_enable();
			break;
		}
		list_del_init(&t->entry);
		/* LMM(base_dispatch:A): before the claim (P4). */
		WRITE_ONCE(base->running, t);
		tempo_test_point(TEMPO_TP_WHEEL_DISPATCH, t, 0, 0);
		/*
		 * A timer that looks not yet due may only look so because the
		 * reading is stale (the vCPU stalled, the hrtimer collected
		 * more meanwhile): read again rather than re-place it, which
		 * would let later timers of this batch overtake it.
		 */
		if (!(n % DISPATCH_CLOCK_EVERY) ||
		    !expiry_due(READ_ONCE(t->flags), READ_ONCE(t->expires), now_ns))
			now_ns = ktime_get_ns();
		/* LMM(base_dispatch:B): the claim is base_settle's cmpxchg. */
		fire = base_settle(base, t, SETTLE_UNLINKED | SETTLE_DUE, now_ns);
		if (fire)
			record_lateness(base, t, now_ns);
		local_irq_enable();

		if (fire)
			t->fn(t);	/* may re-arm or free t */

		WRITE_ONCE(base->running, NULL);
		/* LMM(base_dispatch:C): pairs with cancel_sync's wait (P4). */
		smp_mb();
		wake_up_var(&base->running);

		if (!(++n & 63))
			cond_resched();
	}
}
