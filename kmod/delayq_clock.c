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
 * visits each queue of another clock once (delayq_clock_walk, "The walks"):
 * under the queue's lock it forgets the waker's aim and reads the clock, and
 * the unlock aims the waker anew or wakes a consumer for what the change made
 * due. A change costs O(queues), whatever they hold; a waker aimed through an
 * old offset that fires early finds nothing due and is aimed again.
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
 * DOC: delay queue: the walks
 *
 * Two passes visit a list of queues each: the clock change's walk, each queue
 * of another clock than MONOTONIC (delayq_clock_walk), and the suspend pass,
 * each alarm queue (delayq_alarm_walk, "Alarms"). One walker does both
 * (delayq_walk()), so that no pass holds delayq_list_lock while it works on
 * a queue, nor waits for one queue's lock before it has done the others:
 *
 *  - A cursor, a list_head of the walker's own on the list, keeps its place.
 *    Under delayq_list_lock the walker takes the queue after the cursor,
 *    moves the cursor past it and pins it (q->walks++), then drops the list
 *    lock and visits it with no lock of its own held: the visit takes the
 *    queue's lock and ends with delayq_unlock(), which may wake the queue's
 *    waiters. It then retakes the list lock, unpins the queue and goes on
 *    from the cursor. One walk of a list at a time (its walk->walking), so
 *    a list holds one cursor at most, which nothing but its walker reads.
 *  - A queue whose lock is busy when the walker comes is not waited for: its
 *    visit tries the lock (spin_trylock_irqsave()) and, refused, the walker
 *    moves it to a list of its own (busy) and goes on. Once past the last
 *    queue it visits the busy ones again, waiting for their locks this time,
 *    each moved back to the list first. So one queue whose lock is held long
 *    (a consume() callback, a caller hammering it) delays the other queues'
 *    visits by a failed trylock, and create() or destroy() of any queue by
 *    one O(1) step of the walker under the list lock, never by a visit.
 *  - Create during a walk: a queue listed ahead of the walker (the cursor)
 *    is visited, one listed once the walker has passed the end is not. A
 *    queue made after a clock change aims its waker through the new offset
 *    from its first put; an alarm queue the suspend pass misses keeps its
 *    alarm at its bound, never later than its first deadline ("Alarms").
 *  - Destroy during a walk: destroy() takes the queue off its lists
 *    (list_del_init(), from the busy list too) and, before it frees it,
 *    waits under delayq_list_lock until no walk pins it (q->walks == 0,
 *    wait_event_cmd() dropping the list lock while it sleeps). A visit of a
 *    queue being destroyed finds it dead: the clock visit arms no waker, the
 *    suspend pass sorts nothing and aims no alarm. q->walks is read and
 *    written under delayq_list_lock only: the lock's release by the walker
 *    and acquire by destroy() order the visit's last access to the queue
 *    before its kfree(). No barrier of its own.
 *  - A walk of each list may run at once (a clock set during the suspend
 *    pass): a queue of both lists may be pinned by both (q->walks counts),
 *    and their visits are critical sections of its lock, in some order. The
 *    later one reads the clock after the set, and its unlock aims the waker
 *    and the alarm from that reading; the alarm is of the queue's clock, so
 *    a set of the wall clock moves a REALTIME alarm with it meanwhile.
 *
 * Lock order: walk->walking, then delayq_list_lock, then a queue's lock,
 * which the walker never takes under the list lock.
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
 * The pass is a walk of the alarm queues ("The walks"): it holds no lock
 * across queues, and a queue whose lock is busy is sorted after the others.
 * A queue the pass misses (made after it passed the end) or has not reached
 * yet keeps its alarm at its bound: never later than its first deadline, so
 * the machine wakes early at worst, never late.
 *
 * Cost to other queues: a test of q->wakes at each unlock. An alarm queue
 * adds a hard interrupt per first deadline (besides the waker, if anybody
 * waits), a clock reading and an alarm start when its bound moves (a put
 * before the first deadline, a take or remove of the first item), and the
 * sort before each suspend, O(its items) in steps of DQ_STEP in its own
 * visit, during which no other queue's create() or destroy() waits.
 * destroy() cancels the alarm (alarm_cancel(), which waits for a callback
 * under way) once the queue is dead, and nothing aims it then.
 */

#include <kunit/visibility.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/stddef.h>
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
 * A walk of a list of queues ("The walks"): the list, under delayq_list_lock;
 * where a queue keeps its link on it; the visit, which takes the queue's lock
 * (only if it is free, unless @wait) and returns false if it did not; and the
 * test point the walker passes after each visit, with no lock held.
 */
struct delayq_walk {
	struct list_head	queues;
	size_t			link;
	struct mutex		walking;	/* one walk of this list at a time */
	bool			(*visit)(struct tempo_delayq *q, bool wait);
	enum tempo_test_point	point;
};

/* destroy() waits here for the walks that pin its queue (q->walks) to leave it. */
static DECLARE_WAIT_QUEUE_HEAD(delayq_walk_wait);

/*
 * Under delayq_list_lock, which it drops and retakes: pin the queue of
 * @link, visit it with no lock held, unpin it. Return: the visit's result.
 */
static bool delayq_walk_one(struct delayq_walk *walk, struct list_head *link, bool wait)
{
	struct tempo_delayq *q = (void *)link - walk->link;
	bool done;

	q->walks++;
	mutex_unlock(&delayq_list_lock);
	done = walk->visit(q, wait);
	if (done)
		tempo_test_point(walk->point, q, 0, 0);
	cond_resched();
	mutex_lock(&delayq_list_lock);
	if (!--q->walks)
		wake_up_all(&delayq_walk_wait);
	return done;
}

/*
 * Visit every queue of @walk once ("The walks"): in list order, each whose
 * lock is free; then those whose lock was busy, waiting for it. Process
 * context; holds delayq_list_lock for one O(1) step at a time.
 */
static void delayq_walk(struct delayq_walk *walk)
{
	struct list_head cursor, *link;
	LIST_HEAD(busy);

	mutex_lock(&walk->walking);
	mutex_lock(&delayq_list_lock);
	list_add(&cursor, &walk->queues);
	while (cursor.next != &walk->queues) {
		link = cursor.next;
		list_move(&cursor, link);
		/* Busy and still listed (destroy() empties its link): visit it later. */
		if (!delayq_walk_one(walk, link, false) && !list_empty(link))
			list_move_tail(link, &busy);
	}
	list_del(&cursor);
	while (!list_empty(&busy)) {
		link = busy.next;
		list_move_tail(link, &walk->queues);
		delayq_walk_one(walk, link, true);
	}
	mutex_unlock(&delayq_list_lock);
	mutex_unlock(&walk->walking);
}

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
 * The suspend pass's visit, in process context: sort @q until its bound is
 * exact, dropping the lock between steps; the unlock aims its alarm there.
 * Return: false, having done nothing, if the lock was busy and not @wait.
 */
static bool delayq_alarm_visit(struct tempo_delayq *q, bool wait)
{
	unsigned long flags;

	/* The lock, or, unless @wait, only if it is free (in line: sparse sees it taken). */
	if (wait)
		spin_lock_irqsave(&q->wait.lock, flags);
	else if (!spin_trylock_irqsave(&q->wait.lock, flags))
		return false;
	delayq_clock(q);
	while (!q->dead && !delayq_alarm_sort_step(q)) {
		spin_unlock_irqrestore(&q->wait.lock, flags);
		cond_resched();
		spin_lock_irqsave(&q->wait.lock, flags);
	}
	delayq_unlock(q, flags);
	return true;
}

/* The alarm queues, and the suspend pass's walk of them. */
static struct delayq_walk delayq_alarm_walk = {
	.queues		= LIST_HEAD_INIT(delayq_alarm_walk.queues),
	.link		= offsetof(struct tempo_delayq, alarm_link),
	.walking	= __MUTEX_INITIALIZER(delayq_alarm_walk.walking),
	.visit		= delayq_alarm_visit,
	.point		= TEMPO_TP_DELAYQ_ALARM_VISIT,
};

/*
 * Sort every alarm queue and aim its alarm at its first deadline to come
 * (see "Alarms"), one queue at a time ("The walks"). The PM chain's, and
 * the tests'. Process context; may sleep.
 */
void tempo_delayq_alarm_pass(void)
{
	delayq_walk(&delayq_alarm_walk);
}
EXPORT_SYMBOL_IF_KUNIT(tempo_delayq_alarm_pass);

/*
 * The PM chain: before the tasks are frozen for a suspend, the pass, so that
 * the alarmtimer programs the RTC for the first deadline, not a bound.
 */
static int delayq_alarm_suspend(struct notifier_block *nb, unsigned long event, void *unused)
{
	if (event == PM_SUSPEND_PREPARE)
		tempo_delayq_alarm_pass();
	return NOTIFY_DONE;
}

static struct notifier_block delayq_alarm_pm_nb = {
	.notifier_call = delayq_alarm_suspend,
};

/*
 * The clock walk's visit ("Clocks"): under @q's lock, forget where the
 * waker is aimed (the offset it was aimed through may have moved) and read
 * the clock; the unlock aims the waker again if anybody waits, or wakes a
 * consumer for what the change made due. Return: false, having done
 * nothing, if the lock was busy and not @wait.
 */
static bool delayq_clock_visit(struct tempo_delayq *q, bool wait)
{
	unsigned long flags;

	/* The lock, or, unless @wait, only if it is free (in line: sparse sees it taken). */
	if (wait)
		spin_lock_irqsave(&q->wait.lock, flags);
	else if (!spin_trylock_irqsave(&q->wait.lock, flags))
		return false;
	q->waker_at = KTIME_MAX;
	delayq_clock(q);
	delayq_unlock(q, flags);
	return true;
}

/* The queues whose clock is not MONOTONIC, and the clock change's walk of them. */
static struct delayq_walk delayq_clock_walk = {
	.queues		= LIST_HEAD_INIT(delayq_clock_walk.queues),
	.link		= offsetof(struct tempo_delayq, clock_link),
	.walking	= __MUTEX_INITIALIZER(delayq_clock_walk.walking),
	.visit		= delayq_clock_visit,
	.point		= TEMPO_TP_DELAYQ_CLOCK_VISIT,
};

/*
 * The clock core's chain, after a clock was set or the machine resumed
 * (process context, a work item; one at a time): visit every queue of
 * another clock than MONOTONIC once. O(queues), whatever they hold.
 */
static int delayq_clock_changed(struct notifier_block *nb, unsigned long unused, void *data)
{
	delayq_walk(&delayq_clock_walk);
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
		list_add_tail(&q->clock_link, &delayq_clock_walk.queues);
	if (q->wakes) {
		alarm_init(&q->alarm, q->clock == CLOCK_BOOTTIME ? ALARM_BOOTTIME : ALARM_REALTIME,
			   delayq_alarm_fired);
		list_add_tail(&q->alarm_link, &delayq_alarm_walk.queues);
	}
}

/*
 * destroy(), under delayq_list_lock, which it drops while it sleeps: @q
 * leaves the walks' lists (or a walker's busy list), then the walks that
 * pin it finish their visits ("The walks"). Nothing visits @q after.
 */
void delayq_clocks_del(struct tempo_delayq *q)
{
	list_del_init(&q->clock_link);
	list_del_init(&q->alarm_link);
	wait_event_cmd(delayq_walk_wait, !q->walks, mutex_unlock(&delayq_list_lock),
		       mutex_lock(&delayq_list_lock));
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
