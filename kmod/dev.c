// SPDX-License-Identifier: GPL-2.0
/*
 * tempo: /dev/tempo, the file interface to the cores.
 *
 * This is the only file that knows about files. Each open() makes a context
 * (struct tempo_ctx) holding three things, and release() tears all of them
 * down:
 *
 *   timers    a table of struct tempo_utimer slots, each embedding a
 *             struct tempo_timer of the wheel, grown in chunks of UT_CHUNK
 *             and kept until release(); a timer's id names its slot and the
 *             slot's generation (see "Ids and slots" below).
 *   events    one ready list behind a wait queue: the per-file delay queue.
 *             Arming a timer is put(), its expiry moves it to the ready list
 *             and wakes one reader (exclusive waits), read() is take() and
 *             drain(), cancel is remove() in O(1). A timer *is* its pending
 *             event: a periodic timer that expires again while its record is
 *             unread bumps the record's overrun count instead of queueing a
 *             second one, so the queue never holds more timer records than
 *             there are timers. This is the delay queue of kmod/delayq.c
 *             specialised, rather than that core itself, because a record
 *             carries the fire time and the folded overruns (set in the
 *             expiry callback, which the core keeps to itself), because
 *             "read or cancelled, exactly once" needs the record's state and
 *             the id's ownership decided under one lock, and because ordered
 *             completions share the same queue, wait queue and poll mask.
 *   order     an ordering domain of kmod/order.c, created on first use, with a
 *             ticket ownership table so that userspace can only run or trash
 *             tickets this file issued, each once; completions either become
 *             records on the ready list or are written to a sink file.
 *
 * Locks. ctx->wq.lock (a spinlock, never taken from interrupts: everything
 * here runs in process context) guards the ready list, the free list of
 * timer slots and every utimer's id, state, deadline and event fields; all
 * arms of a utimer happen under it, so the last arm wins consistently with
 * ut->deadline. ctx->ctl_lock (a mutex) serialises the arm and cancel ioctls
 * of one context and guards the slot table. ctx->sink_lock guards the sink
 * file. Nesting: ctl_lock -> wq.lock; sink_lock alone.
 *
 * A utimer's life (transitions under wq.lock):
 *
 *        arm            expiry                  read() (one-shot)
 *  FREE -----> ARMED --------------> QUEUED -------------------> FREE
 *   ^            ^   <-------------   |  ^
 *   |            |   read() (periodic)|  | expiry (periodic):
 *   |            |   (re-arms if      |  | overrun++, park
 *   |            +--------------------+--+
 *   |     cancel (from ARMED/QUEUED)  |
 *   +---------------------------------+
 *
 * Ids and slots. An id is (generation << 32) | (slot + 1): never 0. A slot
 * goes back to the context's free list, and its generation moves on, in the
 * same critical section that ends the timer: the read of a one-shot's record
 * (which therefore carries the last use of its id) or a cancel. So every
 * armed timer is counted exactly once, as read or as cancelled, and a late
 * cancel or re-arm of a dead id finds a newer generation and fails with
 * ENOENT. The free list is FIFO, so an id comes back only after 2^32 reuses
 * of its slot, and only after every other free slot was reused first.
 *
 * Slots are never freed before release(), so a slot's memory outlives every
 * callback of its timer without any wait: a cancel is tempo_timer_cancel()
 * and no more, and the slot may be reused at once. The wheel allows arming a
 * timer whose callback is in flight; that late callback finds the slot FREE,
 * or ARMED for a deadline still ahead, or QUEUED for a one-shot, and ignores
 * it (dev_timer_fire()), or finds the new timer due and reports it, in which
 * case the new timer's own expiry is the one ignored. release() waits out
 * every slot's timer (tempo_timer_shutdown_sync()) before freeing the table.
 * The table (ctx->chunks) is read and grown only under ctl_lock; everything
 * else reaches a utimer through a pointer (the ready list, the free list, the
 * callback's timer), and chunks never move.
 *
 * Ordered completions with a sink are written with kernel_write() from the
 * completion callback. The ordered scheduler runs it in the thread that
 * completes the sequence: the submitting thread inside its ioctl (process
 * context, no locks of ours held, may sleep), or the scheduler's workqueue
 * when it hands off a long streak (a kworker: process context too, but with
 * kernel credentials, no signals, and no SIGPIPE to deliver to the
 * submitter). kernel_write() is allowed in both: it may sleep and may block on
 * a full pipe, which is the stream's backpressure. It is not allowed from
 * atomic context, so the sink write asserts might_sleep(). A sink nobody
 * drains blocks the completing thread for good; when that is the workqueue,
 * close() waits for it in tempo_order_destroy(). A sink opened O_NONBLOCK
 * avoids that: a write that would block fails, and is counted (sink_errors).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/compat.h>
#include <linux/debugfs.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include <tempo/timer.h>
#include <tempo/order.h>
#include <uapi/tempo.h>

#include "internal.h"

/* ---- limits ---------------------------------------------------------- */

static unsigned int max_timers = 1 << 20;
module_param(max_timers, uint, 0644);
MODULE_PARM_DESC(max_timers, "live timers per open file of /dev/tempo (default 1M)");

static unsigned int max_events = 1 << 16;
module_param(max_events, uint, 0644);
MODULE_PARM_DESC(max_events, "unread ordered records per file before they are reported lost (default 65536)");

static unsigned int order_window = 1024;
module_param(order_window, uint, 0644);
MODULE_PARM_DESC(order_window, "ordering window per file, rounded up to a power of two, 2..65536 (default 1024)");

static unsigned int max_data = 1 << 16;
module_param(max_data, uint, 0644);
MODULE_PARM_DESC(max_data, "largest ordered submission, bytes, at most 1 MiB (default 65536)");

static ulong min_period_ns = 100 * NSEC_PER_USEC;
module_param(min_period_ns, ulong, 0644);
MODULE_PARM_DESC(min_period_ns, "shortest period of a periodic timer, ns (default 100000)");

#define TEMPO_MAX_DATA_CAP	BIT(20)
#define TEMPO_MAX_WINDOW	BIT(16)
#define TEMPO_READ_CHUNK	32	/* records per pass of read() */
#define TEMPO_SPEC_CHUNK	32	/* specs per copy_from_user() */
#define UT_CHUNK_SHIFT		8
#define UT_CHUNK		BIT(UT_CHUNK_SHIFT)	/* utimer slots per allocation */
#define TEMPO_CANCEL_CHUNK	32	/* keys per copy_from_user() */

static unsigned int limit_timers(void)
{
	return READ_ONCE(max_timers);
}

static unsigned int limit_events(void)
{
	return READ_ONCE(max_events);
}

static unsigned int limit_data(void)
{
	return min_t(u32, READ_ONCE(max_data), TEMPO_MAX_DATA_CAP);
}

static unsigned int limit_window(void)
{
	unsigned int w = clamp_t(u32, READ_ONCE(order_window), 2, TEMPO_MAX_WINDOW);

	return roundup_pow_of_two(w);
}

/* ---- module-wide counters -------------------------------------------- */

static struct {
	atomic64_t contexts, timers, submissions, bytes;
	atomic64_t opens, armed, fired, completed;
} mstat;

/* ---- per-context state ----------------------------------------------- */

enum tempo_ut_state { UT_FREE, UT_ARMED, UT_QUEUED };
enum tempo_qent_type { QE_TIMER, QE_ORDER };

/* An entry of the ready list: the head of a utimer or an osub. */
struct tempo_qent {
	struct list_head	node;
	u8			type;
};

struct tempo_ctx;

/* A timer slot. Every field but timer and ctx is guarded by ctx->wq.lock. */
struct tempo_utimer {
	struct tempo_timer	timer;
	struct tempo_qent	q;
	struct tempo_ctx	*ctx;
	u64			id;		/* generation << 32 | (slot + 1) */
	u8			state;		/* enum tempo_ut_state */
	bool			parked;		/* periodic, idle until its record is read */
	u32			ev_overrun;	/* the unread record's folded expirations */
	u64			cookie;
	u64			deadline;	/* next expiry, ns */
	u64			period;
	u64			ev_deadline;	/* the unread record: deadline, */
	u64			ev_time;	/* and fire time */
	struct tempo_utimer	*next_free;	/* on the free list, while FREE */
};

/* An ordered submission, from ioctl to completion (and record, if any). */
struct tempo_osub {
	struct tempo_qent	q;
	struct tempo_ctx	*ctx;
	u64			ticket;
	u64			cookie;
	u64			submitted;
	u64			completed;
	u32			len;
	u8			data[];
};

struct tempo_ctx_counters {
	atomic64_t armed, rearmed, fired, cancelled, events_read, overruns;
	atomic64_t events_lost, tickets, submitted, trashed, completed;
	atomic64_t sink_bytes, sink_errors;
};

struct tempo_ctx {
	wait_queue_head_t	wq;		/* .lock guards the fields up to order */
	struct list_head	ready;
	u32			nready;
	u32			nready_order;	/* ordered records on the ready list */
	u32			lost;		/* ordered records dropped, not yet reported */

	struct tempo_utimer	*free_head;	/* FIFO of FREE slots, under wq.lock */
	struct tempo_utimer	*free_tail;
	u32			nfree;		/* on it; dev_slots_reserve() peeks */
	u32			nslots;		/* slots in use or free; wq.lock + ctl_lock */

	struct mutex		ctl_lock;	/* arm and cancel ioctls, the table */
	struct tempo_utimer	**chunks;	/* the table: nchunks of UT_CHUNK slots */
	u32			nchunks;
	u32			cap_chunks;
	atomic_t		ntimers;	/* live (not FREE) timers */

	struct mutex		order_lock;	/* creates the ordering domain */
	struct tempo_order	*order;		/* set once, LMM(dev_order_get:A) */
	atomic64_t		*slots;		/* ticket + 1 while issued, unused */
	u32			window;

	struct mutex		sink_lock;	/* sink, and sink writes */
	struct file		*sink;
	int			sink_last_error;

	struct tempo_ctx_counters st;
};

static const struct file_operations tempo_dev_fops;

/* ---- timers ---------------------------------------------------------- */

static void dev_ready_add(struct tempo_ctx *ctx, struct tempo_qent *q)
{
	lockdep_assert_held(&ctx->wq.lock);
	list_add_tail(&q->node, &ctx->ready);
	ctx->nready++;
	/* One record, one reader: wakes every poller and one exclusive reader. */
	wake_up_locked_poll(&ctx->wq, EPOLLIN | EPOLLRDNORM);
}

static void dev_ready_del(struct tempo_ctx *ctx, struct tempo_qent *q)
{
	lockdep_assert_held(&ctx->wq.lock);
	list_del(&q->node);
	ctx->nready--;
}

/*
 * The wheel callback: process context, on the tempo workqueue of the CPU the
 * timer was armed on.
 */
static void dev_timer_fire(struct tempo_timer *t)
{
	struct tempo_utimer *ut = container_of(t, struct tempo_utimer, timer);
	struct tempo_ctx *ctx = ut->ctx;
	u64 now = ktime_get_ns();
	u64 missed;

	spin_lock(&ctx->wq.lock);
	/*
	 * A late callback: of a cancelled timer whose slot is FREE, or of a
	 * one-shot already reported (by the late callback of the slot's previous
	 * timer; see "Ids and slots").
	 */
	if (ut->state == UT_FREE || (ut->state == UT_QUEUED && !ut->period))
		goto out_unlock;
	/*
	 * An expiry for a deadline that a re-arm (or a new timer in the slot)
	 * has since moved later: the timer is armed again for the new one.
	 * Never report early.
	 */
	if ((s64)(now - ut->deadline) < 0)
		goto out_unlock;

	atomic64_inc(&ctx->st.fired);
	atomic64_inc(&mstat.fired);
	missed = ut->period ? div64_u64(now - ut->deadline, ut->period) : 0;
	if (ut->state == UT_QUEUED) {
		/*
		 * Periodic, record still unread: fold this expiry into it, and
		 * park the timer. The read that takes the record counts what
		 * expired meanwhile and re-arms it (dev_periodic_resume()), so
		 * an absent reader costs at most one more callback per timer:
		 * no callback storm from many short periods nobody reads.
		 */
		ut->ev_overrun += 1 + missed;
		atomic64_add(1 + missed, &ctx->st.overruns);
		ut->deadline += (missed + 1) * ut->period;
		ut->parked = true;
		goto out_unlock;
	}
	ut->state = UT_QUEUED;
	ut->ev_deadline = ut->deadline;
	ut->ev_time = now;
	ut->ev_overrun = missed;
	atomic64_add(missed, &ctx->st.overruns);
	dev_ready_add(ctx, &ut->q);
	if (ut->period) {
		ut->deadline += (missed + 1) * ut->period;
		/* Under wq.lock, like every arm of a utimer. */
		tempo_timer_arm_at(&ut->timer, TEMPO_CPU_LOCAL,
				   ns_to_ktime(ut->deadline));
	}
out_unlock:
	spin_unlock(&ctx->wq.lock);
}

static struct tempo_utimer *dev_slot(struct tempo_ctx *ctx, u32 slot)
{
	return &ctx->chunks[slot >> UT_CHUNK_SHIFT][slot & (UT_CHUNK - 1)];
}

/* Add a chunk of FREE, never used slots to the table (beyond ctx->nslots). */
static int dev_slots_grow(struct tempo_ctx *ctx)
{
	struct tempo_utimer **chunks, *chunk;
	u32 i, n = ctx->nchunks;

	lockdep_assert_held(&ctx->ctl_lock);
	if (n >= (U32_MAX >> UT_CHUNK_SHIFT) - 1)
		return -ENOSPC;
	if (n == ctx->cap_chunks) {
		u32 cap = max(8U, 2 * n);

		chunks = krealloc_array(ctx->chunks, cap, sizeof(*chunks), GFP_KERNEL_ACCOUNT);
		if (!chunks)
			return -ENOMEM;
		ctx->chunks = chunks;
		ctx->cap_chunks = cap;
	}
	chunk = kvcalloc(UT_CHUNK, sizeof(*chunk), GFP_KERNEL_ACCOUNT);
	if (!chunk)
		return -ENOMEM;
	for (i = 0; i < UT_CHUNK; i++) {
		chunk[i].ctx = ctx;
		chunk[i].q.type = QE_TIMER;
		chunk[i].state = UT_FREE;
		chunk[i].id = n * UT_CHUNK + i + 1;
		tempo_timer_init(&chunk[i].timer, dev_timer_fire, 0);
	}
	ctx->chunks[n] = chunk;
	ctx->nchunks = n + 1;
	atomic64_add(UT_CHUNK * sizeof(*chunk), &mstat.bytes);
	return 0;
}

/*
 * Make sure the next @want dev_slot_get()s find a slot: grow the table while
 * the free list and the never used slots fall short. Under ctl_lock, so the
 * free list can only grow meanwhile (readers and the callback never take a
 * slot).
 */
static int dev_slots_reserve(struct tempo_ctx *ctx, u32 want)
{
	int err;

	lockdep_assert_held(&ctx->ctl_lock);
	while (READ_ONCE(ctx->nfree) + (ctx->nchunks * UT_CHUNK - ctx->nslots) < want) {
		err = dev_slots_grow(ctx);
		if (err)
			return err;
	}
	return 0;
}

/* Under wq.lock, after dev_slots_reserve(): a FREE slot, now live. */
static struct tempo_utimer *dev_slot_get(struct tempo_ctx *ctx)
{
	struct tempo_utimer *ut = ctx->free_head;

	lockdep_assert_held(&ctx->wq.lock);
	if (ut) {
		ctx->free_head = ut->next_free;
		WRITE_ONCE(ctx->nfree, ctx->nfree - 1);
		if (!ctx->free_head)
			ctx->free_tail = NULL;
	} else {
		ut = dev_slot(ctx, ctx->nslots++);
	}
	atomic_inc(&ctx->ntimers);
	atomic64_inc(&mstat.timers);
	return ut;
}

/*
 * Under wq.lock: end a live timer's life (its record, if any, was taken or
 * withdrawn): the slot goes FREE at the tail of the free list and its id dies.
 */
static void dev_slot_put(struct tempo_ctx *ctx, struct tempo_utimer *ut)
{
	lockdep_assert_held(&ctx->wq.lock);
	ut->state = UT_FREE;
	ut->id += 1ULL << 32;
	ut->next_free = NULL;
	if (ctx->free_tail)
		ctx->free_tail->next_free = ut;
	else
		ctx->free_head = ut;
	ctx->free_tail = ut;
	WRITE_ONCE(ctx->nfree, ctx->nfree + 1);
	atomic_dec(&ctx->ntimers);
	atomic64_dec(&mstat.timers);
}

/* Under ctl_lock: the slot @id names, if it exists. Its timer may be dead. */
static struct tempo_utimer *dev_slot_of(struct tempo_ctx *ctx, u64 id)
{
	u32 slot = (u32)id - 1;

	lockdep_assert_held(&ctx->ctl_lock);
	return (u32)id && slot < ctx->nslots ? dev_slot(ctx, slot) : NULL;
}

/* Under ctl_lock and wq.lock: the live timer @id names, or NULL. */
static struct tempo_utimer *dev_live(struct tempo_ctx *ctx, u64 id)
{
	struct tempo_utimer *ut = dev_slot_of(ctx, id);

	lockdep_assert_held(&ctx->wq.lock);
	return ut && ut->id == id && ut->state != UT_FREE ? ut : NULL;
}

/*
 * Under wq.lock: cancel a live timer. Its record, if unread, is withdrawn; a
 * callback already in flight finds the slot FREE (or reused) and ignores it.
 */
static void dev_utimer_cancel(struct tempo_ctx *ctx, struct tempo_utimer *ut)
{
	lockdep_assert_held(&ctx->wq.lock);
	if (ut->state == UT_QUEUED)
		dev_ready_del(ctx, &ut->q);
	tempo_timer_cancel(&ut->timer);
	dev_slot_put(ctx, ut);
}

/* What each element of one arm batch is checked against, read once per batch. */
struct dev_arm_env {
	u64 now;		/* the batch's one clock reading */
	u64 max;		/* tempo_timer_max_delay_ns() */
	u64 min_period;		/* min_period_ns */
};

/* Check a spec and compute its absolute deadline; -EINVAL if malformed. */
static int dev_spec_deadline(const struct tempo_timer_spec *s,
			     const struct dev_arm_env *env, u64 *deadline)
{
	if (s->flags & ~TEMPO_ARM_FLAGS || s->reserved)
		return -EINVAL;
	if (s->period && (s->period < env->min_period || s->period > env->max))
		return -EINVAL;
	if ((s->flags & TEMPO_ARM_REARM) && !s->id)
		return -EINVAL;
	if (!(s->flags & TEMPO_ARM_ABS)) {
		if (s->value > env->max)
			return -EINVAL;
		*deadline = env->now + s->value;
	} else {
		if ((s64)(s->value - env->now) > (s64)env->max)
			return -EINVAL;
		*deadline = s->value;
	}
	return 0;
}

/*
 * Under wq.lock: (re)start a utimer from a checked spec. @now: a clock
 * reading less than a tick old, to place the timer in the wheel (see
 * tempo_timer_arm_at_from()). The wheel refuses nothing dev_spec_deadline()
 * let through; should it, the error is returned.
 */
static int dev_utimer_start(struct tempo_ctx *ctx, struct tempo_utimer *ut,
			    const struct tempo_timer_spec *s, u64 deadline, u64 now)
{
	int ret;

	lockdep_assert_held(&ctx->wq.lock);
	if (ut->state == UT_QUEUED)
		dev_ready_del(ctx, &ut->q);
	ut->state = UT_ARMED;
	ut->parked = false;
	ut->cookie = s->cookie;
	ut->period = s->period;
	ut->deadline = deadline;
	ret = tempo_timer_arm_at_from(&ut->timer, TEMPO_CPU_LOCAL, deadline, now);
	return ret < 0 ? ret : 0;
}

/*
 * Undo the arm of new timer @id, whose id never reached the caller (not
 * counted as cancelled). Under ctl_lock. Its record may have been read in
 * the meantime, if it was due at once: then there is nothing left to undo.
 */
static void dev_unarm(struct tempo_ctx *ctx, u64 id)
{
	struct tempo_utimer *ut;

	spin_lock(&ctx->wq.lock);
	ut = dev_live(ctx, id);
	if (ut)
		dev_utimer_cancel(ctx, ut);
	spin_unlock(&ctx->wq.lock);
}

/* Under wq.lock, a slot reserved: arm a new timer; its id goes to @s->id. */
static int dev_timer_new_locked(struct tempo_ctx *ctx, struct tempo_timer_spec *s,
				u64 deadline, u64 now)
{
	struct tempo_utimer *ut = dev_slot_get(ctx);
	int err;

	err = dev_utimer_start(ctx, ut, s, deadline, now);
	if (err)
		dev_slot_put(ctx, ut);
	else
		s->id = ut->id;
	return err;
}

/* Under ctl_lock and wq.lock: re-arm live timer @s->id, or -ENOENT. */
static int dev_timer_rearm_locked(struct tempo_ctx *ctx, const struct tempo_timer_spec *s,
				  u64 deadline, u64 now)
{
	struct tempo_utimer *ut = dev_live(ctx, s->id);
	int err;

	if (!ut)
		return -ENOENT;
	err = dev_utimer_start(ctx, ut, s, deadline, now);
	if (!err)
		atomic64_inc(&ctx->st.rearmed);
	return err;
}

/*
 * Arm the run of specs[@i..@n) that one hold of wq.lock covers: up to the
 * first REARM that follows a new timer. So a run is REARMs, then new timers,
 * and every output of the run (the new ids, written afterwards) comes after
 * every REARM in it: a fault writing them is undone by cancelling new timers
 * only. Returns the end of the run; *@errp is 0, or the error of element
 * [end], at which the batch stops.
 */
static u32 dev_arm_run(struct tempo_ctx *ctx, struct tempo_timer_spec *specs, u32 i,
		       u32 n, const struct dev_arm_env *env, int *errp)
{
	u32 j, end, fresh = 0;
	int err = 0, nomem;
	u64 deadline, now;

	for (end = i; end < n; end++) {
		if (!(specs[end].flags & TEMPO_ARM_REARM))
			fresh++;
		else if (fresh)
			break;
	}
	nomem = dev_slots_reserve(ctx, fresh);
	if (nomem)
		end -= fresh;	/* the REARMs, then fail at the first new timer */

	/* For placement only (deadlines count from env->now): a run is short. */
	now = ktime_get_ns();
	spin_lock(&ctx->wq.lock);
	for (j = i; j < end; j++) {
		err = dev_spec_deadline(&specs[j], env, &deadline);
		if (!err)
			err = specs[j].flags & TEMPO_ARM_REARM ?
			      dev_timer_rearm_locked(ctx, &specs[j], deadline, now) :
			      dev_timer_new_locked(ctx, &specs[j], deadline, now);
		if (err)
			break;
	}
	spin_unlock(&ctx->wq.lock);
	*errp = err ?: nomem;
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
	while (i < end && specs[i].flags & TEMPO_ARM_REARM)
		i++;
	if (i == end)
		return end;
	if (!user_write_access_begin(us + i, (end - i) * sizeof(*us)))
		return i;
	for (; i < end; i++)
		unsafe_put_user(specs[i].id, &us[i].id, fault);
	user_write_access_end();
	return end;
fault:
	user_write_access_end();
	return i;
}

/* Pass 1 of an arm batch: every element well formed, room for the new ones. */
static int dev_arm_validate(struct tempo_ctx *ctx, struct tempo_timer_spec *specs,
			    struct tempo_timer_spec __user *us, u32 count,
			    const struct dev_arm_env *env)
{
	u64 deadline, new = 0;
	u32 i, j, n;
	int err;

	for (i = 0; i < count; i += n) {
		n = min_t(u32, count - i, TEMPO_SPEC_CHUNK);
		if (copy_from_user(specs, us + i, n * sizeof(*specs)))
			return -EFAULT;
		for (j = 0; j < n; j++) {
			err = dev_spec_deadline(&specs[j], env, &deadline);
			if (err)
				return err;
			if (!(specs[j].flags & TEMPO_ARM_REARM))
				new++;
		}
		cond_resched();
	}
	if (atomic_read(&ctx->ntimers) + new > limit_timers())
		return -ENOSPC;
	return 0;
}

static int dev_batch_in(struct tempo_batch *b, void __user *arg, u32 allowed)
{
	if (copy_from_user(b, arg, sizeof(*b)))
		return -EFAULT;
	if (b->flags & ~allowed)
		return -EINVAL;
	/* @done, @error_index, @error, @affected are out fields. */
	b->done = 0;
	b->error_index = b->count;
	b->error = 0;
	b->affected = 0;
	return 0;
}

static int dev_batch_out(struct tempo_batch *b, void __user *arg, int err)
{
	if (copy_to_user(arg, b, sizeof(*b)))
		return -EFAULT;
	return err;
}

static void dev_batch_fail(struct tempo_batch *b, u32 i, int err)
{
	if (b->error)
		return;
	b->error = err;
	b->error_index = i;
}

static long dev_ioc_arm(struct tempo_ctx *ctx, void __user *arg)
{
	struct tempo_timer_spec __user *us;
	struct tempo_timer_spec *specs;
	u32 i, j, k, m, n, end;
	struct dev_arm_env env;
	struct tempo_batch b;
	int err;

	err = dev_batch_in(&b, arg, 0);
	if (err)
		return err;
	if (!b.count)
		return -EINVAL;
	if (b.count > limit_timers())
		return -ENOSPC;
	us = u64_to_user_ptr(b.ptr);
	specs = kmalloc_array(min_t(u32, b.count, TEMPO_SPEC_CHUNK), sizeof(*specs),
			      GFP_KERNEL);
	if (!specs)
		return -ENOMEM;

	mutex_lock(&ctx->ctl_lock);
	/*
	 * One clock reading for the whole batch: relative delays count from
	 * the call, as if every element were armed at once (a clock read is
	 * a large part of an arm under virtualisation).
	 */
	env.now = ktime_get_ns();
	env.max = tempo_timer_max_delay_ns();
	env.min_period = READ_ONCE(min_period_ns);
	err = dev_arm_validate(ctx, specs, us, b.count, &env);
	if (err)
		goto out_unlock;
	for (i = 0; i < b.count && !b.error; i += n) {
		n = min_t(u32, b.count - i, TEMPO_SPEC_CHUNK);
		if (copy_from_user(specs, us + i, n * sizeof(*specs))) {
			dev_batch_fail(&b, i, -EFAULT);
			break;
		}
		for (j = 0; j < n && !b.error; j = end) {
			end = dev_arm_run(ctx, specs, j, n, &env, &err);
			m = dev_arm_report(specs, us + i, j, end);
			for (k = m; k < end; k++)	/* ids the caller never saw */
				dev_unarm(ctx, specs[k].id);
			b.done += m - j;
			if (m < end)
				dev_batch_fail(&b, i + m, -EFAULT);
			else if (err)
				dev_batch_fail(&b, i + end, err);
		}
		cond_resched();
	}
	b.affected = b.done;
	atomic64_add(b.done, &ctx->st.armed);
	atomic64_add(b.done, &mstat.armed);
	err = dev_batch_out(&b, arg, b.error);
out_unlock:
	mutex_unlock(&ctx->ctl_lock);
	kfree(specs);
	return err;
}

/*
 * Cancel every live timer with @cookie: a scan of the table, one chunk per
 * critical section. Returns how many, or -ENOENT for none.
 */
static int dev_cancel_cookie(struct tempo_ctx *ctx, u64 cookie)
{
	struct tempo_utimer *ut;
	u32 slot, end;
	int n = 0;

	lockdep_assert_held(&ctx->ctl_lock);
	for (slot = 0; slot < ctx->nslots; slot = end) {
		end = min_t(u32, ctx->nslots, slot + UT_CHUNK);
		spin_lock(&ctx->wq.lock);
		for (; slot < end; slot++) {
			ut = dev_slot(ctx, slot);
			if (ut->state != UT_FREE && ut->cookie == cookie) {
				dev_utimer_cancel(ctx, ut);
				n++;
			}
		}
		spin_unlock(&ctx->wq.lock);
		cond_resched();
	}
	atomic64_add(n, &ctx->st.cancelled);
	return n ? n : -ENOENT;
}

/* Cancel timers @ids[0..@n), elements @first.. of batch @b, in one hold of wq.lock. */
static void dev_cancel_ids(struct tempo_ctx *ctx, const u64 *ids, u32 n, u32 first,
			   struct tempo_batch *b)
{
	struct tempo_utimer *ut;
	u32 j, done = 0;

	spin_lock(&ctx->wq.lock);
	for (j = 0; j < n; j++) {
		ut = dev_live(ctx, ids[j]);
		if (!ut) {
			dev_batch_fail(b, first + j, -ENOENT);
			continue;
		}
		dev_utimer_cancel(ctx, ut);
		done++;
	}
	spin_unlock(&ctx->wq.lock);
	b->done += done;
	b->affected += done;
	atomic64_add(done, &ctx->st.cancelled);
}

static long dev_ioc_cancel(struct tempo_ctx *ctx, void __user *arg)
{
	u64 keys[TEMPO_CANCEL_CHUNK];
	struct tempo_batch b;
	const u64 __user *ukeys;
	u32 i, j, n;
	int err, ret;

	err = dev_batch_in(&b, arg, TEMPO_CANCEL_FLAGS);
	if (err)
		return err;
	if (!b.count || b.count > limit_timers())
		return -EINVAL;
	ukeys = u64_to_user_ptr(b.ptr);

	mutex_lock(&ctx->ctl_lock);
	for (i = 0; i < b.count; i += n) {
		n = min_t(u32, b.count - i, TEMPO_CANCEL_CHUNK);
		if (copy_from_user(keys, ukeys + i, n * sizeof(u64))) {
			dev_batch_fail(&b, i, -EFAULT);
			break;
		}
		if (!(b.flags & TEMPO_CANCEL_COOKIE)) {
			dev_cancel_ids(ctx, keys, n, i, &b);
		} else {
			for (j = 0; j < n; j++) {
				ret = dev_cancel_cookie(ctx, keys[j]);
				if (ret < 0) {
					dev_batch_fail(&b, i + j, ret);
					continue;
				}
				b.done++;
				b.affected += ret;
			}
		}
		cond_resched();
	}
	err = dev_batch_out(&b, arg, b.error);
	mutex_unlock(&ctx->ctl_lock);
	return err;
}

/* ---- events: read and poll ------------------------------------------- */

static void dev_record_timer(struct tempo_utimer *ut, struct tempo_event *ev)
{
	ev->type = TEMPO_EV_TIMER;
	ev->id = ut->id;
	ev->cookie = ut->cookie;
	ev->deadline = ut->ev_deadline;
	ev->time = ut->ev_time;
	ev->overrun = ut->ev_overrun;
	ev->flags = ut->period ? 0 : TEMPO_EVF_FINAL;
}

static void dev_record_order(struct tempo_osub *os, struct tempo_event *ev)
{
	ev->type = TEMPO_EV_ORDER;
	ev->id = os->ticket;
	ev->cookie = os->cookie;
	ev->deadline = os->submitted;
	ev->time = os->completed;
	ev->len = os->len;
}

/*
 * Under wq.lock: the record of a periodic timer is being read. If the timer
 * parked (it expired again while the record was unread), count the periods
 * that passed since into the record and re-arm it at the next boundary.
 */
static void dev_periodic_resume(struct tempo_ctx *ctx, struct tempo_utimer *ut,
				struct tempo_event *ev)
{
	u64 now, missed;

	ut->state = UT_ARMED;
	if (!ut->parked)
		return;
	ut->parked = false;
	now = ktime_get_ns();
	if ((s64)(now - ut->deadline) >= 0) {
		missed = div64_u64(now - ut->deadline, ut->period) + 1;
		ev->overrun += missed;
		atomic64_add(missed, &ctx->st.overruns);
		ut->deadline += missed * ut->period;
	}
	tempo_timer_arm_at(&ut->timer, TEMPO_CPU_LOCAL, ns_to_ktime(ut->deadline));
}

/*
 * Under wq.lock: move up to @max records into @ev. A delivered one-shot's
 * slot goes FREE here; osubs go on @oreap, for the caller to free after
 * unlocking.
 */
static int dev_take_locked(struct tempo_ctx *ctx, struct tempo_event *ev, int max,
			   struct list_head *oreap)
{
	struct tempo_utimer *ut;
	struct tempo_osub *os;
	struct tempo_qent *q;
	int n = 0;

	lockdep_assert_held(&ctx->wq.lock);
	memset(ev, 0, max * sizeof(*ev));
	if (ctx->lost && n < max) {
		ev[n].type = TEMPO_EV_LOST;
		ev[n].overrun = ctx->lost;
		ctx->lost = 0;
		n++;
	}
	while (n < max && !list_empty(&ctx->ready)) {
		q = list_first_entry(&ctx->ready, struct tempo_qent, node);
		dev_ready_del(ctx, q);
		if (q->type == QE_TIMER) {
			ut = container_of(q, struct tempo_utimer, q);
			dev_record_timer(ut, &ev[n]);
			if (ut->period)
				dev_periodic_resume(ctx, ut, &ev[n]);
			else
				dev_slot_put(ctx, ut);
		} else {
			os = container_of(q, struct tempo_osub, q);
			dev_record_order(os, &ev[n]);
			ctx->nready_order--;
			list_add_tail(&os->q.node, oreap);
		}
		n++;
	}
	return n;
}

static void dev_osub_free(struct tempo_osub *os)
{
	atomic64_dec(&mstat.submissions);
	atomic64_sub(sizeof(*os) + os->len, &mstat.bytes);
	kvfree(os);
}

/* Free what dev_take_locked() left to us. */
static void dev_reap(struct list_head *oreap)
{
	struct tempo_qent *q, *qtmp;

	list_for_each_entry_safe(q, qtmp, oreap, node) {
		list_del(&q->node);
		dev_osub_free(container_of(q, struct tempo_osub, q));
	}
}

static bool dev_readable(struct tempo_ctx *ctx)
{
	return !list_empty(&ctx->ready) || ctx->lost;
}

static ssize_t tempo_dev_read(struct file *file, char __user *buf, size_t count,
			      loff_t *ppos)
{
	struct tempo_ctx *ctx = file->private_data;
	size_t want = count / sizeof(struct tempo_event);
	struct tempo_event *ev;
	LIST_HEAD(oreap);
	size_t done = 0;
	int n, err = 0;

	if (!want)
		return -EINVAL;
	ev = kmalloc_array(min_t(size_t, want, TEMPO_READ_CHUNK), sizeof(*ev), GFP_KERNEL);
	if (!ev)
		return -ENOMEM;

	spin_lock(&ctx->wq.lock);
	if (!dev_readable(ctx)) {
		if (file->f_flags & O_NONBLOCK)
			err = -EAGAIN;
		else
			err = wait_event_interruptible_exclusive_locked(ctx->wq,
									dev_readable(ctx));
	}
	while (!err && done < want && dev_readable(ctx)) {
		n = dev_take_locked(ctx, ev, min_t(size_t, want - done, TEMPO_READ_CHUNK),
				    &oreap);
		spin_unlock(&ctx->wq.lock);
		dev_reap(&oreap);

		if (copy_to_user(buf + done * sizeof(*ev), ev, n * sizeof(*ev))) {
			/* Gone with the caller's bad buffer: count, never hide. */
			atomic64_add(n, &ctx->st.events_lost);
			err = -EFAULT;
		} else {
			done += n;
			atomic64_add(n, &ctx->st.events_read);
		}
		spin_lock(&ctx->wq.lock);
	}
	/*
	 * We were the one exclusive reader woken; if records remain, pass the
	 * wake on (prepare_to_wait_event()'s rule for exclusive waiters).
	 */
	if (dev_readable(ctx))
		wake_up_locked(&ctx->wq);
	spin_unlock(&ctx->wq.lock);
	kfree(ev);

	if (done)
		return done * sizeof(*ev);
	return err;
}

static __poll_t tempo_dev_poll(struct file *file, struct poll_table_struct *pt)
{
	struct tempo_ctx *ctx = file->private_data;
	__poll_t mask = 0;

	poll_wait(file, &ctx->wq, pt);
	spin_lock(&ctx->wq.lock);
	if (dev_readable(ctx))
		mask = EPOLLIN | EPOLLRDNORM;
	spin_unlock(&ctx->wq.lock);
	return mask;
}

/* ---- ordered stream -------------------------------------------------- */

static struct tempo_order *dev_order_get(struct tempo_ctx *ctx)
{
	struct tempo_order *o;
	atomic64_t *slots;
	u32 window;

	/* LMM(dev_order_get:A) Pairs with LMM(dev_order_get:B): sees slots. */
	o = smp_load_acquire(&ctx->order);
	if (o)
		return o;

	mutex_lock(&ctx->order_lock);
	o = ctx->order;
	if (o)
		goto out_unlock;
	window = limit_window();
	slots = kvcalloc(window, sizeof(*slots), GFP_KERNEL_ACCOUNT);
	if (!slots) {
		o = ERR_PTR(-ENOMEM);
		goto out_unlock;
	}
	o = tempo_order_create(window, NULL);
	if (IS_ERR(o)) {
		kvfree(slots);
		goto out_unlock;
	}
	ctx->slots = slots;
	ctx->window = window;
	/* LMM(dev_order_get:B) Pairs with LMM(dev_order_get:A). */
	smp_store_release(&ctx->order, o);
out_unlock:
	mutex_unlock(&ctx->order_lock);
	return o;
}

/* Claim an issued ticket for its one submit or trash; false if not ours. */
static bool dev_ticket_claim(struct tempo_ctx *ctx, u64 ticket)
{
	atomic64_t *slot = &ctx->slots[ticket & (ctx->window - 1)];

	if (ticket == U64_MAX)	/* ticket + 1 would read as a free slot */
		return false;
	return atomic64_cmpxchg(slot, ticket + 1, 0) == ticket + 1;
}

static void dev_sink_write(struct tempo_ctx *ctx, struct tempo_osub *os)
{
	struct file *sink = ctx->sink;
	loff_t pos = 0, *ppos = (sink->f_mode & FMODE_STREAM) ? NULL : &pos;
	size_t off = 0;
	ssize_t ret = 0;

	might_sleep();
	if (ppos)
		pos = sink->f_pos;
	while (off < os->len) {
		ret = kernel_write(sink, os->data + off, os->len - off, ppos);
		if (ret <= 0)
			break;
		off += ret;
	}
	if (ppos)
		sink->f_pos = pos;
	atomic64_add(off, &ctx->st.sink_bytes);
	if (off < os->len) {
		atomic64_inc(&ctx->st.sink_errors);
		ctx->sink_last_error = ret < 0 ? ret : -EIO;
	}
}

/*
 * Count a completion once its effect (the sink write, the record, or the
 * lost count) is in place, so that whoever sees "completed" reach N finds
 * the N-th write or record: dev_stats_ctx() reads completed first.
 */
static void dev_count_completed(struct tempo_ctx *ctx)
{
	/* LMM(dev_count_completed:A): pairs with dev_stats_ctx:A. */
	smp_wmb();
	atomic64_inc(&ctx->st.completed);
	atomic64_inc(&mstat.completed);
}

/*
 * The completion, in ticket order, never concurrently with another of this
 * context: in the thread completing the sequence (see the top of the file).
 */
static void dev_order_complete(void *arg)
{
	struct tempo_osub *os = arg;
	struct tempo_ctx *ctx = os->ctx;

	os->completed = ktime_get_ns();

	mutex_lock(&ctx->sink_lock);
	if (ctx->sink) {
		dev_sink_write(ctx, os);
		mutex_unlock(&ctx->sink_lock);
		dev_osub_free(os);
		dev_count_completed(ctx);
		return;
	}
	mutex_unlock(&ctx->sink_lock);

	spin_lock(&ctx->wq.lock);
	if (ctx->nready_order >= limit_events()) {
		ctx->lost++;
		atomic64_inc(&ctx->st.events_lost);
		/* The TEMPO_EV_LOST record is readable now. */
		wake_up_locked_poll(&ctx->wq, EPOLLIN | EPOLLRDNORM);
		spin_unlock(&ctx->wq.lock);
		dev_osub_free(os);
		dev_count_completed(ctx);
		return;
	}
	ctx->nready_order++;
	dev_ready_add(ctx, &os->q);
	spin_unlock(&ctx->wq.lock);
	dev_count_completed(ctx);
}

static long dev_ioc_ticket(struct tempo_ctx *ctx, void __user *arg)
{
	struct tempo_order *o;
	struct tempo_ticket tk;
	u64 t;
	int err;

	if (copy_from_user(&tk, arg, sizeof(tk)))
		return -EFAULT;
	if (tk.flags & ~TEMPO_TICKET_FLAGS || tk.reserved)
		return -EINVAL;
	o = dev_order_get(ctx);
	if (IS_ERR(o))
		return PTR_ERR(o);

	if (tk.flags & TEMPO_TICKET_NONBLOCK)
		err = tempo_order_ticket_try(o, &t);
	else
		err = tempo_order_ticket(o, &t);
	if (err)
		return err;
	/*
	 * The window keeps t - window finished, so its slot is free: nothing
	 * else writes it until we publish t here.
	 */
	atomic64_set(&ctx->slots[t & (ctx->window - 1)], t + 1);
	atomic64_inc(&ctx->st.tickets);

	tk.ticket = t;
	if (copy_to_user(arg, &tk, sizeof(tk))) {
		if (dev_ticket_claim(ctx, t)) {
			tempo_order_trash(o, t);
			atomic64_inc(&ctx->st.trashed);
		}
		return -EFAULT;
	}
	return 0;
}

static long dev_ioc_submit(struct tempo_ctx *ctx, void __user *arg)
{
	struct tempo_order *o = smp_load_acquire(&ctx->order); /* LMM(dev_order_get:A) */
	struct tempo_submit sb;
	struct tempo_osub *os;
	int ret;

	if (copy_from_user(&sb, arg, sizeof(sb)))
		return -EFAULT;
	if (sb.flags || sb.len > limit_data() || !o)
		return -EINVAL;

	os = kvmalloc(struct_size(os, data, sb.len), GFP_KERNEL_ACCOUNT);
	if (!os)
		return -ENOMEM;
	if (copy_from_user(os->data, u64_to_user_ptr(sb.data), sb.len)) {
		kvfree(os);
		return -EFAULT;
	}
	if (!dev_ticket_claim(ctx, sb.ticket)) {
		kvfree(os);
		return -EINVAL;
	}
	os->q.type = QE_ORDER;
	os->ctx = ctx;
	os->ticket = sb.ticket;
	os->cookie = sb.cookie;
	os->len = sb.len;
	os->submitted = ktime_get_ns();
	atomic64_inc(&mstat.submissions);
	atomic64_add(sizeof(*os) + os->len, &mstat.bytes);
	atomic64_inc(&ctx->st.submitted);

	/* Claimed above: outstanding, so run() cannot fail (no deadline). */
	ret = tempo_order_run(o, sb.ticket, dev_order_complete, os);
	if (WARN_ON_ONCE(ret < 0)) {
		dev_osub_free(os);
		return ret;
	}
	return 0;
}

static long dev_ioc_trash(struct tempo_ctx *ctx, void __user *arg)
{
	struct tempo_order *o = smp_load_acquire(&ctx->order); /* LMM(dev_order_get:A) */
	struct tempo_ticket tk;

	if (copy_from_user(&tk, arg, sizeof(tk)))
		return -EFAULT;
	if (tk.flags || tk.reserved || !o || !dev_ticket_claim(ctx, tk.ticket))
		return -EINVAL;
	tempo_order_trash(o, tk.ticket);
	atomic64_inc(&ctx->st.trashed);
	return 0;
}

static long dev_ioc_sink(struct tempo_ctx *ctx, void __user *arg)
{
	struct tempo_sink sk;
	struct file *f = NULL, *old;

	if (copy_from_user(&sk, arg, sizeof(sk)))
		return -EFAULT;
	if (sk.flags || sk.reserved)
		return -EINVAL;
	if (sk.fd != -1) {
		f = fget(sk.fd);
		if (!f)
			return -EBADF;
		/* What kernel_write() accepts; and never a tempo file (recursion). */
		if (!(f->f_mode & FMODE_WRITE)) {
			fput(f);
			return -EBADF;
		}
		if (!(f->f_mode & FMODE_CAN_WRITE) || !f->f_op->write_iter ||
		    f->f_op->write || f->f_op == &tempo_dev_fops) {
			fput(f);
			return -EINVAL;
		}
	}
	mutex_lock(&ctx->sink_lock);
	old = ctx->sink;
	ctx->sink = f;
	ctx->sink_last_error = 0;
	mutex_unlock(&ctx->sink_lock);
	if (old)
		fput(old);
	return 0;
}

/* ---- info and stats -------------------------------------------------- */

static long dev_ioc_info(void __user *arg)
{
	struct tempo_info in = {
		.version	= TEMPO_ABI_VERSION,
		.features	= TEMPO_FEAT_TIMERS | TEMPO_FEAT_PERIODIC |
				  TEMPO_FEAT_ORDER | TEMPO_FEAT_SINK | TEMPO_FEAT_STATS,
		.record_size	= sizeof(struct tempo_event),
		.order_window	= limit_window(),
		.tick_ns	= tempo_timer_tick_ns(),
		.max_delay_ns	= tempo_timer_max_delay_ns(),
		.min_period_ns	= READ_ONCE(min_period_ns),
		.max_timers	= limit_timers(),
		.max_events	= limit_events(),
		.max_data	= limit_data(),
	};

	return copy_to_user(arg, &in, sizeof(in)) ? -EFAULT : 0;
}

static void dev_stats_ctx(struct tempo_ctx *ctx, struct tempo_ctx_stats *s)
{
	struct tempo_ctx_counters *c = &ctx->st;

	/* completed first: the writes and records it counts are then visible. */
	s->completed = atomic64_read(&c->completed);
	/* LMM(dev_stats_ctx:A): pairs with dev_count_completed:A. */
	smp_rmb();
	s->timers = atomic_read(&ctx->ntimers);
	s->armed = atomic64_read(&c->armed);
	s->rearmed = atomic64_read(&c->rearmed);
	s->fired = atomic64_read(&c->fired);
	s->cancelled = atomic64_read(&c->cancelled);
	s->events_read = atomic64_read(&c->events_read);
	s->overruns = atomic64_read(&c->overruns);
	s->events_lost = atomic64_read(&c->events_lost);
	s->tickets = atomic64_read(&c->tickets);
	s->submitted = atomic64_read(&c->submitted);
	s->trashed = atomic64_read(&c->trashed);
	s->sink_bytes = atomic64_read(&c->sink_bytes);
	s->sink_errors = atomic64_read(&c->sink_errors);
	s->sink_last_error = READ_ONCE(ctx->sink_last_error);
	spin_lock(&ctx->wq.lock);
	s->events_ready = ctx->nready;
	spin_unlock(&ctx->wq.lock);
}

static void dev_stats_mod(struct tempo_mod_stats *s)
{
	s->contexts = atomic64_read(&mstat.contexts);
	s->timers = atomic64_read(&mstat.timers);
	s->submissions = atomic64_read(&mstat.submissions);
	s->bytes = atomic64_read(&mstat.bytes);
	s->opens = atomic64_read(&mstat.opens);
	s->armed = atomic64_read(&mstat.armed);
	s->fired = atomic64_read(&mstat.fired);
	s->completed = atomic64_read(&mstat.completed);
}

static long dev_ioc_stats(struct tempo_ctx *ctx, void __user *arg)
{
	struct tempo_stats st;

	memset(&st, 0, sizeof(st));
	dev_stats_ctx(ctx, &st.ctx);
	dev_stats_mod(&st.mod);
	return copy_to_user(arg, &st, sizeof(st)) ? -EFAULT : 0;
}

/* ---- file operations ------------------------------------------------- */

static long tempo_dev_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct tempo_ctx *ctx = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case TEMPO_IOC_INFO:
		return dev_ioc_info(uarg);
	case TEMPO_IOC_STATS:
		return dev_ioc_stats(ctx, uarg);
	case TEMPO_IOC_TIMER_ARM:
		return dev_ioc_arm(ctx, uarg);
	case TEMPO_IOC_TIMER_CANCEL:
		return dev_ioc_cancel(ctx, uarg);
	case TEMPO_IOC_ORDER_TICKET:
		return dev_ioc_ticket(ctx, uarg);
	case TEMPO_IOC_ORDER_SUBMIT:
		return dev_ioc_submit(ctx, uarg);
	case TEMPO_IOC_ORDER_TRASH:
		return dev_ioc_trash(ctx, uarg);
	case TEMPO_IOC_ORDER_SINK:
		return dev_ioc_sink(ctx, uarg);
	default:
		return -ENOTTY;
	}
}

static int tempo_dev_open(struct inode *inode, struct file *file)
{
	struct tempo_ctx *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);
	if (!ctx)
		return -ENOMEM;
	init_waitqueue_head(&ctx->wq);
	INIT_LIST_HEAD(&ctx->ready);
	mutex_init(&ctx->ctl_lock);
	mutex_init(&ctx->order_lock);
	mutex_init(&ctx->sink_lock);

	file->private_data = ctx;
	atomic64_inc(&mstat.contexts);
	atomic64_inc(&mstat.opens);
	return stream_open(inode, file);
}

/* Trash every ticket issued and not yet submitted, then drop the domain. */
static void dev_order_release(struct tempo_ctx *ctx)
{
	u32 i;
	u64 v;

	if (!ctx->order)
		return;
	for (i = 0; i < ctx->window; i++) {
		v = atomic64_read(&ctx->slots[i]);
		if (v && dev_ticket_claim(ctx, v - 1)) {
			tempo_order_trash(ctx->order, v - 1);
			atomic64_inc(&ctx->st.trashed);
		}
	}
	tempo_order_destroy(ctx->order);
	kvfree(ctx->slots);
}

static int tempo_dev_release(struct inode *inode, struct file *file)
{
	struct tempo_ctx *ctx = file->private_data;
	struct tempo_qent *q, *tmp;
	struct tempo_utimer *ut;
	u32 slot;

	/*
	 * No ioctl or read can run any more: only timer callbacks. Cancel every
	 * live timer, then wait out every slot's timer, live or not: a late
	 * callback may still be on its way for a FREE slot.
	 */
	for (slot = 0; slot < ctx->nslots; slot++) {
		ut = dev_slot(ctx, slot);
		spin_lock(&ctx->wq.lock);
		if (ut->state != UT_FREE)
			dev_utimer_cancel(ctx, ut);
		spin_unlock(&ctx->wq.lock);
		tempo_timer_shutdown_sync(&ut->timer);
		if (!(slot % 1024))
			cond_resched();
	}
	for (slot = 0; slot < ctx->nchunks; slot++)
		kvfree(ctx->chunks[slot]);
	kfree(ctx->chunks);
	atomic64_sub((u64)ctx->nchunks * UT_CHUNK * sizeof(*ut), &mstat.bytes);

	dev_order_release(ctx);
	list_for_each_entry_safe(q, tmp, &ctx->ready, node) {
		list_del(&q->node);
		dev_osub_free(container_of(q, struct tempo_osub, q));
	}
	if (ctx->sink)
		fput(ctx->sink);

	mutex_destroy(&ctx->sink_lock);
	mutex_destroy(&ctx->order_lock);
	mutex_destroy(&ctx->ctl_lock);
	atomic64_dec(&mstat.contexts);
	kfree(ctx);
	return 0;
}

static const struct file_operations tempo_dev_fops = {
	.owner		= THIS_MODULE,
	.open		= tempo_dev_open,
	.release	= tempo_dev_release,
	.read		= tempo_dev_read,
	.poll		= tempo_dev_poll,
	.unlocked_ioctl	= tempo_dev_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,	/* identical layouts, see dev_abi_check() */
};

static struct miscdevice tempo_miscdev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "tempo",
	.fops	= &tempo_dev_fops,
	.mode	= 0666,
};

#define ABI_FIELD(type, field, off) \
	BUILD_BUG_ON(offsetof(struct type, field) != (off))

/* Freeze the ABI: sizes and offsets, the same for 32- and 64-bit callers. */
static void dev_abi_check(void)
{
	BUILD_BUG_ON(sizeof(struct tempo_info) != 64);
	ABI_FIELD(tempo_info, tick_ns, 16);
	ABI_FIELD(tempo_info, max_timers, 40);
	ABI_FIELD(tempo_info, reserved, 52);

	BUILD_BUG_ON(sizeof(struct tempo_timer_spec) != 40);
	ABI_FIELD(tempo_timer_spec, cookie, 0);
	ABI_FIELD(tempo_timer_spec, value, 8);
	ABI_FIELD(tempo_timer_spec, period, 16);
	ABI_FIELD(tempo_timer_spec, id, 24);
	ABI_FIELD(tempo_timer_spec, flags, 32);
	ABI_FIELD(tempo_timer_spec, reserved, 36);

	BUILD_BUG_ON(sizeof(struct tempo_batch) != 32);
	ABI_FIELD(tempo_batch, ptr, 0);
	ABI_FIELD(tempo_batch, count, 8);
	ABI_FIELD(tempo_batch, flags, 12);
	ABI_FIELD(tempo_batch, done, 16);
	ABI_FIELD(tempo_batch, error_index, 20);
	ABI_FIELD(tempo_batch, error, 24);
	ABI_FIELD(tempo_batch, affected, 28);

	BUILD_BUG_ON(sizeof(struct tempo_event) != 48);
	ABI_FIELD(tempo_event, id, 0);
	ABI_FIELD(tempo_event, cookie, 8);
	ABI_FIELD(tempo_event, deadline, 16);
	ABI_FIELD(tempo_event, time, 24);
	ABI_FIELD(tempo_event, overrun, 32);
	ABI_FIELD(tempo_event, type, 36);
	ABI_FIELD(tempo_event, flags, 38);
	ABI_FIELD(tempo_event, len, 40);
	ABI_FIELD(tempo_event, reserved, 44);

	BUILD_BUG_ON(sizeof(struct tempo_ticket) != 16);
	ABI_FIELD(tempo_ticket, flags, 8);
	BUILD_BUG_ON(sizeof(struct tempo_submit) != 32);
	ABI_FIELD(tempo_submit, data, 16);
	ABI_FIELD(tempo_submit, len, 24);
	ABI_FIELD(tempo_submit, flags, 28);
	BUILD_BUG_ON(sizeof(struct tempo_sink) != 16);
	ABI_FIELD(tempo_sink, reserved, 8);

	BUILD_BUG_ON(sizeof(struct tempo_ctx_stats) != 136);
	ABI_FIELD(tempo_ctx_stats, sink_last_error, 120);
	BUILD_BUG_ON(sizeof(struct tempo_mod_stats) != 96);
	BUILD_BUG_ON(sizeof(struct tempo_stats) != 232);
	ABI_FIELD(tempo_stats, mod, 136);
}

static int dev_stats_show(struct seq_file *m, void *unused)
{
	struct tempo_mod_stats s;

	dev_stats_mod(&s);
	seq_printf(m, "contexts %llu\ntimers %llu\nsubmissions %llu\nbytes %llu\n",
		   s.contexts, s.timers, s.submissions, s.bytes);
	seq_printf(m, "opens %llu\narmed %llu\nfired %llu\ncompleted %llu\n",
		   s.opens, s.armed, s.fired, s.completed);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(dev_stats);

/**
 * tempo_dev_debugfs() - add the file interface's counters ("dev") to @dir
 * @dir: tempo's debugfs directory.
 *
 * Context: process context.
 */
void tempo_dev_debugfs(struct dentry *dir)
{
	debugfs_create_file("dev", 0444, dir, NULL, &dev_stats_fops);
}

/**
 * tempo_dev_init() - register /dev/tempo
 *
 * Context: module init, process context.
 * Return: 0, or the negative errno of misc_register().
 */
int tempo_dev_init(void)
{
	dev_abi_check();
	return misc_register(&tempo_miscdev);
}

/**
 * tempo_dev_exit() - unregister /dev/tempo
 *
 * Context: module exit; no file is open (each holds a module reference).
 */
void tempo_dev_exit(void)
{
	misc_deregister(&tempo_miscdev);
}
