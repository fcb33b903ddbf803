// SPDX-License-Identifier: GPL-2.0
/*
 * Deterministic tests of kmod/delayq.c in userspace, on the fake clock: one
 * thread plays every CPU and the clock moves from one hrtimer expiry to the
 * next, so the instant at which the queue's timer (the waker) finds an item
 * due is exact. A poller on tempo_delayq_waitqueue() records each readiness
 * edge and when it came: the same critical section wakes a sleeping
 * consumer. Woken with no key, to look, it calls tempo_delayq_ready() as
 * poll() would (after the wake-up, outside the waitqueue's lock), unless a
 * case tells it not to.
 */
#include <linux/types.h>
#include <tempo/delayq.h>
#include "wheel_harness.h"
#include "harness.h"

#define TICK_NS		1000000ULL
#define T0		(1000 * TICK_NS)

struct watcher {
	struct wait_queue_entry	wait;
	unsigned int		edges;	/* woken with EPOLLIN: an item is due */
	u64			at;	/* the clock at the latest edge */
	unsigned int		looks;	/* woken with no key: asked to look */
	unsigned int		looked;	/* of which it answered, with ready() */
	bool			lazy;	/* it does not look when asked */
};

static int watcher_wake(struct wait_queue_entry *wait, unsigned int mode, int sync, void *key)
{
	struct watcher *w = container_of(wait, struct watcher, wait);

	(void)mode;
	(void)sync;
	if (!key) {
		w->looks++;
		return 0;
	}
	w->edges++;
	w->at = ktime_get_ns();
	return 0;
}

static struct tempo_delayq *q;
static struct watcher watch;

/* destroy()'s hand-back, in order */
static struct tempo_delayq_node *collect[1024];
static unsigned int collected;

static void dq_collect_release(struct tempo_delayq_node *node, void *arg)
{
	(void)arg;
	if (collected < ARRAY_SIZE(collect))
		collect[collected] = node;
	collected++;
}

static void setup(void)
{
	tempo_sim_init(1, false, true);
	tempo_sim_clock_set(T0);
	tempo_sim_set_cpu(0);
	if (tempo_wheel_init(TICK_NS, 10) || tempo_delayq_init())
		abort();
	q = tempo_delayq_create();
	collected = 0;
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

/* Run what is due; the watcher answers each request to look, as poll() does. */
static void run_and_look(void)
{
	tempo_sim_run_all();
	while (!watch.lazy && watch.looked < watch.looks) {
		watch.looked = watch.looks;
		tempo_delayq_ready(q);
		tempo_sim_run_all();
	}
}

/*
 * Move the clock from hrtimer expiry to hrtimer expiry until the watcher
 * sees a new edge, or up to @limit. Return: the expiries it stopped at.
 */
static unsigned int drive_to_edge(u64 limit)
{
	unsigned int edges = watch.edges, steps = 0;
	u64 next;

	run_and_look();
	while (watch.edges == edges) {
		next = tempo_sim_next_hrtimer();
		if (next == U64_MAX || next > limit)
			break;
		if (next > ktime_get_ns())
			tempo_sim_clock_set(next);
		run_and_look();
		steps++;
	}
	return steps;
}

/*
 * Put @node @delay ahead; the waker, a FINE timer, must find it due within a
 * 64th of a tick of its deadline.
 */
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
	EXPECT_LE(watch.at, deadline + TICK_NS / 64, "%s (%llu ns ahead): found due %llu ns late",
		  what, delay, watch.at - deadline);
	/*
	 * The waker fires once per slot of the queue's cascade the item passes,
	 * each a FINE timer that passes each wheel level once: about 15 for
	 * the delay queue's four levels from 34 minutes.
	 */
	EXPECT_LE(steps, 20, "%s (%llu ns ahead): %u expiries", what, delay, steps);
	EXPECT_EQ(tempo_delayq_try_take(q), node, "%s: not takeable at the edge", what);
}

/*
 * The waker's stages, for delays on both sides of every wheel level's start
 * (63, 504, 4032 ... ticks) and deadlines at, just after and inside a tick:
 * the item is found due at or after its deadline and less than a 64th of a
 * tick after it, whatever the delay.
 * Fails if: the waker is a tick timer, as it was (seen failing: found due up
 * to a tick late), or the waker for a level-0 slot of the cascade is aimed
 * past its earliest deadline.
 */
static void test_waker_stages_within_a_tick(void)
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
 * An earlier item put while the waker waits for a later one moves the waker
 * forward; a removed earliest item leaves the waker early, and it goes on to
 * the next. Each is found due within a tick of its own deadline.
 * Fails if: a put of a new earliest item does not arm the waker again (the
 * waker_for shortcut in delayq_waker_arm() taken for an earlier deadline).
 */
static void test_waker_follows_the_earliest(void)
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
 * A waker armed for a far item; an item put, while it waits, for before the
 * waker's expiry must get a waker of its own. A 1-hour item, the clock driven
 * to 3344.2 s, then an item one tick ahead: found due within a 64th of a tick.
 * Fails if: the waker is left alone because it is armed already (with the
 * waker aimed early for a far item, as it once was, tools/user-cores/
 * delayq_fuzz.c found the edge 63.7 s late).
 */
static void test_waker_early_aim_covers_a_new_item(void)
{
	struct tempo_delayq_node far, near;
	u64 t0;

	setup();
	tempo_delayq_node_init(&far);
	tempo_delayq_node_init(&near);
	t0 = ktime_get_ns();
	EXPECT_EQ(tempo_delayq_put(q, &far, 3600ULL * 1000 * TICK_NS), 0, "put far");
	h_drive_until(t0 + 3344200ULL * TICK_NS);
	expect_edge_in_tick(&near, TICK_NS, "near, under an early waker");
	EXPECT_TRUE(tempo_delayq_remove(q, &far), "remove far");
	teardown();
}

/*
 * An item of the next grain, in the cascade's level-0 slot, is found due by
 * one waker, at its deadline, not one at the grain's start and one more at the
 * deadline; with the slot's earliest item removed, the next one is found due
 * on time (the slot's earliest deadline, kept as a bound, is then early).
 * Fails if: the waker for the slot is aimed at its grain's start (seen
 * failing: two expiries).
 */
static void test_waker_exact_in_next_grain(void)
{
	const u64 grain = 1ULL << 20;
	struct tempo_delayq_node a, b;
	unsigned int steps, edges;
	u64 start;

	setup();
	tempo_delayq_node_init(&a);
	tempo_delayq_node_init(&b);
	start = (ktime_get_ns() / grain + 1) * grain;
	EXPECT_EQ(tempo_delayq_put_at(q, &a, ns_to_ktime(start + grain / 2)), 0, "put a");
	steps = drive_to_edge(start + grain);
	EXPECT_EQ(watch.edges, 1, "%u edges", watch.edges);
	EXPECT_EQ(steps, 1, "%u expiries for an item of the next grain", steps);
	EXPECT_TRUE(watch.at >= start + grain / 2 && watch.at <= start + grain / 2 + TICK_NS / 64,
		    "found due at %lld ns from its deadline", (s64)(watch.at - start - grain / 2));
	EXPECT_EQ(tempo_delayq_try_take(q), &a, "a is takeable");

	start = (ktime_get_ns() / grain + 1) * grain;
	EXPECT_EQ(tempo_delayq_put_at(q, &a, ns_to_ktime(start + grain / 4)), 0, "put a");
	EXPECT_EQ(tempo_delayq_put_at(q, &b, ns_to_ktime(start + grain / 2)), 0, "put b");
	EXPECT_TRUE(tempo_delayq_remove(q, &a), "remove a");
	edges = watch.edges;
	steps = drive_to_edge(start + grain);
	EXPECT_EQ(watch.edges, edges + 1, "%u edges", watch.edges - edges);
	EXPECT_LE(steps, 2, "%u expiries", steps);
	EXPECT_TRUE(watch.at >= start + grain / 2 && watch.at <= start + grain / 2 + TICK_NS / 64,
		    "b found due at %lld ns from its deadline", (s64)(watch.at - start - grain / 2));
	EXPECT_EQ(tempo_delayq_try_take(q), &b, "b is takeable");
	teardown();
}

/* try_take(), or take(), which returns at once when an item is due. */
static struct tempo_delayq_node *det_take(bool sleeping)
{
	return sleeping ? tempo_delayq_take(q) : tempo_delayq_try_take(q);
}

/*
 * Pollers are woken at readiness edges, not per item: three items of one
 * deadline make one edge; taking two leaves one due and makes none; once
 * the queue has nothing due, the next item due makes one more. With
 * try_take() and with take().
 * Fails if: every item that falls due wakes the pollers; or a take that
 * leaves nothing due does not settle the queue, so that the next item due
 * makes no edge.
 */
static void test_one_edge_per_readiness(void)
{
	struct tempo_delayq_node n[4];
	ktime_t at;
	unsigned int i;
	int s;

	for (s = 0; s < 2; s++) {
		setup();
		at = ktime_add_ns(ktime_get(), 5 * TICK_NS);
		for (i = 0; i < 4; i++)
			tempo_delayq_node_init(&n[i]);
		for (i = 0; i < 3; i++)
			EXPECT_EQ(tempo_delayq_put_at(q, &n[i], at), 0, "put %u", i);
		drive_to_edge(ktime_to_ns(at) + 2 * TICK_NS);
		EXPECT_EQ(watch.edges, 1, "%u edges for 3 items due at once (%s)", watch.edges,
			  s ? "take" : "try_take");
		EXPECT_EQ(det_take(s), &n[0], "first");
		EXPECT_EQ(det_take(s), &n[1], "second");
		EXPECT_EQ(tempo_delayq_put(q, &n[3], 0), 0, "put due");
		EXPECT_EQ(watch.edges, 1, "%u edges with an item due all along (%s)",
			  watch.edges, s ? "take" : "try_take");
		EXPECT_EQ(det_take(s), &n[2], "third");
		EXPECT_EQ(det_take(s), &n[3], "fourth");
		EXPECT_EQ(tempo_delayq_put(q, &n[0], 0), 0, "put due again");
		EXPECT_EQ(watch.edges, 2, "%u edges after the queue ran dry (%s)", watch.edges,
			  s ? "take" : "try_take");
		EXPECT_EQ(det_take(s), &n[0], "last");
		teardown();
	}
}

/* The queue's grain (kmod/delayq.c: DQ_GRAIN_SHIFT) and cascade geometry. */
#define DQ_GRAIN		(1ULL << 20)
#define DQ_LVL(k)	(1ULL << (6 * (k)))	/* grains at which level k starts */

static u32 det_seed = 2463534242u;

static u32 det_rand(void)
{
	det_seed ^= det_seed << 13;
	det_seed ^= det_seed >> 17;
	det_seed ^= det_seed << 5;
	return det_seed;
}

/*
 * Deadlines on both sides of every level's start (counted from @base, a
 * tick boundary) and of a tick where that level's slots are emptied (a
 * multiple of 64^k ticks), each at, just after and inside a tick: the nodes
 * land on every level, and each is re-placed on every level below it on
 * its way.
 */
static unsigned int level_deadlines(u64 *deadline, unsigned int max, u64 base)
{
	static const s64 near[] = { -1, 0, 1 };
	static const u64 off[] = { 0, 1, DQ_GRAIN / 2, DQ_GRAIN - 1 };
	unsigned int k, i, j, n = 0;
	u64 aligned;

	for (k = 1; k <= 5; k++) {
		aligned = (base / DQ_GRAIN / DQ_LVL(k) + 2) * DQ_LVL(k);
		for (i = 0; i < ARRAY_SIZE(near); i++)
			for (j = 0; j < ARRAY_SIZE(off) && n + 1 < max; j++) {
				deadline[n++] = base + (DQ_LVL(k) + near[i]) * DQ_GRAIN + off[j];
				deadline[n++] = (aligned + near[i]) * DQ_GRAIN + off[j];
			}
	}
	for (j = 0; j < 8 && n < max; j++)
		deadline[n++] = base + det_rand() % (3 * DQ_GRAIN);
	return n;
}

/* Sort @idx[0..n) by the nodes' (deadline, put order): take() order. */
static void sort_by_deadline(unsigned int *idx, unsigned int n, struct tempo_delayq_node *node,
			     const unsigned int *put_rank)
{
	unsigned int i, j, t;

	for (i = 1; i < n; i++)
		for (j = i; j > 0; j--) {
			struct tempo_delayq_node *a = &node[idx[j - 1]], *b = &node[idx[j]];

			if (a->deadline < b->deadline ||
			    (a->deadline == b->deadline && put_rank[idx[j - 1]] < put_rank[idx[j]]))
				break;
			t = idx[j];
			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
}

#define NLVL	128

/* Put the level_deadlines() nodes in a random order; @idx receives take() order. */
static unsigned int put_on_every_level(struct tempo_delayq_node *node, unsigned int *idx)
{
	static u64 deadline[NLVL];
	unsigned int rank[NLVL], n, i, j, t;
	u64 base;

	/* A tick boundary, so that distances from it are in ticks. */
	base = (ktime_get_ns() / DQ_GRAIN + 1) * DQ_GRAIN;
	tempo_sim_clock_set(base);
	n = level_deadlines(deadline, NLVL, base);
	for (i = 0; i < n; i++)
		idx[i] = i;
	for (i = n - 1; i > 0; i--) {
		j = det_rand() % (i + 1);
		t = idx[i];
		idx[i] = idx[j];
		idx[j] = t;
	}
	for (i = 0; i < n; i++) {
		tempo_delayq_node_init(&node[idx[i]]);
		EXPECT_EQ(tempo_delayq_put_at(q, &node[idx[i]], deadline[idx[i]]), 0,
			  "put %llu ns ahead", deadline[idx[i]] - base);
		rank[idx[i]] = i;
	}
	for (i = 0; i < n; i++)
		idx[i] = i;
	sort_by_deadline(idx, n, node, rank);
	return n;
}

/*
 * A consumer that comes by, with the clock jumping from one deadline to the
 * next across every level's boundary: 1 ns before a deadline nothing is
 * takeable, at it exactly that node is, in deadline order.
 * Fails if: a slot is emptied late (a node cascaded past its tick, found
 * late or out of order), or a node sorted in before its deadline is handed
 * out early (takeable tested by tick alone).
 */
static void test_consumer_across_levels(void)
{
	static struct tempo_delayq_node node[NLVL];
	unsigned int idx[NLVL], n, i;
	struct tempo_delayq_node *got;
	u64 deadline;

	setup();
	n = put_on_every_level(node, idx);
	for (i = 0; i < n; i++) {
		deadline = ktime_to_ns(node[idx[i]].deadline);
		if (deadline > ktime_get_ns()) {
			tempo_sim_clock_set(deadline - 1);
			got = tempo_delayq_try_take(q);
			EXPECT_EQ(got, ERR_PTR(-EAGAIN), "item %u (%llu ns ahead): taken 1 ns early",
				  i, deadline - T0);
			tempo_sim_clock_set(deadline);
		}
		got = tempo_delayq_try_take(q);
		EXPECT_EQ(got, &node[idx[i]], "item %u: got %ld, want node %u", i,
			  IS_ERR(got) ? PTR_ERR(got) : (long)(got - node), idx[i]);
		if (got != &node[idx[i]])
			break;
	}
	EXPECT_EQ(tempo_delayq_size(q), 0, "%u left", tempo_delayq_size(q));
	teardown();
}

/*
 * A consumer asleep: the waker alone makes time pass, through every level.
 * Each node's readiness edge comes at or after its deadline and less than a
 * tick after it.
 * Fails if: the waker is not armed for the wheel's next slot (nothing wakes
 * the consumer until a put), or for the leftmost sorted node after a slot
 * is emptied.
 */
static void test_waker_across_levels(void)
{
	static struct tempo_delayq_node node[NLVL];
	unsigned int idx[NLVL], n, i = 0;
	struct tempo_delayq_node *got;
	u64 deadline;

	setup();
	n = put_on_every_level(node, idx);
	while (i < n) {
		deadline = ktime_to_ns(node[idx[i]].deadline);
		if (deadline > ktime_get_ns()) {
			drive_to_edge(deadline + 2 * DQ_GRAIN);
			EXPECT_TRUE(watch.at >= deadline && watch.at < deadline + TICK_NS,
				    "item %u: edge at %lld ns from its deadline", i,
				    (long long)(watch.at - deadline));
		}
		while (i < n && !IS_ERR(got = tempo_delayq_try_take(q))) {
			EXPECT_EQ(got, &node[idx[i]], "item %u: node %ld, want %u", i,
				  (long)(got - node), idx[i]);
			i++;
		}
		if (ktime_get_ns() < deadline)
			break;
	}
	EXPECT_EQ(i, n, "%u of %u taken", i, n);
	teardown();
}

/*
 * remove() on every level, with the items still in the wheel, after they
 * were re-placed lower, and after they were sorted: each is found once,
 * nothing else is disturbed, and destroy hands back the rest in take()
 * order.
 * Fails if: destroy hands back only the sorted nodes (not those still in
 * the wheel), or a remove() of a node in a slot unlinks it from the tree.
 */
static void test_remove_and_destroy_across_levels(void)
{
	static struct tempo_delayq_node node[NLVL];
	unsigned int idx[NLVL], n, i, kept = 0;
	struct tempo_delayq_node *back[NLVL];
	ktime_t d;

	setup();
	n = put_on_every_level(node, idx);
	/* Every third item now, from the wheel. */
	for (i = 0; i < n; i += 3)
		EXPECT_TRUE(tempo_delayq_remove(q, &node[idx[i]]), "remove %u", i);
	/* Sort ahead to the earliest left: peek() re-places down the levels. */
	EXPECT_TRUE(tempo_delayq_peek(q, &d) && d == node[idx[1]].deadline, "peek");
	for (i = 1; i < n; i += 3)
		EXPECT_TRUE(tempo_delayq_remove(q, &node[idx[i]]), "remove %u", i);
	for (i = 0; i < n; i += 3)
		EXPECT_FALSE(tempo_delayq_remove(q, &node[idx[i]]), "removed %u twice", i);
	EXPECT_EQ(tempo_delayq_size(q), n - (n + 2) / 3 - (n + 1) / 3, "size %u",
		  tempo_delayq_size(q));
	for (i = 2; i < n; i += 3)
		back[kept++] = &node[idx[i]];
	tempo_sim_clock_advance(DQ_GRAIN * 5);
	remove_wait_queue(tempo_delayq_waitqueue(q), &watch.wait);
	EXPECT_EQ(tempo_delayq_destroy(q, dq_collect_release, NULL), kept, "destroy");
	EXPECT_EQ(collected, kept, "%u handed back, want %u", collected, kept);
	for (i = 0; i < kept && i < collected; i++)
		EXPECT_EQ(collect[i], back[i], "hand-back %u out of take() order", i);
	q = tempo_delayq_create();
	add_wait_queue(tempo_delayq_waitqueue(q), &watch.wait);
	teardown();
}

/*
 * Equal deadlines keep put order across levels: the first put far ahead
 * (level 2), the second, once that deadline is near, on level 0; the first
 * is re-placed into the slot that holds the second, after it.
 * Fails if: the tree orders equal deadlines by the order nodes reach it
 * (not by node->seq).
 */
static void test_equal_deadlines_across_levels(void)
{
	struct tempo_delayq_node a, b, c;
	ktime_t at;

	setup();
	tempo_delayq_node_init(&a);
	tempo_delayq_node_init(&b);
	tempo_delayq_node_init(&c);
	at = ns_to_ktime((ktime_get_ns() / DQ_GRAIN + 5000) * DQ_GRAIN + 77);
	EXPECT_EQ(tempo_delayq_put_at(q, &a, at), 0, "put a");
	tempo_sim_clock_set(ktime_to_ns(at) - 10 * DQ_GRAIN);
	EXPECT_EQ(tempo_delayq_put_at(q, &b, at), 0, "put b");
	EXPECT_EQ(tempo_delayq_put_at(q, &c, ktime_add_ns(at, 1)), 0, "put c");
	tempo_sim_clock_set(ktime_to_ns(at) + 1);
	EXPECT_EQ(tempo_delayq_try_take(q), &a, "a, put first, not first");
	EXPECT_EQ(tempo_delayq_try_take(q), &b, "b not second");
	EXPECT_EQ(tempo_delayq_try_take(q), &c, "c not last");
	teardown();
}

/*
 * One slot of many more nodes than the waker moves per expiry (16). A
 * consumer that comes by at the deadline sorts the slot itself and finds it
 * due; with a poller waiting, the waker asks it to look, its ready() sorts
 * the slot, and one readiness edge comes at the deadline, none early; a
 * consumer then gets every node, in put order.
 * Fails if: ready() says nothing is due while the wheel is behind the clock,
 * the waker signals readiness to have the rest sorted (an edge before any
 * node is due), or nobody is asked to sort the rest.
 */
static void take_all_in_order(struct tempo_delayq_node *node, unsigned int n)
{
	struct tempo_delayq_node *got;
	unsigned int i;

	for (i = 0; i < n; i++) {
		got = tempo_delayq_try_take(q);
		EXPECT_EQ(got, &node[i], "item %u: %ld", i, IS_ERR(got) ? PTR_ERR(got) : 0L);
		if (got != &node[i])
			break;
	}
}

static void test_big_slot(void)
{
	static struct tempo_delayq_node node[3000];
	unsigned int i;
	ktime_t at;

	setup();
	at = ns_to_ktime((ktime_get_ns() / DQ_GRAIN + 300) * DQ_GRAIN + 5);
	for (i = 0; i < ARRAY_SIZE(node); i++) {
		tempo_delayq_node_init(&node[i]);
		EXPECT_EQ(tempo_delayq_put_at(q, &node[i], at), 0, "put %u", i);
	}
	tempo_sim_clock_set(ktime_to_ns(at));
	EXPECT_TRUE(tempo_delayq_ready(q), "not due at the deadline");
	take_all_in_order(node, ARRAY_SIZE(node));

	at = ns_to_ktime((ktime_get_ns() / DQ_GRAIN + 300) * DQ_GRAIN + 5);
	for (i = 0; i < ARRAY_SIZE(node); i++)
		EXPECT_EQ(tempo_delayq_put_at(q, &node[i], at), 0, "put again %u", i);
	drive_to_edge(ktime_to_ns(at) + 8 * DQ_GRAIN);
	EXPECT_EQ(watch.edges, 2, "%u edges", watch.edges);
	EXPECT_GE(watch.at, ktime_to_ns(at), "edge %llu ns early", ktime_to_ns(at) - watch.at);
	EXPECT_LT(watch.at, ktime_to_ns(at) + 4 * TICK_NS, "edge %llu ns late",
		  watch.at - ktime_to_ns(at));
	take_all_in_order(node, ARRAY_SIZE(node));
	teardown();
}

/*
 * The waker's work per expiry is bounded, whatever its slot holds: with a
 * poller that does not answer, a slot of 3000 nodes stays unsorted after
 * the waker fires, the poller is asked to look once (not at every expiry or
 * settle), no readiness edge comes, and no timer is left armed for more;
 * the poller's ready() then sorts it, finds the nodes due and makes the
 * edge. Without a poller (nobody waits) nothing is armed at all, and a
 * consumer that comes by still takes every node in order.
 * Fails if: the waker sorts the whole slot on the timer workqueue (an edge
 * with no look), or re-arms itself to sort while nobody answers.
 */
static void test_waker_bounded(void)
{
	static struct tempo_delayq_node node[3000];
	unsigned int i;
	ktime_t at;

	setup();
	watch.lazy = true;
	at = ns_to_ktime((ktime_get_ns() / DQ_GRAIN + 30) * DQ_GRAIN);
	for (i = 0; i < ARRAY_SIZE(node); i++) {
		tempo_delayq_node_init(&node[i]);
		EXPECT_EQ(tempo_delayq_put_at(q, &node[i], at), 0, "put %u", i);
	}
	drive_to_edge(ktime_to_ns(at) + 20 * DQ_GRAIN);
	EXPECT_EQ(watch.edges, 0, "%u edges: the waker sorted the slot", watch.edges);
	EXPECT_EQ(watch.looks, 1, "asked to look %u times", watch.looks);
	EXPECT_EQ(tempo_sim_next_hrtimer(), U64_MAX, "a timer left armed at %llu",
		  tempo_sim_next_hrtimer());
	EXPECT_TRUE(tempo_delayq_ready(q), "nothing due after the look");
	EXPECT_EQ(watch.edges, 1, "%u edges after the look", watch.edges);
	take_all_in_order(node, ARRAY_SIZE(node));

	remove_wait_queue(tempo_delayq_waitqueue(q), &watch.wait);
	at = ns_to_ktime((ktime_get_ns() / DQ_GRAIN + 30) * DQ_GRAIN);
	for (i = 0; i < ARRAY_SIZE(node); i++)
		EXPECT_EQ(tempo_delayq_put_at(q, &node[i], at), 0, "put again %u", i);
	EXPECT_EQ(tempo_sim_next_hrtimer(), U64_MAX, "nobody waits, a timer armed at %llu",
		  tempo_sim_next_hrtimer());
	tempo_sim_clock_set(ktime_to_ns(at) + 5 * DQ_GRAIN);
	take_all_in_order(node, ARRAY_SIZE(node));
	add_wait_queue(tempo_delayq_waitqueue(q), &watch.wait);
	teardown();
}

/*
 * A poller is asked to look again each time the wheel falls behind with
 * nobody else to sort: one big slot falls due (a look, answered, an edge);
 * a second falls due while the first's items are still unread; once a
 * consumer has taken exactly those, the poller must hear of the second.
 * Fails if: the request to look is remembered across a readiness edge, so
 * the second slot is left for nobody to sort (no edge: the poller sleeps on).
 */
static void test_look_asked_again(void)
{
	static struct tempo_delayq_node node[2][1000];
	struct tempo_delayq_node far;
	unsigned int i, k;
	ktime_t at[2];

	setup();
	at[0] = ns_to_ktime((ktime_get_ns() / DQ_GRAIN + 30) * DQ_GRAIN);
	at[1] = ktime_add_ns(at[0], 5 * DQ_GRAIN);
	for (k = 0; k < 2; k++)
		for (i = 0; i < ARRAY_SIZE(node[k]); i++) {
			tempo_delayq_node_init(&node[k][i]);
			EXPECT_EQ(tempo_delayq_put_at(q, &node[k][i], at[k]), 0, "put %u", i);
		}
	drive_to_edge(ktime_to_ns(at[0]) + 3 * DQ_GRAIN);
	EXPECT_EQ(watch.edges, 1, "%u edges for the first slot", watch.edges);
	/* The second slot falls due; a put reads the clock, the first's items still due. */
	tempo_sim_clock_set(ktime_to_ns(at[1]) + DQ_GRAIN);
	tempo_delayq_node_init(&far);
	EXPECT_EQ(tempo_delayq_put(q, &far, 1000 * DQ_GRAIN), 0, "put far");
	take_all_in_order(node[0], ARRAY_SIZE(node[0]));
	drive_to_edge(ktime_to_ns(at[1]) + 10 * DQ_GRAIN);
	EXPECT_EQ(watch.edges, 2, "%u edges: the second slot was left unsorted", watch.edges);
	take_all_in_order(node[1], ARRAY_SIZE(node[1]));
	EXPECT_TRUE(tempo_delayq_remove(q, &far), "remove far");
	teardown();
}

/*
 * A small slot that falls due with nobody having sorted it (the clock passed
 * it; a put is the first to see that) is the waker's to sort, at the next
 * tick: the poller is not asked to look, and hears of the item as an edge.
 * Fails if: whoever finds the wheel behind has the waiters sort it at once,
 * without the waker trying first (a consumer woken for no item due).
 */
static void test_small_slot_left_to_the_waker(void)
{
	struct tempo_delayq_node a, far;
	ktime_t at;

	setup();
	at = ns_to_ktime((ktime_get_ns() / DQ_GRAIN + 10) * DQ_GRAIN + 5);
	tempo_delayq_node_init(&a);
	tempo_delayq_node_init(&far);
	EXPECT_EQ(tempo_delayq_put_at(q, &a, at), 0, "put a");
	tempo_sim_clock_set(ktime_to_ns(at) + 2 * DQ_GRAIN);
	EXPECT_EQ(tempo_delayq_put(q, &far, 1000 * DQ_GRAIN), 0, "put far");
	EXPECT_EQ(watch.looks, 0, "asked to look %u times for a slot of one", watch.looks);
	drive_to_edge(ktime_to_ns(at) + 5 * DQ_GRAIN);
	EXPECT_EQ(watch.looks, 0, "asked to look %u times for a slot of one", watch.looks);
	EXPECT_EQ(watch.edges, 1, "%u edges", watch.edges);
	EXPECT_EQ(tempo_delayq_try_take(q), &a, "a not takeable");
	EXPECT_TRUE(tempo_delayq_remove(q, &far), "remove far");
	teardown();
}

/* consume() callback: take every node shown, recording the order. */
struct det_batch {
	struct tempo_delayq_node *got[NLVL];
	unsigned int n;
};

static enum tempo_delayq_verdict det_take_all(struct tempo_delayq_node *node, ktime_t due,
					      void *arg)
{
	struct det_batch *b = arg;

	EXPECT_GE(ktime_to_ns(due), ktime_to_ns(node->deadline), "shown %lld ns early",
		  (long long)ktime_to_ns(ktime_sub(node->deadline, due)));
	if (b->n < NLVL)
		b->got[b->n++] = node;
	return TEMPO_DELAYQ_TAKE;
}

/*
 * One batch takes every item due at the call, wherever in the wheel it sat:
 * nodes on every level, the clock moved past them all while a poller waits
 * (the waker runs and makes the first of them takeable), then one consume()
 * or one take_many() with room for all returns all of them, in take() order.
 * Fails if: a batch goes on from its first node without sorting in the
 * slots still to empty (it returns only what the waker had sorted).
 */
static void test_batch_takes_every_due(void)
{
	static struct tempo_delayq_node node[NLVL];
	struct tempo_delayq_node *drained[NLVL];
	unsigned int idx[NLVL], n, i;
	struct det_batch b;
	int s, got;

	for (s = 0; s < 2; s++) {
		setup();
		n = put_on_every_level(node, idx);
		h_drive_until(ktime_to_ns(node[idx[n - 1]].deadline) + DQ_GRAIN);
		if (s) {
			got = tempo_delayq_take_many(q, drained, NLVL);
		} else {
			b.n = 0;
			got = tempo_delayq_consume(q, det_take_all, &b, NLVL, 0);
			memcpy(drained, b.got, sizeof(drained));
		}
		EXPECT_EQ(got, (int)n, "%s: %d of %u due items in one batch", s ? "drain" : "consume",
			  got, n);
		for (i = 0; i < n && (int)i < got; i++)
			EXPECT_EQ(drained[i], &node[idx[i]], "%s: item %u out of order",
				  s ? "drain" : "consume", i);
		while (!IS_ERR(tempo_delayq_try_take(q)))
			;
		teardown();
	}
}

/* A consume() verdict: a nanosecond later. */
static enum tempo_delayq_verdict det_later(struct tempo_delayq_node *node, ktime_t due, void *arg)
{
	(void)due;
	(void)arg;
	node->deadline = ktime_add_ns(node->deadline, 1);
	return TEMPO_DELAYQ_AGAIN;
}

/*
 * consume() with TEMPO_DELAYQ_ALL shows items not yet due, and an AGAIN
 * verdict may move one beyond the timer wheel's longest delay from now. The
 * waker, aimed at it, fires at the wheel's reach and is aimed again: the item
 * put at the longest delay and moved a nanosecond on, then a watcher, is
 * found due within a 64th of a tick of its deadline.
 * Fails if: the waker is aimed past the wheel's reach (seen failing: the
 * wheel refuses the arm with -ERANGE, the core WARNs and nobody hears of
 * the item).
 */
static void test_waker_beyond_the_reach(void)
{
	struct tempo_delayq_node far;
	u64 deadline;

	setup();
	tempo_delayq_node_init(&far);
	/* No waker until the watcher comes: then one, aimed at the item. */
	remove_wait_queue(tempo_delayq_waitqueue(q), &watch.wait);
	EXPECT_EQ(tempo_delayq_put(q, &far, tempo_timer_max_delay_ns()), 0, "put");
	EXPECT_EQ(tempo_delayq_consume(q, det_later, NULL, 1, TEMPO_DELAYQ_ALL), 1, "consume");
	add_wait_queue(tempo_delayq_waitqueue(q), &watch.wait);
	EXPECT_FALSE(tempo_delayq_ready(q), "ready");
	deadline = ktime_to_ns(far.deadline);
	drive_to_edge(deadline + TICK_NS);
	EXPECT_EQ(watch.edges, 1, "%u edges", watch.edges);
	EXPECT_GE(watch.at, deadline, "found due %llu ns early", deadline - watch.at);
	EXPECT_LE(watch.at, deadline + TICK_NS / 64, "found due %llu ns late", watch.at - deadline);
	EXPECT_EQ(tempo_delayq_try_take(q), &far, "take");
	teardown();
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Items with a slack of less than a tick wake their reader as seldom as
 * hrtimers with that range wake theirs: 10,000 items at random points of a
 * second, each with 50 us of slack, a watcher that takes every item due at
 * each edge; at most 10% more edges than hrtimer's rule (each expiry at the
 * earliest deadline plus slack still waiting, taking every item whose
 * deadline it has reached) gives for the same deadlines, each item taken at
 * or after its deadline and each edge within the slack of the deadline it
 * was for. (The waker, a FINE timer, fires on a 64th of a tick at or before
 * the window's end: half one, 8 us, before hrtimer's on average, about 5%
 * more edges.)
 * Fails if: the waker is aimed, as it once was, at a multiple of its slack
 * in the window, where it waits half the slack on average (seen failing:
 * 20% more edges than hrtimer's).
 */
static void test_waker_waits_out_the_slack(void)
{
	enum { N = 10000 };
	static struct tempo_delayq_node node[N];
	static u64 dl[N];
	u64 slack = 50 * NSEC_PER_USEC, model = 0, t0, first;
	unsigned int i, taken = 0, edges = 0, late = 0;
	struct tempo_delayq_node *got;

	setup();
	t0 = ktime_get_ns() + 2 * TICK_NS;
	for (i = 0; i < N; i++) {
		tempo_delayq_node_init(&node[i]);
		node[i].slack_us = slack / NSEC_PER_USEC;
		dl[i] = t0 + (u64)rand() % NSEC_PER_SEC;
		EXPECT_EQ(tempo_delayq_put_at(q, &node[i], ns_to_ktime(dl[i])), 0, "put %u", i);
	}
	qsort(dl, N, sizeof(dl[0]), cmp_u64);
	for (i = 0; i < N; model++) {
		u64 at = dl[i] + slack;

		while (i < N && dl[i] <= at)
			i++;
	}
	while (taken < N) {
		first = dl[taken];
		drive_to_edge(first + 2 * slack);
		if (watch.edges == edges)
			break;
		edges = watch.edges;
		late += watch.at > first + slack;
		while (!IS_ERR(got = tempo_delayq_try_take(q))) {
			EXPECT_LE(ktime_to_ns(got->deadline), ktime_get_ns(), "taken early");
			EXPECT_EQ(ktime_to_ns(got->deadline), dl[taken], "taken out of order");
			taken++;
		}
	}
	EXPECT_EQ(taken, N, "%u of %u items taken", taken, N);
	EXPECT_EQ(late, 0, "%u edges later than the slack", late);
	EXPECT_LE(edges * 10, model * 11, "%u edges, hrtimer's rule %llu", edges, model);
	test_diag("%u edges, hrtimer's rule %llu", edges, model);
	teardown();
}

static const struct test_case cases[] = {
	TEST_CASE_VOID(test_waker_stages_within_a_tick),
	TEST_CASE_VOID(test_waker_follows_the_earliest),
	TEST_CASE_VOID(test_waker_exact_in_next_grain),
	TEST_CASE_VOID(test_waker_early_aim_covers_a_new_item),
	TEST_CASE_VOID(test_one_edge_per_readiness),
	TEST_CASE_VOID(test_consumer_across_levels),
	TEST_CASE_VOID(test_waker_across_levels),
	TEST_CASE_VOID(test_remove_and_destroy_across_levels),
	TEST_CASE_VOID(test_equal_deadlines_across_levels),
	TEST_CASE_VOID(test_big_slot),
	TEST_CASE_VOID(test_waker_bounded),
	TEST_CASE_VOID(test_look_asked_again),
	TEST_CASE_VOID(test_small_slot_left_to_the_waker),
	TEST_CASE_VOID(test_batch_takes_every_due),
	TEST_CASE_VOID(test_waker_beyond_the_reach),
	TEST_CASE_VOID(test_waker_waits_out_the_slack),
	{}
};

int main(void)
{
	return test_run("delayq_det", cases);
}
