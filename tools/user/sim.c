// SPDX-License-Identifier: GPL-2.0
/*
 * The simulated machine: see sim.h. Kernel APIs the cores call (hrtimers,
 * IPIs, irq_work, workqueues, hotplug, per-CPU memory, the clock) are
 * implemented here on top of per-CPU event queues.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/types.h>
#include "sim.h"

unsigned int nr_cpu_ids = 1;
__thread int tempo_sim_this_cpu;
unsigned long tempo_user_warnings;
static const struct cpumask online_mask_dummy, possible_mask_dummy;
const struct cpumask *const cpu_online_mask = &online_mask_dummy;
const struct cpumask *const cpu_possible_mask = &possible_mask_dummy;
struct workqueue_struct *system_wq;

/* One variable in the section so that __start/__stop_tempo_pcpu exist. */
DEFINE_PER_CPU(int, tempo_sim_pcpu_anchor);

struct sim_cpu {
	pthread_mutex_t		lock;		/* the queues below */
	struct hrtimer		*hrtimers;
	call_single_data_t	*csds, **csd_tail;
	struct irq_work		*irq_works;
	struct work_struct	*works, **work_tail;
	struct work_struct	*running_work;	/* READ_ONCE from others */
	int			irq_depth;	/* own thread only */
	bool			in_irq, in_work;
	bool			online;
} __attribute__((aligned(64)));

static struct sim_cpu cpus[NR_CPUS];
static bool threaded;
static bool fake_clock;
static u64 fake_ns;
static u64 real_base;

static struct sim_cpu *me(void)
{
	return &cpus[tempo_sim_this_cpu];
}

void tempo_user_warn(const char *file, int line, const char *cond)
{
	__atomic_fetch_add(&tempo_user_warnings, 1, __ATOMIC_RELAXED);
	fprintf(stderr, "WARNING: %s:%d: %s (cpu %d)\n", file, line, cond, tempo_sim_this_cpu);
}

/* ---- clock ---------------------------------------------------------------- */

u64 tempo_sim_real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

u64 ktime_get_ns(void)
{
	if (fake_clock)
		return __atomic_load_n(&fake_ns, __ATOMIC_ACQUIRE);
	return tempo_sim_real_ns() - real_base;
}

void tempo_sim_clock_set(u64 ns)
{
	__atomic_store_n(&fake_ns, ns, __ATOMIC_RELEASE);
}

void tempo_sim_clock_advance(u64 ns)
{
	__atomic_fetch_add(&fake_ns, ns, __ATOMIC_ACQ_REL);
}

/* ---- per-CPU arena ------------------------------------------------------- */

char *tempo_pcpu_arena;
static size_t pcpu_used;
static pthread_mutex_t pcpu_lock = PTHREAD_MUTEX_INITIALIZER;

static void pcpu_arena_init(void)
{
	size_t statics = __stop_tempo_pcpu - __start_tempo_pcpu;

	if (tempo_pcpu_arena)
		return;
	tempo_pcpu_arena = mmap(NULL, NR_CPUS * TEMPO_PCPU_UNIT, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (tempo_pcpu_arena == MAP_FAILED)
		abort();
	pcpu_used = (statics + 63) & ~63UL;
}

/* A stack allocator: frees of the latest block roll back (init/exit pairs). */
struct pcpu_block { size_t off, end; };
static struct pcpu_block pcpu_blocks[256];
static unsigned int pcpu_nblocks;

void *tempo_pcpu_alloc(size_t size, size_t align)
{
	size_t off;
	unsigned int c;

	pthread_mutex_lock(&pcpu_lock);
	pcpu_arena_init();
	if (align < 64)
		align = 64;
	off = (pcpu_used + align - 1) & ~(align - 1);
	if (off + size > TEMPO_PCPU_UNIT || pcpu_nblocks == ARRAY_SIZE(pcpu_blocks))
		abort();
	pcpu_blocks[pcpu_nblocks++] = (struct pcpu_block){ off, off + size };
	pcpu_used = off + size;
	for (c = 0; c < NR_CPUS; c++)
		memset(tempo_pcpu_arena + c * TEMPO_PCPU_UNIT + off, 0, size);
	pthread_mutex_unlock(&pcpu_lock);
	return tempo_pcpu_arena + off;
}

void tempo_pcpu_free(void *p)
{
	size_t off = (char *)p - tempo_pcpu_arena;
	unsigned int i;

	pthread_mutex_lock(&pcpu_lock);
	for (i = 0; i < pcpu_nblocks; i++)
		if (pcpu_blocks[i].off == off)
			pcpu_blocks[i].end = 0;	/* mark free */
	while (pcpu_nblocks && !pcpu_blocks[pcpu_nblocks - 1].end)
		pcpu_nblocks--;
	pcpu_used = pcpu_nblocks ? pcpu_blocks[pcpu_nblocks - 1].end :
		    (((size_t)(__stop_tempo_pcpu - __start_tempo_pcpu) + 63) & ~63UL);
	pthread_mutex_unlock(&pcpu_lock);
}

/* ---- CPUs -------------------------------------------------------------------- */

void tempo_sim_init(unsigned int ncpus, bool thr, bool fake)
{
	unsigned int c;

	pcpu_arena_init();
	nr_cpu_ids = ncpus;
	threaded = thr;
	fake_clock = fake;
	fake_ns = 0;
	real_base = tempo_sim_real_ns();
	for (c = 0; c < NR_CPUS; c++) {
		struct sim_cpu *s = &cpus[c];

		pthread_mutex_init(&s->lock, NULL);
		s->hrtimers = NULL;
		s->csds = NULL;
		s->csd_tail = &s->csds;
		s->irq_works = NULL;
		s->works = NULL;
		s->work_tail = &s->works;
		s->running_work = NULL;
		s->irq_depth = 0;
		s->in_irq = s->in_work = false;
		s->online = c < ncpus;
	}
	tempo_sim_this_cpu = 0;
}

void tempo_sim_set_threaded(bool thr)
{
	threaded = thr;
}

void tempo_sim_set_cpu(unsigned int cpu)
{
	tempo_sim_this_cpu = cpu;
}

bool tempo_sim_cpu_online(unsigned int cpu)
{
	return cpu < nr_cpu_ids && __atomic_load_n(&cpus[cpu].online, __ATOMIC_ACQUIRE);
}

unsigned int cpumask_next(int n, const struct cpumask *m)
{
	unsigned int c;

	for (c = n + 1; c < nr_cpu_ids; c++)
		if (m == cpu_possible_mask || tempo_sim_cpu_online(c))
			return c;
	return nr_cpu_ids;
}

unsigned int cpumask_first(const struct cpumask *m)
{
	return cpumask_next(-1, m);
}

unsigned int cpumask_any_but(const struct cpumask *m, unsigned int cpu)
{
	unsigned int c;

	for (c = 0; c < nr_cpu_ids; c++)
		if (c != cpu && (m == cpu_possible_mask || tempo_sim_cpu_online(c)))
			return c;
	return nr_cpu_ids;
}

bool tempo_sim_irqs_disabled(void)
{
	return me()->irq_depth > 0;
}

void tempo_sim_irq_disable(void)
{
	me()->irq_depth++;
}

void tempo_sim_irq_enable(void)
{
	struct sim_cpu *s = me();

	if (--s->irq_depth == 0 && threaded && !s->in_irq)
		tempo_sim_run_irqs();
}

/* ---- hotplug ----------------------------------------------------------------- */

static int (*hp_offline)(unsigned int);

int cpuhp_setup_state(enum cpuhp_state st, const char *name,
		      int (*online)(unsigned int), int (*offline)(unsigned int))
{
	int saved = tempo_sim_this_cpu;
	unsigned int c;

	(void)st;
	(void)name;
	hp_offline = offline;
	for (c = 0; c < nr_cpu_ids; c++) {
		tempo_sim_this_cpu = c;
		if (online && online(c))
			abort();
	}
	tempo_sim_this_cpu = saved;
	return CPUHP_AP_ONLINE_DYN;
}

void cpuhp_remove_state_nocalls(enum cpuhp_state st)
{
	(void)st;
	hp_offline = NULL;
}

void cpuhp_remove_state(enum cpuhp_state st)
{
	int saved = tempo_sim_this_cpu;
	unsigned int c;

	(void)st;
	for (c = 0; c < nr_cpu_ids && hp_offline; c++) {
		tempo_sim_this_cpu = c;
		hp_offline(c);
	}
	tempo_sim_this_cpu = saved;
	hp_offline = NULL;
}

/* ---- hrtimers ------------------------------------------------------------------ */

void hrtimer_init(struct hrtimer *t, int clock, enum hrtimer_mode mode)
{
	(void)clock;
	(void)mode;
	memset(t, 0, sizeof(*t));
	t->cpu = -1;
}

static void hrtimer_unqueue_locked(struct sim_cpu *s, struct hrtimer *t)
{
	struct hrtimer **pp;

	for (pp = &s->hrtimers; *pp; pp = &(*pp)->sim_next)
		if (*pp == t) {
			*pp = t->sim_next;
			break;
		}
	t->queued = false;
}

/* Pinned: an hrtimer is queued on the CPU that starts it. */
void hrtimer_start(struct hrtimer *t, ktime_t when, enum hrtimer_mode mode)
{
	struct sim_cpu *s = me();

	(void)mode;
	pthread_mutex_lock(&s->lock);
	if (t->queued && t->cpu >= 0 && &cpus[t->cpu] != s)
		abort();	/* the cores only restart hrtimers on their own CPU */
	if (t->queued)
		hrtimer_unqueue_locked(s, t);
	t->expires = when;
	t->cpu = tempo_sim_this_cpu;
	t->queued = true;
	t->sim_next = s->hrtimers;
	s->hrtimers = t;
	pthread_mutex_unlock(&s->lock);
}

int hrtimer_cancel(struct hrtimer *t)
{
	struct sim_cpu *s;
	int was;

	if (t->cpu < 0)
		return 0;
	s = &cpus[t->cpu];
	pthread_mutex_lock(&s->lock);
	was = t->queued;
	if (t->queued)
		hrtimer_unqueue_locked(s, t);
	pthread_mutex_unlock(&s->lock);
	return was;
}

unsigned int tempo_sim_run_hrtimers(void)
{
	struct sim_cpu *s = me();
	unsigned int n = 0;

	for (;;) {
		struct hrtimer *t, *due = NULL;
		u64 now = ktime_get_ns();

		pthread_mutex_lock(&s->lock);
		for (t = s->hrtimers; t; t = t->sim_next)
			if (t->expires <= now && (!due || t->expires < due->expires))
				due = t;
		if (due)
			hrtimer_unqueue_locked(s, due);
		pthread_mutex_unlock(&s->lock);
		if (!due)
			return n;
		n++;
		s->irq_depth++;
		s->in_irq = true;
		if (due->function(due) == HRTIMER_RESTART) {
			pthread_mutex_lock(&s->lock);
			if (!due->queued) {
				due->queued = true;
				due->sim_next = s->hrtimers;
				s->hrtimers = due;
			}
			pthread_mutex_unlock(&s->lock);
		}
		s->in_irq = false;
		s->irq_depth--;
	}
}

u64 tempo_sim_next_hrtimer(void)
{
	u64 next = U64_MAX;
	unsigned int c;

	for (c = 0; c < nr_cpu_ids; c++) {
		struct hrtimer *t;

		pthread_mutex_lock(&cpus[c].lock);
		for (t = cpus[c].hrtimers; t; t = t->sim_next)
			if (t->expires < next)
				next = t->expires;
		pthread_mutex_unlock(&cpus[c].lock);
	}
	return next;
}

/* ---- IPIs and irq_work ------------------------------------------------------------- */

int smp_call_function_single_async(int cpu, call_single_data_t *csd)
{
	struct sim_cpu *s = &cpus[cpu];
	int zero = 0;

	/* csd_lock(): a csd still queued is refused, as in kernel/smp.c. */
	if (!__atomic_compare_exchange_n(&csd->locked.counter, &zero, 1, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return -EBUSY;
	pthread_mutex_lock(&s->lock);
	csd->sim_next = NULL;
	*s->csd_tail = csd;
	s->csd_tail = &csd->sim_next;
	pthread_mutex_unlock(&s->lock);
	return 0;
}

unsigned int tempo_sim_pending_csds(unsigned int cpu)
{
	call_single_data_t *c;
	unsigned int n = 0;

	pthread_mutex_lock(&cpus[cpu].lock);
	for (c = cpus[cpu].csds; c; c = c->sim_next)
		n++;
	pthread_mutex_unlock(&cpus[cpu].lock);
	return n;
}

unsigned int tempo_sim_run_csds(void)
{
	struct sim_cpu *s = me();
	unsigned int n = 0;

	for (;;) {
		call_single_data_t *csd;

		pthread_mutex_lock(&s->lock);
		csd = s->csds;
		if (csd) {
			s->csds = csd->sim_next;
			if (!s->csds)
				s->csd_tail = &s->csds;
		}
		pthread_mutex_unlock(&s->lock);
		if (!csd)
			return n;
		n++;
		s->irq_depth++;
		s->in_irq = true;
		/* Async csds are unlocked just before their function runs. */
		__atomic_store_n(&csd->locked.counter, 0, __ATOMIC_RELEASE);
		csd->func(csd->info);
		s->in_irq = false;
		s->irq_depth--;
	}
}

void on_each_cpu(smp_call_func_t f, void *info, int wait)
{
	int saved = tempo_sim_this_cpu;
	unsigned int c;

	(void)wait;
	for (c = 0; c < nr_cpu_ids; c++) {
		tempo_sim_this_cpu = c;
		f(info);
	}
	tempo_sim_this_cpu = saved;
}

void init_irq_work(struct irq_work *w, void (*func)(struct irq_work *))
{
	w->func = func;
	atomic_set(&w->pending, 0);
	w->sim_next = NULL;
}

bool irq_work_queue(struct irq_work *w)
{
	struct sim_cpu *s = me();

	if (atomic_xchg(&w->pending, 1))
		return false;
	pthread_mutex_lock(&s->lock);
	w->sim_next = s->irq_works;
	s->irq_works = w;
	pthread_mutex_unlock(&s->lock);
	return true;
}

void irq_work_sync(struct irq_work *w)
{
	(void)w;
}

static unsigned int run_irq_works(void)
{
	struct sim_cpu *s = me();
	unsigned int n = 0;

	for (;;) {
		struct irq_work *w;

		pthread_mutex_lock(&s->lock);
		w = s->irq_works;
		if (w)
			s->irq_works = w->sim_next;
		pthread_mutex_unlock(&s->lock);
		if (!w)
			return n;
		n++;
		s->irq_depth++;
		s->in_irq = true;
		atomic_set_release(&w->pending, 0);
		w->func(w);
		s->in_irq = false;
		s->irq_depth--;
	}
}

unsigned int tempo_sim_run_irqs(void)
{
	struct sim_cpu *s = me();
	unsigned int n = 0, k;

	if (s->in_irq || s->irq_depth)
		return 0;
	do {
		k = tempo_sim_run_csds();
		k += run_irq_works();
		k += tempo_sim_run_hrtimers();
		n += k;
	} while (k);
	return n;
}

/* ---- workqueues ----------------------------------------------------------------------- */

static struct workqueue_struct the_wq;

struct workqueue_struct *alloc_workqueue(const char *fmt, unsigned int flags, int max, ...)
{
	(void)fmt;
	(void)flags;
	(void)max;
	return &the_wq;
}

void destroy_workqueue(struct workqueue_struct *wq)
{
	(void)wq;
}

bool queue_work_on(int cpu, struct workqueue_struct *wq, struct work_struct *w)
{
	struct sim_cpu *s;

	(void)wq;
	if (atomic_xchg(&w->pending, 1))
		return false;
	if (cpu < 0 || !tempo_sim_cpu_online(cpu))
		cpu = tempo_sim_this_cpu;
	s = &cpus[cpu];
	pthread_mutex_lock(&s->lock);
	w->cpu = cpu;
	w->sim_next = NULL;
	*s->work_tail = w;
	s->work_tail = &w->sim_next;
	pthread_mutex_unlock(&s->lock);
	return true;
}

unsigned int tempo_sim_run_works(void)
{
	struct sim_cpu *s = me();
	unsigned int n = 0;

	if (s->in_work || s->in_irq || s->irq_depth)
		return 0;
	for (;;) {
		struct work_struct *w;

		pthread_mutex_lock(&s->lock);
		w = s->works;
		if (w) {
			s->works = w->sim_next;
			if (!s->works)
				s->work_tail = &s->works;
			__atomic_store_n(&s->running_work, w, __ATOMIC_RELEASE);
		}
		pthread_mutex_unlock(&s->lock);
		if (!w)
			return n;
		n++;
		/* As in the kernel, PENDING clears before the function runs. */
		atomic_set_release(&w->pending, 0);
		s->in_work = true;
		w->func(w);
		s->in_work = false;
		__atomic_store_n(&s->running_work, NULL, __ATOMIC_RELEASE);
		if (threaded)
			tempo_sim_run_irqs();
	}
}

static bool work_busy(struct work_struct *w)
{
	return atomic_read_acquire(&w->pending) ||
	       (w->cpu >= 0 && __atomic_load_n(&cpus[w->cpu].running_work, __ATOMIC_ACQUIRE) == w);
}

bool flush_work(struct work_struct *w)
{
	bool was = work_busy(w);

	while (work_busy(w))
		tempo_sim_wait_idle();
	return was;
}

bool cancel_work_sync(struct work_struct *w)
{
	bool was = false;

	if (w->cpu >= 0) {
		struct sim_cpu *s = &cpus[w->cpu];
		struct work_struct **pp;

		pthread_mutex_lock(&s->lock);
		for (pp = &s->works; *pp; pp = &(*pp)->sim_next)
			if (*pp == w) {
				*pp = w->sim_next;
				if (!*pp)
					s->work_tail = pp;
				atomic_set(&w->pending, 0);
				was = true;
				break;
			}
		pthread_mutex_unlock(&s->lock);
	}
	flush_work(w);
	return was;
}

void flush_workqueue(struct workqueue_struct *wq)
{
	(void)wq;
	if (!threaded)
		tempo_sim_run_all();
}

/* ---- sleeping ------------------------------------------------------------------------------ */

unsigned int tempo_sim_run_all(void)
{
	int saved = tempo_sim_this_cpu;
	unsigned int c, n = 0, k;

	do {
		k = 0;
		for (c = 0; c < nr_cpu_ids; c++) {
			tempo_sim_this_cpu = c;
			k += tempo_sim_run_irqs();
			k += tempo_sim_run_works();
		}
		n += k;
	} while (k);
	tempo_sim_this_cpu = saved;
	return n;
}

/*
 * A sleeper's CPU goes on serving its own interrupts (and, outside a work
 * item, its workqueue), as a CPU whose task sleeps does. In the
 * deterministic mode every CPU is served, else the condition could never
 * become true.
 */
void tempo_sim_wait_idle(void)
{
	static __thread unsigned long spins;

	if (!threaded) {
		if (!tempo_sim_run_all() && ++spins > 1000000) {
			fprintf(stderr, "sim: wait that nothing can satisfy\n");
			abort();
		}
		return;
	}
	if (!me()->irq_depth) {
		tempo_sim_run_irqs();
		tempo_sim_run_works();
	}
	if (++spins & 15)
		sched_yield();
	else
		usleep(20);
}

void tempo_sim_wake_all(void)
{
	/* Sleepers poll: nothing to do. */
}
