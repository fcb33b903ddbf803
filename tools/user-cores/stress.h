/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the tests of the cores in userspace that run threads against
 * each other (the stress tests, order_det_test.c): the atomics their
 * flags and counters use, a per-thread pseudo-random stream, the cores' test
 * points as jitter points, and the stress tests' command line.
 */
#ifndef _TEMPO_USER_STRESS_H
#define _TEMPO_USER_STRESS_H

#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <linux/types.h>

/* Flags and counters shared by the threads: acquire loads, release stores. */
#define LD(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define ST(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)
#define ADD(x, v) __atomic_fetch_add(&(x), (v), __ATOMIC_ACQ_REL)

/* xorshift64: the next number of the stream @s (nonzero), which it advances. */
static inline u64 rnd(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * For a tempo_test_point() (kmod/testing.h, built with TEMPO_TESTING) that
 * makes the cores' test points jitter points, as tempo.inject_delay does in
 * the kernel: one time in eight, yield, so that another CPU moves in the
 * window. @mix seeds the calling thread's stream, with the address of its
 * seed, the first time.
 */
static inline void stress_jitter(u64 mix)
{
	static __thread u64 seed;

	if (!seed)
		seed = 0x9e3779b97f4a7c15ULL ^ mix ^ (uintptr_t)&seed;
	if (rnd(&seed) % 8 == 0)
		sched_yield();
}

/*
 * A stress test's first arguments, "[seconds] [cpus]": 2 s and 4 simulated
 * CPUs unless given; the CPUs clamped to @min..@max.
 */
static inline void stress_args(int argc, char **argv, double *secs, unsigned int *ncpus,
			       unsigned int min, unsigned int max)
{
	*secs = argc > 1 ? atof(argv[1]) : 2;
	*ncpus = argc > 2 ? atoi(argv[2]) : 4;
	if (*ncpus > max)
		*ncpus = max;
	if (*ncpus < min)
		*ncpus = min;
}

#endif /* _TEMPO_USER_STRESS_H */
