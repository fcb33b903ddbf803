// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: timer wheel: hotplug
 *
 * The bases' life: tempo_wheel_init() sets the loaded wheel's parameters
 * (kmod/wheel_base.h) and each possible CPU's base, sealed and offline;
 * tempo_wheel_exit() tears them down once no timer is pending. Between them,
 * a CPU hotplug state (CPUHP_AP_ONLINE_DYN) takes each CPU's base on and
 * off line, on that CPU:
 *
 * - online: both wheels set to the current tick, online before the inboxes
 *   are unsealed, so the kick of a first message is served.
 * - offline: the base stops accepting timers (online false: arms and
 *   settles send elsewhere), its hrtimer is cancelled, then with interrupts
 *   off it seals both inboxes (inbox_seal(), P5) and evacuates: every message
 *   the seal took and every timer on its wheels and its expired list is
 *   settled, which sends each one still held to an online CPU. A push that
 *   meets the seal drops or moves its message (timer_send()). The expired
 *   list goes too: a dying CPU's dispatcher may be held off for long by the
 *   hotplug thread.
 * - the deferrable side (DEFERRABLE) is sealed and evacuated with the rest;
 *   the timers land in the new CPU's dwheel. The carrier and dkick are
 *   deleted; a dkick queued by a push that beat the seal is migrated by the
 *   timer code, finds itself on another CPU, and re-queues itself on its
 *   base if that base is online again with messages waiting.
 *
 * Also here: what the tests and the debugfs view read of the bases, racy
 * snapshots of counters each written by its own CPU.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/timer.h>
#include <linux/workqueue.h>

#include <tempo/timer.h>

#include "compat.h"
#include "internal.h"
#include "wheel.h"
#include "wheel_base.h"

static enum cpuhp_state hp_state;

/* A far slot's granule is at least this long (LAZY, kmod/wheel.c). */
#define LAZY_GRAN_NS	(64 * NSEC_PER_MSEC)

/* ---------------------------------------------------------------------- */
/* CPU hotplug (HOTPLUG).                                                   */

static void base_evacuate(struct tempo_base *base, struct llist_node *msgs);

static int base_cpu_online(unsigned int cpu)
{
	struct tempo_base *base = per_cpu_ptr(bases, cpu);

	local_irq_disable();
	/*
	 * base_cpu_offline() left the lists empty and nothing links on an
	 * offline base. Should that ever break, forward what is there rather
	 * than lose it with the re-initialisation below.
	 */
	if (WARN_ONCE(!tempo_wheel_empty(&base->wheel) || !tempo_wheel_empty(&base->dwheel) ||
		      !list_empty(&base->expired),
		      "tempo: cpu %u came online with timers on its wheel\n", cpu))
		base_evacuate(base, NULL);
	tempo_wheel_setup(&base->wheel, wheel_depth, now_tick());
	tempo_wheel_setup(&base->dwheel, wheel_depth, now_tick());
	base->programmed = TEMPO_NEVER;
	base->dprogrammed = TEMPO_NEVER;
	/* Online before unsealed: a kick for the first message must be served. */
	WRITE_ONCE(base->online, true);
	cmpxchg(&base->inbox.first, INBOX_SEALED, NULL);
	cmpxchg(&base->dinbox.first, INBOX_SEALED, NULL);
	local_irq_enable();
	return 0;
}

/* Move every timer of the (offline, sealed) base elsewhere. Irqs off. */
static void base_evacuate(struct tempo_base *base, struct llist_node *msgs)
{
	struct tempo_timer *t, *next;
	u64 now = ktime_get_ns();
	unsigned int idx;

	llist_for_each_entry_safe(t, next, msgs, msg)
		base_settle(base, t, SETTLE_POPPED, now);
	for (idx = 0; idx < TEMPO_WHEEL_VECTORS; idx++) {
		list_for_each_entry_safe(t, next, &base->wheel.vectors[idx], entry)
			base_settle(base, t, 0, now);
		list_for_each_entry_safe(t, next, &base->dwheel.vectors[idx], entry)
			base_settle(base, t, 0, now);
	}
	list_for_each_entry_safe(t, next, &base->expired, entry)
		base_settle(base, t, 0, now);
}

static int base_cpu_offline(unsigned int cpu)
{
	struct tempo_base *base = per_cpu_ptr(bases, cpu);

	local_irq_disable();
	WRITE_ONCE(base->online, false);
	local_irq_enable();
	hrtimer_cancel(&base->hrtimer);

	/*
	 * Everything goes, the expired list included: the dispatcher of a
	 * dying CPU may be held off for a long time by the hotplug thread, and
	 * a due timer runs sooner on the CPU it is forwarded to. The dispatcher
	 * takes timers off the expired list with interrupts off on this CPU,
	 * as we do here, so each timer is either already claimed or moved.
	 */
	local_irq_disable();
	base->programmed = TEMPO_NEVER;
	base_evacuate(base, inbox_seal(&base->inbox));
	base_evacuate(base, inbox_seal(&base->dinbox));
	local_irq_enable();

	/*
	 * Nothing re-arms the carrier on an offline base. A dkick queued by a
	 * push that beat the seal has nothing left to drain: drop it, and let
	 * the first push after base_cpu_online() queue it again.
	 */
	timer_delete_sync(&base->carrier);
	base->dprogrammed = TEMPO_NEVER;
	timer_delete_sync(&base->dkick);
	atomic_set(&base->dkick_armed, 0);

	/* Wait for a callback still running here; the list is empty now. */
	flush_work(&base->work);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* What the tests and the debugfs view read of the bases.                */

/*
 * A counter written by its own CPU only, read by another for statistics: the
 * race is intended, a snapshot is all a reader gets.
 */
static inline u64 stat_read(const u64 *counter)
{
	return data_race(*counter);	/* intended, see above */
}

/**
 * tempo_wheel_cpu_stats - a snapshot of one CPU's counters
 * @cpu: a possible CPU
 * @s: receives its counters, each read once (they are written by their CPU
 *	only: the sum of several is not of one instant)
 * @online: receives whether its base takes timers
 */
void tempo_wheel_cpu_stats(unsigned int cpu, struct tempo_wheel_stats *s, bool *online)
{
	const struct tempo_base *base = per_cpu_ptr(bases, cpu);
	const u64 *from = (const u64 *)&base->stats;
	u64 *to = (u64 *)s;
	unsigned int i;

	BUILD_BUG_ON(sizeof(*s) % sizeof(u64));
	for (i = 0; i < sizeof(*s) / sizeof(u64); i++)
		to[i] = stat_read(&from[i]);
	*online = READ_ONCE(base->online);
}
EXPORT_SYMBOL_IF_KUNIT(tempo_wheel_cpu_stats);

/**
 * tempo_wheel_geometry - the loaded wheel's parameters
 * @tick: receives tick_ns
 * @depth: receives the number of levels
 * @lazy_level: receives the first level of far slots (LAZY)
 * @jiffies_base: receives the calibrated start of jiffy 0 (COARSE), in ns
 */
void tempo_wheel_geometry(u32 *tick, unsigned int *depth, unsigned int *lazy_level,
			  s64 *jiffies_base)
{
	*tick = tick_ns;
	*depth = wheel_depth;
	*lazy_level = lazy_idx / (unsigned int)TEMPO_LVL_SIZE;
	*jiffies_base = jiffies_base_ns;
}

/**
 * tempo_wheel_cpu_quiet - whether a CPU's wheel holds nothing and ticks not
 * @cpu: the CPU
 * @hrtimer_armed: set to whether its hrtimer is armed
 *
 * For the KUnit suite: a racy snapshot of another CPU's owner-only state.
 * Return: true if the wheel, the expired list and the inbox are empty.
 */
VISIBLE_IF_KUNIT bool __maybe_unused tempo_wheel_cpu_quiet(unsigned int cpu, bool *hrtimer_armed)
{
	struct tempo_base *base = per_cpu_ptr(bases, cpu);
	struct llist_node *first = READ_ONCE(base->inbox.first);
	struct llist_node *dfirst = READ_ONCE(base->dinbox.first);

	*hrtimer_armed = hrtimer_active(&base->hrtimer);
	/* Owner-only state read from another CPU: a snapshot for tests. */
	return data_race(tempo_wheel_empty(&base->wheel) && tempo_wheel_empty(&base->dwheel) &&
			 list_empty(&base->expired)) &&
	       (!first || first == INBOX_SEALED) && (!dfirst || dfirst == INBOX_SEALED);
}
EXPORT_SYMBOL_IF_KUNIT(tempo_wheel_cpu_quiet);

/* ---------------------------------------------------------------------- */
/* Module init and exit.                                                    */

static void base_init(struct tempo_base *base, unsigned int cpu)
{
	tempo_wheel_setup(&base->wheel, wheel_depth, 0);
	INIT_LIST_HEAD(&base->expired);
	base->programmed = TEMPO_NEVER;
	hrtimer_setup(&base->hrtimer, base_hrtimer_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_ABS_PINNED);
	INIT_WORK(&base->work, base_dispatch);
	base->cpu = cpu;
	base->online = false;
	base->running = NULL;
	INIT_LIST_HEAD(&base->irq_due);
	base->irq_running = NULL;
	base->inbox.first = INBOX_SEALED;	/* until the CPU comes online */
	INIT_CSD(&base->csd, base_kick_csd, base);
	init_irq_work(&base->kick, base_kick_irq_work);
	tempo_wheel_setup(&base->dwheel, wheel_depth, 0);
	base->dprogrammed = TEMPO_NEVER;
	timer_setup(&base->carrier, base_carrier_fn, TIMER_DEFERRABLE | TIMER_PINNED);
	base->dinbox.first = INBOX_SEALED;
	atomic_set(&base->dkick_armed, 0);
	timer_setup(&base->dkick, base_dkick_fn, TIMER_DEFERRABLE | TIMER_PINNED);
}

static void base_quiesce(struct tempo_base *base)
{
	WRITE_ONCE(base->online, false);
	irq_work_sync(&base->kick);
	hrtimer_cancel(&base->hrtimer);
	timer_delete_sync(&base->carrier);
	timer_delete_sync(&base->dkick);
	cancel_work_sync(&base->work);
	WARN(!tempo_wheel_empty(&base->wheel) || !tempo_wheel_empty(&base->dwheel) ||
	     !list_empty(&base->expired) ||
	     (base->inbox.first && base->inbox.first != INBOX_SEALED) ||
	     (base->dinbox.first && base->dinbox.first != INBOX_SEALED),
	     "timers still pending on cpu %u at unload\n", base->cpu);
}

/*
 * A tick and a depth are usable when the longest delay they accept, in ns,
 * fits a ktime_t with room to spare for the clock itself (half of KTIME_MAX,
 * 146 years): then no deadline now + delay can overflow, and
 * tempo_timer_max_delay_ns() is exact.
 */
VISIBLE_IF_KUNIT bool tempo_wheel_params_ok(u32 tick, unsigned int levels)
{
	u64 max;

	if (!tick || levels < TEMPO_LVL_DEPTH_MIN || levels > TEMPO_LVL_DEPTH_MAX)
		return false;
	return !check_mul_overflow(tempo_wheel_max_ticks(levels), (u64)tick, &max) &&
	       max <= KTIME_MAX / 2;
}
EXPORT_SYMBOL_IF_KUNIT(tempo_wheel_params_ok);

/**
 * tempo_wheel_init - set up the per-CPU wheels
 * @tick: tick length in nanoseconds
 * @levels: wheel levels
 *
 * Return: 0, -ERANGE if the longest delay of @tick and @levels would not fit
 * (tempo_wheel_params_ok()), or -ENOMEM.
 */
int tempo_wheel_init(u32 tick, unsigned int levels)
{
	unsigned int cpu, lvl;
	int ret;

	BUILD_BUG_ON(BITS_PER_LONG < 64);
	BUILD_BUG_ON(CONFIG_NR_CPUS >= TT_CPU_NONE);
	BUILD_BUG_ON(TEMPO_WHEEL_VECTORS > TEMPO_IDX_EXPIRED);
	BUILD_BUG_ON(TEMPO_LVL_START(1) != TEMPO_TIMER_LVL0_TICKS);

	if (!tempo_wheel_params_ok(tick, levels))
		return -ERANGE;
	tick_ns = tick;
	wheel_depth = levels;
	tempo_tick_div_init(&tick_recip, tick);
	max_delay_ns = tempo_wheel_max_ticks(levels) * tick;
	coarse_max_delay_ns = max_delay_ns > TICK_NSEC ? max_delay_ns - TICK_NSEC : 0;
	for (lvl = 0; lvl < levels; lvl++)
		if (TEMPO_LVL_GRAN(lvl) * tick >= LAZY_GRAN_NS)
			break;
	lazy_idx = lvl < levels ? TEMPO_LVL_OFFS(lvl) : TEMPO_WHEEL_SLOTS;
	tempo_lazy_init(&lazy_rule, tick, levels);
	jiffies_calibrate();

	bases = alloc_percpu(struct tempo_base);
	if (!bases)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		base_init(per_cpu_ptr(bases, cpu), cpu);

	dispatch_wq = alloc_workqueue("tempo_timer", WQ_HIGHPRI | WQ_PERCPU, 0);
	if (!dispatch_wq) {
		ret = -ENOMEM;
		goto err_free_bases;
	}

	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "tempo/wheel:online",
				base_cpu_online, base_cpu_offline);
	if (ret < 0)
		goto err_destroy_wq;
	hp_state = ret;
	return 0;

err_destroy_wq:
	destroy_workqueue(dispatch_wq);
err_free_bases:
	free_percpu(bases);
	return ret;
}

static void nop_ipi(void *info)
{
}

/**
 * tempo_wheel_exit - tear the wheels down; no timer may be pending
 */
void tempo_wheel_exit(void)
{
	unsigned int cpu;

	cpuhp_remove_state_nocalls(hp_state);
	/* A kick still queued on a CPU has run once a synchronous call has. */
	on_each_cpu(nop_ipi, NULL, 1);
	for_each_possible_cpu(cpu)
		base_quiesce(per_cpu_ptr(bases, cpu));
	destroy_workqueue(dispatch_wq);
	free_percpu(bases);
}
