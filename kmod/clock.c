// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: tempo clocks
 *
 * The clocks a delay queue, and so a /dev/tempo timer, may keep time in; how
 * the module hears that one was set or that the machine resumed; and a
 * caller's time namespace.
 *
 * The timer wheel runs on CLOCK_MONOTONIC only, as timer_list does (making
 * MONOTONIC count suspend was tried in 2018 and reverted: it broke timeouts
 * and watchdogs). A delay queue may keep its deadlines in CLOCK_BOOTTIME or
 * CLOCK_REALTIME instead: it reads its own clock to decide what is due, so
 * nothing is ever early in its clock, and aims its waker, a wheel timer, at
 * the MONOTONIC instant its clock is expected to reach a deadline, through
 * the clock's offset from MONOTONIC (tempo_clock_offset()). An offset moves
 * only when timekeeping sets a clock: BOOTTIME's grows by the time slept at
 * each resume; REALTIME's moves at every set of the wall clock
 * (clock_settime(), settimeofday(), adjtimex()'s ADJ_SETOFFSET, a leap
 * second) and at each resume. NTP's slewing moves every clock at one rate
 * and no offset. An aim through an old offset is early (harmless: the queue
 * finds nothing due and aims again) or late: after a change, every aim is
 * made again, and that is all a change costs.
 *
 * Hearing of a change. Timekeeping calls the pvclock_gtod notifier chain
 * (KVM's hook) at every update, with "was set" for TK_CLOCK_WAS_SET, resume
 * included, under the timekeeper's raw lock with interrupts off and its
 * sequence count held for writing, where even queue_work() must not run (it
 * may read the clock: KVM's 3f804f6d201c, "Prevent deadlock against
 * tk_core.seq"). So clock_gtod() queues one irq_work when "was set"
 * and does nothing else; the irq_work queues one work item; the work calls
 * tempo's clock notifier chain, whose members (the delay queue core, the
 * file interface) each visit their own list of queues or files once. A
 * change costs work that grows with the queues and files keeping a clock
 * other than MONOTONIC, never with their timers, and it is noticed within
 * the time the system workqueue takes to run one work item. Several changes
 * before the work runs are one run of it, which sees the latest offsets.
 *
 * The pvclock_gtod notifier is registered when the first such queue is
 * created (tempo_clock_watch()) and stays until the module is unloaded: a
 * machine whose users keep only MONOTONIC pays nothing per timekeeping
 * update, and no user can make the module register and unregister at will
 * (registering calls every member of that chain with "was set": KVM then
 * refreshes its guests' clocks).
 *
 * Alarm clocks. CLOCK_BOOTTIME_ALARM and CLOCK_REALTIME_ALARM keep the time
 * of CLOCK_BOOTTIME and CLOCK_REALTIME (tempo_clock_base()), and a queue of
 * one also wakes the machine from suspend for its deadlines: it keeps a
 * kernel alarm (kernel/time/alarmtimer.c) aimed at them, and at suspend the
 * alarmtimer programs the real-time clock for the earliest alarm of the
 * system ("DOC: delay queue: alarms", kmod/delayq_clock.c). So an alarm clock needs
 * an RTC the alarmtimer may wake the machine with (one that can raise an
 * alarm, whose device may wake the system), which the kernel picks when the
 * RTC registers: tempo_clock_alarm_ready() asks whether it has one.
 *
 * Time namespaces. A task in a time namespace reads CLOCK_MONOTONIC and
 * CLOCK_BOOTTIME with an offset: its clock is the host's plus the offset
 * (current->nsproxy->time_ns, frozen once a task has entered it).
 * timerfd_settime(), timer_settime() and clock_nanosleep() convert a
 * caller's absolute deadline to the host with do_timens_ktime_to_host(),
 * which is not exported; tempo_timens_get() reads the offsets through the
 * header's inline helpers instead, and kmod/clock.h's tempo_time_to_host()
 * and tempo_time_to_user() do the arithmetic, edges included (a time before
 * the caller's clock began, offsets near their limits).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/alarmtimer.h>
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/irq_work.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/pvclock_gtod.h>
#include <linux/seq_file.h>
#include <linux/time_namespace.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

#include "clock.h"
#include "internal.h"

static BLOCKING_NOTIFIER_HEAD(clock_chain);
static DEFINE_MUTEX(clock_watch_lock);
static bool clock_watching;		/* clock_gtod_nb registered; clock_watch_lock */
static atomic64_t clock_changes;	/* runs of clock_change_work */

/**
 * tempo_clock_valid() - may a delay queue keep @clock?
 * @clock: a clock id
 *
 * Context: any context.
 * Return: true for CLOCK_MONOTONIC, CLOCK_BOOTTIME and CLOCK_REALTIME.
 */
bool tempo_clock_valid(clockid_t clock)
{
	return clock == CLOCK_MONOTONIC || clock == CLOCK_BOOTTIME || clock == CLOCK_REALTIME;
}

/**
 * tempo_clock_alarm_ready() - may a queue of an alarm clock be made now?
 *
 * The kernel wakes the machine for alarms with one RTC, chosen when an RTC
 * that can raise an alarm and wake the system registers (none without
 * CONFIG_RTC_CLASS); it keeps it until reboot.
 *
 * Context: any context.
 * Return: true if the kernel has an RTC for alarms (alarmtimer_get_rtcdev()).
 */
bool tempo_clock_alarm_ready(void)
{
	return alarmtimer_get_rtcdev();
}

/**
 * tempo_clock_read() - read a clock of the host
 * @clock: CLOCK_MONOTONIC, CLOCK_BOOTTIME or CLOCK_REALTIME
 *
 * Context: any context except NMI.
 * Return: ktime_get(), ktime_get_boottime() or ktime_get_real().
 */
ktime_t tempo_clock_read(clockid_t clock)
{
	switch (clock) {
	case CLOCK_BOOTTIME:
		return ktime_get_boottime();
	case CLOCK_REALTIME:
		return ktime_get_real();
	default:
		return ktime_get();
	}
}

/**
 * tempo_clock_offset() - how far a clock of the host is ahead of CLOCK_MONOTONIC
 * @clock: CLOCK_MONOTONIC, CLOCK_BOOTTIME or CLOCK_REALTIME
 *
 * The offset changes only when timekeeping sets the clock (see "DOC: tempo
 * clocks"), and the clock notifier chain hears of every change.
 *
 * Context: any context except NMI.
 * Return: the offset in ns (0 for CLOCK_MONOTONIC).
 */
ktime_t tempo_clock_offset(clockid_t clock)
{
	if (clock == CLOCK_MONOTONIC)
		return 0;
	return ktime_mono_to_any(0, clock == CLOCK_BOOTTIME ? TK_OFFS_BOOT : TK_OFFS_REAL);
}

/**
 * tempo_timens_get() - the calling task's time-namespace offsets
 * @ns: receives them (zero outside any time namespace, or without CONFIG_TIME_NS)
 *
 * Context: process context (it reads current's namespace).
 */
void tempo_timens_get(struct tempo_timens *ns)
{
	struct timespec64 mono = {};

	/* The helpers add the offsets to a time: add them to 0. */
	timens_add_monotonic(&mono);
	ns->mono = timespec64_to_ns(&mono);
	ns->boot = (s64)timens_add_boottime_ns(0);
}

/* Process context, on the system workqueue: tell the chain's members. */
static void clock_change_fn(struct work_struct *work)
{
	atomic64_inc(&clock_changes);
	blocking_notifier_call_chain(&clock_chain, 0, NULL);
}

static DECLARE_WORK(clock_change_work, clock_change_fn);

/* Hard interrupt context, after the timekeeper's lock is released. */
static void clock_change_irq_fn(struct irq_work *work)
{
	schedule_work(&clock_change_work);
}

static DEFINE_IRQ_WORK(clock_change_irq_work, clock_change_irq_fn);

/*
 * The pvclock_gtod notifier: every timekeeping update calls it under the
 * timekeeper's lock, interrupts off. Queue one irq_work when a clock was
 * set, and do nothing else here.
 */
static int clock_gtod(struct notifier_block *nb, unsigned long was_set, void *priv)
{
	if (was_set)
		irq_work_queue(&clock_change_irq_work);
	return NOTIFY_DONE;
}

static struct notifier_block clock_gtod_nb = {
	.notifier_call = clock_gtod,
};

/**
 * tempo_clock_watch() - start hearing of clock changes, if not yet
 *
 * Called by whoever creates the first queue of a clock other than
 * CLOCK_MONOTONIC. Registers the pvclock_gtod notifier once; it stays until
 * the module is unloaded (see "DOC: tempo clocks").
 *
 * Context: process context; may sleep.
 * Return: 0, or the negative errno of pvclock_gtod_register_notifier().
 */
int tempo_clock_watch(void)
{
	int err = 0;

	/* Rare (a queue's creation), so the mutex every time: no fast path. */
	mutex_lock(&clock_watch_lock);
	if (!clock_watching) {
		err = pvclock_gtod_register_notifier(&clock_gtod_nb);
		if (!err)
			WRITE_ONCE(clock_watching, true);
	}
	mutex_unlock(&clock_watch_lock);
	return err;
}

/**
 * tempo_clock_notifier_register() - join the chain told of every clock change
 * @nb: its notifier_call runs in process context (a work item) after every
 *	set of a clock and every resume; several changes may come as one call
 *
 * Context: process context; may sleep.
 * Return: 0.
 */
int tempo_clock_notifier_register(struct notifier_block *nb)
{
	return blocking_notifier_chain_register(&clock_chain, nb);
}

/**
 * tempo_clock_notifier_unregister() - leave the chain
 * @nb: as registered
 *
 * On return @nb's notifier_call is not running and will not run again.
 *
 * Context: process context; may sleep.
 * Return: 0, or -ENOENT if @nb was not registered.
 */
int tempo_clock_notifier_unregister(struct notifier_block *nb)
{
	return blocking_notifier_chain_unregister(&clock_chain, nb);
}

static int clock_stats_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "watching %d\nchanges %lld\n", READ_ONCE(clock_watching),
		   (s64)atomic64_read(&clock_changes));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(clock_stats);

/**
 * tempo_clock_debugfs() - create "clock": whether the module listens for clock
 *	changes, and how many times it has told its chain of one
 * @dir: tempo's debugfs directory
 *
 * Context: process context, from the module's init.
 */
void tempo_clock_debugfs(struct dentry *dir)
{
	debugfs_create_file("clock", 0444, dir, NULL, &clock_stats_fops);
}

/**
 * tempo_clock_init() - module init of the clock core: nothing is registered yet
 *
 * Context: process context, module init.
 * Return: 0.
 */
int tempo_clock_init(void)
{
	return 0;
}

/**
 * tempo_clock_exit() - module exit: stop listening, and let a change in flight finish
 *
 * Context: process context, module exit, after every queue is gone.
 */
void tempo_clock_exit(void)
{
	if (clock_watching)
		pvclock_gtod_unregister_notifier(&clock_gtod_nb);
	clock_watching = false;
	irq_work_sync(&clock_change_irq_work);
	flush_work(&clock_change_work);
}
