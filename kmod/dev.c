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
 *   events    the file's delay queue (kmod/delayq.c), of struct dev_item:
 *             a timer slot's item, an ordered completion's, or the file's one
 *             loss report. Arming is put_at(), read() is consume() with a
 *             callback that copies each record out (dev_read_record()),
 *             cancel is remove(). The queue owns the records' order, the
 *             exclusive wake-ups and poll's EPOLLIN; dev.c keeps no list of
 *             records of its own. A timer *is* its pending event:
 *             a periodic timer is one item that consume() keeps queued with
 *             TEMPO_DELAYQ_AGAIN, its next deadline set by the read that
 *             takes its record, so the queue never holds more timer records
 *             than there are timers, and an unread periodic timer costs no
 *             callback at all: the read folds the periods that passed into
 *             the record's overrun count (dev_read_timer()).
 *   order     an ordering domain of kmod/order.c, created on first use, with a
 *             ticket ownership table so that userspace can only run or trash
 *             tickets this file issued, each once (a ticket's record is made
 *             after the domain issued it, and never replaces a newer
 *             ticket's: dev_ticket_record()); completions either become
 *             items put due on the delay queue or are written to a sink file.
 *
 * Locks. ctx->ctl_lock (a mutex) serialises the arm, cancel and query
 * ioctls of one context and guards the slot table and the slots' ids,
 * cookies and periods; the delay queue's own lock decides everything about
 * an item's place in the queue, and so who owns it: whoever takes a timer's
 * item out of the queue (a read's TAKE verdict, a cancel's successful
 * remove()) ends that timer, exactly once. ctx->sink_lock serialises sink
 * writes and guards the sink's position in the queue; ctx->sink_qlock (a
 * spinlock) guards the sink queue and the sink pointer; a sink change holds
 * both. Nesting: ctl_lock -> the queue's lock; sink_lock -> f_pos_lock of
 * the sink; sink_lock -> sink_qlock. The queue's lock is only ever taken
 * inside the delay queue's calls, and a consume callback takes no lock.
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
 * queue, which hands back every item still queued, before freeing the
 * table. The table (ctx->chunks) is read and grown only under ctl_lock.
 *
 * The loss report. An ordered completion beyond max_events adds to
 * ctx->lost and puts the file's one DI_LOST item, due at time 0 so that it
 * is read before every record already ready; a put of the item while it is
 * queued fails with EBUSY and the queued report will carry the count. The
 * read that takes the report subtracts what it reported, and then looks at
 * the count again (dev_read_settle()): a completion that added to it while
 * the report was being taken, and whose put found the item still queued,
 * is either seen there or its put finds the item free. A store-buffering
 * pair, LMM(dev_lost_queue:A) and LMM(dev_read_settle:A), proved by
 * tools/litmus/dev-lost-settle.litmus.
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
 * dropped a passed fd: it drops what is left, counted (mstat.sink_dropped).
 * Each write is kernel_write() in that thread (dev_sink_write()): its
 * credentials, rlimits, LSM checks and signals, and the sink's own
 * O_NONBLOCK, exactly as its write(2) would be. A write that blocks on a
 * full pipe blocks its caller interruptibly; sink_lock is taken killably
 * (only if free, for an O_NONBLOCK file); a write interrupted by a signal,
 * or refused with EAGAIN, resumes from ctx->sink_off at the next call that
 * writes. While completions wait, poll() reports EPOLLOUT.
 *
 * Security. Any local user may open /dev/tempo (mode 0666, as inotify and
 * timerfd are available to all), so everything a user can make the module
 * hold is bounded: per user (struct tempo_user, per user namespace and up
 * the namespaces' creators, as ucounts: open files, timer slots, queued
 * submission bytes, the batch copies of calls in flight; module
 * parameters), per file (max_timers, max_events, the window, max_data), and
 * charged to the opener's memory cgroup (ctx->memcg, entered for every
 * ioctl), failing with ENOMEM at its limit rather than waking its OOM
 * killer. Every user array is copied into the kernel once and decided and
 * applied from that copy. Every loop whose
 * length a user sets stops for a fatal signal and reschedules
 * (dev_loop_step()). The io_uring commands (tempo_dev_uring_cmd()) are the
 * arm and cancel ioctls under another name, with the same checks, limits
 * and accounting; they never write a sink. Nothing one context does waits
 * for another context's work: teardown waits only for its own
 * (tempo_order_destroy()), and never for I/O.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/compat.h>
#include <linux/cred.h>
#include <linux/debugfs.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/ktime.h>
#include <linux/llist.h>
#include <linux/log2.h>
#include <linux/memcontrol.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/poll.h>
#include <linux/random.h>
#include <linux/refcount.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/siphash.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <linux/user_namespace.h>
#include <linux/wait.h>

#include <tempo/delayq.h>
#include <tempo/timer.h>
#include <tempo/order.h>
#include <uapi/tempo.h>

#define TEMPO_COMPAT_URING_CMD	/* compat.h: the io_uring command entries */
#include "compat.h"
#include "dev.h"
#include "internal.h"
#include "testing.h"

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

/*
 * Per-user limits, counted per user namespace and effective uid of the
 * opener over all of that user's open files, and for a namespace's users
 * together at its creator's level too (as the kernel's ucounts count
 * inotify's and epoll's): what keeps a machine's memory safe when every
 * local user may open /dev/tempo (struct tempo_user).
 */
static unsigned int max_user_contexts = 128;
module_param(max_user_contexts, uint, 0644);
MODULE_PARM_DESC(max_user_contexts, "open files of /dev/tempo per user; open() fails with EMFILE beyond (default 128)");

static unsigned int max_user_timers = 1 << 16;
module_param(max_user_timers, uint, 0644);
MODULE_PARM_DESC(max_user_timers, "timer slots per user, over all files (a file keeps the slots of the most timers it held until close); arming fails with ENOSPC beyond (default 65536)");

static unsigned int max_user_bytes = 32 << 20;
module_param(max_user_bytes, uint, 0644);
MODULE_PARM_DESC(max_user_bytes, "bytes of ordered submissions queued per user (data and records); submit fails with ENOSPC beyond (default 32 MiB)");

static unsigned int max_user_copy_bytes = 64 << 20;
module_param(max_user_copy_bytes, uint, 0644);
MODULE_PARM_DESC(max_user_copy_bytes, "bytes of batch arrays a user's calls in flight hold in the kernel (arm, cancel and query copies; cancel by cookie's table); such a call fails with ENOSPC beyond (default 64 MiB)");

#define TEMPO_MAX_DATA_CAP	BIT(20)
#define TEMPO_MAX_WINDOW	BIT(16)
#define TEMPO_READ_CHUNK	128	/* records per pass of read(): one consume() */
#define TEMPO_SPEC_CHUNK	UT_CHUNK /* specs armed per loop step */
#define UT_CHUNK_SHIFT		8
#define UT_CHUNK		BIT(UT_CHUNK_SHIFT)	/* utimer slots per allocation */
#define TEMPO_CANCEL_CHUNK	32	/* keys per critical section */
#define DEV_PUT_CHUNK		16	/* new timers per delay-queue lock round trip */
#define TEMPO_SINK_BUDGET	TEMPO_ORDER_DEFAULT_STREAK /* sink writes per call */

/*
 * Everything allocated on behalf of a file is charged to the memory cgroup of
 * its opener (set_active_memcg(), as inotify does), and fails with ENOMEM at
 * that cgroup's limit instead of invoking the OOM killer.
 */
#define DEV_GFP		(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)
/* The same, for io_uring's non-blocking issue: no reclaim; -EAGAIN retries blocking. */
#define DEV_GFP_NOWAIT	(GFP_NOWAIT | __GFP_ACCOUNT | __GFP_NOWARN)

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
	atomic64_t dropped;	/* unread ordered records at close */
	atomic64_t sink_dropped; /* completions not yet written to the sink at close */
} mstat;

/* ---- per-user accounting -------------------------------------------- */

/*
 * What one user holds over all of its files, keyed as the kernel's ucounts
 * are (kernel/ucount.c): by user namespace and effective uid of the opener.
 * The users of a user namespace are charged as well, all together, to the
 * user that created it, in the parent namespace, and so on up to the
 * initial one; every level is held to the same limits. So a user who
 * delegates a range of uids to a namespace (or nests namespaces) gets each
 * limit once, not once per uid. Looked up at open(), held by each context
 * until release(); counts move with atomics only.
 */
enum dev_user_count {
	DU_CONTEXTS,	/* open files: max_user_contexts */
	DU_TIMERS,	/* timer slots: max_user_timers */
	DU_BYTES,	/* queued ordered submissions: max_user_bytes */
	DU_COPIES,	/* batch arrays held by calls in flight: max_user_copy_bytes */
	DU_NR
};

struct tempo_user {
	refcount_t		refs;		/* contexts, and the entries below it */
	struct hlist_node	node;		/* in dev_users */
	struct user_namespace	*ns;		/* a reference */
	kuid_t			uid;
	struct tempo_user	*parent;	/* ns's creator in ns->parent; NULL at the top */
	atomic_long_t		count[DU_NR];
	struct rcu_head		rcu;
};

static DEFINE_HASHTABLE(dev_users, 6);	/* by (ns, uid); read under RCU */
static DEFINE_MUTEX(dev_users_lock);	/* adds and deletes entries */

static unsigned long dev_user_key(const struct user_namespace *ns, kuid_t uid)
{
	return hash_ptr(ns, 32) ^ __kuid_val(uid);
}

/* Under rcu_read_lock(): the entry of (@ns, @uid), or NULL. */
static struct tempo_user *dev_user_lookup(const struct user_namespace *ns, kuid_t uid)
{
	struct tempo_user *u;

	hash_for_each_possible_rcu(dev_users, u, node, dev_user_key(ns, uid))
		if (u->ns == ns && uid_eq(u->uid, uid))
			return u;
	return NULL;
}

static void dev_user_put(struct tempo_user *u)
{
	struct tempo_user *parent;
	int i;

	while (u && refcount_dec_and_mutex_lock(&u->refs, &dev_users_lock)) {
		for (i = 0; i < DU_NR; i++)
			WARN_ON_ONCE(atomic_long_read(&u->count[i]));
		hash_del_rcu(&u->node);
		mutex_unlock(&dev_users_lock);
		parent = u->parent;
		put_user_ns(u->ns);
		kfree_rcu(u, rcu);
		u = parent;	/* the reference this entry held */
	}
}

/*
 * The entry of (@ns, @uid), a reference taken; created with those of the
 * levels above it when missing (one per level: at most 33, the nesting
 * limit of user namespaces). Process context.
 */
static struct tempo_user *dev_user_get(struct user_namespace *ns, kuid_t uid)
{
	struct tempo_user *u, *parent = NULL, *fresh;

	rcu_read_lock();
	u = dev_user_lookup(ns, uid);
	if (u && !refcount_inc_not_zero(&u->refs))
		u = NULL;	/* being deleted: add a fresh one below */
	rcu_read_unlock();
	if (u)
		return u;

	if (ns->parent) {
		parent = dev_user_get(ns->parent, ns->owner);
		if (IS_ERR(parent))
			return parent;
	}
	/* Allocated outside the mutex: no user's reclaim holds up another's open(). */
	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL_ACCOUNT);
	if (!fresh) {
		dev_user_put(parent);
		return ERR_PTR(-ENOMEM);
	}
	refcount_set(&fresh->refs, 1);
	fresh->ns = get_user_ns(ns);
	fresh->uid = uid;
	fresh->parent = parent;

	mutex_lock(&dev_users_lock);
	rcu_read_lock();
	u = dev_user_lookup(ns, uid);
	rcu_read_unlock();
	/* Under the mutex, an entry in the table still has references. */
	if (u)
		refcount_inc(&u->refs);
	else
		hash_add_rcu(dev_users, &fresh->node, dev_user_key(ns, uid));
	mutex_unlock(&dev_users_lock);
	if (!u)
		return fresh;
	put_user_ns(fresh->ns);
	kfree(fresh);
	dev_user_put(parent);	/* @u holds its own */
	return u;
}

/* Take @n units of @c if that keeps it at most @limit; all or nothing. */
static bool dev_charge(atomic_long_t *c, long n, unsigned long limit)
{
	long v = atomic_long_read(c);

	do {
		if (n > 0 && (unsigned long)v + n > limit)
			return false;
	} while (!atomic_long_try_cmpxchg(c, &v, v + n));
	return true;
}

static void dev_uncharge(atomic_long_t *c, long n)
{
	WARN_ON_ONCE(atomic_long_sub_return(n, c) < 0);
}

/* Take @n of @u's count @c at every level up, each within @limit; all or nothing. */
static bool dev_user_charge(struct tempo_user *u, enum dev_user_count c, long n,
			    unsigned long limit)
{
	struct tempo_user *it, *undo;

	for (it = u; it; it = it->parent)
		if (!dev_charge(&it->count[c], n, limit))
			break;
	if (!it)
		return true;
	for (undo = u; undo != it; undo = undo->parent)
		dev_uncharge(&undo->count[c], n);
	return false;
}

static void dev_user_uncharge(struct tempo_user *u, enum dev_user_count c, long n)
{
	for (; u; u = u->parent)
		dev_uncharge(&u->count[c], n);
}

/* ---- per-context state ----------------------------------------------- */

/* What an item on the file's delay queue is. */
enum dev_item_kind { DI_TIMER, DI_ORDER, DI_LOST };

/* An item of the file's delay queue: the head of a utimer, an osub, or the loss report. */
struct dev_item {
	struct tempo_delayq_node	dq;
	u8				kind;	/* enum dev_item_kind */
};

/*
 * A timer slot. @id, @cookie and @period are written under ctl_lock while
 * the item is not queued, and read by the read callback while it is.
 */
struct tempo_utimer {
	struct dev_item		item;
	u64			id;		/* generation << 32 | (slot + 1) */
	u64			cookie;
	u64			period;		/* 0: one-shot */
	struct llist_node	free;		/* on ctx->free_in */
	struct tempo_utimer	*next_free;	/* on ctx->free_head, under ctl_lock */
};

/*
 * An ordered submission, from ioctl to completion, then either an item on
 * the delay queue (its data freed at completion: a record reports only the
 * length) or an entry of the sink queue until a thread writes it.
 */
struct tempo_osub {
	struct dev_item		item;
	struct list_head	sink;		/* on ctx->sink_q */
	struct tempo_ctx	*ctx;
	u64			ticket;
	u64			cookie;
	u64			submitted;
	u64			completed;
	u32			len;
	u32			charged;	/* bytes charged to ctx->user */
	u8			*data;		/* @len bytes, or NULL once freed */
};

struct tempo_ctx_counters {
	atomic64_t armed, rearmed, fired, cancelled, events_read, overruns;
	atomic64_t events_lost, tickets, submitted, trashed, completed;
	atomic64_t sink_bytes, sink_errors;
};

struct tempo_ctx {
	struct tempo_delayq	*q;		/* the event queue */
	struct dev_item		lost_item;	/* DI_LOST: the loss report */
	atomic_t		lost;		/* ordered records dropped, not yet reported */
	atomic_t		nready_order;	/* ordered records queued, unread */

	struct mutex		ctl_lock;	/* arm, cancel, query; the table */
	struct llist_head	free_in;	/* slots whose timer ended */
	struct tempo_utimer	*free_head;	/* FIFO of free slots, ctl_lock */
	struct tempo_utimer	*free_tail;
	atomic_t		nfree;		/* free_in + free_head's list */
	u32			nslots;		/* slots ever used; ctl_lock */
	struct tempo_utimer	**chunks;	/* the table: nchunks of UT_CHUNK slots */
	u32			nchunks;
	u32			cap_chunks;
	atomic_t		ntimers;	/* live timers: items queued */

	struct mutex		order_lock;	/* creates the ordering domain */
	struct tempo_order	*order;		/* set once, LMM(dev_order_get:A) */
	atomic64_t		*slots;		/* ticket + 1 while issued, unused */
	u32			window;

	/*
	 * The sink. Completions with a sink set go on sink_q (under
	 * sink_qlock) and are written by the calls that ask for it
	 * (dev_sink_flush()), holding sink_lock, which also guards sink_off;
	 * sink changes under both.
	 */
	struct mutex		sink_lock;
	spinlock_t		sink_qlock;	/* sink_q, sink_queued, sink */
	struct file		*sink;
	struct list_head	sink_q;		/* completed, not yet written */
	u32			sink_queued;	/* on sink_q; sink_qlock, peeked */
	u32			sink_off;	/* bytes of sink_q's head written */
	int			sink_last_error;

	struct tempo_user	*user;		/* what the opener's uid holds */
	struct mem_cgroup	*memcg;		/* charged for this file */

	struct tempo_ctx_counters st;
};

static const struct file_operations tempo_dev_fops;

/* ---- timers ---------------------------------------------------------- */

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
	atomic64_add(UT_CHUNK * sizeof(*chunk), &mstat.bytes);
	return 0;
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
 * the @n (three atomics a chunk, not a timer: mstat.timers is shared by
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
	atomic64_add(n, &mstat.timers);
}

/*
 * A live timer ended: whoever took its item out of the queue (a reader's
 * TAKE, a cancel's remove()) gives the slot back, once. Any context that
 * owns the item; no lock.
 */
static void dev_slots_free_chain(struct tempo_ctx *ctx, struct llist_node *first,
				 struct llist_node *last, unsigned int n)
{
	if (!n)
		return;
	/* One push of their chain, and one update of each count. */
	llist_add_batch(first, last, &ctx->free_in);
	atomic_add(n, &ctx->nfree);
	atomic_sub(n, &ctx->ntimers);
	atomic64_sub(n, &mstat.timers);
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

/*
 * Under ctl_lock: take live timer @id out of the queue (an unread record of
 * it is withdrawn); false if @id names no live timer. On true the caller
 * owns the slot: it re-arms it or frees it.
 */
static struct tempo_utimer *dev_timer_remove(struct tempo_ctx *ctx, u64 id)
{
	struct tempo_utimer *ut = dev_slot_of(ctx, id);

	if (!ut || !tempo_delayq_remove(ctx->q, &ut->item.dq))
		return NULL;
	return ut;
}

/* Under ctl_lock: queue @ut's item for @deadline. */
static int dev_timer_put(struct tempo_ctx *ctx, struct tempo_utimer *ut, u64 deadline)
{
	lockdep_assert_held(&ctx->ctl_lock);
	return tempo_delayq_put_at(ctx->q, &ut->item.dq, ns_to_ktime(deadline));
}

/* What each element of one arm batch is checked against, read once per batch. */
struct dev_arm_env {
	u64 now;		/* the batch's one clock reading */
	u64 max;		/* tempo_timer_max_delay_ns() */
	u64 min_period;		/* min_period_ns */
};

/*
 * Check a spec and compute its absolute deadline: -EINVAL if malformed,
 * -ERANGE if the deadline lies beyond what the wheel holds. Every deadline
 * accepted is at most env->now + env->max, far below 2^63 (a ktime), so no
 * later sum (deadline + k * period, with k * period bounded by the time that
 * passed) wraps or turns negative: a timer is never reported early, for any
 * input. A deadline in the past fires at once.
 */
static int dev_spec_deadline(const struct tempo_timer_spec *s,
			     const struct dev_arm_env *env, u64 *deadline)
{
	if (s->flags & ~TEMPO_ARM_FLAGS || s->reserved)
		return -EINVAL;
	if (s->period && s->period < env->min_period)
		return -EINVAL;
	if (s->period > env->max)
		return -ERANGE;
	if ((s->flags & TEMPO_ARM_REARM) && !s->id)
		return -EINVAL;
	if (!(s->flags & TEMPO_ARM_ABS)) {
		if (s->value > env->max)
			return -ERANGE;
		*deadline = env->now + s->value;
	} else {
		/* Unsigned: 2^63 and beyond are far in the future, not negative. */
		if (s->value > env->now && s->value - env->now > env->max)
			return -ERANGE;
		*deadline = s->value;
	}
	return 0;
}

/*
 * Undo the arm of new timer @id, whose id never reached the caller (not
 * counted as cancelled). Under ctl_lock. Its record may have been read in
 * the meantime, if it was due at once: then there is nothing left to undo.
 */
static void dev_unarm(struct tempo_ctx *ctx, u64 id)
{
	struct tempo_utimer *ut = dev_timer_remove(ctx, id);

	if (ut)
		dev_slot_free(ctx, ut);
}

/*
 * Under ctl_lock, slots reserved: arm new timers
 * specs[@j..) up to @end or DEV_PUT_CHUNK of them, in one lock round trip of
 * the delay queue (tempo_delayq_put_many()); each id goes to its spec.
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
	int err = 0, perr = 0;
	u32 k, m, put = 0;
	u64 deadline;

	for (m = 0; j + m < end && m < DEV_PUT_CHUNK; m++) {
		err = dev_spec_deadline(&specs[j + m], env, &deadline);
		if (err)
			break;
		deadlines[m] = ns_to_ktime(deadline);
	}
	dev_slots_get(ctx, uts, m);
	for (k = 0; k < m; k++) {
		uts[k]->cookie = specs[j + k].cookie;
		uts[k]->period = specs[j + k].period;
		nodes[k] = &uts[k]->item.dq;
	}
	if (m)
		put = tempo_delayq_put_many(ctx->q, nodes, deadlines, m, &perr);
	for (k = 0; k < put; k++)
		specs[j + k].id = uts[k]->id;
	dev_slots_free(ctx, uts + put, m - put);
	*errp = put < m ? perr : err;
	return put;
}

/*
 * Under ctl_lock: re-arm live timer @s->id, or -ENOENT. The wheel refuses
 * nothing dev_spec_deadline() let through; should it, the timer is gone
 * (counted as cancelled) and the error returned.
 */
static int dev_timer_rearm(struct tempo_ctx *ctx, const struct tempo_timer_spec *s,
			   u64 deadline)
{
	struct tempo_utimer *ut = dev_timer_remove(ctx, s->id);
	int err;

	if (!ut)
		return -ENOENT;
	ut->cookie = s->cookie;
	ut->period = s->period;
	err = dev_timer_put(ctx, ut, deadline);
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
	u64 deadline;
	int err = 0;
	u32 j, end;
	bool seen_new = false;

	for (end = i; end < n; end++) {
		if (!(specs[end].flags & TEMPO_ARM_REARM))
			seen_new = true;
		else if (seen_new)
			break;
	}

	/* The REARMs, one by one: each removes, then puts, its own timer. */
	for (j = i; j < end && specs[j].flags & TEMPO_ARM_REARM; j++) {
		/* Checked before: the same copy, and a reading no earlier. */
		err = dev_spec_deadline(&specs[j], env, &deadline);
		if (!err)
			err = dev_timer_rearm(ctx, &specs[j], deadline);
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

/*
 * A user loop's step: stop for a fatal signal, let others run. Every loop
 * whose length a user chooses calls this at least once per UT_CHUNK steps.
 */
static int dev_loop_step(void)
{
	if (fatal_signal_pending(current))
		return -EINTR;
	cond_resched();
	return 0;
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
	unsigned int limit = READ_ONCE(max_user_copy_bytes);
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
 * that is what the user's limit must bound. All or nothing: on error nothing
 * is reserved. *@charged: slots charged to the user, for dev_arm_settle().
 */
static int dev_arm_prepare(struct tempo_ctx *ctx, const struct tempo_timer_spec *specs,
			   struct tempo_batch *b, const struct dev_arm_env *env, u32 *charged,
			   bool nowait)
{
	u32 i, n = 0, nfree;
	u64 deadline;
	int err;

	lockdep_assert_held(&ctx->ctl_lock);
	for (i = 0; i < b->count; i++) {
		err = dev_spec_deadline(&specs[i], env, &deadline);
		if (err) {
			dev_batch_fail(b, i, err);
			return err;
		}
		n += !(specs[i].flags & TEMPO_ARM_REARM);
		if (!(i % UT_CHUNK)) {
			err = dev_loop_step();
			if (err)
				goto err_batch;
		}
	}
	/* ntimers only grows under ctl_lock, which we hold: the check holds. */
	err = -ENOSPC;
	if ((u64)atomic_read(&ctx->ntimers) + n > limit_timers())
		goto err_batch;
	/* The free list only grows meanwhile: at most this many new slots. */
	nfree = dev_nfree(ctx);
	*charged = n > nfree ? n - nfree : 0;
	if (!dev_user_charge(ctx->user, DU_TIMERS, *charged, READ_ONCE(max_user_timers)))
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
	env.now = ktime_get_ns();
	env.max = tempo_timer_max_delay_ns();
	env.min_period = READ_ONCE(min_period_ns);
	err = dev_arm_prepare(ctx, specs, b, &env, &charged, nowait);
	if (err)
		return err == -EAGAIN ? err : 0;
	for (i = 0; i < b->count && !b->error; i = k) {
		k = min_t(u32, b->count, i + TEMPO_SPEC_CHUNK);
		for (j = i; j < k && !b->error; j = end) {
			if (!j)
				env.now = ktime_get_ns();
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
	/* Slots charged and not taken into use go back (nslots: ctl_lock). */
	dev_user_uncharge(ctx->user, DU_TIMERS, charged - (ctx->nslots - nslots));
	b->affected = b->done;
	atomic64_add(b->done, &ctx->st.armed);
	atomic64_add(b->done, &mstat.armed);
	return 0;
}

/* Check an arm or cancel batch's header; the array is copied by the caller. */
static int dev_batch_check(const struct tempo_batch *b, u32 flags)
{
	if (b->flags & ~flags || !b->count)
		return -EINVAL;
	return b->count > limit_timers() ? -ENOSPC : 0;
}

/* Cancel timers @ids[0..@n), elements @first.. of batch @b. Under ctl_lock. */
static void dev_cancel_ids(struct tempo_ctx *ctx, const u64 *ids, u32 n, u32 first,
			   struct tempo_batch *b)
{
	struct tempo_delayq_node *nodes[TEMPO_CANCEL_CHUNK];
	struct tempo_utimer *uts[TEMPO_CANCEL_CHUNK];
	bool removed[TEMPO_CANCEL_CHUNK];
	u32 j, m = 0, done = 0;

	/* One lock round trip of the delay queue for the chunk; as in turn. */
	for (j = 0; j < n; j++) {
		uts[j] = dev_slot_of(ctx, ids[j]);
		if (uts[j])
			nodes[m++] = &uts[j]->item.dq;
	}
	tempo_delayq_remove_many(ctx->q, nodes, m, removed);
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

static int dev_cancel_cookies(struct tempo_ctx *ctx, const u64 *keys, struct tempo_batch *b,
			      bool nowait)
{
	size_t size = roundup_pow_of_two(2 * (size_t)b->count);
	u32 i, slot, end, mask = size - 1;
	struct dev_cookie_ent *tab, *e;
	struct tempo_utimer *ut;
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
	for (slot = 0; slot < ctx->nslots && !err; slot = end) {
		end = min_t(u32, ctx->nslots, slot + UT_CHUNK);
		for (; slot < end; slot++) {
			ut = dev_slot(ctx, slot);
			e = dev_cookie_find(tab, mask, ut->cookie);
			if (!e->index || !tempo_delayq_remove(ctx->q, &ut->item.dq))
				continue;
			dev_slot_free(ctx, ut);
			e->hits++;
			b->affected++;
		}
		err = dev_loop_step();
	}
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
			n = min_t(u32, b->count - i, TEMPO_CANCEL_CHUNK);
			dev_cancel_ids(ctx, keys + i, n, i, b);
			if (!(i % UT_CHUNK))
				err = dev_loop_step();
		}
	}
	if (err)	/* ENOMEM, or a fatal signal: the batch stopped part way */
		dev_batch_fail(b, b->count, err);
	return 0;
}

enum dev_batch_op { DEV_BATCH_ARM, DEV_BATCH_CANCEL };

/*
 * An arm or cancel batch, from the ioctl or from io_uring: the batch header
 * at @arg and its array are read once, the batch applied under ctl_lock,
 * and the out fields written back whenever the header could be read.
 * @nowait (io_uring's non-blocking issue): ctl_lock only if free, no
 * allocation that may block; -EAGAIN, with nothing done and nothing
 * written, makes io_uring issue it again from a worker, blocking.
 * Return: as the ioctl: 0, or the first failure; *@done: elements done.
 */
static int dev_batch_call(struct tempo_ctx *ctx, enum dev_batch_op op, void __user *arg,
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
 * Query timers @qs[0..@n) by id, under ctl_lock: each one's state as the
 * queue finds it at one instant (tempo_delayq_query()), with its deadline,
 * period and cookie, and the time left by @now. An id that names no live
 * timer gets ENOENT in its entry, and the batch goes on.
 */
static void dev_query_ids(struct tempo_ctx *ctx, struct tempo_timer_query *qs, u32 n,
			  u32 first, u64 now, struct tempo_batch *b)
{
	struct tempo_timer_query *tq;
	struct tempo_utimer *ut;
	ktime_t deadline;
	u32 j;
	int r;

	lockdep_assert_held(&ctx->ctl_lock);
	for (j = 0; j < n; j++) {
		tq = &qs[j];
		ut = dev_slot_of(ctx, tq->id);
		r = ut ? tempo_delayq_query(ctx->q, &ut->item.dq, &deadline) : -ENOENT;
		if (r < 0) {
			tq->error = -ENOENT;
			dev_batch_fail(b, first + j, -ENOENT);
			continue;
		}
		tq->deadline = ktime_to_ns(deadline);
		tq->period = ut->period;
		tq->cookie = ut->cookie;
		tq->remaining = (s64)(tq->deadline - now) > 0 ? tq->deadline - now : 0;
		tq->state = r == TEMPO_DELAYQ_PENDING ? TEMPO_TIMER_ARMED : TEMPO_TIMER_FIRED;
		b->done++;
	}
}

/*
 * TEMPO_IOC_TIMER_QUERY: the batch's array is read once, answered in the
 * kernel's copy, and written back whole, ids included, unchanged. The out
 * fields of every entry are set (zero for an unknown id) whatever happens
 * after the copy in.
 */
static long dev_ioc_query(struct tempo_ctx *ctx, void __user *arg)
{
	struct tempo_timer_query *qs;
	struct tempo_batch b;
	u32 i, n;
	u64 now;
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
	now = ktime_get_ns();
	for (i = 0; i < b.count; i += n) {
		n = min_t(u32, b.count - i, UT_CHUNK);
		dev_query_ids(ctx, qs + i, n, i, now, &b);
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

/* ---- events: read and poll ------------------------------------------- */

/* A record's overrun count: expirations folded into it, saturating at U32_MAX. */
static u32 dev_overrun_clamp(u64 overrun)
{
	return min_t(u64, overrun, U32_MAX);
}

static void dev_osub_free(struct tempo_ctx *ctx, struct tempo_osub *os)
{
	atomic64_dec(&mstat.submissions);
	atomic64_sub(os->charged, &mstat.bytes);
	dev_user_uncharge(ctx->user, DU_BYTES, os->charged);
	kvfree(os->data);
	kfree(os);
}

/*
 * One consume() of a read: where its records go, and what it took. The
 * items it took (one-shot timers, ordered records) are the reader's once
 * consume() returns, and dev_read_settle() lets go of them then, not in
 * the callback: the queue still holds an item while it is shown.
 */
struct dev_reader {
	struct tempo_ctx	*ctx;
	struct iov_iter		*to;		/* where the records go */
	unsigned int		n;		/* records copied out */
	bool			faulted;	/* a record's copy faulted: STOP */
	bool			lost_taken;	/* the loss report was taken */
	u64			now;		/* a reading for overruns, or 0 */
	u64			fired;		/* expiries read (1 + overrun each) */
	u64			overruns;	/* of which overruns */
	struct list_head	osubs;		/* ordered records taken, by os->sink */
	/* One-shot timers taken, chained by ut->free (a live slot's is unused). */
	struct llist_node	*free_first, *free_last;
	unsigned int		nended;
};

/*
 * A timer's record. A periodic timer's record counts, as overruns, the
 * deadlines after @deadline that have passed by the time it is read (the
 * timer slept meanwhile: nothing fired for them), and the timer goes on at
 * the next one, on its original schedule (AGAIN). @due: when the queue
 * found it due, its fire time, never before its deadline.
 */
static void dev_read_timer(struct dev_reader *rd, struct tempo_utimer *ut, ktime_t due,
			   struct tempo_event *ev, u64 *overrun)
{
	u64 deadline = ktime_to_ns(ut->item.dq.deadline);

	ev->type = TEMPO_EV_TIMER;
	ev->id = ut->id;
	ev->cookie = ut->cookie;
	ev->deadline = deadline;
	ev->time = ktime_to_ns(due);
	*overrun = 0;
	if (!ut->period) {
		ev->flags = TEMPO_EVF_FINAL;
		return;
	}
	if (!rd->now)
		rd->now = ktime_get_ns();
	/* Never negative: due >= deadline and the reading is later than due. */
	if ((s64)(rd->now - deadline) > 0)
		*overrun = div64_u64(rd->now - deadline, ut->period);
	ev->overrun = dev_overrun_clamp(*overrun);
}

static void dev_read_order(struct tempo_osub *os, struct tempo_event *ev)
{
	ev->type = TEMPO_EV_ORDER;
	ev->id = os->ticket;
	ev->cookie = os->cookie;
	ev->deadline = os->submitted;
	ev->time = os->completed;
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
 * the caller left room for the record.
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

	memset(&ev, 0, sizeof(ev));
	switch (it->kind) {
	case DI_TIMER:
		ut = container_of(it, struct tempo_utimer, item);
		dev_read_timer(rd, ut, due, &ev, &overrun);
		break;
	case DI_ORDER:
		dev_read_order(container_of(it, struct tempo_osub, item), &ev);
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
		/* Counted once per consume(), in dev_read_settle(). */
		rd->fired += 1 + overrun;
		rd->overruns += overrun;
		if (ut->period) {
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
static void dev_lost_queue(struct tempo_ctx *ctx)
{
	/* Due at time 0: read before every record already ready. */
	tempo_delayq_put_at(ctx->q, &ctx->lost_item.dq, 0);
}

/*
 * After a consume(): let go of what it took, the one-shot timers' slots (their
 * ids died with their FINAL records) and the ordered records; and if it took
 * the loss report, report what was lost while it was being taken.
 */
static void dev_read_settle(struct tempo_ctx *ctx, struct dev_reader *rd)
{
	struct tempo_osub *os, *tmp;

	if (rd->fired) {
		atomic64_add(rd->fired, &ctx->st.fired);
		atomic64_add(rd->fired, &mstat.fired);
		atomic64_add(rd->overruns, &ctx->st.overruns);
		rd->fired = 0;
		rd->overruns = 0;
	}
	dev_slots_free_chain(ctx, rd->free_first, rd->free_last, rd->nended);
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
	 * LMM(dev_read_settle:A) The report TAKEN (consume's critical section,
	 * released by its unlock), then a full barrier, then the count. Pairs
	 * with: dev_lost_queue:A (the count, a full barrier, then put()'s
	 * read of the item's state). A completion that added to the count
	 * after the callback read it either sees the item free and puts it,
	 * or its put found it still queued and we see its count here.
	 */
	smp_mb();
	if (atomic_read(&ctx->lost))
		dev_lost_queue(ctx);
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
	unsigned int chunk, flags, stalls = 0;
	size_t done = 0;
	int ret, err = 0;

	if (!want)
		return -EINVAL;
	while (done < want) {
		chunk = min_t(size_t, want - done, TEMPO_READ_CHUNK);
		rd.n = 0;
		rd.faulted = false;
		rd.now = 0;
		/* Sleep only for the first record: then return what is ready. */
		flags = !done && !nowait ? TEMPO_DELAYQ_WAIT : 0;
		ret = tempo_delayq_consume(ctx->q, dev_read_record, &rd, chunk, flags);
		dev_read_settle(ctx, &rd);
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
		} else if (rd.n < chunk) {
			break;	/* nothing more ready */
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

	if (mutex_lock_killable(&ctx->order_lock))
		return ERR_PTR(-EINTR);
	o = ctx->order;
	if (o)
		goto out_unlock;
	window = limit_window();
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
	/* What kernel_write() accepts. */
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
 * Write the rest of @os to the sink, from ctx->sink_off, in the calling
 * thread and exactly as write(2) of that thread would: its credentials,
 * rlimits (RLIMIT_FSIZE: EFBIG and SIGXFSZ), LSM checks and signals
 * (SIGPIPE), the file position updated under f_pos_lock as fdget_pos() does
 * for a regular file, none for a stream. Under sink_lock.
 *
 * Return: 0 when @os is done with (written, or failed and counted); -EINTR
 * when a signal interrupted the write, -EAGAIN when the sink would block (an
 * O_NONBLOCK sink, full): then @os stays at the head of the queue and the
 * rest of it is written by a later call.
 */
static int dev_sink_write(struct tempo_ctx *ctx, struct tempo_osub *os)
{
	struct file *sink = ctx->sink;
	bool pos_lock = sink->f_mode & FMODE_ATOMIC_POS;
	loff_t pos = 0, *ppos = NULL;
	ssize_t ret = 0;
	int err;

	lockdep_assert_held(&ctx->sink_lock);
	if (pos_lock && mutex_lock_killable(&sink->f_pos_lock))
		return -EINTR;
	if (!(sink->f_mode & FMODE_STREAM)) {
		pos = sink->f_pos;
		ppos = &pos;
	}
	while (ctx->sink_off < os->len) {
		ret = kernel_write(sink, os->data + ctx->sink_off, os->len - ctx->sink_off, ppos);
		if (ret <= 0)
			break;
		ctx->sink_off += ret;
		atomic64_add(ret, &ctx->st.sink_bytes);
	}
	if (ppos)
		sink->f_pos = pos;
	if (pos_lock)
		mutex_unlock(&sink->f_pos_lock);

	if (ctx->sink_off < os->len) {
		err = dev_sink_errno(ret);
		/* Interrupted or would block, not failed: go on later. */
		if (err == -EAGAIN || (err == -EINTR && signal_pending(current)))
			return err;
		atomic64_inc(&ctx->st.sink_errors);
		WRITE_ONCE(ctx->sink_last_error, err);
	}
	ctx->sink_off = 0;
	return 0;
}

/*
 * Write up to @budget completions waiting on the sink queue, in ticket order,
 * from the calling thread (dev_sink_write()).
 *
 * Return: 0, or -EINTR if a signal stopped it, -EAGAIN if the sink would
 * block, with completions left.
 */
static int dev_sink_flush_locked(struct tempo_ctx *ctx, unsigned int budget)
{
	struct tempo_osub *os;
	int err = 0;

	lockdep_assert_held(&ctx->sink_lock);
	while (budget--) {
		spin_lock(&ctx->sink_qlock);
		os = list_first_entry_or_null(&ctx->sink_q, struct tempo_osub, sink);
		spin_unlock(&ctx->sink_qlock);
		if (!os)
			break;
		/* Only sink_lock's holder takes from the head: @os stays there. */
		err = dev_sink_write(ctx, os);
		if (err)
			break;
		spin_lock(&ctx->sink_qlock);
		list_del(&os->sink);
		/* Marked: dev_sink_flush() peeks without the lock. */
		WRITE_ONCE(ctx->sink_queued, ctx->sink_queued - 1);
		spin_unlock(&ctx->sink_qlock);
		dev_osub_free(ctx, os);
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
	atomic64_inc(&mstat.completed);
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
	 * A record: the data goes now and the record alone stays charged. A
	 * sink set meanwhile does not matter: this completion was decided
	 * before it, and no other completion of ours runs until we return.
	 */
	if (os->data) {
		kvfree(os->data);
		os->data = NULL;
		atomic64_sub(os->len, &mstat.bytes);
		dev_user_uncharge(ctx->user, DU_BYTES, os->len);
		os->charged -= os->len;
	}
	/*
	 * Completions of one context never run concurrently: nready_order
	 * only grows here, so the check holds until the put. The record is
	 * put due now, after every record of an earlier ticket (a later clock
	 * reading; ties keep put order): read in ticket order.
	 */
	if (atomic_read(&ctx->nready_order) < limit_events()) {
		atomic_inc(&ctx->nready_order);
		if (!WARN_ON_ONCE(tempo_delayq_put(ctx->q, &os->item.dq, 0))) {
			dev_count_completed(ctx);
			return;
		}
		atomic_dec(&ctx->nready_order);
	}
	atomic64_inc(&ctx->st.events_lost);
	/*
	 * LMM(dev_lost_queue:A) The count, then (the full barrier of a value
	 * returning atomic) put()'s read of the report's state. Pairs with:
	 * dev_read_settle:A.
	 */
	atomic_inc_return(&ctx->lost);
	dev_lost_queue(ctx);
	dev_osub_free(ctx, os);
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
	tempo_test_point(TEMPO_TP_DEV_TICKET_TAKEN, ctx, t, 0);
	dev_ticket_record(ctx, t);
	atomic64_inc(&ctx->st.tickets);

	tk.ticket = t;
	if (copy_to_user(arg, &tk, sizeof(tk))) {
		if (dev_ticket_claim(ctx, t) && tempo_order_trash(o, t) >= 0)
			atomic64_inc(&ctx->st.trashed);
		return -EFAULT;
	}
	return 0;
}

static long dev_ioc_submit(struct tempo_ctx *ctx, void __user *arg, bool nonblock)
{
	struct tempo_order *o = smp_load_acquire(&ctx->order); /* LMM(dev_order_get:A) */
	struct tempo_submit sb;
	struct tempo_osub *os;
	u32 charge;
	int ret;

	if (copy_from_user(&sb, arg, sizeof(sb)))
		return -EFAULT;
	if (sb.flags || sb.len > limit_data() || !o)
		return -EINVAL;

	/* The submission and its record, until the record is read. */
	charge = sizeof(*os) + sb.len;
	if (!dev_user_charge(ctx->user, DU_BYTES, charge, READ_ONCE(max_user_bytes)))
		return -ENOSPC;
	ret = -ENOMEM;
	os = kzalloc(sizeof(*os), DEV_GFP);
	if (!os)
		goto err_uncharge;
	os->charged = charge;
	if (sb.len) {
		os->data = kvmalloc(sb.len, DEV_GFP);
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
	atomic64_inc(&mstat.submissions);
	atomic64_add(charge, &mstat.bytes);
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
	kvfree(os->data);
	kfree(os);
err_uncharge:
	dev_user_uncharge(ctx->user, DU_BYTES, charge);
	return ret;
}

static long dev_ioc_trash(struct tempo_ctx *ctx, void __user *arg, bool nonblock)
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
	/* It was the head and ran what was parked after it: as a submit. */
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
static long dev_ioc_skip(struct tempo_ctx *ctx, void __user *arg, bool nonblock)
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
static long dev_ioc_sink(struct tempo_ctx *ctx, void __user *arg, bool nonblock)
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
static long dev_ioc_flush(struct tempo_ctx *ctx, bool nonblock)
{
	return dev_sink_flush(ctx, UINT_MAX, nonblock);
}

/* ---- info and stats -------------------------------------------------- */

static long dev_ioc_info(void __user *arg)
{
	struct tempo_info in = {
		.version	= TEMPO_ABI_VERSION,
		.features	= TEMPO_FEAT_TIMERS | TEMPO_FEAT_PERIODIC |
				  TEMPO_FEAT_ORDER | TEMPO_FEAT_SINK | TEMPO_FEAT_STATS |
				  TEMPO_FEAT_USER_LIMITS | TEMPO_FEAT_ORDER_SKIP |
				  TEMPO_FEAT_QUERY | TEMPO_FEAT_URING,
		.record_size	= sizeof(struct tempo_event),
		.order_window	= limit_window(),
		.tick_ns	= tempo_timer_tick_ns(),
		.max_delay_ns	= tempo_timer_max_delay_ns(),
		.min_period_ns	= READ_ONCE(min_period_ns),
		.max_timers	= limit_timers(),
		.max_events	= limit_events(),
		.max_data	= limit_data(),
		.max_user_contexts = READ_ONCE(max_user_contexts),
		.max_user_timers = READ_ONCE(max_user_timers),
		.max_user_bytes	= READ_ONCE(max_user_bytes),
	};

	return copy_to_user(arg, &in, sizeof(in)) ? -EFAULT : 0;
}

static void dev_stats_ctx(struct tempo_ctx *ctx, struct tempo_ctx_stats *s)
{
	struct tempo_ctx_counters *c = &ctx->st;
	struct tempo_delayq_stats dq;

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
	tempo_delayq_stats(ctx->q, &dq);
	s->events_ready = dq.ready;
	s->sink_pending = READ_ONCE(ctx->sink_queued);
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
	s->sink_dropped = atomic64_read(&mstat.sink_dropped);
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

static long dev_ioctl(struct tempo_ctx *ctx, unsigned int cmd, void __user *uarg,
		      bool nonblock)
{
	u32 done;

	switch (cmd) {
	case TEMPO_IOC_INFO:
		return dev_ioc_info(uarg);
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

/*
 * io_uring: IORING_OP_URING_CMD with TEMPO_URING_CMD_ARM or _CANCEL, the
 * batch of the matching ioctl (include/uapi/tempo.h), the same checks,
 * limits and accounting (the opener's memory cgroup). The CQE's result is
 * the number of elements done when all succeeded, else the ioctl's error.
 * Like those ioctls, it writes nothing to the ordered stream's sink (it may
 * run in an io_uring worker). The SQE's command area is shared with
 * userspace: it is read once.
 */
static int tempo_dev_uring_cmd(struct io_uring_cmd *ioucmd, unsigned int issue_flags)
{
	struct tempo_ctx *ctx = ioucmd->file->private_data;
	bool nowait = issue_flags & IO_URING_F_NONBLOCK;
	struct tempo_uring_cmd uc;
	struct mem_cgroup *old;
	enum dev_batch_op op;
	u32 done;
	int ret;

	memcpy(&uc, tempo_uring_cmd_payload(ioucmd), sizeof(uc));
	switch (READ_ONCE(ioucmd->cmd_op)) {
	case TEMPO_URING_CMD_ARM:
		op = DEV_BATCH_ARM;
		break;
	case TEMPO_URING_CMD_CANCEL:
		op = DEV_BATCH_CANCEL;
		break;
	default:
		return tempo_uring_cmd_result(ioucmd, -ENOTTY, issue_flags);
	}
	if (uc.flags || uc.reserved)
		return tempo_uring_cmd_result(ioucmd, -EINVAL, issue_flags);
	old = set_active_memcg(ctx->memcg);
	ret = dev_batch_call(ctx, op, u64_to_user_ptr(uc.batch), nowait, &done);
	set_active_memcg(old);
	return tempo_uring_cmd_result(ioucmd, ret ?: done, issue_flags);
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
	if (!dev_user_charge(user, DU_CONTEXTS, 1, READ_ONCE(max_user_contexts)))
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
	init_llist_head(&ctx->free_in);
	spin_lock_init(&ctx->sink_qlock);
	INIT_LIST_HEAD(&ctx->sink_q);
	mutex_init(&ctx->ctl_lock);
	mutex_init(&ctx->order_lock);
	mutex_init(&ctx->sink_lock);
	ctx->user = user;
	/* What this file allocates later is charged here, whoever calls. */
	ctx->memcg = get_mem_cgroup_from_mm(current->mm);

	file->private_data = ctx;
	atomic64_inc(&mstat.contexts);
	atomic64_inc(&mstat.opens);
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

/* Trash every ticket issued and not yet submitted, then drop the domain. */
static void dev_order_release(struct tempo_ctx *ctx)
{
	u32 i;
	u64 v;

	if (!ctx->order)
		return;
	for (i = 0; i < ctx->window; i++) {
		v = atomic64_read(&ctx->slots[i]);
		/* A record of a ticket a skip finished: the domain refuses it. */
		if (v && dev_ticket_claim(ctx, v - 1) && tempo_order_trash(ctx->order, v - 1) >= 0)
			atomic64_inc(&ctx->st.trashed);
	}
	tempo_order_destroy(ctx->order);
	kvfree(ctx->slots);
}

/* What destroy hands back: ordered records nobody read are dropped. */
static void dev_item_release(struct tempo_delayq_node *node, void *arg)
{
	struct dev_item *it = container_of(node, struct dev_item, dq);

	if (it->kind != DI_ORDER)
		return;		/* a timer's slot or the loss report: in ctx */
	atomic64_inc(&mstat.dropped);
	dev_osub_free(arg, container_of(it, struct tempo_osub, item));
}

static int tempo_dev_release(struct inode *inode, struct file *file)
{
	struct tempo_ctx *ctx = file->private_data;
	struct tempo_osub *os, *tmp;
	struct tempo_utimer *ut;
	u32 slot;

	/*
	 * No ioctl or read can run any more. The ordered stream first: its
	 * last completions still put records on the queue.
	 */
	dev_order_release(ctx);
	/*
	 * release() may run in do_exit(), or in whichever process dropped the
	 * last reference (an fd passed and never received): it writes nothing.
	 * What still waits for the sink is dropped and counted.
	 */
	list_for_each_entry_safe(os, tmp, &ctx->sink_q, sink) {
		list_del(&os->sink);
		atomic64_inc(&mstat.sink_dropped);
		dev_osub_free(ctx, os);
	}
	/* Every item still queued comes back (live timers end here). */
	tempo_delayq_destroy(ctx->q, dev_item_release, ctx);
	atomic64_sub(atomic_read(&ctx->ntimers), &mstat.timers);
	for (slot = 0; slot < ctx->nchunks; slot++)
		kvfree(ctx->chunks[slot]);
	kfree(ctx->chunks);
	atomic64_sub((u64)ctx->nchunks * UT_CHUNK * sizeof(*ut), &mstat.bytes);

	if (ctx->sink)
		fput(ctx->sink);

	mutex_destroy(&ctx->sink_lock);
	mutex_destroy(&ctx->order_lock);
	mutex_destroy(&ctx->ctl_lock);
	dev_user_uncharge(ctx->user, DU_TIMERS, ctx->nslots);
	dev_user_uncharge(ctx->user, DU_CONTEXTS, 1);
	dev_user_put(ctx->user);
	mem_cgroup_put(ctx->memcg);
	atomic64_dec(&mstat.contexts);
	kfree(ctx);
	return 0;
}

static const struct file_operations tempo_dev_fops = {
	.owner		= THIS_MODULE,
	.open		= tempo_dev_open,
	.release	= tempo_dev_release,
	.read_iter	= tempo_dev_read_iter,
	.poll		= tempo_dev_poll,
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
}

static int dev_stats_show(struct seq_file *m, void *unused)
{
	struct tempo_mod_stats s;

	dev_stats_mod(&s);
	seq_printf(m, "contexts %llu\ntimers %llu\nsubmissions %llu\nbytes %llu\n",
		   s.contexts, s.timers, s.submissions, s.bytes);
	seq_printf(m, "opens %llu\narmed %llu\nfired %llu\ncompleted %llu\n",
		   s.opens, s.armed, s.fired, s.completed);
	seq_printf(m, "dropped %lld\nsink_dropped %llu\n", (s64)atomic64_read(&mstat.dropped),
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
	get_random_bytes(&dev_cookie_key, sizeof(dev_cookie_key));
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
