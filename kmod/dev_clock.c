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
 * polls it: so it arms no waker (a delay queue arms one only for those who
 * wait) and costs nothing while its items wait.
 *
 * Alarms. BOOTTIME and REALTIME timers with TEMPO_ARM_ALARM (relative
 * REALTIME ones included, as absolute ones from the arm's reading, as
 * timerfd has them) are items of the file's alarm queues, DEV_CLK_BOOT_ALARM
 * and DEV_CLK_REAL_ALARM, delay queues of CLOCK_BOOTTIME_ALARM and
 * CLOCK_REALTIME_ALARM: the queue itself keeps a kernel alarm aimed at its
 * first deadline, which wakes the machine from suspend (kmod/delayq_clock.c,
 * "Alarms"). Here they are clocks like the others, with a proxy: while the
 * machine runs their records come as BOOTTIME and REALTIME ones do, and
 * after a resume the walk below makes the proxy of a deadline the sleep
 * passed due. Who may arm one is asked at each arm and re-arm that names
 * the flag (dev_clock_may_wake(): CAP_WAKE_ALARM, as timerfd_settime()
 * asks), before anything changes; where the kernel has no RTC to wake the
 * machine with, the flag is refused.
 *
 * The proxy. A reader waits on ctx->q alone: read(), poll(), epoll and
 * io_uring see that one queue, with its exclusive wake-ups and its readiness
 * edges. So each clock's queue has one stand-in item on ctx->q, its proxy
 * (DI_CLOCK), standing (dev_clock.at) at the MONOTONIC instant at which the
 * clock reaches the queue's first deadline (dev_clock.first), by the clock's
 * offset at the placement, or at time 0 when a clock set has ended the
 * CANCEL_ON_SET timers; not queued while the clock's queue is empty. The
 * read callback answers a due proxy STOP (it stays queued) and notes it;
 * read() then consumes the clock's queue into the same buffer, with the
 * same callback. So a clock's records come where their time puts them among
 * ctx->q's, and a proxy never is a record. A proxy is due only while its
 * queue holds a record a read would take (but for the races below), so
 * that poll() and EPOLLIN say what read() finds: POLLIN followed by a
 * blocking read() never sleeps for lack of a record.
 *
 * Placing a proxy (dev_proxy_place(), under ctx->clk_lock, O(1) in the
 * clock's queue, O(log n) in ctx->q) leaves it alone where its place does
 * not change: the same instant, or due before and due after ("a proxy
 * standing due stays": its readiness edge was made once). Else it moves it
 * with tempo_delayq_move(), which wakes nobody; a move that makes ctx->q
 * ready sets ctx->clk_announce, and whoever drops clk_lock then wakes the
 * readers and watchers (dev_clock_unlock(): tempo_delayq_announce()). So no
 * wake-up ever runs under clk_lock, and a file's waiters hear of a proxy
 * once per edge of its readiness, never per move.
 *
 * Who places a proxy, each in an O(1) section under clk_lock:
 *  - an arm into a clock's queue, or a re-arm earlier in it
 *    (dev_clock_put_many(), dev_clock_requeue()), for the new first
 *    deadline if that is earlier, and notes it in dev_clock.added;
 *  - whoever took items out of the queue or moved one later (a read's
 *    consume, a cancel, a re-arm), in dev_clock_settle(): it begins a
 *    settle (dev_clock.seq++, added reset), peeks at the queue outside the
 *    lock (a peek may sort, dropping the queue's lock between steps: not
 *    under a spinlock of ours), and places the proxy for the earlier of
 *    what it saw and what arms added meanwhile, unless a later settle began
 *    meanwhile, which places it from a later look. Items leave the queue
 *    only by a settler's hand, who settles after; an arm's items it saw or
 *    counts in added. So the last settle places the proxy for the queue's
 *    first item, and an arm after it only moves it earlier;
 *  - the walk after a clock change (below), for dev_clock.first through the
 *    new offset;
 *  - DEV_CLK_DEFER's deferrable timer (below).
 * Whenever a clock's queue holds an item, its proxy stands for a time no
 * later than the item's; and once no call on the file is under way, for its
 * first item exactly. The races: a read() that a poll() saw due may find
 * the record gone to another reader, or the clock set back before its
 * deadline (REALTIME's records then wait for it, as the uapi header says),
 * or its timer cancelled meanwhile; and after a set back by more than
 * max_delay_ns a proxy stands at most that far ahead, early.
 *
 * Deferrable timers (TEMPO_ARM_DEFERRABLE) are a clock of their own,
 * DEV_CLK_DEFER: MONOTONIC, with a queue in ctx->clk[] like the others, whose
 * proxy is not put on ctx->q for its time (ctx->q's waker would then wake the
 * CPU for it) but by ctx->defer_timer, a TEMPO_TIMER_DEFERRABLE tempo timer
 * that dev_proxy_place() arms for that time instead, and whose callback puts
 * the proxy on ctx->q for time 0, under clk_lock. So the reader is woken when
 * the timer's CPU runs it: at the deadline while that CPU is busy, at its next
 * wake-up while it is idle. A placement arms the timer for the first
 * deadline (it stays armed where that does not change), or cancels it when
 * the queue is empty, and takes the proxy off ctx->q unless it stands due
 * and the first deadline has passed; the callback puts it only if the first
 * deadline it stands for has passed (a placement may have moved it later
 * since). Its offset never moves: the walk below skips it. release() shuts
 * the timer down before ctx->q goes (dev_clock_release()).
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
 * a clock and every resume (one work item, never two at once; kmod/clock.c).
 * The walk visits each file on dev_clock_files (those with a clock queue)
 * once: under the file's clk_lock it places each standing proxy again
 * (dev_clock.first through the new offset, or at time 0 where the COS
 * timers ended), at most DEV_CLK_QUEUES - 1 placements, O(log n) each in
 * the file's records, and never a timer's slot. A proxy whose place does
 * not change, one standing due among them, is not touched, so a set costs
 * nothing per record or watcher of a file. A file whose proxy the change
 * made due is pinned (dev_clock_pinned), and after both locks are dropped
 * its readers and watchers are woken once, as timerfd_clock_was_set() wakes
 * a cancelled timerfd's: the only wake-up a walk makes, and only for a
 * record the change made due. The walk holds dev_clock_files_lock for one
 * file's visit at a time: between two it keeps its place with a cursor in
 * the list (struct list_head on its stack, after the file it visited), and
 * drops the lock. A file leaves the list under the lock (dev_clock_release(),
 * at release); the cursor is the walk's own, so the next file is whatever
 * follows it then, and a file the walk pinned is waited for (the wake-up of
 * its own waiters) before its queues go. Files listed during a walk go to
 * the list's head, behind the cursor: their proxies were placed through the
 * new offsets already. So the walk costs O(files) visits and O(waiters) of
 * the files it made ready, and a close() or a first arm of a clock of
 * another user waits for dev_clock_files_lock at most one visit of one
 * file, whatever anyone's timers or watchers (and for the delay queues'
 * own pass, kmod/delayq_clock.c, O(1) per queue of another clock, whose lock a
 * clock queue's creation and destruction take).
 */

#include <linux/capability.h>
#include <linux/debugfs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include <tempo/delayq.h>
#include <tempo/timer.h>
#include <uapi/tempo.h>

#include "clock.h"
#include "dev.h"
#include "dev_clock.h"

/*
 * Files with a clock queue, for dev_clock_changed(); the file the walk wakes
 * with the lock dropped, and who waits for that; and what the walks cost.
 */
static DEFINE_MUTEX(dev_clock_files_lock);
static LIST_HEAD(dev_clock_files);
static struct tempo_ctx *dev_clock_pinned;
static DECLARE_WAIT_QUEUE_HEAD(dev_clock_pin_wait);
static atomic64_t dev_clock_walks, dev_clock_visits, dev_clock_moves, dev_clock_wakes;

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
 * at most DEV_CLK_QUEUES per file, a fixed part of it, like ctx->q. The file
 * joins dev_clock_files at its first, at the head: behind a walk's cursor.
 *
 * Context: process context, under ctl_lock.
 * Return: 0, -ENOMEM, or -EAGAIN.
 */
int dev_clock_prepare(struct tempo_ctx *ctx, u8 clock, bool nowait)
{
	struct dev_clock *c = dev_clock_slot(ctx, clock);
	clockid_t id = dev_clock_host(clock);
	struct tempo_delayq *q;

	lockdep_assert_held(&ctx->ctl_lock);
	if (!c || c->q)
		return 0;
	if (nowait)
		return -EAGAIN;
	if (dev_clock_is_alarm(clock))
		id = id == CLOCK_BOOTTIME ? CLOCK_BOOTTIME_ALARM : CLOCK_REALTIME_ALARM;
	q = tempo_delayq_create_clock(id);
	if (!q)
		return -ENOMEM;
	mutex_lock(&dev_clock_files_lock);
	if (list_empty(&ctx->clk_link))
		list_add(&ctx->clk_link, &dev_clock_files);
	spin_lock(&ctx->clk_lock);
	c->q = q;
	spin_unlock(&ctx->clk_lock);
	mutex_unlock(&dev_clock_files_lock);
	return 0;
}

/**
 * dev_clock_may_wake() - may the caller arm timers that wake the machine?
 *
 * Asked once per arm batch that names TEMPO_ARM_ALARM, before anything
 * changes: the caller's capability, not the opener's, as
 * timerfd_settime() asks it (capable(): the initial user namespace).
 *
 * Context: process context (the caller's credentials).
 * Return: 0; -EINVAL where the kernel has no RTC to wake the machine with
 * (tempo_clock_alarm_ready()); -EPERM without CAP_WAKE_ALARM.
 */
int dev_clock_may_wake(void)
{
	if (!tempo_clock_alarm_ready())
		return -EINVAL;
	return capable(CAP_WAKE_ALARM) ? 0 : -EPERM;
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
 * Under clk_lock: stand @c's proxy on ctx->q at @at (KTIME_MAX: take it
 * off), waking nobody: a move that makes ctx->q ready is announced by
 * whoever drops clk_lock (dev_clock_unlock()).
 */
static void dev_proxy_move(struct tempo_ctx *ctx, struct dev_clock *c, ktime_t at)
{
	bool announce;

	lockdep_assert_held(&ctx->clk_lock);
	/* A placement is within what put() takes, and ctx->q lives until release. */
	if (WARN_ON_ONCE(tempo_delayq_move(ctx->q, &c->proxy.dq, at, &announce)))
		return;
	c->at = at;
	ctx->clk_announce |= announce;
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

/*
 * Under clk_lock: have @c's proxy stand for @first (KTIME_MAX: for nothing):
 * at once where COS timers ended, else when the clock reaches @first. Left
 * where it stands if that does not change, or if it stands due and would
 * again. DEV_CLK_DEFER's is put by ctx->defer_timer, which this aims
 * instead. Return: whether the proxy moved.
 */
static bool dev_proxy_place(struct tempo_ctx *ctx, struct dev_clock *c, ktime_t first)
{
	ktime_t at, now = ktime_get();

	lockdep_assert_held(&ctx->clk_lock);
	c->first = first;
	if (c->clock == DEV_CLK_DEFER) {
		if (first == KTIME_MAX) {
			tempo_timer_cancel(&ctx->defer_timer);
		} else {
			if (c->at != KTIME_MAX && !ktime_after(first, now))
				return false;	/* standing due, and due */
			/* -ESHUTDOWN only at release, when nothing waits for it any more. */
			tempo_timer_arm_at(&ctx->defer_timer, TEMPO_CPU_LOCAL, first);
		}
		if (c->at == KTIME_MAX)
			return false;
		dev_proxy_move(ctx, c, KTIME_MAX);
		return true;
	}
	at = first == KTIME_MAX ? KTIME_MAX : dev_clock_now_due(ctx, c) ? 0 :
	     dev_proxy_at(c, first);
	if (at == c->at ||
	    (at != KTIME_MAX && c->at != KTIME_MAX && !ktime_after(c->at, now) &&
	     !ktime_after(at, now)))
		return false;
	dev_proxy_move(ctx, c, at);
	return true;
}

/* Serialise with the proxies' placers and the COS checks (dev.h's lock order). */
static void dev_clock_lock(struct tempo_ctx *ctx)
	__acquires(&ctx->clk_lock)
{
	spin_lock(&ctx->clk_lock);
}

/* Drop clk_lock, then wake whoever a proxy's move under it made ctx->q ready for. */
static void dev_clock_unlock(struct tempo_ctx *ctx)
	__releases(&ctx->clk_lock)
{
	bool announce = ctx->clk_announce;

	ctx->clk_announce = false;
	spin_unlock(&ctx->clk_lock);
	if (announce)
		tempo_delayq_announce(ctx->q);
}

/* ctx->defer_timer: DEV_CLK_DEFER's proxy stands now, if its first deadline has passed. */
static void dev_defer_timer_fired(struct tempo_timer *t)
{
	struct tempo_ctx *ctx = container_of(t, struct tempo_ctx, defer_timer);
	struct dev_clock *c = &ctx->clk[DEV_CLK_DEFER - DEV_CLK_BOOT];

	dev_clock_lock(ctx);
	if (c->first != KTIME_MAX && c->at == KTIME_MAX && !ktime_after(c->first, ktime_get()))
		dev_proxy_move(ctx, c, 0);
	dev_clock_unlock(ctx);
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
static bool dev_clock_refuses(struct tempo_ctx *ctx, u8 clock)
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
 * deadline did (see "Who places a proxy").
 *
 * Context: process context, under ctl_lock and clk_lock.
 * Return: the number queued, as tempo_delayq_put_many().
 */
static unsigned int dev_clock_put_many(struct tempo_ctx *ctx, u8 clock,
				       struct tempo_delayq_node *const *nodes,
				       const ktime_t *deadlines, unsigned int n, int *errp)
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
	/* For a settle under way, which may not have seen them. */
	c->added = min(c->added, first);
	if (ktime_before(first, c->first))
		dev_proxy_place(ctx, c, first);
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
 * earlier if the first deadline did; a move later is the caller's to settle
 * (dev_clock_settle()), once it has dropped clk_lock.
 *
 * Context: process context, under ctl_lock and clk_lock.
 * Return: as tempo_delayq_requeue().
 */
static int dev_clock_requeue(struct tempo_ctx *ctx, u8 clock, struct tempo_delayq_node *node,
			     ktime_t deadline, tempo_delayq_requeue_fn fn, void *arg)
{
	struct dev_clock *c = dev_clock_slot(ctx, clock);
	int err;

	lockdep_assert_held(&ctx->ctl_lock);
	lockdep_assert_held(&ctx->clk_lock);
	err = tempo_delayq_requeue(c->q, node, deadline, fn, arg);
	if (err)
		return err;
	c->added = min(c->added, deadline);
	if (ktime_before(deadline, c->first))
		dev_proxy_place(ctx, c, deadline);
	return 0;
}

/**
 * dev_clock_settle() - place a clock's proxy after items left its queue
 * @ctx: the file
 * @clock: an enum dev_clk with a queue of its own, made already
 *
 * Whoever took items out of the clock's queue, or moved one later (a read,
 * a cancel, a re-arm), calls this after: it looks at the queue's first
 * deadline and places the proxy for it, or leaves that to a settle begun
 * after it (see "Who places a proxy" above).
 *
 * Context: process context, clk_lock not held (ctl_lock may be).
 */
static void dev_clock_settle(struct tempo_ctx *ctx, u8 clock)
{
	struct dev_clock *c = dev_clock_slot(ctx, clock);
	ktime_t first;
	u32 seq;

	dev_clock_lock(ctx);
	seq = ++c->seq;
	c->added = KTIME_MAX;
	dev_clock_unlock(ctx);
	if (!tempo_delayq_peek(c->q, &first))
		first = KTIME_MAX;
	dev_clock_lock(ctx);
	if (c->seq == seq)
		dev_proxy_place(ctx, c, min(first, c->added));
	dev_clock_unlock(ctx);
}

/*
 * dev_clock_arm()'s work, under clk_lock when @own (the clock's own queue):
 * the checks, then a move within one queue or a remove and a put.
 */
static unsigned int dev_clock_arm_locked(struct tempo_ctx *ctx, u8 clock, bool own,
					 struct tempo_delayq_node *const *nodes,
					 const ktime_t *deadlines, unsigned int n,
					 struct dev_item *old, tempo_delayq_requeue_fn fn,
					 void *arg, int *errp)
{
	ktime_t d;

	if (old && dev_clock_ended(ctx, old)) {
		/* Refused while its record waits; gone once that was read or withdrawn. */
		*errp = tempo_delayq_query(dev_clock_queue(ctx, old->clock), &old->dq, &d) < 0 ?
			-ENOENT : -ECANCELED;
		return 0;
	}
	*errp = -ECANCELED;
	if (own && dev_clock_refuses(ctx, clock))
		return 0;
	*errp = -ENOENT;
	if (old && dev_clock_queue(ctx, old->clock) == dev_clock_queue(ctx, clock)) {
		/* The same queue: moved in one critical section, with its record's fields. */
		int err = own ? dev_clock_requeue(ctx, clock, nodes[0], deadlines[0], fn, arg) :
				tempo_delayq_requeue(ctx->q, nodes[0], deadlines[0], fn, arg);

		/* What put refuses (a clock set back since the batch's reading) as below. */
		if (err != -ERANGE && err != -ESHUTDOWN) {
			*errp = err;
			return !err;
		}
	}
	if (old) {
		if (!tempo_delayq_remove(dev_clock_queue(ctx, old->clock), &old->dq))
			return 0;
		fn(&old->dq, arg);
	}
	*errp = 0;
	return own ? dev_clock_put_many(ctx, clock, nodes, deadlines, n, errp) :
		     tempo_delayq_put_many(ctx->q, nodes, deadlines, n, errp);
}

/**
 * dev_clock_arm() - queue timers of a clock, or move one timer to it
 * @ctx: the file
 * @clock: their enum dev_clk
 * @nodes: their items (one, for a re-arm)
 * @deadlines: in the clock (dev_clock_deadline())
 * @n: how many
 * @old: for a re-arm, the timer's item (@nodes[0]'s); NULL for new timers
 * @fn: for a re-arm, what the timer takes of its new spec (its @clock
 *	among it): called under the queue's lock if it moves within one
 *	queue (tempo_delayq_requeue()), else once it has left its old queue
 * @arg: passed to @fn
 * @errp: as tempo_delayq_put_many()'s
 *
 * The items go on the event queue or, under clk_lock, on the clock's own
 * (its proxy moved; the COS check and the put in one section,
 * dev_clock_put_many()). A re-arm does nothing if the timer is not queued
 * (-ENOENT), or if a clock set ended it and its record waits (-ECANCELED);
 * else it moves to its new deadline, in one critical section of its queue
 * if @clock keeps it there, else leaving its old queue for the new one, and
 * the old queue's proxy, if it has one, is settled (dev_clock_settle()).
 * -ECANCELED, with nothing done, for an arm into CANCEL_ON_SET the clock
 * refuses.
 *
 * Context: process context, under ctl_lock; clk_lock not held.
 * Return: as tempo_delayq_put_many().
 */
unsigned int dev_clock_arm(struct tempo_ctx *ctx, u8 clock,
			   struct tempo_delayq_node *const *nodes, const ktime_t *deadlines,
			   unsigned int n, struct dev_item *old, tempo_delayq_requeue_fn fn,
			   void *arg, int *errp)
{
	u8 from = old ? old->clock : DEV_CLK_MONO;
	unsigned int put;

	lockdep_assert_held(&ctx->ctl_lock);
	if (dev_clock_queue(ctx, clock) == ctx->q) {
		put = dev_clock_arm_locked(ctx, clock, false, nodes, deadlines, n, old, fn, arg,
					   errp);
	} else {
		dev_clock_lock(ctx);
		put = dev_clock_arm_locked(ctx, clock, true, nodes, deadlines, n, old, fn, arg,
					   errp);
		dev_clock_unlock(ctx);
	}
	if (unlikely(from == DEV_CLK_REAL_REL || clock == DEV_CLK_REAL_REL)) {
		/* The count of relative REALTIME timers on ctx->q (fdinfo). */
		if (from == DEV_CLK_REAL_REL && *errp != -ECANCELED && *errp != -ENOENT)
			atomic_dec(&ctx->nreal_rel);
		if (clock == DEV_CLK_REAL_REL)
			atomic_add(put, &ctx->nreal_rel);
	}
	/* A re-arm that moved a timer of a clock's own queue, out of it or in it. */
	if (unlikely(from >= DEV_CLK_BOOT) && *errp != -ECANCELED && *errp != -ENOENT)
		dev_clock_settle(ctx, from);
	return put;
}

/*
 * tempo_delayq_remove_many() for @nodes[0..@n) on several queues: one lock
 * round trip per queue, as if in turn; @removed[] as it has it.
 */
static unsigned int dev_clock_remove_queues(struct tempo_ctx *ctx,
					    struct tempo_delayq_node *const *nodes,
					    unsigned int n, bool *removed)
{
	struct tempo_delayq_node *part[DEV_CANCEL_CHUNK];
	struct tempo_delayq *qs[DEV_CANCEL_CHUNK], *q;
	bool got[DEV_CANCEL_CHUNK];
	unsigned int i, j, m, done = 0;

	for (j = 0; j < n; j++) {
		qs[j] = dev_clock_queue(ctx, container_of(nodes[j], struct dev_item, dq)->clock);
		removed[j] = false;
	}
	/* Each pass takes the queue of the first timer not yet looked for. */
	for (i = 0; i < n; i++) {
		q = qs[i];
		if (!q)
			continue;
		for (j = i, m = 0; j < n; j++)
			if (qs[j] == q)
				part[m++] = nodes[j];
		done += tempo_delayq_remove_many(q, part, m, got);
		for (j = i, m = 0; j < n; j++) {
			if (qs[j] != q)
				continue;
			removed[j] = got[m++];
			qs[j] = NULL;
		}
	}
	return done;
}

/**
 * dev_clock_cancel() - take timers out of their clocks' queues
 * @ctx: the file
 * @nodes: the timers' items, of any clocks
 * @n: how many, at most DEV_CANCEL_CHUNK
 * @removed: set for each item taken out; false for one not queued (its
 *	record read or withdrawn, or a free slot)
 *
 * One lock round trip per queue the timers are on (the event queue alone,
 * but for timers of other clocks), as if cancelled in turn. Then what their
 * leaving changes: the count of relative REALTIME timers (fdinfo), and once
 * per clock, the proxy of its queue, settled (dev_clock_settle(): it stood
 * for a time no later than theirs). The slots stay the caller's.
 *
 * Context: process context, under ctl_lock; clk_lock not held.
 * Return: how many were removed.
 */
unsigned int dev_clock_cancel(struct tempo_ctx *ctx, struct tempo_delayq_node *const *nodes,
			      unsigned int n, bool *removed)
{
	unsigned int j, done, rel = 0;
	unsigned long clocks = 0;
	u8 clock;

	lockdep_assert_held(&ctx->ctl_lock);
	if (!n)
		return 0;
	/* A file with no other clock's queue (most): one pass, as before clocks. */
	if (likely(list_empty(&ctx->clk_link)))
		done = tempo_delayq_remove_many(ctx->q, nodes, n, removed);
	else
		done = dev_clock_remove_queues(ctx, nodes, n, removed);
	for (j = 0; j < n; j++) {
		if (!removed[j])
			continue;
		clock = container_of(nodes[j], struct dev_item, dq)->clock;
		rel += clock == DEV_CLK_REAL_REL;
		if (clock >= DEV_CLK_BOOT)
			clocks |= BIT(clock);
	}
	if (unlikely(rel))
		atomic_sub(rel, &ctx->nreal_rel);
	for_each_set_bit(j, &clocks, DEV_CLK_NR)
		dev_clock_settle(ctx, j);
	return done;
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
 * Consumes the queue with @fn (copying records out), then settles the
 * proxy (dev_clock_settle()).
 *
 * Context: process context (read()), no lock held.
 * Return: tempo_delayq_consume()'s result, or -EAGAIN if @max is 0.
 */
int dev_clock_read_one(struct tempo_ctx *ctx, unsigned int i, tempo_delayq_consume_fn fn,
		       void *arg, unsigned int max, bool *ended, u32 *gen)
{
	struct dev_clock *c = &ctx->clk[i];
	int ret = -EAGAIN;

	dev_clock_lock(ctx);
	*ended = dev_clock_now_due(ctx, c);
	*gen = ctx->cos_gen;
	dev_clock_unlock(ctx);
	if (max)
		ret = tempo_delayq_consume(c->q, fn, arg, max, *ended ? TEMPO_DELAYQ_ALL : 0);
	dev_clock_settle(ctx, c->clock);
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
 * A walk's visit of one file, under dev_clock_files_lock: place every
 * standing proxy again through the offsets of now. Return: whether the
 * file's waiters must be told (a proxy the change made due), which the
 * caller does once it has dropped dev_clock_files_lock.
 */
static bool dev_clock_visit(struct tempo_ctx *ctx)
{
	struct dev_clock *c;
	unsigned int i;
	bool announce;

	spin_lock(&ctx->clk_lock);
	for (i = 0; i < DEV_CLK_QUEUES; i++) {
		c = &ctx->clk[i];
		if (c->first != KTIME_MAX && c->clock != DEV_CLK_DEFER &&
		    dev_proxy_place(ctx, c, c->first))
			atomic64_inc(&dev_clock_moves);
	}
	announce = ctx->clk_announce;
	ctx->clk_announce = false;
	spin_unlock(&ctx->clk_lock);
	return announce;
}

/*
 * The clock core's chain, after a clock was set or the machine resumed:
 * visit every file with a clock queue once, one at a time, with a cursor
 * in the list; wake the waiters of those it made ready with no lock of ours
 * held ("Clock changes" above). Never runs twice at once (one work item).
 */
static int dev_clock_changed(struct notifier_block *nb, unsigned long unused, void *data)
{
	struct list_head cursor;
	struct tempo_ctx *ctx;
	bool announce;

	atomic64_inc(&dev_clock_walks);
	mutex_lock(&dev_clock_files_lock);
	list_add(&cursor, &dev_clock_files);
	while (cursor.next != &dev_clock_files) {
		ctx = list_entry(cursor.next, struct tempo_ctx, clk_link);
		list_move(&cursor, &ctx->clk_link);
		announce = dev_clock_visit(ctx);
		atomic64_inc(&dev_clock_visits);
		/* Listed now: dev_clock_release() waits until we let go of it. */
		if (announce)
			WRITE_ONCE(dev_clock_pinned, ctx);
		mutex_unlock(&dev_clock_files_lock);
		if (announce) {
			tempo_delayq_announce(ctx->q);
			atomic64_inc(&dev_clock_wakes);
			WRITE_ONCE(dev_clock_pinned, NULL);
			wake_up_all(&dev_clock_pin_wait);
		}
		cond_resched();
		mutex_lock(&dev_clock_files_lock);
	}
	list_del(&cursor);
	mutex_unlock(&dev_clock_files_lock);
	return NOTIFY_DONE;
}

static struct notifier_block dev_clock_nb = {
	.notifier_call = dev_clock_changed,
};

/* A new file: no clock queue yet. */
void dev_clock_ctx_init(struct tempo_ctx *ctx)
{
	struct dev_clock *c;
	unsigned int i;

	spin_lock_init(&ctx->clk_lock);
	INIT_LIST_HEAD(&ctx->clk_link);
	for (i = 0; i < DEV_CLK_QUEUES; i++) {
		c = &ctx->clk[i];
		tempo_delayq_node_init(&c->proxy.dq);
		c->proxy.kind = DI_CLOCK;
		c->first = KTIME_MAX;
		c->at = KTIME_MAX;
		c->added = KTIME_MAX;
		c->clock = DEV_CLK_BOOT + i;
	}
	tempo_timer_init(&ctx->defer_timer, dev_defer_timer_fired, TEMPO_TIMER_DEFERRABLE);
}

/* What a clock queue hands back at release: timers, whose slots are ctx's. */
static void dev_clock_item_release(struct tempo_delayq_node *node, void *arg)
{
}

/**
 * dev_clock_release() - release()'s part: the file's clocks go
 * @ctx: the file, which no call reaches any more
 *
 * First off the list, so that no walk reaches the file, and no walk still
 * wakes its waiters (it pinned the file while listed, under the lock: one
 * wake-up of this file's waiters at most). Then the deferrable timer, which
 * puts on ctx->q, is shut down; so after the list and the timer nothing
 * moves a proxy, and the clocks' queues go, each timer's slot left to the
 * file. A proxy still on ctx->q is not a record: ctx->q's destroy hands it
 * back for nothing.
 *
 * Context: process context; before ctx->q is destroyed.
 */
void dev_clock_release(struct tempo_ctx *ctx)
{
	unsigned int i;

	mutex_lock(&dev_clock_files_lock);
	if (!list_empty(&ctx->clk_link))
		list_del_init(&ctx->clk_link);
	mutex_unlock(&dev_clock_files_lock);
	wait_event(dev_clock_pin_wait, READ_ONCE(dev_clock_pinned) != ctx);
	tempo_timer_shutdown_sync(&ctx->defer_timer);
	for (i = 0; i < DEV_CLK_QUEUES; i++)
		if (ctx->clk[i].q)
			tempo_delayq_destroy(ctx->clk[i].q, dev_clock_item_release, NULL);
}

/*
 * fdinfo: the file's live timers of each clock but MONOTONIC's, which has the
 * rest of "timers" (dev.c): CLOCK_BOOTTIME; CLOCK_REALTIME, absolute and
 * relative (a relative one is a timer of ctx->q, counted in
 * ctx->nreal_rel); CLOCK_REALTIME with TEMPO_ARM_CANCEL_ON_SET;
 * CLOCK_MONOTONIC with TEMPO_ARM_DEFERRABLE; and the alarms of
 * CLOCK_BOOTTIME and CLOCK_REALTIME.
 */
void dev_clock_fdinfo(struct seq_file *m, struct tempo_ctx *ctx)
{
	static const char * const names[DEV_CLK_QUEUES] = {
		"boottime", "realtime", "realtime_cancel_on_set", "monotonic_deferrable",
		"boottime_alarm", "realtime_alarm"
	};
	unsigned int i, n, ready;
	bool due;

	for (i = 0; i < DEV_CLK_QUEUES; i++) {
		n = dev_clock_queued(ctx, i, &ready, &due);
		if (ctx->clk[i].clock == DEV_CLK_REAL)
			n += max(atomic_read(&ctx->nreal_rel), 0);
		seq_printf(m, "timers_%s:\t%u\n", names[i], n);
	}
}

static int dev_clock_stats_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "walks %lld\nvisits %lld\nmoves %lld\nwakes %lld\n",
		   (s64)atomic64_read(&dev_clock_walks), (s64)atomic64_read(&dev_clock_visits),
		   (s64)atomic64_read(&dev_clock_moves), (s64)atomic64_read(&dev_clock_wakes));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(dev_clock_stats);

/*
 * debugfs "dev_clock": the walks after clock changes, the files they
 * visited, the proxies they moved and the files whose waiters they woke.
 */
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
