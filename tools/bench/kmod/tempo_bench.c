// SPDX-License-Identifier: GPL-2.0
/*
 * tempo_bench: tempo against the kernel's own alternatives, side by side.
 *
 * Loaded only by `make bench` (tools/bench/guest/bench.sh), never by `make
 * check`. The guest script drives it through one debugfs file:
 *
 *	echo "cancel tempo 65536 all" > /sys/kernel/debug/tempo_bench/run
 *	cat /sys/kernel/debug/tempo_bench/run
 *
 * A write runs one measurement synchronously (one sample of one system); a
 * read returns its result lines, "name=... system=... key=value ... value=V
 * unit=U". The script interleaves the systems (A B C A B C ...) and repeats;
 * tools/bench/report.py takes medians and ratios. Commands:
 *
 *	cancel SYS N CPUS   SYS in tempo tempo_coarse dwork timer hrtimer, or
 *			    the controls timer64 timer48 timer56 lazyc
 *			    lazyp (below). N
 *			    timers armed far in the future (CPUS "1" or "all",
 *			    split evenly, each thread arming its share on its
 *			    own CPU); then for sample_ms, cancel and re-arm a
 *			    random one of them: ns per arm+cancel pair (wall
 *			    time / total pairs). tempo_coarse is tempo with
 *			    TEMPO_TIMER_COARSE timers.
 *	postpone SYS N CPUS as cancel, but a pending timer is re-armed to a
 *			    later deadline without a cancel (mod_timer() on a
 *			    pending timer): ns per re-arm.
 *	xcancel SYS N       as cancel (the same systems and controls), but the
 *			    N timers are armed on the first CPU and cancelled
 *			    and re-armed from the others (each its share): the
 *			    cross-CPU pattern. ns/pair.
 *	xpostpone SYS N     postpone from the other CPUs, as xcancel. ns/re-arm.
 *	hirq SYS N          as cancel with one thread, but each batch runs in a
 *			    hard-interrupt hrtimer callback: ns/pair inside it.
 *	idle SYS N          SYS in tempo tempo_coarse timer tempo_defer
 *			    tempo_defer_held. One thread arms N timers 1 to 4 s
 *			    ahead and cancels them all (tempo_defer_held: keeps
 *			    them pending; tempo_defer*: TEMPO_TIMER_DEFERRABLE);
 *			    the guest script then counts what they cost the idle
 *			    CPU (tempo's wheel statistics, /proc/interrupts).
 *	idle_end SYS N      cancel_sync what idle left (the pool is reused).
 *	coalesce SYS N      SYS in tempo tempo_slack timer_round tempo_fine_slack
 *			    hrtimer. A thread on
 *			    the first CPU arms N timers evenly over 1 s, each
 *			    COAL_DELAY_MS ahead (so deadlines spread over a
 *			    second, one wheel level-0 tick apart or less):
 *			    tempo with no slack, tempo_slack with COAL_SLACK_MS
 *			    of slack (tempo_timer_set_slack()), timer_round a
 *			    timer_list at round_jiffies(jiffies + delay),
 *			    tempo_fine_slack TEMPO_TIMER_FINE timers with
 *			    COAL_FINE_SLACK_US of slack, hrtimer hrtimers (as
 *			    timerfd arms its timers). Emits
 *			    the distinct jiffies callbacks ran in, per second
 *			    of arming (the guest script adds the CPU's wheel
 *			    expiries), and the worst lateness.
 *	burst SYS K         SYS in tempo dwork hrtimer. K timers armed on all
 *			    CPUs for one common deadline: ns per expiry between
 *			    the first and the last callback.
 *	spread SYS K        K timers with delays spread over 2..102 ms: callback
 *			    lateness (callback time - deadline) p50/p99/max, us.
 *			    SYS in tempo tempo_fine tempo_fine_irq dwork hrtimer
 *			    (tempo_fine: TEMPO_TIMER_FINE timers, also in cancel
 *			    and postpone; tempo_fine_irq: with TEMPO_TIMER_IRQ,
 *			    their callback in the interrupt, as hrtimer's).
 *	order SYS M         SYS in tempo tempo_spread tempo_inline padata owq
 *			    rob, or the control cas (below). M items
 *			    submitted from all CPUs, a small parallel step each,
 *			    completions in submission order: ns per item. cas
 *			    is the floor of the ordering step: one cmpxchg per
 *			    item on a shared word, nothing ordered.
 *	dq0 SYS K           the same queue, one thread putting an item that is
 *			    already due and taking it back, K times: the data
 *			    structure without timers or wake-ups. ns per pair.
 *	parts - 0           ns per call of the primitives an arm/cancel is
 *			    built from (clock reads, irq save, cmpxchg, lock).
 *	dq SYS K            SYS in tempo java. A delay queue holding
 *			    dq_pending (100K) far-future items; K items with
 *			    0..1 ms delays put by one producer per CPU and taken
 *			    by one consumer per CPU: ns per put+take.
 *
 * The peers are used as their documentation recommends (see
 * tools/bench/README.md): delayed_work on system_wq through
 * mod_delayed_work()/cancel_delayed_work(), timer_list through
 * mod_timer()/timer_delete(), hrtimer with HRTIMER_MODE_REL and
 * hrtimer_try_to_cancel(), padata through a shell of its own instance, an
 * ordered workqueue from alloc_ordered_workqueue().
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/padata.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <tempo/delayq.h>
#include <tempo/order.h>
#include <tempo/timer.h>

#include "compat.h"	/* kmod/compat.h: the bench builds for 6.1 and 7.2 */

/* An A/B against a tree without the coarse contract: tempo_coarse is tempo. */
#ifndef TEMPO_TIMER_COARSE
#define TEMPO_TIMER_COARSE	0
#endif
/* Nor without FINE timers: tempo_fine is tempo; nor IRQ callbacks. */
#ifndef TEMPO_TIMER_FINE
#define TEMPO_TIMER_FINE	0
#endif
#ifndef TEMPO_TIMER_IRQ
#define TEMPO_TIMER_IRQ		0
#endif

static unsigned int sample_ms = 200;
module_param(sample_ms, uint, 0644);
MODULE_PARM_DESC(sample_ms, "duration of one timed cancel sample, ms (default 200)");

static unsigned int dq_pending = 100000;
module_param(dq_pending, uint, 0644);
MODULE_PARM_DESC(dq_pending, "far-future items held in the delay queue during dq (default 100000)");

static unsigned int work_iters = 64;
module_param(work_iters, uint, 0644);
MODULE_PARM_DESC(work_iters, "iterations of the small parallel step of order (default 64)");

#define MAX_TIMERS	BIT(20)
#define MAX_THREADS	16
#define BATCH		256
/* Far enough that no timer of a cancel sample ever fires during the sample. */
#define FAR_MS		30000UL

static char result[2048];
static size_t result_len;
static DEFINE_MUTEX(bench_lock);

static __printf(1, 2) void emit(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	result_len += vscnprintf(result + result_len, sizeof(result) - result_len, fmt, ap);
	va_end(ap);
}

/* value in units of 1/1000, printed with three decimals */
static void emit_milli(const char *head, u64 milli, const char *unit)
{
	emit("%s value=%llu.%03llu unit=%s\n", head, milli / 1000, milli % 1000, unit);
}

static inline u32 xorshift32(u32 *s)
{
	u32 x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*s = x;
	return x;
}

/* ---- threads: one per CPU, a start gate, wall time from gate to last finish ---- */

struct brun;

struct bthread {
	struct brun		*run;
	struct task_struct	*task;
	struct completion	done;
	int			idx;
	int			cpu;
	u64			ops;
	u64			t_end;		/* when body() returned */
	int			err;
};

struct brun {
	int			nthreads;
	int			(*pre)(struct bthread *t);
	void			(*body)(struct bthread *t);
	void			(*post)(struct bthread *t);
	void			*ctx;
	atomic_t		ready;
	atomic_t		finished;
	bool			go;
	wait_queue_head_t	gate;
	u64			t0, t1;
	struct bthread		th[MAX_THREADS];
};

static int bthread_fn(void *arg)
{
	struct bthread *t = arg;
	struct brun *r = t->run;

	t->err = r->pre ? r->pre(t) : 0;
	atomic_inc(&r->ready);
	wait_event(r->gate, READ_ONCE(r->go));
	if (!t->err)
		r->body(t);
	t->t_end = ktime_get_ns();
	if (atomic_inc_return(&r->finished) == r->nthreads)
		r->t1 = ktime_get_ns();
	if (r->post)
		r->post(t);
	complete(&t->done);
	return 0;
}

/* Thread i runs on online CPU (i % ncpus). */
static int brun_go(struct brun *r)
{
	int i, cpu, err = 0, n = 0;
	int cpus[NR_CPUS];

	for_each_online_cpu(cpu)
		cpus[n++] = cpu;
	atomic_set(&r->ready, 0);
	atomic_set(&r->finished, 0);
	r->go = false;
	init_waitqueue_head(&r->gate);
	for (i = 0; i < r->nthreads; i++) {
		struct bthread *t = &r->th[i];

		t->run = r;
		t->idx = i;
		t->cpu = cpus[i % n];
		t->ops = 0;
		t->err = 0;
		init_completion(&t->done);
		t->task = kthread_create(bthread_fn, t, "tempo_bench/%d", i);
		if (IS_ERR(t->task)) {
			err = PTR_ERR(t->task);
			while (--i >= 0)	/* never woken: threadfn does not run */
				kthread_stop(r->th[i].task);
			return err;
		}
		kthread_bind(t->task, t->cpu);
	}
	for (i = 0; i < r->nthreads; i++)
		wake_up_process(r->th[i].task);
	while (atomic_read(&r->ready) < r->nthreads)
		usleep_range(1000, 2000);
	r->t0 = ktime_get_ns();
	WRITE_ONCE(r->go, true);
	wake_up_all(&r->gate);
	for (i = 0; i < r->nthreads; i++) {
		wait_for_completion(&r->th[i].done);
		if (r->th[i].err)
			err = r->th[i].err;
	}
	return err;
}

static u64 brun_ops(struct brun *r)
{
	u64 ops = 0;
	int i;

	for (i = 0; i < r->nthreads; i++)
		ops += r->th[i].ops;
	return ops;
}

static struct brun *brun_alloc(void)
{
	return kzalloc(sizeof(struct brun), GFP_KERNEL);
}

/* ---- cancelled timeouts ---- */

enum tsys {
	T_TEMPO, T_TEMPO_COARSE, T_DWORK, T_TIMER, T_HRTIMER, T_TIMER64, T_LAZYC, T_LAZYP,
	T_TEMPO_DEFER, T_TEMPO_DEFER_HELD, T_TIMER48, T_TIMER56, T_TEMPO_FINE, T_TEMPO_FINE_IRQ,
	T_NSYS
};
static const char * const tsys_name[T_NSYS] = {
	"tempo", "tempo_coarse", "dwork", "timer", "hrtimer", "timer64", "lazyc", "lazyp",
	"tempo_defer", "tempo_defer_held", "timer48", "timer56", "tempo_fine", "tempo_fine_irq"
};

/* The tempo_timer_init() flags of one of tempo's systems. */
static unsigned int tsys_flags(enum tsys sys)
{
	switch (sys) {
	case T_TEMPO_COARSE:
		return TEMPO_TIMER_COARSE;
	case T_TEMPO_FINE:
		return TEMPO_TIMER_FINE;
	case T_TEMPO_FINE_IRQ:
		return TEMPO_TIMER_FINE | TEMPO_TIMER_IRQ;
	case T_TEMPO_DEFER:
	case T_TEMPO_DEFER_HELD:
		return TEMPO_TIMER_DEFERRABLE;
	default:
		return 0;
	}
}

/*
 * timer64: a timer_list in 64 bytes, the size of a struct tempo_timer. Not a
 * peer: a control for the cancel and postpone lanes, local and cross-CPU,
 * which tells how much of a gap at 64K and 1M outstanding is only the size of
 * the object.
 */
struct timer_list64 {
	struct timer_list t;
} __aligned(64);

/*
 * timer48, timer56: a timer_list padded to 48 and 56 bytes, 8-byte aligned,
 * as in an array of objects holding a struct tempo_timer of that size. Beside
 * timer64, controls of what a smaller tempo_timer would buy at each tier
 * before one is built. (A timer_list over 48 bytes, with lockdep, is not
 * padded: the figures then mean nothing, as every figure of a debug kernel.)
 */
#define TIMER_PAD(n)	((n) > sizeof(struct timer_list) ? (n) - sizeof(struct timer_list) : 0)

struct timer_list48 {
	struct timer_list t;
	u8 pad[TIMER_PAD(48)];
};

struct timer_list56 {
	struct timer_list t;
	u8 pad[TIMER_PAD(56)];
};

/*
 * lazyc, lazyp: the floor of any lazy timer, not a timer. A 64-byte object
 * whose cancel is one cmpxchg and whose arm is a clock read (coarse for lazyc,
 * precise for lazyp), a store of the deadline and one cmpxchg: nothing else,
 * no list, no check. Controls for the cancel and postpone lanes: what is left
 * of a tempo figure above them is tempo's own work.
 */
struct lazy_timer {
	atomic_long_t	state;		/* bit 0: pending; the rest counts changes */
	u64		expires;
} __aligned(64);

static noinline void lazy_arm(struct lazy_timer *t, u64 now, u64 delay_ns)
{
	long old = atomic_long_read(&t->state);

	WRITE_ONCE(t->expires, now + delay_ns);
	atomic_long_try_cmpxchg(&t->state, &old, (old | 1) + 2);
}

static noinline void lazy_cancel(struct lazy_timer *t)
{
	long old = atomic_long_read(&t->state);

	atomic_long_try_cmpxchg(&t->state, &old, (old & ~1L) + 2);
}

static void *pool;		/* MAX_TIMERS of the largest timer type */
static size_t pool_bytes;

struct cancel_ctx {
	enum tsys	sys;
	u32		n;
	bool		postpone;	/* re-arm pending timers, no cancel */
	u64		dur_ns;
};

static void noop_tempo(struct tempo_timer *t) { }
static void noop_work(struct work_struct *w) { }
static void noop_timer(struct timer_list *t) { }
static enum hrtimer_restart noop_hrtimer(struct hrtimer *h)
{
	return HRTIMER_NORESTART;
}

static void share(struct bthread *t, u32 n, u32 *lo, u32 *hi)
{
	int k = t->run->nthreads;

	*lo = (u64)n * t->idx / k;
	*hi = (u64)n * (t->idx + 1) / k;
}

static inline u64 far_ns(u32 i)
{
	return (FAR_MS + (i & 1023)) * NSEC_PER_MSEC;
}

static inline unsigned long far_j(u32 i)
{
	return msecs_to_jiffies(FAR_MS + (i & 1023));
}

static int cancel_pre(struct bthread *t)
{
	struct cancel_ctx *c = t->run->ctx;
	u32 i, lo, hi;
	int err;

	share(t, c->n, &lo, &hi);
	for (i = lo; i < hi; i++) {
		switch (c->sys) {
		case T_TEMPO:
		case T_TEMPO_COARSE:
		case T_TEMPO_FINE: {
			struct tempo_timer *tt = (struct tempo_timer *)pool + i;

			tempo_timer_init(tt, noop_tempo, tsys_flags(c->sys));
			err = tempo_timer_arm(tt, far_ns(i));
			if (err)
				return err;
			break;
		}
		case T_DWORK: {
			struct delayed_work *dw = (struct delayed_work *)pool + i;

			INIT_DELAYED_WORK(dw, noop_work);
			mod_delayed_work(system_wq, dw, far_j(i));
			break;
		}
		case T_TIMER: {
			struct timer_list *tl = (struct timer_list *)pool + i;

			timer_setup(tl, noop_timer, 0);
			mod_timer(tl, jiffies + far_j(i));
			break;
		}
		case T_TIMER64:
		case T_TIMER48:
		case T_TIMER56: {
			struct timer_list *tl = c->sys == T_TIMER64 ?
				&((struct timer_list64 *)pool + i)->t : c->sys == T_TIMER48 ?
				&((struct timer_list48 *)pool + i)->t :
				&((struct timer_list56 *)pool + i)->t;

			timer_setup(tl, noop_timer, 0);
			mod_timer(tl, jiffies + far_j(i));
			break;
		}
		case T_HRTIMER: {
			struct hrtimer *h = (struct hrtimer *)pool + i;

			hrtimer_setup(h, noop_hrtimer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
			hrtimer_start(h, ns_to_ktime(far_ns(i)), HRTIMER_MODE_REL);
			break;
		}
		case T_LAZYC:
		case T_LAZYP: {
			struct lazy_timer *z = (struct lazy_timer *)pool + i;

			atomic_long_set(&z->state, 0);
			lazy_arm(z, ktime_get_ns(), far_ns(i));
			break;
		}
		default:
			return -EINVAL;
		}
		if (!(i & 1023))
			cond_resched();
	}
	return 0;
}

/*
 * Each system's cancel and re-arm of timer x (index i), handed to a loop
 * macro: CANCEL_LOOP for the threads, HIRQ_LOOP for the interrupt handler.
 */
#define SYS_PAIRS(sys, LOOP)							\
	switch (sys) {								\
	case T_TEMPO:								\
	case T_TEMPO_COARSE:							\
	case T_TEMPO_FINE:							\
		LOOP(struct tempo_timer, tempo_timer_cancel(x),			\
		     tempo_timer_arm(x, far_ns(i)));				\
		break;								\
	case T_DWORK:								\
		LOOP(struct delayed_work, cancel_delayed_work(x),		\
		     mod_delayed_work(system_wq, x, far_j(i)));			\
		break;								\
	case T_TIMER:								\
		LOOP(struct timer_list, timer_delete(x),			\
		     mod_timer(x, jiffies + far_j(i)));				\
		break;								\
	case T_TIMER64:								\
		LOOP(struct timer_list64, timer_delete(&x->t),			\
		     mod_timer(&x->t, jiffies + far_j(i)));			\
		break;								\
	case T_TIMER48:								\
		LOOP(struct timer_list48, timer_delete(&x->t),			\
		     mod_timer(&x->t, jiffies + far_j(i)));			\
		break;								\
	case T_TIMER56:								\
		LOOP(struct timer_list56, timer_delete(&x->t),			\
		     mod_timer(&x->t, jiffies + far_j(i)));			\
		break;								\
	case T_HRTIMER:								\
		LOOP(struct hrtimer, hrtimer_try_to_cancel(x),			\
		     hrtimer_start(x, ns_to_ktime(far_ns(i)), HRTIMER_MODE_REL)); \
		break;								\
	case T_LAZYC:								\
		LOOP(struct lazy_timer, lazy_cancel(x),				\
		     lazy_arm(x, ktime_get_coarse_ns(), far_ns(i)));		\
		break;								\
	case T_LAZYP:								\
		LOOP(struct lazy_timer, lazy_cancel(x),				\
		     lazy_arm(x, ktime_get_ns(), far_ns(i)));			\
		break;								\
	default:								\
		break;								\
	}

/*
 * Each system's re-arm of pending timer x to a later deadline, the way its
 * API moves a pending timer (mod_timer(), mod_delayed_work(), a restart of
 * the hrtimer), for the same loop macros with no cancel.
 */
#define SYS_POSTPONES(sys, LOOP)						\
	switch (sys) {								\
	case T_TEMPO:								\
	case T_TEMPO_COARSE:							\
	case T_TEMPO_FINE:							\
		LOOP(struct tempo_timer, (void)0, tempo_timer_arm(x, far_ns(i)));	\
		break;								\
	case T_DWORK:								\
		LOOP(struct delayed_work, (void)0,				\
		     mod_delayed_work(system_wq, x, far_j(i)));			\
		break;								\
	case T_TIMER:								\
		LOOP(struct timer_list, (void)0, mod_timer(x, jiffies + far_j(i)));	\
		break;								\
	case T_TIMER64:								\
		LOOP(struct timer_list64, (void)0,				\
		     mod_timer(&x->t, jiffies + far_j(i)));			\
		break;								\
	case T_TIMER48:								\
		LOOP(struct timer_list48, (void)0,				\
		     mod_timer(&x->t, jiffies + far_j(i)));			\
		break;								\
	case T_TIMER56:								\
		LOOP(struct timer_list56, (void)0,				\
		     mod_timer(&x->t, jiffies + far_j(i)));			\
		break;								\
	case T_HRTIMER:								\
		LOOP(struct hrtimer, (void)0,					\
		     hrtimer_start(x, ns_to_ktime(far_ns(i)), HRTIMER_MODE_REL)); \
		break;								\
	case T_LAZYC:								\
		LOOP(struct lazy_timer, (void)0,				\
		     lazy_arm(x, ktime_get_coarse_ns(), far_ns(i)));		\
		break;								\
	case T_LAZYP:								\
		LOOP(struct lazy_timer, (void)0,				\
		     lazy_arm(x, ktime_get_ns(), far_ns(i)));			\
		break;								\
	default:								\
		break;								\
	}

/*
 * One loop per system, so that the measured loop holds nothing but the
 * random pick and the calls.
 */
#define CANCEL_LOOP(type, cancel, arm)						\
	do {									\
		type *base = pool;						\
		u32 seed = 2463534242U + t->idx, span = hi - lo;		\
		u64 ops = 0;							\
		do {								\
			int b;							\
			for (b = 0; b < BATCH; b++) {				\
				u32 i = lo + xorshift32(&seed) % span;		\
				type *x = base + i;				\
				cancel;						\
				arm;						\
			}							\
			ops += BATCH;						\
			cond_resched();						\
		} while (ktime_get_ns() - r->t0 < c->dur_ns);			\
		t->ops = ops;							\
	} while (0)

static void cancel_body(struct bthread *t)
{
	struct brun *r = t->run;
	struct cancel_ctx *c = r->ctx;
	u32 lo, hi;

	share(t, c->n, &lo, &hi);
	if (c->postpone) {
		SYS_POSTPONES(c->sys, CANCEL_LOOP);
	} else {
		SYS_PAIRS(c->sys, CANCEL_LOOP);
	}
}

static void cancel_post(struct bthread *t)
{
	struct cancel_ctx *c = t->run->ctx;
	u32 i, lo, hi;

	share(t, c->n, &lo, &hi);
	for (i = lo; i < hi; i++) {
		switch (c->sys) {
		case T_TEMPO:
		case T_TEMPO_COARSE:
		case T_TEMPO_FINE:
			tempo_timer_cancel_sync((struct tempo_timer *)pool + i);
			break;
		case T_DWORK:
			cancel_delayed_work_sync((struct delayed_work *)pool + i);
			break;
		case T_TIMER:
			timer_delete_sync((struct timer_list *)pool + i);
			break;
		case T_TIMER64:
			timer_delete_sync(&((struct timer_list64 *)pool + i)->t);
			break;
		case T_TIMER48:
			timer_delete_sync(&((struct timer_list48 *)pool + i)->t);
			break;
		case T_TIMER56:
			timer_delete_sync(&((struct timer_list56 *)pool + i)->t);
			break;
		case T_HRTIMER:
			hrtimer_cancel((struct hrtimer *)pool + i);
			break;
		default:
			break;
		}
		if (!(i & 1023))
			cond_resched();
	}
}

static int parse_sys(const char *s, const char * const *names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -EINVAL;
}

static int parse_cpus(const char *s)
{
	if (!strcmp(s, "all"))
		return min_t(int, num_online_cpus(), MAX_THREADS);
	if (!strcmp(s, "1"))
		return 1;
	return -EINVAL;
}

static int cmd_cancel(const char *name, const char *sys_s, u32 n, const char *cpus_s)
{
	struct cancel_ctx c = { .dur_ns = (u64)sample_ms * NSEC_PER_MSEC, .n = n,
				.postpone = !strcmp(name, "postpone") };
	struct brun *r;
	int sys = parse_sys(sys_s, tsys_name, T_NSYS), nt = parse_cpus(cpus_s), err;
	u64 ops;

	if (sys < 0 || nt < 0 || n < 1 || n > MAX_TIMERS)
		return -EINVAL;
	c.sys = sys;
	r = brun_alloc();
	if (!r)
		return -ENOMEM;
	r->nthreads = nt;
	r->ctx = &c;
	r->pre = cancel_pre;
	r->body = cancel_body;
	r->post = cancel_post;
	err = brun_go(r);
	ops = brun_ops(r);
	if (!err && ops) {
		char head[128];

		scnprintf(head, sizeof(head),
			  "name=%s system=%s outstanding=%u cpus=%s threads=%d ops=%llu",
			  name, sys_s, n, cpus_s, nt, ops);
		emit_milli(head, div64_u64((r->t1 - r->t0) * 1000, ops), "ns/op");
	}
	kfree(r);
	return err;
}

/* ---- cross-CPU: timers that live on one CPU, touched from the others ---- */

/*
 * The first thread arms all N timers on its CPU in pre() and then only
 * serves its CPU (messages, interrupts); every other thread cancels and
 * re-arms random timers of its own share of the N, as packets arriving on
 * other CPUs do to a connection's timer. Each peer does what its API does
 * with a remote timer: timer_list, hrtimer and delayed_work move it to the
 * CPU that re-arms it; tempo leaves it with its owner and sends a message.
 */
static void xshare(struct bthread *t, u32 n, u32 *lo, u32 *hi)
{
	int k = t->run->nthreads - 1, i = t->idx - 1;

	*lo = (u64)n * i / k;
	*hi = (u64)n * (i + 1) / k;
}

static int xcancel_pre(struct bthread *t)
{
	struct cancel_ctx *c = t->run->ctx;
	struct bthread one = { .run = &(struct brun){ .nthreads = 1, .ctx = c } };

	if (t->idx)
		return 0;
	return cancel_pre(&one);	/* all N, on this CPU */
}

static void xcancel_body(struct bthread *t)
{
	struct brun *r = t->run;
	struct cancel_ctx *c = r->ctx;
	u32 lo, hi;

	if (!t->idx)
		return;
	xshare(t, c->n, &lo, &hi);
	if (c->postpone) {
		SYS_POSTPONES(c->sys, CANCEL_LOOP);
	} else {
		SYS_PAIRS(c->sys, CANCEL_LOOP);
	}
}

static int cmd_xcancel(const char *name, const char *sys_s, u32 n)
{
	struct cancel_ctx c = { .dur_ns = (u64)sample_ms * NSEC_PER_MSEC, .n = n,
				.postpone = !strcmp(name, "xpostpone") };
	struct bthread one = { .run = &(struct brun){ .nthreads = 1, .ctx = &c } };
	int sys = parse_sys(sys_s, tsys_name, T_NSYS), nt, err;
	struct brun *r;
	u64 ops;

	nt = min_t(int, num_online_cpus(), MAX_THREADS);
	if (sys < 0 || nt < 2 || n < 1 || n > MAX_TIMERS)
		return -EINVAL;
	c.sys = sys;
	r = brun_alloc();
	if (!r)
		return -ENOMEM;
	r->nthreads = nt;
	r->ctx = &c;
	r->pre = xcancel_pre;
	r->body = xcancel_body;
	err = brun_go(r);
	ops = brun_ops(r);
	cancel_post(&one);	/* every thread has finished: no arm runs now */
	if (!err && ops) {
		char head[128];

		scnprintf(head, sizeof(head),
			  "name=%s system=%s outstanding=%u threads=%d ops=%llu",
			  name, sys_s, n, nt - 1, ops);
		emit_milli(head, div64_u64((r->t1 - r->t0) * 1000, ops), "ns/op");
	}
	kfree(r);
	return err;
}

/* ---- hardirq: cancel and re-arm from an hrtimer callback ---- */

/*
 * One thread arms N timers on its CPU, then starts a hard-interrupt hrtimer
 * on that CPU whose callback cancels and re-arms BATCH random timers, times
 * that loop, and comes back 100 us later until sample_ms have passed. The
 * figure is the time inside the loops / pairs: what an interrupt handler
 * pays per timer operation.
 */
struct hirq_ctx {
	struct hrtimer		tick;
	struct cancel_ctx	*c;
	u32			seed, n;
	u64			ns, ops, until;
	struct completion	done;
};

#define HIRQ_LOOP(type, cancel, arm)						\
	do {									\
		type *base = pool;						\
		int b;								\
		for (b = 0; b < BATCH; b++) {					\
			u32 i = xorshift32(&h->seed) % h->n;			\
			type *x = base + i;					\
			cancel;							\
			arm;							\
		}								\
	} while (0)

static enum hrtimer_restart hirq_fn(struct hrtimer *tick)
{
	struct hirq_ctx *h = container_of(tick, struct hirq_ctx, tick);
	u64 t0 = ktime_get_ns();

	SYS_PAIRS(h->c->sys, HIRQ_LOOP);
	h->ns += ktime_get_ns() - t0;
	h->ops += BATCH;
	if (t0 >= h->until) {
		complete(&h->done);
		return HRTIMER_NORESTART;
	}
	hrtimer_forward_now(tick, ns_to_ktime(100 * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static void hirq_body(struct bthread *t)
{
	struct hirq_ctx *h = t->run->ctx;

	h->until = ktime_get_ns() + h->c->dur_ns;
	hrtimer_start(&h->tick, ns_to_ktime(100 * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
	wait_for_completion(&h->done);
	t->ops = h->ops;
}

static int hirq_pre(struct bthread *t)
{
	struct hirq_ctx *h = t->run->ctx;
	struct bthread one = { .run = &(struct brun){ .nthreads = 1, .ctx = h->c } };

	return cancel_pre(&one);
}

static void hirq_post(struct bthread *t)
{
	struct hirq_ctx *h = t->run->ctx;
	struct bthread one = { .run = &(struct brun){ .nthreads = 1, .ctx = h->c } };

	cancel_post(&one);
}

static int cmd_hirq(const char *sys_s, u32 n)
{
	struct cancel_ctx c = { .dur_ns = (u64)sample_ms * NSEC_PER_MSEC, .n = n };
	int sys = parse_sys(sys_s, tsys_name, T_NSYS), err;
	struct hirq_ctx *h;
	struct brun *r;

	if (sys < 0 || n < 1 || n > MAX_TIMERS)
		return -EINVAL;
	c.sys = sys;
	h = kzalloc(sizeof(*h), GFP_KERNEL);
	r = brun_alloc();
	if (!h || !r) {
		err = -ENOMEM;
		goto out_free;
	}
	h->c = &c;
	h->n = n;
	h->seed = 2463534242U;
	init_completion(&h->done);
	hrtimer_setup(&h->tick, hirq_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	r->nthreads = 1;
	r->ctx = h;
	r->pre = hirq_pre;
	r->body = hirq_body;
	r->post = hirq_post;
	err = brun_go(r);
	hrtimer_cancel(&h->tick);
	if (!err && h->ops) {
		char head[128];

		scnprintf(head, sizeof(head), "name=hirq system=%s outstanding=%u ops=%llu",
			  sys_s, n, h->ops);
		emit_milli(head, div64_u64(h->ns * 1000, h->ops), "ns/op");
	}
out_free:
	kfree(r);
	kfree(h);
	return err;
}

/* ---- timers that fire ---- */

struct fire_item {
	union {
		struct tempo_timer	tt;
		struct delayed_work	dw;
		struct hrtimer		h;
	};
	u64	deadline;
};

struct fire_ctx {
	enum tsys	sys;
	u32		k;
	bool		burst;
	u64		common_deadline;
	atomic_t	fired;
	atomic_t	armed_late;	/* burst: armed after the common deadline */
	u64		first, last;
	s64		*late;		/* ns, per item */
	struct fire_item *items;
};

static struct fire_ctx *fire_cur;

static void fire_record(struct fire_item *it)
{
	struct fire_ctx *f = fire_cur;
	u64 now = ktime_get_ns();
	int n;

	f->late[it - f->items] = (s64)(now - it->deadline);
	cmpxchg64(&f->first, 0, now);
	n = atomic_inc_return(&f->fired);
	if (n == f->k)
		WRITE_ONCE(f->last, now);
}

static void fire_tempo(struct tempo_timer *t)
{
	fire_record(container_of(t, struct fire_item, tt));
}

static void fire_work(struct work_struct *w)
{
	fire_record(container_of(to_delayed_work(w), struct fire_item, dw));
}

static enum hrtimer_restart fire_hrtimer(struct hrtimer *h)
{
	fire_record(container_of(h, struct fire_item, h));
	return HRTIMER_NORESTART;
}

static int fire_pre(struct bthread *t)
{
	struct fire_ctx *f = t->run->ctx;
	u32 i, lo, hi, seed = 12345 + t->idx;

	share(t, f->k, &lo, &hi);
	for (i = lo; i < hi; i++) {
		struct fire_item *it = &f->items[i];
		u64 now = ktime_get_ns(), delay;

		if (f->burst && (s64)(f->common_deadline - now) <= 0) {
			delay = 0;	/* arming outran the common deadline */
			atomic_inc(&f->armed_late);
		} else if (f->burst) {
			delay = f->common_deadline - now;
		} else {
			delay = (2 + xorshift32(&seed) % 100) * NSEC_PER_MSEC;
		}
		it->deadline = now + delay;
		switch (f->sys) {
		case T_TEMPO:
		case T_TEMPO_FINE:
		case T_TEMPO_FINE_IRQ:
			tempo_timer_init(&it->tt, fire_tempo, tsys_flags(f->sys));
			if (tempo_timer_arm(&it->tt, delay))
				return -EIO;
			break;
		case T_DWORK:
			INIT_DELAYED_WORK(&it->dw, fire_work);
			/* rounded up, as msecs_to_jiffies() does */
			queue_delayed_work(system_wq, &it->dw,
					   usecs_to_jiffies(div_u64(delay + 999, 1000)));
			break;
		case T_HRTIMER:
			hrtimer_setup(&it->h, fire_hrtimer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
			hrtimer_start(&it->h, ns_to_ktime(delay), HRTIMER_MODE_REL);
			break;
		default:
			return -EINVAL;
		}
	}
	return 0;
}

static void fire_body(struct bthread *t) { }

static int cmp_s64(const void *a, const void *b)
{
	s64 x = *(const s64 *)a, y = *(const s64 *)b;

	return x < y ? -1 : x > y;
}

static void emit_late(const char *head, const char *what, s64 ns)
{
	char h[160];
	s64 v = ns / 100;	/* 0.1 us */

	scnprintf(h, sizeof(h), "%s stat=%s", head, what);
	emit("%s value=%s%lld.%lld unit=us\n", h, v < 0 ? "-" : "",
	     abs(v) / 10, abs(v) % 10);
}

static int cmd_fire(const char *sys_s, u32 k, bool burst)
{
	struct fire_ctx *f;
	struct brun *r;
	int sys = parse_sys(sys_s, tsys_name, T_NSYS), err;
	unsigned long stop;
	u32 i;

	if (sys < 0 || sys == T_TIMER || sys == T_TIMER64 || sys == T_TIMER48 ||
	    sys == T_TIMER56 || k < 16 || k > MAX_TIMERS / 4)
		return -EINVAL;
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	r = brun_alloc();
	if (!f || !r) {
		err = -ENOMEM;
		goto out;
	}
	f->items = kvcalloc(k, sizeof(*f->items), GFP_KERNEL);
	f->late = kvcalloc(k, sizeof(s64), GFP_KERNEL);
	if (!f->items || !f->late) {
		err = -ENOMEM;
		goto out;
	}
	f->sys = sys;
	f->k = k;
	f->burst = burst;
	/* arming K timers under TCG takes up to a few us each */
	f->common_deadline = ktime_get_ns() + 300 * NSEC_PER_MSEC + (u64)k * 20000;
	fire_cur = f;
	r->nthreads = min_t(int, num_online_cpus(), MAX_THREADS);
	r->ctx = f;
	r->pre = fire_pre;
	r->body = fire_body;
	err = brun_go(r);
	stop = jiffies + 30 * HZ;
	while (atomic_read(&f->fired) < k && time_before(jiffies, stop))
		usleep_range(5000, 10000);
	if (atomic_read(&f->fired) < k) {
		pr_err("tempo_bench: %s %s: %d of %u fired in 30 s\n",
		       burst ? "burst" : "spread", sys_s, atomic_read(&f->fired), k);
		err = err ?: -ETIMEDOUT;
	}
	/* nothing may still run when the items are freed */
	for (i = 0; i < k; i++) {
		if (sys == T_TEMPO || sys == T_TEMPO_FINE || sys == T_TEMPO_FINE_IRQ)
			tempo_timer_cancel_sync(&f->items[i].tt);
		else if (sys == T_DWORK)
			cancel_delayed_work_sync(&f->items[i].dw);
		else
			hrtimer_cancel(&f->items[i].h);
	}
	if (!err) {
		char head[128];

		if (burst) {
			scnprintf(head, sizeof(head),
				  "name=fire_burst system=%s timers=%u cpus=all armed_late=%d",
				  sys_s, k, atomic_read(&f->armed_late));
			emit_milli(head, div64_u64((f->last - f->first) * 1000, k - 1),
				   "ns/expiry");
		} else {
			scnprintf(head, sizeof(head),
				  "name=fire_lateness system=%s timers=%u cpus=all delay=2..102ms",
				  sys_s, k);
			sort(f->late, k, sizeof(s64), cmp_s64, NULL);
			emit_late(head, "p50", f->late[k / 2]);
			emit_late(head, "p99", f->late[(u64)k * 99 / 100]);
			emit_late(head, "max", f->late[k - 1]);
		}
	}
out:
	fire_cur = NULL;
	if (f) {
		kvfree(f->items);
		kvfree(f->late);
	}
	kfree(f);
	kfree(r);
	return err;
}

/* ---- ordered completion ---- */

enum osys { O_TEMPO, O_TEMPO_SPREAD, O_TEMPO_INLINE, O_PADATA, O_OWQ, O_ROB, O_CAS, O_NSYS };
static const char * const osys_name[O_NSYS] = {
	"tempo", "tempo_spread", "tempo_inline", "padata", "owq", "rob", "cas"
};

struct order_item {
	union {
		struct tempo_order_req	req;
#if IS_ENABLED(CONFIG_PADATA)
		struct padata_priv	pp;
#endif
		struct work_struct	w;
	};
	u64	seq;
	u64	result;
};

#define ROB_WINDOW	1024

struct order_ctx {
	enum osys		sys;
	u32			m;
	atomic_t		done;
	atomic_t		misorder;
	u64			last_seq;	/* owned by the completion side */
	struct order_item	*items;
	struct completion	all_done;
	struct tempo_order	*o;
#if IS_ENABLED(CONFIG_PADATA)
	struct padata_instance	*pinst;
	struct padata_shell	*ps;
#endif
	struct workqueue_struct	*owq;
	atomic64_t		cas_word;	/* cas */
	/* rob */
	spinlock_t		rob_lock;
	atomic64_t		rob_next;
	u64			rob_head;
	struct order_item	*rob[ROB_WINDOW];
};

static struct order_ctx *order_cur;

/* The small parallel step: a few dozen multiply-adds on the item. */
static noinline void small_step(struct order_item *it)
{
	u64 x = it->seq + 1;
	unsigned int i;

	for (i = 0; i < work_iters; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	it->result = x;
}

/* Completion: check the order, count. seq is the order the system promised. */
static void order_complete(struct order_item *it, u64 seq)
{
	struct order_ctx *c = order_cur;

	if (atomic_read(&c->done) && seq != c->last_seq + 1)
		atomic_inc(&c->misorder);
	c->last_seq = seq;
	if (atomic_inc_return(&c->done) == c->m)
		complete(&c->all_done);
}

static void ord_tempo_work(struct tempo_order_req *req)
{
	small_step(container_of(req, struct order_item, req));
}

static void ord_tempo_done(struct tempo_order_req *req)
{
	order_complete(container_of(req, struct order_item, req), req->ticket);
}

static void ord_tempo_run(void *arg)
{
	struct order_item *it = arg;

	order_complete(it, it->seq);
}

#if IS_ENABLED(CONFIG_PADATA)
static void ord_padata_parallel(struct padata_priv *pp)
{
	small_step(container_of(pp, struct order_item, pp));
	padata_do_serial(pp);
}

static void ord_padata_serial(struct padata_priv *pp)
{
	order_complete(container_of(pp, struct order_item, pp), pp->seq_nr);
}
#endif

/* The ordered workqueue runs items in queueing order by construction. */
static void ord_owq_fn(struct work_struct *w)
{
	struct order_item *it = container_of(w, struct order_item, w);

	small_step(it);
	order_complete(it, order_cur->last_seq + 1);
}

/*
 * The floor of an ordering step: the same threads and parallel step, and one
 * cmpxchg per item on a word all CPUs share (a ticket's worth), but nothing
 * ordered: each item is counted done at once.
 */
static void ord_cas_submit(struct order_ctx *c, struct order_item *it)
{
	s64 v = atomic64_read(&c->cas_word);

	while (!atomic64_try_cmpxchg(&c->cas_word, &v, v + 1))
		;
	it->seq = v;
	small_step(it);
	if (atomic_inc_return(&c->done) == c->m)
		complete(&c->all_done);
}

static void ord_rob_submit(struct order_ctx *c, struct order_item *it)
{
	u64 seq = atomic64_inc_return(&c->rob_next) - 1;

	it->seq = seq;
	/* the window: do not run more than ROB_WINDOW ahead of the head */
	while (seq - READ_ONCE(c->rob_head) >= ROB_WINDOW)
		cond_resched();
	small_step(it);
	spin_lock(&c->rob_lock);
	c->rob[seq % ROB_WINDOW] = it;
	while (c->rob[c->rob_head % ROB_WINDOW]) {
		struct order_item *x = c->rob[c->rob_head % ROB_WINDOW];

		c->rob[c->rob_head % ROB_WINDOW] = NULL;
		order_complete(x, x->seq);
		WRITE_ONCE(c->rob_head, c->rob_head + 1);
	}
	spin_unlock(&c->rob_lock);
}

static void order_body(struct bthread *t)
{
	struct order_ctx *c = t->run->ctx;
	u32 i, lo, hi;

	share(t, c->m, &lo, &hi);
	for (i = lo; i < hi; i++) {
		struct order_item *it = &c->items[i];

		switch (c->sys) {
		case O_TEMPO:
		case O_TEMPO_SPREAD:
			if (tempo_order_submit(c->o, &it->req, ord_tempo_work, ord_tempo_done,
					       c->sys == O_TEMPO_SPREAD ? TEMPO_ORDER_SPREAD : 0))
				t->err = -EIO;
			break;
		case O_TEMPO_INLINE: {
			u64 tk;

			if (tempo_order_ticket(c->o, &tk)) {
				t->err = -EIO;
				break;
			}
			it->seq = tk;
			small_step(it);
			tempo_order_run(c->o, tk, ord_tempo_run, it);
			break;
		}
#if IS_ENABLED(CONFIG_PADATA)
		case O_PADATA: {
			/*
			 * One ordered stream is one serial CPU, as for one
			 * pcrypt tfm: padata orders per cb_cpu only.
			 */
			int cb_cpu = cpumask_first(cpu_online_mask), err;

			it->pp.parallel = ord_padata_parallel;
			it->pp.serial = ord_padata_serial;
			while ((err = padata_do_parallel(c->ps, &it->pp, &cb_cpu)) == -EBUSY)
				cond_resched();
			if (err)
				t->err = err;
			break;
		}
#endif
		case O_OWQ:
			INIT_WORK(&it->w, ord_owq_fn);
			queue_work(c->owq, &it->w);
			break;
		case O_ROB:
			ord_rob_submit(c, it);
			break;
		case O_CAS:
			ord_cas_submit(c, it);
			break;
		default:
			t->err = -EINVAL;
			return;
		}
		if (t->err)
			return;
		if (!(i & 63))
			cond_resched();
	}
}

static int cmd_order(const char *sys_s, u32 m)
{
	struct order_ctx *c;
	struct brun *r;
	int sys = parse_sys(sys_s, osys_name, O_NSYS), err = 0;

	if (sys < 0 || m < 64 || m > MAX_TIMERS)
		return -EINVAL;
	if (!IS_ENABLED(CONFIG_PADATA) && sys == O_PADATA)
		return -EOPNOTSUPP;
	c = kvzalloc(sizeof(*c), GFP_KERNEL);
	r = brun_alloc();
	if (!c || !r) {
		err = -ENOMEM;
		goto out;
	}
	c->items = kvcalloc(m, sizeof(*c->items), GFP_KERNEL);
	if (!c->items) {
		err = -ENOMEM;
		goto out;
	}
	c->sys = sys;
	c->m = m;
	init_completion(&c->all_done);
	spin_lock_init(&c->rob_lock);
	switch (sys) {
	case O_TEMPO:
	case O_TEMPO_SPREAD:
	case O_TEMPO_INLINE:
		c->o = tempo_order_create(ROB_WINDOW, NULL);
		if (IS_ERR_OR_NULL(c->o)) {
			err = c->o ? PTR_ERR(c->o) : -ENOMEM;
			c->o = NULL;
			goto out;
		}
		break;
#if IS_ENABLED(CONFIG_PADATA)
	case O_PADATA:
		c->pinst = padata_alloc("tempo_bench");
		if (!c->pinst) {
			err = -ENOMEM;
			goto out;
		}
		c->ps = padata_alloc_shell(c->pinst);
		if (!c->ps) {
			err = -ENOMEM;
			goto out;
		}
		break;
#endif
	case O_OWQ:
		c->owq = alloc_ordered_workqueue("tempo_bench_ord", 0);
		if (!c->owq) {
			err = -ENOMEM;
			goto out;
		}
		break;
	default:
		break;
	}
	order_cur = c;
	r->nthreads = min_t(int, num_online_cpus(), MAX_THREADS);
	r->ctx = c;
	r->body = order_body;
	err = brun_go(r);
	if (!err && !wait_for_completion_timeout(&c->all_done, 60 * HZ))
		err = -ETIMEDOUT;
	if (!err) {
		u64 end = ktime_get_ns();
		struct tempo_order_stats st = {};
		char head[200];

		/*
		 * How the domain drained: hand-offs to its workqueue, longest
		 * streak, and how often a taker slept on a full window.
		 */
		if (c->o)
			tempo_order_stats(c->o, &st);
		scnprintf(head, sizeof(head),
			  "name=order system=%s items=%u cpus=all work_iters=%u misordered=%d deferred=%llu longest=%llu waits=%llu",
			  sys_s, m, work_iters, atomic_read(&c->misorder), st.deferred,
			  st.longest_streak, st.waits);
		emit_milli(head, div64_u64((end - r->t0) * 1000, m), "ns/item");
		if (atomic_read(&c->misorder))
			err = -EPROTO;
	}
out:
	if (c) {
		if (c->o)
			tempo_order_destroy(c->o);
#if IS_ENABLED(CONFIG_PADATA)
		if (c->pinst)	/* the serial worker still holds pd after serial() */
			flush_workqueue(c->pinst->serial_wq);
		if (c->ps)
			padata_free_shell(c->ps);
		if (c->pinst)
			padata_free(c->pinst);
#endif
		if (c->owq)
			destroy_workqueue(c->owq);
		kvfree(c->items);
	}
	order_cur = NULL;
	kvfree(c);
	kfree(r);
	return err;
}

/* ---- delay queue ---- */

/*
 * The baseline: java.util.concurrent.DelayQueue as written (JDK 21), in
 * kernel terms. One lock (ReentrantLock -> spinlock), a binary heap
 * (PriorityQueue), one condition (Condition available -> a wait queue whose
 * waiters are exclusive, so signal() wakes one), and the leader-follower
 * take(): the leader waits for the head's delay with a timed wait
 * (awaitNanos -> schedule_hrtimeout), the others wait indefinitely.
 */
struct jnode {
	u64	deadline;	/* ktime_get_ns() */
};

struct jdq {
	spinlock_t		lock;		/* the ReentrantLock: all below */
	wait_queue_head_t	available;
	struct task_struct	*leader;
	struct jnode		**heap;
	u32			size, cap;
	u64			sleeps;		/* bench only: awaits that slept */
};

static bool jdq_less(struct jnode *a, struct jnode *b)
{
	return a->deadline < b->deadline;	/* compareTo(): getDelay() order */
}

static void jdq_sift_up(struct jdq *q, u32 k, struct jnode *x)
{
	while (k > 0) {
		u32 parent = (k - 1) >> 1;
		struct jnode *e = q->heap[parent];

		if (!jdq_less(x, e))
			break;
		q->heap[k] = e;
		k = parent;
	}
	q->heap[k] = x;
}

static void jdq_sift_down(struct jdq *q, u32 k, struct jnode *x)
{
	u32 half = q->size >> 1;

	while (k < half) {
		u32 child = (k << 1) + 1, right = child + 1;
		struct jnode *c = q->heap[child];

		if (right < q->size && jdq_less(q->heap[right], c))
			c = q->heap[child = right];
		if (!jdq_less(c, x))
			break;
		q->heap[k] = c;
		k = child;
	}
	q->heap[k] = x;
}

static struct jnode *jdq_poll_head(struct jdq *q)	/* PriorityQueue.poll() */
{
	struct jnode *res = q->heap[0], *x;

	x = q->heap[--q->size];
	q->heap[q->size] = NULL;
	if (q->size)
		jdq_sift_down(q, 0, x);
	return res;
}

/* DelayQueue.offer(e) */
static int jdq_put(struct jdq *q, struct jnode *e)
{
	spin_lock(&q->lock);
	if (q->size >= q->cap) {	/* PriorityQueue grows; ours is sized for the run */
		spin_unlock(&q->lock);
		return -ENOSPC;
	}
	jdq_sift_up(q, q->size++, e);
	if (q->heap[0] == e) {
		q->leader = NULL;
		wake_up(&q->available);		/* available.signal() */
	}
	spin_unlock(&q->lock);
	return 0;
}

/* Condition.await()/awaitNanos(): release the lock, sleep, retake it. */
static void jdq_await(struct jdq *q, s64 nanos)
{
	DEFINE_WAIT(w);

	prepare_to_wait_exclusive(&q->available, &w, TASK_UNINTERRUPTIBLE);
	spin_unlock(&q->lock);
	if (nanos < 0) {
		schedule();
	} else {
		ktime_t kt = ns_to_ktime(nanos);

		schedule_hrtimeout(&kt, HRTIMER_MODE_REL);
	}
	finish_wait(&q->available, &w);
	spin_lock(&q->lock);
	q->sleeps++;
}

/* DelayQueue.take() */
static struct jnode *jdq_take(struct jdq *q)
{
	struct jnode *res;

	spin_lock(&q->lock);
	for (;;) {
		struct jnode *first = q->size ? q->heap[0] : NULL;
		s64 delay;

		if (!first) {
			jdq_await(q, -1);
			continue;
		}
		delay = (s64)(first->deadline - ktime_get_ns());
		if (delay <= 0) {
			res = jdq_poll_head(q);
			break;
		}
		if (q->leader) {
			jdq_await(q, -1);
		} else {
			q->leader = current;
			jdq_await(q, delay);
			if (q->leader == current)
				q->leader = NULL;
		}
	}
	if (!q->leader && q->size)
		wake_up(&q->available);		/* available.signal() */
	spin_unlock(&q->lock);
	return res;
}

enum dsys { D_TEMPO, D_JAVA, D_NSYS };
static const char * const dsys_name[D_NSYS] = { "tempo", "java" };

struct dq_item {
	union {
		struct tempo_delayq_node	node;
		struct jnode			j;
	};
};

struct dq_ctx {
	enum dsys		sys;
	u32			k;
	bool			immediate;	/* one thread: put(delay 0), take */
	int			producers;
	struct dq_item		*items;		/* dq_pending far ones, then k moving ones */
	struct jdq		j;
	struct tempo_delayq	*q;
};

/* put an already-due item and take it back: the data structure alone */
static void dq_immediate_body(struct bthread *t)
{
	struct dq_ctx *c = t->run->ctx;
	u32 i;

	for (i = 0; i < c->k; i++) {
		struct dq_item *it = &c->items[dq_pending + i];

		if (c->sys == D_TEMPO) {
			if (tempo_delayq_put(c->q, &it->node, 0) ||
			    IS_ERR(tempo_delayq_take(c->q))) {
				t->err = -EIO;
				return;
			}
			continue;
		}
		it->j.deadline = ktime_get_ns();
		if (jdq_put(&c->j, &it->j)) {
			t->err = -ENOSPC;
			return;
		}
		jdq_take(&c->j);
	}
}

static void dq_body(struct bthread *t)
{
	struct dq_ctx *c = t->run->ctx;
	bool producer = t->idx < c->producers;
	int share_idx = producer ? t->idx : t->idx - c->producers;
	u32 lo = (u64)c->k * share_idx / c->producers;
	u32 hi = (u64)c->k * (share_idx + 1) / c->producers;
	u32 i, seed = 777 + t->idx;

	for (i = lo; i < hi; i++) {
		struct dq_item *it = &c->items[dq_pending + i];
		u64 delay = xorshift32(&seed) % NSEC_PER_MSEC;

		if (producer) {
			if (c->sys == D_TEMPO) {
				if (tempo_delayq_put(c->q, &it->node, delay))
					t->err = -EIO;
				continue;
			}
			it->j.deadline = ktime_get_ns() + delay;
			if (jdq_put(&c->j, &it->j))
				t->err = -ENOSPC;
		} else {
			if (c->sys == D_TEMPO) {
				if (IS_ERR(tempo_delayq_take(c->q)))
					t->err = -EIO;
				continue;
			}
			jdq_take(&c->j);
		}
		if (t->err)
			return;
		t->ops++;
	}
}

static void dq_release(struct tempo_delayq_node *node, void *arg) { }

static int cmd_dq(const char *sys_s, u32 k, bool immediate)
{
	struct dq_ctx *c;
	struct brun *r;
	int sys = parse_sys(sys_s, dsys_name, D_NSYS), err = 0, ncpu;
	u32 i;

	if (sys < 0 || k < 16 || k > MAX_TIMERS)
		return -EINVAL;
	c = kvzalloc(sizeof(*c), GFP_KERNEL);
	r = brun_alloc();
	if (!c || !r) {
		err = -ENOMEM;
		goto out;
	}
	c->items = kvcalloc(dq_pending + k, sizeof(*c->items), GFP_KERNEL);
	if (!c->items) {
		err = -ENOMEM;
		goto out;
	}
	c->sys = sys;
	c->k = k;
	c->immediate = immediate;
	ncpu = min_t(int, num_online_cpus(), MAX_THREADS / 2);
	c->producers = ncpu;
	if (sys == D_JAVA) {
		spin_lock_init(&c->j.lock);
		init_waitqueue_head(&c->j.available);
		c->j.cap = dq_pending + k;
		c->j.heap = kvcalloc(c->j.cap, sizeof(*c->j.heap), GFP_KERNEL);
		if (!c->j.heap) {
			err = -ENOMEM;
			goto out;
		}
		for (i = 0; i < dq_pending; i++) {
			c->items[i].j.deadline = ktime_get_ns() +
				(FAR_MS + (i & 1023)) * NSEC_PER_MSEC;
			jdq_put(&c->j, &c->items[i].j);
		}
	}
	if (sys == D_TEMPO) {
		c->q = tempo_delayq_create();
		if (IS_ERR_OR_NULL(c->q)) {
			err = c->q ? PTR_ERR(c->q) : -ENOMEM;
			c->q = NULL;
			goto out;
		}
		for (i = 0; i < dq_pending + k; i++)
			tempo_delayq_node_init(&c->items[i].node);
		for (i = 0; i < dq_pending; i++) {
			err = tempo_delayq_put(c->q, &c->items[i].node,
					       (FAR_MS + (i & 1023)) * NSEC_PER_MSEC);
			if (err)
				goto out;
			if (!(i & 1023))
				cond_resched();
		}
	}
	r->nthreads = immediate ? 1 : 2 * ncpu;
	r->ctx = c;
	r->body = immediate ? dq_immediate_body : dq_body;
	err = brun_go(r);
	if (!err && immediate) {
		char head[128];

		scnprintf(head, sizeof(head),
			  "name=delayq_immediate system=%s pending=%u items=%u cpus=1",
			  sys_s, dq_pending, k);
		emit_milli(head, div64_u64((r->t1 - r->t0) * 1000, k), "ns/item");
	} else if (!err) {
		char head[192];
		u64 wakeups = c->j.sleeps, put_us = 0, take_us = 0;

		if (c->q) {
			struct tempo_delayq_stats st;

			tempo_delayq_stats(c->q, &st);
			wakeups = st.wakeups;
		}
		/* When the last producer and the last consumer were done. */
		for (i = 0; i < r->nthreads; i++) {
			u64 us = div_u64(r->th[i].t_end - r->t0, NSEC_PER_USEC);

			if (i < c->producers)
				put_us = max(put_us, us);
			else
				take_us = max(take_us, us);
		}
		scnprintf(head, sizeof(head),
			  "name=delayq system=%s pending=%u items=%u producers=%d consumers=%d %s wakeups=%llu put_us=%llu take_us=%llu",
			  sys_s, dq_pending, k, ncpu, ncpu, "delay=0..1ms", wakeups,
			  put_us, take_us);
		emit_milli(head, div64_u64((r->t1 - r->t0) * 1000, k), "ns/item");
	}
out:
	if (c) {
		if (c->q) {
			tempo_delayq_shutdown(c->q);
			tempo_delayq_destroy(c->q, dq_release, NULL);
		}
		kvfree(c->j.heap);
		kvfree(c->items);
	}
	kvfree(c);
	kfree(r);
	return err;
}

/* ---- idle: what cancelled timers cost a CPU that does nothing else ---- */

/*
 * One thread arms N timers 1 to 4 s ahead on its CPU (the first online) and
 * cancels them all. tempo leaves far timers in their slots (lazy cancel): the
 * guest script then counts, over a few seconds, the hrtimer expiries and work
 * items of that CPU's wheel and its local timer interrupts, against the same
 * for timer_list and for no timers at all. idle_end lets go of them.
 */
static inline u64 idle_ns(u32 i, u32 n)
{
	return (1000 + (u64)i * 3000 / n) * NSEC_PER_MSEC;
}

static int idle_pre(struct bthread *t)
{
	struct cancel_ctx *c = t->run->ctx;
	u32 i;

	for (i = 0; i < c->n; i++) {
		switch (c->sys) {
		case T_TEMPO:
		case T_TEMPO_COARSE:
		case T_TEMPO_DEFER:
		case T_TEMPO_DEFER_HELD: {
			struct tempo_timer *tt = (struct tempo_timer *)pool + i;

			tempo_timer_init(tt, noop_tempo, tsys_flags(c->sys));
			if (tempo_timer_arm(tt, idle_ns(i, c->n)))
				return -EIO;
			break;
		}
		case T_TIMER: {
			struct timer_list *tl = (struct timer_list *)pool + i;

			timer_setup(tl, noop_timer, 0);
			mod_timer(tl, jiffies + nsecs_to_jiffies(idle_ns(i, c->n)));
			break;
		}
		default:
			return -EINVAL;
		}
	}
	return 0;
}

static void idle_body(struct bthread *t)
{
	struct cancel_ctx *c = t->run->ctx;
	u32 i;

	for (i = 0; i < c->n && c->sys != T_TEMPO_DEFER_HELD; i++) {
		if (c->sys == T_TIMER)
			timer_delete((struct timer_list *)pool + i);
		else
			tempo_timer_cancel((struct tempo_timer *)pool + i);
	}
	t->ops = c->n;
}

static int cmd_idle(const char *sys_s, u32 n, bool end)
{
	struct cancel_ctx c = { .n = n };
	int sys = parse_sys(sys_s, tsys_name, T_NSYS), err;
	struct brun *r;
	u32 i;

	if ((sys != T_TEMPO && sys != T_TEMPO_COARSE && sys != T_TIMER &&
	     sys != T_TEMPO_DEFER && sys != T_TEMPO_DEFER_HELD) || n < 1 || n > MAX_TIMERS)
		return -EINVAL;
	c.sys = sys;
	if (end) {
		for (i = 0; i < n; i++) {
			if (sys == T_TIMER)
				timer_delete_sync((struct timer_list *)pool + i);
			else
				tempo_timer_cancel_sync((struct tempo_timer *)pool + i);
		}
		return 0;
	}
	r = brun_alloc();
	if (!r)
		return -ENOMEM;
	r->nthreads = 1;
	r->ctx = &c;
	r->pre = idle_pre;
	r->body = idle_body;
	err = brun_go(r);
	kfree(r);
	return err;
}

/* ---- coalesce: how many expiries timers spread over a second cost ---- */

#define COAL_DELAY_MS	20
#define COAL_SLACK_MS	10
#define COAL_FINE_SLACK_US	50

enum { C_TEMPO, C_TEMPO_SLACK, C_TIMER_ROUND, C_TEMPO_FINE_SLACK, C_HRTIMER, C_NSYS };
static const char *const csys_name[C_NSYS] = {
	"tempo", "tempo_slack", "timer_round", "tempo_fine_slack", "hrtimer"
};

struct coal_timer {
	union {
		struct tempo_timer	tt;
		struct timer_list	tl;
		struct hrtimer		h;
	};
	u64			deadline;	/* ns, CLOCK_MONOTONIC */
};

struct coal_ctx {
	struct coal_timer	*t;
	u32			n;
	int			sys;
	u64			t0, t_armed;
	atomic_t		left;
	atomic64_t		late_max;
	unsigned long		last_j;
	u32			expiry_jiffies;	/* callbacks of one CPU: serialised */
	struct completion	done;
};

static struct coal_ctx *coal;

static void coal_fired(struct coal_timer *ct)
{
	struct coal_ctx *c = coal;
	s64 late = ktime_get_ns() - ct->deadline, old = atomic64_read(&c->late_max);
	unsigned long j = jiffies;

	while (late > old && !atomic64_try_cmpxchg(&c->late_max, &old, late))
		;
	if (j != READ_ONCE(c->last_j)) {
		WRITE_ONCE(c->last_j, j);
		c->expiry_jiffies++;
	}
	if (atomic_dec_and_test(&c->left))
		complete(&c->done);
}

static void coal_tempo_fn(struct tempo_timer *t)
{
	coal_fired(container_of(t, struct coal_timer, tt));
}

static void coal_timer_fn(struct timer_list *t)
{
	coal_fired(container_of(t, struct coal_timer, tl));
}

static enum hrtimer_restart coal_hrtimer_fn(struct hrtimer *h)
{
	coal_fired(container_of(h, struct coal_timer, h));
	return HRTIMER_NORESTART;
}

static int coal_thread(void *arg)
{
	struct coal_ctx *c = arg;
	u64 delay = COAL_DELAY_MS * NSEC_PER_MSEC;
	u32 i = 0, k;

	c->t0 = ktime_get_ns();
	for (k = 0; k < 1000; k++) {
		ktime_t next = ns_to_ktime(c->t0 + (k + 1) * NSEC_PER_MSEC);

		for (; i < (u64)c->n * (k + 1) / 1000; i++) {
			struct coal_timer *ct = &c->t[i];

			ct->deadline = ktime_get_ns() + delay;
			if (c->sys == C_TIMER_ROUND)
				mod_timer(&ct->tl, round_jiffies(jiffies +
								 msecs_to_jiffies(COAL_DELAY_MS)));
			else if (c->sys == C_HRTIMER)
				hrtimer_start(&ct->h, ns_to_ktime(delay), HRTIMER_MODE_REL);
			else
				tempo_timer_arm(&ct->tt, delay);
		}
		set_current_state(TASK_UNINTERRUPTIBLE);
		schedule_hrtimeout(&next, HRTIMER_MODE_ABS);
	}
	c->t_armed = ktime_get_ns();
	return 0;
}

static int cmd_coalesce(const char *sys_s, u32 n)
{
	int sys = parse_sys(sys_s, csys_name, C_NSYS);
	struct task_struct *k;
	struct coal_ctx *c;
	char head[96], stat[128];
	u64 secs_ms;
	u32 i;

	if (sys < 0 || n < 1000 || n > MAX_TIMERS)
		return -EINVAL;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->t = kvcalloc(n, sizeof(*c->t), GFP_KERNEL);
	if (!c->t) {
		kfree(c);
		return -ENOMEM;
	}
	c->n = n;
	c->sys = sys;
	atomic_set(&c->left, n);
	init_completion(&c->done);
	for (i = 0; i < n; i++) {
		if (sys == C_TIMER_ROUND) {
			timer_setup(&c->t[i].tl, coal_timer_fn, 0);
		} else if (sys == C_HRTIMER) {
			hrtimer_setup(&c->t[i].h, coal_hrtimer_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
		} else {
			tempo_timer_init(&c->t[i].tt, coal_tempo_fn,
					 sys == C_TEMPO_FINE_SLACK ? TEMPO_TIMER_FINE : 0);
			if (sys == C_TEMPO_SLACK)
				tempo_timer_set_slack(&c->t[i].tt, COAL_SLACK_MS * NSEC_PER_MSEC);
			if (sys == C_TEMPO_FINE_SLACK)
				tempo_timer_set_slack(&c->t[i].tt,
						      COAL_FINE_SLACK_US * NSEC_PER_USEC);
		}
	}
	coal = c;
	k = kthread_create(coal_thread, c, "tempo_coal");
	if (IS_ERR(k)) {
		kvfree(c->t);
		kfree(c);
		return PTR_ERR(k);
	}
	kthread_bind(k, cpumask_first(cpu_online_mask));
	wake_up_process(k);
	wait_for_completion(&c->done);
	for (i = 0; i < n; i++) {
		if (sys == C_TIMER_ROUND)
			timer_delete_sync(&c->t[i].tl);
		else if (sys == C_HRTIMER)
			hrtimer_cancel(&c->t[i].h);
		else
			tempo_timer_cancel_sync(&c->t[i].tt);
	}
	secs_ms = max_t(u64, div_u64(c->t_armed - c->t0, NSEC_PER_MSEC), 1);
	snprintf(head, sizeof(head), "name=coalesce system=%s timers=%u slack_us=%u",
		 csys_name[sys], n, sys == C_TEMPO_SLACK ? COAL_SLACK_MS * 1000 :
		 sys == C_TEMPO_FINE_SLACK ? COAL_FINE_SLACK_US : 0);
	snprintf(stat, sizeof(stat), "%s stat=expiry_jiffies", head);
	emit_milli(stat, div64_u64((u64)c->expiry_jiffies * 1000 * 1000, secs_ms), "irqs/s");
	emit("%s stat=late_max value=%lld unit=us\n", head,
	     div_s64(atomic64_read(&c->late_max), NSEC_PER_USEC));
	coal = NULL;
	kvfree(c->t);
	kfree(c);
	return 0;
}

/* ---- parts: what one arm+cancel is made of, on this emulated CPU ---- */

static noinline u64 part_ktime(u32 n)
{
	u64 x = 0;
	u32 i;

	for (i = 0; i < n; i++)
		x += ktime_get_ns();
	return x;
}

static noinline u64 part_coarse(u32 n)
{
	u64 x = 0;
	u32 i;

	for (i = 0; i < n; i++)
		x += ktime_get_coarse_ns();
	return x;
}

static noinline u64 part_jiffies(u32 n)
{
	u64 x = 0;
	u32 i;

	for (i = 0; i < n; i++)
		x += READ_ONCE(jiffies);
	return x;
}

static noinline u64 part_irqsave(u32 n)
{
	unsigned long flags;
	u32 i;

	for (i = 0; i < n; i++) {
		local_irq_save(flags);
		local_irq_restore(flags);
	}
	return 0;
}

static noinline u64 part_cmpxchg(u32 n)
{
	static atomic_long_t word;
	u32 i;

	for (i = 0; i < n; i++) {
		long old = atomic_long_read(&word);

		atomic_long_try_cmpxchg(&word, &old, old + 1);
	}
	return 0;
}

static noinline u64 part_spinlock(u32 n)
{
	static DEFINE_SPINLOCK(lock);
	unsigned long flags;
	u32 i;

	for (i = 0; i < n; i++) {
		spin_lock_irqsave(&lock, flags);
		spin_unlock_irqrestore(&lock, flags);
	}
	return 0;
}

static noinline u64 part_div(u32 n)
{
	u64 x = 0;
	u32 i;

	for (i = 0; i < n; i++)
		x += div_u64(ktime_get_ns() + i, READ_ONCE(sample_ms) | 1);
	return x;
}

static int cmd_parts(void)
{
	static const struct { const char *name; u64 (*fn)(u32 n); } parts[] = {
		{ "ktime_get_ns", part_ktime },
		{ "ktime_get_coarse_ns", part_coarse },
		{ "jiffies", part_jiffies },
		{ "irqsave_restore", part_irqsave },
		{ "cmpxchg", part_cmpxchg },
		{ "spin_lock_irqsave", part_spinlock },
		{ "ktime_get_ns+div_u64", part_div },
	};
	const u32 n = 200000;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(parts); i++) {
		char head[96];
		u64 t0 = ktime_get_ns(), t1;

		parts[i].fn(n);
		t1 = ktime_get_ns();
		scnprintf(head, sizeof(head), "name=parts system=%s", parts[i].name);
		emit_milli(head, div64_u64((t1 - t0) * 1000, n), "ns/op");
	}
	return 0;
}

/* ---- debugfs ---- */

static ssize_t run_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	char buf[128], a[24], b[24], d[24];
	u32 n = 0;
	int err, got;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	got = sscanf(buf, "%23s %23s %u %23s", a, b, &n, d);
	if (got < 3)
		return -EINVAL;
	mutex_lock(&bench_lock);
	result_len = 0;
	result[0] = 0;
	if ((!strcmp(a, "cancel") || !strcmp(a, "postpone")) && got == 4)
		err = cmd_cancel(a, b, n, d);
	else if (!strcmp(a, "xcancel") || !strcmp(a, "xpostpone"))
		err = cmd_xcancel(a, b, n);
	else if (!strcmp(a, "idle") || !strcmp(a, "idle_end"))
		err = cmd_idle(b, n, !strcmp(a, "idle_end"));
	else if (!strcmp(a, "coalesce"))
		err = cmd_coalesce(b, n);
	else if (!strcmp(a, "hirq"))
		err = cmd_hirq(b, n);
	else if (!strcmp(a, "burst"))
		err = cmd_fire(b, n, true);
	else if (!strcmp(a, "spread"))
		err = cmd_fire(b, n, false);
	else if (!strcmp(a, "order"))
		err = cmd_order(b, n);
	else if (!strcmp(a, "dq"))
		err = cmd_dq(b, n, false);
	else if (!strcmp(a, "dq0"))
		err = cmd_dq(b, n, true);
	else if (!strcmp(a, "parts"))
		err = cmd_parts();
	else
		err = -EINVAL;
	if (err)
		emit("error=%d cmd=%s %s %u\n", err, a, b, n);
	mutex_unlock(&bench_lock);
	return err ? err : len;
}

static ssize_t run_read(struct file *file, char __user *ubuf, size_t len,
			loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&bench_lock);
	ret = simple_read_from_buffer(ubuf, len, ppos, result, result_len);
	mutex_unlock(&bench_lock);
	return ret;
}

static const struct file_operations run_fops = {
	.owner = THIS_MODULE,
	.write = run_write,
	.read = run_read,
	.llseek = default_llseek,
};

static struct dentry *dir;

static int __init tempo_bench_init(void)
{
	size_t sz = max3(sizeof(struct tempo_timer), sizeof(struct delayed_work),
			 max3(sizeof(struct timer_list), sizeof(struct timer_list64),
			      max(sizeof(struct hrtimer), sizeof(struct lazy_timer))));

	pool_bytes = sz * MAX_TIMERS;
	pool = vzalloc(pool_bytes);
	if (!pool)
		return -ENOMEM;
	dir = debugfs_create_dir("tempo_bench", NULL);
	debugfs_create_file("run", 0600, dir, NULL, &run_fops);
	pr_info("tempo_bench: ready (padata %s)\n", IS_ENABLED(CONFIG_PADATA) ? "yes" : "no");
	return 0;
}

static void __exit tempo_bench_exit(void)
{
	debugfs_remove_recursive(dir);
	vfree(pool);
}

module_init(tempo_bench_init);
module_exit(tempo_bench_exit);
MODULE_IMPORT_NS("TEMPO");
MODULE_DESCRIPTION("tempo benchmarks against delayed_work, timer_list, hrtimer, padata, DelayQueue");
MODULE_LICENSE("GPL");
