/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tempo delay queue: items put with a delay become available to take() once
 * their deadline has passed, in deadline order, and no consumer ever does a
 * timed wait to learn when that is. This header is the contract: what each
 * call does, with what and in which contexts it may run, and what it costs.
 * How the queue does it is kmod/delayq.c's design comment (DOC: sections,
 * also in Documentation/tempo.rst).
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
 *	if (tempo_delayq_remove(q, &foo->dq))
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
 *	put is put, put_at and put_many; take* is take, take_timeout,
 *	try_take, take_many and consume; remove is remove, remove_many,
 *	requeue and move;
 *	peek/size is peek, size, ready, query, stats, waitqueue and announce.
 *	(1) A take() or consume(TEMPO_DELAYQ_WAIT) already asleep when
 *	    destroy starts is woken, returns -ESHUTDOWN, and destroy waits
 *	    for it to leave; a take() that has not yet reached the queue is
 *	    the caller's bug, so shut down and stop the consumers before
 *	    destroy.
 *	(2) Concurrent with destroy, a remove() that claims a node first wins
 *	    and destroy does not hand that node back; it must return before
 *	    destroy does.
 *
 * Every call but the sleeping part of take*() does what it reports in one
 * critical section of the queue's spinlock, so each sees the queue at one
 * instant. A call that looks for due items (take*(), ready(), stats()) or
 * for the earliest (peek()) may first sort items in, a
 * bounded number per critical section, dropping the lock between; a batch
 * (take_many, consume) does so between two of its items too, where the next
 * item due must first be sorted in, so that it takes every item due at the
 * call. A consume
 * callback runs inside consume's critical section: it must not sleep and
 * must not call into the queue, and nothing it is shown can be taken or
 * removed while it runs. An item it answers TEMPO_DELAYQ_STOP stays queued
 * as it was; one it answers TEMPO_DELAYQ_AGAIN never leaves the queue: a
 * remove() before, during (it waits) or after the call finds it queued.
 *
 * Per node: a node is on at most one queue at a time. put() of a node that is
 * queued returns -EBUSY. A node is the caller's, and may be freed or put
 * again at once, when take*() returned it, when remove() returned true for
 * it, and when destroy handed it back: the queue keeps no reference to a
 * node that is not queued.
 *
 * Contexts: put, put_at, put_many, remove, remove_many, try_take, take_many,
 * consume without TEMPO_DELAYQ_WAIT, peek, size, ready, query, stats, move
 * and announce never sleep and may be called from any context except NMI (they take the
 * queue's spinlock with interrupts saved). take, take_timeout and consume
 * with TEMPO_DELAYQ_WAIT sleep interruptibly in process context; destroy may
 * sleep; shutdown does not. No critical section does work that grows with
 * the number of items queued beyond O(log n) for one item, except the
 * batches whose size the caller passes (put_many, remove_many, take_many,
 * consume's @max); sorting items in is done a bounded number of items per
 * critical section, with the lock dropped (and the caller's interrupt
 * state restored) between. A call that looks for due items sorts in what
 * it needs first. The queue's own timer does a bounded amount of work per
 * expiry whatever the queue holds, in the tempo timer interrupt of its CPU,
 * which runs every such callback of that CPU in turn; sorting beyond that
 * bound is done by
 * whoever waits on the queue, in its own context (a consumer asleep, woken
 * for it, or else the watchers, woken once with no poll key to look again).
 * Nobody waiting, nothing is sorted until a caller looks.
 *
 * Costs: put and remove O(1) for an item due after the queue's current
 * grain (2^20 ns of its clock, about a millisecond); for an item due within
 * it or earlier, O(1) if it comes after every such item that came in order
 * (timeouts of one length put in turn), else O(log s) in their number s.
 * Taking the earliest item is O(1) or O(log s) likewise. Each item is moved
 * a bounded number of times (at most seven) on its way to being due.
 *
 * Time: the queue's clock, CLOCK_MONOTONIC (ktime_get()) unless it was made
 * with tempo_delayq_create_clock() for CLOCK_BOOTTIME (ktime_get_boottime():
 * it counts suspend) or CLOCK_REALTIME (ktime_get_real(): a set of the wall
 * clock moves every deadline with it). Deadlines, put()'s "now" and the
 * times consume() reports are that clock's. An item is never available
 * before its deadline: only once a reading of the clock taken after its put
 * has reached it, whatever the clock did meanwhile (a REALTIME item due
 * and not yet taken when the clock is set back before its deadline waits
 * for the clock to reach it again). Items are taken in deadline order, items
 * of equal deadlines in put order. A consumer that comes by (take*(), or a watcher's ready()) reads
 * the clock when the earliest item is not known to be due, so it gets that
 * item once its deadline has passed; a consumer asleep is woken by the
 * waker, a TEMPO_TIMER_FINE | TEMPO_TIMER_IRQ timer, at most the least
 * @slack_us of the items queued since the queue was last empty, or the
 * FINE bound if that is more, after the deadline (include/tempo/timer.h,
 * "tempo timer time bounds"), whatever the delay. consume() tells when the
 * queue found each item due: the queue's latest clock
 * reading, at or after the item's deadline and taken no later than
 * consume's own critical section. A queue of another clock keeps those
 * bounds while its clock runs; when the clock is set or the machine resumes,
 * its waker is aimed anew within the time the system workqueue takes to run
 * one work item, which visits each such queue once (kmod/clock.c): an item
 * that the change made due is then taken or its consumer woken within that
 * bound again.
 *
 * Alarm queues: tempo_delayq_create_clock(CLOCK_BOOTTIME_ALARM) or
 * (CLOCK_REALTIME_ALARM) makes a queue of CLOCK_BOOTTIME or CLOCK_REALTIME,
 * with everything above, that also wakes the machine from suspend (S3 or
 * suspend-to-idle) for its deadlines, as a timerfd of that clock does:
 * while it holds an item whose deadline has not passed it keeps a kernel
 * alarm (kernel/time/alarmtimer.c) aimed no later than the first such
 * deadline (by less than 2^20 ns when that is closer), whether or not
 * anybody waits; before each suspend the module aims it at that deadline
 * exactly, and the kernel programs the RTC for the earliest alarm of the
 * system. So a suspended machine wakes for the first item no earlier than
 * its deadline less the RTC's resolution (a second on a PC), and its
 * consumer asleep is woken after the resume as soon as the hrtimers run
 * again, by the alarm's callback (the item is takeable from its deadline
 * on, never earlier). The kernel refuses a suspend that begins less than two
 * seconds before an alarm (-EBUSY). No capability is asked here: who may
 * wake the machine is the caller's to decide (CAP_WAKE_ALARM for a user).
 * The queue holds no wakeup source: a system that suspends on its own keeps
 * itself awake for the consumer. Creation fails where the kernel has no RTC
 * to wake the machine with. The alarm's callback runs in the hrtimer
 * interrupt, does a bounded amount of work per expiry (as the waker), and
 * takes the queue's lock, as every call does, with interrupts off; an
 * alarm queue costs a hard interrupt per first deadline and a sort of its
 * items before each suspend, O(items) in steps, in process context.
 *
 * Wake-ups: consumers sleep as exclusive waiters (FIFO). When items become
 * takeable one consumer is woken; a consumer that leaves items takeable
 * wakes the next, so one more consumer runs per takeable item at most and no
 * herd forms. Watchers, which only want to learn that an item is due, wait on
 * tempo_delayq_waitqueue(), which consumers are not on: a watcher, exclusive
 * or not, never takes a consumer's wake-up. Every call wakes whoever its
 * change concerns before it returns, but tempo_delayq_move(), which wakes
 * nobody and says whether its caller must tempo_delayq_announce() the
 * change once it holds no lock of its own.
 */
#ifndef _TEMPO_DELAYQ_H
#define _TEMPO_DELAYQ_H

#include <linux/bits.h>
#include <linux/types.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/rbtree.h>
#include <linux/wait.h>
#include <tempo/timer.h>

struct tempo_delayq;

/**
 * struct tempo_delayq_node - an item's handle in a delay queue
 * @rb:		in the queue's tree while queued there; private.
 * @entry:	in a slot of the queue's wheel, or in its run of sorted items
 *		that came in order, while queued there; private.
 * @q:		the queue the node was last put on; private.
 * @deadline:	when the item becomes available (the queue's clock). Readable by
 *		the owner of a node it took; set by put.
 * @seq:	put order, for items of equal deadlines; private.
 * @state:	enum in kmod/delayq.c, under the queue's lock; private.
 * @level:	the wheel level of a node in @entry; private.
 * @slot:	its slot on that level; private.
 * @slack_us:	how late, in microseconds, the waker that makes the item's
 *		readiness known (the wake-up of a consumer, the poll edge) may
 *		come after @deadline; 0 (tempo_delayq_node_init()) for none.
 *		Set before put or inside a requeue's callback. The item is
 *		takeable from @deadline on whatever it says.
 *
 * Embed it in the item and initialise it with tempo_delayq_node_init() once.
 * 56 bytes on 64-bit kernels.
 */
struct tempo_delayq_node {
	union {
		struct rb_node		rb;
		struct list_head	entry;
	};
	struct tempo_delayq	*q;
	ktime_t			deadline;
	u64			seq;
	u8			state;
	u8			level;
	u8			slot;
	u32			slack_us;
};

/**
 * struct tempo_delayq_stats - counters of one queue or of the whole module
 * @put:	items accepted by put/put_at/put_many
 * @expired:	items found due (deadline passed, by a clock reading); an item
 *		consume() keeps with TEMPO_DELAYQ_AGAIN counts again each time
 *		its new deadline passes
 * @taken:	items returned by take, take_timeout, try_take and take_many, and
 *		items consume() took (TEMPO_DELAYQ_TAKE)
 * @requeued:	TEMPO_DELAYQ_AGAIN verdicts: items that were due and stay
 *		queued for a later deadline (neither put nor taken again)
 * @removed:	items removed by remove/remove_many
 * @flushed:	items handed back (or dropped) by destroy
 * @wakeups:	wake-ups that selected a consumer asleep in take*()
 * @pending:	items waiting for their deadline, now (queue only)
 * @ready:	items whose deadline has passed, now (queue only)
 * @waiters:	consumers in take*() that sleep or may sleep, now (queue only)
 * @alarm:	an alarm queue's: the time of its clock its alarm is queued
 *		for among the kernel's alarms (whose earliest the RTC is set
 *		for at suspend) as the call begins, no later than the first
 *		deadline still to come; KTIME_MAX, not queued (nothing to
 *		come, or it fired and its callback is on its way); 0 for
 *		another queue (queue only)
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
	u32	pending;
	u32	ready;
	u32	waiters;
	ktime_t	alarm;
};

/**
 * typedef tempo_delayq_release_fn - receives the items destroy hands back
 * @node: an item that was still queued; it is the caller's and may be freed.
 * @arg: the argument given to tempo_delayq_destroy().
 */
typedef void (*tempo_delayq_release_fn)(struct tempo_delayq_node *node,
					void *arg);

/**
 * enum tempo_delayq_verdict - what a consume callback does with the item it is shown
 * @TEMPO_DELAYQ_TAKE:  the item leaves the queue as take() would return it.
 * @TEMPO_DELAYQ_AGAIN: the item stays queued, pending until node->deadline, which the
 *                      callback has moved later (a periodic item): placed again by its new
 *                      deadline without leaving the queue, so remove() never finds it missing.
 * @TEMPO_DELAYQ_STOP:  leave the item queued as it is, still takeable, and stop.
 */
enum tempo_delayq_verdict { TEMPO_DELAYQ_TAKE, TEMPO_DELAYQ_AGAIN, TEMPO_DELAYQ_STOP };

/**
 * typedef tempo_delayq_consume_fn - decide the fate of a takeable item
 * @node: the earliest takeable item (the one take() would return now); with
 *        TEMPO_DELAYQ_ALL, the earliest item, due or not
 * @due:  when the queue found it due: a reading of the queue's clock, never before
 *        node->deadline (but with TEMPO_DELAYQ_ALL, where it may be) and never after
 *        consume's own critical section
 * @arg:  consume's @arg
 *
 * Runs under the queue's spinlock with interrupts off: it must not sleep and must not
 * call into the queue. It must not free @node (for TAKE, the caller owns the node once
 * consume returns). It may change node->deadline only when it returns
 * TEMPO_DELAYQ_AGAIN, and then only to a later time within tempo_timer_max_delay_ns() of
 * now.
 *
 * Return: the verdict for @node.
 */
typedef enum tempo_delayq_verdict (*tempo_delayq_consume_fn)(struct tempo_delayq_node *node,
							     ktime_t due, void *arg);

/**
 * typedef tempo_delayq_requeue_fn - update an item as tempo_delayq_requeue() moves it
 * @node: the item, queued, about to wait for its new deadline
 * @arg:  the argument given to tempo_delayq_requeue()
 *
 * Runs under the queue's lock with interrupts off, where no consume()
 * callback can be shown the item: what such a callback reads of the item
 * may change here. It must not sleep, must not call into the queue and must
 * not change @node.
 */
typedef void (*tempo_delayq_requeue_fn)(struct tempo_delayq_node *node, void *arg);

#define TEMPO_DELAYQ_WAIT	BIT(0)	/* sleep (as take()) until an item is takeable */
#define TEMPO_DELAYQ_ALL	BIT(1)	/* every item, due or not (not with WAIT) */

/* What tempo_delayq_query() finds: a queued item waits, or may be taken now. */
#define TEMPO_DELAYQ_PENDING	1
#define TEMPO_DELAYQ_TAKEABLE	2

struct tempo_delayq *tempo_delayq_create(void);
struct tempo_delayq *tempo_delayq_create_clock(clockid_t clock);
void tempo_delayq_shutdown(struct tempo_delayq *q);
unsigned int tempo_delayq_destroy(struct tempo_delayq *q,
				  tempo_delayq_release_fn release, void *arg);

void tempo_delayq_node_init(struct tempo_delayq_node *node);

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
int tempo_delayq_take_many(struct tempo_delayq *q, struct tempo_delayq_node **nodes,
			   unsigned int max);
int tempo_delayq_consume(struct tempo_delayq *q, tempo_delayq_consume_fn fn, void *arg,
			 unsigned int max, unsigned int flags);

int tempo_delayq_requeue(struct tempo_delayq *q, struct tempo_delayq_node *node,
			 ktime_t deadline, tempo_delayq_requeue_fn fn, void *arg);
int tempo_delayq_move(struct tempo_delayq *q, struct tempo_delayq_node *node,
		      ktime_t deadline, bool *announce);
void tempo_delayq_announce(struct tempo_delayq *q);
bool tempo_delayq_remove(struct tempo_delayq *q,
			 struct tempo_delayq_node *node);
unsigned int tempo_delayq_remove_many(struct tempo_delayq *q,
				      struct tempo_delayq_node *const *nodes,
				      unsigned int n, bool *removed);

bool tempo_delayq_peek(struct tempo_delayq *q, ktime_t *deadline);
unsigned int tempo_delayq_size(struct tempo_delayq *q);
bool tempo_delayq_ready(struct tempo_delayq *q);
int tempo_delayq_query(struct tempo_delayq *q, struct tempo_delayq_node *node,
		       ktime_t *deadline);
wait_queue_head_t *tempo_delayq_waitqueue(struct tempo_delayq *q);
void tempo_delayq_stats(struct tempo_delayq *q,
			struct tempo_delayq_stats *stats);

#endif /* _TEMPO_DELAYQ_H */
