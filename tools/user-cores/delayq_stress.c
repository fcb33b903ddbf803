// SPDX-License-Identifier: GPL-2.0
/*
 * ThreadSanitizer stress of kmod/delayq.c on simulated CPUs, fake clock.
 * Producers (the first half of the CPUs) put their items with random delays
 * (put and put_at), and remove them at random, and move the clock; consumers (the other half) take them with take(),
 * take_timeout(), try_take(), take_many() and consume(), sleeping as exclusive
 * waiters while their CPU goes on serving its expiries. An item is periodic
 * for consume(): put with a number of laps, it is answered AGAIN (its
 * deadline moved a period later, near or far) until its laps are done, then
 * TAKE; any other take ends it at once; remove() may end it between laps.
 * consume()'s callback also answers STOP now and then. The main thread sends
 * "signals" to sleeping consumers. Self-validating:
 *
 *  - exactly once: every item carries an owner word moved by cmpxchg
 *    (QUEUED -> TAKEN/REMOVED); a node handed out twice, or taken and
 *    removed, fails the cmpxchg; an item stays QUEUED through its laps;
 *  - never early: a taken item's deadline is <= the (fake) clock at take;
 *    consume()'s callback sees each lap at or after its deadline, with a due
 *    stamp at or after the deadline and not after the clock;
 *  - conservation: put = taken + removed + queued, from our counts and the
 *    queue's own, sampled under load (stats snapshot) and at the end, where
 *    destroy hands back what is left; the queue's requeued count is our
 *    AGAIN verdicts;
 *  - one consumer per expiry: before shutdown, the wake-ups delivered to
 *    consumers never exceed the items that became ready, plus one per STOP
 *    (a consumer woken for an item it answers STOP passes its wake-up on)
 *    (exclusive waits, nr_exclusive = 1; a wake-all herd breaks it), and,
 *    exactly, in a first phase: three consumers asleep, each expiry wakes
 *    exactly one.
 *
 * Usage: delayq_stress [seconds] [cpus]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <unistd.h>
#include <linux/types.h>
#include <tempo/delayq.h>
#include <tempo/timer.h>
#include "internal.h"
#include "sim.h"
#include "stress.h"
#include "testing.h"

#define MAXCPU		8
#define NITEMS		48	/* per producer */
#define TICK		10000ULL

enum { IT_FREE, IT_QUEUED, IT_TAKEN, IT_REMOVED };

struct item {
	struct tempo_delayq_node node;
	int		own;		/* atomic: IT_* */
	unsigned int	producer;
	unsigned int	laps;		/* AGAIN verdicts still to give (queue's lock) */
	u64		period;		/* each lap's, ns */
};

static struct item items[MAXCPU][NITEMS];
static struct tempo_delayq *q;
static unsigned int ncpus = 4, nprod;
static int stop_prod, consumers_out;
static struct task_struct *consumer_task[MAXCPU];
static u64 n_put, n_taken, n_removed, n_flushed, n_early, n_dup, n_busy, n_sig, n_tmo;
static u64 n_bad, n_wake_excess, samples;
static u64 n_again, n_stop, n_consumed, n_bad_due;

/* The wheel's test points under the queue's timer (the waker): jitter. */
void tempo_test_point(enum tempo_test_point where, const void *obj, u64 arg,
		      unsigned int state)
{
	stress_jitter(arg);
}

static bool claim(struct item *it, int to)
{
	int exp = IT_QUEUED;

	if (__atomic_compare_exchange_n(&it->own, &exp, to, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
		return true;
	ADD(n_dup, 1);
	fprintf(stderr, "DUP: item %p handed out while %d (to %d)\n", it, exp, to);
	return false;
}

static void took(struct tempo_delayq_node *node)
{
	struct item *it = container_of(node, struct item, node);
	ktime_t now = ktime_get();

	if (now < node->deadline) {
		ADD(n_early, 1);
		fprintf(stderr, "EARLY: taken at %lld < deadline %lld\n", now, node->deadline);
	}
	if (claim(it, IT_TAKEN)) {
		ADD(n_taken, 1);
		ST(it->own, IT_FREE);	/* back to its producer */
	}
}

static void sample(void)
{
	struct tempo_delayq_stats st;
	u64 stops;

	tempo_delayq_stats(q, &st);
	/*
	 * After the snapshot: a STOP is counted under the queue's lock before
	 * the wake-up it passes on, which the snapshot may count.
	 */
	stops = LD(n_stop);
	ADD(samples, 1);
	if (st.put != st.taken + st.removed + st.flushed + st.pending + st.ready) {
		ADD(n_bad, 1);
		fprintf(stderr,
			"CONSERVATION: put %llu taken %llu removed %llu pending %u ready %u\n",
			st.put, st.taken, st.removed, st.pending, st.ready);
	}
	if (st.wakeups > st.expired + stops) {
		ADD(n_wake_excess, 1);
		fprintf(stderr, "HERD: %llu consumer wake-ups for %llu ready items, %llu stops\n",
			st.wakeups, st.expired, stops);
	}
}

static void *producer(void *arg)
{
	unsigned int cpu = (uintptr_t)arg;
	u64 seed = 0x9e3779b97f4a7c15ULL * (cpu + 7);

	tempo_sim_set_cpu(cpu);
	while (!LD(stop_prod)) {
		u64 x = rnd(&seed);
		struct item *it = &items[cpu][(x >> 8) % NITEMS];
		int own = LD(it->own), ret;

		tempo_sim_run_irqs();
		tempo_sim_run_works();
		tempo_sim_clock_advance((x >> 20) % (TICK / 2));
		if (x % 64 == 0)
			sample();
		if (own == IT_FREE || own == IT_REMOVED) {
			/* a quarter far (the waker staged), the rest within 40 ticks */
			u64 d = (x >> 32) % ((x & 0x300) ? 40 * TICK : 400 * TICK);

			/* Laps for consume(): periods near, or an eighth far. */
			it->laps = (x >> 40) % 4;
			it->period = 1 + (x >> 44) % ((x & 0x1c00) ? 30 * TICK : 300 * TICK);
			ST(it->own, IT_QUEUED);	/* before put: a consumer may take it at once */
			ret = (x >> 5) & 1 ? tempo_delayq_put(q, &it->node, d) :
					     tempo_delayq_put_at(q, &it->node, ktime_get() + d);
			if (ret == 0) {
				ADD(n_put, 1);
			} else {
				/* Not queued: a removed or taken node may be put again at once. */
				ST(it->own, own);
				ADD(n_busy, 1);
				ADD(n_dup, 1);
				fprintf(stderr, "WRONG: put of a free item: %d\n", ret);
			}
		} else if (own == IT_QUEUED && x % 8 == 0) {
			/*
			 * remove() must be the one that gets it: but a consumer may
			 * take it meanwhile; then remove() returns false.
			 */
			if (tempo_delayq_remove(q, &it->node)) {
				if (claim(it, IT_REMOVED))
					ADD(n_removed, 1);
			}
		}
	}
	return NULL;
}

/* consume()'s callback: the nodes it answered TAKE, for took() after. */
struct verdicts {
	u64				seed;
	unsigned int			n;
	struct tempo_delayq_node	*taken[8];
};

static enum tempo_delayq_verdict periodic(struct tempo_delayq_node *node, ktime_t due,
					  void *arg)
{
	struct item *it = container_of(node, struct item, node);
	struct verdicts *v = arg;
	ktime_t now = ktime_get();

	if (due < node->deadline || now < node->deadline) {
		ADD(n_bad_due, 1);
		fprintf(stderr, "EARLY: shown at %lld, due stamp %lld, deadline %lld\n", now, due,
			node->deadline);
	} else if (due > now) {
		ADD(n_bad_due, 1);
		fprintf(stderr, "WRONG: due stamp %lld after the clock %lld\n", due, now);
	}
	if (LD(it->own) != IT_QUEUED) {
		ADD(n_dup, 1);
		fprintf(stderr, "DUP: item %p shown while %d\n", it, LD(it->own));
	}
	if (rnd(&v->seed) % 16 == 0) {
		ADD(n_stop, 1);
		return TEMPO_DELAYQ_STOP;
	}
	if (it->laps) {
		it->laps--;
		node->deadline += it->period;
		ADD(n_again, 1);
		return TEMPO_DELAYQ_AGAIN;
	}
	if (v->n >= ARRAY_SIZE(v->taken)) {
		ADD(n_bad, 1);
		fprintf(stderr, "WRONG: consume showed more than its max\n");
		return TEMPO_DELAYQ_STOP;
	}
	v->taken[v->n++] = node;
	return TEMPO_DELAYQ_TAKE;
}

static void *consumer(void *arg)
{
	unsigned int cpu = (uintptr_t)arg;
	u64 seed = 0x9e3779b97f4a7c15ULL * (cpu + 13);
	struct tempo_delayq_node *nodes[8];
	struct verdicts v = { .seed = seed };

	tempo_sim_set_cpu(cpu);
	ST(consumer_task[cpu], current);
	for (;;) {
		u64 x = rnd(&seed);
		struct tempo_delayq_node *n;
		int k, i;

		tempo_sim_run_irqs();
		tempo_sim_run_works();
		if (x % 8 >= 4) {	/* half the calls: consume(), waiting or not */
			v.n = 0;
			k = tempo_delayq_consume(q, periodic, &v, 1 + (x >> 8) % 8,
						 (x >> 12) & 1 ? TEMPO_DELAYQ_WAIT : 0);
			for (i = 0; i < (int)v.n; i++)
				took(v.taken[i]);
			if (k >= 0) {
				ADD(n_consumed, k);
				continue;
			}
			n = ERR_PTR(k);
			goto error;
		}
		switch (x % 4) {
		case 0:
			n = tempo_delayq_take(q);
			break;
		case 1:
			n = tempo_delayq_take_timeout(q, (x >> 8) % (20 * TICK));
			break;
		case 2:
			n = tempo_delayq_try_take(q);
			break;
		default:
			k = tempo_delayq_take_many(q, nodes, 1 + (x >> 8) % 8);
			if (k == -ESHUTDOWN)
				goto out;
			for (i = 0; i < k; i++)
				took(nodes[i]);
			continue;
		}
		if (!IS_ERR(n)) {
			took(n);
			continue;
		}
error:
		switch (PTR_ERR(n)) {
		case -ESHUTDOWN:
			goto out;
		case -ERESTARTSYS:
			ADD(n_sig, 1);
			__atomic_store_n(&current->sigpending, false, __ATOMIC_RELEASE);
			break;
		case -ETIMEDOUT:
			ADD(n_tmo, 1);
			break;
		case -EAGAIN:
			tempo_sim_wait_idle();
			break;
		default:
			ADD(n_bad, 1);
			fprintf(stderr, "WRONG: take error %ld\n", PTR_ERR(n));
		}
	}
out:
	ADD(consumers_out, 1);
	return NULL;
}

/*
 * One consumer per expiry, exactly: three consumers asleep in take(), one
 * item expires (through its timer, on CPU 0): exactly one wakes and takes
 * it, the two others stay asleep; two more items release them.
 */
static struct tempo_delayq *hq;
static int h_got;

static void *herd_consumer(void *arg)
{
	struct tempo_delayq_node *n;

	tempo_sim_set_cpu((uintptr_t)arg);
	n = tempo_delayq_take(hq);
	if (!IS_ERR(n))
		ADD(h_got, 1);
	return NULL;
}

static unsigned int herd_check(void)
{
	static struct tempo_delayq_node hn[3];
	struct tempo_delayq_stats st;
	pthread_t th[3];
	unsigned int i, bad = 0;
	u64 t0;

	tempo_sim_set_cpu(0);
	hq = tempo_delayq_create();
	for (i = 0; i < 3; i++) {
		uintptr_t cpu = 1 + i % (ncpus - 1);

		tempo_delayq_node_init(&hn[i]);
		pthread_create(&th[i], NULL, herd_consumer, (void *)cpu);
	}
	do {
		tempo_sim_wait_idle();
		tempo_delayq_stats(hq, &st);
	} while (st.waiters < 3);
	for (i = 0; i < 3; i++) {
		tempo_delayq_put(hq, &hn[i], TICK);
		t0 = tempo_sim_real_ns();
		/* Expire it: CPU 0 serves its timer; give the woken time to take. */
		while (tempo_sim_real_ns() - t0 < 100 * NSEC_PER_MSEC) {
			tempo_sim_clock_advance(TICK / 4);
			tempo_sim_wait_idle();
		}
		tempo_delayq_stats(hq, &st);
		if (LD(h_got) != (int)i + 1 || st.wakeups != i + 1 || st.waiters != 2 - i) {
			printf("# HERD: after %u expiries: %d took, %llu woken, %u asleep\n",
			       i + 1, LD(h_got), st.wakeups, st.waiters);
			bad++;
		}
	}
	for (i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	tempo_delayq_destroy(hq, NULL, NULL);
	return bad;
}

/* The queue's requeued count, once every consumer has left. */
static u64 requeued_count(struct tempo_delayq *dq)
{
	struct tempo_delayq_stats st;

	tempo_delayq_stats(dq, &st);
	return st.requeued;
}

static void release(struct tempo_delayq_node *node, void *arg)
{
	struct item *it = container_of(node, struct item, node);

	(void)arg;
	if (claim(it, IT_REMOVED))
		ADD(n_flushed, 1);
}

int main(int argc, char **argv)
{
	struct tempo_delayq_stats st;
	pthread_t th[MAXCPU];
	unsigned int c, i, failed = 0, handed;
	u64 t_end, seed = 42, requeued;
	double secs;

	stress_args(argc, argv, &secs, &ncpus, 2, MAXCPU);
	nprod = ncpus / 2;
	tempo_sim_init(ncpus, true, true);
	tempo_sim_clock_set(1000000000);
	if (tempo_wheel_init(TICK, 10) || tempo_delayq_init())
		return 1;
	failed += herd_check() ? 1 : 0;
	q = tempo_delayq_create();
	for (c = 0; c < nprod; c++)
		for (i = 0; i < NITEMS; i++) {
			tempo_delayq_node_init(&items[c][i].node);
			items[c][i].producer = c;
		}
	for (c = 0; c < ncpus; c++)
		pthread_create(&th[c], NULL, c < nprod ? producer : consumer, (void *)(uintptr_t)c);
	t_end = tempo_sim_real_ns() + (u64)(secs * 1e9);
	while (tempo_sim_real_ns() < t_end) {
		usleep(2000);
		c = nprod + rnd(&seed) % (ncpus - nprod);
		if (LD(consumer_task[c]))
			tempo_sim_signal(consumer_task[c]);
	}
	ST(stop_prod, 1);
	for (c = 0; c < nprod; c++)
		pthread_join(th[c], NULL);
	sample();
	/* Let consumers take what is ready, then stop them. */
	tempo_sim_clock_advance(100 * TICK);
	usleep(50000);
	tempo_delayq_stats(q, &st);
	if (st.wakeups > st.expired + n_stop)
		n_wake_excess++;
	tempo_delayq_shutdown(q);
	for (c = nprod; c < ncpus; c++)
		pthread_join(th[c], NULL);
	tempo_sim_set_threaded(false);
	tempo_sim_set_cpu(0);
	tempo_sim_run_all();
	requeued = requeued_count(q);
	handed = tempo_delayq_destroy(q, release, NULL);
	tempo_sim_run_all();
	if (n_put != n_taken + n_removed + n_flushed || handed != n_flushed) {
		printf("# conservation: put %llu != taken %llu + removed %llu + queued %llu",
		       n_put, n_taken, n_removed, n_flushed);
		printf(" (handed %u)\n", handed);
		failed++;
	}
	if (st.put != n_put) {
		printf("# core counted %llu puts, we %llu\n", st.put, n_put);
		failed++;
	}
	if (requeued != n_again) {
		printf("# core counted %llu requeued, we %llu AGAIN verdicts\n", requeued, n_again);
		failed++;
	}
	if (n_early || n_dup || n_bad || n_wake_excess || n_bad_due) {
		printf("# early %llu dup %llu bad %llu herd %llu due %llu\n", n_early, n_dup, n_bad,
		       n_wake_excess, n_bad_due);
		failed++;
	}
	tempo_delayq_exit();
	tempo_wheel_exit();
	if (tempo_user_warnings)
		failed++;
	/* One line, in pieces. */
	printf("# SUMMARY delayq_stress cpus=%u secs=%.1f put=%llu taken=%llu removed=%llu",
	       ncpus, secs, n_put, n_taken, n_removed);
	printf(" queued_at_end=%llu expired=%llu wakeups=%llu signals=%llu timeouts=%llu",
	       n_flushed, st.expired, st.wakeups, n_sig, n_tmo);
	printf(" busy=%llu samples=%llu consumed=%llu again=%llu stops=%llu warnings=%lu %s\n",
	       n_busy, samples, n_consumed, n_again, n_stop, tempo_user_warnings,
	       failed ? "FAIL" : "PASS");
	return failed ? 1 : 0;
}
