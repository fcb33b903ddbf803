// SPDX-License-Identifier: GPL-2.0
/*
 * tempo: /dev/tempo's timers.
 *
 * This file owns a file's table of timer slots (struct tempo_utimer) and
 * their ids, and the timer ioctls: arm (new timers and re-arms, in batches),
 * cancel (by id, or by cookie through a hash of the batch's cookies) and
 * query; with them, how a batch call copies its array in once and writes
 * its out fields back. The read of a timer's record is dev.c's.
 *
 * A slot holds a delay-queue item (struct dev_item, of kind DI_TIMER) and
 * the timer's id, cookie and period. The table grows in chunks of UT_CHUNK
 * slots as an arm batch makes room for its new timers; when the batch ends,
 * chunks it grew and no slot of which was taken into use are freed again
 * (dev_slots_trim()), whether it failed or not. So the table holds the
 * chunks of the slots ever used, as many as the most timers the file has
 * held at once, rounded up to a chunk, and keeps them until release(). A
 * timer *is* its pending event: arming
 * is tempo_delayq_put_at() of the slot's item, the read takes its record
 * with consume(), cancel is tempo_delayq_remove(). A periodic timer is one
 * item that the read keeps queued with TEMPO_DELAYQ_AGAIN, its next
 * deadline set by the read that takes its record, so the queue never holds
 * more timer records than there are timers.
 *
 * Locks. ctx->ctl_lock (a mutex) serialises the arm, cancel and query
 * ioctls of one context and guards the slot table and the slots' ids,
 * cookies and periods; the delay queue's own lock decides everything about
 * an item's place in the queue, and so who owns it: whoever takes a timer's
 * item out of the queue (a read's TAKE verdict, a cancel's successful
 * remove()) ends that timer, once. Nesting: ctl_lock -> the queue's lock.
 *
 * A timer's life, in terms of its item's delay-queue state (every
 * transition is one critical section of the queue's lock):
 *
 *            arm: put_at()          deadline passes
 *   FREE -----------------> PENDING -----------------> TAKEABLE
 *    ^                        ^  ^                        |  |
 *    |  cancel: remove()      |  +------------------------+  | read, one-shot:
 *    +<-----------------------+     read, periodic: AGAIN    | TAKE (record out,
 *    +<-----------------------------------------------------+   FINAL), slot
 *    |  cancel: remove() (the unread record is withdrawn)       freed after
 *    +<---------------------------------------------------------+
 *
 * A re-arm is a remove() followed by put_at(). A read that cannot copy a
 * record out answers STOP: the item stays TAKEABLE, nothing changed.
 *
 * Ids and slots. An id is (generation << 32) | (slot + 1): never 0. A slot
 * is live while its item is queued; a cancel or re-arm of an id looks the
 * slot up under ctl_lock, compares the generation, and then asks the queue:
 * remove() fails for an item that is not queued, so a late cancel of a
 * timer whose FINAL record was read gets ENOENT, whatever the reader is
 * doing. A slot whose timer ended goes on ctx->free_in (an llist: readers
 * push without ctl_lock, once, after consume() returned the item to them;
 * a cancel pushes under it) and is taken back in FIFO order under ctl_lock
 * (dev_slots_get()), which moves its generation on: an id comes back only
 * after 2^32 reuses of its slot, and only after every other free slot was
 * reused first.
 *
 * Slots are never freed before release(): a cancel is tempo_delayq_remove()
 * and no more, and the slot may be reused at once. release() destroys the
 * queue, which hands back every item still queued, before it frees the
 * table (dev_timers_release()). The table (ctx->chunks) is read and grown
 * only under ctl_lock.
 *
 * Limits: a file's live timers (max_timers), its user's timer slots and
 * batch copies (dev_user.c). A batch is checked whole, and room made for all
 * its new timers, before any element takes effect (dev_arm_prepare()); every
 * loop over a user's batch stops for a fatal signal (dev_loop_step()).
 */

#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/llist.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/siphash.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <tempo/delayq.h>
#include <tempo/timer.h>
#include <uapi/tempo.h>

#include "clock.h"
#include "dev.h"
#include "dev_clock.h"

static unsigned int max_timers = 1 << 20;
module_param(max_timers, uint, 0644);
MODULE_PARM_DESC(max_timers, "live timers per open file of /dev/tempo (default 1M)");

static ulong min_period_ns = 100 * NSEC_PER_USEC;
module_param(min_period_ns, ulong, 0644);
MODULE_PARM_DESC(min_period_ns, "shortest period of a periodic timer, ns (default 100000)");

#define UT_CHUNK_SHIFT		8
#define UT_CHUNK		BIT(UT_CHUNK_SHIFT)	/* utimer slots per allocation */
#define TEMPO_SPEC_CHUNK	UT_CHUNK /* specs armed per loop step */
#define DEV_PUT_CHUNK		16	/* new timers per delay-queue lock round trip */

unsigned int dev_limit_timers(void)
{
	return READ_ONCE(max_timers);
}

unsigned long dev_limit_min_period(void)
{
	return READ_ONCE(min_period_ns);
}

/* The memory of one timer slot, for a user's figures in TEMPO_IOC_STATS. */
size_t dev_slot_size(void)
{
	return sizeof(struct tempo_utimer);
}

static struct tempo_utimer *dev_slot(struct tempo_ctx *ctx, u32 slot)
{
	return &ctx->chunks[slot >> UT_CHUNK_SHIFT][slot & (UT_CHUNK - 1)];
}

/* Add a chunk of free, never used slots to the table (beyond ctx->nslots). */
static int dev_slots_grow(struct tempo_ctx *ctx)
{
	struct tempo_utimer **chunks, *chunk;
	u32 i, n = ctx->nchunks;

	lockdep_assert_held(&ctx->ctl_lock);
	if (n >= (U32_MAX >> UT_CHUNK_SHIFT) - 1)
		return -ENOSPC;
	if (n == ctx->cap_chunks) {
		u32 cap = max(8U, 2 * n);

		chunks = krealloc_array(ctx->chunks, cap, sizeof(*chunks), DEV_GFP);
		if (!chunks)
			return -ENOMEM;
		ctx->chunks = chunks;
		ctx->cap_chunks = cap;
	}
	chunk = kvcalloc(UT_CHUNK, sizeof(*chunk), DEV_GFP);
	if (!chunk)
		return -ENOMEM;
	for (i = 0; i < UT_CHUNK; i++) {
		tempo_delayq_node_init(&chunk[i].item.dq);
		chunk[i].item.kind = DI_TIMER;
		chunk[i].id = n * UT_CHUNK + i + 1;
	}
	ctx->chunks[n] = chunk;
	ctx->nchunks = n + 1;
	atomic64_add(UT_CHUNK * sizeof(*chunk), &dev_mstat.bytes);
	return 0;
}

/*
 * The end of an arm batch: free the chunks beyond the last slot ever used,
 * which the batch grew for new timers it did not arm (it failed before, or
 * reused slots that readers freed meanwhile), and the pointer array's room
 * beyond twice what is left. The user was charged for slots in use only
 * (dev_arm_prepare()): this is what keeps the table at that size.
 */
static void dev_slots_trim(struct tempo_ctx *ctx)
{
	u32 keep = DIV_ROUND_UP(ctx->nslots, UT_CHUNK), cap = max(8U, 2 * keep);
	struct tempo_utimer **chunks;

	lockdep_assert_held(&ctx->ctl_lock);
	if (ctx->nchunks <= keep)
		return;
	atomic64_sub((u64)(ctx->nchunks - keep) * UT_CHUNK * sizeof(struct tempo_utimer),
		     &dev_mstat.bytes);
	while (ctx->nchunks > keep)
		kvfree(ctx->chunks[--ctx->nchunks]);
	if (ctx->cap_chunks <= cap)
		return;
	/* Smaller: it may move, and if it cannot, the larger one stays. */
	chunks = krealloc_array(ctx->chunks, cap, sizeof(*chunks), DEV_GFP);
	if (chunks) {
		ctx->chunks = chunks;
		ctx->cap_chunks = cap;
	}
}

/*
 * Free slots, at least: dev_slot_free() counts a slot after it is on the
 * list, so a count read here is never more than the list holds (and may
 * dip below zero for a moment, while a reader's count is on its way).
 */
static u32 dev_nfree(struct tempo_ctx *ctx)
{
	return max(atomic_read(&ctx->nfree), 0);
}

/*
 * Make sure dev_slots_get() finds @want slots: grow the table while
 * the free slots and the never used ones fall short. Under ctl_lock, so the
 * free slots can only grow meanwhile (readers give slots back, never take).
 */
static int dev_slots_reserve(struct tempo_ctx *ctx, u32 want, bool nowait)
{
	int err;

	lockdep_assert_held(&ctx->ctl_lock);
	while (dev_nfree(ctx) + (ctx->nchunks * UT_CHUNK - ctx->nslots) < want) {
		if (nowait)
			return -EAGAIN;	/* growing allocates: the blocking retry does */
		err = dev_slots_grow(ctx);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Under ctl_lock, after dev_slots_reserve(): @n free slots into @uts, now
 * live, each with a new id. Free slots come back in the order their timers
 * ended: the slots given back since the last call (ctx->free_in, newest
 * first) join the tail of the FIFO oldest first. The counts move once for
 * the @n (three atomics a chunk, not a timer: dev_mstat.timers is shared by
 * every CPU), before any of them is queued, so a reader that takes one and
 * frees its slot never takes the counts below zero. nfree is only read to
 * decide under ctl_lock, which we hold until it is right again.
 */
static void dev_slots_get(struct tempo_ctx *ctx, struct tempo_utimer **uts, u32 n)
{
	struct tempo_utimer *ut, *next;
	struct llist_node *in;
	u32 i, reused = 0;

	lockdep_assert_held(&ctx->ctl_lock);
	if (!n)
		return;
	for (i = 0; i < n; i++) {
		if (!ctx->free_head && !llist_empty(&ctx->free_in)) {
			in = llist_reverse_order(llist_del_all(&ctx->free_in));
			llist_for_each_entry_safe(ut, next, in, free) {
				ut->next_free = NULL;
				if (ctx->free_tail)
					ctx->free_tail->next_free = ut;
				else
					ctx->free_head = ut;
				ctx->free_tail = ut;
			}
		}
		ut = ctx->free_head;
		if (ut) {
			ctx->free_head = ut->next_free;
			if (!ctx->free_head)
				ctx->free_tail = NULL;
			reused++;
			/* The old id dies here: its timer ended when the slot was freed. */
			ut->id += 1ULL << 32;
		} else {
			ut = dev_slot(ctx, ctx->nslots++);
		}
		uts[i] = ut;
	}
	atomic_sub(reused, &ctx->nfree);
	atomic_add(n, &ctx->ntimers);
	atomic64_add(n, &dev_mstat.timers);
}

/*
 * A live timer ended: whoever took its item out of the queue (a reader's
 * TAKE, a cancel's remove()) gives the slot back, once. Any context that
 * owns the item; no lock.
 */
void dev_slots_free_chain(struct tempo_ctx *ctx, struct llist_node *first,
			  struct llist_node *last, unsigned int n)
{
	if (!n)
		return;
	/* One push of their chain, and one update of each count. */
	llist_add_batch(first, last, &ctx->free_in);
	atomic_add(n, &ctx->nfree);
	atomic_sub(n, &ctx->ntimers);
	atomic64_sub(n, &dev_mstat.timers);
}

/* dev_slots_free_chain() of @uts[0..@n). */
static void dev_slots_free(struct tempo_ctx *ctx, struct tempo_utimer **uts, unsigned int n)
{
	unsigned int i;

	if (!n)
		return;
	for (i = 0; i + 1 < n; i++)
		uts[i]->free.next = &uts[i + 1]->free;
	dev_slots_free_chain(ctx, &uts[0]->free, &uts[n - 1]->free, n);
}

static void dev_slot_free(struct tempo_ctx *ctx, struct tempo_utimer *ut)
{
	dev_slots_free(ctx, &ut, 1);
}

/* Under ctl_lock: the slot @id names, if it exists and its generation is @id's. */
static struct tempo_utimer *dev_slot_of(struct tempo_ctx *ctx, u64 id)
{
	u32 slot = (u32)id - 1;
	struct tempo_utimer *ut;

	lockdep_assert_held(&ctx->ctl_lock);
	if (!(u32)id || slot >= ctx->nslots)
		return NULL;
	ut = dev_slot(ctx, slot);
	return ut->id == id ? ut : NULL;
}

/* The queue of @ut's timer (its clock's, dev_clock.c). */
static struct tempo_delayq *dev_timer_queue(struct tempo_ctx *ctx, struct tempo_utimer *ut)
{
	return dev_clock_queue(ctx, ut->item.clock);
}

/* A re-arm's spec and clock, for dev_timer_requeued(). */
struct dev_rearm {
	const struct tempo_timer_spec	*s;
	u8				clock;
};

/* Under the queue's lock: a re-armed timer's record says what its spec says. */
static void dev_timer_requeued(struct tempo_delayq_node *node, void *arg)
{
	struct tempo_utimer *ut = container_of(node, struct tempo_utimer, item.dq);
	const struct dev_rearm *r = arg;

	ut->cookie = r->s->cookie;
	ut->period = r->s->period;
	ut->item.clock = r->clock;
	node->slack_us = r->s->slack_us;
}

/*
 * Under ctl_lock: queue @n items of clock @clock for their @deadlines, or
 * re-arm @ut with its new spec @s (dev_clock_arm(): the clock's queue, its
 * proxy and cancel-on-set). A re-armed timer takes @s's cookie, period and
 * slack and @clock (dev_timer_requeued()).
 * Return: as tempo_delayq_put_many().
 */
static unsigned int dev_timers_put(struct tempo_ctx *ctx, u8 clock,
				   struct tempo_delayq_node *const *nodes, const ktime_t *deadlines,
				   unsigned int n, struct tempo_utimer *ut,
				   const struct tempo_timer_spec *s, int *errp)
{
	struct dev_rearm r = { .s = s, .clock = clock };

	return dev_clock_arm(ctx, clock, nodes, deadlines, n, ut ? &ut->item : NULL,
			     dev_timer_requeued, &r, errp);
}

/* The flags that name another clock than MONOTONIC (dev_clock_of()). */
#define DEV_ARM_CLOCKS	(TEMPO_ARM_BOOTTIME | TEMPO_ARM_REALTIME | TEMPO_ARM_CANCEL_ON_SET | \
			 TEMPO_ARM_DEFERRABLE | TEMPO_ARM_ALARM)

/* What each element of one arm batch is checked against, read once per batch. */
struct dev_arm_env {
	struct dev_now now;	/* the batch's one reading of the clocks; the caller's namespace */
	u64 max;		/* tempo_timer_max_delay_ns() */
	u64 min_period;		/* min_period_ns */
};

/*
 * Check a spec and compute its clock and its absolute deadline in that
 * clock: -EINVAL if malformed, -ERANGE if the deadline lies beyond env->max
 * from now, the most the delay queue accepts (tempo_timer_max_delay_ns()).
 * An absolute deadline is in the caller's time namespace
 * (dev_clock_deadline()). Every deadline accepted is at most the clock's
 * now + env->max, far below 2^63 (a ktime), so no later sum (deadline + k *
 * period, with k * period bounded by the time that passed) wraps or turns
 * negative: a timer is never reported early, for any input. A deadline in
 * the past fires at once.
 *
 * Return: the spec's enum dev_clk (DEV_CLK_MONO is 0), or -errno. The clock
 * comes back in a register, not through memory: a MONOTONIC spec costs a
 * test of its flags more than before clocks (the TCG u_* lanes see every
 * load and store).
 */
static int dev_spec_deadline(const struct tempo_timer_spec *s,
			     const struct dev_arm_env *env, ktime_t *deadline)
{
	int err;
	u8 clock;

	if (s->flags & ~TEMPO_ARM_FLAGS || s->slack_us > TEMPO_SLACK_MAX_US)
		return -EINVAL;
	if (s->period && s->period < env->min_period)
		return -EINVAL;
	if (s->period > env->max)
		return -ERANGE;
	if ((s->flags & TEMPO_ARM_REARM) && !s->id)
		return -EINVAL;
	if (unlikely(s->flags & DEV_ARM_CLOCKS)) {
		err = dev_clock_of(s->flags, &clock) ?:
		      dev_clock_deadline(&env->now, clock, s->flags & TEMPO_ARM_ABS, s->value,
					 env->max, deadline);
		return err ?: clock;
	}
	/* MONOTONIC, as dev_clock_deadline() has it, in fewer steps. */
	if (s->flags & TEMPO_ARM_ABS)
		return tempo_time_to_host(s->value, env->now.mono, env->now.ns.mono, env->max,
					  deadline);
	if (s->value > env->max)
		return -ERANGE;
	*deadline = ktime_add_ns(env->now.mono, s->value);
	return DEV_CLK_MONO;
}

/*
 * Undo the arm of new timer @id, whose id never reached the caller (not
 * counted as cancelled). Under ctl_lock. Its record may have been read in
 * the meantime, if it was due at once: then there is nothing left to undo.
 */
static void dev_unarm(struct tempo_ctx *ctx, u64 id)
{
	struct tempo_utimer *ut = dev_slot_of(ctx, id);
	struct tempo_delayq_node *node;
	bool removed;

	if (!ut)
		return;
	node = &ut->item.dq;
	if (dev_clock_cancel(ctx, &node, 1, &removed))
		dev_slot_free(ctx, ut);
}

/*
 * Under ctl_lock, slots reserved: arm new timers
 * specs[@j..) up to @end or DEV_PUT_CHUNK of them, as long as they are of
 * one clock (so of one queue; a batch that alternates MONOTONIC and relative
 * REALTIME, both on the event queue, puts one at a time), in one lock round
 * trip of its queue (tempo_delayq_put_many()); each id goes to its spec.
 * Returns how many were armed; *@errp is 0, or the error of the element
 * after them, which armed nothing (its slot is given back, as are those of
 * the elements after it in the chunk).
 */
static u32 dev_timers_new(struct tempo_ctx *ctx, struct tempo_timer_spec *specs, u32 j,
			  u32 end, const struct dev_arm_env *env, int *errp)
{
	struct tempo_delayq_node *nodes[DEV_PUT_CHUNK];
	struct tempo_utimer *uts[DEV_PUT_CHUNK];
	ktime_t deadlines[DEV_PUT_CHUNK];
	int clock, first = DEV_CLK_MONO, err = 0, perr = 0;
	u32 k, m, put = 0;

	for (m = 0; j + m < end && m < DEV_PUT_CHUNK; m++) {
		clock = dev_spec_deadline(&specs[j + m], env, &deadlines[m]);
		if (clock < 0) {
			err = clock;
			break;
		}
		if (!m)
			first = clock;
		else if (clock != first)
			break;	/* the next chunk's: one clock per put */
	}
	dev_slots_get(ctx, uts, m);
	for (k = 0; k < m; k++) {
		uts[k]->cookie = specs[j + k].cookie;
		uts[k]->period = specs[j + k].period;
		uts[k]->item.clock = first;
		uts[k]->item.dq.slack_us = specs[j + k].slack_us;
		nodes[k] = &uts[k]->item.dq;
	}
	if (m)
		put = dev_timers_put(ctx, first, nodes, deadlines, m, NULL, NULL, &perr);
	for (k = 0; k < put; k++)
		specs[j + k].id = uts[k]->id;
	dev_slots_free(ctx, uts + put, m - put);
	*errp = put < m ? perr : err;
	return put;
}

/*
 * Under ctl_lock: re-arm live timer @s->id, or -ENOENT, in clock @clock for
 * @deadline (it may change queues). -ECANCELED, and nothing changes, for a
 * CANCEL_ON_SET timer a set of the wall clock ended, or a re-arm into
 * CANCEL_ON_SET while such timers' records wait (dev_clock.c). The delay
 * queue refuses nothing dev_spec_deadline() let through (its clock reading
 * is no earlier than the batch's; a REALTIME clock set back meanwhile by more
 * than max_delay_ns less the delay is the exception); should it, the timer
 * is gone (counted as cancelled) and the error returned.
 */
static int dev_timer_rearm(struct tempo_ctx *ctx, const struct tempo_timer_spec *s,
			   u8 clock, ktime_t deadline)
{
	struct tempo_utimer *ut = dev_slot_of(ctx, s->id);
	struct tempo_delayq_node *node;
	int err;

	if (!ut)
		return -ENOENT;
	node = &ut->item.dq;
	dev_timers_put(ctx, clock, &node, &deadline, 1, ut, s, &err);
	if (err == -ECANCELED || err == -ENOENT)
		return err;	/* nothing changed */
	if (err) {
		dev_slot_free(ctx, ut);
		atomic64_inc(&ctx->st.cancelled);
		return err;
	}
	atomic64_inc(&ctx->st.rearmed);
	return 0;
}

/*
 * Arm the run of specs[@i..@n) up to the first REARM that follows a new
 * timer. So a run is REARMs, then new timers, and every output of the run
 * (the new ids, written afterwards) comes after every REARM in it: a fault
 * writing them is undone by cancelling new timers only. The caller checked
 * every spec and made room (limits, slots) for all new timers of the batch.
 * Returns the end of the run; *@errp is 0, or the error of element [end],
 * at which the batch stops.
 */
static u32 dev_arm_run(struct tempo_ctx *ctx, struct tempo_timer_spec *specs, u32 i,
		       u32 n, const struct dev_arm_env *env, int *errp)
{
	ktime_t deadline;
	int err = 0;
	u32 j, end;
	bool seen_new = false;
	int clock;

	for (end = i; end < n; end++) {
		if (!(specs[end].flags & TEMPO_ARM_REARM))
			seen_new = true;
		else if (seen_new)
			break;
	}

	/* The REARMs, one by one: each removes, then puts, its own timer. */
	for (j = i; j < end && specs[j].flags & TEMPO_ARM_REARM; j++) {
		/* Checked before: the same copy, and a reading no earlier. */
		clock = dev_spec_deadline(&specs[j], env, &deadline);
		err = clock < 0 ? clock : dev_timer_rearm(ctx, &specs[j], clock, deadline);
		if (err)
			break;
	}
	/* The new timers, DEV_PUT_CHUNK per lock round trip of the queue. */
	while (!err && j < end)
		j += dev_timers_new(ctx, specs, j, end, env, &err);
	*errp = err;
	return j;
}

/*
 * Write the ids of the new timers of run specs[@i..@end) (dev_arm_run()) to
 * their user copies @us[]. Returns the index of the first write that faults,
 * always a new timer's, or @end.
 */
static u32 dev_arm_report(const struct tempo_timer_spec *specs,
			  struct tempo_timer_spec __user *us, u32 i, u32 end)
{
	for (; i < end; i++)
		if (!(specs[i].flags & TEMPO_ARM_REARM) && put_user(specs[i].id, &us[i].id))
			break;
	return i;
}

/*
 * A kernel buffer of @bytes for a call's batch (the copy of its array, or
 * cancel by cookie's table), charged to the file's memory cgroup, which the
 * call entered, and to its user's max_user_copy_bytes until dev_call_free():
 * a call in flight holds at most max_timers elements, and a user's calls
 * together at most that many bytes. ERR_PTR(-ENOSPC) beyond it, -ENOMEM, or
 * -EAGAIN when @nowait and it would block. @zero: zeroed.
 */
static void *dev_call_alloc(struct tempo_ctx *ctx, size_t bytes, bool nowait, bool zero)
{
	gfp_t gfp = (nowait ? DEV_GFP_NOWAIT : DEV_GFP) | (zero ? __GFP_ZERO : 0);
	unsigned long limit = dev_user_limit(DU_COPIES);
	void *p;

	/* A size that overflowed (SIZE_MAX, array_size()) is over any limit. */
	if (bytes > limit || !dev_user_charge(ctx->user, DU_COPIES, bytes, limit))
		return ERR_PTR(-ENOSPC);
	p = kvmalloc(bytes, gfp);
	if (p)
		return p;
	dev_user_uncharge(ctx->user, DU_COPIES, bytes);
	return ERR_PTR(nowait ? -EAGAIN : -ENOMEM);
}

static void dev_call_free(struct tempo_ctx *ctx, void *p, size_t bytes)
{
	kvfree(p);
	dev_user_uncharge(ctx->user, DU_COPIES, bytes);
}

/*
 * Copy a user array of @count elements of @size bytes, once: everything a
 * call decides and does comes from this copy (no double fetch). Freed with
 * dev_call_free(@count * @size); @count is at most max_timers.
 */
static void *dev_copy_array(struct tempo_ctx *ctx, u64 uptr, u32 count, size_t size,
			    bool nowait)
{
	size_t bytes = array_size(count, size);
	void *p = dev_call_alloc(ctx, bytes, nowait, false);

	if (IS_ERR(p))
		return p;
	if (copy_from_user(p, u64_to_user_ptr(uptr), bytes)) {
		dev_call_free(ctx, p, bytes);
		return ERR_PTR(-EFAULT);
	}
	return p;
}

static int dev_batch_in(struct tempo_batch *b, void __user *arg)
{
	if (copy_from_user(b, arg, sizeof(*b)))
		return -EFAULT;
	/* @done, @error_index, @error, @affected are out fields. */
	b->done = 0;
	b->error_index = b->count;
	b->error = 0;
	b->affected = 0;
	return 0;
}

static void dev_batch_fail(struct tempo_batch *b, u32 i, int err)
{
	if (b->error)
		return;
	b->error = err;
	b->error_index = i;
}

/* Write the out fields back; the call's result is the first failure, or 0. */
static int dev_batch_out(struct tempo_batch *b, void __user *arg)
{
	if (copy_to_user(arg, b, sizeof(*b)))
		return -EFAULT;
	return b->error;
}

/* A failure of the whole batch, before any element took effect. */
static int dev_batch_refuse(struct tempo_batch *b, void __user *arg, u32 i, int err)
{
	dev_batch_fail(b, i, err);
	return dev_batch_out(b, arg);
}

/*
 * Check every spec of an arm batch, count the new timers among them and make
 * room for all of them: the file's max_timers (live timers), its user's
 * max_user_timers and the slots. A user is charged for slots, not for live
 * timers: a file keeps every slot it has used until close() and reuses free
 * ones first, so its table is as large as the most timers it ever held, and
 * that is what the user's limit must bound. The queue of each clock the
 * batch names is made now (dev_clock_prepare(); it stays, a fixed part of
 * the file). All or nothing: on error nothing is reserved (the caller trims
 * what the table grew). *@charged: slots charged to the user; dev_arm_batch()
 * gives back those not taken into use.
 */
static int dev_arm_prepare(struct tempo_ctx *ctx, const struct tempo_timer_spec *specs,
			   struct tempo_batch *b, const struct dev_arm_env *env, u32 *charged,
			   bool nowait)
{
	u32 i, n = 0, nfree, clocks = 0;
	int clock, err, wake = 1;
	ktime_t deadline;

	lockdep_assert_held(&ctx->ctl_lock);
	for (i = 0; i < b->count; i++) {
		clock = dev_spec_deadline(&specs[i], env, &deadline);
		/* An alarm: may the caller wake the machine? Asked once per batch. */
		if (clock >= 0 && unlikely(dev_clock_is_alarm(clock))) {
			if (wake > 0)
				wake = dev_clock_may_wake();
			if (wake)
				clock = wake;
		}
		if (clock < 0) {
			dev_batch_fail(b, i, clock);
			return clock;
		}
		clocks |= BIT(clock);
		n += !(specs[i].flags & TEMPO_ARM_REARM);
		if (!(i % UT_CHUNK)) {
			err = dev_loop_step();
			if (err)
				goto err_batch;
		}
	}
	for (clock = DEV_CLK_BOOT; clock < DEV_CLK_NR; clock++) {
		err = clocks & BIT(clock) ? dev_clock_prepare(ctx, clock, nowait) : 0;
		if (err == -EAGAIN)
			return err;	/* nothing done: not the batch's failure */
		if (err)
			goto err_batch;
	}
	/* ntimers only grows under ctl_lock, which we hold: the check holds. */
	err = -ENOSPC;
	if ((u64)atomic_read(&ctx->ntimers) + n > dev_limit_timers())
		goto err_batch;
	/* The free list only grows meanwhile: at most this many new slots. */
	nfree = dev_nfree(ctx);
	*charged = n > nfree ? n - nfree : 0;
	if (!dev_user_charge(ctx->user, DU_TIMERS, *charged, dev_user_limit(DU_TIMERS)))
		goto err_batch;
	err = dev_slots_reserve(ctx, n, nowait);
	if (err) {
		dev_user_uncharge(ctx->user, DU_TIMERS, *charged);
		if (err == -EAGAIN)
			return err;	/* nothing done: not the batch's failure */
		goto err_batch;
	}
	return 0;

err_batch:
	dev_batch_fail(b, b->count, err);
	return err;
}

/*
 * Arm batch @b, whose specs were copied from @us, under ctl_lock: check
 * every spec and make room for all new timers (dev_arm_prepare()), then
 * arm run by run (dev_arm_run()) and write each run's new ids back. The out
 * fields of @b are set; the caller writes them.
 * Return: -EAGAIN if @nowait and the table must grow first (nothing was
 * done, @b untouched), else 0.
 */
static int dev_arm_batch(struct tempo_ctx *ctx, struct tempo_batch *b,
			 struct tempo_timer_spec *specs, struct tempo_timer_spec __user *us,
			 bool nowait)
{
	u32 i, j, k, m, end, charged, nslots = ctx->nslots;
	struct dev_arm_env env;
	int err;

	lockdep_assert_held(&ctx->ctl_lock);
	/*
	 * One clock reading for the whole batch: relative delays count from
	 * the call, as if every element were armed at once. The checks use a
	 * first reading; the one the deadlines count from is taken as the
	 * first run begins, after the checks (a later reading never refuses
	 * what an earlier one accepted: the range of an absolute deadline
	 * only shrinks), so that a reader never sees records of later
	 * deadlines while this batch is still being checked.
	 */
	dev_now_get(&env.now);
	env.max = tempo_timer_max_delay_ns();
	env.min_period = READ_ONCE(min_period_ns);
	err = dev_arm_prepare(ctx, specs, b, &env, &charged, nowait);
	if (err) {
		dev_slots_trim(ctx);
		return err == -EAGAIN ? err : 0;
	}
	for (i = 0; i < b->count && !b->error; i = k) {
		k = min_t(u32, b->count, i + TEMPO_SPEC_CHUNK);
		for (j = i; j < k && !b->error; j = end) {
			if (!j)
				dev_now_get(&env.now);
			end = dev_arm_run(ctx, specs, j, k, &env, &err);
			m = dev_arm_report(specs, us, j, end);
			for (; m < end; m++) {	/* ids the caller never saw */
				dev_batch_fail(b, m, -EFAULT);
				if (!(specs[m].flags & TEMPO_ARM_REARM))
					dev_unarm(ctx, specs[m].id);
			}
			b->done = b->error ? b->error_index : end;
			if (err)
				dev_batch_fail(b, end, err);
		}
		if (!b->error && dev_loop_step())
			dev_batch_fail(b, k, -EINTR);
	}
	/* Slots charged and not taken into use go back (nslots: ctl_lock), and their chunks. */
	dev_user_uncharge(ctx->user, DU_TIMERS, charged - (ctx->nslots - nslots));
	dev_slots_trim(ctx);
	b->affected = b->done;
	atomic64_add(b->done, &ctx->st.armed);
	atomic64_add(b->done, &dev_mstat.armed);
	return 0;
}

/* Check an arm or cancel batch's header; the array is copied by the caller. */
static int dev_batch_check(const struct tempo_batch *b, u32 flags)
{
	if (b->flags & ~flags || !b->count)
		return -EINVAL;
	return b->count > dev_limit_timers() ? -ENOSPC : 0;
}

/*
 * Cancel timers @ids[0..@n), elements @first.. of batch @b. Under ctl_lock.
 * One lock round trip per queue the chunk's timers are on; as if in turn
 * (dev_clock_cancel()).
 */
static void dev_cancel_ids(struct tempo_ctx *ctx, const u64 *ids, u32 n, u32 first,
			   struct tempo_batch *b)
{
	struct tempo_delayq_node *nodes[DEV_CANCEL_CHUNK];
	struct tempo_utimer *uts[DEV_CANCEL_CHUNK];
	bool removed[DEV_CANCEL_CHUNK];
	u32 j, m = 0, done = 0;

	for (j = 0; j < n; j++) {
		uts[j] = dev_slot_of(ctx, ids[j]);
		if (uts[j])
			nodes[m++] = &uts[j]->item.dq;
	}
	dev_clock_cancel(ctx, nodes, m, removed);
	for (j = 0, m = 0; j < n; j++) {
		if (!uts[j] || !removed[m++]) {
			dev_batch_fail(b, first + j, -ENOENT);
			continue;
		}
		uts[done++] = uts[j];	/* done <= j: the slots freed, packed */
	}
	dev_slots_free(ctx, uts, done);
	b->done += done;
	b->affected += done;
	atomic64_add(done, &ctx->st.cancelled);
}

/*
 * Cancel by cookie, in one pass over the slot table whatever the number of
 * cookies: the batch's cookies go into an open-addressing hash table keyed
 * with a random siphash key (a user choosing cookies cannot make them
 * collide), and each live timer looks its cookie up. O(cookies + slots).
 * The first element naming a cookie cancels every timer with it; a later
 * element naming the same cookie finds none (ENOENT), as if applied in order.
 */
struct dev_cookie_ent {
	u64	cookie;
	u32	index;		/* first element naming it, + 1; 0 = empty */
	u32	hits;		/* timers it cancelled */
};

static siphash_key_t dev_cookie_key __read_mostly;

static struct dev_cookie_ent *dev_cookie_find(struct dev_cookie_ent *tab, u32 mask,
					      u64 cookie)
{
	u32 h = siphash_1u64(cookie, &dev_cookie_key) & mask;

	/* Half empty at most: the probe ends at the cookie or an empty entry. */
	while (tab[h].index && tab[h].cookie != cookie)
		h = (h + 1) & mask;
	return &tab[h];
}

/*
 * Cancel the slots @uts[0..@n) whose cookies @ents[] name, if live:
 * dev_clock_cancel() for them, each cancelled timer counted on its cookie.
 */
static void dev_cancel_matches(struct tempo_ctx *ctx, struct tempo_utimer **uts,
			       struct dev_cookie_ent **ents, u32 n, struct tempo_batch *b)
{
	struct tempo_delayq_node *nodes[DEV_CANCEL_CHUNK];
	bool removed[DEV_CANCEL_CHUNK];
	u32 j, done = 0;

	for (j = 0; j < n; j++)
		nodes[j] = &uts[j]->item.dq;
	dev_clock_cancel(ctx, nodes, n, removed);
	for (j = 0; j < n; j++) {
		if (!removed[j])
			continue;
		ents[j]->hits++;
		uts[done++] = uts[j];
	}
	dev_slots_free(ctx, uts, done);
	b->affected += done;
}

static int dev_cancel_cookies(struct tempo_ctx *ctx, const u64 *keys, struct tempo_batch *b,
			      bool nowait)
{
	size_t size = roundup_pow_of_two(2 * (size_t)b->count);
	struct dev_cookie_ent *tab, *e, *ents[DEV_CANCEL_CHUNK];
	struct tempo_utimer *ut, *uts[DEV_CANCEL_CHUNK];
	u32 i, m, slot, end, mask = size - 1;
	int err = 0;

	tab = dev_call_alloc(ctx, size * sizeof(*tab), nowait, true);
	if (IS_ERR(tab))
		return PTR_ERR(tab);
	for (i = 0; i < b->count && !err; i++) {
		e = dev_cookie_find(tab, mask, keys[i]);
		if (!e->index) {
			e->cookie = keys[i];
			e->index = i + 1;
		}
		if (!(i % UT_CHUNK))
			err = dev_loop_step();
	}
	/* A free slot keeps its last cookie: remove() finds its item not queued. */
	for (slot = 0, m = 0; slot < ctx->nslots && !err; slot = end) {
		end = min_t(u32, ctx->nslots, slot + UT_CHUNK);
		for (; slot < end; slot++) {
			ut = dev_slot(ctx, slot);
			e = dev_cookie_find(tab, mask, ut->cookie);
			if (!e->index)
				continue;
			uts[m] = ut;
			ents[m++] = e;
			if (m == DEV_CANCEL_CHUNK) {
				dev_cancel_matches(ctx, uts, ents, m, b);
				m = 0;
			}
		}
		err = dev_loop_step();
	}
	dev_cancel_matches(ctx, uts, ents, m, b);
	atomic64_add(b->affected, &ctx->st.cancelled);
	for (i = 0; i < b->count && !err; i++) {
		e = dev_cookie_find(tab, mask, keys[i]);
		if (e->index == i + 1 && e->hits)
			b->done++;
		else
			dev_batch_fail(b, i, -ENOENT);
	}
	dev_call_free(ctx, tab, size * sizeof(*tab));
	return err;
}

/*
 * Cancel batch @b of @keys under ctl_lock. The out fields of @b are set.
 * Return: -EAGAIN if @nowait and the cookie table could not be allocated
 * without blocking (nothing was done), else 0.
 */
static int dev_cancel_batch(struct tempo_ctx *ctx, struct tempo_batch *b, const u64 *keys,
			    bool nowait)
{
	int err = 0;
	u32 i, n;

	lockdep_assert_held(&ctx->ctl_lock);
	if (b->flags & TEMPO_CANCEL_COOKIE) {
		err = dev_cancel_cookies(ctx, keys, b, nowait);
		if (err == -EAGAIN)
			return err;
	} else {
		for (i = 0; i < b->count && !err; i += n) {
			n = min_t(u32, b->count - i, DEV_CANCEL_CHUNK);
			dev_cancel_ids(ctx, keys + i, n, i, b);
			if (!(i % UT_CHUNK))
				err = dev_loop_step();
		}
	}
	if (err)	/* ENOMEM, or a fatal signal: the batch stopped part way */
		dev_batch_fail(b, b->count, err);
	return 0;
}

/*
 * An arm or cancel batch, from the ioctl or from io_uring: the batch header
 * at @arg and its array are read once, the batch applied under ctl_lock,
 * and the out fields written back whenever the header could be read.
 * @nowait (io_uring's non-blocking issue): ctl_lock only if free, no
 * allocation that may block; -EAGAIN, with nothing done and nothing
 * written, makes io_uring issue it again from a worker, blocking.
 * Return: as the ioctl: 0, or the first failure; *@done: elements done.
 */
int dev_batch_call(struct tempo_ctx *ctx, enum dev_batch_op op, void __user *arg,
		   bool nowait, u32 *done)
{
	size_t size = op == DEV_BATCH_ARM ? sizeof(struct tempo_timer_spec) : sizeof(u64);
	struct tempo_batch b;
	void *arr;
	int err;

	*done = 0;
	if (dev_batch_in(&b, arg))
		return -EFAULT;
	err = dev_batch_check(&b, op == DEV_BATCH_ARM ? 0 : TEMPO_CANCEL_FLAGS);
	if (err)	/* cancel says EINVAL for any bad count */
		return dev_batch_refuse(&b, arg, b.count,
					op == DEV_BATCH_ARM ? err : -EINVAL);
	arr = dev_copy_array(ctx, b.ptr, b.count, size, nowait);
	if (arr == ERR_PTR(-EAGAIN))
		return -EAGAIN;
	if (IS_ERR(arr))
		return dev_batch_refuse(&b, arg, b.count, PTR_ERR(arr));

	if (nowait ? !mutex_trylock(&ctx->ctl_lock) : mutex_lock_killable(&ctx->ctl_lock)) {
		dev_call_free(ctx, arr, (size_t)b.count * size);
		return nowait ? -EAGAIN : -EINTR;
	}
	if (op == DEV_BATCH_ARM)
		err = dev_arm_batch(ctx, &b, arr, u64_to_user_ptr(b.ptr), nowait);
	else
		err = dev_cancel_batch(ctx, &b, arr, nowait);
	mutex_unlock(&ctx->ctl_lock);
	dev_call_free(ctx, arr, (size_t)b.count * size);
	if (err)
		return err;
	*done = b.done;
	return dev_batch_out(&b, arg);
}

/*
 * Query timers @qs[0..@n) by id, under ctl_lock: each one's state as its
 * queue finds it at one instant (tempo_delayq_query()), with its deadline
 * (in its clock and the caller's namespace), period and cookie, and the time
 * its clock has left by @now. An id that names no live timer gets ENOENT in
 * its entry, and the batch goes on.
 */
static void dev_query_ids(struct tempo_ctx *ctx, struct tempo_timer_query *qs, u32 n,
			  u32 first, const struct dev_now *now, struct tempo_batch *b)
{
	struct tempo_timer_query *tq;
	struct tempo_utimer *ut;
	ktime_t deadline, t;
	u32 j;
	int r;

	lockdep_assert_held(&ctx->ctl_lock);
	for (j = 0; j < n; j++) {
		tq = &qs[j];
		ut = dev_slot_of(ctx, tq->id);
		r = ut ? tempo_delayq_query(dev_timer_queue(ctx, ut), &ut->item.dq, &deadline) :
			 -ENOENT;
		if (r < 0) {
			tq->error = -ENOENT;
			dev_batch_fail(b, first + j, -ENOENT);
			continue;
		}
		t = dev_now_of(now, ut->item.clock);
		tq->deadline = dev_clock_to_user(now, ut->item.clock, deadline);
		tq->period = ut->period;
		tq->cookie = ut->cookie;
		tq->remaining = ktime_after(deadline, t) ? ktime_to_ns(ktime_sub(deadline, t)) : 0;
		tq->state = r == TEMPO_DELAYQ_PENDING ? TEMPO_TIMER_ARMED : TEMPO_TIMER_FIRED;
		if (dev_clock_ended(ctx, &ut->item)) {
			tq->state = TEMPO_TIMER_CLOCK_SET;
			tq->remaining = 0;
		}
		b->done++;
	}
}

/*
 * TEMPO_IOC_TIMER_QUERY: the batch's array is read once, answered in the
 * kernel's copy, and written back whole, ids included, unchanged. The out
 * fields of every entry are set (zero for an unknown id) whatever happens
 * after the copy in.
 */
long dev_ioc_query(struct tempo_ctx *ctx, void __user *arg)
{
	struct tempo_timer_query *qs;
	struct tempo_batch b;
	struct dev_now now;
	u32 i, n;
	int err;

	if (dev_batch_in(&b, arg))
		return -EFAULT;
	err = dev_batch_check(&b, 0);
	if (err)
		return dev_batch_refuse(&b, arg, b.count, err == -ENOSPC ? -EINVAL : err);
	qs = dev_copy_array(ctx, b.ptr, b.count, sizeof(*qs), false);
	if (IS_ERR(qs))
		return dev_batch_refuse(&b, arg, b.count, PTR_ERR(qs));
	for (i = 0; i < b.count; i++) {
		u64 id = qs[i].id;

		memset(&qs[i], 0, sizeof(qs[i]));
		qs[i].id = id;
	}
	err = mutex_lock_killable(&ctx->ctl_lock);
	if (err) {
		dev_batch_fail(&b, b.count, -EINTR);
		goto out_write;
	}
	dev_now_get(&now);
	for (i = 0; i < b.count; i += n) {
		n = min_t(u32, b.count - i, UT_CHUNK);
		dev_query_ids(ctx, qs + i, n, i, &now, &b);
		if (dev_loop_step()) {
			dev_batch_fail(&b, b.count, -EINTR);
			break;
		}
	}
	mutex_unlock(&ctx->ctl_lock);
out_write:
	if (copy_to_user(u64_to_user_ptr(b.ptr), qs, (size_t)b.count * sizeof(*qs))) {
		/* The answers never reached the caller: that is the failure. */
		b.error = -EFAULT;
		b.error_index = b.count;
	}
	dev_call_free(ctx, qs, (size_t)b.count * sizeof(*qs));
	b.affected = b.done;
	return dev_batch_out(&b, arg);
}

/* Free the slot table at release(), after the queue handed back its items. */
void dev_timers_release(struct tempo_ctx *ctx)
{
	u32 i;

	atomic64_sub(atomic_read(&ctx->ntimers), &dev_mstat.timers);
	for (i = 0; i < ctx->nchunks; i++)
		kvfree(ctx->chunks[i]);
	kfree(ctx->chunks);
	atomic64_sub((u64)ctx->nchunks * UT_CHUNK * sizeof(struct tempo_utimer),
		     &dev_mstat.bytes);
	dev_user_uncharge(ctx->user, DU_TIMERS, ctx->nslots);
}

/* Module init: the key that hashes a cancel batch's cookies. */
void dev_timer_init(void)
{
	get_random_bytes(&dev_cookie_key, sizeof(dev_cookie_key));
}
