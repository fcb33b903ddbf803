// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: timer wheel: coarse
 *
 * A COARSE arm reads the jiffies, and dates "now" c by the start of the
 * current jiffy: jiffies * TICK_NSEC + B (jiffies_now_ns(): a load, a
 * multiply, an add). The kernel makes jiffy j current no earlier than its
 * start T(j) = j * TICK_NSEC + B0, B0 constant (tick_do_update_jiffies64()),
 * and B >= B0 is measured at load (jiffies_calibrate(), which measures again
 * while the jiffies were overdue): it exceeds B0 by e, the tick's own
 * latency, microseconds. So c >= T(j), and s = now - c stays
 * at most TICK_NSEC while the jiffies are current (jiffy j + 1 made current
 * within e of T(j + 1)); s >= -e. An arm of delay d takes the deadline
 * c + TICK_NSEC + d, and places the timer from c. So it is never early while
 * s <= TICK_NSEC, early by s - TICK_NSEC when the jiffies were that overdue
 * at the arm, and late (beyond the pad, TICK_NSEC - s, at most a jiffy and e)
 * by the wheel's bound for a delay of d + TICK_NSEC. Within a jiffy the same
 * delay gives the same deadline: a re-arm has only to compare (LAZY).
 *
 * ktime_get_coarse_ns() would not do: it is where timekeeping last
 * accumulated a whole interval, at the last tick, and that is not in phase
 * with the jiffies; it lags CLOCK_MONOTONIC by up to two jiffies while they
 * are current (kunit/wheel_test.c, live_coarse_reading_current), and it is a
 * call and a seqcount loop.
 *
 * The placement reading c is ahead of the clock by e at most, in the first
 * microseconds of a jiffy. Forwarding the wheel clock to c's tick can then
 * put it a tick ahead of real time for that long, which costs only a timer
 * armed meanwhile for a deadline already past: it waits for that tick, the
 * next one. Precise timers keep their bound. tempo_timer_arm_at() of a
 * COARSE timer places it from c and keeps its absolute deadline exact: never
 * early.
 */

#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>

#include "wheel.h"
#include "wheel_base.h"

/*
 * The kernel makes jiffy j current at CLOCK_MONOTONIC T(j) = j * TICK_NSEC +
 * B, for a constant B (tick_do_update_jiffies64() moves last_jiffies_update
 * by whole TICK_NSECs, and jiffies with it), never before T(j): a clock
 * reading t taken after jiffies read j gives B <= t - j * TICK_NSEC. Take
 * the least of such bounds over three jiffy changes: the first reading after
 * a change exceeds B only by the tick's own latency (tens of microseconds
 * under User-Mode Linux). So jiffies_now_ns() is never before the start of
 * the jiffy and late by that excess at most. An attempt spins for four
 * jiffies at most; one that saw fewer than three changes ran while the
 * jiffies were overdue (the CPU that advances them held off, a vCPU the host
 * descheduled: every bound it read may be late by that much), and the next
 * attempt keeps the least bound so far, eight attempts at most. Gives up at
 * once on a clock that does not move (a test's fake one: its first reading
 * is kept).
 */
void jiffies_calibrate(void)
{
	unsigned long j0 = jiffies;
	u64 start = ktime_get_ns(), best = start - (u64)j0 * TICK_NSEC;
	unsigned int attempt, changes = 0, i;

	for (attempt = 0; attempt < 8 && changes < 3; attempt++) {
		j0 = jiffies;
		start = ktime_get_ns();
		changes = 0;
		for (i = 1; changes < 3; i++) {
			unsigned long j = jiffies;
			u64 t = ktime_get_ns(), b = t - (u64)j * TICK_NSEC;

			if ((s64)(b - best) < 0)
				best = b;
			if (j != j0) {
				j0 = j;
				changes++;
			}
			if (i == 1024 && t == start)
				goto out;
			if (t - start > 4 * TICK_NSEC)
				break;
			cpu_relax();
		}
	}
out:
	jiffies_base_ns = best;
}
