/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The clock core's interface to the other cores and to the file interface:
 * which clocks a delay queue may keep, a clock's reading and its offset from
 * CLOCK_MONOTONIC, the chain that hears of clock changes, and a caller's time
 * namespace. kmod/clock.c has the design ("DOC: tempo clocks").
 *
 * Not a public API. The arithmetic of time namespaces is here, inline and
 * pure, so that the tests reach its edges directly: kunit/clock_test.c and
 * tools/user-cores/clock_det_test.c.
 */
#ifndef _TEMPO_CLOCK_H
#define _TEMPO_CLOCK_H

#include <linux/types.h>
#include <linux/ktime.h>

struct notifier_block;

/*
 * A caller's time-namespace offsets, ns: in its namespace a clock reads the
 * host's reading plus the offset. CLOCK_REALTIME has none.
 */
struct tempo_timens {
	s64	mono;
	s64	boot;
};

/**
 * tempo_time_to_host() - a caller's absolute time, in the host's clock
 * @value: the caller's time, ns of its namespace's clock; unsigned: a value
 *	beyond S64_MAX is far in the future, not negative
 * @now: the host's reading of that clock
 * @off: the caller's offset for that clock (tempo_timens_offset())
 * @max: how far after the caller's now a deadline may lie, ns
 * @host: out: the host's time of @value; 0 for a time before the host's 0
 *	(a namespace whose clock is ahead of the host's reads at least @off:
 *	the caller names an instant before its clock began, long past)
 *
 * The caller's now is @now + @off, which the kernel keeps at 0 or later
 * and, for MONOTONIC and BOOTTIME, within KTIME_MAX / 2 plus the uptime
 * (proc_timens_set_offset() refuses offsets that would leave that range,
 * and the clocks only grow); REALTIME has no offset and stays decades below
 * KTIME_MAX (settimeofday() refuses more, TIME_SETTOD_SEC_MAX); @max is a
 * few months. So no sum here wraps, and every @host accepted is at most
 * @now + @max, far below KTIME_MAX.
 *
 * Return: 0, or -ERANGE if @value lies more than @max after the caller's now.
 */
static inline int tempo_time_to_host(u64 value, s64 now, s64 off, u64 max, s64 *host)
{
	s64 unow = now + off;

	/* unow >= 0; value > unow compares as unsigned, whatever value is. */
	if (value > (u64)unow && value - (u64)unow > max)
		return -ERANGE;
	/* value <= unow + max < S64_MAX: the difference is an s64. */
	*host = (s64)value - off;
	if (*host < 0)
		*host = 0;
	return 0;
}

/**
 * tempo_time_to_user() - a host time, as a caller in a namespace reads it
 * @host: the host's time, ns, 0 or later
 * @off: the caller's offset for that clock
 *
 * Return: @host + @off; 0 if that is before the caller's clock began (a
 * namespace whose clock is behind the host's reads a time before it was
 * made, or a time of another namespace's, as 0).
 */
static inline u64 tempo_time_to_user(s64 host, s64 off)
{
	/* |off| and host are both below KTIME_MAX / 2 + uptime: no wrap. */
	s64 t = host + off;

	return t < 0 ? 0 : t;
}

/**
 * tempo_timens_offset() - a caller's offset for one clock
 * @ns: the caller's offsets (tempo_timens_get())
 * @clock: CLOCK_MONOTONIC, CLOCK_BOOTTIME or CLOCK_REALTIME
 *
 * Return: the offset in ns, 0 for CLOCK_REALTIME.
 */
static inline s64 tempo_timens_offset(const struct tempo_timens *ns, clockid_t clock)
{
	if (clock == CLOCK_MONOTONIC)
		return ns->mono;
	return clock == CLOCK_BOOTTIME ? ns->boot : 0;
}

/* kmod/clock.c */
bool tempo_clock_valid(clockid_t clock);
ktime_t tempo_clock_read(clockid_t clock);
ktime_t tempo_clock_offset(clockid_t clock);
int tempo_clock_watch(void);
int tempo_clock_notifier_register(struct notifier_block *nb);
int tempo_clock_notifier_unregister(struct notifier_block *nb);
void tempo_timens_get(struct tempo_timens *ns);

#endif /* _TEMPO_CLOCK_H */
