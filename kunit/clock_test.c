// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "tempo_clock": the clock core (kmod/clock.c, kmod/clock.h) and
 * delay queues of CLOCK_BOOTTIME and CLOCK_REALTIME (kmod/delayq.c).
 *
 * The conversion arithmetic at its edges, table by table; then queues of
 * other clocks against the real clocks, the wall clock stepped by
 * do_settimeofday64() and put back as it would have run. Each case was made
 * to fail once by breaking the code it covers ("Fails if"). Lateness is
 * never an error here (TCG with KASAN); earliness always is.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/timekeeping.h>
#include <tempo/delayq.h>
#include <tempo/timer.h>

#include "clock.h"
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
 * deadline in that clock, and is taken by a consumer asleep (the kick aimed
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
 * which aims the kick again. Fails if: the chain is not called (the
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
	msleep(100);	/* asleep in take(), the kick aimed an hour ahead */
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
#else
static void clock_walk_lets_queues_come_and_go(struct kunit *test)
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
	KUNIT_CASE(clock_walk_lets_queues_come_and_go),
	{}
};

static struct kunit_suite clock_suite = {
	.name = "tempo_clock",
	.test_cases = clock_cases,
};

kunit_test_suite(clock_suite);
