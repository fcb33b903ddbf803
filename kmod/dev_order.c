// SPDX-License-Identifier: GPL-2.0
/*
 * tempo: /dev/tempo's ordered stream.
 *
 * This file owns a file's ordering domain of kmod/order.c, created on first
 * use, and the ordered ioctls: TICKET, SUBMIT, TRASH, SKIP, SINK and FLUSH.
 * A ticket ownership table lets userspace run or trash only the tickets this
 * file issued, each once (a ticket's record is made after the domain issued
 * it, and never replaces a newer ticket's: dev_ticket_record()). A
 * submission (struct tempo_osub) completes in ticket order
 * (dev_order_complete()) and either becomes an item put due on the file's
 * delay queue, read as a record by dev.c, or is queued for the sink, a file
 * that the calling threads write it to.
 *
 * The sink. An ordered completion runs in whichever thread completes the
 * sequence: a caller of ours, or, for the rest of a streak longer than the
 * ordered scheduler's fairness bound, its workqueue. So a completion does no
 * I/O: it queues the submission on ctx->sink_q (or, with no sink, frees the
 * data and queues a record). Only two kinds of call write what is queued,
 * each in the calling thread and only because it asked to: a submit, trash
 * or skip whose call completed a run of the sequence (the core returned 1:
 * it held the head) writes up to TEMPO_SINK_BUDGET queued completions, the
 * fairness bound, so about what it ran; and TEMPO_IOC_ORDER_FLUSH writes them
 * all (TEMPO_IOC_ORDER_SINK too, before it switches). Nothing else does:
 * not read(), poll(), TEMPO_IOC_STATS, a ticket, io_uring, a kernel thread,
 * nor release(), which may run in do_exit() or in another process that
 * dropped a passed fd: it drops what is left, counted
 * (dev_mstat.sink_dropped). Each write is a vectored write (vfs_iter_write())
 * of up to TEMPO_SINK_IOV consecutive completions in that thread
 * (dev_sink_write()): its credentials, rlimits, LSM checks and signals, and
 * the sink's own O_NONBLOCK, as its write(2) would be. A write that blocks
 * on a full pipe blocks its caller interruptibly; sink_lock is taken
 * killably (only if free, for an O_NONBLOCK file); a write interrupted by a
 * signal, or refused with EAGAIN, resumes from ctx->sink_off at the next
 * call that writes. While completions wait, poll() reports EPOLLOUT.
 *
 * Locks. ctx->order_lock creates the domain once, and a release store
 * publishes it (dev_order_get()); the ticket table moves with atomics only.
 * ctx->sink_lock (a mutex) serialises sink writes and guards the sink's
 * position in the queue (sink_off); ctx->sink_qlock (a spinlock) guards the
 * sink queue and the sink pointer; a sink change holds both. Nesting:
 * sink_lock -> f_pos_lock of the sink; sink_lock -> sink_qlock. Completions
 * of one context never run concurrently (the order core runs them in
 * turn); one takes sink_qlock, or the delay queue's lock inside its calls.
 *
 * Limits: a submission's size (max_data), a file's unread ordered records
 * (max_events: beyond it a completion is counted in the file's loss report,
 * dev_lost_queue()), the window (order_window), and the user's queued bytes
 * (dev_user.c).
 */

#include <linux/atomic.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/sched/xacct.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/uio.h>

#include <tempo/delayq.h>
#include <tempo/order.h>
#include <uapi/tempo.h>

#include "compat.h"
#include "dev.h"
#include "testing.h"

static unsigned int max_events = 1 << 16;
module_param(max_events, uint, 0644);
MODULE_PARM_DESC(max_events, "unread ordered records per file before they are reported lost (default 65536)");

static unsigned int order_window = 1024;
module_param(order_window, uint, 0644);
MODULE_PARM_DESC(order_window, "ordering window per file, rounded up to a power of two, 2..65536 (default 1024)");

static unsigned int max_data = 1 << 16;
module_param(max_data, uint, 0644);
MODULE_PARM_DESC(max_data, "largest ordered submission, bytes, at most 1 MiB (default 65536)");

#define TEMPO_MAX_DATA_CAP	BIT(20)
#define TEMPO_MAX_WINDOW	BIT(16)
#define TEMPO_SINK_BUDGET	TEMPO_ORDER_DEFAULT_STREAK /* sink writes per call */
#define TEMPO_SINK_IOV		16	/* completions per vectored sink write */
#define TEMPO_OSUB_INLINE	256	/* data this small shares the submission's allocation */

unsigned int dev_limit_events(void)
{
	return READ_ONCE(max_events);
}

unsigned int dev_limit_data(void)
{
	return min_t(u32, READ_ONCE(max_data), TEMPO_MAX_DATA_CAP);
}

unsigned int dev_limit_window(void)
{
	unsigned int w = clamp_t(u32, READ_ONCE(order_window), 2, TEMPO_MAX_WINDOW);

	return roundup_pow_of_two(w);
}

/* Small data sits in the submission's own allocation, after it. */
static bool dev_osub_inline(const struct tempo_osub *os)
{
	return os->data == (const u8 *)(os + 1);
}

/* Free a submission and what it charged: at its record's read, a drop, or a failed run. */
void dev_osub_free(struct tempo_ctx *ctx, struct tempo_osub *os)
{
	atomic64_dec(&dev_mstat.submissions);
	atomic64_sub(os->charged, &dev_mstat.bytes);
	dev_user_uncharge(ctx->user, DU_BYTES, os->charged);
	if (!dev_osub_inline(os))
		kvfree(os->data);
	kfree(os);
}

static struct tempo_order *dev_order_get(struct tempo_ctx *ctx)
{
	struct tempo_order *o;
	atomic64_t *slots;
	u32 window;

	/* LMM(dev_order_get:A) Pairs with LMM(dev_order_get:B): sees slots. */
	o = smp_load_acquire(&ctx->order);
	if (o)
		return o;

	if (mutex_lock_killable(&ctx->order_lock))
		return ERR_PTR(-EINTR);
	o = ctx->order;
	if (o)
		goto out_unlock;
	window = dev_limit_window();
	slots = kvcalloc(window, sizeof(*slots), DEV_GFP);
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

/*
 * Record that this file issued ticket @t, in the slot of the ownership table
 * it shares with every ticket a window apart. Until the record is made,
 * another thread of the file may pass @t: a skip trashes it, the window moves
 * on, and a ticket of the same slot is issued and recorded first. So a record
 * never replaces a newer ticket's (tickets wrap: signed difference). One that
 * replaces an older ticket's is right: the window finished that ticket before
 * the domain issued @t. A record of a ticket already finished is harmless: its
 * submit or trash fails in the domain with EINVAL, as after a trash.
 */
static void dev_ticket_record(struct tempo_ctx *ctx, u64 t)
{
	atomic64_t *slot = &ctx->slots[t & (ctx->window - 1)];
	s64 v = atomic64_read(slot);

	do {
		/* v - 1: the ticket recorded there, if any (0: none). */
		if (v && (s64)(v - 1 - t) > 0)
			return;
	} while (!atomic64_try_cmpxchg(slot, &v, t + 1));
}

/* Claim an issued ticket for its one submit or trash; false if not ours. */
static bool dev_ticket_claim(struct tempo_ctx *ctx, u64 ticket)
{
	atomic64_t *slot = &ctx->slots[ticket & (ctx->window - 1)];

	if (ticket == U64_MAX)	/* ticket + 1 would read as a free slot */
		return false;
	return atomic64_cmpxchg(slot, ticket + 1, 0) == ticket + 1;
}

/*
 * What a sink may be: a regular file, a FIFO (pipes included) or a character
 * device (a tty, say), written with write_iter as write(2) would. None of
 * these can hold a file reference through what is written to them, so a sink
 * can never keep its own tempo file (or another's) alive in a cycle, as a
 * unix socket passing the tempo fd with SCM_RIGHTS would. Never a tempo file.
 */
static int dev_sink_check(struct file *f)
{
	umode_t mode = file_inode(f)->i_mode;

	if (!(f->f_mode & FMODE_WRITE))
		return -EBADF;
	if (!S_ISREG(mode) && !S_ISFIFO(mode) && !S_ISCHR(mode))
		return -EINVAL;
	/* What a vectored kernel write accepts (__kernel_write_iter()). */
	if (!(f->f_mode & FMODE_CAN_WRITE) || !f->f_op->write_iter || f->f_op->write ||
	    f->f_op == &tempo_dev_fops)
		return -EINVAL;
	return 0;
}

/* A sink error as userspace may see it: never a kernel-internal errno. */
static int dev_sink_errno(ssize_t ret)
{
	if (ret >= 0)
		return -EIO;	/* a write that made no progress */
	if (ret == -ERESTARTSYS || ret == -ERESTARTNOINTR || ret == -ERESTARTNOHAND ||
	    ret == -ERESTART_RESTARTBLOCK)
		return -EINTR;
	return ret;
}

/*
 * Write @n completions from the head of the sink queue (@v, the first from
 * ctx->sink_off) to the sink, in the calling thread and as writev(2) of that
 * thread would: its credentials, rlimits (RLIMIT_FSIZE: EFBIG and SIGXFSZ),
 * LSM checks and signals (SIGPIPE), the file position updated under
 * f_pos_lock as fdget_pos() does for a regular file, none for a stream. One
 * vectored write takes them all, again from where a short one stopped.
 * Under sink_lock.
 *
 * Return: how many of @v are done with (written, or failed and counted).
 * *@errp is 0, or -EINTR when a signal interrupted the write, -EAGAIN when
 * the sink would block (an O_NONBLOCK sink, full): then the first not done
 * stays at the head of the queue, from ctx->sink_off, for a later call.
 */
static unsigned int dev_sink_write(struct tempo_ctx *ctx, struct tempo_osub **v,
				   unsigned int n, int *errp)
{
	struct file *sink = ctx->sink;
	bool pos_lock = sink->f_mode & FMODE_ATOMIC_POS;
	struct kvec iov[TEMPO_SINK_IOV];
	loff_t pos = 0, *ppos = NULL;
	unsigned int done = 0, i;
	struct iov_iter iter;
	size_t total, left;
	ssize_t ret = 0;
	int err;

	lockdep_assert_held(&ctx->sink_lock);
	*errp = 0;
	if (pos_lock && mutex_lock_killable(&sink->f_pos_lock)) {
		*errp = -EINTR;
		return 0;
	}
	if (!(sink->f_mode & FMODE_STREAM)) {
		pos = sink->f_pos;
		ppos = &pos;
	}
	for (;;) {
		while (done < n && ctx->sink_off >= v[done]->len) {
			done++;
			ctx->sink_off = 0;
		}
		if (done == n)
			break;
		total = 0;
		for (i = done; i < n; i++) {
			size_t off = i == done ? ctx->sink_off : 0;

			iov[i - done].iov_base = v[i]->data + off;
			iov[i - done].iov_len = v[i]->len - off;
			total += v[i]->len - off;
		}
		iov_iter_kvec(&iter, ITER_SOURCE, iov, n - done, total);
		/* Freeze protection within (6.8's; compat.h before). */
		ret = vfs_iter_write(sink, &iter, ppos, 0);
		inc_syscw(current);
		if (ret <= 0)
			break;
		add_wchar(current, ret);
		atomic64_add(ret, &ctx->st.sink_bytes);
		for (; ret > 0; done++, ctx->sink_off = 0) {
			left = v[done]->len - ctx->sink_off;
			if (ret < left) {
				ctx->sink_off += ret;
				break;
			}
			ret -= left;
		}
	}
	if (ppos)
		sink->f_pos = pos;
	if (pos_lock)
		mutex_unlock(&sink->f_pos_lock);

	if (done < n) {
		err = dev_sink_errno(ret);
		/* Interrupted or would block, not failed: go on later. */
		if (err == -EAGAIN || (err == -EINTR && signal_pending(current))) {
			*errp = err;
			return done;
		}
		/* This one failed: counted, and its data dropped. */
		atomic64_inc(&ctx->st.sink_errors);
		WRITE_ONCE(ctx->sink_last_error, err);
		ctx->sink_off = 0;
		done++;
	}
	return done;
}

/*
 * Write up to @budget completions waiting on the sink queue, in ticket order,
 * from the calling thread (dev_sink_write()), TEMPO_SINK_IOV at a time.
 *
 * Return: 0, or -EINTR if a signal stopped it, -EAGAIN if the sink would
 * block, with completions left.
 */
static int dev_sink_flush_locked(struct tempo_ctx *ctx, unsigned int budget)
{
	struct tempo_osub *v[TEMPO_SINK_IOV], *os;
	unsigned int n, done, i;
	int err = 0;

	lockdep_assert_held(&ctx->sink_lock);
	while (budget) {
		n = 0;
		spin_lock(&ctx->sink_qlock);
		list_for_each_entry(os, &ctx->sink_q, sink) {
			v[n++] = os;
			if (n == min_t(unsigned int, budget, TEMPO_SINK_IOV))
				break;
		}
		spin_unlock(&ctx->sink_qlock);
		if (!n)
			break;
		/* Only sink_lock's holder takes from the head: @v stays there. */
		done = dev_sink_write(ctx, v, n, &err);
		spin_lock(&ctx->sink_qlock);
		for (i = 0; i < done; i++)
			list_del(&v[i]->sink);
		/* Marked: dev_sink_flush() peeks without the lock. */
		WRITE_ONCE(ctx->sink_queued, ctx->sink_queued - done);
		spin_unlock(&ctx->sink_qlock);
		for (i = 0; i < done; i++)
			dev_osub_free(ctx, v[i]);
		budget -= done;
		if (err)
			break;
		if (fatal_signal_pending(current)) {
			err = -EINTR;
			break;
		}
		cond_resched();
	}
	return err;
}

/*
 * The sink writes of an explicit call (see "The sink" at the top of the file):
 * up to @budget completions, by the calling thread. @nonblock (an O_NONBLOCK
 * file): never wait for another thread's sink write, -EAGAIN.
 *
 * Return: as dev_sink_flush_locked(); -EINTR also for a fatal signal while
 * waiting for sink_lock.
 */
static int dev_sink_flush(struct tempo_ctx *ctx, unsigned int budget, bool nonblock)
{
	int err;

	if (!READ_ONCE(ctx->sink_queued))
		return 0;
	if (nonblock ? !mutex_trylock(&ctx->sink_lock) : mutex_lock_killable(&ctx->sink_lock))
		return nonblock ? -EAGAIN : -EINTR;
	err = dev_sink_flush_locked(ctx, budget);
	mutex_unlock(&ctx->sink_lock);
	return err;
}

/*
 * Count a completion once its effect (the record, the sink queue entry, or
 * the lost count) is in place, so that whoever sees "completed" reach N finds
 * the N-th: dev_stats_ctx() reads completed first.
 */
static void dev_count_completed(struct tempo_ctx *ctx)
{
	/* LMM(dev_count_completed:A): pairs with dev_stats_ctx:A. */
	smp_wmb();
	atomic64_inc(&ctx->st.completed);
	atomic64_inc(&dev_mstat.completed);
}

/*
 * The completion, in ticket order, never concurrently with another of this
 * context, in whatever thread completes the sequence: a caller of ours, or
 * the ordered scheduler's workqueue for the rest of a long streak. So it does
 * no I/O and never sleeps: with a sink it queues @os for a calling thread to
 * write; without, it frees the data (a record reports only the length) and
 * queues the record.
 */
static void dev_order_complete(void *arg)
{
	struct tempo_osub *os = arg;
	struct tempo_ctx *ctx = os->ctx;
	bool first;

	os->completed = ktime_get_ns();

	spin_lock(&ctx->sink_qlock);
	if (ctx->sink) {
		list_add_tail(&os->sink, &ctx->sink_q);
		/* Marked: poll() and dev_sink_flush() peek without the lock. */
		WRITE_ONCE(ctx->sink_queued, ctx->sink_queued + 1);
		first = ctx->sink_queued == 1;
		spin_unlock(&ctx->sink_qlock);
		/* Pollers learn that a thread is wanted (EPOLLOUT); readers sleep on. */
		if (first)
			wake_up_poll(tempo_delayq_waitqueue(ctx->q), EPOLLOUT | EPOLLWRNORM);
		dev_count_completed(ctx);
		return;
	}
	spin_unlock(&ctx->sink_qlock);

	/*
	 * A record: the data goes now and the record alone stays charged (data
	 * in the submission's own allocation stays, charged, until the record
	 * goes). A sink set meanwhile does not matter: this completion was
	 * decided before it, and no other completion of ours runs until we
	 * return.
	 */
	if (os->data && !dev_osub_inline(os)) {
		kvfree(os->data);
		os->data = NULL;
		atomic64_sub(os->len, &dev_mstat.bytes);
		dev_user_uncharge(ctx->user, DU_BYTES, os->len);
		os->charged -= os->len;
	}
	/*
	 * Completions of one context never run concurrently: nready_order
	 * only grows here, so the check holds until the put. The record is
	 * put due now, after every record of an earlier ticket (a later clock
	 * reading; ties keep put order): read in ticket order.
	 */
	if (atomic_read(&ctx->nready_order) < dev_limit_events()) {
		atomic_inc(&ctx->nready_order);
		if (!WARN_ON_ONCE(tempo_delayq_put(ctx->q, &os->item.dq, 0))) {
			dev_count_completed(ctx);
			return;
		}
		atomic_dec(&ctx->nready_order);
	}
	/* No room for the record: the file's loss report counts it. */
	dev_lost_queue(ctx);
	dev_osub_free(ctx, os);
	dev_count_completed(ctx);
}

long dev_ioc_ticket(struct tempo_ctx *ctx, void __user *arg)
{
	struct tempo_order *o;
	struct tempo_ticket tk;
	u32 want = 1, i;
	u64 t;
	int n;

	if (copy_from_user(&tk, arg, sizeof(tk)))
		return -EFAULT;
	if (tk.flags & ~TEMPO_TICKET_FLAGS)
		return -EINVAL;
	if (tk.flags & TEMPO_TICKET_MANY) {
		if (!tk.count || tk.count > TEMPO_TICKET_MANY_MAX)
			return -EINVAL;
		want = tk.count;
	} else if (tk.reserved) {
		return -EINVAL;
	}
	o = dev_order_get(ctx);
	if (IS_ERR(o))
		return PTR_ERR(o);

	if (tk.flags & TEMPO_TICKET_NONBLOCK)
		n = tempo_order_tickets_try(o, want, &t);
	else
		n = tempo_order_tickets(o, want, &t);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		tempo_test_point(TEMPO_TP_DEV_TICKET_TAKEN, ctx, t + i, 0);
		dev_ticket_record(ctx, t + i);
	}
	atomic64_add(n, &ctx->st.tickets);

	tk.ticket = t;
	if (tk.flags & TEMPO_TICKET_MANY)
		tk.count = n;
	if (copy_to_user(arg, &tk, sizeof(tk))) {
		for (i = 0; i < n; i++)
			if (dev_ticket_claim(ctx, t + i) && tempo_order_trash(o, t + i) >= 0)
				atomic64_inc(&ctx->st.trashed);
		return -EFAULT;
	}
	return 0;
}

long dev_ioc_submit(struct tempo_ctx *ctx, void __user *arg, bool nonblock)
{
	struct tempo_order *o = smp_load_acquire(&ctx->order); /* LMM(dev_order_get:A) */
	struct tempo_submit sb;
	struct tempo_osub *os;
	u32 charge, inline_len;
	int ret;

	if (copy_from_user(&sb, arg, sizeof(sb)))
		return -EFAULT;
	if (sb.flags || sb.len > dev_limit_data() || !o)
		return -EINVAL;

	/* The submission and its record, until the record is read. */
	charge = sizeof(*os) + sb.len;
	if (!dev_user_charge(ctx->user, DU_BYTES, charge, dev_user_limit(DU_BYTES)))
		return -ENOSPC;
	ret = -ENOMEM;
	inline_len = sb.len <= TEMPO_OSUB_INLINE ? sb.len : 0;
	os = kzalloc(sizeof(*os) + inline_len, DEV_GFP);
	if (!os)
		goto err_uncharge;
	os->charged = charge;
	if (sb.len) {
		os->data = inline_len ? (u8 *)(os + 1) : kvmalloc(sb.len, DEV_GFP);
		if (!os->data)
			goto err_free;
		ret = -EFAULT;
		if (copy_from_user(os->data, u64_to_user_ptr(sb.data), sb.len))
			goto err_free;
	}
	ret = -EINVAL;
	if (!dev_ticket_claim(ctx, sb.ticket))
		goto err_free;
	tempo_delayq_node_init(&os->item.dq);
	os->item.kind = DI_ORDER;
	os->ctx = ctx;
	os->ticket = sb.ticket;
	os->cookie = sb.cookie;
	os->len = sb.len;
	os->submitted = ktime_get_ns();
	atomic64_inc(&dev_mstat.submissions);
	atomic64_add(charge, &dev_mstat.bytes);
	atomic64_inc(&ctx->st.submitted);

	/*
	 * Claimed above, so no submit or trash of ours runs it; but a skip
	 * (tempo_order_trash_below()) may have trashed it meanwhile: EINVAL,
	 * as after a trash.
	 */
	ret = tempo_order_run(o, sb.ticket, dev_order_complete, os);
	if (ret < 0) {
		atomic64_dec(&ctx->st.submitted);
		dev_osub_free(ctx, os);
		return ret;
	}
	/* This call completed a run: it writes its share to the sink. */
	if (ret > 0)
		dev_sink_flush(ctx, TEMPO_SINK_BUDGET, nonblock);
	return 0;

err_free:
	if (!dev_osub_inline(os))
		kvfree(os->data);
	kfree(os);
err_uncharge:
	dev_user_uncharge(ctx->user, DU_BYTES, charge);
	return ret;
}

long dev_ioc_trash(struct tempo_ctx *ctx, void __user *arg, bool nonblock)
{
	struct tempo_order *o = smp_load_acquire(&ctx->order); /* LMM(dev_order_get:A) */
	struct tempo_ticket tk;
	int ret;

	if (copy_from_user(&tk, arg, sizeof(tk)))
		return -EFAULT;
	if (tk.flags || tk.reserved || !o || !dev_ticket_claim(ctx, tk.ticket))
		return -EINVAL;
	/*
	 * Claimed, so no submit or trash of ours races with us; but a skip
	 * may have trashed it meanwhile: EINVAL, as after a trash, and the
	 * skip counted it. Count only what this call trashed.
	 */
	ret = tempo_order_trash(o, tk.ticket);
	if (ret < 0)
		return ret;
	atomic64_inc(&ctx->st.trashed);
	/* It was the head and ran what was stored after it: as a submit. */
	if (ret > 0)
		dev_sink_flush(ctx, TEMPO_SINK_BUDGET, nonblock);
	return 0;
}

/*
 * Trash every open ticket below skip.end (TEMPO_IOC_ORDER_SKIP). The order
 * core checks @end and trashes the range (tempo_order_trash_below()); then
 * the ownership of each of our tickets in it is withdrawn, so a later
 * submit or trash of one gets EINVAL as after a trash. A submit that
 * claimed its ticket first and runs it after the skip gets EINVAL from the
 * core (dev_ioc_submit()).
 */
long dev_ioc_skip(struct tempo_ctx *ctx, void __user *arg, bool nonblock)
{
	struct tempo_skip __user *usk = arg;
	struct tempo_order *o;
	struct tempo_skip sk;
	int n;
	u32 i;
	u64 v;

	if (copy_from_user(&sk, arg, sizeof(sk)))
		return -EFAULT;
	if (sk.flags)
		return -EINVAL;
	/* The out field can be written, before anything changes. */
	if (put_user(0, &usk->trashed))
		return -EFAULT;
	o = dev_order_get(ctx);
	if (IS_ERR(o))
		return PTR_ERR(o);
	n = tempo_order_trash_below(o, sk.end);
	if (n < 0)
		return n;
	for (i = 0; i < ctx->window; i++) {
		v = atomic64_read(&ctx->slots[i]);
		/* Ticket v - 1 issued and open, below end (tickets wrap: s64). */
		if (v && (s64)(v - 1 - sk.end) < 0)
			dev_ticket_claim(ctx, v - 1);
	}
	atomic64_add(n, &ctx->st.trashed);
	/* The head may have been among them: as a trash of it. */
	if (n)
		dev_sink_flush(ctx, TEMPO_SINK_BUDGET, nonblock);
	/* Faults only if another thread unmapped it meanwhile: then it is done. */
	if (put_user(n, &usk->trashed))
		return -EFAULT;
	return 0;
}

/*
 * Set the sink. Completions already queued for the old sink are written to it
 * first, by this thread, as TEMPO_IOC_ORDER_FLUSH would: if a signal stops
 * that (EINTR) or the old sink would block (EAGAIN), nothing changes.
 */
long dev_ioc_sink(struct tempo_ctx *ctx, void __user *arg, bool nonblock)
{
	struct file *f = NULL, *old = NULL;
	struct tempo_sink sk;
	int err;

	if (copy_from_user(&sk, arg, sizeof(sk)))
		return -EFAULT;
	if (sk.flags || sk.reserved)
		return -EINVAL;
	if (sk.fd != -1) {
		f = fget(sk.fd);
		if (!f)
			return -EBADF;
		err = dev_sink_check(f);
		if (err)
			goto out_put;
	}
	err = nonblock ? -EAGAIN : -EINTR;
	if (nonblock ? !mutex_trylock(&ctx->sink_lock) : mutex_lock_killable(&ctx->sink_lock))
		goto out_put;
	for (;;) {
		err = dev_sink_flush_locked(ctx, UINT_MAX);
		if (err)
			break;
		/* A completion may have queued meanwhile: switch only when empty. */
		spin_lock(&ctx->sink_qlock);
		if (list_empty(&ctx->sink_q)) {
			old = ctx->sink;
			ctx->sink = f;
			f = NULL;
			ctx->sink_off = 0;
			WRITE_ONCE(ctx->sink_last_error, 0);
			spin_unlock(&ctx->sink_qlock);
			break;
		}
		spin_unlock(&ctx->sink_qlock);
	}
	mutex_unlock(&ctx->sink_lock);
out_put:
	if (f)
		fput(f);
	if (old)
		fput(old);
	return err;
}

/* Write every completion waiting for the sink (TEMPO_IOC_ORDER_FLUSH). */
long dev_ioc_flush(struct tempo_ctx *ctx, bool nonblock)
{
	return dev_sink_flush(ctx, UINT_MAX, nonblock);
}

/*
 * At release(), no ioctl running: trash every ticket issued and not yet
 * submitted, drop the domain (its last completions still put records on the
 * queue), then drop what still waits for the sink, counted, and the sink:
 * release() writes nothing.
 */
void dev_order_release(struct tempo_ctx *ctx)
{
	struct tempo_osub *os, *tmp;
	u32 i;
	u64 v;

	if (ctx->order) {
		for (i = 0; i < ctx->window; i++) {
			v = atomic64_read(&ctx->slots[i]);
			/* A record of a ticket a skip finished: the domain refuses it. */
			if (v && dev_ticket_claim(ctx, v - 1) &&
			    tempo_order_trash(ctx->order, v - 1) >= 0)
				atomic64_inc(&ctx->st.trashed);
		}
		tempo_order_destroy(ctx->order);
		kvfree(ctx->slots);
	}
	list_for_each_entry_safe(os, tmp, &ctx->sink_q, sink) {
		list_del(&os->sink);
		atomic64_inc(&dev_mstat.sink_dropped);
		dev_osub_free(ctx, os);
	}
	if (ctx->sink)
		fput(ctx->sink);
}
