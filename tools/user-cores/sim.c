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
	struct timer_list	*tlists;
	unsigned long		tl_clk;		/* the next jiffy its timer_lists run for */
	bool			tl_clk_set;
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

/* ---- other clocks, clock sets, notifier chains ----------------------------- */

static s64 sim_offsets[TK_OFFS_MAX];
static struct notifier_block *sim_gtod_nb;

s64 tempo_sim_offset(enum tk_offsets offs)
{
	return __atomic_load_n(&sim_offsets[offs], __ATOMIC_ACQUIRE);
}

/* As timekeeping's update with TK_CLOCK_WAS_SET: the offset, then the notifier, irqs off. */
void tempo_sim_clock_set_offset(enum tk_offsets offs, s64 off)
{
	struct notifier_block *nb = __atomic_load_n(&sim_gtod_nb, __ATOMIC_ACQUIRE);
	unsigned long flags;

	local_irq_save(flags);
	__atomic_store_n(&sim_offsets[offs], off, __ATOMIC_RELEASE);
	if (nb)
		nb->notifier_call(nb, 1, NULL);
	local_irq_restore(flags);
}

int pvclock_gtod_register_notifier(struct notifier_block *nb)
{
	unsigned long flags;

	__atomic_store_n(&sim_gtod_nb, nb, __ATOMIC_RELEASE);
	/* The kernel calls it at once, "was set". */
	local_irq_save(flags);
	nb->notifier_call(nb, 1, NULL);
	local_irq_restore(flags);
	return 0;
}

int pvclock_gtod_unregister_notifier(struct notifier_block *nb)
{
	__atomic_compare_exchange_n(&sim_gtod_nb, &nb, NULL, false, __ATOMIC_ACQ_REL,
				    __ATOMIC_ACQUIRE);
	return 0;
}

int blocking_notifier_chain_register(struct blocking_notifier_head *h, struct notifier_block *nb)
{
	pthread_mutex_lock(&h->m);
	nb->next = h->head;
	h->head = nb;
	pthread_mutex_unlock(&h->m);
	return 0;
}

int blocking_notifier_chain_unregister(struct blocking_notifier_head *h, struct notifier_block *nb)
{
	struct notifier_block **p;
	int ret = -ENOENT;

	pthread_mutex_lock(&h->m);
	for (p = &h->head; *p; p = &(*p)->next) {
		if (*p == nb) {
			*p = nb->next;
			ret = 0;
			break;
		}
	}
	pthread_mutex_unlock(&h->m);
	return ret;
}

int blocking_notifier_call_chain(struct blocking_notifier_head *h, unsigned long action, void *v)
{
	struct notifier_block *nb;

	pthread_mutex_lock(&h->m);
	for (nb = h->head; nb; nb = nb->next)
		nb->notifier_call(nb, action, v);
	pthread_mutex_unlock(&h->m);
	return 0;
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

__thread unsigned int tempo_fail_nth;

void *tempo_pcpu_alloc(size_t size, size_t align)
{
	size_t off;
	unsigned int c;

	if (tempo_should_fail())
		return NULL;

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

static int (*hp_online)(unsigned int);
static int (*hp_offline)(unsigned int);

int cpuhp_setup_state(enum cpuhp_state st, const char *name,
		      int (*online)(unsigned int), int (*offline)(unsigned int))
{
	int saved = tempo_sim_this_cpu;
	unsigned int c;

	(void)st;
	(void)name;
	hp_online = online;
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
	hp_online = NULL;
	hp_offline = NULL;
}

/*
 * Take @cpu down as the kernel does for a CPUHP_AP_ONLINE_DYN state: the
 * teardown callback runs on @cpu while it is still online, then it leaves
 * cpu_online_mask. Deterministic mode only.
 */
void tempo_sim_cpu_down(unsigned int cpu)
{
	int saved = tempo_sim_this_cpu;

	tempo_sim_this_cpu = cpu;
	if (hp_offline)
		hp_offline(cpu);
	__atomic_store_n(&cpus[cpu].online, false, __ATOMIC_RELEASE);
	tempo_sim_this_cpu = saved;
}

/* Bring @cpu back: it joins cpu_online_mask, then the startup callback runs on it. */
void tempo_sim_cpu_up(unsigned int cpu)
{
	int saved = tempo_sim_this_cpu;

	tempo_sim_this_cpu = cpu;
	__atomic_store_n(&cpus[cpu].online, true, __ATOMIC_RELEASE);
	if (hp_online && hp_online(cpu))
		abort();
	tempo_sim_this_cpu = saved;
}

void cpuhp_remove_state(enum cpuhp_state st)
{
	int saved = tempo_sim_this_cpu;
	unsigned int c;

	(void)st;
	for (c = 0; c < nr_cpu_ids && hp_offline; c++) {
		if (!tempo_sim_cpu_online(c))
			continue;
		tempo_sim_this_cpu = c;
		hp_offline(c);
	}
	tempo_sim_this_cpu = saved;
	hp_online = NULL;
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

/* ---- timer_list ----------------------------------------------------------------- */

static void tlist_unqueue_locked(struct sim_cpu *s, struct timer_list *t)
{
	struct timer_list **pp;

	for (pp = &s->tlists; *pp; pp = &(*pp)->sim_next)
		if (*pp == t) {
			*pp = t->sim_next;
			break;
		}
	__atomic_store_n(&t->queued, false, __ATOMIC_RELAXED);
}

static void tlist_queue(struct timer_list *t, int cpu, unsigned long expires)
{
	struct sim_cpu *s;

	/* The cores never race two CPUs on one timer_list's queueing. */
	if (t->cpu >= 0) {
		s = &cpus[t->cpu];
		pthread_mutex_lock(&s->lock);
		if (t->queued)
			tlist_unqueue_locked(s, t);
		pthread_mutex_unlock(&s->lock);
	}
	s = &cpus[cpu];
	pthread_mutex_lock(&s->lock);
	t->expires = expires;
	t->sim_clk = s->tl_clk;	/* queued during the run of tl_clk - 1: the next */
	t->cpu = cpu;
	__atomic_store_n(&t->queued, true, __ATOMIC_RELAXED);
	t->sim_next = s->tlists;
	s->tlists = t;
	pthread_mutex_unlock(&s->lock);
}

void add_timer_on(struct timer_list *t, int cpu)
{
	if (WARN_ON(timer_pending(t)))
		return;
	tlist_queue(t, cpu, t->expires);
}

/* Pinned: on the calling CPU. */
int mod_timer(struct timer_list *t, unsigned long expires)
{
	int was = timer_pending(t);

	tlist_queue(t, tempo_sim_this_cpu, expires);
	return was;
}

int timer_delete_sync(struct timer_list *t)
{
	struct sim_cpu *s;
	int was;

	if (t->cpu < 0)
		return 0;
	s = &cpus[t->cpu];
	pthread_mutex_lock(&s->lock);
	was = t->queued;
	if (t->queued)
		tlist_unqueue_locked(s, t);
	pthread_mutex_unlock(&s->lock);
	return was;
}

unsigned int tempo_sim_run_timer_lists(void)
{
	struct sim_cpu *s = me();
	unsigned int n = 0;

	if (s->in_irq || s->irq_depth)
		return 0;
	if (!s->tl_clk_set) {
		s->tl_clk = jiffies;
		s->tl_clk_set = true;
	}
	/*
	 * As __run_timers(): jiffy by jiffy, the timers due at that jiffy; one
	 * queued meanwhile for that jiffy or before runs at the next one.
	 */
	while ((long)(jiffies - s->tl_clk) >= 0) {
		unsigned long clk, first = 0, now = jiffies;
		struct timer_list *q;
		bool any = false;

		/* Jump over jiffies with nothing due: the fake clock may leap by days. */
		pthread_mutex_lock(&s->lock);
		for (q = s->tlists; q; q = q->sim_next)
			if (!any || (long)(q->expires - first) < 0) {
				first = q->expires;
				any = true;
			}
		pthread_mutex_unlock(&s->lock);
		if (!any || (long)(first - now) > 0) {
			s->tl_clk = now + 1;
			break;
		}
		if ((long)(first - s->tl_clk) > 0)
			s->tl_clk = first;
		clk = s->tl_clk++;

		for (;;) {
			struct timer_list *t, *due = NULL;

			pthread_mutex_lock(&s->lock);
			for (t = s->tlists; t; t = t->sim_next)
				if ((long)(clk - t->expires) >= 0 && t->sim_clk != s->tl_clk) {
					due = t;
					break;
				}
			if (due)
				tlist_unqueue_locked(s, due);
			pthread_mutex_unlock(&s->lock);
			if (!due)
				break;
			n++;
			s->in_irq = true;	/* softirq: no nested run, interrupts on */
			due->function(due);
			s->in_irq = false;
		}
	}
	return n;
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

static unsigned int run_irq_works(void);

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
		if (csd->sim_free)
			free(csd);
		s->in_irq = false;
		s->irq_depth--;
		/* An irq_work the csd raised runs on the way out of the IPI (self-IPI). */
		run_irq_works();
	}
}

/* An IPI with a csd of its own, freed once it ran (sim_free). */
int smp_call_function_single(int cpu, smp_call_func_t func, void *info, int wait)
{
	call_single_data_t *csd;

	(void)wait;
	if (!tempo_sim_cpu_online(cpu))
		return -ENXIO;
	csd = calloc(1, sizeof(*csd));
	if (!csd)
		abort();
	INIT_CSD(csd, func, info);
	csd->sim_free = true;
	return smp_call_function_single_async(cpu, csd);
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
		k += tempo_sim_run_timer_lists();
		n += k;
	} while (k);
	return n;
}

static struct task_struct kworkers[NR_CPUS];

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
		{
			/* A work item runs as its CPU's kworker, not as the task it interrupted. */
			struct task_struct *saved = tempo_sim_current;

			tempo_sim_current = &kworkers[tempo_sim_this_cpu];
			kworkers[tempo_sim_this_cpu].flags = PF_KTHREAD;
			w->func(w);
			tempo_sim_current = saved;
		}
		s->in_work = false;
		__atomic_store_n(&s->running_work, NULL, __ATOMIC_RELEASE);
		if (threaded)
			tempo_sim_run_irqs();
	}
}

struct work_struct *tempo_sim_current_work(void)
{
	return __atomic_load_n(&me()->running_work, __ATOMIC_RELAXED);
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

/* ---- tasks and wait queues (kernel/sched/core.c, kernel/sched/wait.c) ------------------- */

static __thread struct task_struct thread_task;
__thread struct task_struct *tempo_sim_current;
static u64 lost_wakeup_ns = 20 * NSEC_PER_SEC;

void *tempo_sim_self(void)
{
	return &thread_task;
}

struct task_struct *tempo_sim_get_current(void)
{
	if (unlikely(!tempo_sim_current))
		tempo_sim_current = &thread_task;
	return tempo_sim_current;
}

bool kthread_should_stop(void)
{
	return __atomic_load_n(&current->should_stop, __ATOMIC_ACQUIRE);
}

int try_to_wake_up(struct task_struct *p, unsigned int state, int wake_flags)
{
	unsigned int s = __atomic_load_n(&p->__state, __ATOMIC_SEQ_CST);

	(void)wake_flags;
	do {
		if (!(s & state))
			return 0;
	} while (!__atomic_compare_exchange_n(&p->__state, &s, TASK_RUNNING, false,
					      __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
	return 1;
}

int wake_up_process(struct task_struct *p)
{
	return try_to_wake_up(p, TASK_NORMAL, 0);
}

void tempo_sim_signal(struct task_struct *p)
{
	__atomic_store_n(&p->sigpending, true, __ATOMIC_SEQ_CST);
	try_to_wake_up(p, TASK_INTERRUPTIBLE, 0);
}

void tempo_sim_kthread_stop(struct task_struct *p)
{
	__atomic_store_n(&p->should_stop, true, __ATOMIC_SEQ_CST);
	wake_up_process(p);
}

/*
 * Sleep until woken (or @expires passes): the CPU serves its own interrupts
 * and work items meanwhile. A sleep of lost_wakeup_ns of real time is
 * reported: in the kernel it would be a hung task.
 */
static int sim_sleep(ktime_t *expires)
{
	struct task_struct *p = current;
	u64 t0 = tempo_sim_real_ns();
	bool slept = false, warned = false;
	int ret = 0;

	for (;;) {
		unsigned int s = __atomic_load_n(&p->__state, __ATOMIC_ACQUIRE);

		if (s == TASK_RUNNING) {
			ret = -EINTR;
			break;
		}
		if ((s & TASK_INTERRUPTIBLE) && signal_pending(p)) {
			ret = -EINTR;
			break;
		}
		if (expires && ktime_get() >= *expires)
			break;
		slept = true;
		tempo_sim_wait_idle();
		if (!warned && tempo_sim_real_ns() - t0 > lost_wakeup_ns) {
			warned = true;
			tempo_user_warn(__FILE__, __LINE__, "task asleep for 20 s: lost wake-up?");
		}
	}
	__atomic_store_n(&p->__state, TASK_RUNNING, __ATOMIC_RELAXED);
	if (slept)
		p->nr_sleeps++;
	return ret;
}

void schedule(void)
{
	sim_sleep(NULL);
}

long schedule_timeout(long timeout)
{
	ktime_t end = ktime_get() + (u64)timeout * TICK_NSEC, now;

	sim_sleep(&end);
	now = ktime_get();
	return now >= end ? 0 : (long)((end - now) / TICK_NSEC) + 1;
}

int schedule_hrtimeout(ktime_t *expires, enum hrtimer_mode mode)
{
	ktime_t end;

	if (!expires) {
		schedule();
		return -EINTR;
	}
	end = mode == HRTIMER_MODE_REL ? ktime_get() + *expires : *expires;
	return sim_sleep(&end);
}

int default_wake_function(struct wait_queue_entry *e, unsigned int mode, int flags, void *key)
{
	(void)key;
	return try_to_wake_up(e->private, mode, flags);
}

/* list_del_init_careful(): the sleeper may test list_empty_careful() unlocked. */
static void list_del_init_careful(struct list_head *e)
{
	__list_del(e->prev, e->next);
	WRITE_ONCE(e->prev, e);
	__atomic_store_n(&e->next, e, __ATOMIC_RELEASE);
}

int autoremove_wake_function(struct wait_queue_entry *e, unsigned int mode, int flags, void *key)
{
	int ret = default_wake_function(e, mode, flags, key);

	if (ret)
		list_del_init_careful(&e->entry);
	return ret;
}

static int wake_up_common(struct wait_queue_head *w, unsigned int mode, int nr_exclusive,
			  int wake_flags, void *key)
{
	struct wait_queue_entry *curr, *next;

	lockdep_assert_held(&w->lock);
	list_for_each_entry_safe(curr, next, &w->head, entry) {
		unsigned int flags = curr->flags;
		int ret = curr->func(curr, mode, wake_flags, key);

		if (ret < 0)
			break;
		if (ret && (flags & WQ_FLAG_EXCLUSIVE) && !--nr_exclusive)
			break;
	}
	return nr_exclusive;
}

int __wake_up(struct wait_queue_head *w, unsigned int mode, int nr_exclusive, void *key)
{
	unsigned long flags;
	int r;

	spin_lock_irqsave(&w->lock, flags);
	r = wake_up_common(w, mode, nr_exclusive, 0, key);
	spin_unlock_irqrestore(&w->lock, flags);
	return nr_exclusive - r;
}

void __wake_up_locked_key(struct wait_queue_head *w, unsigned int mode, void *key)
{
	wake_up_common(w, mode, 1, 0, key);
}

void __wake_up_locked(struct wait_queue_head *w, unsigned int mode, int nr)
{
	wake_up_common(w, mode, nr, 0, NULL);
}

void add_wait_queue(struct wait_queue_head *w, struct wait_queue_entry *e)
{
	unsigned long flags;

	e->flags &= ~WQ_FLAG_EXCLUSIVE;
	spin_lock_irqsave(&w->lock, flags);
	__add_wait_queue(w, e);
	spin_unlock_irqrestore(&w->lock, flags);
}

void add_wait_queue_exclusive(struct wait_queue_head *w, struct wait_queue_entry *e)
{
	unsigned long flags;

	e->flags |= WQ_FLAG_EXCLUSIVE;
	spin_lock_irqsave(&w->lock, flags);
	__add_wait_queue_entry_tail(w, e);
	spin_unlock_irqrestore(&w->lock, flags);
}

void remove_wait_queue(struct wait_queue_head *w, struct wait_queue_entry *e)
{
	unsigned long flags;

	spin_lock_irqsave(&w->lock, flags);
	__remove_wait_queue(w, e);
	spin_unlock_irqrestore(&w->lock, flags);
}

void prepare_to_wait(struct wait_queue_head *w, struct wait_queue_entry *e, int state)
{
	unsigned long flags;

	e->flags &= ~WQ_FLAG_EXCLUSIVE;
	spin_lock_irqsave(&w->lock, flags);
	if (list_empty(&e->entry))
		__add_wait_queue(w, e);
	set_current_state(state);
	spin_unlock_irqrestore(&w->lock, flags);
}

bool prepare_to_wait_exclusive(struct wait_queue_head *w, struct wait_queue_entry *e, int state)
{
	unsigned long flags;
	bool was_empty = false;

	e->flags |= WQ_FLAG_EXCLUSIVE;
	spin_lock_irqsave(&w->lock, flags);
	if (list_empty(&e->entry)) {
		was_empty = list_empty(&w->head);
		__add_wait_queue_entry_tail(w, e);
	}
	set_current_state(state);
	spin_unlock_irqrestore(&w->lock, flags);
	return was_empty;
}

long prepare_to_wait_event(struct wait_queue_head *w, struct wait_queue_entry *e, int state)
{
	unsigned long flags;
	long ret = 0;

	spin_lock_irqsave(&w->lock, flags);
	if (signal_pending_state(state, current)) {
		list_del_init(&e->entry);
		ret = -ERESTARTSYS;
	} else {
		if (list_empty(&e->entry)) {
			if (e->flags & WQ_FLAG_EXCLUSIVE)
				__add_wait_queue_entry_tail(w, e);
			else
				__add_wait_queue(w, e);
		}
		set_current_state(state);
	}
	spin_unlock_irqrestore(&w->lock, flags);
	return ret;
}

void finish_wait(struct wait_queue_head *w, struct wait_queue_entry *e)
{
	unsigned long flags;

	__set_current_state(TASK_RUNNING);
	/* list_empty_careful(): pairs with list_del_init_careful(). */
	if (__atomic_load_n(&e->entry.next, __ATOMIC_ACQUIRE) != &e->entry) {
		spin_lock_irqsave(&w->lock, flags);
		list_del_init(&e->entry);
		spin_unlock_irqrestore(&w->lock, flags);
	}
}
