// SPDX-License-Identifier: GPL-2.0
/*
 * tempo delay queue: take() blocks until an item's delay has expired, and no
 * consumer ever does a timed wait to find out when that is.
 *
 * Model
 * -----
 * Every item embeds a struct tempo_delayq_node, which embeds a tempo timer.
 * put() arms the node's timer and links the node as pending. When the timer
 * fires, its callback (process context, tempo workqueue) moves the node to
 * the ready list, kept sorted by deadline, and wakes exactly one consumer
 * asleep in take(). take() pops the ready list's head. So the timer wheel
 * decides when an item is ready; consumers only ever wait for "the ready list
 * has a head they may take".
 *
 * Deadline order, as java's heap gives it
 * ---------------------------------------
 * Java's take() returns the heap's head once its delay has passed: expired
 * items leave strictly in deadline order. Two things stand between per-item
 * timers and that order, and each has its remedy here:
 *
 *  - Granularity. A long delay lands in a coarse wheel level and fires up to
 *    1/8 of its delay late (kmod/wheel.c), after items with later deadlines
 *    but finer levels. So only a node due within DQ_EXACT_TICKS ticks has
 *    its timer at its deadline, which level 0 serves to the tick. Any other
 *    node's timer is a stage, aimed to fire early enough whatever its level
 *    (delayq_stage_at()); its callback re-arms it closer. A node thus crosses
 *    at most one stage per wheel level, and every item fires within a tick of
 *    its deadline (plus the workqueue's latency). A pending node due within
 *    DQ_NEAR_TICKS ticks is "near", any other "far"; a far node's stages aim
 *    to make it near at least DQ_NEAR_TICKS / 2 ticks before its deadline.
 *  - Latency. Timers fire on the CPU that armed them, and one CPU's timer
 *    workqueue can lag another's (a busy or starved CPU). So a ready node may
 *    be taken only if no near node is due in an earlier tick: the release
 *    check, delayq_releasable(). Near nodes sit in per-tick buckets with an
 *    occupancy bitmap (a one-level wheel of DQ_NEAR_SLOTS slots), so the
 *    earliest pending tick is a few find-first-sets away. A ready node behind
 *    an earlier pending one is "held": no consumer is woken for it until the
 *    pending one leaves (expires or is removed), and then
 *    delayq_release_held() wakes one consumer per released node.
 *
 * What remains: items due in the same tick may leave in either order, and a
 * far node whose stage callback is held off for more than DQ_NEAR_TICKS / 2
 * ticks (96 ms at the default tick) is not in the release check until it
 * runs. Java's order is exact because its heap is ordered at every put, at
 * O(log n); here put, remove, take and expiry stay O(1).
 *
 * Why no timed waits: java.util.concurrent.DelayQueue
 * ---------------------------------------------------
 * DelayQueue keeps items in a binary heap under one lock with one Condition,
 * and every consumer computes the head's remaining delay itself:
 *
 *	take():
 *	  lock
 *	  for (;;)
 *	    first = q.peek()
 *	    if first == null:             available.await()
 *	    elif first.getDelay() <= 0:   return q.poll()
 *	    elif leader != null:          available.await()          // follower
 *	    else:  leader = me
 *	           available.awaitNanos(first.getDelay())            // leader
 *	           if leader == me: leader = null
 *	  finally: if leader == null && q.peek() != null: available.signal()
 *	  unlock
 *
 * Without the leader every waiting consumer would sleep in awaitNanos() on
 * the head's delay and all of them would wake when it expires (a herd, and a
 * timer per thread). The leader-follower variant lets one thread, the leader,
 * do the timed wait while the followers wait without a timeout; offer() of a
 * new head resets the leader and signals, and a leader that leaves (item
 * taken, interrupted) must signal a follower, which is the finally clause:
 * forget it and an item strands with consumers asleep.
 *
 * Here the timer wheel is the leader. Each item's own timer does the "timed
 * wait", in the wheel, at O(1) cost, and turns an expiry into one wake-up. No
 * consumer holds a timer, no consumer must hand a leadership over, and a new
 * earlier head needs no signal: its own timer fires first. Consumers sleep
 * as exclusive waiters (WQ_FLAG_EXCLUSIVE, at the tail, so FIFO) and each
 * expiry does wake_up_locked_poll(), which wakes all poll waiters plus ONE
 * exclusive waiter (__wake_up_common(nr_exclusive = 1)): one consumer woken
 * per ready item, no thundering herd.
 *
 * The remaining duty of Java's finally clause is the kernel's rule for
 * exclusive waiters (the comment in prepare_to_wait_event(), kernel/sched/
 * wait.c): a waiter selected by a wake-up must consume the condition or pass
 * the wake-up on. We meet it by construction: the queue's lock IS the wait
 * queue's lock (q->wait.lock, as timerfd does), an item is published and its
 * wake-up delivered in one critical section, and a consumer decides to leave
 * (signal, kthread_stop, timeout, shutdown) in the same critical section in
 * which it has just found the ready list empty. A wake-up that selected it
 * earlier came with an item it now sees and takes; a wake-up after it left
 * cannot select it. So there is no window in which a selected waiter leaves
 * with an item still ready, and no pass-on is needed; delayq_wait() asserts
 * this (WARN_ON_ONCE on leaving with an error while items are ready, outside
 * shutdown).
 *
 * A consumer-side timeout (take_timeout()) is the caller's own deadline, not
 * an item's: it sleeps with schedule_hrtimeout() on an absolute expiry.
 *
 * Node state machine (node->state, under q->wait.lock)
 * ----------------------------------------------------
 *
 *	                 put, deadline in future
 *	   IDLE ---------------------------------------> PENDING
 *	  TAKEN                                         |   |  \
 *	REMOVED -------------+ put, deadline passed     |   |   \ remove:
 *	   ^  ^              |                  expiry  |   |    \ cancel timer;
 *	   |  |              v                 callback |   |     \ if it was
 *	   |  |            READY <----------------------+   |      \ already
 *	   |  |             |  |                            |       \ firing:
 *	   |  +-- remove ---+  +-- take ---> TAKEN          |        \ stale
 *	   |                                                |         v
 *	   +--- destroy hand-back <--- DETACHED <-- destroy-+     REMOVED
 *	        (ready nodes too)      (timer cancel_sync'd)      (stale=1)
 *
 * IDLE, TAKEN and REMOVED are all "not queued": put() accepts them. TAKEN and
 * REMOVED only record how the node left. DETACHED is a node destroy() has
 * claimed and is cancelling; put() and remove() refuse it.
 *
 * Stale expiries. remove() runs in any context and cannot wait for a timer
 * callback. If tempo_timer_cancel() fails on a PENDING node, the wheel has
 * already claimed the expiry and the callback is on its way to the lock. The
 * node becomes REMOVED with node->stale set and q->nstale counted. The
 * callback then finds stale set, clears it (its last access to the node) and
 * does nothing else. While stale is set, put() refuses the node (-EBUSY) and
 * its memory must stay valid: tempo_delayq_node_sync() (cancel_sync) waits it
 * out, and destroy() waits for q->nstale to reach zero before freeing q.
 *
 * Invariants, whenever q->wait.lock is free:
 *  - a node is on q->far or a q->near bucket iff state == PENDING, and then
 *    its timer is armed or its callback is running (the callback moves it);
 *    node->near is 1 + its bucket, or 0 on q->far;
 *  - every near node's tick lies in [near_clk, near_clk + DQ_NEAR_SLOTS),
 *    in bucket tick % DQ_NEAR_SLOTS, and near_occupied marks the non-empty
 *    buckets;
 *  - the ready nodes a consumer may take (delayq_releasable()) are a prefix
 *    of q->ready; the other nheld nodes are its tail, from q->held, and no
 *    consumer was woken for them. Releasability only grows until the node
 *    is taken: a node that becomes pending is due after every ready node;
 *  - a node is on q->ready iff state == READY, and ktime_get() >= deadline
 *    held when it got there; q->ready is sorted by deadline, ties in the
 *    order the nodes became ready;
 *  - npending/nnear/nready count those lists; nstale counts stale nodes;
 *  - put = taken + removed + flushed + npending + nready (the counters);
 *  - once q->dead is set, take*() return -ESHUTDOWN and put() refuses, so
 *    items leave only through remove() or destroy()'s hand-back.
 *
 * What runs concurrently with what (all under q->wait.lock except where
 * marked; "-" means safe, a note says how)
 *
 *	          | expiry cb        | remove             | destroy
 *	put       | - (cb needs lock;| -                  | X (caller)
 *	          |  arm is in lock) |                    |
 *	take*     | - (cb publishes, | - (either claims   | - sleepers leave,
 *	          |  wakes one)      |  a READY node)     |   destroy waits
 *	remove    | - (stale flag,   | - (one claims)     | - (one claims)
 *	          |  see above)      |                    |
 *	expiry cb | - (per node: one | -                  | - DETACHED: cb does
 *	          |  at a time)      |                    |   nothing; destroy
 *	          |                  |                    |   cancel_sync's it
 *
 * Locks and ordering
 * ------------------
 * One spinlock, q->wait.lock, taken with interrupts disabled (put() and
 * remove() may come from hard interrupts). It orders everything in this file
 * but two accesses that happen without it:
 *  - node->stale is read by put() of a node last queued on ANOTHER queue,
 *    holding only the new queue's lock: smp_load_acquire() in
 *    delayq_node_busy() pairs with the smp_store_release() in
 *    delayq_expire(), which is the callback's last access to the node, so
 *    put()'s later writes to the node cannot race with it.
 *  - node->q is read by the callback before it takes the lock: put() wrote it
 *    before arming the timer, and the wheel's arm/expire hand-off (see
 *    kmod/wheel.c) orders the arm before the callback.
 * The timer is armed inside the lock (tempo_timer_arm_at() is lock-free and
 * callable from any context), so remove() and destroy() never see a PENDING
 * node whose timer is not armed yet.
 *
 * Costs: put O(1) (+ the wheel's O(1) arm), remove O(1), take O(1), expiry
 * O(1) when items expire in deadline order (insertion walks from the tail,
 * one step per later deadline already ready), plus one re-arm per stage for
 * a far node (at most one per wheel level; none below DQ_NEAR_TICKS).
 * Releasing held nodes costs one step per node released. peek is O(1) unless the
 * earliest pending item has left since the last peek with no item ready;
 * then it walks the pending list once, O(pending), under the lock:
 * peek is for diagnostics and poll-style "when", not for hot paths.
 *
 * Not guaranteed: order within one tick, and the far-node case above (see
 * include/tempo/delayq.h); fairness beyond the
 * FIFO order of exclusive waiters; anything after destroy() starts other
 * than for consumers already asleep in take().
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <uapi/linux/eventpoll.h>
#include <tempo/delayq.h>
#include <tempo/timer.h>

#include "internal.h"

enum delayq_state {
	DELAYQ_IDLE = 0,
	DELAYQ_PENDING,
	DELAYQ_READY,
	DELAYQ_TAKEN,
	DELAYQ_REMOVED,
	DELAYQ_DETACHED,
};

enum delayq_counter {
	DELAYQ_STAT_PUT,
	DELAYQ_STAT_EXPIRED,
	DELAYQ_STAT_TAKEN,
	DELAYQ_STAT_REMOVED,
	DELAYQ_STAT_FLUSHED,
	DELAYQ_STAT_WAKEUPS,
	DELAYQ_STAT_REARMED,
	DELAYQ_STAT_STAGED,
	DELAYQ_NR_STATS
};

/*
 * The near window: a node due within DQ_NEAR_TICKS ticks sits in the bucket of
 * its deadline's tick, so the earliest pending deadline is a find-first-set
 * over DQ_NEAR_WORDS words away (delayq_near_min()). DQ_NEAR_SLOTS -
 * DQ_NEAR_TICKS leaves room for near nodes whose expiry is late by that many
 * ticks. The window is wide (192 ms at the default tick) because a far node
 * joins the release check only when its stage callback runs, which is aimed
 * DQ_NEAR_TICKS / 2 ticks before its deadline: that is how late a starved
 * CPU's timer workqueue may be before order can suffer. Cost: 4 KiB of list
 * heads per queue.
 */
#define DQ_NEAR_TICKS	192
#define DQ_NEAR_SLOTS	256
#define DQ_EXACT_TICKS	32	/* < 63: the wheel's level 0 */
#define DQ_NEAR_WORDS	(DQ_NEAR_SLOTS / 64)

struct tempo_delayq {
	wait_queue_head_t	wait;		/* .lock protects all below */
	struct list_head	far;		/* PENDING, not near: put order */
	struct list_head	near[DQ_NEAR_SLOTS]; /* PENDING, by tick % slots */
	u64			near_occupied[DQ_NEAR_WORDS]; /* bit: near[i] non-empty */
	u64			near_clk;	/* <= tick of every near node */
	u64			tick_ns;	/* tempo_timer_tick_ns() */
	struct list_head	ready;		/* READY nodes, by deadline */
	unsigned int		npending;	/* far + near */
	unsigned int		nnear;
	unsigned int		nready;
	unsigned int		nheld;		/* ready, not yet releasable */
	struct tempo_delayq_node *held;		/* the first of them, or NULL */
	unsigned int		nstale;		/* removed, callback in flight */
	unsigned int		nwaiters;	/* consumers in delayq_wait() */
	ktime_t			pending_min;	/* earliest pending deadline... */
	bool			pending_min_valid; /* ...if this is set */
	bool			dead;		/* shutdown: take* fail */
	u64			count[DELAYQ_NR_STATS];
};

/* Module totals: per-CPU so that queues on different CPUs share no line. */
struct delayq_totals {
	u64	count[DELAYQ_NR_STATS];
};

static DEFINE_PER_CPU(struct delayq_totals, delayq_totals);
static atomic_t delayq_live = ATOMIC_INIT(0);

static const char * const delayq_counter_names[DELAYQ_NR_STATS] = {
	[DELAYQ_STAT_PUT]	= "put",
	[DELAYQ_STAT_EXPIRED]	= "expired",
	[DELAYQ_STAT_TAKEN]	= "taken",
	[DELAYQ_STAT_REMOVED]	= "removed",
	[DELAYQ_STAT_FLUSHED]	= "flushed",
	[DELAYQ_STAT_WAKEUPS]	= "wakeups",
	[DELAYQ_STAT_REARMED]	= "rearmed",
	[DELAYQ_STAT_STAGED]	= "staged",
};

/* Under q->wait.lock, so the queue's counter needs no atomics. */
static void delayq_count(struct tempo_delayq *q, enum delayq_counter c)
{
	q->count[c]++;
	this_cpu_inc(delayq_totals.count[c]);
}

static void delayq_lock_held(struct tempo_delayq *q)
{
	lockdep_assert_held(&q->wait.lock);
}

/* The deadlines are ktime_t (s64 ns of CLOCK_MONOTONIC): no wrap in 292 years. */
static bool delayq_node_before(const struct tempo_delayq_node *a,
			       const struct tempo_delayq_node *b)
{
	return ktime_before(a->deadline, b->deadline);
}

/*
 * Can @node not be put now? Called with the new queue's lock held, which is
 * also the node's queue's lock unless the node was last on another queue.
 */
static bool delayq_node_busy(const struct tempo_delayq_node *node)
{
	switch (READ_ONCE(node->state)) {
	case DELAYQ_IDLE:
	case DELAYQ_TAKEN:
	case DELAYQ_REMOVED:
		break;
	default:
		return true;
	}
	/* LMM(delayq_node_busy:A) Pairs with: delayq_expire:A. */
	return smp_load_acquire(&node->stale);
}

/* The tick of @t (CLOCK_MONOTONIC); times before boot count as tick 0. */
static u64 delayq_tick(const struct tempo_delayq *q, ktime_t t)
{
	return t > 0 ? div64_u64(t, q->tick_ns) : 0;
}

/*
 * Link @node into the near window, unless its tick lies beyond the window
 * (possible only while the earliest near node is overdue by more than
 * DQ_NEAR_SLOTS - DQ_NEAR_TICKS ticks). Every near node was due within
 * DQ_NEAR_TICKS of its insertion and @node is not overdue, so lowering
 * near_clk to @node's tick keeps every node inside the window.
 */
static bool delayq_near_add(struct tempo_delayq *q, struct tempo_delayq_node *node)
{
	u64 tick = delayq_tick(q, node->deadline);
	unsigned int idx = tick % DQ_NEAR_SLOTS;

	if (!q->nnear || tick < q->near_clk)
		q->near_clk = tick;
	else if (tick - q->near_clk >= DQ_NEAR_SLOTS)
		return false;
	list_add_tail(&node->entry, &q->near[idx]);
	q->near_occupied[idx / 64] |= BIT_ULL(idx % 64);
	q->nnear++;
	node->near = idx + 1;
	return true;
}

/*
 * The earliest tick of a near node, or U64_MAX. O(1): at most
 * DQ_NEAR_WORDS + 1 words, cyclically from near_clk's slot; near_clk moves
 * up to the answer (every near tick lies in the window from it).
 */
static u64 delayq_near_min(struct tempo_delayq *q)
{
	unsigned int start = q->near_clk % DQ_NEAR_SLOTS, w = start / 64, i;

	if (!q->nnear)
		return U64_MAX;
	for (i = 0; i <= DQ_NEAR_WORDS; i++) {
		unsigned int wi = (w + i) % DQ_NEAR_WORDS;
		u64 word = q->near_occupied[wi];

		if (i == 0)
			word &= ~0ULL << (start % 64);		/* from start on */
		else if (i == DQ_NEAR_WORDS)
			word &= ~(~0ULL << (start % 64));	/* wrapped: below start */
		if (word) {
			unsigned int slot = wi * 64 + __ffs64(word);

			q->near_clk += (slot - start) % DQ_NEAR_SLOTS;
			return q->near_clk;
		}
	}
	WARN_ON_ONCE(1);	/* nnear says a bucket is occupied */
	return U64_MAX;
}

/* Any near bucket's list, or NULL. */
static struct list_head *delayq_near_any(struct tempo_delayq *q)
{
	unsigned int i;

	for (i = 0; i < DQ_NEAR_WORDS; i++)
		if (q->near_occupied[i])
			return &q->near[i * 64 + __ffs64(q->near_occupied[i])];
	return NULL;
}

/* Is ready @node releasable: no pending node of an earlier tick is known? */
static bool delayq_releasable(struct tempo_delayq *q, const struct tempo_delayq_node *node)
{
	return !q->nnear || delayq_tick(q, node->deadline) <= delayq_near_min(q);
}

/* The ready head, if a consumer may take it now. */
static struct tempo_delayq_node *delayq_ready_head(struct tempo_delayq *q)
{
	struct tempo_delayq_node *node;

	node = list_first_entry_or_null(&q->ready, struct tempo_delayq_node, entry);
	return node && delayq_releasable(q, node) ? node : NULL;
}

/*
 * Where a pending node's timer goes, @left ticks before its deadline:
 * - below DQ_EXACT_TICKS (inside the wheel's level 0, which fires to the
 *   tick): at the deadline itself;
 * - near (below DQ_NEAR_TICKS): a stage aimed DQ_EXACT_TICKS / 2 ticks early;
 * - far: a stage aimed DQ_NEAR_TICKS / 2 ticks early, so the node joins the
 *   release check well before its deadline.
 * A stage aims early by the slack of the level its delay lands in too
 * (tempo_timer_slack_ns()), so it never fires late; each stage leaves at most
 * about 1/8 of the remaining delay, so a node crosses at most one stage per
 * wheel level. @exact is set when the timer is at the deadline.
 */
static ktime_t delayq_stage_at(struct tempo_delayq *q, ktime_t deadline, ktime_t now,
			       bool *exact)
{
	u64 left = ktime_sub(deadline, now), margin;

	*exact = left < DQ_EXACT_TICKS * q->tick_ns;
	if (*exact)
		return deadline;
	if (left < DQ_NEAR_TICKS * q->tick_ns)
		margin = DQ_EXACT_TICKS / 2 * q->tick_ns;
	else
		margin = DQ_NEAR_TICKS / 2 * q->tick_ns;
	return ktime_sub_ns(deadline, margin + tempo_timer_slack_ns(left - margin));
}

/* Arm @node's timer for its deadline (or its next stage) and make it PENDING. */
static int delayq_pending_add(struct tempo_delayq *q, struct tempo_delayq_node *node,
			      ktime_t now)
{
	bool exact;
	int err;

	delayq_lock_held(q);
	err = tempo_timer_arm_at(&node->timer, TEMPO_CPU_LOCAL,
				 delayq_stage_at(q, node->deadline, now, &exact));
	if (err < 0)
		return err;
	node->exact = exact;
	node->near = 0;
	if (ktime_sub(node->deadline, now) >= DQ_NEAR_TICKS * q->tick_ns ||
	    !delayq_near_add(q, node))
		list_add_tail(&node->entry, &q->far);
	/* An invalid minimum stays invalid: peek() recomputes it. */
	if (!q->npending) {
		q->pending_min = node->deadline;
		q->pending_min_valid = true;
	} else if (q->pending_min_valid &&
		   ktime_before(node->deadline, q->pending_min)) {
		q->pending_min = node->deadline;
	}
	q->npending++;
	node->state = DELAYQ_PENDING;
	return 0;
}

static void delayq_pending_del(struct tempo_delayq *q,
			       struct tempo_delayq_node *node)
{
	delayq_lock_held(q);
	list_del_init(&node->entry);
	if (node->near) {
		unsigned int idx = node->near - 1;

		if (list_empty(&q->near[idx]))
			q->near_occupied[idx / 64] &= ~BIT_ULL(idx % 64);
		q->nnear--;
		node->near = 0;
	}
	q->npending--;
	/* Removing the minimum (or a tie of it) invalidates the cached one. */
	if (!q->npending || !ktime_after(node->deadline, q->pending_min))
		q->pending_min_valid = false;
}

/*
 * The near window's minimum moved up: ready nodes held behind it may be
 * releasable now. They form the tail of the ready list from q->held (sorted,
 * and releasable nodes are due before held ones), so walk forward from
 * q->held over the nodes released, O(released), and wake one consumer for
 * each: none was woken for it when it became ready.
 */
static void delayq_release_held(struct tempo_delayq *q)
{
	struct tempo_delayq_node *node = q->held;

	while (node && delayq_releasable(q, node)) {
		q->nheld--;
		wake_up_locked_poll(&q->wait, EPOLLIN | EPOLLRDNORM);
		node = list_is_last(&node->entry, &q->ready) ? NULL :
		       list_next_entry(node, entry);
	}
	q->held = node;
	WARN_ON_ONCE(!node != !q->nheld);
}

/* @node, ready and held, leaves the ready list (remove, destroy). */
static void delayq_unhold(struct tempo_delayq *q, struct tempo_delayq_node *node)
{
	if (node == q->held)
		q->held = list_is_last(&node->entry, &q->ready) ? NULL :
			  list_next_entry(node, entry);
	q->nheld--;
}

/*
 * Insert @node into the ready list by deadline, walking from the tail: O(1)
 * when items become ready in deadline order, the common case. Equal deadlines
 * keep arrival order. Then wake pollers and one consumer, if @node may be
 * taken now; else it is held (an earlier near node has not expired yet) and
 * the wake-up comes from delayq_release_held() when that one leaves.
 */
static void delayq_make_ready(struct tempo_delayq *q,
			      struct tempo_delayq_node *node)
{
	bool releasable = delayq_releasable(q, node);
	/* A releasable node is due before every held one: skip those. */
	struct list_head *pos = releasable && q->held ? q->held->entry.prev : q->ready.prev;

	delayq_lock_held(q);
	while (pos != &q->ready &&
	       delayq_node_before(node, list_entry(pos, struct tempo_delayq_node,
						   entry)))
		pos = pos->prev;
	list_add(&node->entry, pos);
	q->nready++;
	node->state = DELAYQ_READY;
	delayq_count(q, DELAYQ_STAT_EXPIRED);
	if (releasable) {
		/* nr_exclusive = 1: all poll waiters and ONE consumer. */
		wake_up_locked_poll(&q->wait, EPOLLIN | EPOLLRDNORM);
	} else {
		q->nheld++;
		if (!q->held || delayq_node_before(node, q->held))
			q->held = node;
	}
}

static struct tempo_delayq_node *delayq_pop_ready(struct tempo_delayq *q)
{
	struct tempo_delayq_node *node;

	delayq_lock_held(q);
	node = delayq_ready_head(q);
	if (!node)
		return NULL;
	/*
	 * Not early: the expiry callback and put() make a node ready only
	 * after reading the clock past its deadline (no clock read here).
	 */
	list_del_init(&node->entry);
	q->nready--;
	node->state = DELAYQ_TAKEN;
	delayq_count(q, DELAYQ_STAT_TAKEN);
	return node;
}

/* Nothing left that destroy() must wait for before freeing @q. */
static bool delayq_quiescent(struct tempo_delayq *q)
{
	delayq_lock_held(q);
	return !q->nwaiters && !q->nstale;
}

/* A sleeper or a stale callback left a dead queue: maybe wake destroy(). */
static void delayq_left_dead(struct tempo_delayq *q)
{
	delayq_lock_held(q);
	if (q->dead && delayq_quiescent(q))
		wake_up_all_locked(&q->wait);
}

/*
 * The expiry callback: process context on the tempo workqueue of the CPU
 * the node was armed on. Its locked section is its last access to the node
 * and to the queue: once a consumer has taken the node, or remove_sync()/
 * destroy() returned, the node may be freed.
 */
static void delayq_expire(struct tempo_timer *timer)
{
	struct tempo_delayq_node *node =
		container_of(timer, struct tempo_delayq_node, timer);
	/* Written by put() before it armed this timer: see "Locks and ordering". */
	struct tempo_delayq *q = READ_ONCE(node->q);
	unsigned long flags;
	ktime_t now;
	int err;

	spin_lock_irqsave(&q->wait.lock, flags);
	if (node->stale) {
		/* remove() claimed the node while this expiry was in flight. */
		q->nstale--;
		delayq_left_dead(q);
		/*
		 * LMM(delayq_expire:A) The callback's last access to the node.
		 * Pairs with: delayq_node_busy:A (a put() on another queue).
		 */
		smp_store_release(&node->stale, false);
		goto unlock;
	}
	/* DETACHED (destroy is cancelling it): nothing to do. */
	if (node->state != DELAYQ_PENDING)
		goto unlock;

	now = ktime_get();
	if (!node->exact && ktime_before(now, node->deadline)) {
		/* A stage: move the node closer (near, or a finer stage). */
		delayq_count(q, DELAYQ_STAT_STAGED);
		delayq_pending_del(q, node);
		err = delayq_pending_add(q, node, now);
		if (!WARN_ON_ONCE(err < 0))
			goto unlock;
		/* Cannot re-arm: the lesser evil is a slightly early item. */
	} else if (unlikely(ktime_before(now, node->deadline))) {
		/* The timer contract says never; don't hand out early, re-arm. */
		WARN_ON_ONCE(1);
		delayq_count(q, DELAYQ_STAT_REARMED);
		err = tempo_timer_arm_at(&node->timer, TEMPO_CPU_LOCAL,
					 node->deadline);
		if (!WARN_ON_ONCE(err < 0))
			goto unlock;
		delayq_pending_del(q, node);
	} else {
		delayq_pending_del(q, node);
	}
	delayq_make_ready(q, node);
	delayq_release_held(q);
unlock:
	spin_unlock_irqrestore(&q->wait.lock, flags);
}

/**
 * tempo_delayq_node_init() - prepare a node for its first put
 * @node: the node embedded in an item
 *
 * Call once before the node is first put; not while it is queued.
 *
 * Context: any context.
 */
void tempo_delayq_node_init(struct tempo_delayq_node *node)
{
	tempo_timer_init(&node->timer, delayq_expire, 0);
	INIT_LIST_HEAD(&node->entry);
	node->q = NULL;
	node->deadline = 0;
	node->state = DELAYQ_IDLE;
	node->near = 0;
	node->exact = false;
	node->stale = false;
}
EXPORT_SYMBOL_GPL(tempo_delayq_node_init);

/**
 * tempo_delayq_node_sync() - wait until a removed node's expiry callback ends
 * @node: a node that is not queued (taken, removed or handed back)
 *
 * After tempo_delayq_remove() returned true, the node's expiry callback may
 * still be on its way (it will do nothing but let go of the node), and the
 * wheel may still hold the cancelled timer. Call this before freeing such a
 * node, even if it was put and taken again since; tempo_delayq_remove_sync()
 * does both steps. Harmless on a node with nothing in flight.
 *
 * Context: process context; may sleep. Must not run concurrently with a put()
 * of the same node.
 */
void tempo_delayq_node_sync(struct tempo_delayq_node *node)
{
	might_sleep();
	WARN_ON_ONCE(READ_ONCE(node->state) == DELAYQ_PENDING);
	tempo_timer_cancel_sync(&node->timer);
	/* The callback, if any, has returned: it cleared stale. */
	WARN_ON_ONCE(smp_load_acquire(&node->stale));
}
EXPORT_SYMBOL_GPL(tempo_delayq_node_sync);

/**
 * tempo_delayq_create() - allocate an empty delay queue
 *
 * Context: process context; may sleep (GFP_KERNEL).
 * Return: the queue, or NULL if out of memory.
 */
struct tempo_delayq *tempo_delayq_create(void)
{
	struct tempo_delayq *q = kzalloc(sizeof(*q), GFP_KERNEL);
	unsigned int i;

	if (!q)
		return NULL;
	init_waitqueue_head(&q->wait);
	INIT_LIST_HEAD(&q->far);
	for (i = 0; i < DQ_NEAR_SLOTS; i++)
		INIT_LIST_HEAD(&q->near[i]);
	q->tick_ns = tempo_timer_tick_ns();
	INIT_LIST_HEAD(&q->ready);
	atomic_inc(&delayq_live);
	return q;
}
EXPORT_SYMBOL_GPL(tempo_delayq_create);

/*
 * put_at(), or put() of a delay (@relative: @when is nanoseconds from now).
 * The clock is read once, under the lock: a node found not yet due must be
 * due after every node already ready (the release check relies on it), so
 * "now" must not predate the ready nodes.
 */
static int delayq_put(struct tempo_delayq *q, struct tempo_delayq_node *node,
		      ktime_t when, bool relative)
{
	unsigned long flags;
	ktime_t now, deadline;
	int err = 0;

	spin_lock_irqsave(&q->wait.lock, flags);
	if (unlikely(q->dead)) {
		err = -ESHUTDOWN;
		goto unlock;
	}
	if (unlikely(delayq_node_busy(node))) {
		err = -EBUSY;
		goto unlock;
	}
	now = ktime_get();
	deadline = relative ? ktime_add_ns(now, when) : when;
	/* Before arming: the callback reads node->q before it takes the lock. */
	WRITE_ONCE(node->q, q);
	node->deadline = deadline;
	if (!ktime_before(now, deadline)) {
		delayq_make_ready(q, node);
	} else {
		/* Armed inside the lock: its callback waits for us to finish. */
		err = delayq_pending_add(q, node, now);
		if (err < 0)
			goto unlock;
	}
	delayq_count(q, DELAYQ_STAT_PUT);
unlock:
	spin_unlock_irqrestore(&q->wait.lock, flags);
	return err;
}

/**
 * tempo_delayq_put_at() - queue an item until an absolute deadline
 * @q: the queue
 * @node: the item's node, initialised and not queued
 * @deadline: CLOCK_MONOTONIC time (ktime_get()) from which it may be taken
 *
 * A deadline already past makes the item ready at once, without a timer.
 *
 * Context: any context except NMI; does not sleep.
 * Return: 0 on success; -EBUSY if @node is queued (here or elsewhere), being
 * handed back by destroy, or removed with its expiry still in flight (see
 * tempo_delayq_node_sync()); -ESHUTDOWN if @q is shut down; -ERANGE if the
 * deadline is beyond tempo_timer_max_delay_ns() from now. On error @node is
 * not queued.
 */
int tempo_delayq_put_at(struct tempo_delayq *q, struct tempo_delayq_node *node,
			ktime_t deadline)
{
	return delayq_put(q, node, deadline, false);
}
EXPORT_SYMBOL_GPL(tempo_delayq_put_at);

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
	if (delay_ns > tempo_timer_max_delay_ns())
		return -ERANGE;
	return delayq_put(q, node, delay_ns, true);
}
EXPORT_SYMBOL_GPL(tempo_delayq_put);

static bool delayq_kthread_should_stop(void)
{
	return (current->flags & PF_KTHREAD) && kthread_should_stop();
}

/*
 * Sleep as an exclusive waiter until an item is ready, then take it. @end is
 * the caller's absolute timeout, or NULL for none.
 *
 * Each pass checks, in one critical section of q->wait.lock: shutdown, an
 * item (take it), then, after setting TASK_INTERRUPTIBLE so that a signal or
 * kthread_stop() between the check and schedule() is not lost:
 * kthread_stop(), a signal, the timeout. kthread_stop() comes before signals
 * because it sets TIF_NOTIFY_SIGNAL, which signal_pending() reports. Items
 * are published and their wake-up delivered under the same lock, so leaving
 * with an error never strands an item a wake-up meant for us (see the design
 * comment).
 */
static struct tempo_delayq_node *delayq_wait(struct tempo_delayq *q,
					     ktime_t *end)
{
	struct tempo_delayq_node *node = NULL;
	DEFINE_WAIT(wait);
	int err;

	spin_lock_irq(&q->wait.lock);
	q->nwaiters++;
	for (;;) {
		err = -ESHUTDOWN;
		if (q->dead)
			break;
		node = delayq_pop_ready(q);
		if (node)
			break;
		if (list_empty(&wait.entry))
			__add_wait_queue_entry_tail_exclusive(&q->wait, &wait);
		set_current_state(TASK_INTERRUPTIBLE);
		/* First: kthread_stop() also makes signal_pending() true. */
		err = -EINTR;
		if (delayq_kthread_should_stop())
			break;
		err = -ERESTARTSYS;
		if (signal_pending(current))
			break;
		err = -ETIMEDOUT;
		if (end && !ktime_before(ktime_get(), *end))
			break;

		spin_unlock_irq(&q->wait.lock);
		if (end)
			schedule_hrtimeout(end, HRTIMER_MODE_ABS);
		else
			schedule();
		spin_lock_irq(&q->wait.lock);
		/* autoremove_wake_function() unlinked us: a queue wake-up. */
		if (list_empty(&wait.entry))
			delayq_count(q, DELAYQ_STAT_WAKEUPS);
	}
	__set_current_state(TASK_RUNNING);
	if (!list_empty(&wait.entry))
		list_del_init(&wait.entry);
	q->nwaiters--;
	if (node)
		err = 0;
	else	/* Leaving with an error: there must be nothing we could take. */
		WARN_ON_ONCE(!q->dead && delayq_ready_head(q));
	delayq_left_dead(q);
	spin_unlock_irq(&q->wait.lock);
	return err ? ERR_PTR(err) : node;
}

/**
 * tempo_delayq_take() - take the earliest ready item, sleeping until there is one
 * @q: the queue
 *
 * Sleeps as an exclusive waiter: each item that becomes ready wakes one
 * sleeping consumer. An interrupted take loses nothing: the item stays ready
 * for the next consumer.
 *
 * Context: process context; sleeps interruptibly. Do not hold locks.
 * Return: the item's node, now TAKEN and owned by the caller; or
 * ERR_PTR(-ERESTARTSYS) on a signal, ERR_PTR(-EINTR) when the calling kthread
 * is being stopped (kthread_stop()), ERR_PTR(-ESHUTDOWN) once @q is shut down.
 */
struct tempo_delayq_node *tempo_delayq_take(struct tempo_delayq *q)
{
	might_sleep();
	return delayq_wait(q, NULL);
}
EXPORT_SYMBOL_GPL(tempo_delayq_take);

/**
 * tempo_delayq_take_timeout() - tempo_delayq_take() with the caller's timeout
 * @q: the queue
 * @timeout_ns: longest wait, in nanoseconds; 0 does not sleep
 *
 * The timeout is the caller's own limit (an hrtimer sleep); it has nothing to
 * do with when items expire.
 *
 * Context: process context; sleeps interruptibly. Do not hold locks.
 * Return: as tempo_delayq_take(), or ERR_PTR(-ETIMEDOUT) if no item became
 * ready in time.
 */
struct tempo_delayq_node *tempo_delayq_take_timeout(struct tempo_delayq *q,
						    u64 timeout_ns)
{
	ktime_t end = ktime_add_ns(ktime_get(), min_t(u64, timeout_ns, KTIME_MAX / 2));

	might_sleep();
	return delayq_wait(q, &end);
}
EXPORT_SYMBOL_GPL(tempo_delayq_take_timeout);

/**
 * tempo_delayq_try_take() - take the earliest ready item if there is one
 * @q: the queue
 *
 * Context: any context except NMI; does not sleep.
 * Return: the item's node, now TAKEN and owned by the caller;
 * ERR_PTR(-EAGAIN) if no item is ready; ERR_PTR(-ESHUTDOWN) once @q is shut
 * down. Never NULL.
 */
struct tempo_delayq_node *tempo_delayq_try_take(struct tempo_delayq *q)
{
	struct tempo_delayq_node *node;
	unsigned long flags;

	spin_lock_irqsave(&q->wait.lock, flags);
	if (unlikely(q->dead))
		node = ERR_PTR(-ESHUTDOWN);
	else
		node = delayq_pop_ready(q) ?: ERR_PTR(-EAGAIN);
	spin_unlock_irqrestore(&q->wait.lock, flags);
	return node;
}
EXPORT_SYMBOL_GPL(tempo_delayq_try_take);

/**
 * tempo_delayq_drain() - take up to @max ready items at once
 * @q: the queue
 * @nodes: receives the nodes, earliest deadline first
 * @max: size of @nodes
 *
 * One critical section: the batch is contiguous in deadline order. It takes
 * only items that are ready; it never waits.
 *
 * Context: any context except NMI; does not sleep. The lock is held for
 * O(@max): keep @max modest in atomic context.
 * Return: the number of nodes stored (0 if none is ready), or -ESHUTDOWN once
 * @q is shut down.
 */
int tempo_delayq_drain(struct tempo_delayq *q,
		       struct tempo_delayq_node **nodes, unsigned int max)
{
	struct tempo_delayq_node *node;
	unsigned long flags;
	unsigned int n = 0;

	max = min_t(unsigned int, max, INT_MAX);
	spin_lock_irqsave(&q->wait.lock, flags);
	if (unlikely(q->dead)) {
		spin_unlock_irqrestore(&q->wait.lock, flags);
		return -ESHUTDOWN;
	}
	while (n < max && (node = delayq_pop_ready(q)))
		nodes[n++] = node;
	spin_unlock_irqrestore(&q->wait.lock, flags);
	return n;
}
EXPORT_SYMBOL_GPL(tempo_delayq_drain);

/**
 * tempo_delayq_remove() - take an item out of the queue, ready or not
 * @q: the queue
 * @node: the item's node
 *
 * O(1): cancels a pending timer or unlinks a ready node. If the node's timer
 * was already firing (the wheel claimed the expiry), its callback still runs
 * later and does nothing but let go of the node; until then put() refuses the
 * node with -EBUSY. Either way the wheel may still hold the cancelled timer
 * for a moment: call tempo_delayq_node_sync() before freeing the node (or
 * to re-put it at once), or use tempo_delayq_remove_sync(). Racing with the
 * expiry, take() or destroy(), exactly one of them gets the node: whoever
 * changes its state first under the queue's lock.
 *
 * Context: any context except NMI; does not sleep.
 * Return: true if this call removed the node (it was pending or ready on @q);
 * false if it was not queued on @q (already taken, removed, handed back, or
 * being handed back by destroy()).
 */
bool tempo_delayq_remove(struct tempo_delayq *q, struct tempo_delayq_node *node)
{
	unsigned long flags;
	bool removed = true;

	spin_lock_irqsave(&q->wait.lock, flags);
	/* If the node is on @q, node->q is @q and stable under @q's lock. */
	if (READ_ONCE(node->q) != q) {
		removed = false;
		goto unlock;
	}
	switch (node->state) {
	case DELAYQ_PENDING:
		delayq_pending_del(q, node);
		if (!tempo_timer_cancel(&node->timer)) {
			/* The callback is on its way: it will clear stale. */
			node->stale = true;
			q->nstale++;
		}
		/* It may have held ready nodes back. */
		delayq_release_held(q);
		break;
	case DELAYQ_READY:
		if (!delayq_releasable(q, node))
			delayq_unhold(q, node);
		list_del_init(&node->entry);
		q->nready--;
		break;
	default:
		removed = false;
		goto unlock;
	}
	node->state = DELAYQ_REMOVED;
	delayq_count(q, DELAYQ_STAT_REMOVED);
unlock:
	spin_unlock_irqrestore(&q->wait.lock, flags);
	return removed;
}
EXPORT_SYMBOL_GPL(tempo_delayq_remove);

/**
 * tempo_delayq_remove_sync() - remove an item and wait out its expiry
 * @q: the queue
 * @node: the item's node
 *
 * tempo_delayq_remove(), then tempo_delayq_node_sync() if it removed the
 * node: on true the node may be freed at once.
 *
 * Context: process context; may sleep.
 * Return: as tempo_delayq_remove().
 */
bool tempo_delayq_remove_sync(struct tempo_delayq *q,
			      struct tempo_delayq_node *node)
{
	might_sleep();
	if (!tempo_delayq_remove(q, node))
		return false;
	tempo_delayq_node_sync(node);
	return true;
}
EXPORT_SYMBOL_GPL(tempo_delayq_remove_sync);

/**
 * tempo_delayq_peek() - the earliest deadline in the queue
 * @q: the queue
 * @deadline: receives it
 *
 * The ready head's deadline if an item is ready, else the earliest pending
 * deadline. The latter is cached; when the item that held it has left, the
 * next peek walks the pending list once (O(pending), under the lock).
 *
 * Context: any context except NMI; does not sleep.
 * Return: true and *@deadline set, or false if @q is empty.
 */
bool tempo_delayq_peek(struct tempo_delayq *q, ktime_t *deadline)
{
	struct tempo_delayq_node *node;
	unsigned long flags;
	bool found = true;

	spin_lock_irqsave(&q->wait.lock, flags);
	node = list_first_entry_or_null(&q->ready, struct tempo_delayq_node,
					entry);
	if (node) {
		*deadline = node->deadline;
	} else if (!q->npending) {
		found = false;
	} else {
		if (!q->pending_min_valid) {
			unsigned int i;

			q->pending_min = KTIME_MAX;
			list_for_each_entry(node, &q->far, entry)
				if (ktime_before(node->deadline, q->pending_min))
					q->pending_min = node->deadline;
			for (i = 0; i < DQ_NEAR_SLOTS; i++)
				list_for_each_entry(node, &q->near[i], entry)
					if (ktime_before(node->deadline, q->pending_min))
						q->pending_min = node->deadline;
			q->pending_min_valid = true;
		}
		*deadline = q->pending_min;
	}
	spin_unlock_irqrestore(&q->wait.lock, flags);
	return found;
}
EXPORT_SYMBOL_GPL(tempo_delayq_peek);

/**
 * tempo_delayq_size() - number of queued items, pending and ready
 * @q: the queue
 *
 * Context: any context except NMI; does not sleep.
 * Return: pending + ready items at one instant.
 */
unsigned int tempo_delayq_size(struct tempo_delayq *q)
{
	unsigned long flags;
	unsigned int n;

	spin_lock_irqsave(&q->wait.lock, flags);
	n = q->npending + q->nready;
	spin_unlock_irqrestore(&q->wait.lock, flags);
	return n;
}
EXPORT_SYMBOL_GPL(tempo_delayq_size);

/**
 * tempo_delayq_ready() - is an item ready to be taken?
 * @q: the queue
 *
 * For poll(): after poll_wait() on tempo_delayq_waitqueue(), report EPOLLIN
 * if this returns true. A shut-down queue reports false.
 *
 * Context: any context except NMI; does not sleep.
 * Return: true if a try_take() now would find an item.
 */
bool tempo_delayq_ready(struct tempo_delayq *q)
{
	unsigned long flags;
	bool ready;

	spin_lock_irqsave(&q->wait.lock, flags);
	ready = !q->dead && delayq_ready_head(q);
	spin_unlock_irqrestore(&q->wait.lock, flags);
	return ready;
}
EXPORT_SYMBOL_GPL(tempo_delayq_ready);

/**
 * tempo_delayq_waitqueue() - the wait queue a poll() should wait on
 * @q: the queue
 *
 * Expiries wake it with EPOLLIN (all non-exclusive waiters, one exclusive);
 * shutdown wakes all. Do not add exclusive waiters of your own or take its
 * lock: both belong to the queue.
 *
 * Context: any context.
 * Return: the wait queue head, valid until tempo_delayq_destroy().
 */
wait_queue_head_t *tempo_delayq_waitqueue(struct tempo_delayq *q)
{
	return &q->wait;
}
EXPORT_SYMBOL_GPL(tempo_delayq_waitqueue);

/**
 * tempo_delayq_stats() - a snapshot of a queue's counters
 * @q: the queue
 * @stats: receives them
 *
 * Context: any context except NMI; does not sleep.
 */
void tempo_delayq_stats(struct tempo_delayq *q, struct tempo_delayq_stats *stats)
{
	unsigned long flags;

	spin_lock_irqsave(&q->wait.lock, flags);
	stats->put = q->count[DELAYQ_STAT_PUT];
	stats->expired = q->count[DELAYQ_STAT_EXPIRED];
	stats->taken = q->count[DELAYQ_STAT_TAKEN];
	stats->removed = q->count[DELAYQ_STAT_REMOVED];
	stats->flushed = q->count[DELAYQ_STAT_FLUSHED];
	stats->wakeups = q->count[DELAYQ_STAT_WAKEUPS];
	stats->rearmed = q->count[DELAYQ_STAT_REARMED];
	stats->staged = q->count[DELAYQ_STAT_STAGED];
	stats->pending = q->npending;
	stats->ready = q->nready;
	stats->waiters = q->nwaiters;
	spin_unlock_irqrestore(&q->wait.lock, flags);
}
EXPORT_SYMBOL_GPL(tempo_delayq_stats);

/**
 * tempo_delayq_shutdown() - stop a queue: fail all takes, refuse all puts
 * @q: the queue
 *
 * Consumers asleep in take() wake and return -ESHUTDOWN, as do all later
 * take*() calls; put() returns -ESHUTDOWN. Queued items stay queued (their
 * timers keep running) until tempo_delayq_destroy() hands them back, and
 * remove() still works. Idempotent.
 *
 * Context: any context except NMI; does not sleep.
 */
void tempo_delayq_shutdown(struct tempo_delayq *q)
{
	unsigned long flags;

	spin_lock_irqsave(&q->wait.lock, flags);
	if (!q->dead) {
		q->dead = true;
		wake_up_all_locked(&q->wait);
	}
	spin_unlock_irqrestore(&q->wait.lock, flags);
}
EXPORT_SYMBOL_GPL(tempo_delayq_shutdown);

/* Detach a pending node (@pending) or the first ready node from @q, or NULL. */
static struct tempo_delayq_node *delayq_detach_first(struct tempo_delayq *q,
						     bool pending)
{
	struct tempo_delayq_node *node;
	struct list_head *list = &q->ready;

	spin_lock_irq(&q->wait.lock);
	if (pending)
		list = delayq_near_any(q) ?: &q->far;
	node = list_first_entry_or_null(list, struct tempo_delayq_node, entry);
	if (node) {
		if (node->state == DELAYQ_PENDING) {
			delayq_pending_del(q, node);
		} else {
			list_del_init(&node->entry);
			q->nready--;
			/* Shut down: nobody takes, so nothing is held any more. */
			q->nheld = 0;
			q->held = NULL;
		}
		node->state = DELAYQ_DETACHED;
	}
	spin_unlock_irq(&q->wait.lock);
	return node;
}

/* Sleep until no consumer is asleep in @q and no stale callback is owed. */
static void delayq_wait_quiescent(struct tempo_delayq *q)
{
	DEFINE_WAIT(wait);

	spin_lock_irq(&q->wait.lock);
	while (!delayq_quiescent(q)) {
		/* Not exclusive: wake_up_all_locked() in delayq_left_dead(). */
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
 * @release: called once for each item still queued, ready ones first in
 *	deadline order, then pending ones in put order; may free the item.
 *	NULL if the caller knows the queue is empty (items found are then
 *	dropped with a warning).
 * @arg: passed to @release
 *
 * Shuts @q down (see tempo_delayq_shutdown()), detaches every queued node,
 * cancel_sync()s the timers of pending ones (so no callback touches them
 * after @release), waits for consumers asleep in take() to leave with
 * -ESHUTDOWN and for the callbacks of stale removed nodes, then calls
 * @release on each node (state REMOVED) and frees @q. No lock is held while
 * sleeping, so the queue's lock is never held for more than one node.
 *
 * Context: process context; may sleep. No call on @q may start once destroy
 * has (see the contract in include/tempo/delayq.h).
 * Return: the number of items handed back (or dropped).
 */
unsigned int tempo_delayq_destroy(struct tempo_delayq *q,
				  tempo_delayq_release_fn release, void *arg)
{
	struct tempo_delayq_node *node, *next;
	LIST_HEAD(detached);
	LIST_HEAD(pending);
	unsigned int n = 0;

	might_sleep();
	tempo_delayq_shutdown(q);

	/*
	 * Pending nodes first: until they are all DETACHED an expiry may still
	 * move one to the ready list; after, nothing can enter either list.
	 */
	while ((node = delayq_detach_first(q, true))) {
		/* Waits for a callback in flight; it sees DETACHED and leaves. */
		tempo_timer_cancel_sync(&node->timer);
		list_add_tail(&node->entry, &pending);
	}
	/*
	 * Ready nodes are handed back first, in deadline order. Their timers
	 * are idle unless an earlier remove() left a cancelled arm linked in
	 * the wheel: sync them too, so every node handed back may be freed.
	 */
	while ((node = delayq_detach_first(q, false))) {
		tempo_timer_cancel_sync(&node->timer);
		list_add_tail(&node->entry, &detached);
	}
	list_splice_tail(&pending, &detached);
	delayq_wait_quiescent(q);

	spin_lock_irq(&q->wait.lock);
	/* Shut down: nothing could have been queued since. */
	WARN_ON_ONCE(q->npending || q->nready || !list_empty(&q->ready) ||
		     !list_empty(&q->far) || delayq_near_any(q));
	list_for_each_entry(node, &detached, entry) {
		node->state = DELAYQ_REMOVED;
		delayq_count(q, DELAYQ_STAT_FLUSHED);
		n++;
	}
	spin_unlock_irq(&q->wait.lock);

	list_for_each_entry_safe(node, next, &detached, entry) {
		list_del_init(&node->entry);
		if (release)
			release(node, arg);
	}
	WARN(!release && n, "tempo: delay queue destroyed with %u items\n", n);
	atomic_dec(&delayq_live);
	kfree(q);
	return n;
}
EXPORT_SYMBOL_GPL(tempo_delayq_destroy);

static int delayq_totals_show(struct seq_file *m, void *unused)
{
	u64 sum[DELAYQ_NR_STATS] = {};
	int cpu, c;

	for_each_possible_cpu(cpu) {
		const struct delayq_totals *t = per_cpu_ptr(&delayq_totals, cpu);

		for (c = 0; c < DELAYQ_NR_STATS; c++)
			sum[c] += READ_ONCE(t->count[c]);
	}
	seq_printf(m, "queues %d\n", atomic_read(&delayq_live));
	for (c = 0; c < DELAYQ_NR_STATS; c++)
		seq_printf(m, "%s %llu\n", delayq_counter_names[c], sum[c]);
	/* Not atomic across CPUs: a snapshot, exact only when idle. */
	seq_printf(m, "queued %lld\n",
		   (s64)(sum[DELAYQ_STAT_PUT] - sum[DELAYQ_STAT_TAKEN] -
			 sum[DELAYQ_STAT_REMOVED] - sum[DELAYQ_STAT_FLUSHED]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(delayq_totals);

/**
 * tempo_delayq_debugfs() - create the delay queue's debugfs file
 * @dir: tempo's debugfs directory
 *
 * Creates "delayq": module-wide totals of all queues' counters.
 *
 * Context: process context, from the module's init.
 */
void tempo_delayq_debugfs(struct dentry *dir)
{
	debugfs_create_file("delayq", 0444, dir, NULL, &delayq_totals_fops);
}

/**
 * tempo_delayq_init() - module init of the delay queue core
 *
 * Context: process context, module init.
 * Return: 0.
 */
int tempo_delayq_init(void)
{
	return 0;
}

/**
 * tempo_delayq_exit() - module exit of the delay queue core
 *
 * Every queue must have been destroyed: their timers live in the wheel.
 *
 * Context: process context, module exit.
 */
void tempo_delayq_exit(void)
{
	WARN(atomic_read(&delayq_live), "tempo: %d delay queues leaked\n",
	     atomic_read(&delayq_live));
}
