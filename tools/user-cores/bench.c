// SPDX-License-Identifier: GPL-2.0
/*
 * Native benchmarks of the wheel (kmod/wheel.c, the same file the module
 * builds, on one simulated CPU): arm, re-arm, cancel and fire per operation,
 * a COARSE timer's re-arm to the deadline it holds (near and far),
 * each next to its physical floor (the atomic RMWs it needs, measured here
 * in the same run) and against seed-faithful baselines as ratios:
 *  - seed003: the seed's fixed-capacity CAS wheel (AtomicInteger per slot,
 *    fixed arrays, cursor % slots; no cancel exists in the seed);
 *  - heap: a binary-heap timer (java.util.Timer's structure) under a mutex;
 *  - ullink: the Java ordered scheduler's ring (getAndSet/CAS on a slot
 *    array), for ordered completion, against kmod/order.c: run in order
 *    (each caller is the head), ticket + run, and parked (every completion
 *    stored, then run by the head holder in one streak);
 * and the delay queue (kmod/delayq.c) as /dev/tempo uses it for a timer:
 * put_at and remove, 30 s and 2 ms ahead (each node later than the last)
 * and at random among 64K others, next to the wheel's own arm and cancel;
 * its read side; and the in-kernel bench's dq0 lane (an item already due,
 * put and taken back with 100K far items queued).
 * Batches of BATCH operations, best of ROUNDS, ns/op. Writes a JSON summary.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <time.h>
#include <linux/types.h>
#include "wheel_harness.h"
#include <tempo/delayq.h>
#include <tempo/order.h>

#define BATCH	65536
#define ROUNDS	7
#define TICK	1000000ULL

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

#define MEASURE(best, setup, body) do {					\
	unsigned int __r;							\
	best = 1e30;								\
	for (__r = 0; __r < ROUNDS; __r++) {					\
		double __t0, __t;						\
		setup;								\
		__t0 = now_ns();						\
		body;								\
		__t = (now_ns() - __t0) / BATCH;				\
		if (__t < best)							\
			best = __t;						\
	}									\
} while (0)

/* ---- floors -------------------------------------------------------------- */
static long word[BATCH] __attribute__((aligned(64)));

static double floor_cmpxchg(void)
{
	double best;
	unsigned int i;

	MEASURE(best, (void)0, for (i = 0; i < BATCH; i++) {
		long o = word[i & 7];
		__atomic_compare_exchange_n(&word[i & 7], &o, o + 1, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
	});
	return best;
}

static double floor_xchg(void)
{
	double best;
	unsigned int i;

	MEASURE(best, (void)0, for (i = 0; i < BATCH; i++)
		__atomic_exchange_n(&word[i & 7], (long)i, __ATOMIC_SEQ_CST));
	return best;
}

/* ---- tempo wheel ------------------------------------------------------------ */
static struct tempo_timer timers[BATCH];
static u64 fired;

static void nop_fn(struct tempo_timer *t)
{
	(void)t;
	fired++;
}

static u64 delay_i(unsigned int i)
{
	return (u64)((i * 2654435761u) % 5000 + 1) * TICK / 10;	/* 0.1 ms .. 500 ms */
}

static void wheel_cancel_all(void)
{
	unsigned int i;

	for (i = 0; i < BATCH; i++)
		tempo_timer_cancel(&timers[i]);
}

/* Let go of the lazily cancelled far timers, which stay linked until then. */
static void wheel_shutdown_all(void)
{
	unsigned int i;

	for (i = 0; i < BATCH; i++)
		tempo_timer_shutdown_sync(&timers[i]);
}

/*
 * A COARSE timer re-armed to the delay it has while the jiffy stands (the
 * fake clock does not move): every re-arm is to the deadline it holds, as
 * a connection's timeout re-armed on every packet. Near (the delays of
 * delay_i(), levels 0 and 1) and far (30 s, a far slot).
 */
static void wheel_coarse_bench(double *same_near, double *same_far)
{
	unsigned int i;

	for (i = 0; i < BATCH; i++) {
		tempo_timer_init(&timers[i], nop_fn, TEMPO_TIMER_COARSE);
		tempo_timer_arm(&timers[i], delay_i(i));
	}
	MEASURE(*same_near, (void)0, for (i = 0; i < BATCH; i++)
		tempo_timer_arm(&timers[i], delay_i(i)));
	wheel_cancel_all();
	for (i = 0; i < BATCH; i++)
		tempo_timer_arm(&timers[i], 30000 * TICK + delay_i(i));
	MEASURE(*same_far, (void)0, for (i = 0; i < BATCH; i++)
		tempo_timer_arm(&timers[i], 30000 * TICK + delay_i(i)));
	wheel_cancel_all();
}

/*
 * The wheel's timers of one kind (@flags: 0, or TEMPO_TIMER_FINE); with
 * @same_near, the COARSE re-arms to the deadline held too.
 */
static void wheel_bench(unsigned int flags, double *arm, double *rearm, double *cancel,
			double *fire, double *same_near, double *same_far)
{
	unsigned int i;

	fired = 0;
	tempo_sim_init(1, false, true);
	tempo_sim_clock_set(1000 * TICK);
	tempo_wheel_init(TICK, 10);
	tempo_sim_set_cpu(0);
	for (i = 0; i < BATCH; i++)
		tempo_timer_init(&timers[i], nop_fn, flags);

	MEASURE(*arm, wheel_cancel_all(), for (i = 0; i < BATCH; i++)
		tempo_timer_arm(&timers[i], delay_i(i)));
	MEASURE(*rearm, (void)0, for (i = 0; i < BATCH; i++)
		tempo_timer_arm(&timers[i], delay_i(i + 7)));
	MEASURE(*cancel, for (i = 0; i < BATCH; i++) tempo_timer_arm(&timers[i], delay_i(i)),
		for (i = 0; i < BATCH; i++) tempo_timer_cancel(&timers[i]));
	/* fire: collect (hrtimer) and dispatch (work) per timer, time moving on */
	MEASURE(*fire, for (i = 0; i < BATCH; i++) tempo_timer_arm(&timers[i], delay_i(i)),
		h_drive_until(ktime_get_ns() + 600 * TICK));
	if (fired != (u64)ROUNDS * BATCH)
		fprintf(stderr, "bench: fired %llu of %llu\n", fired, (u64)ROUNDS * BATCH);
	if (same_near)
		wheel_coarse_bench(same_near, same_far);
	wheel_shutdown_all();
	tempo_wheel_exit();
}

/* ---- tempo delay queue: what /dev/tempo does per timer armed and cancelled -- */
static struct tempo_delayq_node dq_nodes[BATCH];

static void dq_remove_all(struct tempo_delayq *q)
{
	unsigned int i;

	for (i = 0; i < BATCH; i++)
		tempo_delayq_remove(q, &dq_nodes[i]);
}

static void dq_put_all(struct tempo_delayq *q, u64 ahead)
{
	ktime_t now = ktime_get();
	unsigned int i;

	for (i = 0; i < BATCH; i++)
		tempo_delayq_put_at(q, &dq_nodes[i], ktime_add_ns(now, ahead + i));
}

/*
 * put_many() and remove_many() in /dev/tempo's chunks (16 puts, 32 removes).
 * Node i is put for @first + i * @step.
 */
static void dq_put_many_from(struct tempo_delayq *q, ktime_t first, u64 step)
{
	static ktime_t dl[BATCH];
	static struct tempo_delayq_node *np[BATCH];
	unsigned int i;
	int err;

	for (i = 0; i < BATCH; i++) {
		np[i] = &dq_nodes[i];
		dl[i] = ktime_add_ns(first, i * step);
	}
	for (i = 0; i < BATCH; i += 16)
		tempo_delayq_put_many(q, np + i, dl + i, 16, &err);
}

/* Node i at a random point of one second, 30 s ahead: among the others, not after them. */
static void dq_put_random(struct tempo_delayq *q)
{
	ktime_t base = ktime_add_ns(ktime_get(), 30000 * TICK);
	unsigned int i;

	for (i = 0; i < BATCH; i++)
		tempo_delayq_put_at(q, &dq_nodes[i],
				    ktime_add_ns(base, (u64)(i * 2654435761u) % (1000 * TICK)));
}

static void dq_put_chunks(struct tempo_delayq *q, u64 ahead)
{
	dq_put_many_from(q, ktime_add_ns(ktime_get(), ahead), 1);
}

static void dq_remove_chunks(struct tempo_delayq *q)
{
	static struct tempo_delayq_node *np[BATCH];
	bool removed[32];
	unsigned int i;

	for (i = 0; i < BATCH; i++)
		np[i] = &dq_nodes[i];
	for (i = 0; i < BATCH; i += 32)
		tempo_delayq_remove_many(q, np + i, 32, removed);
}

/*
 * The read side of /dev/tempo: every node due (near, one tick, as an expiry
 * batch is), then consume() in chunks of 32 (read() takes 128) with a
 * callback that copies a record out per node (64 bytes; /dev/tempo's are
 * 48), the work of dev_read_record(); take_many() in the same chunks for the
 * bare take.
 */
struct dq_rec {
	u64 w[8];
};

static struct dq_rec dq_recs[32];

static enum tempo_delayq_verdict dq_copy_fn(struct tempo_delayq_node *node, ktime_t due,
					    void *arg)
{
	unsigned int *n = arg;
	struct dq_rec r = { { (u64)(uintptr_t)node, (u64)due, (u64)node->deadline } };

	memcpy(&dq_recs[(*n)++ & 31], &r, sizeof(r));
	return TEMPO_DELAYQ_TAKE;
}

static void dq_put_due(struct tempo_delayq *q)
{
	tempo_sim_clock_set(2000 * TICK);
	dq_put_many_from(q, ktime_add_ns(ktime_get(), TICK + TICK / 2), 0);
	tempo_sim_clock_set(2003 * TICK);
}

static void dq_consume_all(struct tempo_delayq *q)
{
	unsigned int n = 0;

	while (tempo_delayq_consume(q, dq_copy_fn, &n, 32, 0) > 0)
		;
}

static void dq_drain_all(struct tempo_delayq *q)
{
	static struct tempo_delayq_node *np[32];

	while (tempo_delayq_take_many(q, np, 32) > 0)
		;
}

/* One CPU, the wheel and a delay queue on the fake clock; its nodes ready. */
static struct tempo_delayq *dq_bench_begin(void)
{
	struct tempo_delayq *q;
	unsigned int i;

	tempo_sim_init(1, false, true);
	tempo_sim_clock_set(1000 * TICK);
	tempo_wheel_init(TICK, 10);
	tempo_delayq_init();
	tempo_sim_set_cpu(0);
	q = tempo_delayq_create();
	if (!q)
		abort();
	for (i = 0; i < BATCH; i++)
		tempo_delayq_node_init(&dq_nodes[i]);
	return q;
}

static void dq_bench_end(struct tempo_delayq *q)
{
	tempo_delayq_shutdown(q);
	tempo_delayq_destroy(q, NULL, NULL);
	tempo_delayq_exit();
	tempo_wheel_exit();
}

/*
 * Nodes due already, put out of deadline order: they go to the tree (all but
 * the first when @descending, most of them at random), not to the run.
 */
static void dq_put_past(struct tempo_delayq *q, bool descending)
{
	ktime_t base = ktime_sub_ns(ktime_get(), TICK);
	unsigned int i, at;

	for (i = 0; i < BATCH; i++) {
		at = descending ? BATCH - i : (i * 2654435761u) % BATCH;
		tempo_delayq_put_at(q, &dq_nodes[i], ktime_add_ns(base, at * 8));
	}
}

static void delayq_read_bench(double *consume, double *drain, double *tree_rand,
			      double *tree_desc, double *tree_drain)
{
	struct tempo_delayq *q = dq_bench_begin();

	MEASURE(*consume, dq_put_due(q), dq_consume_all(q));
	MEASURE(*drain, dq_put_due(q), dq_drain_all(q));
	MEASURE(*tree_rand, dq_drain_all(q), dq_put_past(q, false));
	MEASURE(*tree_desc, dq_drain_all(q), dq_put_past(q, true));
	MEASURE(*tree_drain, dq_put_past(q, false), dq_drain_all(q));
	dq_drain_all(q);
	dq_bench_end(q);
}

#define DQ0_PENDING	100000

/*
 * The in-kernel bench's dq0 lane: DQ0_PENDING items far ahead (1024 distinct
 * deadlines, as tempo_bench.c puts them), then an item put already due and
 * taken straight back, BATCH times: ns per put + take (*@dq0). Then BATCH
 * nodes put at random deadlines among the far ones, and removed.
 */
static void delayq_dq0_bench(double *dq0, double *rand_put, double *rand_remove)
{
	static struct tempo_delayq_node far[DQ0_PENDING];
	struct tempo_delayq *q = dq_bench_begin();
	ktime_t now = ktime_get();
	unsigned int i;

	for (i = 0; i < DQ0_PENDING; i++) {
		tempo_delayq_node_init(&far[i]);
		tempo_delayq_put_at(q, &far[i], ktime_add_ns(now, (30000 + (i & 1023)) * TICK));
	}
	MEASURE(*dq0, (void)0, for (i = 0; i < BATCH; i++) {
		if (tempo_delayq_put(q, &dq_nodes[i], 0) ||
		    IS_ERR(tempo_delayq_take(q)))
			abort();
	});
	MEASURE(*rand_put, dq_remove_all(q), dq_put_random(q));
	MEASURE(*rand_remove, dq_put_random(q), dq_remove_all(q));
	dq_remove_all(q);
	for (i = 0; i < DQ0_PENDING; i++)
		tempo_delayq_remove(q, &far[i]);
	dq_bench_end(q);
}

/* @ahead: 30 s (a coarse level of the queue's wheel, a far timer slot) or 2 ms (near). */
static void delayq_bench(u64 ahead, double *put, double *remove, double *arm, double *cancel,
			 double *put_many, double *remove_many)
{
	struct tempo_delayq *q = dq_bench_begin();
	unsigned int i;

	for (i = 0; i < BATCH; i++)
		tempo_timer_init(&timers[i], nop_fn, 0);
	MEASURE(*put, dq_remove_all(q), dq_put_all(q, ahead));
	MEASURE(*remove, dq_put_all(q, ahead), dq_remove_all(q));
	MEASURE(*put_many, dq_remove_all(q), dq_put_chunks(q, ahead));
	MEASURE(*remove_many, dq_put_all(q, ahead), dq_remove_chunks(q));
	/* The wheel alone, the same deadlines: what the queue adds to it. */
	MEASURE(*arm, wheel_cancel_all(), for (i = 0; i < BATCH; i++)
		tempo_timer_arm(&timers[i], ahead + i));
	MEASURE(*cancel, for (i = 0; i < BATCH; i++) tempo_timer_arm(&timers[i], ahead + i),
		wheel_cancel_all());
	wheel_shutdown_all();
	dq_bench_end(q);
}

/* ---- seed 003: the fixed-capacity CAS wheel, as written in the seed --------- */
#define S_SLOTS		512
#define S_MAX		1024	/* maxTasksPerSlot */
struct s_task { u64 after_ms; void (*fn)(struct s_task *); };
static struct { int size; struct s_task *slot[S_MAX]; } s_wheel[S_SLOTS];
static int s_cursor;
static struct s_task s_tasks[BATCH];
static u64 s_ran;

static void s_submit(struct s_task *t) { t->fn(t); }
static void s_fn(struct s_task *t) { (void)t; s_ran++; }

static bool s_add(struct s_task *task)
{
	int cur = __atomic_load_n(&s_cursor, __ATOMIC_SEQ_CST);
	int slot = (int)((cur + task->after_ms / 1) % S_SLOTS);	/* slotMillisInterval = 1 */
	int index;

	if (slot == cur) {
		s_submit(task);
		return true;
	}
	index = __atomic_fetch_add(&s_wheel[slot].size, 1, __ATOMIC_SEQ_CST);
	if (index < S_MAX) {
		__atomic_store_n(&s_wheel[slot].slot[index], task, __ATOMIC_SEQ_CST);
		return true;
	}
	__atomic_fetch_sub(&s_wheel[slot].size, 1, __ATOMIC_SEQ_CST);
	return false;
}

static void s_submit_current(void)
{
	int cur = __atomic_load_n(&s_cursor, __ATOMIC_SEQ_CST);
	static struct s_task *tasks[S_MAX];
	int n = 0, expect;

	__atomic_store_n(&s_cursor, (cur + 1) % S_SLOTS, __ATOMIC_SEQ_CST);
	for (;;) {
		int size = __atomic_load_n(&s_wheel[cur].size, __ATOMIC_SEQ_CST);
		int i, lim = size < S_MAX ? size : S_MAX;

		for (i = n; i < lim; i++) {
			struct s_task *t = __atomic_load_n(&s_wheel[cur].slot[i], __ATOMIC_SEQ_CST);

			if (!t)
				break;
			tasks[n++] = t;
			__atomic_store_n(&s_wheel[cur].slot[i], NULL, __ATOMIC_SEQ_CST);
		}
		expect = n;
		if (__atomic_compare_exchange_n(&s_wheel[cur].size, &expect, 0, false,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			break;
	}
	for (expect = 0; expect < n; expect++)
		s_submit(tasks[expect]);
}

static void seed_bench(double *arm, double *fire)
{
	unsigned int i, k;

	for (i = 0; i < BATCH; i++) {
		s_tasks[i].after_ms = (i * 2654435761u) % 500 + 1;	/* 1 .. 500 ms */
		s_tasks[i].fn = s_fn;
	}
	MEASURE(*arm, memset(s_wheel, 0, sizeof(s_wheel)), for (i = 0; i < BATCH; i++)
		s_add(&s_tasks[i]));
	MEASURE(*fire, { memset(s_wheel, 0, sizeof(s_wheel)); for (i = 0; i < BATCH; i++) s_add(&s_tasks[i]); },
		for (k = 0; k < S_SLOTS; k++) s_submit_current());
}

/* ---- binary heap timer under a lock ----------------------------------------- */
struct h_timer { u64 when; int idx; };
static struct h_timer h_timers[BATCH], *heap[BATCH];
static int heap_n;
static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER;

static void h_swap(int a, int b)
{
	struct h_timer *t = heap[a];

	heap[a] = heap[b];
	heap[b] = t;
	heap[a]->idx = a;
	heap[b]->idx = b;
}

static void h_up(int i)
{
	while (i && heap[(i - 1) / 2]->when > heap[i]->when) {
		h_swap(i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void h_down(int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;

		if (l < heap_n && heap[l]->when < heap[m]->when)
			m = l;
		if (r < heap_n && heap[r]->when < heap[m]->when)
			m = r;
		if (m == i)
			return;
		h_swap(i, m);
		i = m;
	}
}

static void h_add(struct h_timer *t)
{
	pthread_mutex_lock(&heap_lock);
	heap[heap_n] = t;
	t->idx = heap_n++;
	h_up(t->idx);
	pthread_mutex_unlock(&heap_lock);
}

static void h_del(struct h_timer *t)
{
	pthread_mutex_lock(&heap_lock);
	if (t->idx >= 0) {
		int i = t->idx;

		h_swap(i, --heap_n);
		t->idx = -1;
		if (i < heap_n) {
			h_up(i);
			h_down(i);
		}
	}
	pthread_mutex_unlock(&heap_lock);
}

static void h_fire_all(void)
{
	pthread_mutex_lock(&heap_lock);
	while (heap_n) {
		struct h_timer *t = heap[0];

		h_swap(0, --heap_n);
		t->idx = -1;
		h_down(0);
		pthread_mutex_unlock(&heap_lock);
		s_ran++;	/* the callback */
		pthread_mutex_lock(&heap_lock);
	}
	pthread_mutex_unlock(&heap_lock);
}

static void heap_bench(double *arm, double *cancel, double *fire)
{
	unsigned int i;

	for (i = 0; i < BATCH; i++)
		h_timers[i].when = delay_i(i);
	MEASURE(*arm, heap_n = 0, for (i = 0; i < BATCH; i++) h_add(&h_timers[i]));
	MEASURE(*cancel, { heap_n = 0; for (i = 0; i < BATCH; i++) h_add(&h_timers[i]); },
		for (i = 0; i < BATCH; i++) h_del(&h_timers[i]));
	MEASURE(*fire, { heap_n = 0; for (i = 0; i < BATCH; i++) h_add(&h_timers[i]); },
		h_fire_all());
}

/* ---- Ullink ordered scheduler ring (0.9.1), single caller in order ----------- */
#define U_SLOTS 1024
static void *u_ring[U_SLOTS];
static long u_tail;
static char U_TAIL_OBJ, U_ran;
#define U_TAIL ((void *)&U_TAIL_OBJ)
static void u_fn(void) { U_ran++; }

static bool u_run(long seq, void (*r)(void))
{
	void *res;
	long local_tail;

	while (seq >= __atomic_load_n(&u_tail, __ATOMIC_SEQ_CST) + U_SLOTS)
		sched_yield();
	res = __atomic_exchange_n(&u_ring[seq & (U_SLOTS - 1)], (void *)r, __ATOMIC_SEQ_CST);
	if (res != U_TAIL)
		return false;
	local_tail = seq;
	for (;;) {
		void *cur = (void *)r;

		do {
			((void (*)(void))cur)();
			u_ring[local_tail & (U_SLOTS - 1)] = NULL;	/* plain putObject */
			local_tail++;
			cur = __atomic_load_n(&u_ring[local_tail & (U_SLOTS - 1)], __ATOMIC_SEQ_CST);
		} while (cur);
		__atomic_store_n(&u_tail, local_tail, __ATOMIC_SEQ_CST);
		{
			void *expect = NULL;

			if (__atomic_compare_exchange_n(&u_ring[local_tail & (U_SLOTS - 1)], &expect,
							U_TAIL, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
				return true;
			r = (void (*)(void))__atomic_load_n(&u_ring[local_tail & (U_SLOTS - 1)],
							    __ATOMIC_SEQ_CST);
		}
	}
}

static double ullink_bench(void)
{
	static long seq;
	double best;
	unsigned int i;

	u_ring[0] = U_TAIL;
	MEASURE(best, (void)0, for (i = 0; i < BATCH; i++) u_run(seq++, u_fn));
	return best;
}

/* ---- tempo ordered scheduler (kmod/order.c) --------------------------------- */
static u64 o_ran, o_tickets[BATCH];
static void o_fn(void *arg) { (void)arg; o_ran++; }

#define O_WIN	1024	/* the ullink ring's size: same cache footprint class */

/* Best of ROUNDS of BATCH ops, in chunks of O_WIN; only @body is timed. */
#define O_MEASURE(best, setup, body) do {					\
	unsigned int __r, __c;							\
	best = 1e30;								\
	for (__r = 0; __r < ROUNDS; __r++) {					\
		double __sum = 0, __t0;						\
		for (__c = 0; __c < BATCH / O_WIN; __c++) {			\
			setup;							\
			__t0 = now_ns();					\
			body;							\
			__sum += now_ns() - __t0;				\
		}								\
		if (__sum / BATCH < best)					\
			best = __sum / BATCH;					\
	}									\
} while (0)

static void order_bench(double *run, double *ticket_run, double *parked)
{
	struct tempo_order_opts opts = { .max_streak = O_WIN };
	struct tempo_order *o;
	unsigned int i;

	tempo_order_init();
	o = tempo_order_create(O_WIN, &opts);
	if (IS_ERR(o))
		abort();
	/* Tickets taken beforehand (untimed); run() in order: each caller is the head. */
	O_MEASURE(*run, for (i = 0; i < O_WIN; i++) tempo_order_ticket_try(o, &o_tickets[i]),
		  for (i = 0; i < O_WIN; i++) tempo_order_run(o, o_tickets[i], o_fn, NULL));
	O_MEASURE(*ticket_run, (void)0, for (i = 0; i < O_WIN; i++) {
		u64 t;

		tempo_order_ticket_try(o, &t);
		tempo_order_run(o, t, o_fn, NULL);
	});
	/* All but the first are stored; then the head runs O_WIN in one streak. */
	O_MEASURE(*parked, for (i = 0; i < O_WIN; i++) tempo_order_ticket_try(o, &o_tickets[i]),
		  { for (i = 1; i < O_WIN; i++) tempo_order_run(o, o_tickets[i], o_fn, NULL);
		    tempo_order_run(o, o_tickets[0], o_fn, NULL); });
	tempo_order_destroy(o);
	tempo_order_exit();
}

int main(int argc, char **argv)
{
	double o_run, o_trun, o_parked;
	double dqf_put, dqf_rm, dqf_arm, dqf_cancel, dqn_put, dqn_rm, dqn_arm, dqn_cancel;
	double dqf_pm, dqf_rmm, dqn_pm, dqn_rmm, dq_consume, dq_drain, dq0, dqr_put, dqr_rm;
	double dqt_rand, dqt_desc, dqt_drain;
	double f_cas, f_xchg, arm, rearm, cancel, fire, s_arm, s_fire, h_arm, h_cancel, h_fire, u_run_ns;
	double f_arm, f_rearm, f_cancel, f_fire;
	double same_near, same_far;
	FILE *j;

	f_cas = floor_cmpxchg();
	f_xchg = floor_xchg();
	wheel_bench(0, &arm, &rearm, &cancel, &fire, &same_near, &same_far);
	wheel_bench(TEMPO_TIMER_FINE, &f_arm, &f_rearm, &f_cancel, &f_fire, NULL, NULL);
	seed_bench(&s_arm, &s_fire);
	heap_bench(&h_arm, &h_cancel, &h_fire);
	u_run_ns = ullink_bench();
	order_bench(&o_run, &o_trun, &o_parked);
	delayq_bench(30000 * TICK, &dqf_put, &dqf_rm, &dqf_arm, &dqf_cancel, &dqf_pm, &dqf_rmm);
	delayq_bench(2 * TICK, &dqn_put, &dqn_rm, &dqn_arm, &dqn_cancel, &dqn_pm, &dqn_rmm);
	delayq_read_bench(&dq_consume, &dq_drain, &dqt_rand, &dqt_desc, &dqt_drain);
	delayq_dq0_bench(&dq0, &dqr_put, &dqr_rm);

	printf("# bench: batch %u timers, best of %u, 1 CPU\n", BATCH, ROUNDS);
	printf("# bench: %-18s %8s %8s %8s %10s %10s\n", "op", "ns/op", "floor", "x floor", "vs seed003", "vs heap");
	printf("# bench: %-18s %8.1f %8.1f %8.1f %10.2f %10.2f\n", "wheel arm", arm, f_cas, arm / f_cas, arm / s_arm, arm / h_arm);
	printf("# bench: %-18s %8.1f %8.1f %8.1f %10s %10.2f\n", "wheel re-arm", rearm, f_cas, rearm / f_cas, "n/a", rearm / (h_cancel + h_arm));
	printf("# bench: %-18s %8.1f %8.1f %8.1f %10s %10.2f\n", "wheel cancel", cancel, f_cas, cancel / f_cas, "n/a", cancel / h_cancel);
	printf("# bench: %-18s %8.1f %8.1f %8.1f %10.2f %10.2f\n", "wheel fire", fire, f_cas, fire / f_cas, fire / s_fire, fire / h_fire);
	printf("# bench: %-18s %8.1f %8.1f %8.1f %10.2f %10.2f\n", "fine arm", f_arm, f_cas, f_arm / f_cas, f_arm / s_arm, f_arm / h_arm);
	printf("# bench: %-18s %8.1f %8.1f %8.1f %10s %10.2f\n", "fine re-arm", f_rearm, f_cas, f_rearm / f_cas, "n/a", f_rearm / (h_cancel + h_arm));
	printf("# bench: %-18s %8.1f %8.1f %8.1f %10s %10.2f\n", "fine cancel", f_cancel, f_cas, f_cancel / f_cas, "n/a", f_cancel / h_cancel);
	printf("# bench: %-18s %8.1f %8.1f %8.1f %10.2f %10.2f\n", "fine fire", f_fire, f_cas, f_fire / f_cas, f_fire / s_fire, f_fire / h_fire);
	printf("# bench: %-18s %8.1f %8.1f %8.1f   (COARSE, to the deadline it holds: near, 0.1-500 ms)\n", "wheel re-arm same", same_near, f_cas, same_near / f_cas);
	printf("# bench: %-18s %8.1f %8.1f %8.1f   (COARSE, to the deadline it holds: far, 30 s)\n", "wheel re-arm same", same_far, f_cas, same_far / f_cas);
	printf("# bench: %-18s %8.1f %8.1f %8.1f\n", "seed003 add", s_arm, f_cas, s_arm / f_cas);
	printf("# bench: %-18s %8.1f %8.1f %8.1f\n", "seed003 fire", s_fire, f_cas, s_fire / f_cas);
	printf("# bench: %-18s %8.1f %8.1f %8.1f\n", "heap add", h_arm, f_cas, h_arm / f_cas);
	printf("# bench: %-18s %8.1f %8.1f %8.1f\n", "heap cancel", h_cancel, f_cas, h_cancel / f_cas);
	printf("# bench: %-18s %8.1f %8.1f %8.1f\n", "heap fire", h_fire, f_cas, h_fire / f_cas);
	printf("# bench: %-18s %8.1f %8.1f %8.1f   (floor: xchg, the volatile store of tail (xchg), cmpxchg)\n", "ullink run", u_run_ns, 2 * f_xchg + f_cas, u_run_ns / (2 * f_xchg + f_cas));
	printf("# bench: %-18s %8.1f %8.1f %8.1f %10s %10s %10.2f  (floor: 2 cmpxchg, claim and hand-off; last col: vs ullink)\n", "order run", o_run, 2 * f_cas, o_run / (2 * f_cas), "", "", o_run / u_run_ns);
	printf("# bench: %-18s %8.1f %8.1f %8.1f %10s %10s %10.2f  (floor: 3 cmpxchg, the ticket's too)\n", "order ticket+run", o_trun, 3 * f_cas, o_trun / (3 * f_cas), "", "", o_trun / u_run_ns);
	printf("# bench: %-18s %8.1f %8.1f %8.1f %10s %10s %10.2f  (floor: 2 cmpxchg)\n", "order parked+drain", o_parked, 2 * f_cas, o_parked / (2 * f_cas), "", "", o_parked / u_run_ns);
	printf("# bench: floors: cmpxchg %.2f ns, xchg %.2f ns\n", f_cas, f_xchg);
	printf("# bench: delay queue as /dev/tempo uses it, ns/op (the wheel alone, same deadlines):\n");
	printf("# bench:   30 s ahead: put %.1f (arm %.1f)  remove %.1f (cancel %.1f)  pair %.1f vs %.1f = %.2fx\n",
	       dqf_put, dqf_arm, dqf_rm, dqf_cancel, dqf_put + dqf_rm, dqf_arm + dqf_cancel,
	       (dqf_put + dqf_rm) / (dqf_arm + dqf_cancel));
	printf("# bench:   2 ms ahead: put %.1f (arm %.1f)  remove %.1f (cancel %.1f)  pair %.1f vs %.1f = %.2fx\n",
	       dqn_put, dqn_arm, dqn_rm, dqn_cancel, dqn_put + dqn_rm, dqn_arm + dqn_cancel,
	       (dqn_put + dqn_rm) / (dqn_arm + dqn_cancel));
	printf("# bench:   in /dev/tempo's chunks (put_many 16, remove_many 32): 30 s ahead %.1f + %.1f, 2 ms ahead %.1f + %.1f\n",
	       dqf_pm, dqf_rmm, dqn_pm, dqn_rmm);
	printf("# bench:   read side, all due, chunks of 32: consume (a record copied per item) %.1f, drain %.1f\n",
	       dq_consume, dq_drain);
	printf("# bench:   due, out of order (the tree): put at random %.1f, in descending order %.1f; drain %.1f\n",
	       dqt_rand, dqt_desc, dqt_drain);
	printf("# bench:   %u far items queued: dq0 (put due + take) %.1f; put at random among them %.1f, remove %.1f\n",
	       DQ0_PENDING, dq0, dqr_put, dqr_rm);

	j = fopen(argc > 1 ? argv[1] : "build/user/bench.json", "w");
	if (!j)
		return 1;
	fprintf(j, "{\"batch\":%u,\"rounds\":%u,\"floor_ns\":{\"cmpxchg\":%.2f,\"xchg\":%.2f},\n"
		"\"tempo_wheel\":{\"arm\":%.2f,\"rearm\":%.2f,\"cancel\":%.2f,\"fire\":%.2f,"
		"\"coarse_same_near\":%.2f,\"coarse_same_far\":%.2f},\n"
		"\"tempo_wheel_fine\":{\"arm\":%.2f,\"rearm\":%.2f,\"cancel\":%.2f,\"fire\":%.2f},\n"
		"\"seed003_cas_wheel\":{\"arm\":%.2f,\"fire\":%.2f,\"cancel\":null},\n"
		"\"heap_locked\":{\"arm\":%.2f,\"cancel\":%.2f,\"fire\":%.2f},\n"
		"\"ullink_ring\":{\"run_in_order\":%.2f},\n"
		"\"tempo_order\":{\"run_in_order\":%.2f,\"ticket_run\":%.2f,\"parked_drain\":%.2f,"
		"\"floor_run\":%.2f,\"floor_ticket_run\":%.2f,\"vs_ullink_run\":%.2f,"
		"\"vs_ullink_ticket_run\":%.2f},\n"
		"\"tempo_delayq\":{\"far_put\":%.2f,\"far_remove\":%.2f,\"near_put\":%.2f,"
		"\"near_remove\":%.2f,\"far_put_many\":%.2f,\"far_remove_many\":%.2f,"
		"\"random_put\":%.2f,\"random_remove\":%.2f,\"consume\":%.2f,\"drain\":%.2f,"
		"\"dq0\":%.2f,\"tree_put_random\":%.2f,\"tree_put_descending\":%.2f,"
		"\"tree_drain\":%.2f}}\n",
		BATCH, ROUNDS, f_cas, f_xchg, arm, rearm, cancel, fire, same_near, same_far,
		f_arm, f_rearm, f_cancel, f_fire, s_arm, s_fire,
		h_arm, h_cancel, h_fire, u_run_ns, o_run, o_trun, o_parked, 2 * f_cas, 3 * f_cas,
		o_run / u_run_ns, o_trun / u_run_ns, dqf_put, dqf_rm, dqn_put, dqn_rm, dqf_pm, dqf_rmm,
		dqr_put, dqr_rm,
		dq_consume, dq_drain, dq0, dqt_rand, dqt_desc, dqt_drain);
	fclose(j);
	return 0;
}
