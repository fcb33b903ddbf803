/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the delay queue's files share: kmod/delayq.c, the core (put, take,
 * consume, the cascade, the waker); kmod/delayq_clock.c, its other clocks and
 * its alarms; kmod/delayq_life.c, create, destroy and the counters. The
 * queue's structure and geometry, the helpers of a critical section, and the
 * calls each file makes into another. The design is in their DOC sections
 * (Documentation/tempo.rst, "The delay queue"). The small helpers are static
 * inline here, so that put() and take() compile as they would in one file.
 *
 * Not a public API: the delay queue's own files include it, nothing else.
 */
#ifndef _TEMPO_DELAYQ_INTERNAL_H
#define _TEMPO_DELAYQ_INTERNAL_H

#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rbtree.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <tempo/delayq.h>
#include <tempo/timer.h>

#include "clock.h"
#include "compat.h"

enum delayq_state {
	DELAYQ_IDLE = 0,	/* not queued */
	DELAYQ_CASCADE,		/* queued, in a cascade slot */
	DELAYQ_PENDING,		/* queued, in the tree, not in the counted prefix */
	DELAYQ_READY,		/* queued, in the tree, in the counted prefix: due */
	DELAYQ_RUN,		/* queued, in the run, not in the counted prefix */
	DELAYQ_RUN_READY,	/* queued, in the run, in the counted prefix: due */
};

enum delayq_counter {
	DELAYQ_STAT_PUT,
	DELAYQ_STAT_EXPIRED,
	DELAYQ_STAT_TAKEN,
	DELAYQ_STAT_REMOVED,
	DELAYQ_STAT_FLUSHED,
	DELAYQ_STAT_WAKEUPS,
	DELAYQ_STAT_REQUEUED,
	DELAYQ_NR_STATS
};

#define DQ_GRAIN_SHIFT	20		/* a grain: 2^20 ns, about 1 ms */
#define DQ_LVL_BITS	6
#define DQ_SLOTS	BIT(DQ_LVL_BITS)
#define DQ_SLOT_MASK	(DQ_SLOTS - 1)
#define DQ_LEVELS	6
/* Grains ahead the cascade places by their own grain: 2^36, over 2 years. */
#define DQ_SPAN		(1ULL << (DQ_LVL_BITS * DQ_LEVELS))
#define DQ_NEVER	S64_MAX		/* q->next_work of an empty cascade */

/* Nodes moved, or counted by stats(), per critical section. */
#define DQ_STEP		64
/*
 * Nodes the waker moves per expiry: a slot of more is sorted by the queue's
 * own consumers and watchers, woken for it, in their context.
 */
#define DQ_WAKER_MOVES	16

struct tempo_delayq {
	wait_queue_head_t	wait;		/* consumers; .lock guards all below */
	wait_queue_head_t	watch;		/* watchers: woken at readiness edges */
	struct rb_root_cached	tree;		/* the sorted nodes */
	struct tempo_delayq_node *last_ready;	/* end of the tree's counted prefix */
	struct list_head	run;		/* sorted nodes that came in order */
	struct tempo_delayq_node *run_ready;	/* end of the run's counted prefix */
	ktime_t			now;		/* latest clock reading */
	s64			next_grain;	/* the first grain not sorted */
	s64			next_work;	/* no slot to empty before this grain */
	u64			seq;		/* put order */
	ktime_t			waker_at;	/* the time the waker is armed for, or KTIME_MAX */
	u64			waker_slack;	/* and the slack it was armed with, ns */
	u64			slack;		/* least node slack since the queue was empty */
	struct tempo_timer	waker;
	clockid_t		clock;		/* CLOCK_MONOTONIC, BOOTTIME or REALTIME */
	unsigned int		n;		/* queued nodes */
	unsigned int		nready;		/* counted nodes: READY and RUN_READY */
	unsigned int		nwaiters;	/* consumers in delayq_wait()'s passes */
	bool			woken;		/* a selected consumer has not looked yet */
	bool			ready;		/* ready at the last notify */
	bool			waker_short;	/* the waker left due slots to sort */
	bool			look_asked;	/* watchers woken to sort, not yet done */
	bool			dead;		/* shut down */
	bool			wakes;		/* an alarm queue: q->alarm is aimed */
	u64			count[DELAYQ_NR_STATS];
	struct list_head	list;		/* on delayq_list */
	struct list_head	clock_link;	/* on the clock walk's list: not MONOTONIC */
	struct list_head	alarm_link;	/* on the suspend pass's list: q->wakes */
	unsigned int		walks;		/* walks visiting it: under delayq_list_lock */
	ktime_t			alarm_at;	/* where q->alarm is aimed, or KTIME_MAX */
	struct alarm		alarm;		/* q->wakes: wakes the machine ("Alarms") */
	u64			occupied[DQ_LEVELS];	/* slots not empty, a bit each */
	ktime_t			cascade_min[DQ_SLOTS];	/* level 0: no deadline is earlier */
	struct list_head	cascade[DQ_LEVELS][DQ_SLOTS];
};

/* kmod/delayq_life.c: the live queues; the lock also guards kmod/delayq_clock.c's lists. */
extern struct mutex delayq_list_lock;
extern struct list_head delayq_list;

static inline s64 dq_grain(ktime_t t)
{
	return ktime_to_ns(t) >> DQ_GRAIN_SHIFT;
}

static inline ktime_t dq_time(s64 grain)
{
	return ns_to_ktime(grain << DQ_GRAIN_SHIFT);
}

static inline struct tempo_delayq_node *delayq_node(struct rb_node *rb)
{
	return rb_entry_safe(rb, struct tempo_delayq_node, rb);
}

static inline struct tempo_delayq_node *delayq_tree_first(struct tempo_delayq *q)
{
	return delayq_node(rb_first_cached(&q->tree));
}

/* Under the lock of the node's queue; put() reads it without (-EBUSY). */
static inline void delayq_set_state(struct tempo_delayq_node *node, enum delayq_state state)
{
	WRITE_ONCE(node->state, state);
}

/* Is a node of @deadline due by the queue's latest reading? */
static inline bool delayq_due(const struct tempo_delayq *q, ktime_t deadline)
{
	return !ktime_after(deadline, q->now);
}

/*
 * Apply a reading of the queue's clock, taken under the lock (a MONOTONIC
 * one may be taken before it): the latest reading, which only a REALTIME
 * clock set back makes lower than the last.
 */
static inline void delayq_set_now(struct tempo_delayq *q, ktime_t now)
{
	if (ktime_after(now, q->now) || q->clock == CLOCK_REALTIME)
		q->now = now;
}

/* Take a clock reading, under the lock. */
static inline void delayq_clock(struct tempo_delayq *q)
{
	delayq_set_now(q, likely(q->clock == CLOCK_MONOTONIC) ? ktime_get() :
		       tempo_clock_read(q->clock));
}

/* Under the lock. */
static inline void delayq_count(struct tempo_delayq *q, enum delayq_counter c)
{
	q->count[c]++;
}

/* The sorted part's order: by deadline, then put order. */
static inline bool delayq_before(const struct tempo_delayq_node *a,
				 const struct tempo_delayq_node *b)
{
	return ktime_before(a->deadline, b->deadline) ||
	       (a->deadline == b->deadline && a->seq < b->seq);
}

/* The earliest sorted node: the first of the run's and the tree's. */
static inline struct tempo_delayq_node *delayq_first(struct tempo_delayq *q)
{
	struct tempo_delayq_node *tree = delayq_tree_first(q);
	struct tempo_delayq_node *run = list_first_entry_or_null(&q->run, struct tempo_delayq_node,
								 entry);

	if (!tree || !run)
		return tree ?: run;
	return delayq_before(run, tree) ? run : tree;
}

/* Count @node, due, into the ready prefix of its sequence (@state READY or RUN_READY). */
static inline void delayq_count_due(struct tempo_delayq *q, struct tempo_delayq_node *node,
				    enum delayq_state state)
{
	delayq_set_state(node, state);
	q->nready++;
	delayq_count(q, DELAYQ_STAT_EXPIRED);
}

/* Under the lock: drop it and take it again; interrupts come on between. */
static inline void delayq_relock(struct tempo_delayq *q, unsigned long *flags)
	__must_hold(&q->wait.lock)
{
	spin_unlock_irqrestore(&q->wait.lock, *flags);
	spin_lock_irqsave(&q->wait.lock, *flags);
}

/*
 * kmod/delayq.c: a critical section's end, the sort step, the waker, an
 * unlink, the first node (due, or due or not) for the queries.
 */
ktime_t delayq_work_at(const struct tempo_delayq *q);
bool delayq_advance(struct tempo_delayq *q, s64 last, unsigned int budget);
void delayq_unlink(struct tempo_delayq *q, struct tempo_delayq_node *node, ktime_t deadline);
void delayq_waker_fired(struct tempo_timer *timer);
void delayq_unlock(struct tempo_delayq *q, unsigned long flags) __releases(&q->wait.lock);
bool delayq_unlock_quiet(struct tempo_delayq *q, unsigned long flags) __releases(&q->wait.lock);
struct tempo_delayq_node *delayq_next_sorted(struct tempo_delayq *q, unsigned long *flags)
	__must_hold(&q->wait.lock);
struct tempo_delayq_node *delayq_first_ahead(struct tempo_delayq *q, unsigned long *flags)
	__must_hold(&q->wait.lock);

/* Sort up to the latest reading, DQ_STEP nodes per critical section. */
static inline void delayq_catch_up(struct tempo_delayq *q, unsigned long *flags)
	__must_hold(&q->wait.lock)
{
	while (!delayq_advance(q, dq_grain(q->now), DQ_STEP))
		delayq_relock(q, flags);
}

/* kmod/delayq_life.c: the count of due nodes, for stats() and the alarms. */
bool delayq_count_ready(struct tempo_delayq *q, unsigned int budget);

/* kmod/delayq_clock.c: other clocks and alarms, for create(), destroy() and the unlock. */
void delayq_clocks_add(struct tempo_delayq *q);
void delayq_clocks_del(struct tempo_delayq *q);
void delayq_alarm_aim(struct tempo_delayq *q);
ktime_t delayq_alarm_queued(struct tempo_delayq *q);

#endif /* _TEMPO_DELAYQ_INTERNAL_H */
