/* SPDX-License-Identifier: GPL-2.0 */
/**
 * DOC: tempo ordered scheduler usage
 *
 * Parallel work, completions strictly in ticket order, run by whichever
 * thread holds the oldest unfinished ticket. There is no consumer thread.
 * See the top of kmod/order.c for the mechanism.
 *
 * A driver that processes requests in parallel but must complete them in the
 * order they arrived::
 *
 *	struct foo_req {
 *		struct tempo_order_req	ord;
 *		...
 *	};
 *
 *	static void foo_work(struct tempo_order_req *r)	// parallel, may sleep
 *	{
 *		struct foo_req *req = container_of(r, struct foo_req, ord);
 *		...
 *	}
 *
 *	static void foo_done(struct tempo_order_req *r)	// in submission order
 *	{
 *		struct foo_req *req = container_of(r, struct foo_req, ord);
 *		...
 *		kfree(req);
 *	}
 *
 *	o = tempo_order_create(256, NULL);
 *	...
 *	err = tempo_order_submit(o, &req->ord, foo_work, foo_done, 0);
 *	...
 *	tempo_order_destroy(o);		// once every submitted req is done
 *
 * or, with the caller's own threads (work in the caller, completion by
 * whoever holds the head)::
 *
 *	err = tempo_order_ticket(o, &t);	// in input order; sleeps if full
 *	...					// process, in parallel
 *	if (failed)
 *		tempo_order_trash(o, t);
 *	else
 *		tempo_order_run(o, t, foo_write, out);
 *
 * Every ticket taken must reach tempo_order_run() or tempo_order_trash()
 * exactly once, or be timed out by the domain's missing-ticket deadline:
 * until then every later completion waits for it.
 */

/**
 * DOC: tempo ordered scheduler concurrency and contexts
 *
 * On one domain, "-" means the two may run concurrently from any CPUs
 * without a lock; "1" means the second of two calls for the same ticket
 * fails with -EINVAL (for different tickets: "-"); "S" means the caller must
 * serialise them::
 *
 *	           | ticket | run | trash | submit | stats | destroy
 *	ticket     |   -    |  -  |   -   |   -    |   -   |    S
 *	run        |        |  1  |   1   |   -    |   -   |    S
 *	trash      |        |     |   1   |   -    |   -   |    S
 *	submit     |        |     |       |   -    |   -   |    S
 *	stats      |        |     |       |        |   -   |    S
 *
 * trash_below() is a trash() of each ticket of its range, with the same
 * rules ("1" against run and trash of any of them). tickets() and
 * tickets_try() are a ticket() taking several at once, with its rules.
 *
 * Completion functions never run concurrently with each other, and each runs
 * exactly once. The completion of ticket t happens-before that of every later
 * ticket (all of t's stores are visible to them).
 *
 * Contexts:
 *
 *  - tempo_order_ticket_try(), tempo_order_tickets_try(), tempo_order_run(),
 *    tempo_order_trash(), tempo_order_trash_below() and tempo_order_stats():
 *    any context except NMI, lock-free (atomics only; the one lock they may
 *    take is the wait queue lock of blocked tempo_order_ticket() callers,
 *    and arming the deadline timer may take what tempo_timer_arm_at()
 *    takes). Completions run in the caller's context when it is the head,
 *    at most max_streak of them; the rest continue on a workqueue in
 *    process context.
 *  - tempo_order_ticket(), tempo_order_tickets(), tempo_order_submit()
 *    without TEMPO_ORDER_NOWAIT, tempo_order_create() and
 *    tempo_order_destroy(): process context, may sleep.
 *  - A completion must not wait for a ticket of its own domain (the head
 *    cannot move while it runs); it may run or trash later tickets.
 */
#ifndef _TEMPO_ORDER_H
#define _TEMPO_ORDER_H

#include <linux/bits.h>
#include <linux/llist.h>
#include <linux/types.h>
#include <linux/workqueue.h>

struct tempo_order;

/**
 * typedef tempo_order_fn_t - a completion, run in ticket order
 * @arg: the argument given to tempo_order_run().
 *
 * Runs in the context of whichever caller holds the head (see the contexts
 * above), or in process context on the tempo_order workqueue. It must not
 * sleep unless every caller of tempo_order_run() and tempo_order_trash() on
 * its domain may sleep.
 */
typedef void (*tempo_order_fn_t)(void *arg);

/* Longest window tempo_order_create() accepts. */
#define TEMPO_ORDER_MAX_WINDOW		BIT(20)
/* max_streak used when tempo_order_opts.max_streak is 0. */
#define TEMPO_ORDER_DEFAULT_STREAK	64
/*
 * Most requests of tempo_order_submit() that one work item runs: a work_fn
 * that sleeps delays at most this many less one.
 */
#define TEMPO_ORDER_SUBMIT_BATCH	16

/**
 * struct tempo_order_opts - options of an ordering domain
 * @first_ticket: the first ticket handed out. Tickets are u64 and compared
 *	with signed differences, so any start works; tests start near U64_MAX.
 * @deadline_ns: if nonzero, a ticket neither run nor trashed within this
 *	many nanoseconds of being taken is trashed when it is the oldest
 *	unfinished ticket, and counted as timed out.
 * @max_streak: how many tickets one head holder moves the head past before it
 *	hands the rest to the workqueue; 0 means TEMPO_ORDER_DEFAULT_STREAK.
 */
struct tempo_order_opts {
	u64	first_ticket;
	u64	deadline_ns;
	u32	max_streak;
};

/**
 * struct tempo_order_stats - counters of a domain (or of all of them)
 * @taken: tickets taken.
 * @completed: completions run.
 * @trashed: tickets passed to tempo_order_trash().
 * @timed_out: tickets trashed by the missing-ticket deadline.
 * @stored: completions stored now, waiting for their turn.
 * @pending: tickets taken and not yet finished (completed, trashed or timed
 *	out); taken == completed + trashed + timed_out + pending when quiescent.
 * @longest_streak: the most tickets one head holder moved the head past.
 * @deferred: times a head holder handed the rest of its streak to the
 *	workqueue.
 * @waits: times a caller found the window full and slept for room
 *	(tempo_order_ticket(), tempo_order_tickets(), a blocking
 *	tempo_order_submit()); once per call, however long.
 *
 * Sums of per-CPU counters read without a lock: exact only when the domain
 * is quiescent.
 */
struct tempo_order_stats {
	u64	taken;
	u64	completed;
	u64	trashed;
	u64	timed_out;
	u64	stored;
	u64	pending;
	u64	longest_streak;
	u64	deferred;
	u64	waits;
};

struct tempo_order_req;

/**
 * typedef tempo_order_req_fn_t - work or completion of a submitted request
 * @req: the request given to tempo_order_submit().
 */
typedef void (*tempo_order_req_fn_t)(struct tempo_order_req *req);

/**
 * struct tempo_order_req - a request for tempo_order_submit(), embedded by
 *	the caller (like padata_priv)
 * @work: private.
 * @node: private.
 * @order: private.
 * @ticket: the ticket it was given; read-only for the caller.
 * @work_fn: private.
 * @done_fn: private.
 * @cpu: private.
 * @status: 0 when @done_fn runs in order. Nonzero when the domain's deadline
 *	timed the ticket out before @work_fn returned: @done_fn then runs
 *	once, at once, out of order, so that the request can be released.
 *	That is -ETIME, or -EINVAL once a later ticket of the same slot has
 *	timed out too (see tempo_order_run()); treat any nonzero value as
 *	"released out of order".
 */
struct tempo_order_req {
	struct work_struct	work;
	struct llist_node	node;
	struct tempo_order	*order;
	u64			ticket;
	tempo_order_req_fn_t	work_fn;
	tempo_order_req_fn_t	done_fn;
	int			cpu;
	int			status;
};

/* tempo_order_submit() flags */
#define TEMPO_ORDER_NOWAIT	BIT(0)	/* -EAGAIN instead of sleeping when full */
/* work_fn on the online CPUs in turn, not on the submitting CPU */
#define TEMPO_ORDER_SPREAD	BIT(1)
#define TEMPO_ORDER_SUBMIT_FLAGS	(TEMPO_ORDER_NOWAIT | TEMPO_ORDER_SPREAD)

struct tempo_order *tempo_order_create(u32 window,
				       const struct tempo_order_opts *opts);
void tempo_order_destroy(struct tempo_order *order);

int tempo_order_ticket_try(struct tempo_order *order, u64 *ticket);
int tempo_order_ticket(struct tempo_order *order, u64 *ticket);
int tempo_order_tickets_try(struct tempo_order *order, u32 want, u64 *first);
int tempo_order_tickets(struct tempo_order *order, u32 want, u64 *first);
int tempo_order_run(struct tempo_order *order, u64 ticket,
		    tempo_order_fn_t fn, void *arg);
int tempo_order_trash(struct tempo_order *order, u64 ticket);
int tempo_order_trash_below(struct tempo_order *order, u64 end);

int tempo_order_submit(struct tempo_order *order, struct tempo_order_req *req,
		       tempo_order_req_fn_t work_fn,
		       tempo_order_req_fn_t done_fn, unsigned int flags);

void tempo_order_stats(struct tempo_order *order,
		       struct tempo_order_stats *stats);

#endif /* _TEMPO_ORDER_H */
