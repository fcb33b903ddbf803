// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: ordered scheduler
 *
 * tempo ordered scheduler: parallel work, completions in ticket order, and
 * no consumer thread.
 */

/**
 * DOC: ordered scheduler: model
 *
 * A domain hands out tickets, u64 values from a counter (next). Callers do
 * their work in parallel and then pass each ticket to run(t, fn, arg) or
 * trash(t). Completions run strictly in ticket order. Whoever finishes the
 * oldest unfinished ticket (the head) runs its own completion and then every
 * consecutive completion that others have stored: a "streak". Nobody waits
 * in run() or trash(): a caller whose ticket is not the head stores fn/arg in
 * the ticket's slot and returns. This is Intel's "ordered data streams"
 * (Documentation/tempo.rst, its last section), with padata's job (completions
 * in submission order) but without its serial worker: tempo_order_submit()
 * runs the work on per-CPU workqueues and the completion on whichever thread
 * holds the head (see "submitted requests").
 *
 * Geometry: a ring of W slots, W a power of two (the window). Ticket t uses
 * slot t & (W - 1). A ticket may be taken only while next - head < W, so
 * at most W tickets are outstanding and no two of them share a slot.
 */

/**
 * DOC: ordered scheduler: invariants
 *
 *  I1. head <= next <= head + W (signed differences: "ABA and wrap").
 *  I2. For head <= t < head + W, slot(t) is tagged t: its state word is
 *      (t << 3) | st. Every other state word is stale by definition.
 *  I3. Exactly one thread, or one queued work item, holds the head token:
 *      the right to run completions and to move head. It is created by one
 *      of the cmpxchgs marked "token" in the diagram and given up by a
 *      successful hand-off (EMPTY -> TAIL or WRITING -> WRITING_HEAD) or by
 *      queueing resume_work. Only the token holder runs completions, so
 *      they never run concurrently; each transfer is a fully ordered
 *      cmpxchg that the next holder reads (or queue_work()), so
 *      completion t happens-before completion t + 1.
 *  I4. Only the token holder writes head, and only after it has reset the
 *      slot of the ticket it passes (retire).
 */

/**
 * DOC: ordered scheduler: slot states
 *
 * 3 bits of the state word; the other 61 are the ticket tag::
 *
 *	EMPTY	 ticket not finished, not the head, nobody has arrived
 *	TAIL	 ticket is the head and nobody has arrived: who arrives runs
 *	WRITING	 the owner is storing fn/arg (not the head)
 *	WRITING_HEAD  the owner is storing, and the head holder handed it over
 *	STORED	 fn/arg stored, waiting for the head holder
 *	TRASHED	 trash() arrived before its turn: the head holder skips it
 *	RUNNING	 the owner took the head from TAIL and is running fn
 *	TIMEDOUT the deadline trashed it; the timer callback holds the head
 *
 *          retire(t - W): tag t | EMPTY  (initially slot(first) is TAIL)
 *                |
 *     +----------+--------------------+---------------------+
 *     | head holder reaches t             | run(t)              | trash(t)
 *     v                               v                     v
 *   TAIL ------- run/trash(t) ---> RUNNING (token)        TRASHED
 *     |                                                      |
 *     +---- deadline expired ---> TIMEDOUT (token)           |
 *                                                            |
 *   WRITING --- head holder reaches t ---> WRITING_HEAD         |
 *     |                              (owner sees it: token) |
 *     v owner done storing                                   |
 *   STORED ----- head holder reaches t: runs fn -----+-----------+-- skips
 *                                                |
 *   the token holder finishes t, then retire(t): tag t + W | EMPTY,
 *   head = t + 1, and looks at slot(t + 1):
 *      EMPTY -> TAIL          hand-off done, arm the deadline
 *      WRITING -> WRITING_HEAD hand-off done, the writer runs
 *      STORED                 run it, retire, go on
 *      TRASHED                skip it, retire, go on
 *
 * Every arrow is a cmpxchg of the whole state word (tag included), except
 * retire (a release store by the token holder, who owns the slot then).
 */

/**
 * DOC: ordered scheduler: the lost hand-off race
 *
 * The classic bug of this design: the owner of t + 1 stores its completion
 * at the very moment the head holder looks at slot(t + 1), finds nothing,
 * and leaves; t + 1 is then stranded forever. Both sides change slot(t + 1)
 * only by cmpxchg from the state they read:
 *
 *  - owner EMPTY -> WRITING against head holder EMPTY -> TAIL: exactly one
 *    wins. If the head holder wins, the owner's cmpxchg fails, it re-reads
 *    TAIL and takes the head itself. If the owner wins, the head holder
 *    re-reads WRITING.
 *  - owner WRITING -> STORED against head holder WRITING -> WRITING_HEAD: if
 *    the owner wins, the head holder re-reads STORED and runs it; if the
 *    head holder wins, the owner's release cmpxchg fails and it runs fn
 *    itself.
 * Each side retries at most twice per slot (the other side makes at most two
 * moves), so both run() and the streak are lock-free, and every completion
 * ends up run by exactly one thread. tools/user-cores/order_det_test.c drives
 * each of the four interleavings through the test points.
 */

/**
 * DOC: ordered scheduler: ABA and wrap
 *
 * Tickets are u64 and compared with (s64)(a - b) < 0; they never wrap in
 * practice (2^64 ns is 584 years) and still work across U64_MAX
 * (tempo_order_opts.first_ticket lets the tests start there). The tag keeps
 * the low 61 bits of the ticket: two tickets with equal tags differ by a
 * multiple of 2^61, and only tickets within W <= 2^20 of head are live.
 * No ABA on a slot: a state word tagged t can be written only while t is
 * live. Ticket t + W (the next user of slot(t)) cannot be taken until
 * head > t (I1, checked by the taker's cmpxchg on next against an acquire
 * read of head), and the token holder publishes head = t + 1 (release) only
 * after its release store of tag t + W into slot(t). So a caller holding t
 * can never find a recycled word tagged t; a late caller (t already retired)
 * finds tag t + W or later and fails with -ETIME or -EINVAL, never touching
 * the slot; and every cmpxchg compares the tag, so a preempted caller that
 * read a word tagged t cannot succeed once the slot has moved on.
 */

/**
 * DOC: ordered scheduler: missing-ticket deadline
 *
 * With tempo_order_opts.deadline_ns, one tempo_timer per domain watches the
 * head. A ticket's slot records when it was taken (taken_ns; 0 = not yet).
 * Whoever makes "t is the head, slot TAIL, and t is taken" true arms the
 * timer for taken_ns + deadline: the head holder after its EMPTY -> TAIL
 * cmpxchg if taken_ns is set, or the taker after storing taken_ns if it sees
 * head == t (a store-buffering pair with full barriers on both sides, so at
 * least one of them sees the other). The callback re-reads head and fires
 * only if slot(head) is still TAIL, taken, and expired (else it re-arms or
 * returns); its cmpxchg TAIL -> TIMEDOUT races with the owner's TAIL ->
 * RUNNING and one wins. The winner callback holds the token and runs on. A
 * WRITING slot is never timed out: its owner is already in run(). Since the
 * late owner usually finds its slot retired, the callback records the ticket
 * in slot->expired, and run() then reports -ETIME instead of -EINVAL (until
 * a later ticket of the same slot times out). A ticket times out no earlier
 * than deadline_ns after it was taken, and late by the timer's slack plus
 * workqueue latency. The clock runs from the take, not from reaching the
 * head: a ticket queued behind a stall is timed out as soon as it becomes
 * the head if its owner has still not called run() or trash().
 */

/**
 * DOC: ordered scheduler: streak bound
 *
 * A head holder moves the head past at most max_streak tickets (its own
 * included). When more are waiting it records the resume ticket and queues
 * resume_work, handing the token to it; the work continues in process
 * context, max_streak at a time, re-queueing itself. So one caller of run()
 * is not captured by everybody else's completions, and run() from atomic
 * context runs a bounded number of them.
 *
 * Concurrency matrix: see include/tempo/order.h.
 */

/**
 * DOC: ordered scheduler: submitted requests
 *
 * tempo_order_submit() takes a ticket and pushes the request on a CPU's inbox
 * of the domain, a lock-free list (llist): the submitting CPU's, or with
 * TEMPO_ORDER_SPREAD the next online CPU from a per-CPU cursor (round
 * robin). The request that finds the inbox empty queues its own work_struct
 * on that CPU; the others ride along: one work item per CPU per burst, not
 * one per request. The work item takes the whole inbox
 * (itself first, the oldest) and runs each request's work_fn, then its
 * completion through tempo_order_run(), in the order they were pushed.
 *
 * A work_fn may sleep. So that it holds up few others, a work item runs at
 * most TEMPO_ORDER_SUBMIT_BATCH requests: before it runs any, it cuts the
 * rest of its chain off and queues the first request of the rest as a work
 * item of its own on the same CPU. While a work_fn sleeps, the workqueue's
 * concurrency management (tempo's order workqueue is per-CPU, bound) runs
 * the CPU's other pending work items on another worker, the rest of the
 * chain among them. The rule: a sleeping work_fn delays only the requests after it
 * in its own work item, at most TEMPO_ORDER_SUBMIT_BATCH - 1 (and, as ever,
 * the completions after its own, which wait for it in ticket order).
 *
 * A blocking submit that finds the window full waits for room for a batch
 * (a quarter of the window), not for one ticket: the room comes back as work
 * items complete, a few tickets at a time, and a wake-up per ticket would
 * cost a context switch each. order_wake_takers() wakes such submitters only
 * then; a submitter that has waited a tick takes whatever room there is, as
 * tempo_order_ticket() would (its caller may hold the ticket the room waits
 * for).
 *
 * Why the submitting CPU by default: the request, just written, is in its
 * cache, and its worker is woken without an IPI; submitters on several CPUs
 * spread the work by themselves, as queue_work() callers do. A single
 * submitter's worker takes turns with it on its CPU; TEMPO_ORDER_SPREAD is
 * for a single submitter whose work_fns are long enough to pay for a
 * cross-CPU hand-off (a cache miss on the request, a remote wake-up).
 *
 * Destroy waits for the work items, not the requests: inflight counts the
 * work items queued and not finished with the domain. A request pushed on a
 * non-empty inbox is covered by the work item that will take it, queued
 * and not yet past its take (only it empties the inbox).
 */

/**
 * DOC: ordered scheduler: barrier pairs
 *
 * LMM(function:letter) at each access.
 *
 *   order_retire:A / order_put:A, order_put:C
 *     reset slot(t) to tag t + W (release), then the owner of t + W reads
 *     and cmpxchgs it: the head holder's reads of fn/arg for t are done before
 *     the new owner stores its own; slot->expired is visible with the tag.
 *   order_retire:B / order_take:A, order_deadline_fn:A
 *     publish head (release) after the retire, then a taker sees the room:
 *     slot(t + W) is reset (its tag, and taken_ns = 0 in a domain with a
 *     deadline) before ticket t + W exists.
 *   order_store:A / order_advance:C
 *     store fn/arg, then WRITING -> STORED (release); the head holder reads
 *     STORED (acquire) before fn/arg.
 *   order_hand_off:A / order_put:B, order_deadline_fn:B
 *     token transfer through TAIL: everything the head holder did (completions
 *     included) happens-before the new holder's completion.
 *   order_advance:E / order_store:B
 *     token transfer through WRITING_HEAD: likewise.
 *   order_note_taken:A / order_hand_off:A
 *     store-buffering: taker stores taken_ns then reads head; head holder
 *     stores head, cmpxchgs TAIL, then reads taken_ns. One arms the timer.
 *   order_wake_takers:A / prepare_to_wait_event()
 *     head moved, then check for sleepers (takers and submitters alike); a
 *     blocked taker sets its task state, then re-reads head. A streak that
 *     ends in a hand-off skips the smp_mb(): its cmpxchg (order_hand_off:A
 *     or order_advance:E), after the store of head, is the full barrier.
 *   order_defer:A / workqueue
 *     queue_work() orders the resume ticket and all completions so far
 *     before resume_work runs (its documented guarantee).
 *   order_submit_workfn:A / tempo_order_destroy()
 *     a submit work item's fully ordered decrement of inflight, its last
 *     access to the domain, against destroy's wait_var_event(): destroy
 *     frees nothing a work item still reads, and waits for no other
 *     domain's work.
 *   tempo_order_submit:A / order_submit_workfn:B
 *     fill the request, then push it (llist_add(), a full cmpxchg); the
 *     work item takes the inbox (llist_del_all(), a full xchg), then reads
 *     the requests: each is complete when read.
 *   order_submit_chain:A / workqueue
 *     as order_defer:A: the cut, and the rest's requests, are visible to
 *     the work function of the rest.
 *
 * Not guaranteed: fairness among blocked takers (woken all at once); that a
 * timed-out ticket's owner gets -ETIME rather than -EINVAL once a later
 * ticket of its slot timed out; lock-freedom on 32-bit architectures whose
 * atomic64_t is emulated with locks. run() and trash() use atomics only,
 * except that a head holder takes the wait queue lock when takers sleep in
 * tempo_order_ticket(), and what tempo_timer_arm_at() takes to arm the
 * deadline.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include <tempo/order.h>
#include <tempo/timer.h>

#include "compat.h"
#include "internal.h"
#include "testing.h"
#include "trace.h"

#define ORDER_ST_BITS	3
#define ORDER_ST_MASK	((1ULL << ORDER_ST_BITS) - 1)

/* The slot states of the design comment; test points pass them as read. */
enum order_st {
	ST_EMPTY,
	ST_TAIL,
	ST_WRITING,
	ST_WRITING_HEAD,
	ST_STORED,
	ST_TRASHED,
	ST_RUNNING,
	ST_TIMEDOUT,
};

static_assert(ST_TIMEDOUT <= ORDER_ST_MASK, "slot states must fit in the low bits");

/*
 * One slot. Cache-line aligned: the owner of t + 1 stores while the head holder
 * retires t, and they should not share a line.
 */
struct order_slot {
	atomic64_t		state;		/* (ticket << 3) | enum order_st */
	tempo_order_fn_t	fn;		/* valid in STORED */
	void			*arg;
	atomic64_t		taken_ns;	/* ktime of take, 0 = not taken */
	atomic64_t		expired;	/* last ticket of this slot timed out */
} ____cacheline_aligned_in_smp;

/*
 * Per-CPU counters, summed on read. Completions are not counted: head has
 * passed every ticket completed, trashed or timed out (order_stats_add()).
 */
struct order_pcpu {
	u64	trashed;
	u64	timed_out;
	u64	stored;
	u64	stored_run;
	u64	deferred;
	u64	waits;
};

/*
 * A CPU's requests of one domain, submitted and not yet taken by a work item
 * (tempo_order_submit()). Pushed to from any CPU: a line of its own.
 */
struct order_inbox {
	struct llist_head	reqs;
} ____cacheline_aligned_in_smp;

struct tempo_order {
	/* Read-mostly geometry and options. */
	struct order_slot	*ring;
	u64			mask;
	u64			first;
	u64			deadline_ns;
	u32			window;
	u32			max_streak;
	struct order_pcpu __percpu *pcpu;

	/* Written by every taker. */
	atomic64_t		next ____cacheline_aligned_in_smp;

	/* Written by the head token holder. */
	atomic64_t		head ____cacheline_aligned_in_smp;
	u64			resume;		/* where resume_work goes on */
	atomic64_t		longest;	/* longest streak, rarely written */

	wait_queue_head_t	wait ____cacheline_aligned_in_smp;
	wait_queue_head_t	submit_wait;	/* blocked tempo_order_submit() */
	atomic_t		inflight;	/* submit work items not yet done with us */
	struct order_inbox __percpu *inbox;	/* submitted, not yet taken */
	struct work_struct	resume_work;
	struct tempo_timer	deadline;
	struct list_head	node;		/* on order_domains */
};

/*
 * A domain is charged to the memory cgroup of its creator (a user's file, for
 * /dev/tempo), and fails with -ENOMEM at that cgroup's limit rather than
 * invoking its OOM killer.
 */
#define ORDER_GFP	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

static struct workqueue_struct *order_wq;
static DEFINE_PER_CPU(unsigned int, order_rr_cpu);

/* All live domains, and the totals of destroyed ones, for debugfs. */
static DEFINE_MUTEX(order_domains_lock);
static LIST_HEAD(order_domains);
static struct tempo_order_stats order_retired;
static u64 order_ndomains;

/* Ticket arithmetic: wrap-safe by signed difference (see "ABA and wrap"). */
static inline bool order_before(u64 a, u64 b)
{
	return (s64)(a - b) < 0;
}

static inline s64 order_word(u64 ticket, enum order_st st)
{
	return (s64)((ticket << ORDER_ST_BITS) | st);
}

static inline bool order_word_is_for(s64 word, u64 ticket)
{
	return ((u64)word & ~ORDER_ST_MASK) == ticket << ORDER_ST_BITS;
}

static inline enum order_st order_word_st(s64 word)
{
	return (u64)word & ORDER_ST_MASK;
}

static inline struct order_slot *order_slot(struct tempo_order *o, u64 t)
{
	return &o->ring[t & o->mask];
}

static inline void order_test_point(struct tempo_order *o, u64 t,
				    enum tempo_test_point where, s64 word)
{
	tempo_test_point(where, o, t, order_word_st(word));
}

static void order_arm_deadline(struct tempo_order *o, u64 expiry_ns)
{
	/* Fails only after destroy's shutdown, when nothing must fire. */
	tempo_timer_arm_at(&o->deadline, TEMPO_CPU_LOCAL, ns_to_ktime(expiry_ns));
}

/*
 * Room for a batch of submits: a quarter of the window, at least one ticket.
 * Only a gate for sleepers: the ticket is taken with its own ordering.
 */
static bool order_submit_room(struct tempo_order *o)
{
	u64 used = (u64)atomic64_read(&o->next) - (u64)atomic64_read(&o->head);

	return (s64)used < 0 || o->window - used >= max(1U, o->window / 4);
}

/*
 * Wake the takers blocked in tempo_order_ticket(), if any. Our store of head
 * (order_retire:B) must be ordered before our look at the queue. @fenced: a
 * fully ordered cmpxchg of ours came after that store (the hand-off,
 * order_hand_off:A or order_advance:E), which orders it as smp_mb() would.
 */
static void order_wake_takers(struct tempo_order *o, bool fenced)
{
	if (!fenced) {
		/*
		 * LMM(order_wake_takers:A): full barrier, then the look at
		 * the queue (wq_has_sleeper()'s pattern). Pairs with:
		 * set_current_state() in prepare_to_wait_event() of
		 * tempo_order_ticket(), which then re-reads head in
		 * tempo_order_ticket_try(). Either we see the sleeper or it
		 * sees our head.
		 */
		smp_mb();
	}
	/* Ordered after head: the smp_mb() above, or the hand-off's cmpxchg. */
	if (waitqueue_active(&o->wait))
		wake_up(&o->wait);
	/* Likewise; blocked submits only once there is room for a batch. */
	if (waitqueue_active(&o->submit_wait) && order_submit_room(o))
		wake_up(&o->submit_wait);
}

static void order_note_streak(struct tempo_order *o, u32 streak)
{
	s64 cur = atomic64_read(&o->longest);

	/* No ordering: a statistic. Written only when a record is beaten. */
	while (streak > cur && !atomic64_try_cmpxchg(&o->longest, &cur, streak))
		;
}

/*
 * The token holder has finished ticket @t: reset its slot for t + W and
 * publish head = t + 1. After this, slot(t) belongs to the owner of t + W.
 */
static void order_retire(struct tempo_order *o, u64 t)
{
	struct order_slot *slot = order_slot(o, t);

	if (o->deadline_ns)
		atomic64_set(&slot->taken_ns, 0);
	/*
	 * LMM(order_retire:A): release. Pairs with: order_put:A and
	 * order_put:C, the next owner's read and cmpxchg of this word. Our
	 * reads of fn/arg (if STORED) and the store to expired (if TIMEDOUT)
	 * are ordered before them.
	 */
	atomic64_set_release(&slot->state, order_word(t + o->window, ST_EMPTY));
	/*
	 * LMM(order_retire:B): release. Pairs with: order_take:A
	 * and order_deadline_fn:A. Relies on: order_retire:A before it, so a
	 * taker that sees room for ticket t + W finds slot(t) reset (the ABA
	 * argument in the design comment).
	 */
	atomic64_set_release(&o->head, t + 1);
}

/* The token holder hands the rest of its streak, from @t, to resume_work. */
static void order_defer(struct tempo_order *o, u64 t)
{
	WRITE_ONCE(o->resume, t);
	this_cpu_inc(o->pcpu->deferred);
	/*
	 * LMM(order_defer:A): queue_work() guarantees that the stores before a
	 * successful call (resume, all completions so far) are visible to the
	 * work function. Pairs with: order_resume_workfn(). Only the token
	 * holder queues resume_work, so it cannot be pending already.
	 */
	WARN_ON_ONCE(!queue_work(order_wq, &o->resume_work));
}

/*
 * The token holder hands the head to the owner of @t, who has not arrived:
 * EMPTY -> TAIL, from *@word. False if the word had changed (*@word is the
 * new one, read without ordering).
 */
static __always_inline bool order_hand_off(struct tempo_order *o,
					   struct order_slot *slot, u64 t,
					   s64 *word)
{
	/*
	 * LMM(order_hand_off:A): full cmpxchg, the hand-off. Pairs with:
	 * order_put:B, order_deadline_fn:B (the next token holder) and
	 * order_note_taken:A (a full barrier between head and taken_ns, for
	 * the SB pair); it is also order_wake_takers()'s barrier.
	 */
	if (!atomic64_try_cmpxchg(&slot->state, word, order_word(t, ST_TAIL)))
		return false;
	if (o->deadline_ns) {
		u64 taken = atomic64_read(&slot->taken_ns);

		if (taken)
			order_arm_deadline(o, taken + o->deadline_ns);
	}
	return true;
}

/*
 * The caller holds the head token, head == @t and @streak tickets were
 * passed in this streak so far. Move the head on until the next slot is not
 * ready (hand-off) or the streak is used up (defer).
 */
static noinline void order_advance(struct tempo_order *o, u64 t, u32 streak)
{
	struct order_slot *slot;
	tempo_order_fn_t fn;
	bool fenced = false;
	u32 stored_run = 0;
	void *arg;
	s64 word;

	for (;;) {
		slot = order_slot(o, t);
		/*
		 * LMM(order_advance:C): acquire. Pairs with: order_store:A (fn
		 * and arg are stored) and order_put:C (trash).
		 */
		word = atomic64_read_acquire(&slot->state);
retry:
		order_test_point(o, t, TEMPO_TP_ORDER_HEAD_SEEN, word);
		if (WARN_ON_ONCE(!order_word_is_for(word, t)))
			break;	/* I2 broken: stall rather than corrupt */

		switch (order_word_st(word)) {
		case ST_EMPTY:
			if (!order_hand_off(o, slot, t, &word))
				goto reread;
			fenced = true;
			goto out;
		case ST_WRITING:
			/*
			 * LMM(order_advance:E): full cmpxchg, the hand-off to
			 * a writer. Pairs with: order_store:B.
			 */
			if (!atomic64_try_cmpxchg(&slot->state, &word,
						  order_word(t, ST_WRITING_HEAD)))
				goto reread;
			fenced = true;
			goto out;
		case ST_STORED:
		case ST_TRASHED:
			if (streak >= o->max_streak) {
				order_defer(o, t);
				goto out;
			}
			streak++;
			if (order_word_st(word) == ST_STORED) {
				fn = READ_ONCE(slot->fn);
				arg = READ_ONCE(slot->arg);
				fn(arg);
				stored_run++;
			}
			order_retire(o, t);
			t++;
			continue;
		default:
			/* TAIL, RUNNING, ...: only the token holder makes them */
			WARN_ON_ONCE(1);
			goto out;
		}
reread:
		/* A failed cmpxchg gives no ordering: re-read with acquire. */
		word = atomic64_read_acquire(&slot->state);
		goto retry;
	}
out:
	/* One per-CPU add per streak: completed is head's count (stats). */
	if (stored_run)
		this_cpu_add(o->pcpu->stored_run, stored_run);
	order_note_streak(o, streak);
	order_wake_takers(o, fenced);
}

static void order_resume_workfn(struct work_struct *work)
{
	struct tempo_order *o = container_of(work, struct tempo_order,
					     resume_work);

	/* Relies on: order_defer:A. We hold the token; head == resume. */
	order_advance(o, READ_ONCE(o->resume), 0);
}

/*
 * The token holder retired @t - 1: the common end of a streak, the owner of @t
 * not arrived yet, inline; anything else in order_advance().
 */
static __always_inline void order_pass(struct tempo_order *o, u64 t)
{
	struct order_slot *slot = order_slot(o, t);
	s64 word = order_word(t, ST_EMPTY);

	/* Not ordered: only an EMPTY word is acted on, by a full cmpxchg. */
	if (atomic64_read(&slot->state) == word) {
		order_test_point(o, t, TEMPO_TP_ORDER_HEAD_SEEN, word);
		if (order_hand_off(o, slot, t, &word)) {
			order_wake_takers(o, true);
			return;
		}
	}
	order_advance(o, t, 1);
}

/* A caller that became the token holder for @t: finish t and run on. */
static __always_inline void order_run_as_head(struct tempo_order *o, u64 t,
					      tempo_order_fn_t fn, void *arg)
{
	if (fn)
		fn(arg);
	order_retire(o, t);
	order_pass(o, t + 1);
}

/* @t does not own its slot's word any more: timed out or never valid. */
static int order_stale(struct order_slot *slot, u64 t)
{
	/* Relies on: order_put:A, which read the retired word (acquire). */
	return atomic64_read(&slot->expired) == (s64)t ? -ETIME : -EINVAL;
}

/* Owner of @t, slot WRITING: store fn/arg and mark it STORED, or run. */
static int order_store(struct tempo_order *o, struct order_slot *slot, u64 t,
		       tempo_order_fn_t fn, void *arg)
{
	s64 word = order_word(t, ST_WRITING);

	WRITE_ONCE(slot->fn, fn);
	WRITE_ONCE(slot->arg, arg);
	order_test_point(o, t, TEMPO_TP_ORDER_OWNER_WRITING, word);
	/*
	 * LMM(order_store:A): release. Pairs with: order_advance:C, which reads
	 * STORED and then fn/arg.
	 */
	if (atomic64_try_cmpxchg_release(&slot->state, &word,
					 order_word(t, ST_STORED))) {
		this_cpu_inc(o->pcpu->stored);
		return 0;
	}
	/*
	 * Only the head holder changes a WRITING word: it handed us the head.
	 * LMM(order_store:B): acquire, since the failed cmpxchg gave none.
	 * Pairs with: order_advance:E.
	 */
	word = atomic64_read_acquire(&slot->state);
	if (WARN_ON_ONCE(word != order_word(t, ST_WRITING_HEAD)))
		return -EINVAL;
	order_run_as_head(o, t, fn, arg);
	return 1;
}

/* run() and trash() (@fn == NULL). */
static __always_inline int order_put(struct tempo_order *o, u64 t,
				     tempo_order_fn_t fn, void *arg)
{
	struct order_slot *slot = order_slot(o, t);
	s64 word;

	/*
	 * Never handed out: tickets issued so far are [first, next), by
	 * unsigned distance from first (wrap-safe). A ticket before the start
	 * must not reach order_stale(): slots' expired markers start one lap
	 * below it.
	 */
	if (t - o->first >= (u64)atomic64_read(&o->next) - o->first)
		return -EINVAL;

	/*
	 * LMM(order_put:A): acquire. Pairs with: order_retire:A, so a late
	 * caller that reads a retired word also sees slot->expired.
	 */
	word = atomic64_read_acquire(&slot->state);
	for (;;) {
		if (!order_word_is_for(word, t))
			return order_stale(slot, t);
		order_test_point(o, t, TEMPO_TP_ORDER_OWNER_SEEN, word);

		switch (order_word_st(word)) {
		case ST_TAIL:
			/*
			 * LMM(order_put:B): full cmpxchg, takes the token.
			 * Pairs with: order_hand_off:A. Races with
			 * order_deadline_fn:B: one of the two wins.
			 */
			if (atomic64_try_cmpxchg(&slot->state, &word,
						 order_word(t, ST_RUNNING))) {
				if (!fn)
					this_cpu_inc(o->pcpu->trashed);
				order_run_as_head(o, t, fn, arg);
				return 1;
			}
			break;
		case ST_EMPTY:
			/*
			 * LMM(order_put:C): full cmpxchg, claims the slot
			 * before the head holder reaches it. Pairs with:
			 * order_retire:A (previous lap) and, for trash,
			 * order_advance:C. Races with order_hand_off:A.
			 */
			if (atomic64_try_cmpxchg(&slot->state, &word,
						 order_word(t, fn ? ST_WRITING :
							    ST_TRASHED))) {
				if (fn)
					return order_store(o, slot, t, fn, arg);
				this_cpu_inc(o->pcpu->trashed);
				return 0;
			}
			break;
		case ST_TIMEDOUT:
			return -ETIME;
		default:
			return -EINVAL;	/* second run/trash of one ticket */
		}
		/* A failed cmpxchg gives no ordering: re-read (order_put:A). */
		word = atomic64_read_acquire(&slot->state);
	}
}

/**
 * tempo_order_run() - complete a ticket in order
 * @order: the domain.
 * @ticket: a ticket taken from @order and not yet run or trashed.
 * @fn: the completion.
 * @arg: its argument.
 *
 * If @ticket is the oldest unfinished ticket, runs @fn(@arg) in the caller,
 * then the completions of the following tickets that are already stored (at
 * most max_streak in all; the rest continue on a workqueue). Otherwise stores
 * @fn and @arg for the thread that will finish the preceding ticket, and
 * returns at once.
 *
 * Context: any context except NMI; lock-free. Completions may run in the
 * caller's context, so it must suit every completion of the domain.
 * Return: 1 if the caller ran @fn, 0 if it was stored, -EINVAL if @ticket is
 * not outstanding (never taken, or already run or trashed) or @fn is NULL,
 * -ETIME if the missing-ticket deadline trashed @ticket.
 */
int tempo_order_run(struct tempo_order *order, u64 ticket,
		    tempo_order_fn_t fn, void *arg)
{
	int ret;

	if (!fn)
		return -EINVAL;
	ret = order_put(order, ticket, fn, arg);
	trace_tempo_order_run(order, ticket, ret);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(tempo_order_run, "TEMPO");

/**
 * tempo_order_trash() - give up a ticket
 * @order: the domain.
 * @ticket: a ticket taken from @order and not yet run or trashed.
 *
 * The ticket will never complete; the sequence moves past it. If @ticket is
 * the oldest unfinished ticket, the caller runs the completions stored
 * behind it, as tempo_order_run() does.
 *
 * Context: any context except NMI; lock-free.
 * Return: 1 if the caller held the head, 0 if the head holder will skip
 * @ticket, -EINVAL if @ticket is not outstanding, -ETIME if the deadline
 * trashed it.
 */
int tempo_order_trash(struct tempo_order *order, u64 ticket)
{
	int ret = order_put(order, ticket, NULL, NULL);

	trace_tempo_order_trash(order, ticket, ret);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(tempo_order_trash, "TEMPO");

/**
 * tempo_order_trash_below() - give up every outstanding ticket below @end
 * @order: the domain.
 * @end: one past the last ticket to trash; at most the next ticket to be
 *	handed out.
 *
 * Trashes every ticket below @end that was taken and is not yet run or
 * trashed, as if tempo_order_trash() had been called on each in turn (the
 * way a reorder buffer moves its minimum sequence number past a loss): the
 * window gets their room back, and the completions stored after the range
 * run at once, in order, in the caller (at most max_streak; the rest as a
 * long streak does). A run() of one of them racing with this call either
 * wins, or gets -EINVAL as after a trash. The tickets are trashed from the
 * last down, so the slots behind the head are marked before the head moves
 * and one streak crosses the range.
 *
 * Context: any context except NMI; lock-free; O(@end - head), at most the
 * window.
 * Return: the number of tickets this call trashed, or -EINVAL if @end is
 * beyond the tickets handed out (nothing is changed then).
 */
int tempo_order_trash_below(struct tempo_order *order, u64 end)
{
	/*
	 * No ordering needed: head is only where to stop. A ticket below the
	 * true head is refused by trash() itself (its slot moved on).
	 */
	u64 head = atomic64_read(&order->head);
	u64 next = atomic64_read(&order->next);
	int n = 0;
	u64 t;

	if (end - order->first > next - order->first)
		return -EINVAL;
	for (t = end; order_before(head, t); t--) {
		/* Each one as trash() would: stale or submitted ones refuse. */
		if (tempo_order_trash(order, t - 1) >= 0)
			n++;
	}
	return n;
}
EXPORT_SYMBOL_NS_GPL(tempo_order_trash_below, "TEMPO");

/* Record when @t was taken; arm the deadline if t is already the head. */
static noinline void order_note_taken(struct tempo_order *o, u64 t)
{
	u64 now = ktime_get_ns() ?: 1;

	atomic64_set(&order_slot(o, t)->taken_ns, now);
	/*
	 * LMM(order_note_taken:A): full barrier between our store of taken_ns
	 * and our read of head. Pairs with: order_hand_off:A, between the
	 * head holder's store of head and its read of taken_ns (store buffering:
	 * at least one of us sees the other and arms the timer).
	 */
	smp_mb();
	if ((u64)atomic64_read(&o->head) == t)
		order_arm_deadline(o, now + o->deadline_ns);
}

/*
 * Take up to @want consecutive tickets if the window has room. Return: how
 * many (the first in *@first), or 0 if the window is full.
 */
static __always_inline u32 order_take(struct tempo_order *o, u32 want,
				      u64 *first)
{
	s64 next = atomic64_read(&o->next);
	u64 head, used;
	u32 n, i;

	for (;;) {
		/*
		 * LMM(order_take:A): acquire. Pairs with: order_retire:B.
		 * Ticket next + i is handed out only when we saw head >
		 * next + i - W, so slot(next + i) has been reset for it.
		 */
		head = atomic64_read_acquire(&o->head);
		used = (u64)next - head;
		if ((s64)used < 0) {
			/* Our next is older than head: others took and ran it. */
			next = atomic64_read(&o->next);
			continue;
		}
		if (used >= o->window)
			return 0;
		n = min_t(u64, want, o->window - used);
		/*
		 * LMM(order_take:B): full cmpxchg. Atomicity hands out each
		 * ticket once; its ordering serves order_note_taken.
		 */
		if (atomic64_try_cmpxchg(&o->next, &next, (s64)((u64)next + n)))
			break;
	}

	if (o->deadline_ns) {
		for (i = 0; i < n; i++)
			order_note_taken(o, next + i);
	}
	*first = next;
	return n;
}

/**
 * tempo_order_ticket_try() - take the next ticket if the window has room
 * @order: the domain.
 * @ticket: where to store the ticket.
 *
 * Tickets are handed out in increasing order; the order of successful calls
 * is the order in which completions will run. The window is full when the
 * next ticket is W ahead of the oldest unfinished one.
 *
 * Context: any context except NMI; lock-free.
 * Return: 0 with *@ticket set, or -EAGAIN if the window is full.
 */
int tempo_order_ticket_try(struct tempo_order *order, u64 *ticket)
{
	return order_take(order, 1, ticket) ? 0 : -EAGAIN;
}
EXPORT_SYMBOL_NS_GPL(tempo_order_ticket_try, "TEMPO");

/* Sleep until a ticket is free, then take it. */
static int order_wait_ticket(struct tempo_order *o, u64 *ticket)
{
	/* Relies on: order_wake_takers:A. */
	return wait_event_interruptible(o->wait,
					!tempo_order_ticket_try(o, ticket));
}

/**
 * tempo_order_ticket() - take the next ticket, sleeping while the window is
 *	full
 * @order: the domain.
 * @ticket: where to store the ticket.
 *
 * As tempo_order_ticket_try(), but sleeps (interruptibly) on the domain's
 * wait queue until a completion or trash makes room.
 *
 * Context: process context; may sleep.
 * Return: 0 with *@ticket set, or -ERESTARTSYS if a signal arrived first.
 */
int tempo_order_ticket(struct tempo_order *order, u64 *ticket)
{
	might_sleep();
	if (!tempo_order_ticket_try(order, ticket))
		return 0;
	this_cpu_inc(order->pcpu->waits);
	return order_wait_ticket(order, ticket);
}
EXPORT_SYMBOL_NS_GPL(tempo_order_ticket, "TEMPO");

/**
 * tempo_order_tickets_try() - take up to @want consecutive tickets if the
 *	window has room
 * @order: the domain.
 * @want: how many, at least 1.
 * @first: where to store the first; the others follow it, one apart.
 *
 * As @want calls of tempo_order_ticket_try() with nothing between them,
 * stopped by a full window: as many as the window has room for, in one
 * atomic step.
 *
 * Context: any context except NMI; lock-free.
 * Return: how many tickets were taken (1 to @want) with *@first set,
 * -EAGAIN if the window is full, -EINVAL if @want is 0.
 */
int tempo_order_tickets_try(struct tempo_order *order, u32 want, u64 *first)
{
	u32 n;

	if (!want)
		return -EINVAL;
	n = order_take(order, want, first);
	return n ? n : -EAGAIN;
}
EXPORT_SYMBOL_NS_GPL(tempo_order_tickets_try, "TEMPO");

/**
 * tempo_order_tickets() - take up to @want consecutive tickets, sleeping
 *	while the window is full
 * @order: the domain.
 * @want: how many, at least 1.
 * @first: where to store the first; the others follow it, one apart.
 *
 * As tempo_order_tickets_try(), but sleeps (interruptibly) on the domain's
 * wait queue until there is room for at least one.
 *
 * Context: process context; may sleep.
 * Return: how many tickets were taken (1 to @want) with *@first set,
 * -ERESTARTSYS if a signal arrived first, -EINVAL if @want is 0.
 */
int tempo_order_tickets(struct tempo_order *order, u32 want, u64 *first)
{
	u32 n;
	int err;

	might_sleep();
	if (!want)
		return -EINVAL;
	n = order_take(order, want, first);
	if (n)
		return n;
	this_cpu_inc(order->pcpu->waits);
	/* Relies on: order_wake_takers:A. */
	err = wait_event_interruptible(order->wait,
				       (n = order_take(order, want, first)) != 0);
	return err ?: n;
}
EXPORT_SYMBOL_NS_GPL(tempo_order_tickets, "TEMPO");

static void order_submit_done(void *arg)
{
	struct tempo_order_req *req = arg;

	req->done_fn(req);
}

static void order_submit_workfn(struct work_struct *work);

/*
 * Run a chain of requests (linked through node, oldest first): each work_fn,
 * then its completion in ticket order. The chain is cut after
 * TEMPO_ORDER_SUBMIT_BATCH requests, and the rest becomes a work item of its
 * own before any work_fn runs: if one sleeps, the workqueue's concurrency
 * management runs that rest meanwhile, so a sleep holds up at most the
 * requests after it in its own cut.
 */
static void order_submit_chain(struct tempo_order *o, struct llist_node *first)
{
	struct tempo_order_req *req, *tmp;
	struct llist_node *last = first;
	unsigned int n;
	int ret;

	for (n = 1; n < TEMPO_ORDER_SUBMIT_BATCH && last->next; n++)
		last = last->next;
	if (last->next) {
		req = llist_entry(last->next, struct tempo_order_req, node);
		last->next = NULL;
		req->cpu = -1;		/* a chain already taken */
		INIT_WORK(&req->work, order_submit_workfn);
		tempo_test_point(TEMPO_TP_ORDER_SUBMIT_CUT, o, req->ticket, 0);
		atomic_inc(&o->inflight);
		/*
		 * LMM(order_submit_chain:A): queue_work() orders the cut (and
		 * the chain's requests) before the work function. Pairs with:
		 * order_submit_workfn().
		 */
		queue_work(order_wq, &req->work);
	}

	llist_for_each_entry_safe(req, tmp, first, node) {
		req->work_fn(req);
		/* Once stored, @req may be completed (and freed) by another thread. */
		ret = tempo_order_run(o, req->ticket, order_submit_done, req);
		if (ret < 0) {
			/* Timed out: release the request, out of order. */
			req->status = ret;
			req->done_fn(req);
		}
	}
}

/*
 * The work item of a request that found its CPU's inbox empty (cpu >= 0):
 * it takes the inbox, itself first. Or of the rest of a chain cut by
 * order_submit_chain() (cpu == -1).
 */
static void order_submit_workfn(struct work_struct *work)
{
	struct tempo_order_req *req = container_of(work, struct tempo_order_req,
						   work);
	/* @req may be freed by done_fn; the domain outlives our inflight count. */
	struct tempo_order *o = req->order;
	struct llist_node *first = &req->node;

	if (req->cpu >= 0) {
		/*
		 * LMM(order_submit_workfn:B): llist_del_all() is a full xchg.
		 * Pairs with: tempo_order_submit:A. Every request pushed
		 * before it is complete when we read it. Only this work item
		 * takes the inbox until it is empty again, so the oldest
		 * request in it is ours.
		 */
		first = llist_del_all(&per_cpu_ptr(o->inbox, req->cpu)->reqs);
		first = llist_reverse_order(first);
		WARN_ON_ONCE(first != &req->node);
	}
	order_submit_chain(o, first);
	/*
	 * LMM(order_submit_workfn:A): our last access to @o. Fully ordered,
	 * so the streak above is done before destroy can see zero. Pairs with
	 * tempo_order_destroy()'s wait_var_event() (set_current_state() then
	 * the read). wake_up_var() uses only the address of @o->inflight.
	 */
	if (atomic_dec_and_test(&o->inflight))
		wake_up_var(&o->inflight);
}

/*
 * Where a request's work_fn runs: the submitting CPU, or with
 * TEMPO_ORDER_SPREAD round robin over the online CPUs from a per-CPU cursor
 * (no shared line). See "submitted requests".
 */
static int order_pick_cpu(unsigned int flags)
{
	unsigned int cpu;

	if (!(flags & TEMPO_ORDER_SPREAD))
		return raw_smp_processor_id();	/* stale after a migration: harmless */
	/* A preemption here only skews the spread. */
	cpu = cpumask_next(this_cpu_read(order_rr_cpu), cpu_online_mask);
	if (cpu >= nr_cpu_ids)
		cpu = cpumask_first(cpu_online_mask);
	this_cpu_write(order_rr_cpu, cpu);
	return cpu;
}

/* A submit that finds the window full: see "submitted requests". */
static int order_submit_ticket(struct tempo_order *o, u64 *ticket)
{
	long left;

	if (!tempo_order_ticket_try(o, ticket))
		return 0;
	this_cpu_inc(o->pcpu->waits);
	/* Relies on: order_wake_takers:A, as tempo_order_ticket(). */
	left = wait_event_interruptible_timeout(o->submit_wait,
						order_submit_room(o), 1);
	if (left < 0)
		return left;
	return order_wait_ticket(o, ticket);
}

/**
 * tempo_order_submit() - run work in parallel, complete it in order
 * @order: the domain.
 * @req: the caller's request; not to be touched until @done_fn runs.
 * @work_fn: run on a per-CPU workqueue, on the submitting CPU (with
 *	TEMPO_ORDER_SPREAD: on the online CPUs in turn), in process context,
 *	may sleep. Requests that reach a CPU together share a work item, up to
 *	TEMPO_ORDER_SUBMIT_BATCH of them, run one after the other: a @work_fn
 *	that sleeps delays the ones after it in its work item (at most
 *	TEMPO_ORDER_SUBMIT_BATCH - 1), not the others.
 * @done_fn: run after @work_fn, in the order of tempo_order_submit() calls,
 *	never concurrently with another completion of @order. It may free
 *	@req or submit it again.
 * @flags: 0, or TEMPO_ORDER_NOWAIT and/or TEMPO_ORDER_SPREAD (for a single
 *	submitter whose work_fns are long enough to gain from other CPUs).
 *
 * Takes a ticket for @req (sleeping while the window is full, unless
 * TEMPO_ORDER_NOWAIT: until a quarter of it is free, or a tick has passed
 * and one ticket is), queues @work_fn, and completes in order. If the
 * domain's deadline times the ticket out before @work_fn returns, @done_fn
 * runs with @req->status = -ETIME, out of order.
 *
 * Context: process context, may sleep; any context except NMI with
 * TEMPO_ORDER_NOWAIT.
 * Return: 0 if queued, -EAGAIN if full with TEMPO_ORDER_NOWAIT, -ERESTARTSYS
 * if a signal interrupted the wait, -EINVAL for bad arguments.
 */
int tempo_order_submit(struct tempo_order *order, struct tempo_order_req *req,
		       tempo_order_req_fn_t work_fn,
		       tempo_order_req_fn_t done_fn, unsigned int flags)
{
	u64 ticket;
	int err;

	if ((flags & ~TEMPO_ORDER_SUBMIT_FLAGS) || !work_fn || !done_fn)
		return -EINVAL;

	if (flags & TEMPO_ORDER_NOWAIT)
		err = tempo_order_ticket_try(order, &ticket);
	else
		err = order_submit_ticket(order, &ticket);
	if (err)
		return err;

	req->order = order;
	req->ticket = ticket;
	req->work_fn = work_fn;
	req->done_fn = done_fn;
	req->status = 0;
	req->cpu = order_pick_cpu(flags);
	/*
	 * LMM(tempo_order_submit:A): llist_add() is a full cmpxchg: the
	 * request is complete before it is in the inbox. Pairs with:
	 * order_submit_workfn:B. Whoever finds the inbox empty queues the
	 * work item that takes it; the others ride along.
	 */
	if (llist_add(&req->node, &per_cpu_ptr(order->inbox, req->cpu)->reqs)) {
		/* Only this request's own work item reads its work_struct. */
		INIT_WORK(&req->work, order_submit_workfn);
		atomic_inc(&order->inflight);
		/* Relies on: queue_work()'s ordering, as order_submit_chain:A. */
		queue_work_on(req->cpu, order_wq, &req->work);
	}
	return 0;
}
EXPORT_SYMBOL_NS_GPL(tempo_order_submit, "TEMPO");

/* Deadline timer: time out the head ticket if it is missing and expired. */
static void order_deadline_fn(struct tempo_timer *timer)
{
	struct tempo_order *o = container_of(timer, struct tempo_order,
					     deadline);
	struct order_slot *slot;
	u64 h, taken, expiry;
	s64 word;

	/* LMM(order_deadline_fn:A): acquire. Pairs with: order_retire:B. */
	h = atomic64_read_acquire(&o->head);
	slot = order_slot(o, h);
	word = atomic64_read(&slot->state);
	if (word != order_word(h, ST_TAIL))
		return;		/* owner arrived, or head moved (re-armed) */
	taken = atomic64_read(&slot->taken_ns);
	if (!taken)
		return;		/* not taken yet: its taker arms the timer */
	expiry = taken + o->deadline_ns;
	if (ktime_get_ns() < expiry) {
		order_arm_deadline(o, expiry);	/* an earlier arm fired */
		return;
	}
	/*
	 * LMM(order_deadline_fn:B): full cmpxchg, takes the token. Pairs with:
	 * order_hand_off:A. Races with order_put:B: one of the two wins. If the
	 * head moved since we read it, the tag differs and this fails.
	 */
	if (!atomic64_try_cmpxchg(&slot->state, &word,
				  order_word(h, ST_TIMEDOUT)))
		return;
	this_cpu_inc(o->pcpu->timed_out);
	atomic64_set(&slot->expired, h);	/* published by order_retire:A */
	order_retire(o, h);
	order_advance(o, h + 1, 1);
}

/**
 * tempo_order_create() - create an ordering domain
 * @window: how many tickets may be outstanding at once (how far a ticket
 *	may run ahead of the oldest unfinished one); a power of two, at most
 *	TEMPO_ORDER_MAX_WINDOW.
 * @opts: options, or NULL for the defaults (tickets from 0, no deadline,
 *	TEMPO_ORDER_DEFAULT_STREAK).
 *
 * The domain's memory is charged to the caller's memory cgroup
 * (__GFP_ACCOUNT); at that cgroup's limit the call fails with -ENOMEM
 * instead of invoking the OOM killer.
 *
 * Context: process context; may sleep.
 * Return: the domain, or ERR_PTR(-EINVAL) for a bad window, ERR_PTR(-ENOMEM).
 */
struct tempo_order *tempo_order_create(u32 window,
				       const struct tempo_order_opts *opts)
{
	static const struct tempo_order_opts defaults;
	struct tempo_order *o;
	u64 k, t;

	if (!opts)
		opts = &defaults;
	if (!is_power_of_2(window) || window > TEMPO_ORDER_MAX_WINDOW)
		return ERR_PTR(-EINVAL);
	if (WARN_ON_ONCE(!order_wq))
		return ERR_PTR(-ENODEV);

	o = kzalloc(sizeof(*o), ORDER_GFP);
	if (!o)
		return ERR_PTR(-ENOMEM);
	o->ring = kvcalloc(window, sizeof(*o->ring), ORDER_GFP);
	if (!o->ring)
		goto err_free_order;
	o->pcpu = alloc_percpu_gfp(struct order_pcpu, ORDER_GFP);
	if (!o->pcpu)
		goto err_free_ring;
	o->inbox = alloc_percpu_gfp(struct order_inbox, ORDER_GFP);
	if (!o->inbox)
		goto err_free_pcpu;

	o->window = window;
	o->mask = window - 1;
	o->first = opts->first_ticket;
	o->deadline_ns = opts->deadline_ns;
	o->max_streak = opts->max_streak ?: TEMPO_ORDER_DEFAULT_STREAK;
	for (k = 0; k < window; k++) {
		t = o->first + k;
		atomic64_set(&order_slot(o, t)->state,
			     order_word(t, k ? ST_EMPTY : ST_TAIL));
		/* Never a ticket run() can pass: order_put() refuses it first. */
		atomic64_set(&order_slot(o, t)->expired, t - window);
	}
	atomic64_set(&o->next, o->first);
	atomic64_set(&o->head, o->first);
	init_waitqueue_head(&o->wait);
	init_waitqueue_head(&o->submit_wait);
	INIT_WORK(&o->resume_work, order_resume_workfn);
	tempo_timer_init(&o->deadline, order_deadline_fn, 0);

	mutex_lock(&order_domains_lock);
	list_add(&o->node, &order_domains);
	order_ndomains++;
	mutex_unlock(&order_domains_lock);
	return o;

err_free_pcpu:
	free_percpu(o->pcpu);
err_free_ring:
	kvfree(o->ring);
err_free_order:
	kfree(o);
	return ERR_PTR(-ENOMEM);
}
EXPORT_SYMBOL_NS_GPL(tempo_order_create, "TEMPO");

static void order_stats_add(struct tempo_order *o, struct tempo_order_stats *st)
{
	u64 trashed = 0, timed_out = 0, stored = 0, stored_run = 0, deferred = 0;
	u64 waits = 0;
	u64 next, head, finished;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct order_pcpu *p = per_cpu_ptr(o->pcpu, cpu);

		trashed += READ_ONCE(p->trashed);
		timed_out += READ_ONCE(p->timed_out);
		stored += READ_ONCE(p->stored);
		stored_run += READ_ONCE(p->stored_run);
		deferred += READ_ONCE(p->deferred);
		waits += READ_ONCE(p->waits);
	}
	head = atomic64_read(&o->head);
	next = atomic64_read(&o->next);

	/* Every ticket below head was completed, trashed or timed out. */
	finished = head - o->first;
	st->taken += next - o->first;
	if (finished > trashed + timed_out)	/* not while they move */
		st->completed += finished - trashed - timed_out;
	st->trashed += trashed;
	st->timed_out += timed_out;
	st->stored += (s64)(stored - stored_run) > 0 ? stored - stored_run : 0;
	st->pending += next - head;
	st->longest_streak = max_t(u64, st->longest_streak,
				   atomic64_read(&o->longest));
	st->deferred += deferred;
	st->waits += waits;
}

/**
 * tempo_order_stats() - read the counters of a domain
 * @order: the domain.
 * @stats: filled with the sums of the per-CPU counters.
 *
 * Context: any context except NMI. Exact only when the domain is quiescent.
 */
void tempo_order_stats(struct tempo_order *order,
		       struct tempo_order_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	order_stats_add(order, stats);
}
EXPORT_SYMBOL_NS_GPL(tempo_order_stats, "TEMPO");

/**
 * tempo_order_destroy() - free an ordering domain
 * @order: the domain, or NULL.
 *
 * The caller guarantees that no ticket, run, trash or submit call on @order
 * is running or will start, and that every ticket taken was run or trashed
 * (or timed out): the domain WARNs otherwise. A run() that ran other
 * callers' completions may still be finishing its streak after the last
 * completion returned; the caller waits for its own run() calls to return.
 * destroy waits for the rest, and only for this domain's: the deadline
 * timer, the work items of tempo_order_submit() on @order (whose run() the
 * caller cannot see return), and resume_work.
 *
 * Context: process context; may sleep. Not from a completion of @order, nor
 * from a work_fn of tempo_order_submit() on @order (it waits for them).
 */
void tempo_order_destroy(struct tempo_order *order)
{
	struct tempo_order_stats st = {};

	if (!order)
		return;

	tempo_timer_shutdown_sync(&order->deadline);
	/*
	 * A submit work item may still be in tempo_order_run(), on a streak,
	 * after its done_fn told the caller that everything was done. Wait
	 * for this domain's items only: the workqueue is shared, and another
	 * domain's completions (an in-kernel user's, which may sleep) must
	 * not delay this teardown. Relies on: order_submit_workfn:A.
	 */
	wait_var_event(&order->inflight, !atomic_read(&order->inflight));
	/* resume_work re-queues itself while completions are left. */
	while (flush_work(&order->resume_work))
		;

	order_stats_add(order, &st);
	WARN_ONCE(st.pending, "tempo_order: destroyed with %llu tickets pending\n",
		  st.pending);

	mutex_lock(&order_domains_lock);
	list_del(&order->node);
	order_ndomains--;
	/* Fold into the module-wide totals; nothing is pending any more. */
	st.pending = 0;
	st.stored = 0;
	order_retired.taken += st.taken;
	order_retired.completed += st.completed;
	order_retired.trashed += st.trashed;
	order_retired.timed_out += st.timed_out;
	order_retired.deferred += st.deferred;
	order_retired.longest_streak = max(order_retired.longest_streak,
					   st.longest_streak);
	mutex_unlock(&order_domains_lock);

	free_percpu(order->inbox);
	free_percpu(order->pcpu);
	kvfree(order->ring);
	kfree(order);
}
EXPORT_SYMBOL_NS_GPL(tempo_order_destroy, "TEMPO");

/**
 * tempo_order_stats_all() - module-wide totals
 * @stats: filled with the sums over live domains and destroyed ones
 *	(longest_streak: the maximum).
 *
 * What debugfs tempo/order shows.
 *
 * Context: process context; takes a mutex.
 * Return: the number of live domains.
 */
u64 tempo_order_stats_all(struct tempo_order_stats *stats)
{
	struct tempo_order *o;
	u64 ndomains;

	mutex_lock(&order_domains_lock);
	*stats = order_retired;
	list_for_each_entry(o, &order_domains, node)
		order_stats_add(o, stats);
	ndomains = order_ndomains;
	mutex_unlock(&order_domains_lock);
	return ndomains;
}
EXPORT_SYMBOL_IF_KUNIT(tempo_order_stats_all);

static int order_stats_show(struct seq_file *m, void *unused)
{
	struct tempo_order_stats st;
	u64 ndomains = tempo_order_stats_all(&st);

	seq_printf(m, "domains %llu\n", ndomains);
	seq_printf(m, "taken %llu\n", st.taken);
	seq_printf(m, "completed %llu\n", st.completed);
	seq_printf(m, "trashed %llu\n", st.trashed);
	seq_printf(m, "timed_out %llu\n", st.timed_out);
	seq_printf(m, "stored %llu\n", st.stored);
	seq_printf(m, "pending %llu\n", st.pending);
	seq_printf(m, "longest_streak %llu\n", st.longest_streak);
	seq_printf(m, "deferred %llu\n", st.deferred);
	seq_printf(m, "waits %llu\n", st.waits);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(order_stats);

/* debugfs: <dir>/order, module-wide totals over live and destroyed domains. */
void tempo_order_debugfs(struct dentry *dir)
{
	debugfs_create_file("order", 0444, dir, NULL, &order_stats_fops);
}

int tempo_order_init(void)
{
	int cpu;

	/* Per-CPU (bound): submit spreads work with queue_work_on(). */
	order_wq = alloc_workqueue("tempo_order", WQ_PERCPU, 0);
	if (!order_wq)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		per_cpu(order_rr_cpu, cpu) = cpu;
	return 0;
}

void tempo_order_exit(void)
{
	WARN_ON_ONCE(!list_empty(&order_domains));
	destroy_workqueue(order_wq);
	order_wq = NULL;
}
