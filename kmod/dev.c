// SPDX-License-Identifier: GPL-2.0
/*
 * tempo: /dev/tempo, the file interface to the cores.
 *
 * The file interface is the only part of tempo that knows about files. It is
 * split by feature, one file each (dev.h lists them and the locks they
 * share); this one owns the file and its context: open() makes a context
 * (struct tempo_ctx) and release() tears it down, read() and poll(), the
 * ioctl table, info and stats, and the misc device. A context holds:
 *
 *   events    the file's delay queue (kmod/delayq.c), of struct dev_item:
 *             a timer slot's item, an ordered completion's, or the file's one
 *             loss report. read() is consume() with a callback that copies
 *             each record out (dev_read_record()). The queue owns the
 *             records' order, the exclusive wake-ups of readers and the
 *             readiness poll() reports as EPOLLIN; this file keeps no list
 *             of records of its own. An unread periodic timer costs no
 *             callback at all: the read folds the periods that passed into
 *             the record's overrun count (dev_read_timer()).
 *   timers    a table of slots, each holding a delay-queue item, and the
 *             arm, cancel and query ioctls (dev_timer.c).
 *   order     an ordering domain, its ticket ownership table and its sink
 *             (dev_order.c).
 *   user      what the opener's user holds over all of its files
 *             (dev_user.c), and the opener's memory cgroup.
 *
 * Locks. read() takes no lock of this file: the delay queue's calls take the
 * queue's lock, and the read callback, which runs inside it, takes none.
 * What a consume() took (one-shot timers' slots, ordered records) is let go
 * after it returns (dev_read_release()). open() and release() run with no
 * other call on the file.
 *
 * The loss report. An ordered completion beyond max_events adds to
 * ctx->lost and puts the file's one DI_LOST item, due at time 0 so that it
 * is read before every record already ready; a put of the item while it is
 * queued fails with EBUSY and the queued report will carry the count. The
 * read that takes the report subtracts what it reported, and then looks at
 * the count again (dev_read_release()): a completion that added to it while
 * the report was being taken, and whose put found the item still queued,
 * is either seen there or its put finds the item free. A store-buffering
 * pair, LMM(dev_lost_queue:A) and LMM(dev_read_release:A), proved by
 * tools/litmus/dev-lost-release.litmus.
 *
 * Security. Any local user may open /dev/tempo (mode 0666, as inotify and
 * timerfd are available to all), so everything a user can make the module
 * hold is bounded: per user (dev_user.c), per file (max_timers, max_events,
 * the window, max_data), and charged to the opener's memory cgroup
 * (ctx->memcg, entered for every ioctl and io_uring command), failing with
 * ENOMEM at its limit rather than waking its OOM killer. Every user array is
 * copied into the kernel once and decided and applied from that copy. Every
 * loop whose length a user sets stops for a fatal signal and reschedules
 * (dev_loop_step()). Nothing one context does waits for another context's
 * work: teardown waits only for its own (tempo_order_destroy()), and never
 * for I/O.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/build_bug.h>
#include <linux/capability.h>
#include <linux/compat.h>
#include <linux/cred.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/math64.h>
#include <linux/memcontrol.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <linux/user_namespace.h>
#include <linux/wait.h>

#include <tempo/delayq.h>
#include <tempo/timer.h>
#include <uapi/tempo.h>

#include "clock.h"
#include "dev.h"
#include "dev_clock.h"

#define TEMPO_READ_CHUNK	128	/* records per pass of read(): one consume() */

struct dev_totals dev_mstat;

/*
 * A user loop's step: stop for a fatal signal, let others run. Every loop
 * whose length a user chooses calls this at least once per UT_CHUNK steps
 * (dev_timer.c).
 */
int dev_loop_step(void)
{
	if (fatal_signal_pending(current))
		return -EINTR;
	cond_resched();
	return 0;
}

/* ---- events: read and poll ------------------------------------------- */

/* A record's overrun count: expirations folded into it, saturating at U32_MAX. */
static u32 dev_overrun_clamp(u64 overrun)
{
	return min_t(u64, overrun, U32_MAX);
}

/*
 * One consume() of a read: where its records go, and what it took. The
 * items it took (one-shot timers, ordered records) are the reader's once
 * consume() returns, and dev_read_release() lets go of them then, not in
 * the callback: the queue still holds an item while it is shown.
 */
struct dev_reader {
	struct tempo_ctx	*ctx;
	struct iov_iter		*to;		/* where the records go */
	unsigned int		n;		/* records copied out */
	bool			faulted;	/* a record's copy faulted: STOP */
	bool			lost_taken;	/* the loss report was taken */
	bool			ended;		/* these are COS timers of @gen a set ended */
	u32			gen;
	unsigned long		clocks;		/* clock queues whose proxies were due */
	struct dev_now		at;		/* the reader's namespace; off_real */
	ktime_t			now;		/* a reading of the queue's clock, or 0 */
	u64			fired;		/* expiries read (1 + overrun each) */
	u64			overruns;	/* of which overruns */
	struct list_head	osubs;		/* ordered records taken, by os->sink */
	/* One-shot timers taken, chained by ut->free (a live slot's is unused). */
	struct llist_node	*free_first, *free_last;
	unsigned int		nended;
	unsigned int		nrel;		/* of which relative REALTIME */
};

/*
 * A timer's record, its times in its clock and the reader's namespace. A
 * periodic timer's record counts, as overruns, the deadlines after
 * @deadline that have passed by the time it is read (the timer slept
 * meanwhile: nothing fired for them), and the timer goes on at the next
 * one, on its original schedule (AGAIN). @due: when the queue found it due,
 * its fire time, never before its deadline; for a timer a clock set ended
 * (rd->ended), when the reader took it, and its last record.
 */
static void dev_read_timer(struct dev_reader *rd, struct tempo_utimer *ut, ktime_t due,
			   struct tempo_event *ev, u64 *overrun)
{
	ktime_t deadline = ut->item.dq.deadline;
	u8 clock = ut->item.clock;

	ev->type = TEMPO_EV_TIMER;
	ev->id = ut->id;
	ev->cookie = ut->cookie;
	*overrun = 0;
	if (likely(clock == DEV_CLK_MONO)) {
		/* Most records: as dev_clock_to_user() has it, in fewer steps. */
		ev->deadline = tempo_time_to_user(deadline, rd->at.ns.mono);
		ev->time = tempo_time_to_user(due, rd->at.ns.mono);
	} else {
		ev->deadline = dev_clock_to_user(&rd->at, clock, deadline);
		ev->time = dev_clock_to_user(&rd->at, clock, due);
		ev->flags = dev_clock_evflags(clock);
		/* Only a COS queue's timers are ever read as ended. */
		if (rd->ended) {
			ev->flags |= TEMPO_EVF_FINAL | TEMPO_EVF_CLOCK_SET;
			return;
		}
	}
	if (!ut->period) {
		ev->flags |= TEMPO_EVF_FINAL;
		return;
	}
	if (!rd->now)
		rd->now = likely(clock == DEV_CLK_MONO) ? ktime_get() :
			  tempo_clock_read(dev_clock_host(clock));
	/* Not after: due >= deadline, and the reading is later (but a REALTIME set back). */
	if (ktime_after(rd->now, deadline))
		*overrun = div64_u64(ktime_to_ns(ktime_sub(rd->now, deadline)), ut->period);
	ev->overrun = dev_overrun_clamp(*overrun);
}

static void dev_read_order(struct dev_reader *rd, struct tempo_osub *os, struct tempo_event *ev)
{
	ev->type = TEMPO_EV_ORDER;
	ev->id = os->ticket;
	ev->cookie = os->cookie;
	ev->deadline = tempo_time_to_user(os->submitted, rd->at.ns.mono);
	ev->time = tempo_time_to_user(os->completed, rd->at.ns.mono);
	ev->len = os->len;
}

/*
 * The read callback (tempo_delayq_consume_fn), under the queue's lock with
 * interrupts off: copy the record of @node to the reader's iterator with page
 * faults disabled (it cannot sleep), and decide its item's fate only once the
 * whole record is there. A copy that comes up short answers STOP, the
 * iterator moved back over what it wrote: the record stays queued,
 * unchanged, and read() faults the page in and comes back. So a bad or
 * unmapped buffer loses nothing, and "read or cancelled" is decided by the
 * verdict: a TAKE of a one-shot here, or a cancel's remove(), whichever the
 * queue's lock lets in first. The destination may be user memory (read(2),
 * readv(2), io_uring's READ and READV) or pages (io_uring's READ_FIXED);
 * the caller left room for the record. A clock queue's proxy (DI_CLOCK) is
 * no record: it is noted and answered STOP, and read() consumes that queue
 * next (dev_clock.c); so is a timer of a later COS generation than the
 * ended one being read.
 */
static enum tempo_delayq_verdict dev_read_record(struct tempo_delayq_node *node,
						 ktime_t due, void *arg)
{
	struct dev_item *it = container_of(node, struct dev_item, dq);
	struct dev_reader *rd = arg;
	struct tempo_ctx *ctx = rd->ctx;
	struct tempo_utimer *ut = NULL;
	struct tempo_event ev;
	u64 overrun = 0;
	int lost = 0;
	size_t copied;

	if (it->kind == DI_CLOCK) {
		rd->clocks |= BIT(container_of(it, struct dev_clock, proxy) - ctx->clk);
		return TEMPO_DELAYQ_STOP;
	}
	if (rd->ended && it->cos_gen != rd->gen)
		return TEMPO_DELAYQ_STOP;
	memset(&ev, 0, sizeof(ev));
	switch (it->kind) {
	case DI_TIMER:
		ut = container_of(it, struct tempo_utimer, item);
		dev_read_timer(rd, ut, due, &ev, &overrun);
		break;
	case DI_ORDER:
		dev_read_order(rd, container_of(it, struct tempo_osub, item), &ev);
		break;
	default:
		lost = atomic_read(&ctx->lost);
		ev.type = TEMPO_EV_LOST;
		ev.overrun = lost;
		break;
	}
	pagefault_disable();
	copied = copy_to_iter(&ev, sizeof(ev), rd->to);
	pagefault_enable();
	if (copied != sizeof(ev)) {
		iov_iter_revert(rd->to, copied);
		rd->faulted = true;
		return TEMPO_DELAYQ_STOP;
	}
	/* In the user's buffer: now the record leaves the queue. */
	rd->n++;
	switch (it->kind) {
	case DI_TIMER:
		/* Counted once per consume(), in dev_read_release(). */
		rd->fired += 1 + overrun;
		rd->overruns += overrun;
		if (ut->period && !rd->ended) {
			node->deadline = ktime_add_ns(node->deadline, (overrun + 1) * ut->period);
			return TEMPO_DELAYQ_AGAIN;
		}
		ut->free.next = NULL;
		if (rd->free_last)
			rd->free_last->next = &ut->free;
		else
			rd->free_first = &ut->free;
		rd->free_last = &ut->free;
		rd->nended++;
		rd->nrel += ut->item.clock == DEV_CLK_REAL_REL;
		break;
	case DI_ORDER:
		atomic_dec(&ctx->nready_order);
		/* A record, not on the sink queue: its sink entry is free. */
		list_add_tail(&container_of(it, struct tempo_osub, item)->sink, &rd->osubs);
		break;
	default:
		atomic_sub(lost, &ctx->lost);
		rd->lost_taken = true;
		break;
	}
	return TEMPO_DELAYQ_TAKE;
}

/*
 * Queue the loss report, unless it is queued: a put of an item that is
 * queued (or being put by another thread) fails with EBUSY, and the report
 * that is queued reads the count when it is taken.
 */
static void dev_lost_put(struct tempo_ctx *ctx)
{
	/* Due at time 0: read before every record already ready. */
	tempo_delayq_put_at(ctx->q, &ctx->lost_item.dq, 0);
}

/*
 * An ordered record that could not be queued (dev_order_complete()): count
 * it and queue the report that carries the count.
 */
void dev_lost_queue(struct tempo_ctx *ctx)
{
	atomic64_inc(&ctx->st.events_lost);
	/*
	 * LMM(dev_lost_queue:A) The count, then (the full barrier of a value
	 * returning atomic) put()'s read of the report's state. Pairs with:
	 * dev_read_release:A.
	 */
	atomic_inc_return(&ctx->lost);
	dev_lost_put(ctx);
}

/*
 * After a consume(): let go of what it took, the one-shot timers' slots (their
 * ids died with their FINAL records) and the ordered records; and if it took
 * the loss report, report what was lost while it was being taken.
 */
static void dev_read_release(struct tempo_ctx *ctx, struct dev_reader *rd)
{
	struct tempo_osub *os, *tmp;

	if (rd->fired) {
		atomic64_add(rd->fired, &ctx->st.fired);
		atomic64_add(rd->fired, &dev_mstat.fired);
		atomic64_add(rd->overruns, &ctx->st.overruns);
		rd->fired = 0;
		rd->overruns = 0;
	}
	dev_slots_free_chain(ctx, rd->free_first, rd->free_last, rd->nended);
	if (unlikely(rd->nrel)) {
		atomic_sub(rd->nrel, &ctx->nreal_rel);
		rd->nrel = 0;
	}
	rd->free_first = NULL;
	rd->free_last = NULL;
	rd->nended = 0;
	list_for_each_entry_safe(os, tmp, &rd->osubs, sink) {
		list_del(&os->sink);
		dev_osub_free(ctx, os);
	}
	if (!rd->lost_taken)
		return;
	rd->lost_taken = false;
	/*
	 * LMM(dev_read_release:A) The report TAKEN (consume's critical section,
	 * released by its unlock), then a full barrier, then the count. Pairs
	 * with: dev_lost_queue:A (the count, a full barrier, then put()'s
	 * read of the item's state). A completion that added to the count
	 * after the callback read it either sees the item free and puts it,
	 * or its put found it still queued and we see its count here.
	 */
	smp_mb();
	if (atomic_read(&ctx->lost))
		dev_lost_put(ctx);
}

/*
 * read(2), readv(2) and io_uring's READ, READV and READ_FIXED: whole records,
 * as many as fit. Sleeps for the first record unless the file is O_NONBLOCK
 * or the call IOCB_NOWAIT (io_uring's inline try, which then waits for
 * EPOLLIN and tries again); never sleeps otherwise, and does nothing but read.
 */
static ssize_t tempo_dev_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct tempo_ctx *ctx = iocb->ki_filp->private_data;
	size_t want = iov_iter_count(to) / sizeof(struct tempo_event);
	bool nowait = (iocb->ki_filp->f_flags & O_NONBLOCK) || (iocb->ki_flags & IOCB_NOWAIT);
	struct dev_reader rd = { .ctx = ctx, .to = to, .osubs = LIST_HEAD_INIT(rd.osubs) };
	unsigned int chunk, flags, stalls = 0, i;
	size_t done = 0;
	int ret, err = 0;

	if (!want)
		return -EINVAL;
	/* Times go out in the reader's namespace (a file may be passed between them). */
	tempo_timens_get(&rd.at.ns);
	rd.at.off_real = tempo_clock_offset(CLOCK_REALTIME);
	while (done < want) {
		chunk = min_t(size_t, want - done, TEMPO_READ_CHUNK);
		rd.n = 0;
		rd.faulted = false;
		rd.now = 0;
		rd.clocks = 0;
		/* Sleep only for the first record: then return what is ready. */
		flags = !done && !nowait ? TEMPO_DELAYQ_WAIT : 0;
		ret = tempo_delayq_consume(ctx->q, dev_read_record, &rd, chunk, flags);
		/* The clock queues whose proxies were due: their records next. */
		for_each_set_bit(i, &rd.clocks, DEV_CLK_QUEUES) {
			if (rd.faulted || rd.n >= chunk)
				break;
			rd.now = 0;
			dev_clock_read_one(ctx, i, dev_read_record, &rd, chunk - rd.n, &rd.ended,
					   &rd.gen);
			rd.ended = false;
		}
		dev_read_release(ctx, &rd);
		done += rd.n;
		if (ret < 0) {
			/* EAGAIN: nothing more ready; an error only if nothing was read. */
			err = ret;
			break;
		}
		if (rd.faulted) {
			/*
			 * The record that would fault stays queued: fault the
			 * page in and try again, unless it cannot be (a bad
			 * buffer), or tries keep making no progress (another
			 * thread unmapping it).
			 */
			stalls = rd.n ? 0 : stalls + 1;
			if (stalls > 2 ||
			    fault_in_iov_iter_writeable(to, sizeof(struct tempo_event))) {
				err = -EFAULT;
				break;
			}
		} else if (rd.n < chunk && !rd.clocks) {
			break;	/* nothing more ready (past a proxy, ctx->q may hold more) */
		}
		err = dev_loop_step();
		if (err)
			break;
	}
	atomic64_add(done, &ctx->st.events_read);

	if (done)
		return done * sizeof(struct tempo_event);
	return err;
}

static __poll_t tempo_dev_poll(struct file *file, struct poll_table_struct *pt)
{
	struct tempo_ctx *ctx = file->private_data;
	__poll_t mask = 0;

	poll_wait(file, tempo_delayq_waitqueue(ctx->q), pt);
	if (tempo_delayq_ready(ctx->q))
		mask |= EPOLLIN | EPOLLRDNORM;
	/*
	 * Completions wait for a thread to write them to the sink. Written
	 * before the wake-up (dev_order_complete()), which takes the wait
	 * queue's lock, as poll_wait() did.
	 */
	if (READ_ONCE(ctx->sink_queued))
		mask |= EPOLLOUT | EPOLLWRNORM;
	return mask;
}

/* ---- info and stats -------------------------------------------------- */

/* TEMPO_IOC_INFO of a caller built before struct tempo_info grew (uapi/tempo.h). */
#define TEMPO_IOC_INFO_VER0	_IOC(_IOC_READ, TEMPO_IOC_MAGIC, 0x00, TEMPO_INFO_SIZE_VER0)

/* TEMPO_IOC_INFO: as much of struct tempo_info as the caller's @size holds. */
static long dev_ioc_info(void __user *arg, size_t size)
{
	struct dev_now now;
	struct tempo_info in = {
		.version	= TEMPO_ABI_VERSION,
		.features	= TEMPO_FEAT_TIMERS | TEMPO_FEAT_PERIODIC |
				  TEMPO_FEAT_ORDER | TEMPO_FEAT_SINK | TEMPO_FEAT_STATS |
				  TEMPO_FEAT_USER_LIMITS | TEMPO_FEAT_ORDER_SKIP |
				  TEMPO_FEAT_QUERY | TEMPO_FEAT_URING | TEMPO_FEAT_CLOCKS |
				  TEMPO_FEAT_DEFERRABLE | TEMPO_FEAT_SLACK |
				  TEMPO_FEAT_HOUSEKEEPING | TEMPO_FEAT_FINE |
				  TEMPO_FEAT_TICKET_MANY,
		.record_size	= sizeof(struct tempo_event),
		.order_window	= dev_limit_window(),
		.tick_ns	= tempo_timer_tick_ns(),
		.max_delay_ns	= tempo_timer_max_delay_ns(),
		.min_period_ns	= dev_limit_min_period(),
		.max_timers	= dev_limit_timers(),
		.max_events	= dev_limit_events(),
		.max_data	= dev_limit_data(),
		.max_user_contexts = dev_user_limit(DU_CONTEXTS),
		.max_user_timers = dev_user_limit(DU_TIMERS),
		.max_user_bytes	= dev_user_limit(DU_BYTES),
	};

	if (tempo_clock_alarm_ready())
		in.features |= TEMPO_FEAT_ALARM;
	/* One MONOTONIC reading, and each clock through its offset at that time. */
	dev_now_get(&now);
	in.now_monotonic = dev_clock_to_user(&now, DEV_CLK_MONO, now.mono);
	in.now_boottime = dev_clock_to_user(&now, DEV_CLK_BOOT, dev_now_of(&now, DEV_CLK_BOOT));
	in.now_realtime = dev_clock_to_user(&now, DEV_CLK_REAL, dev_now_of(&now, DEV_CLK_REAL));
	return copy_to_user(arg, &in, min(size, sizeof(in))) ? -EFAULT : 0;
}

/*
 * Records ready to read now: ctx->q's, less its clock queues' proxies that
 * are due (no records themselves), and the clock queues' (dev_clock.c).
 */
static u32 dev_ready(struct tempo_ctx *ctx)
{
	struct tempo_delayq_stats dq;
	unsigned int i, ready;
	u32 n;
	bool due;

	tempo_delayq_stats(ctx->q, &dq);
	n = dq.ready;
	for (i = 0; i < DEV_CLK_QUEUES; i++) {
		dev_clock_queued(ctx, i, &ready, &due);
		n += ready - (due && n);
	}
	return n;
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
	s->events_ready = dev_ready(ctx);
	s->sink_pending = READ_ONCE(ctx->sink_queued);
}

static void dev_stats_mod(struct tempo_mod_stats *s)
{
	s->contexts = atomic64_read(&dev_mstat.contexts);
	s->timers = atomic64_read(&dev_mstat.timers);
	s->submissions = atomic64_read(&dev_mstat.submissions);
	s->bytes = atomic64_read(&dev_mstat.bytes);
	s->opens = atomic64_read(&dev_mstat.opens);
	s->armed = atomic64_read(&dev_mstat.armed);
	s->fired = atomic64_read(&dev_mstat.fired);
	s->completed = atomic64_read(&dev_mstat.completed);
	s->sink_dropped = atomic64_read(&dev_mstat.sink_dropped);
}

/*
 * What the caller's user holds, for a file that may not see the module's
 * figures: its opener's user's for that user, the caller's own for another
 * (dev_user_counts()), whoever opened the file.
 */
static void dev_stats_user(struct tempo_ctx *ctx, struct tempo_mod_stats *s)
{
	unsigned long n[DU_NR];

	dev_user_counts(ctx->user, n);
	s->scope = TEMPO_STATS_USER;
	s->contexts = n[DU_CONTEXTS];
	s->timers = n[DU_TIMERS];
	s->bytes = s->timers * dev_slot_size() + n[DU_BYTES];
}

static long dev_ioc_stats(struct tempo_ctx *ctx, void __user *arg)
{
	struct tempo_stats st;

	memset(&st, 0, sizeof(st));
	dev_stats_ctx(ctx, &st.ctx);
	if (ctx->sees_module)
		dev_stats_mod(&st.mod);
	else
		dev_stats_user(ctx, &st.mod);
	return copy_to_user(arg, &st, sizeof(st)) ? -EFAULT : 0;
}

/* ---- file operations ------------------------------------------------- */

static long dev_ioctl(struct tempo_ctx *ctx, unsigned int cmd, void __user *uarg,
		      bool nonblock)
{
	u32 done;

	switch (cmd) {
	case TEMPO_IOC_INFO:
	case TEMPO_IOC_INFO_VER0:
		return dev_ioc_info(uarg, _IOC_SIZE(cmd));
	case TEMPO_IOC_STATS:
		return dev_ioc_stats(ctx, uarg);
	case TEMPO_IOC_TIMER_ARM:
		return dev_batch_call(ctx, DEV_BATCH_ARM, uarg, false, &done);
	case TEMPO_IOC_TIMER_CANCEL:
		return dev_batch_call(ctx, DEV_BATCH_CANCEL, uarg, false, &done);
	case TEMPO_IOC_TIMER_QUERY:
		return dev_ioc_query(ctx, uarg);
	case TEMPO_IOC_ORDER_SINK:
		return dev_ioc_sink(ctx, uarg, nonblock);
	case TEMPO_IOC_ORDER_FLUSH:
		return dev_ioc_flush(ctx, nonblock);
	case TEMPO_IOC_ORDER_TICKET:
		return dev_ioc_ticket(ctx, uarg);
	case TEMPO_IOC_ORDER_SUBMIT:
		return dev_ioc_submit(ctx, uarg, nonblock);
	case TEMPO_IOC_ORDER_TRASH:
		return dev_ioc_trash(ctx, uarg, nonblock);
	case TEMPO_IOC_ORDER_SKIP:
		return dev_ioc_skip(ctx, uarg, nonblock);
	default:
		return -ENOTTY;
	}
}

static long tempo_dev_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct tempo_ctx *ctx = file->private_data;
	struct mem_cgroup *old;
	long ret;

	/* Whoever calls, the file's opener pays for what the call allocates. */
	old = set_active_memcg(ctx->memcg);
	ret = dev_ioctl(ctx, cmd, (void __user *)arg, file->f_flags & O_NONBLOCK);
	set_active_memcg(old);
	return ret;
}

static int tempo_dev_open(struct inode *inode, struct file *file)
{
	struct tempo_user *user;
	struct tempo_ctx *ctx;
	int err;

	user = dev_user_get(current_user_ns(), current_euid());
	if (IS_ERR(user))
		return PTR_ERR(user);
	err = -EMFILE;
	if (!dev_user_charge(user, DU_CONTEXTS, 1, dev_user_limit(DU_CONTEXTS)))
		goto err_put_user;
	err = -ENOMEM;
	ctx = kzalloc(sizeof(*ctx), DEV_GFP);
	if (!ctx)
		goto err_uncharge;
	ctx->q = tempo_delayq_create();
	if (!ctx->q)
		goto err_free_ctx;
	tempo_delayq_node_init(&ctx->lost_item.dq);
	ctx->lost_item.kind = DI_LOST;
	dev_clock_ctx_init(ctx);
	init_llist_head(&ctx->free_in);
	spin_lock_init(&ctx->sink_qlock);
	INIT_LIST_HEAD(&ctx->sink_q);
	mutex_init(&ctx->ctl_lock);
	mutex_init(&ctx->order_lock);
	mutex_init(&ctx->sink_lock);
	ctx->user = user;
	/* What this file allocates later is charged here, whoever calls. */
	ctx->memcg = get_mem_cgroup_from_mm(current->mm);
	/*
	 * The module's figures show every user's activity: for the opener
	 * with CAP_PERFMON or CAP_SYS_ADMIN in the initial namespace only, as
	 * perf and the kernel's other global statistics (no audit record:
	 * every open asks, and most are not privileged).
	 */
	ctx->sees_module = ns_capable_noaudit(&init_user_ns, CAP_PERFMON) ||
			   ns_capable_noaudit(&init_user_ns, CAP_SYS_ADMIN);

	file->private_data = ctx;
	atomic64_inc(&dev_mstat.contexts);
	atomic64_inc(&dev_mstat.opens);
	/* read_iter honours IOCB_NOWAIT: io_uring may read inline. */
	file->f_mode |= FMODE_NOWAIT;
	return stream_open(inode, file);

err_free_ctx:
	kfree(ctx);
err_uncharge:
	dev_user_uncharge(user, DU_CONTEXTS, 1);
err_put_user:
	dev_user_put(user);
	return err;
}

/* What destroy hands back: ordered records nobody read are dropped. */
static void dev_item_release(struct tempo_delayq_node *node, void *arg)
{
	struct dev_item *it = container_of(node, struct dev_item, dq);

	if (it->kind != DI_ORDER)
		return;		/* a timer's slot or the loss report: in ctx */
	atomic64_inc(&dev_mstat.dropped);
	dev_osub_free(arg, container_of(it, struct tempo_osub, item));
}

/*
 * release() may run in do_exit(), or in whichever process dropped the last
 * reference (an fd passed and never received): it writes nothing and waits
 * for nothing but this context's own work.
 */
static int tempo_dev_release(struct inode *inode, struct file *file)
{
	struct tempo_ctx *ctx = file->private_data;

	/*
	 * No ioctl or read can run any more, and, once the clocks are gone, no
	 * walk after a clock change or deferrable timer. The ordered stream
	 * next: its last completions still put records on the queue; what still
	 * waits for the sink is dropped and counted, and the sink let go.
	 */
	dev_clock_release(ctx);
	dev_order_release(ctx);
	/* Every item still queued comes back (live timers end here). */
	tempo_delayq_destroy(ctx->q, dev_item_release, ctx);
	dev_timers_release(ctx);

	mutex_destroy(&ctx->sink_lock);
	mutex_destroy(&ctx->order_lock);
	mutex_destroy(&ctx->ctl_lock);
	dev_user_uncharge(ctx->user, DU_CONTEXTS, 1);
	dev_user_put(ctx->user);
	mem_cgroup_put(ctx->memcg);
	atomic64_dec(&dev_mstat.contexts);
	kfree(ctx);
	return 0;
}

/*
 * /proc/PID/fdinfo/FD, as timerfd and io_uring have: the file's live timers
 * ("timers"), those of each clock but CLOCK_MONOTONIC among them
 * (dev_clock_fdinfo(): "timers_boottime", "timers_realtime" absolute and
 * relative, "timers_realtime_cancel_on_set", "timers_monotonic_deferrable";
 * the rest are CLOCK_MONOTONIC's), and the records ready to read ("ready").
 */
static void tempo_dev_show_fdinfo(struct seq_file *m, struct file *file)
{
	struct tempo_ctx *ctx = file->private_data;

	seq_printf(m, "timers:\t%d\n", atomic_read(&ctx->ntimers));
	dev_clock_fdinfo(m, ctx);
	seq_printf(m, "ready:\t%u\n", dev_ready(ctx));
}

const struct file_operations tempo_dev_fops = {
	.owner		= THIS_MODULE,
	.open		= tempo_dev_open,
	.release	= tempo_dev_release,
	.read_iter	= tempo_dev_read_iter,
	.poll		= tempo_dev_poll,
	.show_fdinfo	= tempo_dev_show_fdinfo,
	.unlocked_ioctl	= tempo_dev_ioctl,
	.uring_cmd	= tempo_dev_uring_cmd,
	.compat_ioctl	= compat_ptr_ioctl,	/* identical layouts, see dev_abi_check() */
};

static struct miscdevice tempo_miscdev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "tempo",
	.fops	= &tempo_dev_fops,
	.mode	= 0666,
};

/* Freeze the ABI: sizes and offsets, the same for 32- and 64-bit callers. */
static void dev_abi_check(void)
{
#define TEMPO_ABI_SIZE(name, size) BUILD_BUG_ON(sizeof(struct name) != (size))
#define TEMPO_ABI_FIELD(name, field, off) BUILD_BUG_ON(offsetof(struct name, field) != (off))
#include <uapi/tempo_layout.h>
#undef TEMPO_ABI_FIELD
#undef TEMPO_ABI_SIZE
	BUILD_BUG_ON(offsetofend(struct tempo_info, max_user_bytes) != TEMPO_INFO_SIZE_VER0);
}

static int dev_stats_show(struct seq_file *m, void *unused)
{
	struct tempo_mod_stats s;

	dev_stats_mod(&s);
	seq_printf(m, "contexts %llu\ntimers %llu\nsubmissions %llu\nbytes %llu\n",
		   s.contexts, s.timers, s.submissions, s.bytes);
	seq_printf(m, "opens %llu\narmed %llu\nfired %llu\ncompleted %llu\n",
		   s.opens, s.armed, s.fired, s.completed);
	seq_printf(m, "dropped %lld\nsink_dropped %llu\n", (s64)atomic64_read(&dev_mstat.dropped),
		   s.sink_dropped);
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
	dev_clock_debugfs(dir);
}

/**
 * tempo_dev_init() - register /dev/tempo
 *
 * Context: module init, process context.
 * Return: 0, or the negative errno of misc_register().
 */
int tempo_dev_init(void)
{
	int err;

	dev_abi_check();
	dev_timer_init();
	err = dev_clock_init();
	if (err)
		return err;
	err = misc_register(&tempo_miscdev);
	if (err)
		dev_clock_exit();
	return err;
}

/**
 * tempo_dev_exit() - unregister /dev/tempo
 *
 * Context: module exit; no file is open (each holds a module reference).
 */
void tempo_dev_exit(void)
{
	misc_deregister(&tempo_miscdev);
	dev_clock_exit();
}
