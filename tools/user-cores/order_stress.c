// SPDX-License-Identifier: GPL-2.0
/*
 * ThreadSanitizer stress of kmod/order.c: one thread per simulated CPU, each
 * taking tickets (tempo_order_ticket_try(), or tempo_order_ticket() which
 * sleeps on the domain's wait queue when the window is full), holding a few,
 * and running or trashing them in random order; some requests go through
 * tempo_order_submit() (work on the per-CPU workqueues: the submitting CPU's,
 * or every CPU's in turn with TEMPO_ORDER_SPREAD), in bursts that
 * overflow a work item's cut (TEMPO_ORDER_SUBMIT_BATCH). A small window and
 * a small max_streak, so that takers block and streaks are deferred to
 * resume_work. Tickets start near U64_MAX, so they wrap. Self-validating:
 *
 *  - strict order: every completion appends its ticket to a log kept in
 *    PLAIN memory; completions must not overlap (a counter that must never
 *    exceed 1) and must be ordered by happens-before (else TSan reports the
 *    log), and the log must be strictly increasing;
 *  - exactly once: the log is exactly the set of tickets whose run() (or
 *    submit) was accepted, each once; trashed and timed-out tickets never
 *    appear;
 *  - duplicates: a second run/trash of a finished ticket returns -EINVAL
 *    (or -ETIME if the deadline trashed it);
 *  - conservation: taken = completed + trashed + timed_out + pending, from
 *    the core's counters and from ours, with pending = 0 once quiet.
 *
 * Usage: order_stress [seconds] [cpus] [deadline]
 *   deadline: a 2 ms missing-ticket deadline, and owners that sometimes
 *   stall 3 ms before run(): timed-out tickets must be skipped, and their
 *   run() must return -ETIME.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <unistd.h>
#include <linux/types.h>
#include <tempo/order.h>
#include <tempo/timer.h>
#include "internal.h"
#include "sim.h"
#include "stress.h"
#include "testing.h"

#define MAXCPU		8
#define HOLD		4		/* tickets one thread holds at most */
#define CAP		(1u << 21)	/* tickets per run, at most */
/*
 * Per CPU, room for a burst of submits that leaves more than one work item's
 * cut in an inbox even when TEMPO_ORDER_SPREAD spreads it over them all.
 */
#define WINDOW_PER_CPU	(2 * TEMPO_ORDER_SUBMIT_BATCH)
#define BURST_PER_CPU	(3 * TEMPO_ORDER_SUBMIT_BATCH / 2)
#define STREAK		3

enum { I_NONE, I_RUN, I_TRASH, I_SUBMIT };
enum { R_NONE, R_DONE, R_ETIME };

static struct tempo_order *o;
static u64 first;
static unsigned int ncpus = 4;
static bool deadline_mode;
static int stop, quiet;

/* Per ticket, indexed by t - first. */
static u8 intent[CAP];		/* atomic: what the owner asked for */
static u8 result[CAP];		/* atomic: how it ended for the owner */
static u8 ran[CAP];		/* atomic: completions that ran for it */

/* Completion side: plain memory, protected only by the core's token. */
static u64 log_[CAP];
static unsigned int nlog;
static u64 last_done;
static bool have_last;
static int in_completion;	/* atomic */
static u64 overlaps, order_errs, dup_errs, wrong_err, blocked, tries_full;
static u64 submits, submit_done, submit_etime, submit_einval;
static u64 chained;		/* work_fns run by another request's work item */
static u64 cuts;		/* chains of requests cut in two */

/* The points where a race is decided: jitter, so that the other side moves in the window. */
void tempo_test_point(enum tempo_test_point where, const void *obj, u64 t,
		      unsigned int st)
{
	if (where == TEMPO_TP_ORDER_SUBMIT_CUT)
		ADD(cuts, 1);
	stress_jitter(t << 1);
}

static void complete(u64 t)
{
	u64 idx = t - first;

	if (ADD(in_completion, 1) != 0) {
		ADD(overlaps, 1);
		fprintf(stderr, "OVERLAP: completion of %llu runs concurrently with another\n", t);
	}
	/* Plain accesses: the token must order completions (TSan checks). */
	if (have_last && (s64)(t - last_done) <= 0) {
		ADD(order_errs, 1);
		fprintf(stderr, "ORDER: completion %llu after %llu\n", t, last_done);
	}
	last_done = t;
	have_last = true;
	if (nlog < CAP)
		log_[nlog++] = t;
	if (idx < CAP)
		ADD(ran[idx], 1);
	ADD(in_completion, -1);
}

static void order_fn(void *arg)
{
	complete((u64)(uintptr_t)arg);
}

struct sreq {
	struct tempo_order_req	req;
};

static void s_work(struct tempo_order_req *r)
{
	if (tempo_sim_current_work() != &r->work)
		ADD(chained, 1);
	__atomic_store_n(&intent[r->ticket - first], I_SUBMIT, __ATOMIC_RELAXED);
}

static void s_done(struct tempo_order_req *r)
{
	u64 t = r->ticket;

	if (r->status) {
		/*
		 * Released out of order: timed out. order_submit_workfn() passes
		 * any error of run(), so -EINVAL too when a later ticket of the
		 * same slot also timed out (run()'s documented caveat), although
		 * include/tempo/order.h documents status as 0 or -ETIME.
		 */
		if (r->status != -ETIME && r->status != -EINVAL)
			ADD(wrong_err, 1);
		if (r->status == -EINVAL)
			ADD(submit_einval, 1);
		ST(result[t - first], R_ETIME);
		ADD(submit_etime, 1);
	} else {
		complete(t);
		ST(result[t - first], R_DONE);
	}
	ADD(submit_done, 1);
	free(container_of(r, struct sreq, req));
}

static void finish(u64 t, u64 *seed)
{
	u64 x = rnd(seed), idx = t - first;
	bool trash = x % 4 == 0;
	int ret;

	if (deadline_mode && x % 64 == 1)
		usleep(3000);	/* stall past the deadline */
	__atomic_store_n(&intent[idx], trash ? I_TRASH : I_RUN, __ATOMIC_RELAXED);
	ret = trash ? tempo_order_trash(o, t) :
		      tempo_order_run(o, t, order_fn, (void *)(uintptr_t)t);
	if (ret == 0 || ret == 1) {
		ST(result[idx], R_DONE);
	} else if ((ret == -ETIME || ret == -EINVAL) && deadline_mode) {
		/* -EINVAL: a later ticket of its slot timed out too (documented). */
		ST(result[idx], R_ETIME);
	} else {
		ADD(wrong_err, 1);
		fprintf(stderr, "WRONG: %s(%llu) = %d\n", trash ? "trash" : "run", t, ret);
	}
	if (x % 16 == 3) {
		/* A duplicate must be refused, and must not complete anything. */
		ret = (x >> 8) & 1 ? tempo_order_trash(o, t) :
				     tempo_order_run(o, t, order_fn, (void *)(uintptr_t)t);
		if (ret != -EINVAL && !(ret == -ETIME && deadline_mode)) {
			ADD(dup_errs, 1);
			fprintf(stderr, "DUP: second put of %llu = %d\n", t, ret);
		}
	}
}

static void *cpu_thread(void *arg)
{
	unsigned int cpu = (uintptr_t)arg, n = 0, i;
	u64 seed = 0x9e3779b97f4a7c15ULL * (cpu + 1), held[HOLD];

	tempo_sim_set_cpu(cpu);
	while (!LD(stop)) {
		u64 x = rnd(&seed), t;
		int ret;

		tempo_sim_run_irqs();
		tempo_sim_run_works();
		if (n < HOLD && x % 3 != 0) {
			if (x % 11 == 0) {
				/* A burst, up to past one work item's cut per CPU. */
				unsigned int b = 1 + (x >> 16) % (BURST_PER_CPU * ncpus);

				while (b--) {
					struct sreq *s = calloc(1, sizeof(*s));

					ret = tempo_order_submit(o, &s->req, s_work, s_done,
								 ((n == 0 && (x >> 9) & 1) ? 0 :
								  TEMPO_ORDER_NOWAIT) |
								 ((x >> 20) & 1 ? TEMPO_ORDER_SPREAD : 0));
					if (ret) {
						free(s);
						if (ret != -EAGAIN)
							ADD(wrong_err, 1);
						break;
					}
					ADD(submits, 1);
				}
				continue;
			}
			if (n == 0 && (x >> 7) % 2) {
				/* Holding nothing, it may sleep until room. */
				unsigned long sl = current->nr_sleeps;

				ret = tempo_order_ticket(o, &t);
				if (current->nr_sleeps != sl)
					ADD(blocked, 1);
			} else {
				ret = tempo_order_ticket_try(o, &t);
				if (ret == -EAGAIN) {
					ADD(tries_full, 1);
					goto put;
				}
			}
			if (ret) {
				ADD(wrong_err, 1);
				continue;
			}
			if (t - first >= CAP - 64)
				ST(stop, 1);
			held[n++] = t;
			continue;
		}
put:
		if (n) {
			i = (x >> 12) % n;	/* any of the held ones: random order */
			t = held[i];
			held[i] = held[--n];
			finish(t, &seed);
		}
	}
	while (n)
		finish(held[--n], &seed);
	/* Quiesce: keep serving this CPU (resume work, submit work) until all are done. */
	ADD(quiet, 1);
	for (;;) {
		struct tempo_order_stats st;

		tempo_order_stats(o, &st);
		if (LD(quiet) == (int)ncpus && !st.pending &&
		    LD(submit_done) == LD(submits))
			break;
		tempo_sim_wait_idle();
	}
	for (i = 0; i < 200; i++)
		tempo_sim_wait_idle();
	return NULL;
}

int main(int argc, char **argv)
{
	struct tempo_order_opts opts = { .max_streak = STREAK };
	struct tempo_order_stats st;
	pthread_t th[MAXCPU];
	u64 taken, k, n_run = 0, n_trash = 0, n_etime = 0, missing = 0, extra = 0;
	unsigned int c, failed = 0;
	double secs;

	stress_args(argc, argv, &secs, &ncpus, 1, MAXCPU);
	deadline_mode = argc > 3 && !strcmp(argv[3], "deadline");
	first = U64_MAX - 5000;		/* wraps after 5000 tickets */
	opts.first_ticket = first;
	if (deadline_mode)
		opts.deadline_ns = 2 * NSEC_PER_MSEC;

	tempo_sim_init(ncpus, true, false);
	if (tempo_wheel_init(100000, 10) || tempo_order_init())
		return 1;
	o = tempo_order_create(roundup_pow_of_two(WINDOW_PER_CPU * ncpus), &opts);
	if (IS_ERR(o))
		return 1;
	for (c = 0; c < ncpus; c++)
		pthread_create(&th[c], NULL, cpu_thread, (void *)(uintptr_t)c);
	/*
	 * Watch progress: a stranded ticket (a lost hand-off) stops every
	 * completion behind it, and the takers sleep forever. Report it as a
	 * stall instead of hanging until the harness's timeout.
	 */
	{
		u64 t0 = tempo_sim_real_ns(), last_ns = t0, last = 0;

		for (;;) {
			u64 now = tempo_sim_real_ns(), moved;

			usleep(20000);
			tempo_order_stats(o, &st);
			moved = st.completed + st.trashed + st.timed_out;
			if (moved != last || !st.pending) {
				last = moved;
				last_ns = now;
			} else if (now - last_ns > 3 * NSEC_PER_SEC) {
				printf("# STALL: no completion for 3 s: taken %llu finished %llu pending %llu\n",
				       st.taken, moved, st.pending);
				printf("# SUMMARY order_stress STALL FAIL\n");
				fflush(stdout);
				_exit(1);
			}
			if (now - t0 > secs * 1e9)
				ST(stop, 1);
			if (LD(stop) && LD(quiet) == (int)ncpus)
				break;
		}
	}
	for (c = 0; c < ncpus; c++)
		pthread_join(th[c], NULL);
	tempo_sim_set_threaded(false);
	tempo_sim_set_cpu(0);
	tempo_sim_run_all();

	tempo_order_stats(o, &st);
	taken = st.taken;
	/* Our view: every ticket ends as run (in the log once), trashed or timed out. */
	for (k = 0; k < taken && k < CAP; k++) {
		u8 in = LD(intent[k]), res = LD(result[k]), r = LD(ran[k]);

		if (res == R_ETIME) {
			n_etime++;
			if (r)
				extra++;
		} else if (in == I_TRASH) {
			n_trash++;
			if (r || res != R_DONE)
				extra++;
		} else if (in == I_RUN || in == I_SUBMIT) {
			n_run++;
			if (r != 1 || res != R_DONE)
				missing++;
		} else {
			missing++;	/* never finished */
		}
		if (r > 1 || (r && res == R_ETIME))
			fprintf(stderr, "EXACTLY-ONCE: ticket %llu ran %u times (result %u)\n",
				first + k, r, res);
	}
	if (nlog != n_run) {
		printf("# log has %u completions, %llu runs accepted\n", nlog, n_run);
		failed++;
	}
	if (st.taken != st.completed + st.trashed + st.timed_out + st.pending || st.pending ||
	    st.completed != n_run || st.trashed != n_trash || st.timed_out != n_etime) {
		printf("# conservation: taken %llu completed %llu trashed %llu timed_out %llu pending %llu; "
		       "seen run %llu trash %llu etime %llu\n", st.taken, st.completed, st.trashed,
		       st.timed_out, st.pending, n_run, n_trash, n_etime);
		failed++;
	}
	if (missing || extra || overlaps || order_errs || dup_errs || wrong_err) {
		printf("# missing %llu extra %llu overlaps %llu order %llu dup %llu wrong_err %llu\n",
		       missing, extra, overlaps, order_errs, dup_errs, wrong_err);
		failed++;
	}
	tempo_order_destroy(o);
	tempo_order_exit();
	tempo_wheel_exit();
	if (tempo_user_warnings)
		failed++;
	printf("# SUMMARY order_stress cpus=%u deadline=%d secs=%.1f taken=%llu completed=%llu trashed=%llu "
	       "timed_out=%llu submits=%llu longest_streak=%llu deferred=%llu blocked_takers=%llu "
	       "window_full=%llu submit_status_einval=%llu submit_chained=%llu submit_cuts=%llu warnings=%lu %s\n",
	       ncpus, deadline_mode, secs, st.taken, st.completed, st.trashed, st.timed_out, submits,
	       st.longest_streak, st.deferred, blocked, tries_full, submit_einval, chained, cuts,
	       tempo_user_warnings,
	       failed ? "FAIL" : "PASS");
	return failed ? 1 : 0;
}
