// SPDX-License-Identifier: GPL-2.0
/*
 * ThreadSanitizer stress of kmod/wheel.c: one thread per simulated CPU, each
 * arming, re-arming, moving (arm_on) and cancelling its own timers and
 * cancelling the others' timers, while every CPU's hrtimer, IPIs and work
 * item run on it. Self-validating (ck's validate/, the printk ringbuffer
 * KUnit test):
 *
 *  - conservation per timer: epochs armed = fired + cancelled once quiet,
 *    and the core's own counters agree: every timer a base took hold of was
 *    fired or let go of (taken = fired + released), fired as seen;
 *  - exactly once: a double fire breaks conservation;
 *  - never early: a callback runs at or after its deadline. A timer's
 *    deadlines only grow, and the lower bound ("floor") a callback checks
 *    against is raised only while the timer is fully resolved (no epoch
 *    pending, every callback returned), so the check is exact, not racy;
 *  - an arm of a resolved timer must report it idle (returns 0).
 *
 * A third of the timers are far (delays of 40 to 80 thousand ticks, in the
 * wheel's far levels): their arms and cancels are mostly lazy, one cmpxchg
 * with interrupts on, racing with the owner's collections and the other
 * CPUs' eager operations. Half are TEMPO_TIMER_COARSE, dated by the jiffy
 * (the userspace jiffies are never late, so they are never early either).
 *
 * Usage: wheel_stress [seconds] [cpus] [fake|real]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <unistd.h>
#include <linux/types.h>
#include "stress.h"
#include "wheel_harness.h"

#define NT		24	/* timers per CPU */
#define MAXCPU		8

struct rec {
	struct tempo_timer	timer;
	unsigned int		owner;		/* the controlling thread */
	u64			new_arms;	/* owner only */
	u64			last_deadline;	/* owner only */
	u64			floor;		/* atomic: callbacks read it */
	u64			fires_done;	/* atomic */
	u64			cancels;	/* atomic */
	u64			early;		/* atomic */
};

static struct rec recs[MAXCPU][NT];
static unsigned int ncpus = 4;
static bool fake;
static u64 tick_ns;
static int stop, quiet_count;
static u64 ops[MAXCPU], max_late_ns;

static void rec_fn(struct tempo_timer *t)
{
	struct rec *r = container_of(t, struct rec, timer);
	u64 floor = LD(r->floor), now = ktime_get_ns();

	if (now < floor) {
		ADD(r->early, 1);
		fprintf(stderr, "EARLY: timer %p fired at %llu < %llu\n", t, now, floor);
	}
	if (now - floor > LD(max_late_ns))
		__atomic_store_n(&max_late_ns, now - floor, __ATOMIC_RELAXED);
	ADD(r->fires_done, 1);
}

static bool resolved(struct rec *r)
{
	return LD(r->fires_done) + LD(r->cancels) == r->new_arms;
}

static void own_op(struct rec *r, u64 *seed)
{
	u64 x = rnd(seed), now = ktime_get_ns();
	bool far = (r - recs[r->owner]) % 3 == 0;
	u64 d = now + (far ? (40000 + (x >> 8) % 40000) : (x >> 8) % 40) * tick_ns;
	bool was_resolved = resolved(r);
	int ret;

	switch (x % 8) {
	case 0: case 1:
		if (tempo_timer_cancel(&r->timer))
			ADD(r->cancels, 1);
		return;
	default:
		break;
	}
	if (d < r->last_deadline)
		d = r->last_deadline;	/* deadlines of one timer only grow */
	r->last_deadline = d;
	if (was_resolved)
		__atomic_store_n(&r->floor, d, __ATOMIC_RELEASE);
	if (x % 8 < 5)
		ret = tempo_timer_arm(&r->timer, d - now);
	else
		ret = tempo_timer_arm_on(&r->timer, (x >> 40) % ncpus, d - now);
	if (ret < 0) {
		fprintf(stderr, "arm failed: %d\n", ret);
		tempo_user_warn(__FILE__, __LINE__, "arm failed");
		return;
	}
	if (was_resolved && ret != 0) {
		fprintf(stderr, "arm of a resolved timer says it was pending\n");
		tempo_user_warn(__FILE__, __LINE__, "ret != 0");
	}
	if (ret == 0)
		r->new_arms++;
}

static void *cpu_thread(void *arg)
{
	unsigned int cpu = (uintptr_t)arg, i;
	u64 seed = 0x9e3779b97f4a7c15ULL * (cpu + 1);

	tempo_sim_set_cpu(cpu);
	while (!LD(stop)) {
		u64 x = rnd(&seed);

		tempo_sim_run_irqs();
		tempo_sim_run_works();
		if (fake)
			tempo_sim_clock_advance((x >> 20) % (tick_ns / 2));
		if (x % 16 == 0) {
			struct rec *r = &recs[(x >> 8) % ncpus][(x >> 16) % NT];

			if (tempo_timer_cancel(&r->timer))
				ADD(r->cancels, 1);
		} else {
			own_op(&recs[cpu][(x >> 8) % NT], &seed);
		}
		ops[cpu]++;
	}
	/* Quiesce: stop own timers; keep serving this CPU until all are done. */
	for (i = 0; i < NT; i++)
		if (tempo_timer_cancel_sync(&recs[cpu][i].timer))
			ADD(recs[cpu][i].cancels, 1);
	ADD(quiet_count, 1);
	while (LD(quiet_count) < (int)ncpus) {
		if (fake)
			tempo_sim_clock_advance(tick_ns);
		tempo_sim_wait_idle();
	}
	for (i = 0; i < 1000; i++)
		tempo_sim_wait_idle();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[MAXCPU];
	unsigned int c, i, failed = 0;
	u64 taken, fired, released, total_ops = 0, epochs = 0, f = 0, k = 0, early = 0;
	double secs;

	stress_args(argc, argv, &secs, &ncpus, 1, MAXCPU);
	fake = argc > 3 && !strcmp(argv[3], "fake");
	tick_ns = fake ? 10000 : 20000;
	tempo_sim_init(ncpus, true, fake);
	tempo_sim_clock_set(1000000000);
	if (tempo_wheel_init(tick_ns, 10))
		return 1;
	for (c = 0; c < ncpus; c++)
		for (i = 0; i < NT; i++) {
			tempo_timer_init(&recs[c][i].timer, rec_fn, i % 2 ? TEMPO_TIMER_COARSE : 0);
			recs[c][i].owner = c;
		}
	for (c = 0; c < ncpus; c++)
		pthread_create(&th[c], NULL, cpu_thread, (void *)(uintptr_t)c);
	usleep((useconds_t)(secs * 1e6));
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (c = 0; c < ncpus; c++)
		pthread_join(th[c], NULL);

	tempo_sim_set_threaded(false);
	tempo_sim_run_all();
	for (c = 0; c < ncpus; c++) {
		total_ops += ops[c];
		for (i = 0; i < NT; i++) {
			struct rec *r = &recs[c][i];

			epochs += r->new_arms;
			f += r->fires_done;
			k += r->cancels;
			early += r->early;
			if (r->new_arms != r->fires_done + r->cancels) {
				printf("# timer %u/%u: %llu armed != %llu fired + %llu cancelled\n",
				       c, i, r->new_arms, r->fires_done, r->cancels);
				failed++;
			}
		}
	}
	tempo_wheel_totals(&taken, &fired, &released);
	if (taken != fired + released || fired != f) {
		printf("# core counters: taken %llu fired %llu released %llu; seen %llu/%llu/%llu\n",
		       taken, fired, released, epochs, f, k);
		failed++;
	}
	if (early)
		failed++;
	tempo_sim_set_cpu(0);
	tempo_wheel_exit();
	if (tempo_user_warnings)
		failed++;
	printf("# SUMMARY wheel_stress cpus=%u clock=%s secs=%.1f ops=%llu armed=%llu fired=%llu cancelled=%llu early=%llu max_late_ns=%llu warnings=%lu\n",
	       ncpus, fake ? "fake" : "real", secs, total_ops, epochs, f, k, early,
	       max_late_ns, tempo_user_warnings);
	return failed ? 1 : 0;
}
