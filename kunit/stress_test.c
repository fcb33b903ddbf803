// SPDX-License-Identifier: GPL-2.0
/*
 * Self-validating cross-core stress of the timer wheel.
 *
 * kunit/wheel_test.c's live_stress checks conservation per timer with re-arms;
 * this suite checks every life of every timer by name:
 *
 * - one producer kthread pinned on each online CPU, released together by a
 *   start gate, plus one pinned hard-irq hrtimer per CPU that arms its own
 *   timers and cancels anybody's, from hardirq, at the same time;
 * - a producer takes a free timer, stores the next number of its own sequence
 *   in it and arms it on a random CPU; the number is the payload;
 * - a life ends exactly once, by the callback or by a cancel that returned
 *   true (from any worker, any CPU, or hardirq); the ender swaps the payload
 *   out of the timer and sets the number's bit in its producer's bitmap. A
 *   swap that finds no payload, or a bit already set, is a double fire or
 *   double completion, reported with the producer and the number;
 * - at the end every timer is cancel_sync'ed and the conservation law is
 *   checked: per producer, every number issued has ended exactly once, and
 *   issued = fired + cancelled.
 *
 * Bounded by the stress_seq_ms parameter (default 1500 ms of load; the whole
 * case takes about a second more). On a slow kernel (KCSAN under TCG on a
 * loaded host) that budget may hold only a few hundred lives, so the load goes
 * on, up to SQ_EXTEND times as long again, until it has seen SQ_MIN_ENDS fires,
 * as many lives ended by a cancel and as many arms from hardirq. A quarter of
 * the cancels aim at the producer's last armed timer, likely still pending.
 * With tempo.ko built with TEMPO_TESTING=1 and loaded with
 * inject_delay=<us>, the wheel also waits at random at its racy points
 * (make check-kcsan does both).
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <tempo/timer.h>

#include "compat.h"

static unsigned int stress_seq_ms = 1500;
module_param(stress_seq_ms, uint, 0444);
MODULE_PARM_DESC(stress_seq_ms, "duration of the sequence-checked timer stress in ms");

#define SQ_TIMERS	64		/* per producer */
#define SQ_MAX_SEQ	BIT(20)	/* numbers per producer; the bitmap's size */
#define SQ_IRQ_NS	(150 * NSEC_PER_USEC)
#define SQ_MIN_ENDS	16
#define SQ_EXTEND	4

struct sq_producer;

struct sq_timer {
	struct tempo_timer timer;
	struct sq_producer *prod;
	atomic_t payload;	/* seq + 1 of the current life; 0 = free */
};

struct sq_run;

struct sq_producer {
	struct sq_run *run;
	struct sq_timer t[SQ_TIMERS];
	unsigned long *ended;	/* bit per seq: its life has ended */
	u32 issued;		/* written by the producer only */
	atomic_t fired, cancelled;
	unsigned int cpu;
	bool irq;		/* the hrtimer producer of @cpu */
	struct hrtimer hr;
	struct rnd_state rnd;	/* the hrtimer's random numbers (see sq_irq_fn()) */
	struct completion done;
};

struct sq_run {
	struct sq_producer **prod;
	unsigned int nprod;
	atomic_t started;
	unsigned int gate;	/* kthreads that must arrive before anyone starts */
	atomic_t stop;
	atomic_t doubles;	/* lives ended twice */
	atomic_t bad;		/* payloads out of range */
	atomic_t first_bad;	/* (producer << 20) | seq of the first problem + 1 */
	atomic_t irq_arms, irq_cancels;
	atomic_t fired, cancelled;	/* the run's, for the extension only */
};

static void sq_problem(struct sq_run *run, atomic_t *counter, unsigned int prod, u32 seq)
{
	atomic_inc(counter);
	atomic_cmpxchg(&run->first_bad, 0, ((prod << 20) | (seq & (SQ_MAX_SEQ - 1))) + 1);
}

/* End the life @s holds. Exactly one caller per life may get here. */
static void sq_end(struct sq_timer *s, bool fired)
{
	struct sq_producer *p = s->prod;
	struct sq_run *run = p->run;
	int payload = atomic_xchg(&s->payload, 0);
	unsigned int idx = p->cpu * 2 + p->irq;

	if (!payload) {
		/* Nothing live: this life was already ended by someone else. */
		sq_problem(run, &run->doubles, idx, 0);
		return;
	}
	if ((u32)payload > SQ_MAX_SEQ) {
		sq_problem(run, &run->bad, idx, payload - 1);
		return;
	}
	if (test_and_set_bit(payload - 1, p->ended))
		sq_problem(run, &run->doubles, idx, payload - 1);
	atomic_inc(fired ? &p->fired : &p->cancelled);
	atomic_inc(fired ? &run->fired : &run->cancelled);
}

static void sq_fn(struct tempo_timer *t)
{
	sq_end(container_of(t, struct sq_timer, timer), true);
}

static unsigned int sq_random_cpu(void)
{
	unsigned int cpu = cpumask_any_distribute(cpu_online_mask);

	return cpu < nr_cpu_ids ? cpu : raw_smp_processor_id();
}

/* Start a new life on a free timer of @p, if one is free. */
static bool sq_arm_one(struct sq_producer *p, u32 r)
{
	struct sq_timer *s = &p->t[r % SQ_TIMERS];
	u64 delay = (r >> 8) % 4 * NSEC_PER_MSEC + ((r >> 12) & 1) * 20 * NSEC_PER_MSEC;
	int ret;

	/* Free: its last life was ended (payload swapped out) by someone. */
	if (atomic_read(&s->payload) || p->issued >= SQ_MAX_SEQ)
		return false;
	atomic_set(&s->payload, ++p->issued);	/* seq = issued - 1 */
	ret = tempo_timer_arm_on(&s->timer, sq_random_cpu(), delay);
	if (ret != 0) {
		/* 1: it was pending although free: a life nobody accounted. */
		sq_problem(p->run, &p->run->bad, p->cpu * 2 + p->irq, p->issued - 1);
		return false;
	}
	return true;
}

static void sq_cancel(struct sq_timer *s)
{
	if (tempo_timer_cancel(&s->timer))
		sq_end(s, false);
}

/* Cancel a random timer of a random producer. */
static void sq_cancel_one(struct sq_run *run, u32 r)
{
	struct sq_producer *p = run->prod[r % run->nprod];

	sq_cancel(&p->t[(r >> 8) % SQ_TIMERS]);
}

/* Past the time budget, go on (within reason) until every kind of end was seen. */
static bool sq_go_on(struct sq_run *run, unsigned long end, unsigned long last)
{
	if (time_before(jiffies, end))
		return true;
	return time_before(jiffies, last) &&
	       (atomic_read(&run->fired) < SQ_MIN_ENDS ||
		atomic_read(&run->cancelled) < SQ_MIN_ENDS ||
		atomic_read(&run->irq_arms) < SQ_MIN_ENDS);
}

/*
 * A hard hrtimer: hardirq context even on PREEMPT_RT, where get_random_u32()'s
 * local_lock is a sleeping lock (lockdep's PROVE_RAW_LOCK_NESTING reports it; 7.2
 * turns it on with PROVE_LOCKING, 6.12 does not); so a private prandom state, seeded
 * at setup.
 */
static enum hrtimer_restart sq_irq_fn(struct hrtimer *hr)
{
	struct sq_producer *p = container_of(hr, struct sq_producer, hr);
	struct sq_run *run = p->run;
	u32 r = prandom_u32_state(&p->rnd);

	if (atomic_read(&run->stop))
		return HRTIMER_NORESTART;
	if (r & 1) {
		if (sq_arm_one(p, r >> 1))
			atomic_inc(&run->irq_arms);
	} else {
		sq_cancel_one(run, r >> 1);
		atomic_inc(&run->irq_cancels);
	}
	hrtimer_forward_now(hr, ns_to_ktime(SQ_IRQ_NS + (r >> 20) % SQ_IRQ_NS));
	return HRTIMER_RESTART;
}

static int sq_thread(void *data)
{
	struct sq_producer *p = data;
	struct sq_run *run = p->run;
	struct sq_producer *irq = run->prod[p->cpu * 2 + 1];
	unsigned long end, last;
	unsigned int n = 0, mine = 0;	/* the timer this producer armed last */

	/* Start gate: nobody begins before every worker is on its CPU. */
	atomic_inc(&run->started);
	while (atomic_read(&run->started) < run->gate)
		cpu_relax();
	end = jiffies + msecs_to_jiffies(stress_seq_ms);
	last = end + msecs_to_jiffies(SQ_EXTEND * stress_seq_ms);
	hrtimer_start(&irq->hr, ns_to_ktime(SQ_IRQ_NS), HRTIMER_MODE_REL_PINNED_HARD);

	while (sq_go_on(run, end, last)) {
		u32 r = get_random_u32();

		if (r % 3) {
			if (sq_arm_one(p, r >> 2))
				mine = (r >> 2) % SQ_TIMERS;
		} else if (!((r >> 2) & 3)) {
			/* a quarter of the cancels: the last one armed, likely pending */
			sq_cancel(&p->t[mine]);
		} else {
			sq_cancel_one(run, r >> 4);
		}
		if (!(++n & 63))
			cond_resched();
	}
	complete(&p->done);
	return 0;
}

static void stress_seq(struct kunit *test)
{
	struct sq_run *run = kunit_kzalloc(test, sizeof(*run), GFP_KERNEL);
	unsigned int cpu, i, j, ncpu = 0, unended = 0, first_unended = 0;
	u64 issued = 0, fired = 0, cancelled = 0, t0, load_ms;

	KUNIT_ASSERT_NOT_NULL(test, run);
	run->nprod = nr_cpu_ids * 2;	/* [2 * cpu]: kthread, [2 * cpu + 1]: hrtimer */
	run->prod = kunit_kcalloc(test, run->nprod, sizeof(*run->prod), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, run->prod);
	for (i = 0; i < run->nprod; i++) {
		struct sq_producer *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, p);
		p->ended = vzalloc(BITS_TO_LONGS(SQ_MAX_SEQ) * sizeof(long));
		KUNIT_ASSERT_NOT_NULL(test, p->ended);
		p->run = run;
		p->cpu = i / 2;
		p->irq = i & 1;
		init_completion(&p->done);
		hrtimer_setup(&p->hr, sq_irq_fn, CLOCK_MONOTONIC,
			      HRTIMER_MODE_REL_PINNED_HARD);
		prandom_seed_state(&p->rnd, get_random_u64());
		for (j = 0; j < SQ_TIMERS; j++) {
			tempo_timer_init(&p->t[j].timer, sq_fn, 0);
			p->t[j].prod = p;
		}
		run->prod[i] = p;
	}

	cpus_read_lock();
	t0 = ktime_get_ns();
	run->gate = num_online_cpus();
	for_each_online_cpu(cpu) {
		struct task_struct *k;

		k = kthread_create_on_cpu(sq_thread, run->prod[cpu * 2], cpu, "tempo_sq/%u");
		if (!IS_ERR(k)) {
			wake_up_process(k);
			ncpu++;
		}
	}
	cpus_read_unlock();
	KUNIT_ASSERT_EQ(test, ncpu, run->gate);
	for_each_online_cpu(cpu)
		wait_for_completion(&run->prod[cpu * 2]->done);
	load_ms = div_u64(ktime_get_ns() - t0, NSEC_PER_MSEC);

	/* Quiesce: stop the hardirq producers, let the short ones fire, cancel the rest. */
	atomic_set(&run->stop, 1);
	for (i = 1; i < run->nprod; i += 2)
		hrtimer_cancel(&run->prod[i]->hr);
	msleep(100);
	for (i = 0; i < run->nprod; i++)
		for (j = 0; j < SQ_TIMERS; j++) {
			struct sq_timer *s = &run->prod[i]->t[j];

			if (tempo_timer_cancel_sync(&s->timer))
				sq_end(s, false);
			/* Counted, the first named: KUnit's 6.1 case log holds 512 bytes. */
			if (atomic_read(&s->payload) && !unended++)
				first_unended = i * SQ_TIMERS + j;
		}
	KUNIT_EXPECT_EQ_MSG(test, unended, 0U,
			    "timers whose life never ended; first: producer %u timer %u",
			    first_unended / SQ_TIMERS, first_unended % SQ_TIMERS);

	KUNIT_EXPECT_EQ(test, atomic_read(&run->doubles), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&run->bad), 0);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&run->first_bad), 0,
			    "first problem: producer %d seq %d",
			    (atomic_read(&run->first_bad) - 1) >> 20,
			    (int)((atomic_read(&run->first_bad) - 1) & (SQ_MAX_SEQ - 1)));
	for (i = 0; i < run->nprod; i++) {
		struct sq_producer *p = run->prod[i];
		unsigned long lost = p->issued - bitmap_weight(p->ended, p->issued);

		/* Conservation: each number issued ended exactly once. */
		KUNIT_EXPECT_EQ_MSG(test, lost, 0UL, "producer %u: %lu of %u lives lost",
				    i, lost, p->issued);
		KUNIT_EXPECT_EQ_MSG(test, (u32)(atomic_read(&p->fired) +
						atomic_read(&p->cancelled)), p->issued,
				    "producer %u: fired %d + cancelled %d != issued %u", i,
				    atomic_read(&p->fired), atomic_read(&p->cancelled), p->issued);
		issued += p->issued;
		fired += atomic_read(&p->fired);
		cancelled += atomic_read(&p->cancelled);
		vfree(p->ended);
	}
	kunit_info(test, "%u CPUs, %llu lives: %llu fired, %llu cancelled; hardirq %d arms, %d cancels; in %llu ms (budget %u)",
		   ncpu, issued, fired, cancelled, atomic_read(&run->irq_arms),
		   atomic_read(&run->irq_cancels), load_ms, stress_seq_ms);
	KUNIT_EXPECT_GT(test, fired, 0ULL);
	KUNIT_EXPECT_GT(test, cancelled, 0ULL);
	KUNIT_EXPECT_GT(test, atomic_read(&run->irq_arms), 0);
}

/* KUNIT_CASE_SLOW: over a second; make check and check-kcsan run every case. */
static struct kunit_case stress_cases[] = {
	KUNIT_CASE_SLOW(stress_seq),
	{}
};

static struct kunit_suite stress_suite = {
	.name = "tempo_stress",
	.test_cases = stress_cases,
};

kunit_test_suite(stress_suite);
