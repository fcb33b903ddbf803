// SPDX-License-Identifier: GPL-2.0
/*
 * Deterministic tests of kmod/delayq.c in userspace, on the fake clock: one
 * thread plays every CPU and the clock moves from one hrtimer expiry to the
 * next, so the instant at which the queue's timer (the kick) finds an item
 * due is exact. A poller on tempo_delayq_waitqueue() records each readiness
 * edge and when it came: the same critical section wakes a sleeping
 * consumer.
 */
#include <linux/types.h>
#include <tempo/delayq.h>
#include "wheel_harness.h"
#include "harness.h"

#define TICK_NS		1000000ULL
#define T0		(1000 * TICK_NS)

struct watcher {
	struct wait_queue_entry	wait;
	unsigned int		edges;
	u64			at;	/* the clock at the latest edge */
};

static int watcher_wake(struct wait_queue_entry *wait, unsigned int mode, int sync, void *key)
{
	struct watcher *w = container_of(wait, struct watcher, wait);

	(void)mode;
	(void)sync;
	(void)key;
	w->edges++;
	w->at = ktime_get_ns();
	return 0;
}

static struct tempo_delayq *q;
static struct watcher watch;

static void setup(void)
{
	tempo_sim_init(1, false, true);
	tempo_sim_clock_set(T0);
	tempo_sim_set_cpu(0);
	if (tempo_wheel_init(TICK_NS, 10) || tempo_delayq_init())
		abort();
	q = tempo_delayq_create();
	memset(&watch, 0, sizeof(watch));
	init_waitqueue_func_entry(&watch.wait, watcher_wake);
	add_wait_queue(tempo_delayq_waitqueue(q), &watch.wait);
}

static void teardown(void)
{
	remove_wait_queue(tempo_delayq_waitqueue(q), &watch.wait);
	EXPECT_EQ(tempo_delayq_destroy(q, NULL, NULL), 0, "items left");
	tempo_sim_run_all();
	tempo_delayq_exit();
	tempo_wheel_exit();
}

/*
 * Move the clock from hrtimer expiry to hrtimer expiry until the watcher
 * sees a new edge, or up to @limit. Return: the expiries it stopped at.
 */
static unsigned int drive_to_edge(u64 limit)
{
	unsigned int edges = watch.edges, steps = 0;
	u64 next;

	tempo_sim_run_all();
	while (watch.edges == edges) {
		next = tempo_sim_next_hrtimer();
		if (next == U64_MAX || next > limit)
			break;
		if (next > ktime_get_ns())
			tempo_sim_clock_set(next);
		tempo_sim_run_all();
		steps++;
	}
	return steps;
}

/* Put @node @delay ahead; the kick must find it due within a tick of its deadline. */
static void expect_edge_in_tick(struct tempo_delayq_node *node, u64 delay, const char *what)
{
	unsigned int edges = watch.edges, steps;
	u64 deadline;

	EXPECT_EQ(tempo_delayq_put(q, node, delay), 0, "%s: put", what);
	deadline = ktime_to_ns(node->deadline);
	steps = drive_to_edge(deadline + 2 * tempo_timer_slack_ns(delay));
	EXPECT_EQ(watch.edges, edges + 1, "%s (%llu ns ahead): %u edges", what, delay,
		  watch.edges - edges);
	EXPECT_GE(watch.at, deadline, "%s (%llu ns ahead): found due %llu ns early", what, delay,
		  deadline - watch.at);
	EXPECT_LT(watch.at, deadline + TICK_NS, "%s (%llu ns ahead): found due %llu ns late", what,
		  delay, watch.at - deadline);
	/* One stage per wheel level at most, and the last at the deadline. */
	EXPECT_LE(steps, 12, "%s (%llu ns ahead): %u kicks", what, delay, steps);
	EXPECT_EQ(tempo_delayq_try_take(q), node, "%s: not takeable at the edge", what);
}

/*
 * The kick's stages, for delays on both sides of every wheel level's start
 * (63, 504, 4032 ... ticks) and deadlines at, just after and inside a tick:
 * the item is found due at or after its deadline and less than a tick
 * after it, whatever the wheel's slack for the whole delay.
 * Fails if: the kick is armed at the deadline itself whatever the delay
 * (it fires up to a coarse level's granule late), or a stage is aimed
 * early by less than its slack.
 */
static void test_kick_stages_within_a_tick(void)
{
	static const u64 ticks[] = { 1, 2, 62, 63, 64, 200, 503, 504, 505, 4031, 4032, 4033,
				     32255, 32256, 32257, 258047, 258048, 258049, 2064383,
				     2064384, 2064385 };
	static const u64 off[] = { 0, 1, TICK_NS / 2, TICK_NS - 1 };
	struct tempo_delayq_node node;
	char what[64];
	unsigned int i, j;

	setup();
	tempo_delayq_node_init(&node);
	for (i = 0; i < ARRAY_SIZE(ticks); i++) {
		for (j = 0; j < ARRAY_SIZE(off); j++) {
			snprintf(what, sizeof(what), "%llu ticks + %llu ns", ticks[i], off[j]);
			expect_edge_in_tick(&node, ticks[i] * TICK_NS + off[j], what);
			/* Move off the tick boundary, for the next offsets. */
			tempo_sim_clock_advance(TICK_NS / 3);
		}
	}
	teardown();
}

/*
 * An earlier item put while the kick waits for a later one moves the kick
 * forward; a removed earliest item leaves the kick early, and it goes on to
 * the next. Each is found due within a tick of its own deadline.
 * Fails if: a put of a new earliest item does not arm the kick again (the
 * kick_for shortcut in delayq_kick_arm() taken for an earlier deadline).
 */
static void test_kick_follows_the_earliest(void)
{
	struct tempo_delayq_node a, b, c;

	setup();
	tempo_delayq_node_init(&a);
	tempo_delayq_node_init(&b);
	tempo_delayq_node_init(&c);
	EXPECT_EQ(tempo_delayq_put(q, &a, 3000 * TICK_NS), 0, "put a");
	h_drive_until(ktime_get_ns() + 100 * TICK_NS);
	expect_edge_in_tick(&b, 10 * TICK_NS + 7, "earlier b");
	EXPECT_EQ(tempo_delayq_put(q, &c, 20 * TICK_NS), 0, "put c");
	EXPECT_TRUE(tempo_delayq_remove(q, &c), "remove c");
	EXPECT_EQ(watch.edges, 1, "%u edges", watch.edges);
	EXPECT_TRUE(tempo_delayq_remove(q, &a), "remove a");
	expect_edge_in_tick(&a, 600 * TICK_NS + 3, "a again");
	teardown();
}

/*
 * Pollers are woken at readiness edges, not per item: three items of one
 * deadline make one edge; taking two leaves one due and makes none; once
 * the queue has nothing due, the next item due makes one more.
 * Fails if: every item that falls due wakes the pollers.
 */
static void test_one_edge_per_readiness(void)
{
	struct tempo_delayq_node n[4];
	ktime_t at;
	unsigned int i;

	setup();
	at = ktime_add_ns(ktime_get(), 5 * TICK_NS);
	for (i = 0; i < 4; i++)
		tempo_delayq_node_init(&n[i]);
	for (i = 0; i < 3; i++)
		EXPECT_EQ(tempo_delayq_put_at(q, &n[i], at), 0, "put %u", i);
	drive_to_edge(ktime_to_ns(at) + 2 * TICK_NS);
	EXPECT_EQ(watch.edges, 1, "%u edges for 3 items due at once", watch.edges);
	EXPECT_EQ(tempo_delayq_try_take(q), &n[0], "first");
	EXPECT_EQ(tempo_delayq_try_take(q), &n[1], "second");
	EXPECT_EQ(tempo_delayq_put(q, &n[3], 0), 0, "put due");
	EXPECT_EQ(watch.edges, 1, "%u edges with an item due all along", watch.edges);
	EXPECT_EQ(tempo_delayq_try_take(q), &n[2], "third");
	EXPECT_EQ(tempo_delayq_try_take(q), &n[3], "fourth");
	EXPECT_EQ(tempo_delayq_put(q, &n[0], 0), 0, "put due again");
	EXPECT_EQ(watch.edges, 2, "%u edges after the queue ran dry", watch.edges);
	EXPECT_EQ(tempo_delayq_try_take(q), &n[0], "last");
	teardown();
}

static const struct test_case cases[] = {
	TEST_CASE_VOID(test_kick_stages_within_a_tick),
	TEST_CASE_VOID(test_kick_follows_the_earliest),
	TEST_CASE_VOID(test_one_edge_per_readiness),
	{}
};

int main(void)
{
	return test_run("delayq_det", cases);
}
