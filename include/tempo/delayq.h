/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tempo delay queue: items put with a delay become available to take() once
 * their deadline has passed, in deadline order. Items due soon wait in
 * per-tick buckets; the queue's own tempo timer fires as each tick falls due
 * and wakes one waiting consumer per item in it (items due later have a
 * timer each, which moves them into the buckets in time; the queue's timer
 * arms those within a tick of their put, all at once, so an item removed
 * before then never reaches the wheel). No consumer ever
 * does a timed wait to learn when an item expires. The design, its
 * invariants and the node state machine are at the top of kmod/delayq.c.
 *
 *	struct foo {
 *		struct tempo_delayq_node dq;
 *		...
 *	};
 *
 *	q = tempo_delayq_create();
 *	tempo_delayq_node_init(&foo->dq);
 *	tempo_delayq_put(q, &foo->dq, 200 * NSEC_PER_MSEC);
 *	...
 *	node = tempo_delayq_take(q);		// sleeps until an item is ready
 *	if (IS_ERR(node))
 *		return PTR_ERR(node);		// -ERESTARTSYS, -EINTR, -ESHUTDOWN
 *	foo = container_of(node, struct foo, dq);
 *	...
 *	// or decide each item's fate under the queue's lock, as it is taken:
 *	static enum tempo_delayq_verdict foo_fire(struct tempo_delayq_node *node,
 *						  ktime_t due, void *arg)
 *	{
 *		struct foo *foo = container_of(node, struct foo, dq);
 *
 *		foo->fired = due;		// when the queue found it due
 *		if (!foo->period)
 *			return TEMPO_DELAYQ_TAKE;	// leaves the queue: ours
 *		node->deadline = ktime_add_ns(node->deadline, foo->period);
 *		return TEMPO_DELAYQ_AGAIN;	// stays queued for its next deadline
 *	}
 *	n = tempo_delayq_consume(q, foo_fire, NULL, 16, TEMPO_DELAYQ_WAIT);
 *	...
 *	if (tempo_delayq_remove_sync(q, &foo->dq))
 *		kfree(foo);			// it was queued; now it is ours
 *	...
 *	tempo_delayq_shutdown(q);		// blocked take()s return -ESHUTDOWN
 *	(stop the consumers)
 *	tempo_delayq_destroy(q, foo_release, NULL);	// hands back what is left
 *
 * Concurrency contract, for one queue. "-" means the two may run concurrently
 * from any CPUs without a lock of the caller's; "S" means the caller must
 * serialise them; "X" means the second must not start once the first has.
 *
 *	          | put | take* | remove | peek/size | shutdown | destroy
 *	put       |  -  |   -   |   -    |     -     |    -     |   X
 *	take*     |     |   -   |   -    |     -     |    -     |   X (1)
 *	remove    |     |       |   -    |     -     |    -     |   X (2)
 *	peek/size |     |       |        |     -     |    -     |   X
 *	shutdown  |     |       |        |           |    -     |   X
 *	destroy   |     |       |        |           |          |   S
 *
 *	take* is take, take_timeout, try_take, drain and consume; peek/size
 *	is peek, size, ready, query, stats and wake_poll.
 *	(1) A take() or consume(TEMPO_DELAYQ_WAIT) already asleep when
 *	    destroy starts is woken, returns -ESHUTDOWN, and destroy waits
 *	    for it to leave; a take() that has not yet reached the queue is
 *	    the caller's bug, so shut down and stop the consumers before
 *	    destroy.
 *	(2) Concurrent with destroy, a remove() that claims a node first wins
 *	    and destroy does not hand that node back.
 *
 * A consume callback runs inside consume's critical section: every other
 * call on the queue waits for it but the lock-free part of put() (the
 * inbox), so it must not call into the queue, and nothing it is shown can
 * be taken, removed or handed back while it runs. An item it answers
 * TEMPO_DELAYQ_AGAIN never leaves the queue: a remove() before, during
 * (it waits) or after the call finds it queued.
 *
 * Per node: a node is on at most one queue at a time. put() of a node that is
 * queued returns -EBUSY. A node may be freed once destroy handed it back, once
 * tempo_delayq_remove_sync() removed it, or once take*() returned it; but if
 * tempo_delayq_remove() (not _sync) was ever used on it since the last sync,
 * call tempo_delayq_node_sync() first: a cancelled timer can stay linked in
 * the wheel until its owner CPU drains it (kmod/wheel.c), so only
 * tempo_timer_cancel_sync() ends the wheel's use of the node's memory.
 *
 * Contexts: put, put_at, remove, try_take, drain, consume without
 * TEMPO_DELAYQ_WAIT, peek, size, ready, query, stats and wake_poll never
 * sleep and may be called from any context except NMI (they take the
 * queue's spinlock with interrupts saved; put of an item due within the near
 * window mostly takes none). take,
 * take_timeout and consume with TEMPO_DELAYQ_WAIT sleep interruptibly in
 * process context. remove_sync, node_sync and destroy may sleep; shutdown
 * does not. A consume callback runs with the queue's spinlock held and
 * interrupts off.
 *
 * For a file interface: read() is consume(), with TEMPO_DELAYQ_WAIT unless
 * O_NONBLOCK (-EAGAIN when nothing is ready); its callback copies each record
 * out with page faults disabled and answers STOP when the copy faults (the
 * record stays queued; read() then faults the page in and calls again), TAKE
 * for a one-shot record, AGAIN for a periodic one whose next deadline it set.
 * poll() is poll_wait(file, tempo_delayq_waitqueue(q), pt) followed by
 * tempo_delayq_ready(q) for EPOLLIN; the file's other events (EPOLLOUT, say)
 * go to its pollers through tempo_delayq_wake_poll(), which consumers asleep
 * in take*() ignore. Expiries wake all pollers (with EPOLLIN,
 * or with no key when several items fall due at once) and shutdown wakes
 * everyone; poll waiters are not exclusive, so they never take
 * a wake-up meant for a consumer.
 *
 * Time: CLOCK_MONOTONIC (ktime_get()). An item is never available before its
 * deadline, and becomes available at the end of the wheel tick it falls in
 * (however long its delay: a long delay's timer is moved closer in stages),
 * to a consumer that comes by then; a consumer asleep is woken by the
 * queue's timer, one more tick at most plus the time the timer workqueue
 * takes to run. consume() tells when the queue found each item due: a clock
 * reading at or after its deadline, taken no later than consume's own
 * critical section; for an item in the near window, the reading that made
 * its tick due, so past the end of that tick; for an item put already due,
 * put's own reading. Items are taken in deadline order to the tick. Two
 * exceptions: items due in the same tick may come out in either order (in
 * put order, or by deadline for items put already due), and an item whose
 * early-stage timer (or the queue's timer that arms it) is held off for
 * more than 96 ticks may be overtaken (kmod/delayq.c).
 */
#ifndef _TEMPO_DELAYQ_H
#define _TEMPO_DELAYQ_H

#include <linux/bits.h>
#include <linux/types.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/ktime.h>
#include <linux/wait.h>
#include <tempo/timer.h>

struct tempo_delayq;

/**
 * struct tempo_delayq_node - an item's handle in a delay queue
 * @timer:	the item's timer while it is due beyond the near window; private.
 * @entry:	on the queue's far list, a near bucket or the ready list; private.
 * @inbox:	on the queue's inbox, between a lock-free put and the queue
 *		taking it in (shares @entry's memory); private.
 * @q:		the queue the node was last put on; private.
 * @deadline:	when the item becomes available (CLOCK_MONOTONIC). Readable by
 *		the owner of a node it took; set by put.
 * @state:	enum in kmod/delayq.c, under the queue's lock but for put's
 *		claim (a cmpxchg); private.
 * @due:	when the queue found a READY node due (a put's reading for
 *		one put already due); private: consume() reports it.
 * @near:	1 + the near bucket holding the node, or 0; private.
 * @far:	how a far node waits: its timer at an early stage, at the
 *		deadline, or not armed yet; private.
 * @stale:	an expiry callback is in flight for a removed node; private.
 *
 * Embed it in the item and initialise it with tempo_delayq_node_init() once.
 * 112 bytes on 64-bit kernels (the timer's 64 included).
 */
struct tempo_delayq_node {
	struct tempo_timer	timer;
	union {
		struct list_head	entry;
		struct llist_node	inbox;
	};
	struct tempo_delayq	*q;
	ktime_t			deadline;
	ktime_t			due;
	u32			state;
	u16			near;
	bool			stale;
	u8			far;
};

/**
 * struct tempo_delayq_stats - counters of one queue or of the whole module
 * @put:	items accepted by put/put_at
 * @expired:	items that became ready (deadline passed, by a clock reading);
 *		an item consume() keeps with TEMPO_DELAYQ_AGAIN counts again
 *		each time its new deadline passes
 * @taken:	items returned by take, take_timeout, try_take and drain, and
 *		items consume() took (TEMPO_DELAYQ_TAKE)
 * @requeued:	TEMPO_DELAYQ_AGAIN verdicts: items that were ready and stay
 *		queued for a later deadline (neither put nor taken again)
 * @removed:	items removed by remove/remove_sync
 * @flushed:	items handed back (or dropped) by destroy
 * @wakeups:	wake-ups delivered to consumers asleep in take/take_timeout
 * @rearmed:	expiries that came before the deadline and were re-armed
 *		(the timer contract says never; this is the guard's count)
 * @staged:	expiries of a long delay's early stage, re-armed closer to
 *		the deadline (see "Time" above)
 * @pending:	items waiting for their deadline, now (queue only)
 * @ready:	items ready to be taken, now (queue only)
 * @waiters:	consumers asleep in take/take_timeout, now (queue only)
 *
 * put = taken + removed + flushed + pending + ready at every instant the
 * queue's lock is free: a requeued item is counted once in put, and in
 * pending or ready until it is taken, removed or flushed.
 */
struct tempo_delayq_stats {
	u64	put;
	u64	expired;
	u64	taken;
	u64	requeued;
	u64	removed;
	u64	flushed;
	u64	wakeups;
	u64	rearmed;
	u64	staged;
	u32	pending;
	u32	ready;
	u32	waiters;
};

/**
 * typedef tempo_delayq_release_fn - receives the items destroy hands back
 * @node: an item that was still queued; it is idle and may be freed.
 * @arg: the argument given to tempo_delayq_destroy().
 */
typedef void (*tempo_delayq_release_fn)(struct tempo_delayq_node *node,
					void *arg);

/**
 * enum tempo_delayq_verdict - what a consume callback does with the item it is shown
 * @TEMPO_DELAYQ_TAKE:  the item leaves the queue as take() would return it (state TAKEN).
 * @TEMPO_DELAYQ_AGAIN: the item stays queued, pending until node->deadline, which the
 *                      callback has moved later (a periodic item): re-linked as put() would
 *                      link it (near bucket or far timer), without leaving the queue, so
 *                      remove() never finds it missing.
 * @TEMPO_DELAYQ_STOP:  leave the item where it is, still takeable, and stop.
 */
enum tempo_delayq_verdict { TEMPO_DELAYQ_TAKE, TEMPO_DELAYQ_AGAIN, TEMPO_DELAYQ_STOP };

/**
 * typedef tempo_delayq_consume_fn - decide the fate of a takeable item
 * @node: the earliest takeable item (the one take() would return now)
 * @due:  when the queue found it due: a CLOCK_MONOTONIC reading, never before
 *        node->deadline and never after consume's own critical section. For an item
 *        put already due, put's own reading; for a near item, the reading that made
 *        its tick due; else the reading, taken under the queue's lock, that found it
 *        due.
 * @arg:  consume's @arg
 *
 * Runs under the queue's lock with interrupts off: it must not sleep, must not call into
 * the queue, may read the clock, and may copy to user memory only with page faults
 * disabled. It must not free @node (for TAKE, the caller owns the node once consume
 * returns). It may change node->deadline only when it returns TEMPO_DELAYQ_AGAIN, and
 * then only to a later time within tempo_timer_max_delay_ns() of now.
 *
 * Return: the verdict for @node.
 */
typedef enum tempo_delayq_verdict (*tempo_delayq_consume_fn)(struct tempo_delayq_node *node,
							     ktime_t due, void *arg);

#define TEMPO_DELAYQ_WAIT	BIT(0)	/* sleep (as take()) until an item is takeable */

/* What tempo_delayq_query() finds: a queued item waits, or may be taken now. */
#define TEMPO_DELAYQ_PENDING	1
#define TEMPO_DELAYQ_TAKEABLE	2

struct tempo_delayq *tempo_delayq_create(void);
void tempo_delayq_shutdown(struct tempo_delayq *q);
unsigned int tempo_delayq_destroy(struct tempo_delayq *q,
				  tempo_delayq_release_fn release, void *arg);

void tempo_delayq_node_init(struct tempo_delayq_node *node);
void tempo_delayq_node_sync(struct tempo_delayq_node *node);

int tempo_delayq_put(struct tempo_delayq *q, struct tempo_delayq_node *node,
		     u64 delay_ns);
int tempo_delayq_put_at(struct tempo_delayq *q, struct tempo_delayq_node *node,
			ktime_t deadline);
unsigned int tempo_delayq_put_many(struct tempo_delayq *q,
				   struct tempo_delayq_node *const *nodes,
				   const ktime_t *deadlines, unsigned int n, int *errp);

struct tempo_delayq_node *tempo_delayq_take(struct tempo_delayq *q);
struct tempo_delayq_node *tempo_delayq_take_timeout(struct tempo_delayq *q,
						    u64 timeout_ns);
struct tempo_delayq_node *tempo_delayq_try_take(struct tempo_delayq *q);
int tempo_delayq_drain(struct tempo_delayq *q,
		       struct tempo_delayq_node **nodes, unsigned int max);
int tempo_delayq_consume(struct tempo_delayq *q, tempo_delayq_consume_fn fn, void *arg,
			 unsigned int max, unsigned int flags);

bool tempo_delayq_remove(struct tempo_delayq *q,
			 struct tempo_delayq_node *node);
unsigned int tempo_delayq_remove_many(struct tempo_delayq *q,
				      struct tempo_delayq_node *const *nodes,
				      unsigned int n, bool *removed);
bool tempo_delayq_remove_sync(struct tempo_delayq *q,
			      struct tempo_delayq_node *node);

bool tempo_delayq_peek(struct tempo_delayq *q, ktime_t *deadline);
unsigned int tempo_delayq_size(struct tempo_delayq *q);
bool tempo_delayq_ready(struct tempo_delayq *q);
int tempo_delayq_query(struct tempo_delayq *q, struct tempo_delayq_node *node,
		       ktime_t *deadline);
wait_queue_head_t *tempo_delayq_waitqueue(struct tempo_delayq *q);
void tempo_delayq_wake_poll(struct tempo_delayq *q, __poll_t mask);
void tempo_delayq_stats(struct tempo_delayq *q,
			struct tempo_delayq_stats *stats);

#endif /* _TEMPO_DELAYQ_H */
