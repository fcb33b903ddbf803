/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of tempo: the timer wheel (arm, cancel, fire with its lateness) and the
 * ordered scheduler (run, trash). With CONFIG_TRACING they appear under
 * /sys/kernel/tracing/events/tempo/; for example
 *
 *	echo 1 > /sys/kernel/tracing/events/tempo/tempo_timer_fire/enable
 *	cat /sys/kernel/tracing/trace_pipe
 *
 * kmod/trace.c instantiates them (CREATE_TRACE_POINTS). Out of tree, define_trace.h
 * finds this file through TRACE_INCLUDE_PATH, which is relative to the -I$(src) that
 * kmod/Kbuild gives trace.o.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tempo

#if !defined(_TEMPO_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TEMPO_TRACE_H

#include <linux/tracepoint.h>
#include <tempo/order.h>
#include <tempo/timer.h>

/*
 * An arm in wheel.c, eager (timer_arm_tick()) or lazy (timer_arm_lazy()):
 * @timer was armed on @cpu to expire at @expires_ns (CLOCK_MONOTONIC, a
 * multiple of the tick); @rearm: it was pending.
 */
TRACE_EVENT(tempo_timer_arm,
	TP_PROTO(const struct tempo_timer *timer, unsigned int cpu, u64 expires_ns,
		 bool rearm),
	TP_ARGS(timer, cpu, expires_ns, rearm),
	TP_STRUCT__entry(
		__field(const void *, timer)
		__field(void *, fn)
		__field(u64, expires_ns)
		__field(unsigned int, cpu)
		__field(bool, rearm)
	),
	TP_fast_assign(
		__entry->timer = timer;
		__entry->fn = (void *)timer->fn;
		__entry->expires_ns = expires_ns;
		__entry->cpu = cpu;
		__entry->rearm = rearm;
	),
	TP_printk("timer=%p fn=%ps cpu=%u expires_ns=%llu rearm=%d",
		  __entry->timer, __entry->fn, __entry->cpu, __entry->expires_ns,
		  __entry->rearm)
);

/* tempo_timer_cancel(), eager or lazy: @was_pending is its return value. */
TRACE_EVENT(tempo_timer_cancel,
	TP_PROTO(const struct tempo_timer *timer, bool was_pending),
	TP_ARGS(timer, was_pending),
	TP_STRUCT__entry(
		__field(const void *, timer)
		__field(bool, was_pending)
	),
	TP_fast_assign(
		__entry->timer = timer;
		__entry->was_pending = was_pending;
	),
	TP_printk("timer=%p was_pending=%d", __entry->timer, __entry->was_pending)
);

/*
 * The dispatcher (base_dispatch() in wheel_owner.c) claimed @timer and is about to call its
 * callback. @lateness_ns is the clock reading the claim decided on minus @expires_ns:
 * not negative, since the claim runs the timer only when its tick is due on that
 * reading. The reading may be up to 16 callbacks old (DISPATCH_CLOCK_EVERY), so the
 * lateness may read low by their run time. @expires_ns is read again after the claim:
 * if another CPU arms the timer in between, it is the new deadline, and the
 * lateness may then be negative.
 */
TRACE_EVENT(tempo_timer_fire,
	TP_PROTO(const struct tempo_timer *timer, u64 expires_ns, s64 lateness_ns),
	TP_ARGS(timer, expires_ns, lateness_ns),
	TP_STRUCT__entry(
		__field(const void *, timer)
		__field(void *, fn)
		__field(u64, expires_ns)
		__field(s64, lateness_ns)
	),
	TP_fast_assign(
		__entry->timer = timer;
		__entry->fn = (void *)timer->fn;
		__entry->expires_ns = expires_ns;
		__entry->lateness_ns = lateness_ns;
	),
	TP_printk("timer=%p fn=%ps expires_ns=%llu lateness_ns=%lld",
		  __entry->timer, __entry->fn, __entry->expires_ns, __entry->lateness_ns)
);

DECLARE_EVENT_CLASS(tempo_order_put,
	TP_PROTO(const struct tempo_order *order, u64 ticket, int ret),
	TP_ARGS(order, ticket, ret),
	TP_STRUCT__entry(
		__field(const void *, order)
		__field(u64, ticket)
		__field(int, ret)
	),
	TP_fast_assign(
		__entry->order = order;
		__entry->ticket = ticket;
		__entry->ret = ret;
	),
	TP_printk("order=%p ticket=%llu ret=%d",
		  __entry->order, __entry->ticket, __entry->ret)
);

/* tempo_order_run(): @ret is its return value (1 ran in the caller, 0 stored). */
DEFINE_EVENT(tempo_order_put, tempo_order_run,
	TP_PROTO(const struct tempo_order *order, u64 ticket, int ret),
	TP_ARGS(order, ticket, ret)
);

/* tempo_order_trash(): @ret is its return value (1 the caller held the head, 0 skipped). */
DEFINE_EVENT(tempo_order_put, tempo_order_trash,
	TP_PROTO(const struct tempo_order *order, u64 ticket, int ret),
	TP_ARGS(order, ticket, ret)
);

#endif /* _TEMPO_TRACE_H */

/* This part must be outside the include guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
