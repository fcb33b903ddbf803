/* SPDX-License-Identifier: GPL-2.0 */
/**
 * DOC: tempo timer usage
 *
 * O(1), lock-free timers on per-CPU hierarchical wheels whose callbacks run
 * in process context on a per-CPU workqueue. A driver uses them where it
 * would use a delayed_work for a timeout::
 *
 *	struct foo {
 *		struct tempo_timer timeout;
 *		...
 *	};
 *
 *	static void foo_timeout(struct tempo_timer *t)
 *	{
 *		struct foo *foo = container_of(t, struct foo, timeout);
 *		...			// process context, may sleep
 *	}
 *
 *	tempo_timer_init(&foo->timeout, foo_timeout, 0);
 *	tempo_timer_arm(&foo->timeout, 200 * NSEC_PER_MSEC);
 *	...
 *	tempo_timer_cancel(&foo->timeout);	// the common case: no expiry
 *	...
 *	tempo_timer_shutdown_sync(&foo->timeout);	// before kfree(foo)
 */

/**
 * DOC: tempo timer concurrency and contexts
 *
 * "-" means the two may run concurrently on the same timer from any CPUs
 * without a lock; "S" means the caller must serialise them (as for
 * timer_list); "W" means the second waits for the first::
 *
 *	            | arm | cancel | cancel_sync | shutdown_sync | callback
 *	arm         |  -  |   -    |     S       |      -        |    -
 *	cancel      |     |   -    |     -       |      -        |    -
 *	cancel_sync |     |        |     -       |      -        |    W
 *	shutdown    |     |        |             |      -        |    W
 *
 * Two concurrent arms of one timer both succeed and the timer ends up armed
 * by one of them. An arm racing with cancel_sync may leave the timer armed:
 * stop re-arming (or use shutdown_sync) before freeing, as with del_timer_sync.
 * The callback may re-arm its own timer, and may free it.
 *
 * Contexts: arm, cancel and pending are O(1), lock-free and callable from any
 * context except NMI, with no lock held or taken (see kmod/wheel.c for the
 * one exception: reprogramming this CPU's hrtimer when an arm becomes its
 * earliest expiry). cancel_sync and shutdown_sync may sleep.
 */

/**
 * DOC: tempo far timers
 *
 * A timer placed in a wheel level whose granule is 64 ms or more (504 ms
 * ahead or more at the default tick of 1 ms) sits in a far slot. Cancelling
 * it, and re-arming it to a deadline its slot still serves (see the time
 * bounds), is one compare-and-swap on its state word, from any CPU, with
 * interrupts on; the timer stays in the slot and its CPU drops or re-places
 * it when it reaches the slot. So a cancelled timer stays linked, and its
 * memory in use, until tempo_timer_cancel_sync() or
 * tempo_timer_shutdown_sync(), which let go of it at once. A cancelled far
 * timer that is never re-armed costs its CPU at most one hrtimer interrupt,
 * at the time it would have fired rounded up to its granule, and none if
 * anything else expires then. Far slots expire only on multiples of their
 * granule, so a CPU takes at most one such interrupt per 64 ms (16 a second)
 * however many timers it holds. A CPU that holds no timer, pending or
 * cancelled, takes none.
 */

/**
 * DOC: tempo timer time bounds
 *
 * When each kind of timer expires, in CLOCK_MONOTONIC, in one table;
 * README.md and include/uapi/tempo.h point here. An arm reads "now" and asks
 * for a deadline D; d is D - now, the distance it places the timer at. The
 * expiry is when the timer's CPU finds it due, in the interrupt of its
 * hrtimer, which comes that interrupt's own latency (irq) after the time it
 * was programmed for; then the callback runs ("tempo timer callbacks"): on
 * that CPU's tempo workqueue, after the wake-up of its worker and the
 * callbacks queued before it there (wq: tens of microseconds on an idle CPU,
 * more on a busy one), or with TEMPO_TIMER_IRQ right there, in the
 * interrupt. tick is tempo_timer_tick_ns() (1 ms by default); gran(d) is
 * tempo_timer_slack_ns(d); S is the timer's slack (tempo_timer_get_slack(),
 * "tempo timer slack")::
 *
 *	              | precise (0)     | TEMPO_TIMER_COARSE  | TEMPO_TIMER_FINE
 *	--------------+-----------------+---------------------+-----------------
 *	now           | the clock       | c: the start of the | the clock
 *	              |                 | current jiffy       |
 *	              |                 | (s = the clock - c) |
 *	D, arm(delay) | now + delay     | c + TICK_NSEC +     | now + delay
 *	              |                 | delay               |
 *	D, arm_at(D)  | D               | D                   | D
 *	early         | never           | never while s <=    | never
 *	              |                 | TICK_NSEC (arm_at:  |
 *	              |                 | never)              |
 *	late, past D, | gran(d) + irq   | gran(d) + irq       | tick / 64 + irq
 *	less than     |                 |                     | (15.6 us), any d
 *	with slack S  | max(S, gran(d)) + irq                 | max(S, tick / 64)
 *	              |                 |                     | + irq
 *	d taken from  | the latest arm  | the arm that set D  | (no d)
 *	re-arm of a   | bounded by its  | keeps the bound of  | bounded as any
 *	pending timer | own d           | the arm that set D, | arm
 *	to the D it   |                 | as mod_timer() with |
 *	holds         |                 | an unchanged expires|
 *	then          | wq              | wq                  | wq
 *	--------------+-----------------+---------------------+-----------------
 *	| TEMPO_TIMER_IRQ         its kind's bound; then nothing: the callback
 *	                          runs in the interrupt
 *	| TEMPO_TIMER_DEFERRABLE  its kind's bound, plus a jiffy while its CPU
 *	                          is busy, unbounded while it idles; then wq
 *	/dev/tempo timer          the file's waker: a FINE | IRQ timer that
 *	(include/uapi/tempo.h)    fires within the least slack_us of the file's
 *	                          timers; then the reader's wake-up
 *	alarm: /dev/tempo's       awake: as a timer of its clock (D of BOOTTIME
 *	TEMPO_ARM_ALARM, or an    or REALTIME, reached through the clock's
 *	item of a delay queue of  offset); suspended: the machine is woken by
 *	CLOCK_*_ALARM             the RTC from D - 1 s (its resolution) on, then
 *	(include/tempo/delayq.h)  the resume, then the system workqueue's run of
 *	                          one item (/dev/tempo); then the reader's
 *	                          wake-up, or, in the kernel, a consumer's woken
 *	                          by the alarm's hrtimer callback
 *
 * gran(d) is less than one tick when d is below TEMPO_TIMER_LVL0_TICKS
 * ticks, else one granule of d's wheel level, at most 1/8 of d (12.5%; the
 * geometry is at the top of kmod/wheel.c). An arm of an idle timer, and one
 * that gives a pending timer another deadline, sets D, for every kind. So a
 * precise or FINE timer is bounded by its last arm, whatever came before; a
 * COARSE one keeps the bound of the arm that set its deadline: re-armed to it
 * with a shorter delay (in a later jiffy, or by tempo_timer_arm_at()), it
 * keeps the granule of the earlier, longer d, as a timer_list keeps the level
 * its first arm chose.
 *
 * A COARSE timer trades "never early" for a cheaper arm: tempo_timer_arm()
 * and tempo_timer_arm_on() read the jiffies instead of the precise clock. s
 * is at most TICK_NSEC whenever the jiffies are current: a CPU's tick updates
 * them every jiffy. It exceeds a jiffy only when the jiffies are overdue at
 * the arm (no tick has run for more than a jiffy: interrupts held off that
 * long on the CPU that keeps time, a virtual CPU its host does not run,
 * NO_HZ_FULL); the timer is then early by s - TICK_NSEC at most. Past now +
 * delay, D is less than TICK_NSEC - s later (a jiffy, and the few
 * microseconds by which tempo may date a jiffy late: see COARSE in
 * kmod/wheel.c). Within one jiffy the same delay gives the same D, so
 * re-arming a pending timer to it where it is costs a compare and writes
 * nothing. Delays above tempo_timer_max_delay_ns() - TICK_NSEC get -ERANGE.
 * tempo_timer_arm_at() keeps its absolute deadline exact for a COARSE timer
 * too; only its placement uses the jiffies.
 *
 * A FINE timer's bound holds whatever the delay: past the first level it
 * waits in the wheel's levels for a collection at or before D, which places
 * it again, nearer, down to a 64th of a tick (FINE in kmod/wheel.c).
 */

/**
 * DOC: tempo timer callbacks
 *
 * A callback runs once per expiry, on the CPU that holds the timer, after
 * the expiry that "tempo timer time bounds" bounds:
 *
 * - By default on that CPU's tempo workqueue (WQ_HIGHPRI), in process
 *   context: it may sleep, and the callbacks of one CPU run one after
 *   another, so one that sleeps delays the later ones (long work belongs in
 *   a work item of its own). Each waits for the wake-up of the CPU's worker
 *   (a context switch) and for the callbacks queued before it. Timers due
 *   together run in the order the wheel collected them: deadline order only
 *   to within the granularity of the levels involved.
 * - With TEMPO_TIMER_IRQ, in the interrupt that finds the timer due (the
 *   wheel's hrtimer, or the irq_work that drains its messages; the softirq of
 *   a CPU's deferrable carrier when that is what finds it), with interrupts
 *   off, before that interrupt returns: no worker to wait for, as for an
 *   hrtimer's callback. It must not sleep; every lock it takes must also be
 *   taken with interrupts off wherever else it is taken (spin_lock_irqsave());
 *   it must not call tempo_timer_cancel_sync() or tempo_timer_shutdown_sync();
 *   and it should be short, since it delays the CPU's other interrupts and
 *   every IRQ callback due after it. It may arm and cancel timers, its own
 *   included, and free its timer. tempo_timer_cancel_sync() waits for it as
 *   for a workqueue callback. Not with TEMPO_TIMER_DEFERRABLE.
 */

/**
 * DOC: tempo timer slack
 *
 * tempo_timer_set_slack() gives a timer a window: it may fire anywhere in
 * [deadline, deadline + slack], and the wheel uses that to put it where
 * other timers expire too, so that timers with slack share interrupts
 * (hrtimer's range timers, usleep_range()). The slack is kept in ticks,
 * rounded down, with 1/8 precision above 15 ticks, up to 15 << 30 ticks (a
 * 10 ms slack at the default tick of 1 ms is 10 ticks exactly; 100 ms is
 * 96). At each placement the wheel aims the timer at the last multiple of
 * the slack's grid (the slack rounded down to the granule of the timer's
 * own level) within the window: timers with the same slack whose windows
 * overlap that multiple all expire in the same tick, so N timers spread
 * evenly over a second cause about one expiry per slack (100 a second at
 * 10 ms), not one per tick. When the slack is less than that granule the timer is placed
 * as without slack. A TEMPO_TIMER_FINE timer's slack is kept in 64ths of a
 * tick instead (50 us at the default tick is 46.9 us), and aims it at the
 * last multiple of itself in the window (of whole ticks from a tick up).
 *
 * Bounds: never early, as any timer. The expiry is no later than
 * max(D + slack, D + its kind's bound without slack), D and its bound as in
 * "tempo timer time bounds": a slack adds lateness only up to itself, and a
 * slack below the wheel's own bound changes nothing. That holds for every
 * arm that sets D, lazy or eager, with the slack it arms with; a COARSE
 * timer re-armed to the D it holds keeps the bound of the arm that set D,
 * slack included. Slack is not taken from the task (PR_SET_TIMERSLACK): only
 * this call sets it, and tempo_timer_init() clears it.
 */

/**
 * DOC: tempo timer placement
 *
 * Which CPU's wheel holds a timer, and so which CPU takes its interrupt and
 * runs its callback:
 *
 * - A pending timer (or one cancelled that a CPU still holds) stays on the
 *   CPU that holds it when tempo_timer_arm() or tempo_timer_arm_at() with
 *   TEMPO_CPU_LOCAL re-arms it, whatever the flags.
 * - An idle unpinned timer goes to the calling CPU, unless that CPU is
 *   isolated from timers: outside housekeeping_cpumask(HK_TYPE_TIMER), which
 *   nohz_full= and isolcpus=nohz make smaller than all CPUs. It then goes to
 *   housekeeping_any_cpu(HK_TYPE_TIMER), as an unpinned timer_list or
 *   hrtimer does, so an isolated CPU takes no interrupt for it. /dev/tempo's
 *   timers are of this kind (their file's waker is armed so).
 * - An idle TEMPO_TIMER_PINNED timer goes back to the CPU it last ran on if
 *   that CPU is online, else to the calling CPU, isolated or not (as
 *   TIMER_PINNED and add_timer_on() stay where they were put).
 * - tempo_timer_arm_on() and tempo_timer_arm_at() with a CPU put an idle
 *   timer on that CPU, isolated or not.
 * - When a CPU goes offline, the timers it holds move to an online CPU, the
 *   first that takes timers, isolated or not, and keep their flags and
 *   slack.
 */

/**
 * DOC: tempo timer deferrable
 *
 * A TEMPO_TIMER_DEFERRABLE timer never causes an interrupt on an idle CPU,
 * as a timer_list with TIMER_DEFERRABLE: it fires when its CPU is awake
 * anyway. It is never early. While its CPU is busy it is as late as its
 * kind's bound (above), plus one jiffy; an arm, re-arm or cancel made on
 * another CPU than the one that holds it reaches that CPU at its next tick
 * (no IPI), which may add one jiffy more. While its CPU sleeps it is late
 * without bound: it fires at the CPU's next wake-up for any other reason (an
 * interrupt, another timer, a task). Cancelled far deferrable timers cost an
 * idle CPU nothing either. tempo_timer_cancel_sync() of a deferrable timer
 * that an idle CPU holds interrupts that CPU once, to let go of it.
 */
#ifndef _TEMPO_TIMER_H
#define _TEMPO_TIMER_H

#include <linux/bits.h>
#include <linux/types.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/atomic.h>
#include <linux/ktime.h>

struct tempo_timer;

/**
 * typedef tempo_timer_fn_t - timer callback
 * @timer: the timer that expired; use container_of() to reach its owner.
 *
 * Runs in process context on the per-CPU tempo workqueue of the CPU that
 * holds the timer, or for a TEMPO_TIMER_IRQ timer in that CPU's interrupt
 * ("tempo timer callbacks"). It may re-arm @timer or free it; on the
 * workqueue it may also sleep.
 */
typedef void (*tempo_timer_fn_t)(struct tempo_timer *timer);

/* Delays (in ticks) below this go into the wheel's first level, 1 tick fine. */
#define TEMPO_TIMER_LVL0_TICKS	63

/*
 * Flags for tempo_timer_init().
 * TEMPO_TIMER_PINNED: tempo_timer_arm() keeps an idle timer on the CPU it last
 * ran on instead of moving it to the calling CPU, isolated or not (see "tempo
 * timer placement" above).
 * TEMPO_TIMER_COARSE: arms read the jiffies, with timer_list's kind of
 * guarantee instead of never early (see "tempo timer time bounds" above).
 * TEMPO_TIMER_DEFERRABLE: never wakes an idle CPU (see "tempo timer
 * deferrable" above).
 * TEMPO_TIMER_FINE: late by at most a 64th of a tick, whatever the delay (see
 * "tempo timer time bounds" above); not with COARSE or DEFERRABLE.
 * TEMPO_TIMER_IRQ: the callback runs in the interrupt that finds the timer
 * due, not on the workqueue (see "tempo timer callbacks" above); not with
 * DEFERRABLE.
 */
#define TEMPO_TIMER_PINNED	BIT(0)
#define TEMPO_TIMER_COARSE	BIT(1)
#define TEMPO_TIMER_DEFERRABLE	BIT(2)
#define TEMPO_TIMER_FINE	BIT(3)
#define TEMPO_TIMER_IRQ		BIT(4)
#define TEMPO_TIMER_FLAGS	(TEMPO_TIMER_PINNED | TEMPO_TIMER_COARSE | \
				 TEMPO_TIMER_DEFERRABLE | TEMPO_TIMER_FINE | TEMPO_TIMER_IRQ)

/**
 * struct tempo_timer - an embeddable timer
 *
 * All fields are private to kmod/wheel.c. 64 bytes on 64-bit kernels: one
 * cache line when the embedding object aligns it.
 */
struct tempo_timer {
/* private: */
	struct list_head	entry;		/* wheel slot or expired list (owner CPU only) */
	struct llist_node	msg;		/* on the owner's inbox while QUEUED */
	atomic_long_t		state;		/* seq | cpu | flags, see wheel.c */
	u64			expires;	/* deadline, CLOCK_MONOTONIC ns */
	tempo_timer_fn_t	fn;
	u64			bucket;		/* when its far slot is collected (ns), if any */
	u32			flags;		/* TEMPO_TIMER_*; bits 8..15: slack */
	u16			want_cpu;	/* where the latest arm wants it */
	u16			idx;		/* wheel slot index (owner only) */
};

void tempo_timer_init(struct tempo_timer *timer, tempo_timer_fn_t fn,
		      unsigned int flags);
int tempo_timer_set_slack(struct tempo_timer *timer, u64 slack_ns);
u64 tempo_timer_get_slack(const struct tempo_timer *timer);
int tempo_timer_arm(struct tempo_timer *timer, u64 delay_ns);
int tempo_timer_arm_on(struct tempo_timer *timer, int cpu, u64 delay_ns);
int tempo_timer_arm_at(struct tempo_timer *timer, int cpu, ktime_t deadline);
bool tempo_timer_cancel(struct tempo_timer *timer);
bool tempo_timer_cancel_sync(struct tempo_timer *timer);
bool tempo_timer_shutdown_sync(struct tempo_timer *timer);
bool tempo_timer_pending(const struct tempo_timer *timer);
bool tempo_timer_expires(const struct tempo_timer *timer, u64 *expires_ns);

u64 tempo_timer_tick_ns(void);
u64 tempo_timer_max_delay_ns(void);
u64 tempo_timer_slack_ns(u64 delay_ns);

/**
 * tempo_timer_fine_ns - how late a TEMPO_TIMER_FINE timer without slack fires
 *
 * Return: a 64th of tempo_timer_tick_ns(), rounded up: such a timer fires
 * less than this long after its deadline, past the interrupt's latency
 * ("tempo timer time bounds").
 */
static inline u64 tempo_timer_fine_ns(void)
{
	return (tempo_timer_tick_ns() + 63) / 64;
}

/* Pass as @cpu to tempo_timer_arm_at() to arm on the calling CPU. */
#define TEMPO_CPU_LOCAL		(-1)

#endif /* _TEMPO_TIMER_H */
