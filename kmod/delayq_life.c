// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: delay queue: life, counters and queries
 *
 * This file holds a queue's life around the core (kmod/delayq.c): create(),
 * which lists it on delayq_list (a queue of another clock or an alarm clock
 * also on the lists of kmod/delayq_clock.c), shutdown(), and destroy(),
 * which shuts the waker and the alarm down, waits for the consumers to
 * leave, hands the items back in take() order and adds the queue's
 * counters to the module's totals (debugfs "delayq"); the counters stats()
 * reports; and the queries that change no item: peek(), size(), ready(),
 * waitqueue() and query(). Each is one critical section of the core's lock
 * (or a few, where it sorts ahead), ended by delayq_unlock() as any.
 *
 * The ready count: stats() tells how many nodes are due, counted as a prefix
 * of each sorted sequence, the tree's up to q->last_ready (state READY) and
 * the run's up to q->run_ready (RUN_READY), q->nready in all. stats() moves
 * both ends on over the due nodes after them, DQ_STEP per critical section.
 * A node linked into the tree before q->last_ready joins the prefix (the run
 * is joined at its end). A node counts as expired once per deadline: as it
 * joins the prefix or, if it never did, as it leaves the queue due.
 *
 * Why a prefix, and not a count at each stats(): /dev/tempo reports its
 * ready records at every TEMPO_IOC_STATS and fdinfo read, and a file may
 * hold a user's whole timer limit due at once. A walk per call would visit
 * them all each time (in steps, but all of them); the prefix visits each
 * node once per deadline, and a stats() after that is O(1). Two node
 * states and q->last_ready, q->run_ready and q->nready are its whole cost.
 */

#include <linux/debugfs.h>
#include <linux/export.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rbtree.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <tempo/delayq.h>
#include <tempo/timer.h>

#include "clock.h"
#include "compat.h"
#include "delayq_internal.h"
#include "internal.h"

/*
 * The live queues, under delayq_list_lock (which also guards the lists of
 * kmod/delayq_clock.c), and what destroyed ones counted: the module's totals
 * (debugfs).
 */
DEFINE_MUTEX(delayq_list_lock);
LIST_HEAD(delayq_list);
static u64 delayq_retired[DELAYQ_NR_STATS];

static const char * const delayq_counter_names[DELAYQ_NR_STATS] = {
	[DELAYQ_STAT_PUT]	= "put",
	[DELAYQ_STAT_EXPIRED]	= "expired",
	[DELAYQ_STAT_TAKEN]	= "taken",
	[DELAYQ_STAT_REMOVED]	= "removed",
	[DELAYQ_STAT_FLUSHED]	= "flushed",
	[DELAYQ_STAT_WAKEUPS]	= "wakeups",
	[DELAYQ_STAT_REQUEUED]	= "requeued",
};

/*
 * Move the ends of the counted prefixes back over nodes no longer due (a
 * REALTIME clock set back since they were counted; a node linked there
 * since, not due, was never counted), at most @budget of them. Return:
 * true when every counted node is due.
 */
static bool delayq_uncount_late(struct tempo_delayq *q, unsigned int budget)
{
	struct tempo_delayq_node *node;

	while ((node = q->last_ready) && !delayq_due(q, node->deadline)) {
		if (!budget--)
			return false;
		if (node->state == DELAYQ_READY) {
			delayq_set_state(node, DELAYQ_PENDING);
			q->nready--;
		}
		q->last_ready = delayq_node(rb_prev(&node->rb));
	}
	while ((node = q->run_ready) && !delayq_due(q, node->deadline)) {
		if (!budget--)
			return false;
		delayq_set_state(node, DELAYQ_RUN);
		q->nready--;
		q->run_ready = list_is_first(&node->entry, &q->run) ? NULL :
			       list_prev_entry(node, entry);
	}
	return true;
}

/*
 * Make the counted prefixes hold every due node and no other: back over
 * nodes no longer due (delayq_uncount_late()), then on over the due nodes
 * after them, at most @budget nodes each way. Return: true when done.
 */
bool delayq_count_ready(struct tempo_delayq *q, unsigned int budget)
{
	struct tempo_delayq_node *node;
	struct rb_node *rb;

	if (!delayq_uncount_late(q, budget))
		return false;
	rb = q->last_ready ? rb_next(&q->last_ready->rb) : rb_first_cached(&q->tree);
	for (; rb; rb = rb_next(rb)) {
		node = delayq_node(rb);
		if (!delayq_due(q, node->deadline))
			break;
		if (!budget--)
			return false;
		delayq_count_due(q, node, DELAYQ_READY);
		q->last_ready = node;
	}
	node = q->run_ready ? list_next_entry(q->run_ready, entry) :
	       list_first_entry(&q->run, struct tempo_delayq_node, entry);
	for (; !list_entry_is_head(node, &q->run, entry); node = list_next_entry(node, entry)) {
		if (!delayq_due(q, node->deadline))
			break;
		if (!budget--)
			return false;
		delayq_count_due(q, node, DELAYQ_RUN_READY);
		q->run_ready = node;
	}
	return true;
}

/**
 * tempo_delayq_node_init() - prepare a node for its first put; not while it is queued
 * @node: the node embedded in an item
 *
 * Context: any context.
 */
void tempo_delayq_node_init(struct tempo_delayq_node *node)
{
	RB_CLEAR_NODE(&node->rb);
	node->q = NULL;
	node->deadline = 0;
	node->seq = 0;
	node->slack_us = 0;
	delayq_set_state(node, DELAYQ_IDLE);
}
EXPORT_SYMBOL_NS_GPL(tempo_delayq_node_init, "TEMPO");

/**
 * tempo_delayq_create_clock() - allocate an empty delay queue of a clock
 * @clock: CLOCK_MONOTONIC, CLOCK_BOOTTIME or CLOCK_REALTIME: the clock of
 *	its deadlines and of the readings that decide what is due; or
 *	CLOCK_BOOTTIME_ALARM or CLOCK_REALTIME_ALARM: a queue of CLOCK_BOOTTIME
 *	or CLOCK_REALTIME that also wakes the machine from suspend for its
 *	deadlines (an alarm queue, include/tempo/delayq.h)
 *
 * The queue is charged to the caller's memory cgroup (GFP_KERNEL_ACCOUNT),
 * or to the one the caller made active (set_active_memcg()). The first queue
 * of a clock other than MONOTONIC makes the module listen for clock changes
 * (kmod/clock.c). No capability is asked for an alarm clock: the caller
 * decides who may wake the machine (/dev/tempo asks CAP_WAKE_ALARM).
 *
 * Context: process context; may sleep.
 * Return: the queue; NULL if out of memory, for another @clock, or for an
 * alarm clock where the kernel has no RTC to wake the machine with
 * (alarmtimer_get_rtcdev()).
 */
struct tempo_delayq *tempo_delayq_create_clock(clockid_t clock)
{
	bool wakes = tempo_clock_is_alarm(clock);
	struct tempo_delayq *q;
	unsigned int lvl, slot;

	clock = tempo_clock_base(clock);
	if (!tempo_clock_valid(clock) || (wakes && !tempo_clock_alarm_ready()))
		return NULL;
	if (clock != CLOCK_MONOTONIC && tempo_clock_watch())
		return NULL;
	q = kzalloc(sizeof(*q), GFP_KERNEL_ACCOUNT);
	if (!q)
		return NULL;
	q->clock = clock;
	q->wakes = wakes;
	q->alarm_at = KTIME_MAX;
	init_waitqueue_head(&q->wait);
	init_waitqueue_head(&q->watch);
	q->tree = RB_ROOT_CACHED;
	INIT_LIST_HEAD(&q->run);
	q->next_work = DQ_NEVER;
	for (lvl = 0; lvl < DQ_LEVELS; lvl++)
		for (slot = 0; slot < DQ_SLOTS; slot++)
			INIT_LIST_HEAD(&q->cascade[lvl][slot]);
	q->waker_at = KTIME_MAX;
	tempo_timer_init(&q->waker, delayq_waker_fired, TEMPO_TIMER_FINE | TEMPO_TIMER_IRQ);
	INIT_LIST_HEAD(&q->clock_link);
	INIT_LIST_HEAD(&q->alarm_link);
	mutex_lock(&delayq_list_lock);
	list_add_tail(&q->list, &delayq_list);
	delayq_clocks_add(q);
	mutex_unlock(&delayq_list_lock);
	return q;
}
EXPORT_SYMBOL_NS_GPL(tempo_delayq_create_clock, "TEMPO");

/**
 * tempo_delayq_create() - allocate an empty delay queue of CLOCK_MONOTONIC
 *
 * As tempo_delayq_create_clock(CLOCK_MONOTONIC).
 *
 * Context: process context; may sleep.
 * Return: the queue, or NULL if out of memory.
 */
struct tempo_delayq *tempo_delayq_create(void)
{
	return tempo_delayq_create_clock(CLOCK_MONOTONIC);
}
EXPORT_SYMBOL_NS_GPL(tempo_delayq_create, "TEMPO");

/**
 * tempo_delayq_stats() - a snapshot of a queue's counters
 * @q: the queue
 * @stats: receives them
 *
 * Reads the clock. Counting the items that fell due since the last call
 * takes DQ_STEP of them per critical section, with the lock dropped
 * in between: at most as many sections as items are queued.
 *
 * Context: any context except NMI; does not sleep.
 */
void tempo_delayq_stats(struct tempo_delayq *q, struct tempo_delayq_stats *stats)
{
	unsigned long flags;
	unsigned int steps;

	spin_lock_irqsave(&q->wait.lock, flags);
	/* Where the calls before this one left it, before this one sorts. */
	stats->alarm = q->wakes ? delayq_alarm_queued(q) : 0;
	delayq_clock(q);
	delayq_catch_up(q, &flags);
	for (steps = 2 * (q->n / DQ_STEP); !delayq_count_ready(q, DQ_STEP) && steps;
	     steps--) {
		delayq_unlock(q, flags);
		spin_lock_irqsave(&q->wait.lock, flags);
	}
	stats->put = q->count[DELAYQ_STAT_PUT];
	stats->expired = q->count[DELAYQ_STAT_EXPIRED];
	stats->taken = q->count[DELAYQ_STAT_TAKEN];
	stats->removed = q->count[DELAYQ_STAT_REMOVED];
	stats->flushed = q->count[DELAYQ_STAT_FLUSHED];
	stats->wakeups = q->count[DELAYQ_STAT_WAKEUPS];
	stats->requeued = q->count[DELAYQ_STAT_REQUEUED];
	stats->pending = q->n - q->nready;
	stats->ready = q->nready;
	stats->waiters = q->nwaiters;
	delayq_unlock(q, flags);
}
EXPORT_SYMBOL_NS_GPL(tempo_delayq_stats, "TEMPO");

/**
 * tempo_delayq_peek() - the earliest deadline in the queue
 * @q: the queue
 * @deadline: receives it
 *
 * The deadline of the item take() would return next, due or not. O(1) when
 * that item is sorted already; else sorts ahead to it, DQ_STEP items per
 * critical section.
 *
 * Context: any context except NMI; does not sleep.
 * Return: true and *@deadline set, or false if @q is empty.
 */
bool tempo_delayq_peek(struct tempo_delayq *q, ktime_t *deadline)
{
	struct tempo_delayq_node *first;
	unsigned long flags;

	spin_lock_irqsave(&q->wait.lock, flags);
	first = delayq_first_ahead(q, &flags);
	if (first)
		*deadline = first->deadline;
	delayq_unlock(q, flags);
	return first;
}
EXPORT_SYMBOL_NS_GPL(tempo_delayq_peek, "TEMPO");

/**
 * tempo_delayq_size() - number of queued items, due or not, at one instant
 * @q: the queue
 *
 * Context: any context except NMI; does not sleep.
 * Return: the number.
 */
unsigned int tempo_delayq_size(struct tempo_delayq *q)
{
	unsigned long flags;
	unsigned int n;

	spin_lock_irqsave(&q->wait.lock, flags);
	n = q->n;
	delayq_unlock(q, flags);
	return n;
}
EXPORT_SYMBOL_NS_GPL(tempo_delayq_size, "TEMPO");

/**
 * tempo_delayq_ready() - is an item due?
 * @q: the queue
 *
 * A watcher asks this after it added itself to tempo_delayq_waitqueue(): an
 * edge to "due" that this call does not see wakes it. Reads the clock if
 * the earliest item is not known to be due. A shut-down queue reports
 * false.
 *
 * Context: any context except NMI; does not sleep.
 * Return: true if a try_take() now would find an item.
 */
bool tempo_delayq_ready(struct tempo_delayq *q)
{
	unsigned long flags;
	bool ready;

	spin_lock_irqsave(&q->wait.lock, flags);
	ready = !q->dead && delayq_next_sorted(q, &flags);
	delayq_unlock(q, flags);
	return ready;
}
EXPORT_SYMBOL_NS_GPL(tempo_delayq_ready, "TEMPO");

/**
 * tempo_delayq_waitqueue() - the wait queue of the queue's watchers
 * @q: the queue
 *
 * Woken, every waiter but one exclusive one at most: each time the queue
 * goes from no item due to an item due (with the poll key EPOLLIN |
 * EPOLLRDNORM); with no key when items may be due that nobody has sorted in
 * yet and no consumer is asleep to do it (a watcher then calls
 * tempo_delayq_ready(), which sorts them and says whether one is due, as
 * poll(), epoll and io_uring's poll do); and at shutdown (with no key).
 * Consumers asleep in take*() are not on it. A caller may add waiters of its
 * own, exclusive ones included, and wake them with keys of its own; its lock
 * is not the queue's.
 *
 * Context: any context.
 * Return: the wait queue head, valid until tempo_delayq_destroy().
 */
wait_queue_head_t *tempo_delayq_waitqueue(struct tempo_delayq *q)
{
	return &q->watch;
}
EXPORT_SYMBOL_NS_GPL(tempo_delayq_waitqueue, "TEMPO");

/**
 * tempo_delayq_query() - is an item queued, and until when?
 * @q: the queue
 * @node: the item's node
 * @deadline: receives the item's deadline when it is queued on @q
 *
 * One critical section: the answer is the node's state at one instant, as
 * remove() would find it. Reads the clock if the item is not known to be
 * due.
 *
 * Context: any context except NMI; does not sleep.
 * Return: TEMPO_DELAYQ_PENDING if the item waits for its deadline;
 * TEMPO_DELAYQ_TAKEABLE if its deadline has passed (a take() now could
 * return it); -ENOENT if it is not queued on @q (never put, taken, removed
 * or handed back).
 */
int tempo_delayq_query(struct tempo_delayq *q, struct tempo_delayq_node *node,
		       ktime_t *deadline)
{
	unsigned long flags;
	int ret = -ENOENT;

	spin_lock_irqsave(&q->wait.lock, flags);
	if (READ_ONCE(node->q) == q && READ_ONCE(node->state) != DELAYQ_IDLE) {
		if (!delayq_due(q, node->deadline))
			delayq_clock(q);
		ret = delayq_due(q, node->deadline) ? TEMPO_DELAYQ_TAKEABLE :
						      TEMPO_DELAYQ_PENDING;
		*deadline = node->deadline;
	}
	delayq_unlock(q, flags);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(tempo_delayq_query, "TEMPO");

/**
 * tempo_delayq_shutdown() - stop a queue: fail all takes, refuse all puts
 * @q: the queue
 *
 * Consumers asleep in take() wake and return -ESHUTDOWN, as do all later
 * take*() calls; put() returns -ESHUTDOWN; watchers are woken. Queued items
 * stay queued until tempo_delayq_destroy() hands them back, and remove()
 * still works. Idempotent.
 *
 * Context: any context except NMI; does not sleep.
 */
void tempo_delayq_shutdown(struct tempo_delayq *q)
{
	unsigned long flags;
	bool was_dead;

	spin_lock_irqsave(&q->wait.lock, flags);
	was_dead = q->dead;
	q->dead = true;
	wake_up_all_locked(&q->wait);
	spin_unlock_irqrestore(&q->wait.lock, flags);
	if (!was_dead)
		wake_up_all(&q->watch);
}
EXPORT_SYMBOL_NS_GPL(tempo_delayq_shutdown, "TEMPO");

/* Sleep until no consumer is left in delayq_wait() on dead @q. */
static void delayq_wait_quiescent(struct tempo_delayq *q)
{
	DEFINE_WAIT(wait);

	spin_lock_irq(&q->wait.lock);
	while (q->nwaiters) {
		/* Not exclusive: wake_up_all_locked() in delayq_wait(). */
		if (list_empty(&wait.entry))
			__add_wait_queue_entry_tail(&q->wait, &wait);
		set_current_state(TASK_UNINTERRUPTIBLE);
		spin_unlock_irq(&q->wait.lock);
		schedule();
		spin_lock_irq(&q->wait.lock);
	}
	__set_current_state(TASK_RUNNING);
	if (!list_empty(&wait.entry))
		list_del_init(&wait.entry);
	spin_unlock_irq(&q->wait.lock);
}

/**
 * tempo_delayq_destroy() - shut down and free a queue, handing back its items
 * @q: the queue
 * @release: called once for each item still queued, in the order take()
 *	would return them (by deadline); may free the item.
 *	NULL if the caller knows the queue is empty (items found are then
 *	dropped with a warning).
 * @arg: passed to @release
 *
 * Shuts @q and its timer down, waits for consumers asleep in take() to
 * leave with -ESHUTDOWN, then unlinks the items one per critical section,
 * calls @release on each outside the lock, and frees @q.
 *
 * Context: process context; may sleep. No call on @q may start once destroy
 * has (see the contract in include/tempo/delayq.h).
 * Return: the number of items handed back (or dropped).
 */
unsigned int tempo_delayq_destroy(struct tempo_delayq *q,
				  tempo_delayq_release_fn release, void *arg)
{
	struct tempo_delayq_node *node;
	unsigned int n = 0, c;

	might_sleep();
	tempo_delayq_shutdown(q);
	/* Dead: nothing arms the waker again (delayq_notify()), nor the alarm. */
	tempo_timer_shutdown_sync(&q->waker);
	if (q->wakes)
		alarm_cancel(&q->alarm);
	delayq_wait_quiescent(q);
	/* Sort everything, to hand the items back in take() order. */
	spin_lock_irq(&q->wait.lock);
	while (q->next_work != DQ_NEVER) {
		delayq_advance(q, q->next_work, DQ_STEP);
		spin_unlock_irq(&q->wait.lock);
		cond_resched();
		spin_lock_irq(&q->wait.lock);
	}
	spin_unlock_irq(&q->wait.lock);
	for (;;) {
		spin_lock_irq(&q->wait.lock);
		node = delayq_first(q);
		if (node) {
			delayq_unlink(q, node, node->deadline);
			delayq_set_state(node, DELAYQ_IDLE);
			delayq_count(q, DELAYQ_STAT_FLUSHED);
		}
		spin_unlock_irq(&q->wait.lock);
		if (!node)
			break;
		n++;
		if (release)
			release(node, arg);
		cond_resched();
	}
	WARN(!release && n, "tempo: delay queue destroyed with %u items\n", n);
	mutex_lock(&delayq_list_lock);
	list_del(&q->list);
	/* Off the walks' lists; waits for a walk visiting it. */
	delayq_clocks_del(q);
	for (c = 0; c < DELAYQ_NR_STATS; c++)
		delayq_retired[c] += q->count[c];
	mutex_unlock(&delayq_list_lock);
	kfree(q);
	return n;
}
EXPORT_SYMBOL_NS_GPL(tempo_delayq_destroy, "TEMPO");

static int delayq_totals_show(struct seq_file *m, void *unused)
{
	u64 sum[DELAYQ_NR_STATS];
	struct tempo_delayq *q;
	unsigned int queues = 0;
	int c;

	mutex_lock(&delayq_list_lock);
	memcpy(sum, delayq_retired, sizeof(sum));
	list_for_each_entry(q, &delayq_list, list) {
		spin_lock_irq(&q->wait.lock);
		for (c = 0; c < DELAYQ_NR_STATS; c++)
			sum[c] += q->count[c];
		spin_unlock_irq(&q->wait.lock);
		queues++;
	}
	mutex_unlock(&delayq_list_lock);
	seq_printf(m, "queues %u\n", queues);
	for (c = 0; c < DELAYQ_NR_STATS; c++)
		seq_printf(m, "%s %llu\n", delayq_counter_names[c], sum[c]);
	seq_printf(m, "queued %llu\n", sum[DELAYQ_STAT_PUT] - sum[DELAYQ_STAT_TAKEN] -
		   sum[DELAYQ_STAT_REMOVED] - sum[DELAYQ_STAT_FLUSHED]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(delayq_totals);

/**
 * tempo_delayq_debugfs() - create "delayq": module-wide totals of all queues' counters
 * @dir: tempo's debugfs directory
 *
 * Context: process context, from the module's init.
 */
void tempo_delayq_debugfs(struct dentry *dir)
{
	debugfs_create_file("delayq", 0444, dir, NULL, &delayq_totals_fops);
}
