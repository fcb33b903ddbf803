/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tempo delay queue: items put with a delay become available to take() once
 * their deadline has passed, in deadline order. Items due soon wait in
 * per-tick buckets; the queue's own tempo timer fires as each tick falls due
 * and wakes one waiting consumer per item in it (items due later have a
 * timer each, which moves them into the buckets in time). No consumer ever
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
 *	take* is take, take_timeout, try_take and drain.
 *	(1) A take() already asleep when destroy starts is woken, returns
 *	    -ESHUTDOWN, and destroy waits for it to leave; a take() that has
 *	    not yet reached the queue is the caller's bug, so shut down and
 *	    stop the consumers before destroy.
 *	(2) Concurrent with destroy, a remove() that claims a node first wins
 *	    and destroy does not hand that node back.
 *
 * Per node: a node is on at most one queue at a time. put() of a node that is
 * queued returns -EBUSY. A node may be freed once destroy handed it back, once
 * tempo_delayq_remove_sync() removed it, or once take*() returned it; but if
 * tempo_delayq_remove() (not _sync) was ever used on it since the last sync,
 * call tempo_delayq_node_sync() first: a cancelled timer can stay linked in
 * the wheel until its owner CPU drains it (kmod/wheel.c), so only
 * tempo_timer_cancel_sync() ends the wheel's use of the node's memory.
 *
 * Contexts: put, put_at, remove, try_take, drain, peek, size and ready never
 * sleep and may be called from any context except NMI (they take the queue's
 * spinlock with interrupts saved; put of an item due within the near window
 * mostly takes none). take and take_timeout sleep interruptibly
 * in process context. remove_sync, node_sync and destroy may sleep; shutdown
 * does not.
 *
 * For a file interface: read() with O_NONBLOCK is try_take()/drain() (-EAGAIN
 * when nothing is ready), a blocking read() is take() then drain(), and poll()
 * is poll_wait(file, tempo_delayq_waitqueue(q), pt) followed by
 * tempo_delayq_ready(q) for EPOLLIN. Expiries wake all pollers (with EPOLLIN,
 * or with no key when several items fall due at once) and shutdown wakes
 * everyone; poll waiters are not exclusive, so they never take
 * a wake-up meant for a consumer.
 *
 * Time: CLOCK_MONOTONIC (ktime_get()). An item is never available before its
 * deadline, and becomes available at the end of the wheel tick it falls in
 * (however long its delay: a long delay's timer is moved closer in stages),
 * to a consumer that comes by then; a consumer asleep is woken by the
 * queue's timer, one more tick at most plus the time the timer workqueue
 * takes to run. Items are taken in deadline order to the tick. Two
 * exceptions: items due in the same tick may come out in either order (in
 * put order, or by deadline for items put already due), and an item whose
 * early-stage timer is held off for more than 96 ticks may be overtaken
 * (kmod/delayq.c).
 */
#ifndef _TEMPO_DELAYQ_H
#define _TEMPO_DELAYQ_H

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
 * @near:	1 + the near bucket holding the node, or 0; private.
 * @exact:	the timer is at the deadline, not at an early stage; private.
 * @stale:	an expiry callback is in flight for a removed node; private.
 *
 * Embed it in the item and initialise it with tempo_delayq_node_init() once.
 */
struct tempo_delayq_node {
	struct tempo_timer	timer;
	union {
		struct list_head	entry;
		struct llist_node	inbox;
	};
	struct tempo_delayq	*q;
	ktime_t			deadline;
	u32			state;
	u16			near;
	bool			stale;
	bool			exact;
};

/**
 * struct tempo_delayq_stats - counters of one queue or of the whole module
 * @put:	items accepted by put/put_at
 * @expired:	items that became ready (deadline passed, by a clock reading)
 * @taken:	items returned by take, take_timeout, try_take and drain
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
 * queue's lock is free.
 */
struct tempo_delayq_stats {
	u64	put;
	u64	expired;
	u64	taken;
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

struct tempo_delayq_node *tempo_delayq_take(struct tempo_delayq *q);
struct tempo_delayq_node *tempo_delayq_take_timeout(struct tempo_delayq *q,
						    u64 timeout_ns);
struct tempo_delayq_node *tempo_delayq_try_take(struct tempo_delayq *q);
int tempo_delayq_drain(struct tempo_delayq *q,
		       struct tempo_delayq_node **nodes, unsigned int max);

bool tempo_delayq_remove(struct tempo_delayq *q,
			 struct tempo_delayq_node *node);
bool tempo_delayq_remove_sync(struct tempo_delayq *q,
			      struct tempo_delayq_node *node);

bool tempo_delayq_peek(struct tempo_delayq *q, ktime_t *deadline);
unsigned int tempo_delayq_size(struct tempo_delayq *q);
bool tempo_delayq_ready(struct tempo_delayq *q);
wait_queue_head_t *tempo_delayq_waitqueue(struct tempo_delayq *q);
void tempo_delayq_stats(struct tempo_delayq *q,
			struct tempo_delayq_stats *stats);

#endif /* _TEMPO_DELAYQ_H */
