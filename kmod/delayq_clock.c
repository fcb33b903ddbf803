// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: delay queue: clocks
 *
 * This file holds what a queue of another clock than CLOCK_MONOTONIC adds to
 * the core (kmod/delayq.c): the walk after a clock change; and what an alarm
 * queue adds: its alarm and the pass before a suspend ("Alarms").
 *
 * A queue keeps its deadlines and its readings in its clock, q->clock:
 * CLOCK_MONOTONIC, CLOCK_BOOTTIME or CLOCK_REALTIME (kmod/clock.c, "DOC: tempo
 * clocks"). Its waker is a tempo timer, and the timer wheel runs on
 * CLOCK_MONOTONIC: delayq_waker_arm() aims it at the MONOTONIC instant the clock
 * reaches the time wanted, through the clock's offset now, and no further ahead
 * than the timer wheel takes. An offset moves only when a clock is set or the
 * machine resumes; the clock core then calls delayq_clock_changed(), which
 * visits each queue of another clock once (delayq_clock_list): it forgets the
 * waker's aim, reads the clock and notifies (delayq_notify()), so that the waker
 * is aimed anew or a consumer woken for what the change made due, that last
 * with no lock but the queue's own held. A change costs O(queues), whatever
 * they hold, and holds the lock of the list of queues for one queue's O(1)
 * visit at a time, so it delays a create() or destroy() by one visit at most;
 * a waker aimed through an old offset that fires early finds nothing due and is
 * aimed again.
 *
 * CLOCK_REALTIME can be set back. A queue of another clock than MONOTONIC
 * reads it under the lock only, so its readings come in order and a lower
 * one means a step back; in a REALTIME queue q->now is then always the
 * latest reading, lower or not (delayq_set_now()). Every node put is put in
 * a critical section that read the clock, so a node is takeable only once
 * a reading taken after its put has reached its deadline: never early in
 * its clock, whatever the clock did. After a step back, due nodes that the
 * clock no longer reaches wait for it again, and the counted prefix ("The
 * ready count", kmod/delayq_life.c) may hold some, as may a node linked before
 * its end since: stats() uncounts them from the prefix's end, where they all
 * are (the prefix is in deadline order), before it counts.
 */

/**
 * DOC: delay queue: alarms
 *
 * A queue made for CLOCK_BOOTTIME_ALARM or CLOCK_REALTIME_ALARM (q->wakes)
 * keeps the time of CLOCK_BOOTTIME or CLOCK_REALTIME, and wakes the machine
 * from suspend for its deadlines, as an alarm timerfd does: it keeps
 * q->alarm, a kernel alarm (kernel/time/alarmtimer.c) of its clock, aimed no
 * later than the first deadline that has not passed, whether or not anybody
 * waits, and at suspend the alarmtimer programs the RTC for the earliest
 * alarm of the system. The alarm is of the queue's clock: no offset to aim
 * through, and a set of the wall clock moves a REALTIME alarm with it.
 *
 * The aim (delayq_alarm_aim(), at the end of every critical section,
 * delayq_unlock()) is read off the structure in O(1): the first sorted node
 * after each counted prefix (the prefix is due: "The ready count",
 * kmod/delayq_life.c), or the tree's first node when a REALTIME clock set back
 * left the prefix's end not due; and the cascade's delayq_work_at(). The
 * earlier is a bound below every deadline still to come, and exact, the first
 * of them, when it is a sorted node's that has not passed. The alarm goes to
 * an exact bound, later or earlier; to an inexact one (a coarse slot's start,
 * a slot whose earliest node left) only earlier: it then fires early, finds
 * nothing due and is aimed again. So the alarm is never later than the first
 * deadline to come (but by less than a grain, when that is less than a grain
 * away: see below): never a late wake-up. A queue with nothing left to come
 * cancels it (alarm_try_to_cancel()). A bound that has passed (items due that
 * nobody counted, a cascade behind the clock) aims it a grain ahead
 * (DQ_ALARM_FLOOR), so that its callback does the counting in steps, and an
 * alarm never moves later to such an aim, so that a busy queue does not keep
 * pushing it on.
 *
 * Its callback (delayq_alarm_fired(), in the hrtimer interrupt, interrupts
 * off) forgets the aim, reads the clock, sorts up to the clock and counts the
 * due nodes into the prefix, DQ_WAKER_MOVES of each at most, and ends with
 * delayq_unlock(): it wakes a consumer for an item due (after a resume, as
 * soon as the hrtimers resume) and aims the alarm again, at the next
 * deadline or, short of moves, a grain later. So an expiry costs the
 * interrupt a bounded amount of work, as the waker's does.
 *
 * Before a suspend (PM_SUSPEND_PREPARE, delayq_alarm_suspend()), every alarm
 * queue is sorted in process context, DQ_STEP nodes per critical section,
 * until its bound is its first deadline to come exactly, and the alarm is
 * aimed there even if it was aimed earlier: the machine sleeps until that
 * deadline, less the RTC's resolution (a second on a PC), not until a coarse
 * slot's start. A put between then and the alarmtimer's suspend moves the
 * alarm earlier as always. The alarmtimer refuses a suspend (-EBUSY) when
 * the earliest alarm is less than two seconds away, so an aim a grain late
 * never lets the machine sleep through a deadline.
 *
 * Cost to other queues: a test of q->wakes at each unlock. An alarm queue
 * adds a hard interrupt per first deadline (besides the waker, if anybody
 * waits), a clock reading and an alarm start when its bound moves (a put
 * before the first deadline, a take or remove of the first item), and the
 * sort before each suspend. That pass holds delayq_list_lock from the first
 * alarm queue to the last (unlike the clock walk, which holds it for one
 * queue at a time): a create() or destroy() of any queue during it waits for
 * the sort of every alarm queue, O(their items) in steps of DQ_STEP.
 * destroy() cancels the alarm (alarm_cancel(), which waits for a callback
 * under way) once the queue is dead, and nothing aims it then.
 */

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/suspend.h>
#include <linux/wait.h>

#include "clock.h"
#include "compat.h"
#include "delayq_internal.h"
#include "internal.h"
#include "testing.h"

/*
 * How far ahead an alarm is aimed at least: a grain. An alarm whose bound has
 * passed fires that much later to go on counting, and on kernels where an
 * alarm started for a time past is not queued (alarm_start_timer()), the aim
 * is in the future.
 */
#define DQ_ALARM_FLOOR	BIT_ULL(DQ_GRAIN_SHIFT)

/*
 * Under delayq_list_lock: the queues whose clock is not MONOTONIC, for
 * delayq_clock_changed(), and the alarm queues, for delayq_alarm_suspend().
 */
static LIST_HEAD(delayq_clock_list);
static LIST_HEAD(delayq_alarm_list);
/* The queue a clock change is telling, with no lock held; destroy() waits. */
static struct tempo_delayq *delayq_clock_pinned;
static DECLARE_WAIT_QUEUE_HEAD(delayq_clock_pin_wait);

/*
 * The earliest deadline to come among an alarm queue's sorted nodes, or
 * KTIME_MAX: the tree's and the run's first node after their counted
 * prefix, which is due while its end is (else, after a REALTIME clock set
 * back, the first node).
 */
static ktime_t delayq_alarm_sorted(struct tempo_delayq *q)
{
	struct tempo_delayq_node *node = q->last_ready;
	ktime_t at = KTIME_MAX;
	struct rb_node *rb;

	rb = node && delayq_due(q, node->deadline) ? rb_next(&node->rb) :
						     rb_first_cached(&q->tree);
	if (rb)
		at = delayq_node(rb)->deadline;
	node = q->run_ready;
	if (!node || !delayq_due(q, node->deadline))
		node = list_first_entry_or_null(&q->run, struct tempo_delayq_node, entry);
	else if (list_is_last(&node->entry, &q->run))
		node = NULL;
	else
		node = list_next_entry(node, entry);
	return node ? min(at, node->deadline) : at;
}

/*
 * Under the lock, at the end of an alarm queue's critical section: aim
 * q->alarm ("Alarms"). Its bound is the earlier of the sorted nodes' first
 * deadline to come (delayq_alarm_sorted()) and the cascade's
 * delayq_work_at(); it is exact, the first deadline to come, when the sorted
 * one is the earlier and has not passed. The alarm goes to an exact bound,
 * later or earlier, unless that is within a grain of the clock; otherwise it
 * moves only earlier, to the bound or a grain ahead of the clock, whichever
 * is later (DQ_ALARM_FLOOR): so nothing keeps pushing it later. Cancelled
 * when nothing is to come. A dead queue's is left alone (destroy() cancels
 * it). An alarm that fired is still "aimed" until its callback, on its
 * way, takes the lock and aims it anew.
 */
void delayq_alarm_aim(struct tempo_delayq *q)
{
	ktime_t sorted = delayq_alarm_sorted(q), at = sorted, target, floor;
	bool exact;

	lockdep_assert_held(&q->wait.lock);
	if (q->dead)
		return;
	if (q->next_work != DQ_NEVER)
		at = min(at, delayq_work_at(q));
	if (at == KTIME_MAX) {
		if (q->alarm_at != KTIME_MAX)
			alarm_try_to_cancel(&q->alarm);
		q->alarm_at = KTIME_MAX;
		return;
	}
	exact = at == sorted && !delayq_due(q, at);
	if (exact ? at == q->alarm_at : !ktime_after(q->alarm_at, at))
		return;
	floor = ktime_add_ns(tempo_clock_read(q->clock), DQ_ALARM_FLOOR);
	target = max(at, floor);
	if (!ktime_after(q->alarm_at, target) && !(exact && ktime_after(at, floor)))
		return;
	/* Passed before it was queued (the CPU stalled a grain): aim again. */
	while (!alarm_start_timer(&q->alarm, target, false)) {
		floor = ktime_add_ns(tempo_clock_read(q->clock), DQ_ALARM_FLOOR);
		target = max(at, floor);
	}
	q->alarm_at = target;
}

/*
 * Where q->alarm stands among the kernel's alarms, the queue that the
 * alarmtimer programs the RTC from at suspend: its expiry while it is queued
 * there, else KTIME_MAX. Under the lock, which every start of it holds; its
 * interrupt may take it off meanwhile (a snapshot).
 */
ktime_t delayq_alarm_queued(struct tempo_delayq *q)
{
	return READ_ONCE(q->alarm.state) & ALARMTIMER_STATE_ENQUEUED ?
	       q->alarm.node.expires : KTIME_MAX;
}

/*
 * An alarm queue's alarm ("Alarms"): in the hrtimer interrupt, interrupts
 * off. Forget the aim, read the clock, sort up to it and count the due nodes,
 * DQ_WAKER_MOVES of each at most; delayq_unlock() wakes a consumer for an
 * item due and aims the alarm again (a grain later if moves ran short).
 * destroy() cancels the alarm once the queue is dead, before it frees @q.
 */
static TEMPO_ALARM_RET delayq_alarm_fired(struct alarm *alarm, ktime_t unused)
{
	struct tempo_delayq *q = container_of(alarm, struct tempo_delayq, alarm);
	unsigned long flags;

	spin_lock_irqsave(&q->wait.lock, flags);
	q->alarm_at = KTIME_MAX;
	delayq_clock(q);
	if (delayq_advance(q, dq_grain(q->now), DQ_WAKER_MOVES))
		delayq_count_ready(q, DQ_WAKER_MOVES);
	delayq_unlock(q, flags);
	return TEMPO_ALARM_DONE;
}

/*
 * One step of an alarm queue's sort before a suspend, under the lock: sort
 * up to the clock, count the due nodes, then sort ahead until the first
 * sorted node after the counted prefix comes no later than anything the
 * cascade holds, DQ_STEP nodes at most each. Return: true once the alarm's
 * bound is the first deadline to come exactly (delayq_alarm_aim()).
 */
static bool delayq_alarm_sort_step(struct tempo_delayq *q)
{
	ktime_t sorted;

	if (!delayq_advance(q, dq_grain(q->now), DQ_STEP) || !delayq_count_ready(q, DQ_STEP))
		return false;
	if (q->next_work == DQ_NEVER)
		return true;
	/* Nothing the cascade holds is earlier than the sorted part's first? */
	sorted = delayq_alarm_sorted(q);
	if (!ktime_after(sorted, delayq_work_at(q)))
		return true;
	delayq_advance(q, q->next_work, DQ_STEP);
	return false;
}

/*
 * Before a suspend, in process context: sort @q until its bound is exact,
 * dropping the lock between steps; the unlock aims its alarm there.
 */
static void delayq_alarm_sort(struct tempo_delayq *q)
{
	unsigned long flags;

	spin_lock_irqsave(&q->wait.lock, flags);
	delayq_clock(q);
	while (!q->dead && !delayq_alarm_sort_step(q))
		delayq_relock(q, &flags);
	delayq_unlock(q, flags);
}

/*
 * The PM chain: before the tasks are frozen for a suspend, sort every alarm
 * queue and aim its alarm at its first deadline to come (see "Alarms"), so
 * that the alarmtimer programs the RTC for that deadline, not a bound.
 */
static int delayq_alarm_suspend(struct notifier_block *nb, unsigned long event, void *unused)
{
	struct tempo_delayq *q;

	if (event != PM_SUSPEND_PREPARE)
		return NOTIFY_DONE;
	mutex_lock(&delayq_list_lock);
	list_for_each_entry(q, &delayq_alarm_list, alarm_link) {
		delayq_alarm_sort(q);
		cond_resched();
	}
	mutex_unlock(&delayq_list_lock);
	return NOTIFY_DONE;
}

static struct notifier_block delayq_alarm_pm_nb = {
	.notifier_call = delayq_alarm_suspend,
};

/*
 * The clock core's chain, after a clock was set or the machine resumed
 * (process context, a work item; one at a time): visit every queue of
 * another clock than MONOTONIC once. Under its lock: forget where the waker
 * is aimed (the offset it was aimed through may have moved) and read the
 * clock; the unlock aims the waker again if anybody waits (quietly: no
 * wake-up under delayq_list_lock). A queue the change made ready is pinned
 * (delayq_clock_pinned, which destroy() waits for once the queue is off the
 * list) and told with no lock held (tempo_delayq_announce()). The walk keeps
 * its place with a cursor on delayq_clock_list and holds delayq_list_lock
 * for one queue at a time, so a create() or destroy() of any queue waits
 * for one O(1) visit at most. O(queues), whatever they hold.
 */
static int delayq_clock_changed(struct notifier_block *nb, unsigned long unused, void *data)
{
	struct list_head cursor;
	struct tempo_delayq *q;
	unsigned long flags;
	bool announce;

	mutex_lock(&delayq_list_lock);
	list_add(&cursor, &delayq_clock_list);
	while (cursor.next != &delayq_clock_list) {
		q = list_entry(cursor.next, struct tempo_delayq, clock_link);
		list_move(&cursor, &q->clock_link);
		spin_lock_irqsave(&q->wait.lock, flags);
		q->waker_at = KTIME_MAX;
		delayq_clock(q);
		announce = delayq_unlock_quiet(q, flags);
		if (announce)
			WRITE_ONCE(delayq_clock_pinned, q);
		mutex_unlock(&delayq_list_lock);
		tempo_test_point(TEMPO_TP_DELAYQ_CLOCK_VISIT, q, 0, 0);
		if (announce) {
			tempo_delayq_announce(q);
			WRITE_ONCE(delayq_clock_pinned, NULL);
			wake_up_all(&delayq_clock_pin_wait);
		}
		cond_resched();
		mutex_lock(&delayq_list_lock);
	}
	list_del(&cursor);
	mutex_unlock(&delayq_list_lock);
	return NOTIFY_DONE;
}

static struct notifier_block delayq_clock_nb = {
	.notifier_call = delayq_clock_changed,
};

/*
 * create(), under delayq_list_lock, as it lists new @q: a queue of another
 * clock than MONOTONIC joins the clock change's walk, an alarm queue the
 * suspend pass, with its alarm set up.
 */
void delayq_clocks_add(struct tempo_delayq *q)
{
	if (q->clock != CLOCK_MONOTONIC)
		list_add_tail(&q->clock_link, &delayq_clock_list);
	if (q->wakes) {
		alarm_init(&q->alarm, q->clock == CLOCK_BOOTTIME ? ALARM_BOOTTIME : ALARM_REALTIME,
			   delayq_alarm_fired);
		list_add_tail(&q->alarm_link, &delayq_alarm_list);
	}
}

/* destroy(), under delayq_list_lock: @q leaves the walk and the suspend pass. */
void delayq_clocks_del(struct tempo_delayq *q)
{
	list_del(&q->clock_link);
	list_del(&q->alarm_link);
}

/*
 * destroy(), with no lock held, once @q is off the lists: a clock change
 * pins it no more, but may still be telling it; wait for that to end.
 */
void delayq_clocks_unpin(struct tempo_delayq *q)
{
	wait_event(delayq_clock_pin_wait, READ_ONCE(delayq_clock_pinned) != q);
}

/**
 * tempo_delayq_init() - module init of the delay queue core: join the clock
 *	core's chain (queues of other clocks than MONOTONIC re-aim their wakers)
 *	and the PM chain (alarm queues aim their alarms exactly before a suspend)
 *
 * Context: process context, module init, after tempo_clock_init().
 * Return: 0, or the negative errno of a chain's registration.
 */
int tempo_delayq_init(void)
{
	int err = tempo_clock_notifier_register(&delayq_clock_nb);

	if (err)
		return err;
	err = register_pm_notifier(&delayq_alarm_pm_nb);
	if (err)
		tempo_clock_notifier_unregister(&delayq_clock_nb);
	return err;
}

/**
 * tempo_delayq_exit() - module exit: every queue must have been destroyed
 *
 * Context: process context, module exit.
 */
void tempo_delayq_exit(void)
{
	unregister_pm_notifier(&delayq_alarm_pm_nb);
	tempo_clock_notifier_unregister(&delayq_clock_nb);
	WARN(!list_empty(&delayq_list), "tempo: delay queues leaked\n");
}
