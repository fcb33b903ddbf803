// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: delay queue
 *
 * tempo delay queue: take() blocks until an item's delay has expired, and no
 * consumer ever does a timed wait to find out when that is. consume() takes
 * with a verdict per item, decided under the queue's lock, and says when
 * each item was found due.
 *
 * The core is here: the model, put, take and consume, the cascade, the
 * wake-ups and the waker. kmod/delayq_clock.c holds what a queue of another
 * clock than CLOCK_MONOTONIC adds (the clock-change walk) and what an alarm
 * queue adds (its alarm, the pass before a suspend); kmod/delayq_life.c a
 * queue's creation and destruction, its counters with the ready count, and
 * the queries (peek, size, ready, query); kmod/delayq_internal.h is what
 * the three share.
 */

/**
 * DOC: delay queue: model
 *
 * One spinlock, q->wait.lock, guards all of a queue; the lock orders
 * everything, and this file has no barrier of its own. Time is cut into
 * grains of 2^DQ_GRAIN_SHIFT ns of the queue's clock (dq_grain(); q->clock,
 * CLOCK_MONOTONIC unless the queue was made with another, see "Clocks",
 * kmod/delayq_clock.c), and q->next_grain splits the queued nodes in two:
 *
 *  - sorted: the nodes of grains before q->next_grain, by deadline and then put
 *    order (node->seq), in two sequences. q->run is a FIFO list that a node
 *    joins when it comes at or after the run's last node (a slot of one
 *    deadline, timeouts of one length put in turn): O(1) in and out.
 *    q->tree, a red-black tree, holds the others. The first sorted node is
 *    the first of the two heads (delayq_first()).
 *  - unsorted: q->cascade, DQ_LEVELS levels of 64 FIFO slots, the kernel's
 *    wheel before 4.8 and Kafka's. A node of grain t sits at level k, where
 *    64^k <= t - q->next_grain < 64^(k+1), in slot (t >> 6k) & 63: O(1) to
 *    put and to remove.
 *
 * Why: a tree alone makes every put and remove of a far timeout, the kind
 * usually cancelled before it fires, descend a tree of everything queued; a
 * wheel alone orders only to its grain, so an item put already due would wait
 * for its grain to end. Here far items never touch the tree, and what comes
 * in order is taken from a list. One lock, and no lock-free inbox for near
 * items: its cmpxchg costs what the lock round trip does at native cost, and
 * /dev/tempo puts in batches under one lock anyway.
 *
 * Sorting is moving q->next_grain on (delayq_advance()). At grain T, every
 * slot whose time has come is emptied (delayq_empty_due()): a level-k slot
 * when 64^k divides T, its nodes re-placed on lower levels (their grains are
 * within 64^k of T, so none lands in a slot emptied before), and last T's
 * level-0 slot, into the sorted part; only then does q->next_grain pass T.
 * q->next_work, a lower bound on the next grain with a slot to empty, made
 * exact by per-level occupancy masks, lets empty stretches pass in one
 * step. Any number of nodes may share a slot, so at most DQ_STEP move per
 * critical section, and the callers that look for due items drop the lock
 * between steps (delayq_catch_up()).
 *
 * q->now is the latest clock reading taken under the lock. A node is
 * takeable when it is the first sorted node, its grain is before
 * q->next_grain and its deadline is not after q->now (delayq_takeable()).
 * Cascade nodes are of later grains, so items leave in exact deadline order and
 * never early, wherever q->next_grain stands: behind the clock (the cascade is
 * "behind", and a consumer catches up before it says nothing is due) or
 * ahead of it (peek() and destroy() sort ahead). consume() reports q->now
 * as the time an item was found due.
 */

/**
 * DOC: delay queue: wake-ups and the waker
 *
 * delayq_notify() ends every critical section that may change what is
 * takeable (delayq_unlock()):
 *
 *  - Ready (a node is takeable): it wakes one consumer, unless one is woken
 *    already (q->woken, set by delayq_waiter_wake() as it selects a
 *    consumer, cleared by that consumer as it runs). Consumers sleep on
 *    q->wait as exclusive waiters, FIFO, and one that leaves nodes takeable
 *    wakes the next: one wake-up per item due, no herd. A consumer leaves
 *    (signal, kthread_stop(), timeout, shutdown) only from a critical
 *    section in which it found nothing due.
 *  - Not ready, with somebody waiting: it arms q->waker, the queue's one
 *    tempo timer, a TEMPO_TIMER_FINE | TEMPO_TIMER_IRQ one, for the first
 *    sorted deadline or the first time the cascade's next slots to empty
 *    can hold a due node, whichever comes first, or for just after q->now
 *    while the cascade is behind (slots whose time has come are not
 *    emptied). That time is the least deadline of the level-0 slot emptied
 *    at grain q->next_work (q->cascade_min, a bound that a put keeps exact
 *    and a removal leaves early), or that grain's start when a coarser slot
 *    is emptied there too (delayq_work_at()): the waker that empties a slot of due nodes finds
 *    them due, rather than firing at the grain's start and being armed
 *    again. The callback runs in the timer wheel's interrupt (an IRQ
 *    timer: no workqueue between the expiry and the wake-up), reads the
 *    clock and moves at most DQ_WAKER_MOVES nodes (delayq_waker_fired()): the
 *    interrupt runs every IRQ callback of its CPU in turn, so one queue's
 *    expiry must cost it a bounded amount, not its slots' size. A FINE timer
 *    fires at the time it is armed for, whatever the delay, late by at most
 *    its slack or a 64th of the timer wheel's tick (include/tempo/timer.h),
 *    so the waker is armed once per time it is needed. A waker whose node has
 *    left since is not cancelled: it fires and finds less to do. If nobody
 *    waits, nothing is armed: the next caller that looks sorts for itself.
 *  - Slack: q->slack is the least node->slack_us of the nodes linked since
 *    the queue was last empty (delayq_link(); it only falls while nodes are
 *    queued, which is O(1) and never too large). The waker is armed to fire
 *    in [at, at + q->slack], at the first deadline or q->next_work's start:
 *    every node not yet due has its deadline at or after that time, so a
 *    waker anywhere in that window lands in every node's window, and those
 *    due then are all found. Below a tick it fires in the window's last
 *    64th of a tick, as late as it lets, so that the nodes due by then share
 *    the expiry, as hrtimers with a range do; from a tick up the window is
 *    its timer's slack, which the timer wheel aims at whole ticks, shared
 *    with other timers (delayq_waker_arm()). While the cascade is behind
 *    (nodes may be due already) the waker has no slack. An armed waker is
 *    armed again when a put needs it to fire before the end of its own
 *    window (q->waker_at + q->waker_slack): a node of less slack than the
 *    waker has.
 *  - Behind after the waker ran out of moves (q->waker_short): whoever waits
 *    sorts the rest, in its own context, as it would if it came by: one
 *    consumer asleep is woken as for an item due; if none is asleep, the
 *    watchers are woken once (q->look_asked) with no poll key, which
 *    poll(), epoll and io_uring take as "look again": their
 *    tempo_delayq_ready() sorts. So a consumer is woken only for an item
 *    due, or for a slot of more than DQ_WAKER_MOVES items.
 *  - At a readiness edge (ready, where q->ready says it was not):
 *    delayq_unlock() wakes every watcher on q->watch, which no consumer is
 *    on, after dropping the lock, with the poll key EPOLLIN | EPOLLRDNORM.
 *    No edge is lost: a watcher joins q->watch before it asks
 *    tempo_delayq_ready() under the lock, so the lock orders its look
 *    against the critical section that makes the edge. The same holds for
 *    the look asked of watchers, and for whether anybody waits: a consumer
 *    joins q->wait before the notify that ends its pass.
 *  - Quiet: tempo_delayq_move() ends its critical section with
 *    delayq_unlock_quiet(), which leaves undone (q->ready, q->look_asked
 *    untouched) whatever would wake someone, so that the next notify finds
 *    it still to do; its caller, who holds a lock of its own, then calls
 *    tempo_delayq_announce(), an empty critical section, once it has
 *    dropped that lock. It arms the waker as any notify does.
 */

/**
 * DOC: delay queue: node states
 *
 * Node->state, under the lock of node->q::
 *
 *	IDLE     --put------------------->  CASCADE, or sorted: RUN, or PENDING
 *	                                    (READY if before q->last_ready)
 *	CASCADE  --its slot emptied------>  CASCADE a level lower, or sorted
 *	PENDING  --stats() counts it----->  READY
 *	RUN      --stats() counts it----->  RUN_READY
 *	queued   --take, TAKE, remove,--->  IDLE
 *	           destroy's hand-back
 *	queued   --AGAIN----------------->  linked again by its new deadline
 *
 * A node is queued on q iff node->q == q and it is not IDLE. AGAIN unlinks
 * and links it in one critical section: no CPU sees it out of the queue.
 * put() reads a node's state without the lock of its last queue (READ_ONCE,
 * for -EBUSY); every other access to a node is under its queue's lock.
 */

/**
 * DOC: delay queue: invariants, whenever the lock is free
 *
 *  - the run, the tree and the cascade hold exactly the q->n queued nodes; the
 *    run and the tree are each in (deadline, seq) order;
 *  - a cascade node's grain is >= q->next_grain, and it sits where it was
 *    placed for the q->next_grain of then; a sorted node's grain is <
 *    q->next_grain, except, while T = q->next_grain's level-0 slot is emptied,
 *    the nodes of T moved so far; a level's q->occupied bit is set iff its slot
 *    is not empty; q->next_grain <= q->next_work <= the next grain with a slot
 *    to empty (DQ_NEVER if none);
 *  - q->now is a reading of q->clock, and only grows (but in a REALTIME
 *    queue whose clock was set back); q->nready nodes are counted, each
 *    due unless the clock was set back since it was counted;
 *  - not dead, not ready, not q->waker_short, somebody waiting: the waker is
 *    armed for the first sorted deadline and q->next_work's start or
 *    earlier (the next grain if behind), or its callback is on its way;
 *    ready or q->waker_short with a consumer asleep: q->woken; q->waker_short
 *    with watchers only: q->look_asked; q->waker_short only while behind;
 *  - an alarm queue (q->wakes), not dead, with a node whose deadline is
 *    after q->now: q->alarm is armed for q->alarm_at, no later than the
 *    earliest such deadline or a grain after q->now, or its callback is on
 *    its way; an empty one, KTIME_MAX;
 *  - put = taken + removed + flushed + q->n; AGAIN counts as requeued only;
 *  - dead: take*() return -ESHUTDOWN and put() refuses; nothing arms the waker
 *    or signals an edge; nodes leave by remove() or destroy() only.
 *
 * Every call is a sequence of critical sections, the last of which does what
 * it reports; any two calls may run at once, as the contract in
 * include/tempo/delayq.h says. The waker reaches q through its timer, and
 * destroy() shuts it down (tempo_timer_shutdown_sync()) before it frees q.
 * Not guaranteed: fairness beyond the FIFO order of exclusive waiters; a
 * sleeping consumer's wake-up while the waker's CPU holds interrupts off (a
 * consumer that comes by still takes what is due).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/bug.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/rbtree.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <uapi/linux/eventpoll.h>
#include <tempo/delayq.h>
#include <tempo/timer.h>

#include "clock.h"
#include "compat.h"
#include "delayq_internal.h"
#include "occupancy.h"
#include "testing.h"

static bool delayq_tree_less(struct rb_node *a, const struct rb_node *b)
{
	return delayq_before(delayq_node(a), rb_entry(b, struct tempo_delayq_node, rb));
}

/*
 * Link @node into the tree: O(1) to find its place before the leftmost, else
 * a descent. (A node after the tree's rightmost usually goes to the run.) A
 * node linked before q->last_ready is due (its deadline is not after a due
 * node's) and joins the counted prefix (unless a REALTIME clock was set back
 * since it was counted: stats() then uncounts it with the prefix's end).
 */
static void delayq_tree_link(struct tempo_delayq *q, struct tempo_delayq_node *node)
{
	struct tempo_delayq_node *first = delayq_tree_first(q);

	if (first && delayq_before(node, first)) {
		rb_link_node(&node->rb, &first->rb, &first->rb.rb_left);
		rb_insert_color_cached(&node->rb, &q->tree, true);
	} else {
		rb_add_cached(&node->rb, &q->tree, delayq_tree_less);
	}
	if (q->last_ready && delayq_before(node, q->last_ready))
		delayq_count_due(q, node, DELAYQ_READY);
	else
		delayq_set_state(node, DELAYQ_PENDING);
}

/*
 * Sort @node in: appended to the run if it comes at or after the run's last
 * node (O(1): a slot of one deadline, timeouts of one length put in turn),
 * else linked into the tree. An appended node is after the run's counted
 * prefix, so it does not join it.
 */
static void delayq_sort_in(struct tempo_delayq *q, struct tempo_delayq_node *node)
{
	if (!list_empty(&q->run) &&
	    delayq_before(node, list_last_entry(&q->run, struct tempo_delayq_node, entry))) {
		delayq_tree_link(q, node);
		return;
	}
	list_add_tail(&node->entry, &q->run);
	delayq_set_state(node, DELAYQ_RUN);
}

/*
 * Place @node, of a grain at or after q->next_grain, in the cascade: at the
 * level of its distance from q->next_grain, in the slot of its grain there.
 * A grain DQ_SPAN or more ahead is placed as the last grain the cascade
 * reaches, and placed again by its own grain when that slot is emptied.
 */
static void delayq_cascade_add(struct tempo_delayq *q, struct tempo_delayq_node *node)
{
	s64 grain = dq_grain(node->deadline);
	u64 ahead = grain - q->next_grain;
	unsigned int lvl = 0, shift;

	if (ahead >= DQ_SPAN) {
		ahead = DQ_SPAN - 1;
		grain = q->next_grain + ahead;
	}
	if (ahead >= DQ_SLOTS)
		lvl = (fls64(ahead) - 1) / DQ_LVL_BITS;
	shift = lvl * DQ_LVL_BITS;
	node->level = lvl;
	node->slot = (grain >> shift) & DQ_SLOT_MASK;
	/* The slot's earliest deadline, for the waker (delayq_work_at()). */
	if (!lvl && (!(q->occupied[0] & BIT_ULL(node->slot)) ||
		     ktime_before(node->deadline, q->cascade_min[node->slot])))
		q->cascade_min[node->slot] = node->deadline;
	list_add_tail(&node->entry, &q->cascade[lvl][node->slot]);
	q->occupied[lvl] |= BIT_ULL(node->slot);
	/* Emptied when q->next_grain reaches the start of its 64^lvl grains. */
	q->next_work = min(q->next_work, (grain >> shift) << shift);
	delayq_set_state(node, DELAYQ_CASCADE);
}

static void delayq_cascade_del(struct tempo_delayq *q, struct tempo_delayq_node *node)
{
	struct list_head *slot = &q->cascade[node->level][node->slot];

	list_del(&node->entry);
	if (list_empty(slot))
		q->occupied[node->level] &= ~BIT_ULL(node->slot);
}

/* Link @node, sorted in if its grain is before q->next_grain, else in the cascade. */
static void delayq_link(struct tempo_delayq *q, struct tempo_delayq_node *node)
{
	lockdep_assert_held(&q->wait.lock);
	if (dq_grain(node->deadline) < q->next_grain)
		delayq_sort_in(q, node);
	else
		delayq_cascade_add(q, node);
	/* The waker's slack: the least of the nodes' ("the waker and slack"). */
	q->slack = min_t(u64, q->n ? q->slack : U64_MAX, (u64)node->slack_us * NSEC_PER_USEC);
	q->n++;
}

/*
 * Unlink queued @node, linked with @deadline (a consume callback may have
 * moved node->deadline already). A node leaving due that was never counted
 * is counted as expired now. The caller sets its new state.
 */
void delayq_unlink(struct tempo_delayq *q, struct tempo_delayq_node *node,
		   ktime_t deadline)
{
	lockdep_assert_held(&q->wait.lock);
	if (node->state == DELAYQ_READY) {
		q->nready--;
		if (node == q->last_ready)
			q->last_ready = delayq_node(rb_prev(&node->rb));
	} else if (node->state == DELAYQ_RUN_READY) {
		q->nready--;
		if (node == q->run_ready)
			q->run_ready = list_is_first(&node->entry, &q->run) ? NULL :
				       list_prev_entry(node, entry);
	} else if (delayq_due(q, deadline)) {
		delayq_count(q, DELAYQ_STAT_EXPIRED);
	}
	if (node->state == DELAYQ_CASCADE)
		delayq_cascade_del(q, node);
	else if (node->state == DELAYQ_RUN || node->state == DELAYQ_RUN_READY)
		list_del(&node->entry);
	else
		rb_erase_cached(&node->rb, &q->tree);
	q->n--;
}

/*
 * Empty cascade slot @slot of level @lvl, whose time has come at grain
 * q->next_grain: re-place its nodes on lower levels, or, at level 0, link
 * them into the sorted part. At most *@budget nodes. Return: true if it is empty.
 */
static bool delayq_empty_slot(struct tempo_delayq *q, unsigned int lvl, unsigned int slot,
			      unsigned int *budget)
{
	struct list_head *head = &q->cascade[lvl][slot];
	struct tempo_delayq_node *node;

	if (!(q->occupied[lvl] & BIT_ULL(slot)))
		return true;
	while (!list_empty(head)) {
		if (!*budget)
			return false;
		(*budget)--;
		node = list_first_entry(head, struct tempo_delayq_node, entry);
		list_del(&node->entry);
		/* Its grain is within 64^lvl of q->next_grain: a lower level. */
		if (lvl)
			delayq_cascade_add(q, node);
		else
			delayq_sort_in(q, node);
	}
	q->occupied[lvl] &= ~BIT_ULL(slot);
	return true;
}

/*
 * Empty the slots whose time has come at grain T = q->next_grain: the coarse
 * ones first, then T's level-0 slot, where a coarse slot's nodes of grain T
 * land. Return: false if *@budget ran out first.
 */
static bool delayq_empty_due(struct tempo_delayq *q, unsigned int *budget)
{
	s64 t = q->next_grain;
	unsigned int lvl, shift;

	for (lvl = DQ_LEVELS - 1; lvl > 0; lvl--) {
		shift = lvl * DQ_LVL_BITS;
		if (t & (BIT_ULL(shift) - 1))
			continue;
		if (!delayq_empty_slot(q, lvl, (t >> shift) & DQ_SLOT_MASK, budget))
			return false;
	}
	return delayq_empty_slot(q, 0, t & DQ_SLOT_MASK, budget);
}

/*
 * The first grain at or after q->next_grain at which a slot that is not empty
 * is emptied: per level, the first slot of the rotated occupancy mask.
 */
static s64 delayq_next_work(const struct tempo_delayq *q)
{
	s64 work = DQ_NEVER, block;
	unsigned int lvl, shift;

	for (lvl = 0; lvl < DQ_LEVELS; lvl++) {
		if (!q->occupied[lvl])
			continue;
		shift = lvl * DQ_LVL_BITS;
		/* The first 64^lvl-aligned block starting at or after next_grain. */
		block = (q->next_grain + BIT_ULL(shift) - 1) >> shift;
		block += tempo_occupancy_next(q->occupied[lvl], block & DQ_SLOT_MASK);
		work = min(work, block << shift);
	}
	return work;
}

/*
 * The first time a node the cascade holds can be due, if the slots emptied at
 * grain q->next_work (not DQ_NEVER) hold it: the least deadline of that
 * grain's level-0 slot (q->cascade_min: exact, or early once nodes left it),
 * unless a coarser slot is emptied at that grain too, whose nodes may be due
 * from its start; the grain's start also when next_work is below the next
 * grain with work. No node of a later slot is due before that grain's end.
 */
ktime_t delayq_work_at(const struct tempo_delayq *q)
{
	s64 t = q->next_work;
	unsigned int lvl, shift;

	for (lvl = 1; lvl < DQ_LEVELS; lvl++) {
		shift = lvl * DQ_LVL_BITS;
		if (!(t & (BIT_ULL(shift) - 1)) &&
		    (q->occupied[lvl] & BIT_ULL((t >> shift) & DQ_SLOT_MASK)))
			return dq_time(t);
	}
	if (q->occupied[0] & BIT_ULL(t & DQ_SLOT_MASK))
		return max(dq_time(t), q->cascade_min[t & DQ_SLOT_MASK]);
	return dq_time(t);
}

/*
 * Sort up to grain @last: move q->next_grain past it, emptying the slots on
 * the way, at most @budget nodes moved. Return: true once q->next_grain is
 * past @last.
 */
bool delayq_advance(struct tempo_delayq *q, s64 last, unsigned int budget)
{
	while (q->next_grain <= last) {
		if (q->next_work > q->next_grain) {
			q->next_grain = min(last + 1, q->next_work);
			continue;
		}
		if (!delayq_empty_due(q, &budget))
			return false;
		q->next_grain++;
		q->next_work = delayq_next_work(q);
	}
	return true;
}

/*
 * Move q->next_grain past the latest reading where no slot is to be emptied
 * on the way: no node moves. The check inline, for put() and take().
 */
static inline void delayq_advance_free(struct tempo_delayq *q)
{
	s64 now_grain = dq_grain(q->now);

	if (q->next_grain <= now_grain)
		delayq_advance(q, now_grain, 0);
}

/* Has the clock passed a grain at which a slot is to be emptied? */
static bool delayq_behind(const struct tempo_delayq *q)
{
	return q->next_work <= dq_grain(q->now);
}

/* Is @node, the first sorted node, takeable? */
static bool delayq_takeable(const struct tempo_delayq *q, const struct tempo_delayq_node *node)
{
	return node && dq_grain(node->deadline) < q->next_grain && delayq_due(q, node->deadline);
}

/*
 * The node a consumer takes next: the first sorted node, if it is takeable,
 * reading the clock if the latest reading does not make it so; or NULL.
 * Within the critical section: moves q->next_grain on only where no slot is
 * to be emptied, so NULL may mean that the cascade is behind
 * (delayq_next_sorted()).
 */
static struct tempo_delayq_node *delayq_next(struct tempo_delayq *q)
{
	struct tempo_delayq_node *first = delayq_first(q);

	if (delayq_takeable(q, first))
		return first;
	delayq_clock(q);
	delayq_advance_free(q);
	first = delayq_first(q);
	return delayq_takeable(q, first) ? first : NULL;
}

/*
 * delayq_next(), catching up with the clock first if the cascade is behind
 * (the lock is dropped between steps): NULL only if nothing is due, or if
 * the queue was shut down meanwhile.
 */
struct tempo_delayq_node *delayq_next_sorted(struct tempo_delayq *q, unsigned long *flags)
	__must_hold(&q->wait.lock)
{
	struct tempo_delayq_node *node;

	while (!(node = delayq_next(q)) && delayq_behind(q) && !q->dead)
		delayq_catch_up(q, flags);
	return q->dead ? NULL : node;
}

/* Take @node, the takeable first sorted node. */
static void delayq_take_node(struct tempo_delayq *q, struct tempo_delayq_node *node)
{
	delayq_unlink(q, node, node->deadline);
	delayq_set_state(node, DELAYQ_IDLE);
	delayq_count(q, DELAYQ_STAT_TAKEN);
}

/*
 * The MONOTONIC instant at which the queue's clock reaches @t, by the
 * clock's offset now; no further ahead than the timer wheel takes. The
 * instant may lie beyond: after a REALTIME step back, or for any clock once a
 * consume() with TEMPO_DELAYQ_ALL moved an item not yet due to a later
 * deadline (AGAIN). The waker fires early there and is aimed again. A
 * MONOTONIC queue compares with q->now, a reading of its clock, first: @t
 * within reach of it is within reach of now.
 */
static ktime_t delayq_waker_mono(struct tempo_delayq *q, ktime_t t)
{
	u64 reach = tempo_timer_max_delay_ns();
	ktime_t mono = t, now;

	if (likely(q->clock == CLOCK_MONOTONIC)) {
		if (likely(!ktime_after(t, ktime_add_ns(q->now, reach))))
			return t;
	} else {
		mono = ktime_sub(t, tempo_clock_offset(q->clock));
	}
	now = ktime_get();
	if (ktime_after(mono, now) && ktime_to_ns(ktime_sub(mono, now)) > reach)
		mono = ktime_add_ns(now, reach);
	return mono;
}

/*
 * The slack the waker is given for a window of @slack ns: none below
 * a tick, where delayq_waker_arm() aims at the window's end itself; from a
 * tick up, the window's, which the timer wheel aims at whole ticks.
 */
static u64 delayq_waker_timer_slack(u64 slack)
{
	return slack < tempo_timer_tick_ns() ? 0 : slack;
}

/*
 * Arm the waker for @at, a time nothing is takeable before, to fire in the
 * window [@at, @at + @user_slack] (or within a 64th of the timer wheel's tick
 * of @at, if that is more), whatever the delay: a FINE timer. Below a tick,
 * it is aimed at the window's end less tempo_timer_fine_ns(), with no slack:
 * it fires in the window's last 64th of a tick, as late as the window lets,
 * so that every node due by then is found by the one expiry (an hrtimer
 * with a range fires at its end likewise). The caller has checked that it
 * is not armed to fire by the end of that window already (q->waker_at +
 * q->waker_slack). @at is a time of the queue's clock, kept in q->waker_at;
 * the timer wheel gets its MONOTONIC instant (delayq_waker_mono()).
 */
static void delayq_waker_arm(struct tempo_delayq *q, ktime_t at, u64 user_slack)
{
	u64 slack = delayq_waker_timer_slack(user_slack), fine;
	ktime_t aim = at;

	if (!slack && user_slack) {
		fine = tempo_timer_fine_ns();
		if (user_slack > fine)
			aim = ktime_add_ns(at, user_slack - fine);
	}
	if (unlikely(slack != delayq_waker_timer_slack(q->waker_slack)))
		tempo_timer_set_slack(&q->waker, slack);
	if (WARN_ON_ONCE(tempo_timer_arm_at(&q->waker, TEMPO_CPU_LOCAL,
					    delayq_waker_mono(q, aim)) < 0))
		return;
	q->waker_at = at;
	q->waker_slack = user_slack;
}

/* What delayq_notify() asks delayq_unlock() to tell the watchers. */
enum delayq_news {
	DQ_NEWS_NONE,
	DQ_NEWS_EDGE,	/* an item became due: EPOLLIN | EPOLLRDNORM */
	DQ_NEWS_LOOK,	/* items may be due in slots nobody sorted: no key, look */
};

/* Does anybody wait: a consumer asleep, or a watcher? Under the lock. */
static bool delayq_waited(struct tempo_delayq *q)
{
	/*
	 * A consumer joins q->wait under the lock, before the notify that
	 * ends its pass; a watcher joins q->watch before it takes the lock in
	 * tempo_delayq_ready(), whose own notify then sees it: a watcher this
	 * waitqueue_active() misses looks for itself.
	 */
	return waitqueue_active(&q->wait) || waitqueue_active(&q->watch);
}

/*
 * The end of every critical section that may have changed the first sorted
 * node, the cascade or q->now. Ready: wake a consumer if none is woken. Behind
 * the clock (slots nobody has emptied may hold due items): arm the waker for
 * the next grain, to sort; if the waker ran out of moves already
 * (q->waker_short), have one of those who wait sort the rest in its own
 * context, a consumer asleep or else the watchers, once. Neither: arm the
 * waker for the first time the queue may become ready. The waker only if
 * anybody waits. Return: what delayq_unlock() tells the watchers.
 */
static enum delayq_news delayq_notify(struct tempo_delayq *q)
{
	struct tempo_delayq_node *first = delayq_first(q);
	bool ready = delayq_takeable(q, first), edge;
	ktime_t at = KTIME_MAX;
	u64 slack = 0;

	lockdep_assert_held(&q->wait.lock);
	if (q->dead)
		return DQ_NEWS_NONE;
	edge = ready && !q->ready;
	q->ready = ready;
	if (ready) {
		/* The watchers hear of it as an edge: a later look is asked anew. */
		q->look_asked = false;
		/* One consumer: delayq_waiter_wake() sets q->woken if it selects one. */
		if (!q->woken && waitqueue_active(&q->wait))
			wake_up_locked(&q->wait);
		return edge ? DQ_NEWS_EDGE : DQ_NEWS_NONE;
	}
	if (!delayq_behind(q)) {
		q->waker_short = false;
		q->look_asked = false;
	} else if (!q->waker_short) {
		/* Behind the clock: the waker sorts what it may at the next grain. */
		at = ktime_add_ns(q->now, 1);
	} else {
		/* The waker could not sort it all: whoever waits does, once. */
		if (waitqueue_active(&q->wait)) {
			if (!q->woken)
				wake_up_locked(&q->wait);
		} else if (!q->look_asked) {
			/* The watchers look (tempo_delayq_ready()) and sort. */
			q->look_asked = true;
			return DQ_NEWS_LOOK;
		}
		return DQ_NEWS_NONE;
	}
	/* Nobody to wake: whoever comes next looks for itself. */
	if (!delayq_waited(q))
		return DQ_NEWS_NONE;
	if (at == KTIME_MAX) {
		if (first)
			at = first->deadline;
		if (q->next_work != DQ_NEVER)
			at = min(at, delayq_work_at(q));
		/* Nothing is due: every node's window holds [at, at + slack]. */
		slack = q->slack;
	}
	/* Armed to fire by that window's end already: nothing to do. */
	if (at != KTIME_MAX &&
	    (q->waker_at == KTIME_MAX ||
	     ktime_before(ktime_add_ns(at, slack), ktime_add_ns(q->waker_at, q->waker_slack))))
		delayq_waker_arm(q, at, slack);
	return DQ_NEWS_NONE;
}

/* Leave a critical section: notify, unlock, and tell the watchers what it found. */
void delayq_unlock(struct tempo_delayq *q, unsigned long flags)
	__releases(&q->wait.lock)
{
	enum delayq_news news = delayq_notify(q);

	if (unlikely(q->wakes))
		delayq_alarm_aim(q);
	spin_unlock_irqrestore(&q->wait.lock, flags);
	/*
	 * No barrier: a watcher adds itself to q->watch before it takes the
	 * lock in tempo_delayq_ready(), so either it saw the edge there or our
	 * critical section came after its, and we see it here.
	 */
	if (news == DQ_NEWS_NONE || !waitqueue_active(&q->watch))
		return;
	wake_up_poll(&q->watch, news == DQ_NEWS_EDGE ? EPOLLIN | EPOLLRDNORM : 0);
}

/*
 * Leave a critical section, but wake nobody: a caller that holds a lock of
 * its own moves an item and tells the waiters later (tempo_delayq_announce()).
 * Where delayq_notify() would wake someone (an item takeable that was not,
 * or a look to ask while behind after the waker ran short) nothing of it is
 * done, so that the next notify, the announce's, finds it still to do;
 * otherwise it only arms the waker, as it would. Return: true when the caller
 * must announce.
 */
bool delayq_unlock_quiet(struct tempo_delayq *q, unsigned long flags)
	__releases(&q->wait.lock)
{
	bool ready = !q->dead && delayq_takeable(q, delayq_first(q));
	bool later = ready ? !q->ready : !q->dead && delayq_behind(q) && q->waker_short;

	if (!later && !ready)
		delayq_notify(q);	/* not ready, not short: at most the waker is armed */
	if (unlikely(q->wakes))
		delayq_alarm_aim(q);
	spin_unlock_irqrestore(&q->wait.lock, flags);
	return later;
}

/*
 * The waker: an IRQ timer's callback, in the timer wheel's interrupt on the
 * CPU it was armed on, with interrupts off (the queue's lock is always
 * taken with them off), which runs every IRQ callback of that CPU in turn.
 * Read the clock and sort at most DQ_WAKER_MOVES nodes; delayq_unlock()
 * wakes a consumer if an item is takeable now, has those who wait sort the
 * rest in their own context if the cascade is still behind (q->waker_short),
 * or arms the waker again. So one expiry of a queue's waker costs the
 * interrupt a bounded amount of work, whatever the queue holds. destroy()
 * shuts the waker down once the queue is dead (nothing arms it then), before
 * it frees @q.
 */
void delayq_waker_fired(struct tempo_timer *timer)
{
	struct tempo_delayq *q = container_of(timer, struct tempo_delayq, waker);
	unsigned long flags;

	spin_lock_irqsave(&q->wait.lock, flags);
	q->waker_at = KTIME_MAX;
	delayq_clock(q);
	q->waker_short = !delayq_advance(q, dq_grain(q->now), DQ_WAKER_MOVES);
	delayq_unlock(q, flags);
}

/* Under the lock, @now the caller's reading: put @node for @deadline. */
static int delayq_put_locked(struct tempo_delayq *q, struct tempo_delayq_node *node,
			     ktime_t deadline, ktime_t now)
{
	lockdep_assert_held(&q->wait.lock);
	if (unlikely(q->dead))
		return -ESHUTDOWN;
	if (unlikely(READ_ONCE(node->state) != DELAYQ_IDLE))
		return -EBUSY;
	if (ktime_after(deadline, now) &&
	    ktime_to_ns(ktime_sub(deadline, now)) > tempo_timer_max_delay_ns())
		return -ERANGE;
	WRITE_ONCE(node->q, q);
	node->deadline = deadline;
	node->seq = q->seq++;
	delayq_link(q, node);
	delayq_count(q, DELAYQ_STAT_PUT);
	return 0;
}

/*
 * put_many(), or put() of a delay (@relative: @when[] are nanoseconds from
 * now): one clock reading and one critical section for the batch. @mono, a
 * constant: a MONOTONIC queue, whose clock is read before the lock; another
 * clock is read under it ("Clocks").
 */
static __always_inline unsigned int __delayq_put(struct tempo_delayq *q,
						 struct tempo_delayq_node *const *nodes,
						 const ktime_t *when, unsigned int n,
						 bool relative, bool mono, int *errp)
{
	ktime_t now = mono ? ktime_get() : 0;
	unsigned long flags;
	unsigned int i;
	int err = 0;

	spin_lock_irqsave(&q->wait.lock, flags);
	if (mono) {
		if (ktime_after(now, q->now))
			q->now = now;
	} else {
		now = tempo_clock_read(q->clock);
		delayq_set_now(q, now);
	}
	/* Only where no slot is to be emptied: a put moves no other node. */
	delayq_advance_free(q);
	for (i = 0; i < n; i++) {
		err = delayq_put_locked(q, nodes[i],
					relative ? ktime_add_ns(now, when[i]) : when[i], now);
		if (err)
			break;
	}
	delayq_unlock(q, flags);
	*errp = err;
	return i;
}

/* Another clock than MONOTONIC: out of line, so MONOTONIC's path stays as it was. */
static noinline unsigned int delayq_put_clock(struct tempo_delayq *q,
					      struct tempo_delayq_node *const *nodes,
					      const ktime_t *when, unsigned int n,
					      bool relative, int *errp)
{
	return __delayq_put(q, nodes, when, n, relative, false, errp);
}

static __always_inline unsigned int delayq_put(struct tempo_delayq *q,
					       struct tempo_delayq_node *const *nodes,
					       const ktime_t *when, unsigned int n,
					       bool relative, int *errp)
{
	if (unlikely(q->clock != CLOCK_MONOTONIC))
		return delayq_put_clock(q, nodes, when, n, relative, errp);
	return __delayq_put(q, nodes, when, n, relative, true, errp);
}

/**
 * tempo_delayq_put_at() - queue an item until an absolute deadline
 * @q: the queue
 * @node: the item's node, initialised and not queued
 * @deadline: CLOCK_MONOTONIC time (ktime_get()) from which it may be taken
 *
 * A deadline already past makes the item takeable at once.
 *
 * Context: any context except NMI; does not sleep.
 * Return: 0 on success; -EBUSY if @node is queued (here or elsewhere);
 * -ESHUTDOWN if @q is shut down; -ERANGE if the deadline is beyond
 * tempo_timer_max_delay_ns() from now. On error @node is not queued.
 */
int tempo_delayq_put_at(struct tempo_delayq *q, struct tempo_delayq_node *node,
			ktime_t deadline)
{
	int err;

	delayq_put(q, &node, &deadline, 1, false, &err);
	return err;
}
EXPORT_SYMBOL_NS_GPL(tempo_delayq_put_at, "TEMPO");

/**
 * tempo_delayq_put_many() - queue a batch of items under one lock
 * @q: the queue
 * @nodes: the items' nodes, each initialised and not queued
 * @deadlines: each item's deadline, as for tempo_delayq_put_at()
 * @n: how many
 * @errp: out: 0, or the error of the first item not queued
 *
 * As tempo_delayq_put_at() on each item in turn, stopping at the first that
 * fails, with one lock round trip and one clock reading for the batch.
 *
 * Context: any context except NMI; does not sleep; interrupts are off for
 * O(@n log queued): keep @n bounded (a caller's chunk).
 * Return: the number of items queued, nodes[0..ret); if fewer than @n,
 * *@errp is what tempo_delayq_put_at() would have returned for nodes[ret],
 * which is not queued, nor is any after it.
 */
unsigned int tempo_delayq_put_many(struct tempo_delayq *q,
				   struct tempo_delayq_node *const *nodes,
				   const ktime_t *deadlines, unsigned int n, int *errp)
{
	return delayq_put(q, nodes, deadlines, n, false, errp);
}
EXPORT_SYMBOL_NS_GPL(tempo_delayq_put_many, "TEMPO");

/**
 * tempo_delayq_put() - queue an item for a delay
 * @q: the queue
 * @node: the item's node, initialised and not queued
 * @delay_ns: nanoseconds from now until the item may be taken; 0 is "now"
 *
 * Context: any context except NMI; does not sleep.
 * Return: as tempo_delayq_put_at(); -ERANGE if @delay_ns exceeds
 * tempo_timer_max_delay_ns().
 */
int tempo_delayq_put(struct tempo_delayq *q, struct tempo_delayq_node *node,
		     u64 delay_ns)
{
	ktime_t delay = delay_ns;
	int err;

	if (delay_ns > tempo_timer_max_delay_ns())
		return -ERANGE;
	delayq_put(q, &node, &delay, 1, true, &err);
	return err;
}
EXPORT_SYMBOL_NS_GPL(tempo_delayq_put, "TEMPO");

/* What tempo_delayq_consume() was asked to do, and what it did. */
struct delayq_consumer {
	tempo_delayq_consume_fn	fn;
	void			*arg;
	unsigned int		max;	/* > 0 */
	bool			all;	/* TEMPO_DELAYQ_ALL: due or not */
	unsigned int		n;	/* TAKE and AGAIN verdicts */
};

/*
 * The first node, due or not: sorted ahead until the first sorted node comes
 * before every cascade node, DQ_STEP nodes per critical section (the lock is
 * dropped between). NULL if the queue is empty.
 */
struct tempo_delayq_node *delayq_first_ahead(struct tempo_delayq *q, unsigned long *flags)
	__must_hold(&q->wait.lock)
{
	struct tempo_delayq_node *first;

	for (;;) {
		first = delayq_first(q);
		if ((first && dq_grain(first->deadline) < q->next_grain) ||
		    q->next_work == DQ_NEVER)
			return first;
		if (!delayq_advance(q, q->next_work, DQ_STEP))
			delayq_relock(q, flags);
	}
}

/* The next node to show a consumer: the first due one, or with @c->all the first. */
static struct tempo_delayq_node *delayq_consumer_next(struct tempo_delayq *q,
						      struct delayq_consumer *c,
						      unsigned long *flags)
	__must_hold(&q->wait.lock)
{
	if (!c->all)
		return delayq_next_sorted(q, flags);
	return q->dead ? NULL : delayq_first_ahead(q, flags);
}

/*
 * Show @c->fn the due nodes (@c->all: every node), earliest first (as take()
 * takes them), and apply its verdicts: at most @c->max TAKE or AGAIN, up to
 * the first STOP. Every node due is shown, wherever in the cascade it was:
 * where the next node is not takeable and the cascade is behind the clock, the
 * slots whose time has come are sorted in first (delayq_next_sorted(), which
 * drops the lock between steps; delayq_first_ahead() likewise for
 * @c->all); else one node follows the other in one critical section. An
 * AGAIN node is linked again by its new deadline, and is shown again if that
 * is due (@c->all: if it is still the first) and @c->max allows. Return:
 * false if nothing was due (@c->fn was not called).
 */
static bool delayq_consume_locked(struct tempo_delayq *q, struct delayq_consumer *c,
				  unsigned long *flags)
	__must_hold(&q->wait.lock)
{
	struct tempo_delayq_node *node = delayq_consumer_next(q, c, flags);
	unsigned int n = 0;
	bool shown = false;

	for (; n < c->max && node; node = delayq_consumer_next(q, c, flags)) {
		ktime_t linked = node->deadline;
		enum tempo_delayq_verdict verdict;

		shown = true;
		verdict = c->fn(node, q->now, c->arg);
		if (verdict == TEMPO_DELAYQ_STOP) {
			if (WARN_ON_ONCE(node->deadline != linked))
				node->deadline = linked;
			break;
		}
		delayq_unlink(q, node, linked);
		if (verdict == TEMPO_DELAYQ_AGAIN) {
			WARN_ON_ONCE(!ktime_after(node->deadline, linked));
			/* After the items of its new deadline put before now. */
			node->seq = q->seq++;
			delayq_link(q, node);
			delayq_count(q, DELAYQ_STAT_REQUEUED);
		} else {
			WARN_ON_ONCE(verdict != TEMPO_DELAYQ_TAKE);
			delayq_set_state(node, DELAYQ_IDLE);
			delayq_count(q, DELAYQ_STAT_TAKEN);
		}
		n++;
	}
	c->n = n;
	return shown;
}

/* A consumer's wait entry, and the queue whose wake-ups select it. */
struct delayq_waiter {
	struct wait_queue_entry	wait;
	struct tempo_delayq	*q;
};

/* autoremove_wake_function(), and a consumer selected marks q->woken. */
static int delayq_waiter_wake(struct wait_queue_entry *wait, unsigned int mode, int sync,
			      void *key)
{
	struct delayq_waiter *w = container_of(wait, struct delayq_waiter, wait);
	int ret = autoremove_wake_function(wait, mode, sync, key);

	if (ret)
		w->q->woken = true;
	return ret;
}

/*
 * Sleep as an exclusive waiter until an item is due, then take it (@c NULL),
 * or consume (@c). @end is the caller's absolute timeout, or NULL for none.
 * Return: the node taken, NULL when @c consumed, or an ERR_PTR().
 *
 * Each pass checks, in one critical section (after catching up with the
 * clock, delayq_next_sorted()): shutdown, an item (take or consume it), then,
 * after setting TASK_INTERRUPTIBLE so that a signal or
 * kthread_stop() between the check and schedule() is not lost:
 * kthread_stop(), a signal, the timeout. kthread_stop() comes before signals
 * because it sets TIF_NOTIFY_SIGNAL, which signal_pending() reports. The
 * wait entry is off the queue while a pass runs, so the wake-up that
 * delayq_unlock() gives for what it leaves due goes to another consumer.
 */
static struct tempo_delayq_node *delayq_wait(struct tempo_delayq *q, ktime_t *end,
					     struct delayq_consumer *c)
{
	struct delayq_waiter w = { .q = q };
	struct tempo_delayq_node *node = NULL;
	unsigned long flags;
	int err;

	spin_lock_irqsave(&q->wait.lock, flags);
	/* Takeable by the latest reading: taken without a wait entry. */
	node = c || q->dead ? NULL : delayq_first(q);
	if (delayq_takeable(q, node)) {
		delayq_take_node(q, node);
		delayq_unlock(q, flags);
		return node;
	}
	node = NULL;
	init_waitqueue_func_entry(&w.wait, delayq_waiter_wake);
	w.wait.private = current;
	INIT_LIST_HEAD(&w.wait.entry);
	q->nwaiters++;
	for (;;) {
		err = -ESHUTDOWN;
		if (q->dead)
			break;
		err = 0;
		if (c) {
			if (delayq_consume_locked(q, c, &flags))
				break;
		} else {
			node = delayq_next_sorted(q, &flags);
			if (node) {
				delayq_take_node(q, node);
				break;
			}
		}
		/* Shut down while the pass caught up with the clock. */
		err = -ESHUTDOWN;
		if (q->dead)
			break;
		__add_wait_queue_entry_tail_exclusive(&q->wait, &w.wait);
		set_current_state(TASK_INTERRUPTIBLE);
		/* First: kthread_stop() also makes signal_pending() true. */
		err = -EINTR;
		if ((current->flags & PF_KTHREAD) && kthread_should_stop())
			break;
		err = -ERESTARTSYS;
		if (signal_pending(current))
			break;
		err = -ETIMEDOUT;
		if (end && !ktime_before(ktime_get(), *end))
			break;

		/* The pass may have sorted nodes in: the waker is armed for them. */
		delayq_unlock(q, flags);
		if (end)
			schedule_hrtimeout(end, HRTIMER_MODE_ABS);
		else
			schedule();
		spin_lock_irqsave(&q->wait.lock, flags);
		if (list_empty(&w.wait.entry)) {
			/* delayq_waiter_wake() selected us. */
			q->woken = false;
			delayq_count(q, DELAYQ_STAT_WAKEUPS);
		} else {
			list_del_init(&w.wait.entry);
		}
	}
	__set_current_state(TASK_RUNNING);
	if (!list_empty(&w.wait.entry))
		list_del_init(&w.wait.entry);
	q->nwaiters--;
	/* destroy() waits for the last consumer to leave a dead queue. */
	if (q->dead && !q->nwaiters)
		wake_up_all_locked(&q->wait);
	delayq_unlock(q, flags);
	return err ? ERR_PTR(err) : node;
}

/**
 * tempo_delayq_take() - take the earliest due item, sleeping until there is one
 * @q: the queue
 *
 * Sleeps as an exclusive waiter. An interrupted take loses nothing: the item
 * stays for the next consumer.
 *
 * Context: process context; sleeps interruptibly. Do not hold locks.
 * Return: the item's node, now the caller's; or ERR_PTR(-ERESTARTSYS) on a
 * signal, ERR_PTR(-EINTR) when the calling kthread is being stopped
 * (kthread_stop()), ERR_PTR(-ESHUTDOWN) once @q is shut down.
 */
struct tempo_delayq_node *tempo_delayq_take(struct tempo_delayq *q)
{
	might_sleep();
	return delayq_wait(q, NULL, NULL);
}
EXPORT_SYMBOL_NS_GPL(tempo_delayq_take, "TEMPO");

/**
 * tempo_delayq_take_timeout() - tempo_delayq_take() with the caller's own timeout
 * @q: the queue
 * @timeout_ns: longest wait (an hrtimer sleep), in nanoseconds; 0 does not sleep
 *
 * Context: process context; sleeps interruptibly. Do not hold locks.
 * Return: as tempo_delayq_take(), or ERR_PTR(-ETIMEDOUT) if no item became
 * due in time.
 */
struct tempo_delayq_node *tempo_delayq_take_timeout(struct tempo_delayq *q,
						    u64 timeout_ns)
{
	ktime_t end = ktime_add_ns(ktime_get(), min_t(u64, timeout_ns, KTIME_MAX / 2));

	might_sleep();
	return delayq_wait(q, &end, NULL);
}
EXPORT_SYMBOL_NS_GPL(tempo_delayq_take_timeout, "TEMPO");

/**
 * tempo_delayq_try_take() - take the earliest due item if there is one
 * @q: the queue
 *
 * Context: any context except NMI; does not sleep.
 * Return: the item's node, now the caller's; ERR_PTR(-EAGAIN) if no item is
 * due; ERR_PTR(-ESHUTDOWN) once @q is shut down. Never NULL.
 */
struct tempo_delayq_node *tempo_delayq_try_take(struct tempo_delayq *q)
{
	struct tempo_delayq_node *node;
	unsigned long flags;

	spin_lock_irqsave(&q->wait.lock, flags);
	if (unlikely(q->dead)) {
		node = ERR_PTR(-ESHUTDOWN);
	} else {
		node = delayq_next_sorted(q, &flags);
		if (node)
			delayq_take_node(q, node);
		else
			node = ERR_PTR(q->dead ? -ESHUTDOWN : -EAGAIN);
	}
	delayq_unlock(q, flags);
	return node;
}
EXPORT_SYMBOL_NS_GPL(tempo_delayq_try_take, "TEMPO");

/**
 * tempo_delayq_take_many() - take up to @max due items at once
 * @q: the queue
 * @nodes: receives the nodes, in the order take() would return them
 * @max: size of @nodes
 *
 * Every item due at the call, up to @max: one critical section, the batch
 * contiguous in that order, unless items due must first be sorted in from
 * the cascade (the lock is dropped between those steps). It takes only items
 * that are due; it never waits.
 *
 * Context: any context except NMI; does not sleep. The lock is held for
 * O(@max log queued): keep @max modest in atomic context.
 * Return: the number of nodes stored (0 if none is due), or -ESHUTDOWN once
 * @q is shut down.
 */
int tempo_delayq_take_many(struct tempo_delayq *q, struct tempo_delayq_node **nodes,
			   unsigned int max)
{
	struct tempo_delayq_node *node;
	unsigned long flags;
	unsigned int n = 0;

	max = min_t(unsigned int, max, INT_MAX);
	spin_lock_irqsave(&q->wait.lock, flags);
	if (unlikely(q->dead)) {
		delayq_unlock(q, flags);
		return -ESHUTDOWN;
	}
	for (node = delayq_next_sorted(q, &flags); n < max && node;
	     node = delayq_next_sorted(q, &flags)) {
		delayq_take_node(q, node);
		nodes[n++] = node;
	}
	if (!n && q->dead) {
		delayq_unlock(q, flags);
		return -ESHUTDOWN;
	}
	delayq_unlock(q, flags);
	return n;
}
EXPORT_SYMBOL_NS_GPL(tempo_delayq_take_many, "TEMPO");

/**
 * tempo_delayq_consume() - take items with a verdict decided under the queue's lock
 * @q: the queue
 * @fn: shown each takeable item, with when the queue found it due; decides
 *	its fate (see &typedef tempo_delayq_consume_fn)
 * @arg: passed to @fn
 * @max: at most this many TAKE or AGAIN verdicts; 0 returns 0 at once
 * @flags: 0, or TEMPO_DELAYQ_WAIT to sleep until an item is takeable, or
 *	TEMPO_DELAYQ_ALL to be shown every item queued, due or not
 *
 * Shows @fn the takeable items one at a time, in the order take() would
 * take them, every item due at the call up to @max, in one critical section
 * that applies each verdict, unless items due must first be sorted in from
 * the cascade (the lock is dropped between those steps, never while @fn is
 * shown an item):
 * TEMPO_DELAYQ_TAKE takes it, TEMPO_DELAYQ_AGAIN keeps it queued for the
 * later deadline @fn set (shown again in this call if that is due already
 * and @max allows), TEMPO_DELAYQ_STOP leaves it queued as it was and ends
 * the call. With TEMPO_DELAYQ_WAIT, first sleeps as tempo_delayq_take()
 * does until an item is takeable. With TEMPO_DELAYQ_ALL, shows every item
 * in that order whether its deadline has passed or not, sorting ahead as
 * tempo_delayq_peek() does (to let go of a queue's items in order without
 * destroying it: a flush); an AGAIN item is shown again while it is the
 * first.
 *
 * Context: without TEMPO_DELAYQ_WAIT, any context except NMI, does not
 * sleep, and holds the lock for O(@max) calls of @fn: keep @max modest in
 * atomic context. With it, process context; sleeps interruptibly. @fn runs
 * with the queue's lock held and interrupts off.
 * Return: the number of TAKE and AGAIN verdicts (0 if the first item was
 * answered STOP); -EAGAIN if nothing is takeable and TEMPO_DELAYQ_WAIT is not
 * set; -ERESTARTSYS on a signal and -EINTR when the calling kthread is being
 * stopped, while waiting; -ESHUTDOWN once @q is shut down; -EINVAL for an
 * unknown flag, or TEMPO_DELAYQ_WAIT with TEMPO_DELAYQ_ALL.
 */
int tempo_delayq_consume(struct tempo_delayq *q, tempo_delayq_consume_fn fn, void *arg,
			 unsigned int max, unsigned int flags)
{
	struct delayq_consumer c = {
		.fn = fn,
		.arg = arg,
		.max = min_t(unsigned int, max, INT_MAX),
		.all = flags & TEMPO_DELAYQ_ALL,
	};
	struct tempo_delayq_node *waited;
	unsigned long irqflags;
	int ret;

	if (flags & ~(TEMPO_DELAYQ_WAIT | TEMPO_DELAYQ_ALL) ||
	    (flags & TEMPO_DELAYQ_WAIT && c.all))
		return -EINVAL;
	if (!max)
		return 0;
	if (flags & TEMPO_DELAYQ_WAIT) {
		might_sleep();
		waited = delayq_wait(q, NULL, &c);
		return IS_ERR(waited) ? PTR_ERR(waited) : c.n;
	}
	spin_lock_irqsave(&q->wait.lock, irqflags);
	/* ALL: the reading shown as "due" is taken once, here (it may be early). */
	if (c.all)
		delayq_clock(q);
	if (unlikely(q->dead))
		ret = -ESHUTDOWN;
	else
		ret = delayq_consume_locked(q, &c, &irqflags) ? c.n :
		      q->dead ? -ESHUTDOWN : -EAGAIN;
	delayq_unlock(q, irqflags);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(tempo_delayq_consume, "TEMPO");

/**
 * tempo_delayq_remove_many() - remove a batch of items under one lock
 * @q: the queue
 * @nodes: the items' nodes
 * @n: how many
 * @removed: out: for each item, what tempo_delayq_remove() would return
 *
 * As tempo_delayq_remove() on each item in turn, with one lock round trip
 * for the batch. A node named twice is removed by the first and not found
 * by the second, as in turn.
 *
 * Context: any context except NMI; does not sleep; interrupts are off for
 * O(@n log queued): keep @n bounded (a caller's chunk).
 * Return: the number of items removed.
 */
unsigned int tempo_delayq_remove_many(struct tempo_delayq *q,
				      struct tempo_delayq_node *const *nodes,
				      unsigned int n, bool *removed)
{
	struct tempo_delayq_node *node;
	unsigned int i, count = 0;
	unsigned long flags;

	spin_lock_irqsave(&q->wait.lock, flags);
	for (i = 0; i < n; i++) {
		node = nodes[i];
		/* If the node is on @q, node->q is @q and stable under @q's lock. */
		removed[i] = READ_ONCE(node->q) == q && READ_ONCE(node->state) != DELAYQ_IDLE;
		if (!removed[i])
			continue;
		delayq_unlink(q, node, node->deadline);
		delayq_set_state(node, DELAYQ_IDLE);
		delayq_count(q, DELAYQ_STAT_REMOVED);
		count++;
	}
	delayq_unlock(q, flags);
	return count;
}
EXPORT_SYMBOL_NS_GPL(tempo_delayq_remove_many, "TEMPO");

/**
 * tempo_delayq_remove() - take an item out of the queue, due or not
 * @q: the queue
 * @node: the item's node
 *
 * O(log n). Racing with take*() or destroy(), exactly one of them gets the
 * node: whichever comes first under the queue's lock. On true the node is
 * the caller's: it may be freed or put again at once.
 *
 * Context: any context except NMI; does not sleep.
 * Return: true if this call removed the node (it was queued on @q); false
 * if it was not queued on @q (never put, taken, removed or handed back).
 */
bool tempo_delayq_remove(struct tempo_delayq *q, struct tempo_delayq_node *node)
{
	bool removed;

	tempo_delayq_remove_many(q, &node, 1, &removed);
	return removed;
}
EXPORT_SYMBOL_NS_GPL(tempo_delayq_remove, "TEMPO");

/**
 * tempo_delayq_requeue() - move a queued item to a new deadline
 * @q: the queue
 * @node: the item's node
 * @deadline: its new deadline, as for tempo_delayq_put_at()
 * @fn: if not NULL, called with @node and @arg once it is known queued,
 *	before it waits for @deadline (see &typedef tempo_delayq_requeue_fn)
 * @arg: passed to @fn
 *
 * As tempo_delayq_remove() and tempo_delayq_put_at() of the item, in one
 * critical section: no call finds the item out of the queue in between,
 * and no consume() callback is shown it with @fn's changes before its new
 * deadline. It goes after the items of @deadline queued before the call.
 * Counted as requeued (as a consume() AGAIN), not as removed and put.
 *
 * Context: any context except NMI; does not sleep. O(log n).
 * Return: 0; -ENOENT if @node is not queued on @q; -ESHUTDOWN if @q is
 * shut down; -ERANGE if @deadline is beyond tempo_timer_max_delay_ns()
 * from now. On error nothing changes and @fn is not called.
 */
int tempo_delayq_requeue(struct tempo_delayq *q, struct tempo_delayq_node *node,
			 ktime_t deadline, tempo_delayq_requeue_fn fn, void *arg)
{
	/* The clock as delayq_put() reads it: a requeue is a put ("Clocks"). */
	bool mono = likely(q->clock == CLOCK_MONOTONIC);
	ktime_t now = mono ? ktime_get() : 0;
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&q->wait.lock, flags);
	if (!mono)
		now = tempo_clock_read(q->clock);
	delayq_set_now(q, now);
	delayq_advance_free(q);
	if (unlikely(q->dead))
		err = -ESHUTDOWN;
	else if (READ_ONCE(node->q) != q || READ_ONCE(node->state) == DELAYQ_IDLE)
		err = -ENOENT;
	else if (ktime_after(deadline, now) &&
		 ktime_to_ns(ktime_sub(deadline, now)) > tempo_timer_max_delay_ns())
		err = -ERANGE;
	if (!err) {
		delayq_unlink(q, node, node->deadline);
		if (fn)
			fn(node, arg);
		node->deadline = deadline;
		/* After the items of its new deadline put before now. */
		node->seq = q->seq++;
		delayq_link(q, node);
		delayq_count(q, DELAYQ_STAT_REQUEUED);
	}
	delayq_unlock(q, flags);
	return err;
}
EXPORT_SYMBOL_NS_GPL(tempo_delayq_requeue, "TEMPO");

/**
 * tempo_delayq_move() - put, move or take out an item, waking nobody
 * @q: the queue
 * @node: the item's node, queued on @q or not queued
 * @deadline: its deadline, as for tempo_delayq_put_at(); KTIME_MAX: take it
 *	out if it is queued
 * @announce: out: true if the caller must call tempo_delayq_announce(@q)
 *
 * As tempo_delayq_put_at() for a node not queued, tempo_delayq_requeue()
 * for a queued one, or tempo_delayq_remove() for KTIME_MAX, in one critical
 * section, with what a put, a requeue or a remove counts; but no consumer
 * and no watcher is woken: a caller holding a lock of its own moves the item
 * under it, and wakes whoever the move concerns once it has dropped its
 * locks, by tempo_delayq_announce(). Until then a consumer asleep may stay
 * asleep and a watcher may not hear of an item due; any other call on @q
 * that ends a critical section tells them too.
 *
 * Context: any context except NMI; does not sleep. O(log n).
 * Return: 0; -ESHUTDOWN if @q is shut down (a node is then only taken out);
 * -ERANGE if @deadline is beyond tempo_timer_max_delay_ns() from now. On
 * error nothing changes.
 */
int tempo_delayq_move(struct tempo_delayq *q, struct tempo_delayq_node *node,
		      ktime_t deadline, bool *announce)
{
	/* The clock as delayq_put() reads it: a move is a put ("Clocks"). */
	bool mono = likely(q->clock == CLOCK_MONOTONIC);
	ktime_t now = mono ? ktime_get() : 0;
	unsigned long flags;
	bool queued;
	int err = 0;

	spin_lock_irqsave(&q->wait.lock, flags);
	if (!mono)
		now = tempo_clock_read(q->clock);
	delayq_set_now(q, now);
	delayq_advance_free(q);
	/* If the node is on @q, node->q is @q and stable under @q's lock. */
	queued = READ_ONCE(node->q) == q && READ_ONCE(node->state) != DELAYQ_IDLE;
	if (deadline == KTIME_MAX) {
		if (queued) {
			delayq_unlink(q, node, node->deadline);
			delayq_set_state(node, DELAYQ_IDLE);
			delayq_count(q, DELAYQ_STAT_REMOVED);
		}
	} else if (unlikely(q->dead)) {
		err = -ESHUTDOWN;
	} else if (!queued) {
		err = delayq_put_locked(q, node, deadline, now);
	} else if (ktime_after(deadline, now) &&
		   ktime_to_ns(ktime_sub(deadline, now)) > tempo_timer_max_delay_ns()) {
		err = -ERANGE;
	} else {
		delayq_unlink(q, node, node->deadline);
		node->deadline = deadline;
		/* After the items of its new deadline put before now. */
		node->seq = q->seq++;
		delayq_link(q, node);
		delayq_count(q, DELAYQ_STAT_REQUEUED);
	}
	*announce = delayq_unlock_quiet(q, flags);
	return err;
}
EXPORT_SYMBOL_NS_GPL(tempo_delayq_move, "TEMPO");

/**
 * tempo_delayq_announce() - tell the waiters what quiet moves left untold
 * @q: the queue
 *
 * What the critical section of a tempo_delayq_move() that asked for it
 * would have done at its end: wake one consumer if an item is takeable, the
 * watchers if that is an edge (with EPOLLIN | EPOLLRDNORM), or ask for a
 * look. Nothing if another call told them meanwhile.
 *
 * Context: any context except NMI, with no lock held that a waiter's
 * wake-up callback (epoll, io_uring) may take; does not sleep.
 */
void tempo_delayq_announce(struct tempo_delayq *q)
{
	unsigned long flags;

	spin_lock_irqsave(&q->wait.lock, flags);
	delayq_unlock(q, flags);
}
EXPORT_SYMBOL_NS_GPL(tempo_delayq_announce, "TEMPO");
