// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "tempo_clock": the clock core (kmod/clock.c, kmod/clock.h) and
 * delay queues of CLOCK_BOOTTIME and CLOCK_REALTIME (kmod/delayq.c), and of
 * their alarm clocks, whose alarm is checked where it is aimed
 * (tempo_delayq_stats()' alarm): a suspend that only it ends is
 * tools/uapi-tests/clocks_test.c's.
 *
 * The conversion arithmetic at its edges, table by table; then queues of
 * other clocks against the real clocks, the wall clock stepped by
 * do_settimeofday64() and put back as it would have run. Each case was made
 * to fail once by breaking the code it covers ("Fails if"). Lateness is
 * never an error here (TCG with KASAN); earliness always is.
 */

#include <kunit/test.h>
#include <linux/alarmtimer.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/timekeeping.h>
#include <tempo/delayq.h>
#include <tempo/timer.h>

#include "clock.h"
#include "internal.h"
#include "testing.h"

#define CT_MS		NSEC_PER_MSEC
#define CT_HOUR		(3600 * NSEC_PER_SEC)
/* The most a namespace's clock may read (proc_timens_set_offset()): KTIME_SEC_MAX / 2 s. */
#define CT_NS_MAX	((s64)(KTIME_SEC_MAX / 2) * NSEC_PER_SEC)

struct ct_to_host {
	const char	*what;
	u64		value;
	s64		now, off;
	int		err;
	s64		host;
};

/*
 * tempo_time_to_host() at its edges: offsets near their limits either way,
 * deadlines at and one past max_delay_ns, values beyond S64_MAX, and times
 * before the caller's clock began. Fails if: the range check compares signed
 * (a value beyond S64_MAX passes), or the clamp at 0 is gone.
 */
static void clock_time_to_host_edges(struct kunit *test)
{
	const u64 max = tempo_timer_max_delay_ns();
	const s64 now = 1000 * NSEC_PER_SEC, ahead = CT_NS_MAX - now;
	const struct ct_to_host t[] = {
		{ "host clock, now", now, now, 0, 0, now },
		{ "host clock, at the limit", now + max, now, 0, 0, now + max },
		{ "host clock, 1 ns past it", now + max + 1, now, 0, -ERANGE },
		{ "2^63, far future, not negative", 1ULL << 63, now, 0, -ERANGE },
		{ "U64_MAX", U64_MAX, now, 0, -ERANGE },
		{ "0: long past", 0, now, 0, 0, 0 },
		{ "ahead to the limit, its now", CT_NS_MAX, now, ahead, 0, now },
		{ "ahead, at max", CT_NS_MAX + max, now, ahead, 0, now + max },
		{ "ahead, 1 ns past max", CT_NS_MAX + max + 1, now, ahead, -ERANGE },
		{ "ahead, before its clock began", 5, now, ahead, 0, 0 },
		{ "ahead, its clock's first instant", ahead, now, ahead, 0, 0 },
		{ "ahead, 1 ns after it", ahead + 1, now, ahead, 0, 1 },
		{ "behind, to 0", 0, now, -now, 0, now },
		{ "behind, at max", max, now, -now, 0, now + max },
		{ "behind, 1 ns past max", max + 1, now, -now, -ERANGE },
		{ "REALTIME now, at max", (1ULL << 61) + max, 1LL << 61, 0, 0,
		  (1LL << 61) + max },
	};
	unsigned int i;
	s64 host;
	int err;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		host = -1;
		err = tempo_time_to_host(t[i].value, t[i].now, t[i].off, max, &host);
		KUNIT_EXPECT_EQ_MSG(test, err, t[i].err, "%s", t[i].what);
		if (!t[i].err)
			KUNIT_EXPECT_EQ_MSG(test, host, t[i].host, "%s", t[i].what);
		else
			KUNIT_EXPECT_EQ_MSG(test, host, -1, "%s: changed", t[i].what);
	}
}

struct ct_to_user {
	const char	*what;
	s64		host, off;
	u64		user;
};

/*
 * tempo_time_to_user(): a host time before a namespace's clock began reads
 * 0; a clock ahead to its limit does not wrap. Fails if: the clamp is gone
 * (a negative time turns into a huge one).
 */
static void clock_time_to_user_edges(struct kunit *test)
{
	const s64 now = 1000 * NSEC_PER_SEC;
	const struct ct_to_user t[] = {
		{ "host", now, 0, now },
		{ "behind: a reading before the offset", 1, -now, 0 },
		{ "behind: the offset itself", now, -now, 0 },
		{ "behind: 1 ns after", now + 1, -now, 1 },
		{ "ahead to the limit", now, CT_NS_MAX - now, CT_NS_MAX },
		{ "ahead, host 0", 0, CT_NS_MAX, CT_NS_MAX },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		KUNIT_EXPECT_EQ_MSG(test, tempo_time_to_user(t[i].host, t[i].off), t[i].user,
				    "%s", t[i].what);
}

/* Both ways round: host -> user -> host is the identity where neither clamps. */
static void clock_round_trip(struct kunit *test)
{
	const u64 max = tempo_timer_max_delay_ns();
	const s64 offs[] = { 0, 70 * 86400 * NSEC_PER_SEC, -500 * NSEC_PER_SEC, CT_NS_MAX / 2 };
	const s64 now = 1000 * NSEC_PER_SEC;
	unsigned int i;
	s64 host;

	for (i = 0; i < ARRAY_SIZE(offs); i++) {
		u64 user = tempo_time_to_user(now + 123, offs[i]);

		KUNIT_EXPECT_EQ(test, tempo_time_to_host(user, now, offs[i], max, &host), 0);
		KUNIT_EXPECT_EQ_MSG(test, host, now + 123, "offset %lld", offs[i]);
	}
}

struct ct_item {
	struct tempo_delayq_node	node;
	ktime_t				taken_at;
};

static struct tempo_delayq *ct_queue(struct kunit *test, clockid_t clock)
{
	struct tempo_delayq *q = tempo_delayq_create_clock(clock);

	KUNIT_ASSERT_NOT_NULL(test, q);
	return q;
}

/*
 * A BOOTTIME queue takes by BOOTTIME: an item is never taken before its
 * deadline in that clock, and is taken by a consumer asleep (the waker aimed
 * through the clock's offset); other clocks are refused. BOOTTIME and
 * MONOTONIC differ only once the machine has slept: tempo_clocks' suspend
 * case checks what sets them apart. Fails if: create_clock() accepts
 * CLOCK_TAI.
 */
static void clock_queue_boottime(struct kunit *test)
{
	struct tempo_delayq *q = ct_queue(test, CLOCK_BOOTTIME);
	struct ct_item it = {};
	struct tempo_delayq_node *node;
	ktime_t deadline = ktime_add_ms(ktime_get_boottime(), 30);

	tempo_delayq_node_init(&it.node);
	KUNIT_ASSERT_EQ(test, tempo_delayq_put_at(q, &it.node, deadline), 0);
	KUNIT_EXPECT_PTR_EQ(test, tempo_delayq_try_take(q), ERR_PTR(-EAGAIN));
	node = tempo_delayq_take_timeout(q, 5 * NSEC_PER_SEC);
	KUNIT_ASSERT_PTR_EQ(test, node, &it.node);
	KUNIT_EXPECT_FALSE(test, ktime_before(ktime_get_boottime(), deadline));
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, NULL, NULL), 0);
	/* Every other clock is refused. */
	KUNIT_EXPECT_NULL(test, tempo_delayq_create_clock(CLOCK_TAI));
}

/* Step the wall clock by @delta ns. */
static void ct_step(struct kunit *test, s64 delta)
{
	struct timespec64 ts = ktime_to_timespec64(ktime_add_ns(ktime_get_real(), delta));

	KUNIT_ASSERT_EQ(test, do_settimeofday64(&ts), 0);
}

/* The wall clock as it would read had nobody set it, from @real at @mono. */
static void ct_restore(ktime_t real, ktime_t mono)
{
	struct timespec64 ts = ktime_to_timespec64(ktime_add(real, ktime_sub(ktime_get(), mono)));

	do_settimeofday64(&ts);
}

static void ct_release(struct tempo_delayq_node *node, void *arg)
{
}

static unsigned int ct_ready(struct tempo_delayq *q)
{
	struct tempo_delayq_stats st;

	tempo_delayq_stats(q, &st);
	return st.ready;
}

/*
 * A REALTIME queue follows the wall clock set back: items due by the old
 * reading and not taken wait for the clock again, and the ready count drops
 * them, in the tree and in the run, and a node linked since before the
 * prefix's old end; an item put after the step is due by the clock as it
 * is; a step forward makes the first ones due again. Fails if: q->now only
 * grows (a is taken after the step back), or stats() keeps the prefix
 * (ready stays 2, or 3).
 */
static void clock_queue_realtime_set_back(struct kunit *test)
{
	struct tempo_delayq *q = ct_queue(test, CLOCK_REALTIME);
	ktime_t real = ktime_get_real(), mono = ktime_get();
	struct ct_item a = {}, b = {}, c = {}, x = {};

	tempo_delayq_node_init(&a.node);
	tempo_delayq_node_init(&b.node);
	tempo_delayq_node_init(&c.node);
	tempo_delayq_node_init(&x.node);
	/* x starts the run, a goes before it into the tree: both due, counted. */
	KUNIT_ASSERT_EQ(test, tempo_delayq_put_at(q, &x.node, ktime_sub_ms(real, 1)), 0);
	KUNIT_ASSERT_EQ(test, tempo_delayq_put_at(q, &a.node, ktime_sub_ms(real, 2)), 0);
	KUNIT_ASSERT_EQ(test, tempo_delayq_put_at(q, &c.node, ktime_add_ms(real, 500)), 0);
	KUNIT_EXPECT_EQ(test, ct_ready(q), 2);

	ct_step(test, -(s64)CT_HOUR);
	/* Before a's deadline, after the clock: linked inside the old prefix. */
	KUNIT_EXPECT_EQ(test, tempo_delayq_put_at(q, &b.node,
						  ktime_add_ms(ktime_get_real(), 100)), 0);
	KUNIT_EXPECT_EQ(test, ct_ready(q), 0);
	KUNIT_EXPECT_PTR_EQ(test, tempo_delayq_try_take(q), ERR_PTR(-EAGAIN));
	KUNIT_EXPECT_PTR_EQ(test, tempo_delayq_take_timeout(q, 5 * NSEC_PER_SEC), &b.node);
	KUNIT_EXPECT_PTR_EQ(test, tempo_delayq_try_take(q), ERR_PTR(-EAGAIN));

	ct_step(test, CT_HOUR);
	KUNIT_EXPECT_PTR_EQ(test, tempo_delayq_take_timeout(q, 5 * NSEC_PER_SEC), &a.node);
	KUNIT_EXPECT_PTR_EQ(test, tempo_delayq_take_timeout(q, 5 * NSEC_PER_SEC), &x.node);
	ct_restore(real, mono);
	/* c, handed back (destroy's release is given: a queued item is expected). */
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, ct_release, NULL), 1);
}

struct ct_taker {
	struct tempo_delayq	*q;
	struct tempo_delayq_node *node;
	ktime_t			at;	/* MONOTONIC, when take() returned */
	struct completion	done;
};

static int ct_take_fn(void *arg)
{
	struct ct_taker *t = arg;

	t->node = tempo_delayq_take_timeout(t->q, 30 * NSEC_PER_SEC);
	t->at = ktime_get();
	complete(&t->done);
	return 0;
}

/*
 * A consumer asleep on a REALTIME queue whose item is an hour away is woken
 * when the wall clock is set past it: the set reaches the queue through the
 * pvclock_gtod notifier, the irq_work, the work and delayq_clock_changed(),
 * which aims the waker again. Fails if: the chain is not called (the
 * consumer sleeps until its 30 s timeout).
 */
static void clock_queue_realtime_set_forward(struct kunit *test)
{
	struct tempo_delayq *q = ct_queue(test, CLOCK_REALTIME);
	ktime_t real = ktime_get_real(), mono = ktime_get(), set;
	struct ct_taker t = { .q = q };
	struct task_struct *task;
	struct ct_item a = {};

	tempo_delayq_node_init(&a.node);
	init_completion(&t.done);
	KUNIT_ASSERT_EQ(test, tempo_delayq_put_at(q, &a.node, ktime_add_ns(real, CT_HOUR)), 0);
	task = kthread_run(ct_take_fn, &t, "ct_take");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	msleep(100);	/* asleep in take(), the waker aimed an hour ahead */
	set = ktime_get();
	ct_step(test, CT_HOUR + NSEC_PER_SEC);
	wait_for_completion(&t.done);
	ct_restore(real, mono);
	KUNIT_EXPECT_PTR_EQ(test, t.node, &a.node);
	KUNIT_EXPECT_LT_MSG(test, ktime_to_ms(ktime_sub(t.at, set)), 5000,
			    "woken %lld ms after the set", ktime_to_ms(ktime_sub(t.at, set)));
	tempo_delayq_destroy(q, NULL, NULL);
}

static enum tempo_delayq_verdict ct_take_all(struct tempo_delayq_node *node, ktime_t due,
					     void *arg)
{
	ktime_t *last = arg;

	/* In order, due or not. */
	WARN_ON(ktime_before(node->deadline, *last));
	*last = node->deadline;
	return TEMPO_DELAYQ_TAKE;
}

/*
 * consume(TEMPO_DELAYQ_ALL) takes every item in deadline order, due or not,
 * cascade slots far ahead included; it is refused with TEMPO_DELAYQ_WAIT.
 * Fails if: ALL shows only due items (returns -EAGAIN).
 */
static void clock_consume_all(struct kunit *test)
{
	struct tempo_delayq *q = ct_queue(test, CLOCK_MONOTONIC);
	struct ct_item it[4] = {};
	const u64 delays[] = { 3 * CT_HOUR, 50 * CT_MS, 0, 40 * 24 * CT_HOUR };
	ktime_t last = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(it); i++) {
		tempo_delayq_node_init(&it[i].node);
		KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &it[i].node, delays[i]), 0);
	}
	KUNIT_EXPECT_EQ(test, tempo_delayq_consume(q, ct_take_all, &last, 16,
						   TEMPO_DELAYQ_ALL | TEMPO_DELAYQ_WAIT), -EINVAL);
	KUNIT_EXPECT_EQ(test, tempo_delayq_consume(q, ct_take_all, &last, 16, TEMPO_DELAYQ_ALL), 4);
	KUNIT_EXPECT_EQ(test, tempo_delayq_size(q), 0);
	tempo_delayq_destroy(q, NULL, NULL);
}

/* Where an alarm queue's alarm is queued among the kernel's (tempo_delayq_stats()). */
static ktime_t ct_alarm(struct tempo_delayq *q)
{
	struct tempo_delayq_stats st;

	tempo_delayq_stats(q, &st);
	return st.alarm;
}

/* A grain of the delay queue: an alarm is aimed at least this far ahead. */
#define CT_GRAIN	BIT_ULL(20)

/* Is @t still more than a grain ahead of @clock (so an alarm goes to it)? */
static bool ct_far(clockid_t clock, ktime_t t)
{
	ktime_t now = clock == CLOCK_BOOTTIME ? ktime_get_boottime() : ktime_get_real();

	return ktime_after(t, ktime_add_ns(now, CT_GRAIN));
}

/* Alarm queues need an RTC the kernel wakes the machine with. */
static void ct_need_alarms(struct kunit *test)
{
	if (!alarmtimer_get_rtcdev())
		kunit_skip(test, "no RTC for alarms in this kernel");
}

/*
 * Alarm clocks make alarm queues exactly where the kernel has an RTC to wake
 * the machine with, and another queue reports no alarm. Fails if: an alarm
 * clock is refused (or, without an RTC, accepted).
 */
static void clock_alarm_create(struct kunit *test)
{
	static const clockid_t clocks[] = { CLOCK_BOOTTIME_ALARM, CLOCK_REALTIME_ALARM };
	struct tempo_delayq *q;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(clocks); i++) {
		q = tempo_delayq_create_clock(clocks[i]);
		KUNIT_EXPECT_EQ_MSG(test, !!q, !!alarmtimer_get_rtcdev(), "clock %d", clocks[i]);
		if (!q)
			continue;
		KUNIT_EXPECT_EQ(test, ct_alarm(q), KTIME_MAX);
		tempo_delayq_destroy(q, NULL, NULL);
	}
	q = ct_queue(test, CLOCK_BOOTTIME);
	KUNIT_EXPECT_EQ(test, ct_alarm(q), 0);
	tempo_delayq_destroy(q, NULL, NULL);
}

struct ct_alarm_case {
	const char	*what;
	clockid_t	clock;
	u64		delay;
};

static const struct ct_alarm_case ct_alarm_cases[] = {
	{ "boottime, 20 ms (a level-0 slot)", CLOCK_BOOTTIME_ALARM, 20 * CT_MS },
	{ "boottime, 5 s", CLOCK_BOOTTIME_ALARM, 5 * NSEC_PER_SEC },
	{ "boottime, 1 h", CLOCK_BOOTTIME_ALARM, CT_HOUR },
	{ "realtime, 30 ms", CLOCK_REALTIME_ALARM, 30 * CT_MS },
	{ "realtime, 40 days", CLOCK_REALTIME_ALARM, 40 * 24 * CT_HOUR },
};

/* One row of clock_alarm_aimed(). */
static void ct_alarm_aimed_one(struct kunit *test, const struct ct_alarm_case *c)
{
	clockid_t base = c->clock == CLOCK_BOOTTIME_ALARM ? CLOCK_BOOTTIME : CLOCK_REALTIME;
	struct tempo_delayq *q;
	struct ct_item it = {};
	ktime_t now, deadline, at;

	q = ct_queue(test, c->clock);
	tempo_delayq_node_init(&it.node);
	now = base == CLOCK_BOOTTIME ? ktime_get_boottime() : ktime_get_real();
	deadline = ktime_add_ns(now, c->delay);
	KUNIT_ASSERT_EQ_MSG(test, tempo_delayq_put_at(q, &it.node, deadline), 0, "%s", c->what);
	at = ct_alarm(q);
	/*
	 * Unless the deadline passed before that reading (a vCPU stalled for
	 * the delay, TCG): the alarm fired then, and with nothing to come its
	 * callback cancelled it.
	 */
	if (ktime_before(base == CLOCK_BOOTTIME ? ktime_get_boottime() : ktime_get_real(),
			 deadline)) {
		KUNIT_EXPECT_LE_MSG(test, at, deadline, "%s: late by %lld ns", c->what,
				    ktime_sub(at, deadline));
		KUNIT_EXPECT_GT_MSG(test, at, now, "%s", c->what);
	}
	/* At it: unless the CPU stalled to within a grain of it (TCG). */
	if (c->delay < 60 * CT_MS && ct_far(base, deadline))
		KUNIT_EXPECT_EQ_MSG(test, at, deadline, "%s", c->what);
	KUNIT_EXPECT_TRUE_MSG(test, tempo_delayq_peek(q, &at), "%s", c->what);
	at = ct_alarm(q);
	if (ct_far(base, deadline))
		KUNIT_EXPECT_EQ_MSG(test, at, deadline, "%s", c->what);
	KUNIT_EXPECT_TRUE_MSG(test, tempo_delayq_remove(q, &it.node), "%s", c->what);
	KUNIT_EXPECT_EQ_MSG(test, ct_alarm(q), KTIME_MAX, "%s", c->what);
	if (c->delay < 60 * CT_MS) {
		now = base == CLOCK_BOOTTIME ? ktime_get_boottime() : ktime_get_real();
		deadline = ktime_add_ns(now, c->delay);
		KUNIT_ASSERT_EQ_MSG(test, tempo_delayq_put_at(q, &it.node, deadline), 0,
				    "%s", c->what);
		KUNIT_ASSERT_PTR_EQ_MSG(test, tempo_delayq_take_timeout(q, 5 * NSEC_PER_SEC),
					&it.node, "%s", c->what);
		now = base == CLOCK_BOOTTIME ? ktime_get_boottime() : ktime_get_real();
		KUNIT_EXPECT_FALSE_MSG(test, ktime_before(now, deadline), "%s", c->what);
	}
	KUNIT_EXPECT_EQ_MSG(test, tempo_delayq_destroy(q, NULL, NULL), 0, "%s", c->what);
}

/*
 * One item of each delay (the table as a loop, not KUNIT_ARRAY_PARAM: see
 * order_test.c): the put aims the alarm no later than its deadline and not
 * in the past (at it, for a level-0 slot's); once the item is sorted
 * (peek()), at its deadline exactly, moved later if need be; a remove that
 * empties the queue cancels it; and the item is never taken early. Fails
 * if: the put leaves the alarm unarmed (KTIME_MAX) or aims it at a coarse
 * slot's start for good (not moved later when the bound is exact), or the
 * empty queue keeps it.
 */
static void clock_alarm_aimed(struct kunit *test)
{
	unsigned int i;

	ct_need_alarms(test);
	for (i = 0; i < ARRAY_SIZE(ct_alarm_cases); i++)
		ct_alarm_aimed_one(test, &ct_alarm_cases[i]);
}

/*
 * Of several items, the alarm follows the first deadline still to come:
 * not one that has passed (an item due and untaken), and the next one once
 * the first is taken. Fails if: a due item holds the alarm in the past, or
 * a take of the first leaves it there for good.
 */
static void clock_alarm_first_to_come(struct kunit *test)
{
	const u64 delays[] = { CT_HOUR, 10 * 60 * NSEC_PER_SEC, 2 * CT_HOUR };
	struct tempo_delayq *q;
	struct ct_item it[4] = {};
	ktime_t now, d[4], at;
	unsigned int i;

	ct_need_alarms(test);
	q = ct_queue(test, CLOCK_BOOTTIME_ALARM);
	now = ktime_get_boottime();
	for (i = 0; i < ARRAY_SIZE(it); i++) {
		tempo_delayq_node_init(&it[i].node);
		/* it[3]: due already. */
		d[i] = i < 3 ? ktime_add_ns(now, delays[i]) : ktime_sub_ms(now, 1);
		KUNIT_ASSERT_EQ(test, tempo_delayq_put_at(q, &it[i].node, d[i]), 0);
	}
	KUNIT_EXPECT_TRUE(test, tempo_delayq_peek(q, &at));
	KUNIT_EXPECT_EQ(test, at, d[3]);
	/* Sorted up to it[1]: the first to come, the due one aside. */
	at = ct_alarm(q);
	KUNIT_EXPECT_GT(test, at, now);
	KUNIT_EXPECT_LE(test, at, d[1]);
	KUNIT_EXPECT_PTR_EQ(test, tempo_delayq_try_take(q), &it[3].node);
	KUNIT_EXPECT_TRUE(test, tempo_delayq_remove(q, &it[1].node));
	KUNIT_EXPECT_TRUE(test, tempo_delayq_peek(q, &at));
	KUNIT_EXPECT_EQ(test, ct_alarm(q), d[0]);
	KUNIT_EXPECT_TRUE(test, tempo_delayq_remove(q, &it[0].node));
	KUNIT_EXPECT_TRUE(test, tempo_delayq_peek(q, &at));
	KUNIT_EXPECT_EQ(test, ct_alarm(q), d[2]);
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, ct_release, NULL), 1);
}

/*
 * The alarm fires with nobody waiting (no waker is armed), and its callback
 * aims it at the next deadline: after the first item's deadline, the alarm
 * stands ahead of the clock, no later than the second's. Fails if: the
 * callback does not aim the alarm again (it stays at the first deadline,
 * past), or the alarm never fires.
 */
static void clock_alarm_fires_and_aims_again(struct kunit *test)
{
	struct tempo_delayq *q;
	struct ct_item a = {}, b = {};
	ktime_t now, at;

	ct_need_alarms(test);
	q = ct_queue(test, CLOCK_BOOTTIME_ALARM);
	tempo_delayq_node_init(&a.node);
	tempo_delayq_node_init(&b.node);
	now = ktime_get_boottime();
	KUNIT_ASSERT_EQ(test, tempo_delayq_put_at(q, &a.node, ktime_add_ms(now, 30)), 0);
	KUNIT_ASSERT_EQ(test, tempo_delayq_put_at(q, &b.node, ktime_add_ns(now, CT_HOUR)), 0);
	at = ct_alarm(q);
	if (ct_far(CLOCK_BOOTTIME, ktime_add_ms(now, 30)))
		KUNIT_EXPECT_EQ(test, at, ktime_add_ms(now, 30));
	msleep(300);
	at = ct_alarm(q);
	KUNIT_EXPECT_GT_MSG(test, at, ktime_get_boottime(), "the alarm stayed %lld ms behind",
			    ktime_to_ms(ktime_sub(ktime_get_boottime(), at)));
	KUNIT_EXPECT_LE(test, at, ktime_add_ns(now, CT_HOUR));
	KUNIT_EXPECT_PTR_EQ(test, tempo_delayq_try_take(q), &a.node);
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, ct_release, NULL), 1);
}

/*
 * Wait until @q's alarm is aimed at @at and @ready items are counted due, 5 s
 * at most: the walk after a clock change runs from a workqueue, later on a
 * loaded VM (7.2's, 200 ms was not always enough).
 */
static void ct_wait_alarm(struct tempo_delayq *q, ktime_t at, unsigned int ready)
{
	unsigned int i;

	for (i = 0; i < 500 && (ct_alarm(q) != at || ct_ready(q) != ready); i++)
		usleep_range(10000, 11000);
}

/*
 * A REALTIME alarm queue and the wall clock: set forward past its item, the
 * alarm fires (its base follows the set) and, nothing left to come, is
 * cancelled; set back before the item, the walk after the change aims it
 * at the item's deadline again, though the item was counted due. Fails if:
 * the bound trusts a counted prefix the clock no longer reaches (the
 * alarm stays cancelled: the machine would sleep through the item).
 */
static void clock_alarm_realtime_steps(struct kunit *test)
{
	ktime_t real = ktime_get_real(), mono = ktime_get(), d;
	struct tempo_delayq *q;
	struct ct_item a = {};

	ct_need_alarms(test);
	q = ct_queue(test, CLOCK_REALTIME_ALARM);
	tempo_delayq_node_init(&a.node);
	d = ktime_add_ns(real, 10 * NSEC_PER_SEC);
	KUNIT_ASSERT_EQ(test, tempo_delayq_put_at(q, &a.node, d), 0);
	ct_step(test, CT_HOUR);
	/* The alarm's callback, and the walk after the set: 5 s at most. */
	ct_wait_alarm(q, KTIME_MAX, 1);
	KUNIT_EXPECT_EQ(test, ct_alarm(q), KTIME_MAX);
	KUNIT_EXPECT_EQ(test, ct_ready(q), 1);
	ct_step(test, -(s64)CT_HOUR);
	ct_wait_alarm(q, d, 0);	/* the walk */
	KUNIT_EXPECT_EQ(test, ct_alarm(q), d);
	KUNIT_EXPECT_EQ(test, ct_ready(q), 0);
	ct_restore(real, mono);
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, ct_release, NULL), 1);
}

#ifdef TEMPO_TESTING
/* What the walk's test point saw: a queue made meanwhile on another thread, in time. */
static struct {
	struct completion	visited;	/* the hook ran once */
	struct completion	made;		/* the maker's create() returned */
	bool			first;
	bool			in_time;
} ct_walk;

static int ct_make_fn(void *arg)
{
	struct tempo_delayq *q = tempo_delayq_create_clock(CLOCK_BOOTTIME);

	if (q)
		tempo_delayq_destroy(q, NULL, NULL);
	/* All: the hook and the case both wait for it. */
	complete_all(&ct_walk.made);
	return 0;
}

static void ct_walk_hook(enum tempo_test_point where, const void *obj, u64 arg,
			 unsigned int state)
{
	struct task_struct *task;

	if (where != TEMPO_TP_DELAYQ_CLOCK_VISIT || !ct_walk.first)
		return;
	ct_walk.first = false;
	/* Between two visits: another thread's create() and destroy() go through. */
	task = kthread_run(ct_make_fn, NULL, "ct_make");
	if (IS_ERR(task))
		complete_all(&ct_walk.made);
	else
		ct_walk.in_time = wait_for_completion_timeout(&ct_walk.made, 2 * HZ);
	complete(&ct_walk.visited);
}

/*
 * A clock change visits the queues of other clocks holding the list's lock
 * for one queue at a time: a queue made or destroyed on another thread
 * while the walk is between two queues goes through at once, not after the
 * walk. Fails if: the walk holds delayq_list_lock across its pass (the
 * maker waits for the hook, which gives up after 2 s).
 */
static void clock_walk_lets_queues_come_and_go(struct kunit *test)
{
	struct tempo_delayq *a = ct_queue(test, CLOCK_REALTIME);
	struct tempo_delayq *b = ct_queue(test, CLOCK_BOOTTIME);
	ktime_t real = ktime_get_real(), mono = ktime_get();
	bool visited;

	init_completion(&ct_walk.visited);
	init_completion(&ct_walk.made);
	ct_walk.in_time = false;
	ct_walk.first = true;
	tempo_test_set_hook(ct_walk_hook);
	ct_step(test, NSEC_PER_SEC);
	visited = wait_for_completion_timeout(&ct_walk.visited, 30 * HZ);
	tempo_test_set_hook(NULL);
	ct_restore(real, mono);
	KUNIT_EXPECT_TRUE_MSG(test, visited, "no walk after the set");
	/* A maker started is done by now, in time or after the walk. */
	if (visited)
		wait_for_completion(&ct_walk.made);
	KUNIT_EXPECT_TRUE_MSG(test, ct_walk.in_time,
			      "a create() waited for the walk to end");
	tempo_delayq_destroy(a, NULL, NULL);
	tempo_delayq_destroy(b, NULL, NULL);
}

#define CT_PASS_QUEUES	3
#define CT_PASS_ITEMS	3

/*
 * The suspend pass with the first queue's lock held by a consume() callback
 * on another CPU: what the pass's test point saw.
 */
static struct {
	struct tempo_delayq	*q[CT_PASS_QUEUES];	/* q[0]: its lock held */
	unsigned int		visits[CT_PASS_QUEUES];
	bool			holding;	/* the holder is in its callback */
	bool			release;	/* the holder may let go */
	bool			while_held;	/* each other queue visited while held */
	bool			in_time;	/* the maker's create() and destroy() */
	bool			was_held;	/* the pass began with q[0] held */
	s64			held_ms;	/* how long the holder held */
	struct completion	held, go, made, pass_done, holder_done;
} ct_pass;

/* In q[0]'s critical section, interrupts off: hold it until let go, 3 s at most. */
static enum tempo_delayq_verdict ct_hold_cb(struct tempo_delayq_node *node, ktime_t due,
					    void *arg)
{
	ktime_t start = ktime_get(), end = ktime_add_ms(start, 3000);

	WRITE_ONCE(ct_pass.holding, true);
	complete(&ct_pass.held);
	while (!READ_ONCE(ct_pass.release) && ktime_before(ktime_get(), end))
		cpu_relax();
	WRITE_ONCE(ct_pass.holding, false);
	ct_pass.held_ms = ktime_ms_delta(ktime_get(), start);
	return TEMPO_DELAYQ_TAKE;
}

static int ct_holder_fn(void *arg)
{
	*(int *)arg = tempo_delayq_consume(ct_pass.q[0], ct_hold_cb, NULL, 1, 0);
	complete(&ct_pass.holder_done);
	return 0;
}

/* On the pass's CPU, when the pass's first visit tells it to. */
static int ct_pass_maker_fn(void *arg)
{
	struct tempo_delayq *q;

	wait_for_completion(&ct_pass.go);
	q = tempo_delayq_create();
	if (q)
		tempo_delayq_destroy(q, NULL, NULL);
	complete_all(&ct_pass.made);
	return 0;
}

/*
 * Bound to the pass's CPU, so woken there by the holder's complete() even
 * while the holder's CPU, interrupts off, runs nothing else: the pass once
 * q[0]'s lock is held (or, if it never is, none).
 */
static int ct_pass_fn(void *arg)
{
	if (wait_for_completion_timeout(&ct_pass.held, 10 * HZ)) {
		WRITE_ONCE(ct_pass.was_held, true);
		tempo_delayq_alarm_pass();
	}
	complete(&ct_pass.pass_done);
	return 0;
}

static void ct_pass_hook(enum tempo_test_point where, const void *obj, u64 arg,
			 unsigned int state)
{
	unsigned int i;

	if (where != TEMPO_TP_DELAYQ_ALARM_VISIT)
		return;
	for (i = 0; i < CT_PASS_QUEUES && ct_pass.q[i] != obj; i++)
		;
	if (i == CT_PASS_QUEUES)
		return;
	ct_pass.visits[i]++;
	if (!i)
		return;
	if (!READ_ONCE(ct_pass.holding))
		ct_pass.while_held = false;
	/* Between two visits, q[0] held: another queue is made and destroyed. */
	if (i == 1) {
		complete(&ct_pass.go);
		ct_pass.in_time = wait_for_completion_timeout(&ct_pass.made, 2 * HZ);
	}
	if (i == CT_PASS_QUEUES - 1)
		WRITE_ONCE(ct_pass.release, true);
}

/* A kthread of @fn on @cpu, started. */
static struct task_struct *ct_run_on(struct kunit *test, int (*fn)(void *), void *arg,
				     unsigned int cpu, const char *name)
{
	struct task_struct *task = kthread_create(fn, arg, "%s", name);

	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	kthread_bind(task, cpu);
	wake_up_process(task);
	return task;
}

/*
 * The suspend pass, three alarm queues of three items an hour and more
 * ahead, the first queue's lock held by a consume() callback on another
 * CPU, the pass and a maker of queues on this one: the pass sorts the other
 * two while the lock is held, and a create() and destroy() go through
 * meanwhile; then it sorts the first. Each queue is visited once, and each
 * alarm stands at its queue's first deadline exactly (before the pass, at a
 * cascade slot's start). Fails if: the pass holds delayq_list_lock across
 * queues (the maker misses its 2 s), or waits for a busy lock before the
 * other queues (visited after the holder let go, at its 3 s limit).
 */
static void clock_alarm_pass_spares_other_queues(struct kunit *test)
{
	ktime_t now = ktime_get_boottime(), real = ktime_get_real(), first[CT_PASS_QUEUES];
	static struct ct_item it[CT_PASS_QUEUES][CT_PASS_ITEMS + 1];
	unsigned int i, j, cpu_pass, cpu_hold;
	bool passed, held;
	int taken = -1;

	ct_need_alarms(test);
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	cpu_hold = cpumask_first(cpu_online_mask);
	cpu_pass = cpumask_next(cpu_hold, cpu_online_mask);
	memset(&ct_pass, 0, sizeof(ct_pass));
	for (i = 0; i < CT_PASS_QUEUES; i++) {
		bool wall = i == 1;
		ktime_t base = wall ? real : now;

		struct tempo_delayq *q;

		q = ct_queue(test, wall ? CLOCK_REALTIME_ALARM : CLOCK_BOOTTIME_ALARM);
		ct_pass.q[i] = q;
		first[i] = KTIME_MAX;
		for (j = 0; j < CT_PASS_ITEMS; j++) {
			/* Off the grain: a cascade slot's start is not a deadline. */
			ktime_t d = ktime_add_ns(base, (3 - j) * CT_HOUR + (i + 1) * 123456789);

			tempo_delayq_node_init(&it[i][j].node);
			KUNIT_ASSERT_EQ(test, tempo_delayq_put_at(q, &it[i][j].node, d), 0);
			first[i] = min(first[i], d);
		}
		KUNIT_ASSERT_LT_MSG(test, ct_alarm(q), first[i], "queue %u", i);
	}
	/* The holder's item, due. */
	tempo_delayq_node_init(&it[0][CT_PASS_ITEMS].node);
	KUNIT_ASSERT_EQ(test, tempo_delayq_put_at(ct_pass.q[0], &it[0][CT_PASS_ITEMS].node,
						  ktime_sub_ms(now, 1)), 0);
	init_completion(&ct_pass.held);
	init_completion(&ct_pass.go);
	init_completion(&ct_pass.made);
	init_completion(&ct_pass.pass_done);
	init_completion(&ct_pass.holder_done);
	ct_pass.while_held = true;
	tempo_test_set_hook(ct_pass_hook);
	/*
	 * The pass waits on its own CPU for the holder: this thread, woken on
	 * the holder's CPU, could not run before the holder let go.
	 */
	ct_run_on(test, ct_pass_maker_fn, NULL, cpu_pass, "ct_pass_make");
	ct_run_on(test, ct_pass_fn, NULL, cpu_pass, "ct_pass");
	ct_run_on(test, ct_holder_fn, &taken, cpu_hold, "ct_hold");
	passed = wait_for_completion_timeout(&ct_pass.pass_done, 40 * HZ);
	held = READ_ONCE(ct_pass.was_held);
	passed = passed && held;
	WRITE_ONCE(ct_pass.release, true);
	wait_for_completion(&ct_pass.holder_done);
	tempo_test_set_hook(NULL);
	/* The maker is done by now, or let go. */
	complete_all(&ct_pass.go);
	wait_for_completion(&ct_pass.made);
	KUNIT_ASSERT_TRUE_MSG(test, held, "the holder never ran its callback");
	KUNIT_ASSERT_TRUE_MSG(test, passed, "the pass did not end in 40 s");
	KUNIT_EXPECT_EQ(test, taken, 1);
	for (i = 0; i < CT_PASS_QUEUES; i++) {
		KUNIT_EXPECT_EQ_MSG(test, ct_pass.visits[i], 1, "queue %u", i);
		KUNIT_EXPECT_EQ_MSG(test, ct_alarm(ct_pass.q[i]), first[i], "queue %u", i);
	}
	KUNIT_EXPECT_TRUE_MSG(test, ct_pass.while_held,
			      "the pass waited %lld ms for a busy lock before the other queues",
			      ct_pass.held_ms);
	KUNIT_EXPECT_TRUE_MSG(test, ct_pass.in_time, "a create() waited for the pass");
	for (i = 0; i < CT_PASS_QUEUES; i++)
		KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(ct_pass.q[i], ct_release, NULL),
				CT_PASS_ITEMS);
}
#else
static void clock_walk_lets_queues_come_and_go(struct kunit *test)
{
	kunit_skip(test, "needs the test points: build with TEMPO_TESTING=1");
}

static void clock_alarm_pass_spares_other_queues(struct kunit *test)
{
	kunit_skip(test, "needs the test points: build with TEMPO_TESTING=1");
}
#endif /* TEMPO_TESTING */

static struct kunit_case clock_cases[] = {
	KUNIT_CASE(clock_time_to_host_edges),
	KUNIT_CASE(clock_time_to_user_edges),
	KUNIT_CASE(clock_round_trip),
	KUNIT_CASE(clock_queue_boottime),
	KUNIT_CASE(clock_queue_realtime_set_back),
	KUNIT_CASE(clock_queue_realtime_set_forward),
	KUNIT_CASE(clock_consume_all),
	KUNIT_CASE(clock_alarm_create),
	KUNIT_CASE(clock_alarm_aimed),
	KUNIT_CASE(clock_alarm_first_to_come),
	KUNIT_CASE(clock_alarm_fires_and_aims_again),
	KUNIT_CASE(clock_alarm_realtime_steps),
	KUNIT_CASE(clock_walk_lets_queues_come_and_go),
	KUNIT_CASE(clock_alarm_pass_spares_other_queues),
	{}
};

static struct kunit_suite clock_suite = {
	.name = "tempo_clock",
	.test_cases = clock_cases,
};

kunit_test_suite(clock_suite);
