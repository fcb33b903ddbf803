/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/tempo's clocks (dev_clock.c): a caller's clocks at one instant, a
 * timer's clock and its queue, and the calls the rest of the file interface
 * makes into dev_clock.c. The clock of a spec, its deadline and a record's
 * times are inline: every arm, read and cancel asks (MONOTONIC's cost is a
 * compare or two). dev.c and dev_timer.c include it; what the files share
 * otherwise is in dev.h.
 */
#ifndef _TEMPO_DEV_CLOCK_H
#define _TEMPO_DEV_CLOCK_H

#include <linux/ktime.h>
#include <linux/types.h>

#include <tempo/delayq.h>
#include <uapi/tempo.h>

#include "clock.h"
#include "dev.h"

/* A caller's clocks at one instant, for one call (dev_now_get()). */
struct dev_now {
	ktime_t			mono;		/* ktime_get() */
	ktime_t			off_boot;	/* BOOTTIME - MONOTONIC then */
	ktime_t			off_real;	/* REALTIME - MONOTONIC then */
	struct tempo_timens	ns;		/* the caller's time namespace */
};

void dev_now_get(struct dev_now *now);

/* The host clock of a dev clock's queue: of its deadlines and readings. */
static inline clockid_t dev_clock_host(u8 clock)
{
	switch (clock) {
	case DEV_CLK_BOOT:
	case DEV_CLK_BOOT_ALARM:
		return CLOCK_BOOTTIME;
	case DEV_CLK_REAL:
	case DEV_CLK_COS:
	case DEV_CLK_REAL_ALARM:
		return CLOCK_REALTIME;
	default:
		return CLOCK_MONOTONIC;
	}
}

/* The clock a caller named, for its namespace offset and its records' flags. */
static inline clockid_t dev_clock_user(u8 clock)
{
	return clock == DEV_CLK_REAL_REL ? CLOCK_REALTIME : dev_clock_host(clock);
}

/* The host's reading of @clock's queue clock at @now's instant. */
static inline ktime_t dev_now_of(const struct dev_now *now, u8 clock)
{
	switch (dev_clock_host(clock)) {
	case CLOCK_BOOTTIME:
		return now->mono + now->off_boot;
	case CLOCK_REALTIME:
		return now->mono + now->off_real;
	default:
		return now->mono;
	}
}

/* Does a timer of @clock wake the machine (TEMPO_ARM_ALARM)? */
static inline bool dev_clock_is_alarm(u8 clock)
{
	return clock >= DEV_CLK_BOOT_ALARM;
}

/**
 * dev_clock_of() - the clock a spec's flags name
 * @flags: tempo_timer_spec.flags, no unknown bit
 * @clock: receives the enum dev_clk
 *
 * Return: 0, or -EINVAL for both clocks, or CANCEL_ON_SET other than with
 * TEMPO_ARM_ABS | TEMPO_ARM_REALTIME, or DEFERRABLE with another clock than
 * MONOTONIC, or ALARM with neither clock or with either of those. A
 * relative REALTIME alarm is an absolute REALTIME one (as timerfd's).
 */
static inline int dev_clock_of(u32 flags, u8 *clock)
{
	bool abs = flags & TEMPO_ARM_ABS;

	switch (flags & (TEMPO_ARM_BOOTTIME | TEMPO_ARM_REALTIME)) {
	case 0:
		*clock = DEV_CLK_MONO;
		break;
	case TEMPO_ARM_BOOTTIME:
		*clock = DEV_CLK_BOOT;
		break;
	case TEMPO_ARM_REALTIME:
		*clock = abs ? DEV_CLK_REAL : DEV_CLK_REAL_REL;
		break;
	default:
		return -EINVAL;
	}
	if (flags & TEMPO_ARM_CANCEL_ON_SET) {
		if (*clock != DEV_CLK_REAL)
			return -EINVAL;
		*clock = DEV_CLK_COS;
	}
	if (flags & TEMPO_ARM_DEFERRABLE) {
		if (*clock != DEV_CLK_MONO)
			return -EINVAL;
		*clock = DEV_CLK_DEFER;
	}
	if (flags & TEMPO_ARM_ALARM) {
		if (*clock == DEV_CLK_BOOT)
			*clock = DEV_CLK_BOOT_ALARM;
		else if (*clock == DEV_CLK_REAL || *clock == DEV_CLK_REAL_REL)
			*clock = DEV_CLK_REAL_ALARM;
		else
			return -EINVAL;
	}
	return 0;
}

/**
 * dev_clock_deadline() - a spec's deadline, in its queue's clock, on the host
 * @now: the batch's clocks and the caller's namespace
 * @clock: the spec's enum dev_clk
 * @abs: TEMPO_ARM_ABS: @value is a deadline of the caller's clock, in its
 *	namespace; else a delay from @now
 * @value: the spec's value
 * @max: the longest delay (tempo_timer_max_delay_ns())
 * @deadline: receives it
 *
 * Return: 0, or -ERANGE beyond @max from now.
 */
static inline int dev_clock_deadline(const struct dev_now *now, u8 clock, bool abs, u64 value,
				     u64 max, ktime_t *deadline)
{
	ktime_t host = dev_now_of(now, clock);
	s64 t;
	int err;

	if (!abs) {
		if (value > max)
			return -ERANGE;
		*deadline = ktime_add_ns(host, value);
		return 0;
	}
	err = tempo_time_to_host(value, host, tempo_timens_offset(&now->ns, dev_clock_user(clock)),
				 max, &t);
	if (!err)
		*deadline = t;
	return err;
}

/**
 * dev_clock_to_user() - a time of a timer's queue clock, as its caller reads it
 * @now: the caller's namespace (@now->ns) and, for a relative REALTIME
 *	timer, REALTIME's offset (@now->off_real) at the call
 * @clock: the timer's enum dev_clk
 * @t: the host's time, in the queue's clock
 *
 * Return: the time in the caller's clock and namespace (0 before it began).
 */
static inline u64 dev_clock_to_user(const struct dev_now *now, u8 clock, ktime_t t)
{
	if (clock == DEV_CLK_REAL_REL)
		t = ktime_add(t, now->off_real);
	return tempo_time_to_user(t, tempo_timens_offset(&now->ns, dev_clock_user(clock)));
}

/* A record's flags for the clock of its times. */
static inline u16 dev_clock_evflags(u8 clock)
{
	switch (dev_clock_user(clock)) {
	case CLOCK_BOOTTIME:
		return TEMPO_EVF_BOOTTIME;
	case CLOCK_REALTIME:
		return TEMPO_EVF_REALTIME;
	default:
		return 0;
	}
}

/**
 * dev_clock_queue() - the queue that holds timers of a clock
 * @ctx: the file
 * @clock: an enum dev_clk
 *
 * Return: ctx->q, or the clock's own queue (NULL before its first timer).
 */
static inline struct tempo_delayq *dev_clock_queue(struct tempo_ctx *ctx, u8 clock)
{
	return clock < DEV_CLK_BOOT ? ctx->q : ctx->clk[clock - DEV_CLK_BOOT].q;
}

/* Timers per dev_clock_cancel(): its critical sections' bound. */
#define DEV_CANCEL_CHUNK	32

int dev_clock_prepare(struct tempo_ctx *ctx, u8 clock, bool nowait);
int dev_clock_may_wake(void);
bool dev_clock_ended(struct tempo_ctx *ctx, const struct dev_item *it);
unsigned int dev_clock_arm(struct tempo_ctx *ctx, u8 clock,
			   struct tempo_delayq_node *const *nodes, const ktime_t *deadlines,
			   unsigned int n, struct dev_item *old, tempo_delayq_requeue_fn fn,
			   void *arg, int *errp);
unsigned int dev_clock_cancel(struct tempo_ctx *ctx, struct tempo_delayq_node *const *nodes,
			      unsigned int n, bool *removed);
int dev_clock_read_one(struct tempo_ctx *ctx, unsigned int i, tempo_delayq_consume_fn fn,
		       void *arg, unsigned int max, bool *ended, u32 *gen);
unsigned int dev_clock_queued(struct tempo_ctx *ctx, unsigned int i, unsigned int *ready,
			      bool *proxy_due);
void dev_clock_ctx_init(struct tempo_ctx *ctx);
void dev_clock_release(struct tempo_ctx *ctx);
void dev_clock_fdinfo(struct seq_file *m, struct tempo_ctx *ctx);
void dev_clock_debugfs(struct dentry *dir);
int dev_clock_init(void);
void dev_clock_exit(void);

#endif /* _TEMPO_DEV_CLOCK_H */
