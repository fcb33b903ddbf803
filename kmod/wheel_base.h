/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-CPU bases of the timer wheel, as the wheel's files share them:
 * kmod/wheel.c (the state word, arm and cancel, the owner's placement),
 * kmod/wheel_owner.c (the owner's collection, interrupt callbacks and
 * dispatch), kmod/wheel_inbox.c (the messages to a timer's owner and the
 * kicks), kmod/wheel_attr.c (a timer's init, slack and
 * queries), kmod/wheel_sync.c (cancel_sync, shutdown_sync),
 * kmod/wheel_cpu.c (module init and exit, CPU hotplug, the snapshots the
 * tests and debugfs read), kmod/wheel_defer.c (the deferrable wheel's
 * carrier) and kmod/wheel_coarse.c (the jiffies clock of COARSE arms). The
 * design is in the DOC sections of those files, the top one of kmod/wheel.c
 * first (I1: a base's lists are its CPU's alone, with interrupts off).
 *
 * Here: struct tempo_base, the loaded wheel's parameters, the tick
 * arithmetic of that wheel (over the exact divisions of kmod/wheel.h), the
 * helpers inlined into the hot paths, and the calls one file makes into
 * another. Not an API: only kmod/wheel*.c include it.
 */
#ifndef _TEMPO_WHEEL_BASE_H
#define _TEMPO_WHEEL_BASE_H

#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/llist.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/timer.h>
#include <linux/workqueue.h>

#include "wheel.h"

/* An llist head value no real node can have: the inbox of an offline base. */
#define INBOX_SEALED	((struct llist_node *)1UL)

struct tempo_base {
	/* Owner CPU only, interrupts disabled (I1). */
	struct tempo_wheel	wheel;
	struct list_head	expired;
	u64			programmed;	/* when the hrtimer is armed for, ns */
	struct hrtimer		hrtimer;
	struct work_struct	work;
	struct tempo_wheel_stats stats;
	unsigned int		cpu;
	bool			online;		/* read remotely with READ_ONCE */
	struct tempo_timer	*running;	/* read by cancel_sync */
	/* IRQ: owner CPU only, interrupts disabled, within base_process() (I1). */
	struct list_head	irq_due;	/* due IRQ timers, to run there */
	struct tempo_timer	*irq_running;	/* read by cancel_sync */
	/* DEFERRABLE: owner CPU only, interrupts disabled (I1). */
	struct tempo_wheel	dwheel;		/* never programs the hrtimer */
	u64			dprogrammed;	/* tick the carrier is armed for */
	struct timer_list	carrier;	/* TIMER_DEFERRABLE | TIMER_PINNED */

	/* Written by other CPUs. */
	struct llist_head	inbox ____cacheline_aligned_in_smp;
	call_single_data_t	csd;		/* kicks from other CPUs */
	struct irq_work		kick;		/* kicks from this CPU */
	struct llist_head	dinbox ____cacheline_aligned_in_smp;	/* never kicked */
	atomic_t		dkick_armed;	/* dkick is queued or about to run */
	struct timer_list	dkick;		/* drains dinbox; TIMER_DEFERRABLE */
};

/* The loaded wheel (kmod/wheel.c), set once by tempo_wheel_init() (kmod/wheel_cpu.c). */
extern struct tempo_base __percpu *bases;
extern struct workqueue_struct *dispatch_wq;
extern u32 tick_ns;
extern struct tempo_tick_div tick_recip;
extern unsigned int wheel_depth;
/* The first slot index of the far (lazy) levels, TEMPO_WHEEL_SLOTS for none. */
extern unsigned int lazy_idx;
extern u64 max_delay_ns;		/* tempo_timer_max_delay_ns() */
extern struct tempo_lazy lazy_rule;	/* tempo_lazy_ok(), LAZY */
extern u64 coarse_max_delay_ns;		/* the same, less the coarse pad */
extern u64 jiffies_base_ns;		/* COARSE: jiffies_calibrate() */

/* ---------------------------------------------------------------------- */
/* Time: ticks and near boundaries of the loaded wheel.                     */

/* ns / tick_ns by a multiplication (see wheel.h; exact for every @ns) */
static inline u64 ns_to_tick_floor(u64 ns)
{
	return tempo_tick_div(&tick_recip, ns);
}

/* The first tick at or after @ns: a timer due then is never early. */
static inline u64 ns_to_tick_ceil(u64 ns)
{
	return tempo_tick_div(&tick_recip, ns + tick_ns - 1);
}

static inline u64 now_tick(void)
{
	return ns_to_tick_floor(ktime_get_ns());
}

/* The first tick at which a timer of deadline @expires (ns) is due. */
static inline u64 expiry_tick(u64 expires)
{
	return ns_to_tick_ceil(expires);
}

/*
 * Whether a timer whose flags are @flags, of deadline @expires, is due at
 * @now (both ns): a FINE timer from its deadline on, any other from the start
 * of its expiry tick, the first at or after its deadline. The same-tick
 * re-arms rely on the latter (LAZY): a pending tick timer re-armed to a later
 * deadline of the same tick keeps the one it has, and its expiry tick serves
 * both, even when a collection finds it before that tick (a lazily re-armed
 * timer in an overdue far slot).
 */
static inline bool expiry_due(u32 flags, u64 expires, u64 now)
{
	if (flags & TEMPO_TIMER_FINE)
		return expires <= now;
	return expires <= ns_to_tick_floor(now) * tick_ns;
}

/* The first boundary of the near level at or after @ns (FINE, wheel.h). */
static inline u64 near_of(u64 ns)
{
	return tempo_near_of(&tick_recip, ns);
}

/* The last boundary of the near level reached at @ns. */
static inline u64 near_floor(u64 ns)
{
	return tempo_near_floor(&tick_recip, ns);
}

/* The instant of boundary @b. */
static inline u64 near_ns(u64 b)
{
	return tempo_near_ns(&tick_recip, b);
}

/*
 * CLOCK_MONOTONIC at the start of the current jiffy, for COARSE arms: jiffies
 * times TICK_NSEC plus jiffies_base_ns (u64 arithmetic, which wraps as jiffies
 * does; see jiffies_calibrate()). One load of jiffies, a multiply and an add.
 */
static inline u64 jiffies_now_ns(void)
{
	return (u64)jiffies * TICK_NSEC + jiffies_base_ns;
}

/* ---------------------------------------------------------------------- */
/* Timers and bases.                                                        */

/*
 * Whether @t is deferrable: its wheel is dwheel and messages about it go to
 * the deferrable inbox (DEFERRABLE). Fixed at tempo_timer_init(); the read is
 * marked because tempo_timer_set_slack() may store the word meanwhile.
 */
static inline bool timer_defers(const struct tempo_timer *t)
{
	return READ_ONCE(t->flags) & TEMPO_TIMER_DEFERRABLE;
}

/*
 * Whether @t's callback runs in the interrupt that finds it due (IRQ), not on
 * the workqueue. Fixed at tempo_timer_init(), marked as timer_defers().
 */
static inline bool timer_irq(const struct tempo_timer *t)
{
	return READ_ONCE(t->flags) & TEMPO_TIMER_IRQ;
}

/* The wheel of @base that holds a timer whose flags are @flags, by its kind. */
static inline struct tempo_wheel *base_wheel_of(struct tempo_base *base, u32 flags)
{
	return unlikely(flags & TEMPO_TIMER_DEFERRABLE) ? &base->dwheel : &base->wheel;
}

/* The wheel of @base that holds @t, by its kind. */
static inline struct tempo_wheel *base_wheel(struct tempo_base *base,
					     const struct tempo_timer *t)
{
	return base_wheel_of(base, READ_ONCE(t->flags));
}

/*
 * Arm @base's hrtimer for @at (ns) if that is earlier than planned (I5).
 * Owner, irqs off. Inline: it is the owner's every placement's last step.
 */
static inline void base_program(struct tempo_base *base, u64 at)
{
	if (at >= base->programmed)
		return;
	base->programmed = at;
	hrtimer_start(&base->hrtimer, ns_to_ktime(at), HRTIMER_MODE_ABS_PINNED);
}

enum settle_how {
	SETTLE_POPPED = 1,	/* t's message was just taken off the inbox */
	SETTLE_UNLINKED = 2,	/* caller already took t off its list */
	SETTLE_DUE = 4,		/* the dispatcher's claim: run it if still due */
	SETTLE_COLLECTED = 8,	/* its slot was just collected (base_collect()) */
};

/* ---------------------------------------------------------------------- */
/* Across the wheel's files.                                                */

/* kmod/wheel.c: the owner's placement */
bool base_settle(struct tempo_base *base, struct tempo_timer *t, unsigned int how, u64 now);
bool base_near_move(struct tempo_base *base, struct tempo_timer *t, u64 expires, u64 now_tick);
__cold bool base_accepts(unsigned int cpu);
__cold unsigned int fallback_cpu(unsigned int avoid);
__cold void base_count_hold(struct tempo_base *base, long old, long new);

/* kmod/wheel_inbox.c: messages to a timer's owner, and kicks */
void timer_send(struct tempo_base *local, struct tempo_timer *t, unsigned int cpu,
		bool defer);
struct llist_node *inbox_seal(struct llist_head *inbox);
void base_kick_csd(void *info);
void base_dkick_fn(struct timer_list *tl);

/* kmod/wheel_owner.c: the owner's run */
enum hrtimer_restart base_hrtimer_fn(struct hrtimer *hrtimer);
void base_dispatch(struct work_struct *work);
void base_kicked(struct tempo_base *base);
void base_kick_irq_work(struct irq_work *work);

/* kmod/wheel_coarse.c */
void jiffies_calibrate(void);

/* kmod/wheel_defer.c: the deferrable wheel's carrier */
void base_carry(struct tempo_base *base, u64 bucket_expiry);
void base_carrier_fn(struct timer_list *tl);

#endif /* _TEMPO_WHEEL_BASE_H */
