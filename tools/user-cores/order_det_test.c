// SPDX-License-Identifier: GPL-2.0
/*
 * The lost hand-off race of kmod/order.c (its design comment), driven
 * through the cores' test points (kmod/testing.h, built with TEMPO_TESTING;
 * this file supplies tempo_test_point()): the owner of t + 1 and the head
 * holder finishing t each stop at a chosen hook point while the other moves, so each
 * of the four interleavings is taken on purpose, not by luck. Two simulated
 * CPUs, one thread each. Every case checks who ran the completion (the return
 * values), that both completions ran once, in order, and that the head moved
 * on. This is the one home of these interleavings (README.md, "Layout").
 *
 * order.c is included, not linked, as tools/testing/vma includes mm/vma.c:
 * the slot states a point reports are order.c's own enum order_st.
 */
#define _GNU_SOURCE
#include "order.c"

#include <pthread.h>
#include <sched.h>
#include "sim.h"
#include "stress.h"
#include "harness.h"

struct hold {
	u64	t;
	int	where, st;
	int	armed, arrived, go;
};
static struct hold holds[2];
static struct tempo_order *o;
static u64 done_log[8];
static int ndone;

void tempo_test_point(enum tempo_test_point where, const void *obj, u64 t,
		      unsigned int st)
{
	unsigned int i;

	if (obj != LD(o))
		return;
	for (i = 0; i < 2; i++) {
		struct hold *h = &holds[i];

		if (LD(h->armed) && h->t == t && h->where == (int)where && h->st == (int)st) {
			ST(h->armed, 0);
			ST(h->arrived, 1);
			while (!LD(h->go))
				sched_yield();
		}
	}
}

static void fn(void *arg)
{
	done_log[__atomic_fetch_add(&ndone, 1, __ATOMIC_ACQ_REL)] = (u64)(uintptr_t)arg;
}

struct op {
	unsigned int cpu;
	u64 t;
	int ret;
	pthread_t th;
};

static void *op_thread(void *arg)
{
	struct op *op = arg;

	tempo_sim_set_cpu(op->cpu);
	op->ret = tempo_order_run(o, op->t, fn, (void *)(uintptr_t)op->t);
	return NULL;
}

static void op_start(struct op *op, unsigned int cpu, u64 t)
{
	op->cpu = cpu;
	op->t = t;
	pthread_create(&op->th, NULL, op_thread, op);
}

static void hold_arm(int i, u64 t, int where, int st)
{
	holds[i] = (struct hold){ .t = t, .where = where, .st = st };
	ST(holds[i].armed, 1);
}

static void hold_wait(int i)
{
	while (!LD(holds[i].arrived))
		sched_yield();
}

static void hold_release(int i)
{
	ST(holds[i].go, 1);
}

/* A fresh domain whose head is ticket t (= first), with t and t + 1 taken. */
static u64 setup(void)
{
	struct tempo_order_opts opts = { .first_ticket = U64_MAX };	/* t + 1 wraps */
	u64 a, b;

	ST(o, tempo_order_create(4, &opts));
	ndone = 0;
	memset(holds, 0, sizeof(holds));
	EXPECT_TRUE(!tempo_order_ticket_try(o, &a) && !tempo_order_ticket_try(o, &b), "tickets");
	EXPECT_TRUE(a == U64_MAX && b == 0, "a=%llu b=%llu", a, b);
	return a;
}

static void teardown(u64 t)
{
	struct tempo_order_stats st;
	u64 c;

	EXPECT_EQ(ndone, 2, "%d completions ran", ndone);
	EXPECT_TRUE(ndone < 1 || done_log[0] == t, "first completion %llu", done_log[0]);
	EXPECT_TRUE(ndone < 2 || done_log[1] == t + 1, "second completion %llu", done_log[1]);
	/* The head moved past both: the next ticket is the head, TAIL. */
	EXPECT_FALSE(tempo_order_ticket_try(o, &c), "take");
	EXPECT_EQ(tempo_order_run(o, c, fn, (void *)(uintptr_t)c), 1, "t+2 is the head");
	tempo_order_stats(o, &st);
	EXPECT_TRUE(st.completed == 3 && !st.pending, "completed %llu pending %llu", st.completed, st.pending);
	tempo_order_destroy(o);
}

/* Owner read EMPTY; the head holder makes it TAIL first: the owner runs. */
static void owner_seen_empty_head_wins(void)
{
	u64 t = setup();
	struct op own, drn;

	hold_arm(0, t + 1, TEMPO_TP_ORDER_OWNER_SEEN, ST_EMPTY);
	op_start(&own, 1, t + 1);
	hold_wait(0);
	op_start(&drn, 0, t);
	pthread_join(drn.th, NULL);
	hold_release(0);
	pthread_join(own.th, NULL);
	EXPECT_EQ(drn.ret, 1, "head holder %d", drn.ret);
	EXPECT_EQ(own.ret, 1, "owner must run itself: %d", own.ret);
	teardown(t);
}

/* Head holder read EMPTY; the owner stores first: it re-reads, runs it. */
static void head_seen_empty_owner_wins(void)
{
	u64 t = setup();
	struct op own, drn;

	hold_arm(0, t + 1, TEMPO_TP_ORDER_HEAD_SEEN, ST_EMPTY);
	op_start(&drn, 0, t);
	hold_wait(0);
	op_start(&own, 1, t + 1);
	pthread_join(own.th, NULL);
	hold_release(0);
	pthread_join(drn.th, NULL);
	EXPECT_EQ(own.ret, 0, "owner must store: %d", own.ret);
	EXPECT_EQ(drn.ret, 1, "head holder %d", drn.ret);
	teardown(t);
}

/* Owner is WRITING; the head holder hands it the head: the owner runs. */
static void owner_writing_head_wins(void)
{
	u64 t = setup();
	struct op own, drn;

	hold_arm(0, t + 1, TEMPO_TP_ORDER_OWNER_WRITING, ST_WRITING);
	op_start(&own, 1, t + 1);
	hold_wait(0);
	op_start(&drn, 0, t);
	pthread_join(drn.th, NULL);
	hold_release(0);
	pthread_join(own.th, NULL);
	EXPECT_EQ(drn.ret, 1, "head holder %d", drn.ret);
	EXPECT_EQ(own.ret, 1, "owner must run itself: %d", own.ret);
	teardown(t);
}

/* Head holder read WRITING; the owner stores first: it re-reads STORED. */
static void head_seen_writing_owner_wins(void)
{
	u64 t = setup();
	struct op own, drn;

	hold_arm(0, t + 1, TEMPO_TP_ORDER_OWNER_WRITING, ST_WRITING);
	hold_arm(1, t + 1, TEMPO_TP_ORDER_HEAD_SEEN, ST_WRITING);
	op_start(&own, 1, t + 1);
	hold_wait(0);
	op_start(&drn, 0, t);
	hold_wait(1);
	hold_release(0);
	pthread_join(own.th, NULL);
	hold_release(1);
	pthread_join(drn.th, NULL);
	EXPECT_EQ(own.ret, 0, "owner must store: %d", own.ret);
	EXPECT_EQ(drn.ret, 1, "head holder %d", drn.ret);
	teardown(t);
}

static const struct test_case cases[] = {
	TEST_CASE_VOID(owner_seen_empty_head_wins),
	TEST_CASE_VOID(head_seen_empty_owner_wins),
	TEST_CASE_VOID(owner_writing_head_wins),
	TEST_CASE_VOID(head_seen_writing_owner_wins),
	{}
};

int main(void)
{
	int rc;

	tempo_sim_init(2, true, false);
	if (tempo_wheel_init(100000, 10) || tempo_order_init())
		return 1;
	rc = test_run("order_det", cases);
	tempo_order_exit();
	tempo_wheel_exit();
	return rc;
}
