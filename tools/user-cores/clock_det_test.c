// SPDX-License-Identifier: GPL-2.0
/*
 * Deterministic tests of the clock core (kmod/clock.c, kmod/clock.h) and of
 * delay queues of other clocks (kmod/delayq_clock.c), in userspace on the fake
 * clock: one thread plays the CPU, the clock moves from one hrtimer expiry
 * to the next, and REALTIME and BOOTTIME are MONOTONIC plus offsets that a
 * case moves as timekeeping does when a clock is set or the machine
 * resumes (tempo_sim_clock_set_offset(), which tells the pvclock_gtod
 * notifier "was set"; the irq_work and the work item run as on a CPU).
 *
 *  - the conversion arithmetic against a 128-bit model, over random and edge
 *    values: every accepted deadline is the model's, none is accepted
 *    beyond the range, and a round trip is the identity where nothing clamps;
 *  - a REALTIME queue: a step back leaves an item that was about to fall due
 *    waiting for the wall clock (never early), a step forward past a far
 *    deadline brings the waker back within a tick of the set, not an hour
 *    later;
 *  - a BOOTTIME queue: the offset grown by a resume makes an item due at once.
 *
 * Each case was seen failing once with the code it covers broken ("Fails if").
 */
#include <linux/types.h>
#include <tempo/delayq.h>
#include "clock.h"
#include "internal.h"
#include "wheel_harness.h"
#include "harness.h"

#define TICK_NS		1000000ULL
#define T0		(1000 * TICK_NS)
#define HOUR		(3600ULL * NSEC_PER_SEC)
#define WALL0		(1700000000ULL * NSEC_PER_SEC)	/* REALTIME's offset at the start */
/* The most a namespace's clock may read: KTIME_SEC_MAX / 2 s (proc_timens_set_offset()). */
#define NS_MAX		((s64)(S64_MAX / NSEC_PER_SEC / 2) * (s64)NSEC_PER_SEC)

static u64 rng = 0x9e3779b97f4a7c15ULL;

static u64 rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A value near one of the interesting points, or anywhere. */
static u64 pick(const u64 *points, unsigned int n)
{
	u64 r = rnd();

	switch (r % 4) {
	case 0:
		return r;
	case 1:
		return points[(r >> 8) % n];
	default:
		return points[(r >> 8) % n] + ((r >> 32) % 64) - 32;
	}
}

/*
 * tempo_time_to_host() and tempo_time_to_user() against a 128-bit model, for
 * host readings within the uptime and REALTIME's range, offsets within what
 * a namespace may set, values anywhere, max the module's default and
 * around it. Fails if: the range check compares signed, or a sum wraps.
 */
static void test_arithmetic_model(void)
{
	const u64 max = tempo_timer_max_delay_ns();
	u64 points[] = { 0, 1, max, max + 1, NS_MAX, (u64)NS_MAX + max, 1ULL << 62,
			 1ULL << 63, U64_MAX, WALL0, WALL0 + max };
	unsigned int i, bad = 0, accepted = 0;

	for (i = 0; i < 2000000; i++) {
		s64 now = (s64)(rnd() % (1ULL << 61)), off = 0, host = -1, mhost;
		u64 value = pick(points, ARRAY_SIZE(points));
		__int128 unow, lim, m;
		int err;

		if (i % 3)	/* a namespace: now + off within [0, NS_MAX] */
			off = (s64)(rnd() % (u64)NS_MAX) - now;
		unow = (__int128)now + off;
		lim = unow + max;
		err = tempo_time_to_host(value, now, off, max, &host);
		if ((__int128)value > lim) {
			if (err != -ERANGE || host != -1)
				bad++;
			continue;
		}
		m = (__int128)value - off;
		mhost = m < 0 ? 0 : (s64)m;
		if (err || host != mhost)
			bad++;
		/* Back: the caller reads its value, or its clock's first instant when clamped. */
		if (!err && tempo_time_to_user(host, off) != (m < 0 ? (u64)off : value))
			bad++;
		accepted++;
		if (bad == 1) {
			test_diag("value %llu now %lld off %lld: err %d host %lld", value, now, off,
				  err, host);
			bad++;
		}
	}
	EXPECT_EQ(bad, 0, "of 2000000, %u accepted", accepted);
	EXPECT_GT(accepted, 100000);
}

static struct tempo_delayq *q;
static unsigned int edges, looks;
static struct wait_queue_entry watch;

/* A poller: counts edges; asked to look, it does so later, outside the wake-up. */
static int watch_wake(struct wait_queue_entry *wait, unsigned int mode, int sync, void *key)
{
	(void)wait;
	(void)mode;
	(void)sync;
	if (key)
		edges++;
	else
		looks++;
	return 0;
}

/* Run what is due, and answer each request to look with ready(), as poll() does. */
static void run_and_look(void)
{
	tempo_sim_run_all();
	while (looks) {
		looks = 0;
		tempo_delayq_ready(q);
		tempo_sim_run_all();
	}
}

static void setup(clockid_t clock)
{
	tempo_sim_init(1, false, true);
	tempo_sim_clock_set(T0);
	tempo_sim_set_cpu(0);
	tempo_sim_clock_set_offset(TK_OFFS_REAL, WALL0);
	tempo_sim_clock_set_offset(TK_OFFS_BOOT, 0);
	if (tempo_wheel_init(TICK_NS, 10) || tempo_clock_init() || tempo_delayq_init())
		abort();
	q = tempo_delayq_create_clock(clock);
	if (!q)
		abort();
	edges = 0;
	looks = 0;
	init_waitqueue_func_entry(&watch, watch_wake);
	add_wait_queue(tempo_delayq_waitqueue(q), &watch);
	tempo_sim_run_all();
}

static void teardown(void)
{
	remove_wait_queue(tempo_delayq_waitqueue(q), &watch);
	tempo_delayq_destroy(q, NULL, NULL);
	tempo_sim_run_all();
	tempo_delayq_exit();
	tempo_clock_exit();
	tempo_wheel_exit();
}

/* Move the clock from expiry to expiry until an edge, or up to @limit; the clock then. */
static u64 drive_to_edge(u64 limit)
{
	unsigned int before = edges;
	u64 next;

	run_and_look();
	while (edges == before) {
		next = tempo_sim_next_hrtimer();
		if (next == U64_MAX || next > limit)
			break;
		if (next > ktime_get_ns())
			tempo_sim_clock_set(next);
		run_and_look();
	}
	return ktime_get_ns();
}

/*
 * REALTIME set back an hour just before an item falls due: it is not due
 * when the MONOTONIC instant its waker was aimed at comes, nor for the hour,
 * and an item put after the step is due by the clock as it now reads, not
 * by a reading from before; set forward again, the first is due within a
 * tick. Fails if: the queue keeps its highest reading (q->now only grows):
 * the second item is found due at once, by the reading from before the
 * step.
 */
static void test_realtime_set_back(void)
{
	struct tempo_delayq_node a, b;
	ktime_t deadline, db;

	setup(CLOCK_REALTIME);
	tempo_delayq_node_init(&a);
	tempo_delayq_node_init(&b);
	deadline = ktime_get_real() + 10 * TICK_NS;
	EXPECT_EQ(tempo_delayq_put_at(q, &a, deadline), 0);
	h_drive_until(ktime_get_ns() + 5 * TICK_NS);
	tempo_sim_clock_set_offset(TK_OFFS_REAL, WALL0 - HOUR);
	db = ktime_get_real() + 20 * TICK_NS;
	EXPECT_EQ(tempo_delayq_put_at(q, &b, db), 0);
	drive_to_edge(ktime_get_ns() + 100 * TICK_NS);
	EXPECT_EQ(edges, 1);
	EXPECT_GE(ktime_get_real(), db, "b found due %lld ns early", db - ktime_get_real());
	EXPECT_EQ(tempo_delayq_try_take(q), &b);
	drive_to_edge(ktime_get_ns() + 100 * TICK_NS);
	EXPECT_EQ(edges, 1, "an edge for a after the step back");
	EXPECT_EQ(tempo_delayq_try_take(q), ERR_PTR(-EAGAIN), "a taken before its deadline");
	EXPECT_LT(ktime_get_real(), deadline);
	tempo_sim_clock_set_offset(TK_OFFS_REAL, WALL0);
	drive_to_edge(ktime_get_ns() + 100 * TICK_NS);
	EXPECT_EQ(edges, 2);
	EXPECT_GE(ktime_get_real(), deadline);
	EXPECT_EQ(tempo_delayq_try_take(q), &a);
	teardown();
}

/*
 * REALTIME set forward: by half the hour to a deadline, the item is found
 * due when the wall clock reaches it, within a tick, not when the waker aimed
 * through the old offset fires half an hour later; past a deadline, within
 * a tick of the set. Fails if: delayq_clock_changed() keeps the waker's aim
 * (the first is late by 30 min), or the chain does not reach the queue
 * (both are late).
 */
static void test_realtime_set_forward(void)
{
	struct tempo_delayq_node a, b;
	ktime_t deadline;
	u64 set, at;

	setup(CLOCK_REALTIME);
	tempo_delayq_node_init(&a);
	tempo_delayq_node_init(&b);
	deadline = ktime_get_real() + HOUR;
	EXPECT_EQ(tempo_delayq_put_at(q, &a, deadline), 0);
	h_drive_until(ktime_get_ns() + 50 * TICK_NS);
	tempo_sim_clock_set_offset(TK_OFFS_REAL, WALL0 + HOUR / 2);
	drive_to_edge(ktime_get_ns() + HOUR);
	EXPECT_EQ(edges, 1);
	EXPECT_GE(ktime_get_real(), deadline);
	EXPECT_LT(ktime_get_real(), deadline + TICK_NS, "%lld ns late",
		  ktime_get_real() - deadline);
	EXPECT_EQ(tempo_delayq_try_take(q), &a);

	EXPECT_EQ(tempo_delayq_put_at(q, &b, ktime_get_real() + HOUR), 0);
	h_drive_until(ktime_get_ns() + 50 * TICK_NS);
	set = ktime_get_ns();
	tempo_sim_clock_set_offset(TK_OFFS_REAL, WALL0 + 2 * HOUR);
	at = drive_to_edge(set + HOUR);
	EXPECT_EQ(edges, 2);
	EXPECT_LE(at - set, 2 * TICK_NS, "due %llu ns after the set", at - set);
	EXPECT_EQ(tempo_delayq_try_take(q), &b);
	teardown();
}

/*
 * BOOTTIME grown by 10 s at a resume, an item 5 s away: due at once. Fails
 * if: the queue's waker stays aimed by the old offset (5 s late).
 */
static void test_boottime_resume(void)
{
	struct tempo_delayq_node a;
	u64 set, at;

	setup(CLOCK_BOOTTIME);
	tempo_delayq_node_init(&a);
	EXPECT_EQ(tempo_delayq_put(q, &a, 5 * NSEC_PER_SEC), 0);
	h_drive_until(ktime_get_ns() + 10 * TICK_NS);
	set = ktime_get_ns();
	tempo_sim_clock_set_offset(TK_OFFS_BOOT, 10 * NSEC_PER_SEC);
	at = drive_to_edge(set + 10 * NSEC_PER_SEC);
	EXPECT_EQ(edges, 1);
	EXPECT_LE(at - set, 2 * TICK_NS, "due %llu ns after the resume", at - set);
	EXPECT_EQ(tempo_delayq_try_take(q), &a);
	teardown();
}

static const struct test_case cases[] = {
	TEST_CASE_VOID(test_arithmetic_model),
	TEST_CASE_VOID(test_realtime_set_back),
	TEST_CASE_VOID(test_realtime_set_forward),
	TEST_CASE_VOID(test_boottime_resume),
	{}
};

int main(void)
{
	return test_run("clock_det", cases);
}
