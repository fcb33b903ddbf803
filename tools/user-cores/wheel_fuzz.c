// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: random operation sequences on the wheel (three simulated
 * CPUs, a fake clock, IPIs delivered when the input says so) against a
 * reference model: per timer, pending or not and its deadline. Checks:
 *  - arm and cancel return what the model says (pending or not);
 *  - exactly once: a callback runs only for a pending timer, once;
 *  - never early: not before the deadline;
 *  - bounded lateness: no later than deadline + tempo_timer_slack_ns(delay)
 *    (the documented bound, include/tempo/timer.h) once IPIs are delivered,
 *    for the last delay set: postpone chains (the deadline moved later by a
 *    little, again and again, which the wheel does lazily in far slots) are
 *    one of the operations;
 *  - TEMPO_TIMER_COARSE timers (the odd ones): never early against the
 *    deadline now + delay while jiffies are current (as the userspace ones
 *    always are), late by less than a jiffy plus
 *    tempo_timer_slack_ns(delay + TICK_NSEC); re-armed while pending to
 *    the deadline they hold, within the bound of the arm that set it
 *    (a re-arm that moves the timer is within its own: the larger of the
 *    two is checked);
 *  - timers 4 and 5 have a slack (include/tempo/timer.h, "tempo timer
 *    slack"), set anew from the input before each arm: late by no more
 *    than max(slack, the bound above), never early;
 *  - the callback may free its timer: no base holds it when it runs.
 * Any failure abort()s so libFuzzer saves the input.
 */
#include <linux/types.h>
#include "wheel_harness.h"

#define NCPU	3
#define NT	6
#define TICK	1000000ULL

struct mtimer {
	struct tempo_timer	timer;
	bool			pending;
	u64			deadline, bound;
};

static struct mtimer tm[NT];
/* Lateness is only bounded while the harness delivers hrtimers on time. */
static bool held_back;

static void fail(const char *what, unsigned int i)
{
	fprintf(stderr, "wheel_fuzz: timer %u: %s (now %llu deadline %llu bound %llu)\n",
		i, what, ktime_get_ns(), tm[i].deadline, tm[i].bound);
	abort();
}

static void fn(struct tempo_timer *t)
{
	struct mtimer *m = container_of(t, struct mtimer, timer);
	unsigned int i = m - tm;
	u64 now = ktime_get_ns();

	if (!m->pending)
		fail("fired while not pending (double or ghost fire)", i);
	if (now < m->deadline)
		fail("fired early", i);
	if (now > m->bound && !held_back)
		fail("fired later than deadline + slack", i);
	if (h_state(t) & TT_HELD)
		fail("callback runs while a base holds the timer", i);
	m->pending = false;
}

static void check_lateness(void)
{
	u64 now = ktime_get_ns();
	unsigned int i;

	for (i = 0; i < NT; i++)
		if (tm[i].pending && now > tm[i].bound && !held_back)
			fail("still pending after deadline + slack", i);
}

static u64 delay_of(u8 a, u8 b)
{
	/* Mostly short delays, some up to minutes: every level gets used. */
	u64 x = ((u64)a << 8) | b;

	switch (a >> 6) {
	case 0: return x % (70 * TICK / 1000) * 1000;	/* < 70 ticks */
	case 1: return x * 37 * 1000;			/* < 0.6 s */
	case 2: return x * x * 31;			/* < 2 min */
	default: return x % 3 ? x * 1000003 : x;	/* < 16 s */
	}
}

static void arm(unsigned int cpu, unsigned int i, int on, u64 delay, u64 slack)
{
	u64 now = ktime_get_ns(), pad = (i & 1) ? TICK_NSEC : 0, bound;
	/* The jiffy starts at a multiple of TICK_NSEC: the wheel was loaded at one. */
	bool same = pad && tm[i].pending &&
		    tm[i].timer.expires == now / TICK_NSEC * TICK_NSEC + pad + delay;
	int ret;

	tempo_sim_set_cpu(cpu);
	if (i >= 4 && tempo_timer_set_slack(&tm[i].timer, slack))
		fail("set_slack refused a slack below the maximum delay", i);
	ret = on < 0 ? tempo_timer_arm(&tm[i].timer, delay) :
		       tempo_timer_arm_on(&tm[i].timer, on, delay);
	if (ret < 0)
		fail("arm failed", i);
	if (ret != tm[i].pending)
		fail("arm's return disagrees with the model", i);
	bound = now + delay + pad + max(tempo_timer_slack_ns(delay + pad),
					tempo_timer_get_slack(&tm[i].timer));
	tm[i].pending = true;
	tm[i].deadline = now + delay;
	tm[i].bound = same ? max(tm[i].bound, bound) : bound;
}

/* Move a pending timer's deadline later by @more: a postpone. */
static void postpone(unsigned int cpu, unsigned int i, u64 more)
{
	u64 now = ktime_get_ns();

	if (!tm[i].pending || tm[i].deadline + more <= now)
		return;
	arm(cpu, i, -1, tm[i].deadline + more - now, more * 8);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	size_t p;
	unsigned int i;

	tempo_sim_init(NCPU, false, true);
	held_back = false;
	/*
	 * Loaded at the start of a jiffy: with a fake clock that does not move,
	 * the wheel's jiffies calibration keeps its one reading, exact there.
	 */
	tempo_sim_clock_set(1000 * TICK);
	if (tempo_wheel_init(TICK, 10))
		abort();
	tempo_sim_clock_advance((size ? data[0] : 0) * 7919);
	for (i = 0; i < NT; i++) {
		tempo_timer_init(&tm[i].timer, fn, (i & 1) ? TEMPO_TIMER_COARSE : 0);
		tm[i].pending = false;
	}
	for (p = 1; p + 3 < size; p += 4) {
		u8 op = data[p], a = data[p + 2], b = data[p + 3];
		unsigned int cpu = (op >> 4) % NCPU, t = data[p + 1] % NT;

		switch (op & 7) {
		case 0:
			arm(cpu, t, -1, delay_of(a, b), delay_of(b, a));
			break;
		case 1:		/* postpone by up to ~16 ticks, by 1 ms steps or less */
			postpone(cpu, t, ((u64)a << 8 | b) * (TICK / 4096));
			break;
		case 2:
			arm(cpu, t, (data[p + 1] >> 4) % NCPU, delay_of(a, b), delay_of(b, a) / 4);
			break;
		case 3:
			tempo_sim_set_cpu(cpu);
			if (tempo_timer_cancel(&tm[t].timer) != tm[t].pending)
				fail("cancel's return disagrees with the model", t);
			tm[t].pending = false;
			break;
		case 4:		/* deliver this CPU's IPIs only */
			tempo_sim_set_cpu(cpu);
			tempo_sim_run_csds();
			break;
		case 5:		/* run this CPU's work items only */
			tempo_sim_set_cpu(cpu);
			tempo_sim_run_works();
			break;
		case 6:		/* time passes; only this CPU's hrtimer runs */
			if (a & 1) {
				held_back = true;
				tempo_sim_clock_advance(delay_of(a, b) / 16);
				tempo_sim_set_cpu(cpu);
				tempo_sim_run_hrtimers();
				break;
			}
			fallthrough;
		default:	/* time passes, everything is delivered */
			h_drive_until(ktime_get_ns() + delay_of(a, b) / 4);
			if (!(a & 1))
				check_lateness();
			break;
		}
	}
	/* Run everything out: each pending timer fires once, in its bounds. */
	h_drive_until(ktime_get_ns() + 200 * NSEC_PER_SEC);
	check_lateness();
	for (i = 0; i < NT; i++)
		if (tm[i].pending)
			fail("never fired", i);
	tempo_sim_set_cpu(0);
	tempo_wheel_exit();
	if (tempo_user_warnings)
		abort();
	return 0;
}
