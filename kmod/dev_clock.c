// SPDX-License-Identifier: GPL-2.0
/*
 * tempo: /dev/tempo's clocks.
 *
 * This file owns what a file's timers of other clocks than CLOCK_MONOTONIC
 * need: a delay queue per clock, its stand-in on the file's event queue,
 * cancel-on-set, and what a set of a clock or a resume does to them; and how
 * a timer's times meet a caller's clock and time namespace (the uapi
 * header's "Clocks" and "Time namespaces" say what a user sees).
 *
 * A timer's clock (enum dev_clk, the item's @clock) decides its queue. MONOTONIC
 * timers, and relative REALTIME ones (which POSIX and timerfd make MONOTONIC
 * timers), are items of the event queue ctx->q, whose deadlines are
 * MONOTONIC. BOOTTIME, absolute REALTIME and absolute REALTIME with
 * TEMPO_ARM_CANCEL_ON_SET timers are items of the file's queue of that
 * clock, ctx->clk[], made at the clock's first arm (tempo_delayq_create_clock():
 * its deadlines and its readings are its clock's, so none of its items is
 * ever early in its clock). Nobody sleeps on a clock's queue, and nobody
 * polls it: so it arms no kick (a delay queue arms one only for those who
 * wait) and costs nothing while its items wait.
 *
 * The proxy. A reader waits on ctx->q alone: read(), poll(), epoll and
 * io_uring see that one queue, with its exclusive wake-ups and its readiness
 * edges. So each clock's queue has one stand-in item on ctx->q, its proxy
 * (DI_CLOCK), put for the MONOTONIC instant at which the clock reaches the
 * queue's first deadline (by the clock's offset now), or for time 0 when a
 * clock set has ended the CANCEL_ON_SET timers. The read callback answers a
 * due proxy STOP (it stays queued) and notes it; read() then consumes the
 * clock's queue into the same buffer, with the same callback, and puts the
 * proxy again for what is first now (peek). So a clock's records come where
 * their time puts them among ctx->q's, a proxy never is a record, and a
 * proxy that came early (the clock was set back, or its first timer was
 * cancelled) costs a reader one look and is put again.
 *
 * Who moves a proxy, each in an O(1) section under ctx->clk_lock, where
 * dev_clock.first says what it stands for (KTIME_MAX: it is not queued):
 *  - an arm into a clock's queue puts it for the new first deadline if that
 *    is earlier;
 *  - a reader takes it down (first = KTIME_MAX), consumes the queue and
 *    peeks at it outside the lock (both may sort, with the queue's lock
 *    dropped between steps: not under a spinlock of ours), then puts it for
 *    the earlier of what it saw and what an arm put meanwhile. Two readers
 *    of one clock each see what the other left or took: the later one's
 *    look is the later state, and either placement is no later than the
 *    queue's first item;
 *  - the walk after a clock change (below) puts each standing proxy again
 *    through the new offset; a proxy a reader has taken down it leaves to
 *    that reader, whose placement reads the offset after the change.
 * So whenever a clock's queue holds an item, its proxy stands for a time no
 * later than the item's, or a reader is about to put it so.
 *
 * Deferrable timers (TEMPO_ARM_DEFERRABLE) are a clock of their own,
 * DEV_CLK_DEFER: MONOTONIC, with a queue in ctx->clk[] like the others, whose
 * proxy is not put on ctx->q for its time (ctx->q's kick would then wake the
 * CPU for it) but by ctx->defer_kick, a TEMPO_TIMER_DEFERRABLE tempo timer
 * that dev_proxy_place() arms for that time instead, and whose callback puts
 * the proxy on ctx->q for time 0, under clk_lock. So the reader is woken when
 * the kick's CPU runs it: at the deadline while that CPU is busy, at its next
 * wake-up while it is idle. The rest is any clock queue's: the reader takes
 * the proxy down (which cancels the kick), consumes, and places it again
 * (which arms the kick). Its offset never moves: the walk below skips it.
 * release() shuts the kick down before ctx->q goes (dev_clock_unlist()).
 *
 * Cancel-on-set. A file's COS timers of one generation (ctx->cos_gen, kept
 * in each item) were all armed while REALTIME's offset from MONOTONIC was
 * ctx->cos_offset. An arm into an empty COS queue begins a generation (the
 * offset is taken anew); into a queue that holds timers, it is refused with
 * ECANCELED when the offset has moved since, and so is the re-arm of a COS
 * timer, until the reader has taken every record of the timers a set ended.
 * "Ended" is that comparison, so nothing visits the timers when the clock is
 * set: the queue's proxy goes to time 0, and the reader consumes the whole
 * queue, due or not (TEMPO_DELAYQ_ALL), each record of the ended generation
 * flagged TEMPO_EVF_CLOCK_SET, and stops at a timer of a later one (armed
 * after the last ended timer left by a cancel, while the reader sorted). A
 * COS arm checks and puts under ctx->clk_lock, which the walk takes too, so
 * no set slips between its check and its put unseen.
 *
 * Clock changes. The clock core calls dev_clock_changed() after every set of
 * a clock and every resume (a work item; kmod/clock.c). It visits each file
 * on dev_clock_files (those with a clock queue) once, and under its
 * clk_lock puts each standing proxy again through the new offset, or at time
 * 0 where the COS timers ended: O(files), whatever they hold, and never a
 * timer's slot. A reader woken by a proxy does the file's own work in its
 * own thread.
 */

#include <linux/debugfs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>

#include <tempo/delayq.h>
#include <tempo/timer.h>
#include <uapi/tempo.h>

#include "clock.h"
#include "dev.h"

/* Files with a clock queue, for dev_clock_changed(); and what the walks cost. */
static DEFINE_MUTEX(dev_clock_files_lock);
static LIST_HEAD(dev_clock_files);
static atomic64_t dev_clock_walks, dev_clock_visits;

/**
 * dev_now_get() - the host's clocks at one instant, and the caller's namespace
 * @now: receives them
 *
 * Context: process context (the caller's namespace).
 */
void dev_now_get(struct dev_now *now)
{
	now->mono = ktime_get();
	now->off_boot = tempo_clock_offset(CLOCK_BOOTTIME);
	now->off_real = tempo_clock_offset(CLOCK_REALTIME);
	tempo_timens_get(&now->ns);
}

static struct dev_clock *dev_clock_slot(struct tempo_ctx *ctx, u8 clock)
{
	return clock >= DEV_CLK_BOOT ? &ctx->clk[clock - DEV_CLK_BOOT] : NULL;
}

/**
 * dev_clock_prepare() - make sure a clock's queue exists, before a batch arms
 * @ctx: the file
 * @clock: an enum dev_clk
 * @nowait: io_uring's non-blocking issue: -EAGAIN rather than allocate
 *
 * The queue is charged to the file's memory cgroup (the caller entered it):
 * at most DEV_CLK_QUEUES per file, a fixed part of it, like ctx->q.
 *
 * Context: process context, under ctl_lock.
 * Return: 0, -ENOMEM, or -EAGAIN.
 */
int dev_clock_prepare(struct tempo_ctx *ctx, u8 clock, bool nowait)
{
	struct dev_clock *c = dev_clock_slot(ctx, clock);
	struct tempo_delayq *q;
	bool first;

	lockdep_assert_held(&ctx->ctl_lock);
	if (!c || c->q)
		return 0;
	if (nowait)
		return -EAGAIN;
	q = tempo_delayq_create_clock(dev_clock_host(clock));
	if (!q)
		return -ENOMEM;
	mutex_lock(&dev_clock_files_lock);
	first = list_empty(&ctx->clk_link);
	if (first)
		list_add_tail(&ctx->clk_link, &dev_clock_files);
	spin_lock(&ctx->clk_lock);
	c->q = q;
	spin_unlock(&ctx->clk_lock);
	mutex_unlock(&dev_clock_files_lock);
	return 0;
}

/* The MONOTONIC instant for a proxy standing for @t of @c's clock: within what put_at() takes. */
static ktime_t dev_proxy_at(struct dev_clock *c, ktime_t t)
{
	ktime_t at = ktime_sub(t, tempo_clock_offset(dev_clock_host(c->clock)));
	ktime_t now = ktime_get();

	if (at < 0)
		return 0;
	if (ktime_after(at, now) && ktime_to_ns(ktime_sub(at, now)) > tempo_timer_max_delay_ns())
		return ktime_add_ns(now, tempo_timer_max_delay_ns());
	return at;
}

/*
 * Under clk_lock: have @c's proxy stand for @first (KTIME_MAX: for nothing),
 * at once if @ended. Removed and put again: it may have been due already.
 * DEV_CLK_DEFER's is put by ctx->defer_kick, which this aims instead.
 */
static void dev_proxy_place(struct tempo_ctx *ctx, struct dev_clock *c, ktime_t first, bool ended)
{
	lockdep_assert_held(&ctx->clk_lock);
	tempo_delayq_remove(ctx->q, &c->proxy.dq);
	c->first = first;
	if (c->clock == DEV_CLK_DEFER) {
		if (first == KTIME_MAX)
			tempo_timer_cancel(&ctx->defer_kick);
		else	/* -ESHUTDOWN only at release, as below */
			tempo_timer_arm_at(&ctx->defer_kick, TEMPO_CPU_LOCAL,
					   dev_proxy_at(c, first));
		return;
	}
	if (first == KTIME_MAX)
		return;
	/* -ESHUTDOWN only at release, when nothing waits for it any more. */
	tempo_delayq_put_at(ctx->q, &c->proxy.dq, ended ? 0 : dev_proxy_at(c, first));
}

/* ctx->defer_kick: DEV_CLK_DEFER's proxy stands now, if it stands for a timer. */
static void dev_defer_kick(struct tempo_timer *t)
{
	struct tempo_ctx *ctx = container_of(t, struct tempo_ctx, defer_kick);
	struct dev_clock *c = &ctx->clk[DEV_CLK_DEFER - DEV_CLK_BOOT];

	spin_lock(&ctx->clk_lock);
	if (c->first != KTIME_MAX) {
		tempo_delayq_remove(ctx->q, &c->proxy.dq);
		tempo_delayq_put_at(ctx->q, &c->proxy.dq, 0);
	}
	spin_unlock(&ctx->clk_lock);
}

/*
 * Has REALTIME's offset moved since the COS generation began (a set of the
 * wall clock, or a resume)? Under clk_lock or ctl_lock (cos_offset is
 * written under both).
 */
static bool dev_cos_moved(struct tempo_ctx *ctx)
{
	return tempo_clock_offset(CLOCK_REALTIME) != ctx->cos_offset;
}

/* Under clk_lock: should @c's proxy stand at once? COS timers a set ended. */
static bool dev_clock_now_due(struct tempo_ctx *ctx, struct dev_clock *c)
{
	return c->clock == DEV_CLK_COS && dev_cos_moved(ctx);
}

/**
 * dev_clock_ended() - has a clock set ended this timer, its record unread?
 * @ctx: the file
 * @it: a live timer's item
 *
 * Context: under ctl_lock (a query, a re-arm).
 * Return: true for a CANCEL_ON_SET timer of a generation whose offset has
 * moved (a set of the wall clock, or a resume).
 */
bool dev_clock_ended(struct tempo_ctx *ctx, const struct dev_item *it)
{
	lockdep_assert_held(&ctx->ctl_lock);
	return it->clock == DEV_CLK_COS &&
	       (it->cos_gen != ctx->cos_gen || dev_cos_moved(ctx));
}

/**
 * dev_clock_refuses() - would an arm into a clock be refused with ECANCELED?
 * @ctx: the file
 * @clock: an enum dev_clk
 *
 * Context: under ctl_lock and clk_lock, in the section that puts the timer
 * if not (dev_clock_put_many()): the one decision of the arm.
 * Return: true for CANCEL_ON_SET while the file's COS timers that a set of
 * the wall clock ended have records unread.
 */
bool dev_clock_refuses(struct tempo_ctx *ctx, u8 clock)
{
	struct dev_clock *c = dev_clock_slot(ctx, clock);

	lockdep_assert_held(&ctx->clk_lock);
	return clock == DEV_CLK_COS && c->q && tempo_delayq_size(c->q) && dev_cos_moved(ctx);
}

/**
 * dev_clock_put_many() - queue timers of a clock with a queue of its own
 * @ctx: the file
 * @clock: their enum dev_clk (DEV_CLK_BOOT or later); its queue exists
 * @nodes: their items
 * @deadlines: in the clock (dev_clock_deadline())
 * @n: how many
 * @errp: as tempo_delayq_put_many()'s
 *
 * Under clk_lock (the caller's: dev_clock_lock()), in the section that
 * decided with dev_clock_refuses() that a COS arm may go on: a set of the
 * clock after that decision ends these timers with the others of their
 * generation, as it would had they been put before it. An arm into an
 * empty COS queue begins a generation. The proxy moves earlier if the first
 * deadline did.
 *
 * Context: process context, under ctl_lock and clk_lock.
 * Return: the number queued, as tempo_delayq_put_many().
 */
unsigned int dev_clock_put_many(struct tempo_ctx *ctx, u8 clock,
				struct tempo_delayq_node *const *nodes, const ktime_t *deadlines,
				unsigned int n, int *errp)
{
	struct dev_clock *c = dev_clock_slot(ctx, clock);
	ktime_t first = KTIME_MAX;
	unsigned int i, put;

	lockdep_assert_held(&ctx->ctl_lock);
	lockdep_assert_held(&ctx->clk_lock);
	if (clock == DEV_CLK_COS) {
		if (!tempo_delayq_size(c->q)) {
			/* A new generation: what a set ends is judged from here. */
			ctx->cos_gen++;
			ctx->cos_offset = tempo_clock_offset(CLOCK_REALTIME);
		}
		for (i = 0; i < n; i++)
			container_of(nodes[i], struct dev_item, dq)->cos_gen = ctx->cos_gen;
	}
	put = tempo_delayq_put_many(c->q, nodes, deadlines, n, errp);
	for (i = 0; i < put; i++)
		first = min(first, deadlines[i]);
	if (ktime_before(first, c->first))
		dev_proxy_place(ctx, c, first, dev_clock_now_due(ctx, c));
	return put;
}

/**
 * dev_clock_requeue() - move a timer of a clock with a queue of its own
 * @ctx: the file
 * @clock: its enum dev_clk (DEV_CLK_BOOT or later), unchanged by the move
 * @node: its item, queued on that clock's queue
 * @deadline: its new deadline, in the clock
 * @fn: as tempo_delayq_requeue()'s
 * @arg: passed to @fn
 *
 * As dev_clock_put_many() of a timer removed first, in one critical section
 * of the queue: the timer keeps its COS generation (the caller checked that
 * no set ended it, and it is in the queue, so none begins). The proxy moves
 * earlier if the first deadline did.
 *
 * Context: process context, under ctl_lock and clk_lock.
 * Return: as tempo_delayq_requeue().
 */
int dev_clock_requeue(struct tempo_ctx *ctx, u8 clock, struct tempo_delayq_node *node,
		      ktime_t deadline, tempo_delayq_requeue_fn fn, void *arg)
{
	struct dev_clock *c = dev_clock_slot(ctx, clock);
	int err;

	lockdep_assert_held(&ctx->ctl_lock);
	lockdep_assert_held(&ctx->clk_lock);
	err = tempo_delayq_requeue(c->q, node, deadline, fn, arg);
	if (!err && ktime_before(deadline, c->first))
		dev_proxy_place(ctx, c, deadline, dev_clock_now_due(ctx, c));
	return err;
}

/* Serialise with the proxies' movers and the COS checks (dev.h's lock order). */
void dev_clock_lock(struct tempo_ctx *ctx)
	__acquires(&ctx->clk_lock)
{
	spin_lock(&ctx->clk_lock);
}

void dev_clock_unlock(struct tempo_ctx *ctx)
	__releases(&ctx->clk_lock)
{
	spin_unlock(&ctx->clk_lock);
}

/**
 * dev_clock_read_one() - a reader's turn at a clock queue whose proxy was due
 * @ctx: the file
 * @i: the index of the clock queue in ctx->clk[]
 * @fn: the read callback
 * @arg: its argument, the reader
 * @max: records the reader's buffer still holds
 * @ended: set, before @fn runs, to whether a set ended the COS timers of
 *	generation *@gen: @fn is then shown every queued timer, due or not, and
 *	ends each of that generation with a TEMPO_EVF_CLOCK_SET record
 * @gen: set to the COS generation @ended speaks of
 *
 * Takes the proxy down, consumes the queue with @fn (copying records out),
 * and puts the proxy again for the queue's first deadline then (see "Who
 * moves a proxy" above).
 *
 * Context: process context (read()), no lock held.
 * Return: tempo_delayq_consume()'s result, or -EAGAIN if @max is 0.
 */
int dev_clock_read_one(struct tempo_ctx *ctx, unsigned int i, tempo_delayq_consume_fn fn,
		       void *arg, unsigned int max, bool *ended, u32 *gen)
{
	struct dev_clock *c = &ctx->clk[i];
	ktime_t first;
	int ret = -EAGAIN;

	spin_lock(&ctx->clk_lock);
	*ended = dev_clock_now_due(ctx, c);
	*gen = ctx->cos_gen;
	dev_proxy_place(ctx, c, KTIME_MAX, false);
	spin_unlock(&ctx->clk_lock);
	if (max)
		ret = tempo_delayq_consume(c->q, fn, arg, max, *ended ? TEMPO_DELAYQ_ALL : 0);
	if (!tempo_delayq_peek(c->q, &first))
		first = KTIME_MAX;
	spin_lock(&ctx->clk_lock);
	first = min(first, c->first);
	dev_proxy_place(ctx, c, first, dev_clock_now_due(ctx, c));
	spin_unlock(&ctx->clk_lock);
	return ret;
}

/**
 * dev_clock_queued() - timers of a clock queue, and their records ready now
 * @ctx: the file
 * @i: the index of the clock queue in ctx->clk[]
 * @ready: receives how many of them have a record ready to read
 * @proxy_due: receives whether the queue's proxy on ctx->q is due (it
 *	counts as ready there, and is not a record)
 *
 * Context: process context (stats, fdinfo).
 * Return: the number of timers queued.
 */
unsigned int dev_clock_queued(struct tempo_ctx *ctx, unsigned int i, unsigned int *ready,
			      bool *proxy_due)
{
	struct dev_clock *c = &ctx->clk[i];
	struct tempo_delayq_stats st;
	struct tempo_delayq *q;
	bool ended;
	ktime_t at;

	*ready = 0;
	*proxy_due = false;
	/* The lock for the pointer (set once, under it) and the offset's reading. */
	spin_lock(&ctx->clk_lock);
	q = c->q;
	ended = dev_clock_now_due(ctx, c);
	spin_unlock(&ctx->clk_lock);
	if (!q)
		return 0;
	/* Outside the lock: stats() sorts and counts, dropping the queue's lock between steps. */
	tempo_delayq_stats(q, &st);
	*ready = ended ? st.pending + st.ready : st.ready;
	*proxy_due = tempo_delayq_query(ctx->q, &c->proxy.dq, &at) == TEMPO_DELAYQ_TAKEABLE;
	return st.pending + st.ready;
}

/*
 * The clock core's chain, after a clock was set or the machine resumed: put
 * every standing proxy of every file with a clock queue again, through the
 * offsets of now (at once where COS timers ended). O(files).
 */
static int dev_clock_changed(struct notifier_block *nb, unsigned long unused, void *data)
{
	struct tempo_ctx *ctx;
	struct dev_clock *c;
	unsigned int i;

	atomic64_inc(&dev_clock_walks);
	mutex_lock(&dev_clock_files_lock);
	list_for_each_entry(ctx, &dev_clock_files, clk_link) {
		spin_lock(&ctx->clk_lock);
		for (i = 0; i < DEV_CLK_QUEUES; i++) {
			c = &ctx->clk[i];
			if (c->first != KTIME_MAX && c->clock != DEV_CLK_DEFER)
				dev_proxy_place(ctx, c, c->first, dev_clock_now_due(ctx, c));
		}
		spin_unlock(&ctx->clk_lock);
		atomic64_inc(&dev_clock_visits);
		cond_resched();
	}
	mutex_unlock(&dev_clock_files_lock);
	return NOTIFY_DONE;
}

static struct notifier_block dev_clock_nb = {
	.notifier_call = dev_clock_changed,
};

/* A new file: no clock queue yet. */
void dev_clock_ctx_init(struct tempo_ctx *ctx)
{
	unsigned int i;

	spin_lock_init(&ctx->clk_lock);
	INIT_LIST_HEAD(&ctx->clk_link);
	for (i = 0; i < DEV_CLK_QUEUES; i++) {
		tempo_delayq_node_init(&ctx->clk[i].proxy.dq);
		ctx->clk[i].proxy.kind = DI_CLOCK;
		ctx->clk[i].first = KTIME_MAX;
		ctx->clk[i].clock = DEV_CLK_BOOT + i;
	}
	tempo_timer_init(&ctx->defer_kick, dev_defer_kick, TEMPO_TIMER_DEFERRABLE);
}

/*
 * release(), first: off the list, so that no walk reaches the file; the
 * queues go in dev_clock_release().
 */
void dev_clock_unlist(struct tempo_ctx *ctx)
{
	mutex_lock(&dev_clock_files_lock);
	if (!list_empty(&ctx->clk_link))
		list_del_init(&ctx->clk_link);
	mutex_unlock(&dev_clock_files_lock);
	/* It puts on ctx->q, which goes next. */
	tempo_timer_shutdown_sync(&ctx->defer_kick);
}

/* What a clock queue hands back at release: timers, whose slots are ctx's. */
static void dev_clock_item_release(struct tempo_delayq_node *node, void *arg)
{
}

/* release(), after ctx->q is gone (no proxy to move): the clock queues go. */
void dev_clock_release(struct tempo_ctx *ctx)
{
	unsigned int i;

	for (i = 0; i < DEV_CLK_QUEUES; i++)
		if (ctx->clk[i].q)
			tempo_delayq_destroy(ctx->clk[i].q, dev_clock_item_release, NULL);
}

/* fdinfo: the file's timers per clock, and its records ready. */
void dev_clock_fdinfo(struct seq_file *m, struct tempo_ctx *ctx)
{
	static const char * const names[DEV_CLK_QUEUES] = {
		"boottime", "realtime", "realtime_cancel_on_set", "monotonic_deferrable"
	};
	unsigned int i, n, ready;
	bool due;

	for (i = 0; i < DEV_CLK_QUEUES; i++) {
		n = dev_clock_queued(ctx, i, &ready, &due);
		if (ctx->clk[i].q)
			seq_printf(m, "timers_%s:\t%u\n", names[i], n);
	}
}

static int dev_clock_stats_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "walks %lld\nvisits %lld\n", (s64)atomic64_read(&dev_clock_walks),
		   (s64)atomic64_read(&dev_clock_visits));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(dev_clock_stats);

/* debugfs "dev_clock": the walks after clock changes, and the files they visited. */
void dev_clock_debugfs(struct dentry *dir)
{
	debugfs_create_file("dev_clock", 0444, dir, NULL, &dev_clock_stats_fops);
}

int dev_clock_init(void)
{
	return tempo_clock_notifier_register(&dev_clock_nb);
}

void dev_clock_exit(void)
{
	tempo_clock_notifier_unregister(&dev_clock_nb);
}
