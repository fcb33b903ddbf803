/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tempo timers: O(1), lock-free timers on per-CPU hierarchical wheels whose
 * callbacks run in process context on a per-CPU workqueue.
 *
 * A driver uses them where it would use a delayed_work for a timeout:
 *
 *	struct foo {
 *		struct tempo_timer timeout;
 *		...
 *	};
 *
 *	static void foo_timeout(struct tempo_timer *t)
 *	{
 *		struct foo *foo = container_of(t, struct foo, timeout);
 *		...			// process context, may sleep
 *	}
 *
 *	tempo_timer_init(&foo->timeout, foo_timeout, 0);
 *	tempo_timer_arm(&foo->timeout, 200 * NSEC_PER_MSEC);
 *	...
 *	tempo_timer_cancel(&foo->timeout);	// the common case: no expiry
 *	...
 *	tempo_timer_shutdown_sync(&foo->timeout);	// before kfree(foo)
 *
 * Concurrency contract. "-" means the two may run concurrently on the same
 * timer from any CPUs without a lock; "S" means the caller must serialise
 * them (as for timer_list); "W" means the second waits for the first.
 *
 *	            | arm | cancel | cancel_sync | shutdown_sync | callback
 *	arm         |  -  |   -    |     S       |      -        |    -
 *	cancel      |     |   -    |     -       |      -        |    -
 *	cancel_sync |     |        |     -       |      -        |    W
 *	shutdown    |     |        |             |      -        |    W
 *
 * Two concurrent arms of one timer both succeed and the timer ends up armed
 * by one of them. An arm racing with cancel_sync may leave the timer armed:
 * stop re-arming (or use shutdown_sync) before freeing, as with del_timer_sync.
 * The callback may re-arm its own timer, and may free it.
 *
 * Contexts: arm, cancel and pending are O(1), lock-free and callable from any
 * context except NMI, with no lock held or taken (see kmod/wheel.c for the
 * one exception: reprogramming this CPU's hrtimer when an arm becomes its
 * earliest expiry). cancel_sync and shutdown_sync may sleep.
 *
 * Time: CLOCK_MONOTONIC. A timer never fires before its deadline. Its expiry
 * is less than one tick late when its delay is below TEMPO_TIMER_LVL0_TICKS
 * ticks, and less than one granule of its wheel level late otherwise (a
 * granule is at most 1/8 of the delay: 12.5%); the table is at the top of
 * kmod/wheel.c, and tempo_timer_slack_ns() gives the bound for a given delay.
 * Callbacks then wait for the workqueue to run them.
 */
#ifndef _TEMPO_TIMER_H
#define _TEMPO_TIMER_H

#include <linux/bits.h>
#include <linux/types.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/atomic.h>
#include <linux/ktime.h>

struct tempo_timer;

/**
 * typedef tempo_timer_fn_t - timer callback
 * @timer: the timer that expired; use container_of() to reach its owner.
 *
 * Runs in process context on the per-CPU tempo workqueue of the CPU the timer
 * was armed on. It may sleep, re-arm @timer, or free it.
 */
typedef void (*tempo_timer_fn_t)(struct tempo_timer *timer);

/* Delays (in ticks) below this go into the wheel's first level, 1 tick fine. */
#define TEMPO_TIMER_LVL0_TICKS	63

/*
 * Flags for tempo_timer_init().
 * TEMPO_TIMER_PINNED: tempo_timer_arm() keeps an idle timer on the CPU it last
 * ran on instead of moving it to the calling CPU.
 */
#define TEMPO_TIMER_PINNED	BIT(0)
#define TEMPO_TIMER_FLAGS	(TEMPO_TIMER_PINNED)

/**
 * struct tempo_timer - an embeddable timer
 *
 * All fields are private to kmod/wheel.c. 64 bytes on 64-bit kernels: one
 * cache line when the embedding object aligns it.
 */
struct tempo_timer {
/* private: */
	struct list_head	entry;		/* wheel slot or expired list (owner CPU only) */
	struct llist_node	msg;		/* on the owner's inbox while QUEUED */
	atomic_long_t		state;		/* seq | cpu | flags, see wheel.c */
	u64			expires;	/* absolute deadline, in wheel ticks */
	tempo_timer_fn_t	fn;
	unsigned long		linked_seq;	/* seq this timer was placed with (owner only) */
	u32			flags;
	u16			want_cpu;	/* where the latest arm wants it */
	u16			idx;		/* wheel slot index (owner only) */
};

void tempo_timer_init(struct tempo_timer *timer, tempo_timer_fn_t fn,
		      unsigned int flags);
int tempo_timer_arm(struct tempo_timer *timer, u64 delay_ns);
int tempo_timer_arm_on(struct tempo_timer *timer, int cpu, u64 delay_ns);
int tempo_timer_arm_at(struct tempo_timer *timer, int cpu, ktime_t deadline);
bool tempo_timer_cancel(struct tempo_timer *timer);
bool tempo_timer_cancel_sync(struct tempo_timer *timer);
bool tempo_timer_shutdown_sync(struct tempo_timer *timer);
bool tempo_timer_pending(const struct tempo_timer *timer);
bool tempo_timer_expires(const struct tempo_timer *timer, u64 *expires_ns);

u64 tempo_timer_tick_ns(void);
u64 tempo_timer_max_delay_ns(void);
u64 tempo_timer_slack_ns(u64 delay_ns);

/* Pass as @cpu to tempo_timer_arm_at() to arm on the calling CPU. */
#define TEMPO_CPU_LOCAL		(-1)

#endif /* _TEMPO_TIMER_H */
