/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/tempo, the file interface to the cores: what its files share.
 *
 * The module face (main.c) uses only tempo_dev_init(), tempo_dev_exit() and
 * tempo_dev_debugfs(): /dev/tempo is registered after the cores are up and
 * removed before they go down. The rest is private to the file interface,
 * one feature per file, each opening with what it owns and its locks:
 *
 *   dev.c        the file and its context: open, release, read and its
 *                records (the loss report among them), poll, the ioctl
 *                table, info and stats, registration
 *   dev_timer.c  timers: the slot table and ids, arm, cancel (by id, and by
 *                cookie through a hash), query; a batch call's copy and out
 *                fields
 *   dev_clock.c  timers of other clocks than MONOTONIC: a queue per clock
 *                and its stand-in on the event queue, cancel-on-set, clock
 *                changes; a timer's times in a caller's clock and time
 *                namespace (its calls and inlines: dev_clock.h)
 *   dev_order.c  the ordered stream: tickets and their ownership, submit,
 *                trash, skip, the completion, the sink and its writer
 *   dev_uring.c  the io_uring commands
 *   dev_user.c   per-user limits and accounting
 *
 * Locks of a context, outermost first: ctl_lock (dev_timer.c) -> clk_lock
 * (dev_clock.c) -> the delay queues' locks, and dev_clock_files_lock (the
 * walk's list, dev_clock.c) -> clk_lock, with no wake-up of a file's
 * readers or watchers under either; order_lock (dev_order.c) alone;
 * sink_lock (dev_order.c) -> the sink's f_pos_lock, and sink_lock ->
 * sink_qlock. A queue's lock is only ever taken inside the delay queue's
 * calls, one queue at a time, and a consume callback (dev.c's read) takes no
 * lock.
 */
#ifndef _TEMPO_DEV_H
#define _TEMPO_DEV_H

#include <linux/atomic.h>
#include <linux/gfp.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uidgid.h>

#include <tempo/delayq.h>
#include <uapi/tempo.h>

#include "clock.h"

struct dentry;
struct seq_file;
struct file;
struct io_uring_cmd;
struct mem_cgroup;
struct tempo_order;
struct tempo_user;
struct user_namespace;

/* ---- the module face (main.c) ----------------------------------------- */

int tempo_dev_init(void);
void tempo_dev_exit(void);
void tempo_dev_debugfs(struct dentry *dir);

/* ---- shared by the dev*.c files ------------------------------------------ */

/*
 * Everything allocated on behalf of a file is charged to the memory cgroup of
 * its opener (set_active_memcg(), as inotify does), and fails with ENOMEM at
 * that cgroup's limit instead of invoking the OOM killer.
 */
#define DEV_GFP		(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)
/* The same, for io_uring's non-blocking issue: no reclaim; -EAGAIN retries blocking. */
#define DEV_GFP_NOWAIT	(GFP_NOWAIT | __GFP_ACCOUNT | __GFP_NOWARN)

/* What an item on the file's delay queue is. */
enum dev_item_kind { DI_TIMER, DI_ORDER, DI_LOST, DI_CLOCK };

/*
 * An item of one of the file's delay queues: the head of a utimer, an osub,
 * the loss report, or the stand-in of a clock's queue (struct dev_clock).
 * @clock and @cos_gen are a timer's (in the room the item has after @kind):
 * written under ctl_lock while it is not queued, read by the read callback
 * while it is.
 */
struct dev_item {
	struct tempo_delayq_node	dq;
	u8				kind;	/* enum dev_item_kind */
	u8				clock;	/* DI_TIMER: enum dev_clk */
	u32				cos_gen; /* DEV_CLK_COS: ctx->cos_gen at the arm */
};

/*
 * A timer's clock (dev_clock.c): which queue holds it, and how its times are
 * reported. The first two are on the event queue ctx->q; the others each on
 * the file's queue of that clock, ctx->clk[clock - DEV_CLK_BOOT].
 */
enum dev_clk {
	DEV_CLK_MONO,		/* CLOCK_MONOTONIC */
	DEV_CLK_REAL_REL,	/* relative CLOCK_REALTIME: MONOTONIC, times shown in REALTIME */
	DEV_CLK_BOOT,		/* CLOCK_BOOTTIME */
	DEV_CLK_REAL,		/* absolute CLOCK_REALTIME */
	DEV_CLK_COS,		/* absolute CLOCK_REALTIME, TEMPO_ARM_CANCEL_ON_SET */
	DEV_CLK_DEFER,		/* CLOCK_MONOTONIC, TEMPO_ARM_DEFERRABLE */
	DEV_CLK_BOOT_ALARM,	/* CLOCK_BOOTTIME, TEMPO_ARM_ALARM: CLOCK_BOOTTIME_ALARM */
	DEV_CLK_REAL_ALARM,	/* CLOCK_REALTIME, TEMPO_ARM_ALARM: CLOCK_REALTIME_ALARM */
	DEV_CLK_NR
};

#define DEV_CLK_QUEUES	(DEV_CLK_NR - DEV_CLK_BOOT)	/* clocks with a queue of their own */

/*
 * A timer slot (dev_timer.c). @id, @cookie and @period (and the item's
 * @clock) are written under ctl_lock while the item is not queued, and read
 * by the read callback while it is.
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
 * An ordered submission (dev_order.c), from ioctl to completion, then either
 * an item on the delay queue (its data freed at completion: a record reports
 * only the length) or an entry of the sink queue until a thread writes it.
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

/*
 * A file's queue of one clock with a queue of its own (dev_clock.c), and its
 * stand-in on the event queue: an item due when the first deadline of @q is,
 * by the clock's offset (or at once, for timers a clock set ended). All but
 * @q and @clock under clk_lock.
 */
struct dev_clock {
	struct tempo_delayq	*q;		/* NULL until its first timer; set under */
							/* ctl_lock and clk_lock */
	struct dev_item		proxy;		/* DI_CLOCK, on ctx->q */
	ktime_t			first;		/* what the proxy stands for, KTIME_MAX: none */
	ktime_t			at;		/* where it stands on ctx->q, KTIME_MAX: off */
	ktime_t			added;		/* earliest deadline armed since a settle began */
	u32			seq;		/* settles begun */
	u8			clock;		/* enum dev_clk */
};

struct tempo_ctx_counters {
	atomic64_t armed, rearmed, fired, cancelled, events_read, overruns;
	atomic64_t events_lost, tickets, submitted, trashed, completed;
	atomic64_t sink_bytes, sink_errors;
};

/* One open file of /dev/tempo (file->private_data). */
struct tempo_ctx {
	struct tempo_delayq	*q;		/* the event queue */
	struct dev_item		lost_item;	/* DI_LOST: the loss report */
	atomic_t		lost;		/* ordered records dropped, not yet reported */
	atomic_t		nready_order;	/* ordered records queued, unread */

	/* Timers (dev_timer.c). */
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

	/* Timers of other clocks (dev_clock.c). */
	spinlock_t		clk_lock;	/* the proxies; cos_*: with ctl_lock */
	bool			clk_announce;	/* a proxy's move made ctx->q ready; clk_lock */
	struct dev_clock	clk[DEV_CLK_QUEUES];
	atomic_t		nreal_rel;	/* live relative REALTIME timers, on ctx->q */
	ktime_t			cos_offset;	/* REALTIME's offset its COS timers were armed at */
	u32			cos_gen;	/* bumped when COS timers begin anew */
	/* On dev_clock_files once a clock queue exists; empty: ctx->q is the only queue. */
	struct list_head	clk_link;
	/* Puts DEV_CLK_DEFER's proxy on ctx->q (TEMPO_TIMER_DEFERRABLE); clk_lock. */
	struct tempo_timer	defer_timer;

	/* The ordered stream (dev_order.c). */
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

	struct tempo_user	*user;		/* what the opener's uid holds (dev_user.c) */
	struct mem_cgroup	*memcg;		/* charged for this file */
	bool			sees_module;	/* opened with CAP_PERFMON or CAP_SYS_ADMIN */

	struct tempo_ctx_counters st;
};

/* Module-wide counters, over every file (debugfs "dev", TEMPO_IOC_STATS). */
struct dev_totals {
	atomic64_t contexts, timers, submissions, bytes;
	atomic64_t opens, armed, fired, completed;
	atomic64_t dropped;	/* unread ordered records at close */
	atomic64_t sink_dropped; /* completions not yet written to the sink at close */
};

/* dev.c */
extern struct dev_totals dev_mstat;
extern const struct file_operations tempo_dev_fops;
int dev_loop_step(void);
void dev_lost_queue(struct tempo_ctx *ctx);

/* dev_timer.c */
enum dev_batch_op { DEV_BATCH_ARM, DEV_BATCH_CANCEL };

unsigned int dev_limit_timers(void);
unsigned long dev_limit_min_period(void);
void dev_timer_init(void);
int dev_batch_call(struct tempo_ctx *ctx, enum dev_batch_op op, void __user *arg,
		   bool nowait, u32 *done);
long dev_ioc_query(struct tempo_ctx *ctx, void __user *arg);
void dev_slots_free_chain(struct tempo_ctx *ctx, struct llist_node *first,
			  struct llist_node *last, unsigned int n);
size_t dev_slot_size(void);
void dev_timers_release(struct tempo_ctx *ctx);

/* dev_clock.c: in dev_clock.h */

/* dev_order.c */
unsigned int dev_limit_events(void);
unsigned int dev_limit_data(void);
unsigned int dev_limit_window(void);
long dev_ioc_ticket(struct tempo_ctx *ctx, void __user *arg);
long dev_ioc_submit(struct tempo_ctx *ctx, void __user *arg, bool nonblock);
long dev_ioc_trash(struct tempo_ctx *ctx, void __user *arg, bool nonblock);
long dev_ioc_skip(struct tempo_ctx *ctx, void __user *arg, bool nonblock);
long dev_ioc_sink(struct tempo_ctx *ctx, void __user *arg, bool nonblock);
long dev_ioc_flush(struct tempo_ctx *ctx, bool nonblock);
void dev_osub_free(struct tempo_ctx *ctx, struct tempo_osub *os);
void dev_order_release(struct tempo_ctx *ctx);

/* dev_uring.c */
int tempo_dev_uring_cmd(struct io_uring_cmd *ioucmd, unsigned int issue_flags);

/* dev_user.c */
enum dev_user_count {
	DU_CONTEXTS,	/* open files: max_user_contexts */
	DU_TIMERS,	/* timer slots: max_user_timers */
	DU_BYTES,	/* queued ordered submissions: max_user_bytes */
	DU_COPIES,	/* batch arrays held by calls in flight: max_user_copy_bytes */
	DU_NR
};

unsigned long dev_user_limit(enum dev_user_count c);
struct tempo_user *dev_user_get(struct user_namespace *ns, kuid_t uid);
void dev_user_put(struct tempo_user *u);
bool dev_user_charge(struct tempo_user *u, enum dev_user_count c, long n,
		     unsigned long limit);
void dev_user_uncharge(struct tempo_user *u, enum dev_user_count c, long n);
void dev_user_counts(struct tempo_user *opener, unsigned long *counts);

#endif /* _TEMPO_DEV_H */
