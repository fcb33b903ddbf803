// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: timer wheel
 *
 * tempo's timer wheel: lock-free O(1) timers on per-CPU hierarchical wheels,
 * with callbacks run in process context on a per-CPU workqueue, or in the
 * interrupt for the timers that ask.
 *
 * This file holds the state word, arm and cancel, and the owner's placement.
 * Beside it: the wheel proper (kmod/wheel.h, kmod/wheel_levels.c), the
 * per-CPU base and the tick arithmetic its files share (kmod/wheel_base.h),
 * the owner's collection, interrupt callbacks and dispatch
 * (kmod/wheel_owner.c), the messages to a timer's owner and the kicks
 * (kmod/wheel_inbox.c), a timer's init, slack and queries
 * (kmod/wheel_attr.c), cancel_sync (kmod/wheel_sync.c), init, exit
 * and CPU hotplug (kmod/wheel_cpu.c), the deferrable wheel's carrier
 * (kmod/wheel_defer.c), the jiffies clock of COARSE arms
 * (kmod/wheel_coarse.c) and the debugfs view (kmod/wheel_debugfs.c).
 */

/**
 * DOC: timer wheel: model
 *
 * Every CPU owns a base: a wheel of slots, an expired list, an hrtimer, a work
 * item and an inbox. The wheel and the expired list are touched only by their
 * CPU, with interrupts disabled; that is what serialises the owner's own
 * operations (eager arm and cancel from any context on that CPU, the hrtimer,
 * the inbox drain, the callback dispatcher), and it needs no lock and no
 * atomic instruction on the lists. Other CPUs never touch a remote wheel: they
 * change the timer's state word with cmpxchg and, when the owner has to act,
 * push the timer on the owner's inbox (an llist) and kick it with an IPI
 * (INBOX, kmod/wheel_inbox.c). The owner computes the slot itself, from its
 * own clock, when it drains the inbox.
 *
 * Most re-arms and cancels need no action of the owner at all (LAZY below):
 * they are one cmpxchg on the state word, from any CPU, with interrupts on,
 * and the owner catches up when it collects the timer's slot.
 *
 * Time is counted in ticks of tempo_tick_ns (1 ms by default) of
 * CLOCK_MONOTONIC: tick = ktime_get_ns() / tick_ns. A timer holds its absolute
 * deadline in nanoseconds (tempo_timer.expires); its expiry tick is the first
 * tick at or after it, the same on every CPU, and a timer is due at that tick.
 * An arm compares and stores nanoseconds; only its owner, placing the timer,
 * divides. A TEMPO_TIMER_COARSE timer takes "now" from the jiffies instead
 * (the start of the current jiffy) and pads its deadline by one jiffy (COARSE
 * below); everything after the deadline is computed is the same for both. A
 * TEMPO_TIMER_FINE timer is due at its deadline to a 64th of a tick: the
 * wheel places it by its tick, then, in the tick before it is due, in a near
 * level of 64ths of a tick (FINE below).
 */

/**
 * DOC: timer wheel: the timer state word
 *
 * Tempo_timer.state, an atomic_long_t.
 *
 *
 *	63                    24 23        8 7  6  5  4  3  2  1  0
 *	[  seq (40 bits)        |  cpu (16)  | 00 |MV|PK|SD|QU|LK|PD]
 *
 *	PD  PENDING   armed: the callback will run once, unless cancelled
 *	LK  LINKED    entry is on a list (slot or expired) of base @cpu
 *	QU  QUEUED    msg is on the inbox of base @cpu (or being pushed there)
 *	SD  SHUTDOWN  further arms fail with -ESHUTDOWN
 *	PK  PARKED    base @cpu cancelled the timer and holds its entry, on
 *	              no list: only @cpu may link it again (see PARKING)
 *	MV  MOVED     an arm or cancel came after the owner placed the timer:
 *	              its slot no longer says when it is due
 *	cpu           the base that holds the timer (meaningful while LK|QU|PK)
 *	seq           bumped by every arm, cancel and placement: no cmpxchg
 *	              that read an older word succeeds (no ABA)
 *
 * Who writes what: PD is set by arm and cleared by cancel, from any CPU, and
 * by the owner's claim; MV is set by every arm and cancel and cleared by the
 * owner when it places the timer (a cmpxchg that also bumps seq); LK and PK
 * are set and cleared only by the owner of base @cpu (PK also by whoever moves
 * the timer off a sealed inbox, see timer_send()); QU is set by whoever
 * pushes the msg and cleared by the owner that pops it (or by the pusher
 * itself when the inbox is sealed and the timer is still LK there, see
 * timer_send()); @cpu changes only while the timer is neither LK, QU nor PK
 * (anyone may then claim it), or by the one who holds QU and moves the
 * message to another inbox (forwarding), and never while LK is set: LK and
 * @cpu together name the list that holds the entry. expires and want_cpu are
 * written by arm before its cmpxchg on the state word publishes them; bucket
 * by the holder of the entry (I8, P6).
 *
 * Logical states (PD, and whether the callback runs) and transitions::
 *
 *	              arm                  owner collects, claims
 *	   IDLE ----------------> PENDING ------------------------> RUNNING
 *	    ^  <----------------  |  ^  |                              |
 *	    |       cancel        |  |  | arm (moves it: seq++)        |
 *	    |                     |  +--+                              |
 *	    +------------------------------------------------------------+
 *	           callback returned (it may have re-armed the timer)
 *
 *	   any state --shutdown--> SHUTDOWN: arm fails; cancel_sync follows
 *
 * Physical placement (LK, QU) follows the logical state lazily: a cancelled
 * timer may stay in its slot (a lazy cancel) or in its owner's wheel until
 * the owner drains the message a remote cancel sends it; a re-armed one may
 * stay in a slot that is now too early (a lazy re-arm). An IDLE timer that
 * a base still holds is garbage: it costs its owner at most one expiry of
 * the hrtimer (LAZY) and no callback; cancel_sync lets go of it at once.
 */

/**
 * DOC: timer wheel: lazy re-arm and cancel
 *
 * A slot of level lazy_level or above (the first level whose granule is at
 * least LAZY_GRAN_NS, 64 ms: level 2 at tick_ns = 1 ms) is a far slot. When
 * the owner places a timer in a far slot it records the slot's bucket expiry
 * (the tick the slot is collected at, bucket below) in tempo_timer.bucket,
 * as that tick's start in ns; in any other slot, and once it collects the
 * slot, it records none (TEMPO_NO_BUCKET, which the lazy rule below refuses
 * by itself). From any CPU, with interrupts on:
 *
 * - cancel of a pending timer LK in a far slot (not QU, not PK) is one
 *   cmpxchg: PD cleared, MV set. The entry stays in its slot.
 * - arm of a timer LK in a far slot (not QU, PK or SD), to a deadline on the
 *   CPU that holds it or anywhere (not arm_on another CPU), is the store of
 *   expires and one cmpxchg (PD and MV set), provided
 *
 *	bucket < tick(expires) + gran(level(expires - now))  (the lazy rule)
 *
 *   where tick(expires) is the expiry tick and gran(level(d)) the granule of
 *   the level a fresh arm at distance d would get (a FINE timer has a rule
 *   of its own, FINE). Its delay alone decides:
 *   whatever chain of re-arms came before, each is checked against the same
 *   slot, so the rule holds for the last deadline set. tempo_lazy_ok()
 *   computes it without a loop or a division.
 * - such an arm of a timer that is pending already, for the same expiry
 *   tick and on the CPU that holds it, writes nothing (the same expiry, as
 *   mod_timer() returns early for an unchanged expires). The state word it
 *   read with acquire (P6) shows the timer pending; the expires it then reads
 *   is the one that state published (P1) or one an arm in flight stored, and
 *   that arm publishes it (it retries until its cmpxchg succeeds). Either
 *   way the timer ends up pending for this expiry, or for a later arm's, or
 *   cancelled by a later cancel: the arm takes effect at its read of the
 *   state. The collection sorts the timer by what it finds, and for this
 *   expiry every verdict it can reach is this arm's: due, to the expired
 *   list; MV set, re-placed for it. The lazy rule above still bounds how
 *   late it fires for the new delay.
 * - for the very deadline the timer holds (timer_arm_same(), tried first):
 *   a pending COARSE timer, held where it is (LK, not QU or PK, on the CPU
 *   an arm_on names), writes nothing and checks no rule, in any slot or on
 *   the expired list: it keeps the bound of the arm that set that deadline
 *   (include/tempo/timer.h, "tempo timer time bounds"), which placed it or
 *   passed the rule for its own delay. It takes effect at its read of the
 *   state, as above, with no division and no look at the bucket. A precise
 *   timer takes the rule, then the same when it is pending. A timer of
 *   either kind lazily cancelled and still in its slot takes the rule and
 *   one cmpxchg setting PD and MV, with no store: the expires it publishes
 *   is the one the state it read already published (P1). This re-arm needs
 *   no look at the bucket after its cmpxchg (P7): a collection passes over,
 *   to the expired list, only a timer it reads pending and not moved; one
 *   it reads cancelled it settles, by a cmpxchg of its own on the state
 *   word, and one of the two cmpxchgs then fails and decides again.
 *
 * The owner collects the far slot at bucket and sorts each timer in it
 * (base_collect(), in the hrtimer's interrupt): MV clear and due, to the
 * expired list as placed; PD clear, dropped (a lazy cancel's garbage); MV set
 * and PD set, re-placed for its latest expires. Why the rule keeps the bound
 * of include/tempo/timer.h for the last deadline: if tick(expires) >= bucket,
 * the timer is re-placed at bucket or later, at a distance no greater than
 * its delay, so into a level no coarser than a fresh arm's; if
 * tick(expires) < bucket, it is due when collected and waits on the expired
 * list, late by bucket - tick(expires), less than the granule of its delay's
 * level by the rule.
 *
 * Every other arm and cancel is eager (below: PARKING, the inbox), and so are
 * cancel_sync and shutdown_sync: they let go of a lazily held timer at once,
 * on the owner or through a message (timer_release()), and never wait for its
 * slot. What laziness costs an idle CPU: a lazily cancelled timer that is never
 * re-armed costs its owner one expiry of the hrtimer, at its slot's bucket
 * (where it would have fired, rounded up to the granule), and none if anything
 * else expires there; the timer is dropped in that interrupt, with no work
 * item. A lazily re-armed timer costs the same one expiry per slot it leaves
 * behind. Far slots are collected only at multiples of their level's granule,
 * all multiples of the lazy granule, so a CPU wakes for garbage and
 * re-placements at most once per lazy granule (16 times a second at the
 * default tick), however many timers it holds. A wheel that holds no timer,
 * pending or garbage, has no hrtimer armed.
 */

/**
 * DOC: timer wheel: fine
 *
 * A TEMPO_TIMER_FINE timer is due at its deadline to a 64th of a tick, not at
 * its tick: never early, late by less than a 64th of a tick (15.6 us at the
 * default tick) past the hrtimer's own latency, whatever its delay, or by its
 * slack when that is more. Its callback then waits for the workqueue as any
 * timer's.
 *
 * The near and the fine level, and how a FINE timer is placed in them and
 * in the levels: NEAR, kmod/wheel_levels.c.
 *
 * The move to the near or the fine level takes no cmpxchg (base_near_move()):
 * a collection that finds a FINE timer pending as placed (PD set, MV clear)
 * and not yet due moves it between the owner's own lists (I1), for the very
 * deadline its state word publishes, as a due one goes to the expired list.
 * Its bucket stays none (neither level is far), so a lazy re-arm the
 * collection did not see finds none after its cmpxchg and has the owner
 * place it again (P7). A collected FINE timer placed into a far slot again
 * goes through base_settle() and its cmpxchg, which publishes the bucket it
 * stores (P6).
 *
 * Lazy paths (LAZY). A FINE timer in a far slot is cancelled lazily as any
 * timer. A re-arm leaves it there if that slot is collected at or before the
 * new deadline (fine_lazy_ok(): bucket <= expires), since the collection
 * then places it again or finds it due, and writes nothing only for the very
 * deadline it holds: another deadline of the same tick would keep its old
 * boundary. timer_arm_same() serves it as any timer: its slot was chosen for
 * that deadline.
 *
 * Cost: a placement takes two more multiplications by the tick's reciprocal
 * (tempo_near_of()); a FINE timer due within 65 ticks costs its own expiry
 * and no other; one that starts in the levels is placed again once per level
 * it passes, in the collection's interrupt, and those collections are shared
 * with every other timer. A FINE timer is neither COARSE nor DEFERRABLE
 * (tempo_timer_init() refuses the mix).
 */

/**
 * DOC: timer wheel: isolation
 *
 * The one decision an arm makes about CPUs is where an idle timer goes
 * (timer_arm_tick(); include/tempo/timer.h, "tempo timer placement"). For an
 * unpinned arm with no CPU named, arm_home() asks housekeeping_cpu(this,
 * HK_TYPE_TIMER), a static key that stays off unless the kernel was booted
 * with CPUs isolated; on an isolated CPU the timer goes to
 * housekeeping_any_cpu(HK_TYPE_TIMER) by the remote-arm path (a message
 * on that CPU's inbox and a kick), as an arm_on() of that CPU would. Nothing
 * else changes: a timer held by a CPU stays there (the lazy paths never move
 * a timer), and hotplug evacuates as before. kmod/testing.h's
 * TEMPO_TP_WHEEL_HOME lets the KUnit suite play an isolated CPU on a kernel
 * without NO_HZ_FULL.
 */

/**
 * DOC: timer wheel: parking
 *
 * The owner's operations publish first and touch their lists after: one
 * cmpxchg decides the new state, then the entry is unlinked and linked,
 * before interrupts come back on. A fully ordered cmpxchg waits for every
 * earlier store, so unlinking first, as a doubly linked delete must touch two
 * neighbours that are cold when timers are many, made every arm and cancel
 * wait for those two cache misses; published first, the misses drain while
 * the caller goes on. Publishing first is
 * safe only if the new state keeps everyone else off the entry until the list
 * work is done: LK (still ours), QU (our own message, or one that we push
 * after the list work) or, for a cancel, PK. PK is the cancel's "mine, on no
 * list": other CPUs treat it like LK (they message @cpu, they never link the
 * entry), and the owner clears it with its next operation on the timer (a
 * local arm links it again, a settle of a message clears it). A parked
 * timer costs nothing: no list, slot or inbox refers to it. What PK still
 * guards is the window between the cancel's cmpxchg and its unlink, so
 * cancel_sync waits for it to clear like LK, and clears it itself or has the
 * owner clear it (timer_release()). Only eager cancels park: in a slot below
 * the far levels.
 */

/**
 * DOC: timer wheel: invariants
 *
 * I1  LK or PK => entry belongs to base cpu: only that CPU, with interrupts
 *     disabled, reads or writes it; outside its interrupts-off sections the
 *     entry is on exactly one of its lists (a slot or the expired list) if LK,
 *     on none if PK. Neither LK nor PK => entry is on no list and is touched
 *     only by whoever holds QU or claims the idle timer. So the owner takes
 *     the entry off its list BEFORE any cmpxchg that leaves the timer
 *     claimable (neither LK, PK nor QU), and links it only after the cmpxchg
 *     that sets LK: the moment all three are clear another CPU may claim the
 *     timer and link the same entry into its own wheel. An owner's cmpxchg
 *     that leaves LK, PK or a QU only it can act on lets it do its list work
 *     after the cmpxchg, within the same interrupts-off section (PARKING).
 *     Lazy operations change only PD, MV and seq: never the entry.
 * I2  QU => msg is on an inbox of base cpu (dinbox for a deferrable timer but
 *     for a release, DEFERRABLE) or is about to be pushed there by
 *     the context that set QU; exactly one context pushes per setting of QU.
 * I3  For every level, and the near and the fine level, occupied bit i is
 *     set iff its slot i is non-empty.
 * I4  wheel.next_expiry <= the earliest bucket expiry of any occupied slot of
 *     the levels; near_clk <= near_next <= the earliest occupied boundary of
 *     the near level; an occupied fine slot's fine_first <= its timers'
 *     boundaries, all of its tick.
 * I5  The hrtimer of base b is armed for base->programmed (ns) whenever
 *     programmed != NEVER, and programmed <= the start of the tick
 *     wheel.next_expiry, the instant of boundary wheel.near_next and that of
 *     the fine level's first (base_next()).
 * I6  Every occupied slot's bucket expiry lies within one revolution of its
 *     level's clock: [clk, clk + 64 * gran), so no slot is skipped or reused
 *     early (the arithmetic is kernel/time/timer.c's, with exact rounding);
 *     every occupied near slot's boundary within [near_clk, near_clk + 128),
 *     every occupied fine slot's tick within [fine_clk + 2, fine_clk + 66).
 * I7  A timer runs only if, at the claim, PD is set, MV is clear (no arm or
 *     cancel since its owner placed it), QU is clear (no message on its way
 *     that would reach a timer whose callback may free it) and its expiry
 *     tick is the current tick or before, or for a FINE timer its deadline
 *     the current time or before (checked, not assumed: expiry_due()).
 * I8  bucket is written only by whoever holds the entry (LK or PK on its
 *     CPU, or the QU it pops), and it is TEMPO_NO_BUCKET (none, kmod/wheel.h)
 *     unless the timer is LK in a far slot that has not been collected
 *     since: then it is that slot's bucket expiry. The holder clears it
 *     before the cmpxchg that lets go of the entry (DROP, FIRE, forward,
 *     park), the collection clears it before it reads the state words
 *     (P7), and a placement stores it before its cmpxchg (P6). It is read
 *     only with a state word that has LK set and QU and PK clear.
 *
 * CONCURRENCY MATRIX (per timer; rows and columns on different CPUs;
 * "-" = safe without a lock, "S" = caller serialises, as in timer_list)
 *
 * ::
 *
 *	           | arm | cancel | cancel_sync | owner collect/drain/claim
 *	arm        |  -  |   -    |     S       |  -
 *	cancel     |     |   -    |     -       |  -
 *	cancel_sync|     |        |     -       |  - (lets go of a held timer,
 *	           |     |        |             |     waits for LK|QU|PK to clear,
 *	           |     |        |             |     then for the callback)
 *
 * Arm and cancel are lazy or eager as the state word they read says; either
 * kind may race with either kind and with the owner: every decision is one
 * cmpxchg on the state word, and a failed one reads the word again and
 * decides again. On the owner CPU the eager paths and the owner's own work
 * are serialised by disabling interrupts: eager arm and cancel (any context
 * but NMI), the hrtimer and the kicks (interrupt context) and the
 * dispatcher's claim step (process context, interrupts off around the
 * claim). A lazy operation on the owner CPU runs with interrupts on: an
 * interrupt that collects or re-places the timer between its read and its
 * cmpxchg changes the word (P6, P7), and the cmpxchg fails.
 *
 * Wait contexts (lockdep's PROVE_RAW_LOCK_NESTING, on in 7.x debug kernels):
 * the owner's drain can wake a cancel_sync waiter (wake_up_var(), a
 * spinlock_t), which a raw hardirq context must not take. So the hrtimer is
 * not a _HARD one, and a remote kick's IPI (a csd, raw hardirq) only raises
 * the owner's irq_work, whose handler drains: one self-interrupt more per
 * kick. PREEMPT_RT is not supported: there these handlers would run in
 * threads with interrupts enabled, which the owner-only lists do not allow.
 */

/**
 * DOC: timer wheel: memory ordering
 *
 * Labels are LMM(function:letter); every pair is listed, here or, for
 * the inbox's P2, P5 and P8, in kmod/wheel_inbox.c. The owner's side of
 * P1, P2, P4 and P7 (base_collect, inbox_take, base_dispatch, base_run_irq)
 * is in kmod/wheel_owner.c.
 *
 *
 * P1  timer_arm_tick:A (expires, want_cpu stores) happens before timer_arm_tick:B (the
 *     fully ordered cmpxchg setting the new seq); timer_arm_lazy:B before
 *     timer_arm_lazy:C likewise. base_settle:A and base_collect:B
 *     (atomic_long_read_acquire of state) pair with either cmpxchg, so a
 *     settle or a collection that sees seq s also sees the expires written
 *     for seq s or later. A later write can only belong to an arm whose
 *     cmpxchg is still to come; that cmpxchg fails if the owner changed the
 *     word meanwhile, and otherwise sets MV, so the owner re-places the timer
 *     (a message or its slot's collection) with the expires it settled on or
 *     a newer one. tempo_timer_expires:A (acquire read of state) pairs with
 *     timer_arm_tick:B and timer_arm_lazy:C the same way: seeing PD set by an
 *     arm, it reads that arm's expires or a later one. So does
 *     timer_arm_same:A, which compares that expires with its own: equal, the
 *     timer holds this arm's deadline as the state it read published it.
 *     timer_arm_same:B (the same expiry's re-arm of a lazily cancelled timer)
 *     stores nothing, and is relaxed: the expires it publishes again is one
 *     that an earlier fully ordered cmpxchg, before the state it read, had
 *     published, and a settle or a collection that acquires its seq, later in
 *     the word's coherence order, reads that expires or a newer one. Its
 *     decision's reads come before it by timer_arm_same:A and by the control
 *     dependency of its condition.
 * P3  base_settle:B (the owner's fully ordered cmpxchg clearing LK/QU/PK of a
 *     cancelled timer) is followed by smp_mb() and wake_up_var(timer)
 *     (base_settle:C), pairing with wait_var_event()'s set_current_state()
 *     barrier in tempo_timer_cancel_sync(): the waiter either sees the cleared
 *     bits or is woken. timer_release:A (the owner clearing PK itself) is the
 *     same pattern. The waiter's acquire read of the cleared state orders
 *     the owner's list work before whatever the caller then does with the
 *     memory: the owner did that work before its cmpxchg (base_settle), or in
 *     an interrupts-off section that ended before the cmpxchg (PARKING).
 * P4  base_dispatch:A (WRITE_ONCE running = timer) is ordered before the claim
 *     cmpxchg base_dispatch:B; tempo_timer_cancel_sync() reads running after
 *     its own fully ordered cmpxchg (cancel) or acquire read of state. If the
 *     claim won, the canceller's cmpxchg came later in the state's coherence
 *     order, so its later read of running sees the timer (or the NULL stored
 *     after the callback). base_dispatch:C (store NULL, smp_mb, wake_up_var)
 *     pairs with the wait as in P3. base_run_irq:A, :B and :C do the same
 *     around an IRQ timer's callback, with base->irq_running (interrupt
 *     callbacks).
 * P6  base_settle:D and timer_arm_tick:C (the holder's store of bucket)
 *     happen before the fully ordered cmpxchg that publishes the placement
 *     (base_settle:B, timer_arm_tick:B). timer_arm_lazy:A, timer_arm_same:A
 *     and tempo_timer_cancel:A (acquire reads of state) pair with it: a lazy
 *     operation that sees the placement reads its bucket or a newer one. A
 *     newer one belongs to a placement whose cmpxchg is still to come (the
 *     holder retries until one succeeds), and then one of the two cmpxchgs
 *     fails; or, for timer_arm_same() of a pending precise timer, which
 *     has none, the placement is of the very expires it compared (another
 *     could only come with a cmpxchg, after that placement's), by the owner
 *     from its clock: either slot serves the deadline (the same expiry of
 *     a pending COARSE timer reads no bucket: LAZY). A timer no base held
 *     has no bucket (I8); the arm that links it stores its bucket after its
 *     cmpxchg, when the entry became its own, and until then a lazy
 *     operation reads none and is eager instead.
 * P7  Store buffering between a collection and a lazy re-arm. base_collect
 *     clears the bucket of every timer it collected, then base_collect:A
 *     (smp_mb()), then reads their state words. timer_arm_lazy:C (its fully
 *     ordered cmpxchg) is followed by timer_arm_lazy:D (a read of bucket).
 *     Either the collection sees the re-arm's MV and re-places the timer, or
 *     the re-arm sees no bucket, knows its slot was collected as it was, and
 *     has the owner re-place the timer at once (timer_poke()) rather than
 *     when the dispatcher comes to it, or, for a FINE timer the collection
 *     moved to the near or the fine level for its old deadline (FINE),
 *     before that.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/debugfs.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/isolation.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "internal.h"
#include "testing.h"
#include "trace.h"
#include "wheel.h"
#include "wheel_base.h"

/* The loaded wheel (kmod/wheel_base.h). */
struct tempo_base __percpu *bases;
struct workqueue_struct *dispatch_wq;
u32 tick_ns;
struct tempo_tick_div tick_recip;
unsigned int wheel_depth;
unsigned int lazy_idx;
u64 max_delay_ns;
struct tempo_lazy lazy_rule __read_mostly;
u64 coarse_max_delay_ns;
u64 jiffies_base_ns __read_mostly;

/* Whether @cpu's base takes timers: online, and not going offline. */
static bool __base_accepts(unsigned int cpu)
{
	return cpu < nr_cpu_ids && cpu_online(cpu) &&
	       READ_ONCE(per_cpu_ptr(bases, cpu)->online);
}

/* An online CPU other than @avoid to move timers to. */
static unsigned int __fallback_cpu(unsigned int avoid)
{
	unsigned int cpu;

	for_each_online_cpu(cpu)
		if (cpu != avoid && __base_accepts(cpu))
			return cpu;
	cpu = cpumask_any_but(cpu_online_mask, avoid);
	return cpu < nr_cpu_ids ? cpu : smp_processor_id();
}

/*
 * base_accepts() and fallback_cpu() for the wheel's other files, whose calls
 * are rare: a dkick that hotplug migrated, a push that met a sealed inbox.
 * This file calls the static ones: GCC lays out the arm path around calls
 * to static functions of this file as it cannot around global ones.
 */
__cold bool base_accepts(unsigned int cpu)
{
	return __base_accepts(cpu);
}

__cold unsigned int fallback_cpu(unsigned int avoid)
{
	return __fallback_cpu(avoid);
}

/* ---------------------------------------------------------------------- */
/* The owner's side: placement and settle.                                 */

/* Where an owner links a timer, chosen before the cmpxchg that publishes it. */
struct tempo_slot {
	unsigned int	idx;
	u64		bucket;		/* the tick the slot is collected at, or its boundary */
};

/* Whether @slot is of the near or the fine level (FINE): its bucket is a boundary. */
static inline bool slot_near(const struct tempo_slot *slot)
{
	return slot->idx >= TEMPO_NEAR_OFFS;
}

/* The flags that change where a timer goes (SLACK, DEFERRABLE, FINE). */
#define TIMER_PLACE_FLAGS	(TEMPO_TIMER_DEFERRABLE | TEMPO_TIMER_FINE | TEMPO_SLACK_MASK)

/*
 * base_choose() for a FINE timer (FINE): the near slot of its boundary, or of
 * its slack's aim, if that lies within the near level's two ticks, else the
 * fine slot of its tick, else the wheel slot of that tick, rounded down:
 * collected at or before the boundary, and placed again, nearer, then
 * (tempo_wheel_fine_slot()).
 */
static void base_choose_fine(struct tempo_base *base, u32 flags, u64 expires, u64 now,
			     struct tempo_slot *slot)
{
	struct tempo_wheel *w = &base->wheel;
	u32 code = (flags & TEMPO_SLACK_MASK) >> TEMPO_SLACK_SHIFT;
	u64 b;

	tempo_wheel_forward(w, now);
	tempo_wheel_near_forward(w, now << TEMPO_NEAR_SHIFT);
	if (code)
		b = tempo_wheel_fine_aim(w, &tick_recip, expires, tempo_slack_decode(code));
	else
		b = near_of(expires);
	slot->idx = tempo_wheel_fine_slot(w, b, &slot->bucket);
}

/* base_choose() for a timer with a slack, deferrable or FINE: out of line. */
static noinline void base_choose_flags(struct tempo_base *base, u32 flags, u64 expires,
				       u64 now, struct tempo_slot *slot)
{
	struct tempo_wheel *w = base_wheel_of(base, flags);
	u32 code = (flags & TEMPO_SLACK_MASK) >> TEMPO_SLACK_SHIFT;
	u64 slack;

	if (flags & TEMPO_TIMER_FINE) {
		base_choose_fine(base, flags, expires, now, slot);
		return;
	}
	tempo_wheel_forward(w, now);
	if (!code) {
		slot->idx = tempo_wheel_slot(w, expiry_tick(expires), &slot->bucket);
		return;
	}
	slack = tempo_slack_decode(code);
	slot->idx = tempo_wheel_slot_slack(w, expiry_tick(expires),
					   ns_to_tick_floor(expires) + slack, slack,
					   &slot->bucket);
}

/*
 * Choose the slot of @base's wheel for a timer whose flags are @flags (its
 * kind) to expire at @expires (ns), within its slack if it has one (SLACK),
 * at @now (the current tick). A timer with neither slack, DEFERRABLE nor
 * FINE pays one test of @flags and is placed inline; the others go out of
 * line. The arm and the settle read the flags once and pass them down.
 * Owner, irqs off.
 */
static __always_inline void base_choose(struct tempo_base *base, u32 flags, u64 expires,
					u64 now, struct tempo_slot *slot)
{
	if (unlikely(flags & TIMER_PLACE_FLAGS)) {
		base_choose_flags(base, flags, expires, now, slot);
		return;
	}
	tempo_wheel_forward(&base->wheel, now);
	slot->idx = tempo_wheel_slot(&base->wheel, expiry_tick(expires), &slot->bucket);
}

/*
 * What tempo_timer.bucket says of a timer linked into @slot (I8): its bucket,
 * in ns, if far, else TEMPO_NO_BUCKET. The near level is never far.
 */
static inline u64 slot_far(const struct tempo_slot *slot)
{
	return slot->idx >= lazy_idx && !slot_near(slot) ? slot->bucket * tick_ns :
							    TEMPO_NO_BUCKET;
}

/* Link @t, whose flags are @flags, into the slot base_choose() chose. */
static void base_link(struct tempo_base *base, struct tempo_timer *t, u32 flags,
		      const struct tempo_slot *slot)
{
	struct tempo_wheel *w = base_wheel_of(base, flags);

	tempo_wheel_link(w, t, slot->idx, slot->bucket);
	if (unlikely(slot_near(slot)))
		base_program(base, near_ns(slot->bucket));
	else if (unlikely(w != &base->wheel))
		base_carry(base, slot->bucket);
	else
		base_program(base, slot->bucket * tick_ns);
}

/* Where a pending timer held by @base should live. */
static unsigned int settle_target(struct tempo_base *base, struct tempo_timer *t)
{
	unsigned int want = READ_ONCE(t->want_cpu);

	if (want == base->cpu && base->online)
		return base->cpu;
	if (want != base->cpu && __base_accepts(want))
		return want;
	return base->online ? base->cpu : __fallback_cpu(base->cpu);
}

/*
 * Count what a successful cmpxchg from @old to @new did to whether a list or
 * an inbox holds the timer (see struct tempo_wheel_stats). Irqs off.
 */
static void stats_hold(struct tempo_base *base, long old, long new, bool fire)
{
	bool was = old & (TT_LINKED | TT_QUEUED), is = new & (TT_LINKED | TT_QUEUED);

	if (!was && is)
		base->stats.taken++;
	else if (was && !is && fire)
		base->stats.fired++;
	else if (was && !is)
		base->stats.released++;
}

/*
 * stats_hold() for cancel_sync's release (kmod/wheel_sync.c), a rare path: a
 * global stats_hold() would change how GCC lays out the arm path around it.
 */
__cold void base_count_hold(struct tempo_base *base, long old, long new)
{
	stats_hold(base, old, new, false);
}

/* What an arm or a settle does with @t after its cmpxchg succeeded. */
enum placement {
	PLACE_NOTHING,	/* a message already on its way settles it */
	PLACE_LINK,	/* link into this base's wheel */
	PLACE_FORWARD,	/* send to @target, which holds it next */
	PLACE_SEND,	/* send to @target, its holder */
};

/*
 * Carry out @how for @t, whose flags are @flags; @base is the calling CPU's
 * own base (interrupts off), @slot what base_choose() chose for PLACE_LINK.
 */
static void base_place(struct tempo_base *base, struct tempo_timer *t, u32 flags,
		       enum placement how, unsigned int target, const struct tempo_slot *slot)
{
	switch (how) {
	case PLACE_LINK:
		base_link(base, t, flags, slot);
		break;
	case PLACE_FORWARD:
		base->stats.forwarded++;
		fallthrough;
	case PLACE_SEND:
		timer_send(base, t, target, flags & TEMPO_TIMER_DEFERRABLE);
		break;
	case PLACE_NOTHING:
		break;
	}
}

/**
 * base_settle - bring @t's placement on @base in line with its state word
 * @base: the base, owned by the calling CPU with interrupts disabled
 * @t: a timer held by @base (LINKED or popped from its inbox)
 * @how: SETTLE_* flags
 * @now: the current time, ns
 *
 * Return: true if the caller must run @t's callback.
 */
bool base_settle(struct tempo_base *base, struct tempo_timer *t, unsigned int how, u64 now)
{
	unsigned int target = base->cpu;
	struct tempo_slot slot;
	long old, new;
	u64 expires;
	u32 flags = 0;
	enum { DROP, FIRE, PLACE, KEEP, FORWARD, UNLINK } act;

	/*
	 * Off our list before any cmpxchg that may clear LINKED: once it is
	 * clear another CPU may claim the timer and link the same entry into
	 * its own wheel (I1). LINKED with cpu == us changes only here and in
	 * our own arm/cancel, all with interrupts off on this CPU, so this
	 * decision cannot go stale. A timer that stays here is linked again.
	 */
	if (!(how & SETTLE_UNLINKED)) {
		old = atomic_long_read(&t->state);
		/* I1: LINKED names the CPU whose list holds the entry. */
		if ((old & TT_LINKED) && !WARN_ON_ONCE(tt_cpu(old) != base->cpu))
			tempo_wheel_del(base_wheel(base, t), t);
	}

	for (;;) {
		u64 far = TEMPO_NO_BUCKET;

		/* LMM(base_settle:A): pairs with timer_arm_tick:B, timer_arm_lazy:C (P1). */
		old = atomic_long_read_acquire(&t->state);
		expires = READ_ONCE(t->expires);
		new = old;
		if (how & SETTLE_POPPED)
			new &= ~TT_QUEUED;

		target = (old & TT_PENDING) ? settle_target(base, t) : base->cpu;
		/* Whatever happens, @t leaves our list and stops being parked. */
		new &= ~(TT_LINKED | TT_PARKED);
		if (!(old & TT_PENDING)) {
			act = DROP;
		} else if (target != base->cpu) {
			if (new & TT_QUEUED) {
				/* Our message is still queued: forward when it pops. */
				act = UNLINK;
			} else {
				act = FORWARD;
				new = tt_set_cpu(new, target) | TT_QUEUED;
			}
		} else if ((how & SETTLE_DUE) && !(old & (TT_MOVED | TT_QUEUED)) &&
			   expiry_due(READ_ONCE(t->flags), expires, now)) {
			/* A message on its way settles it first: only then may it run. */
			act = FIRE;
			new &= ~TT_PENDING;
		} else {
			/* A placement: published with a new seq, MV clear (P6, I7). */
			new = (tt_set_cpu(new, base->cpu) | TT_LINKED) & ~TT_MOVED;
			new += TT_SEQ_ONE;
			if ((how & SETTLE_COLLECTED) &&
			    expiry_due(READ_ONCE(t->flags), expires, now)) {
				/* Due: to the expired list, as if placed there. */
				act = KEEP;
			} else {
				act = PLACE;
				flags = READ_ONCE(t->flags);
				base_choose(base, flags, expires, ns_to_tick_floor(now), &slot);
				far = slot_far(&slot);
			}
		}
		/*
		 * LMM(base_settle:D): we hold the entry, so we write the bucket
		 * (I8): where we place it, or none where we let go of it or keep
		 * it on the expired list; published by base_settle:B (P6).
		 */
		WRITE_ONCE(t->bucket, far);
		tempo_test_point(TEMPO_TP_WHEEL_SETTLE, t, old, 0);
		/* LMM(base_settle:B): fully ordered; see P1, P3 and P6. */
		if (new == old || atomic_long_try_cmpxchg(&t->state, &old, new))
			break;
	}
	stats_hold(base, old, new, act == FIRE);

	switch (act) {
	case PLACE:
		base_place(base, t, flags, PLACE_LINK, target, &slot);
		break;
	case KEEP:
		list_add_tail(&t->entry, timer_irq(t) ? &base->irq_due : &base->expired);
		t->idx = TEMPO_IDX_EXPIRED;
		break;
	case FORWARD:
		base_place(base, t, READ_ONCE(t->flags), PLACE_FORWARD, target, NULL);
		break;
	case DROP:
		/* LMM(base_settle:C): pairs with tempo_timer_cancel_sync() (P3). */
		smp_mb();
		wake_up_var(t);
		break;
	case FIRE:
	case UNLINK:
		break;
	}
	if (how & SETTLE_COLLECTED) {
		if (act == DROP)
			base->stats.swept++;
		else if (act == PLACE || act == KEEP)
			base->stats.replaced++;
	}
	return act == FIRE;
}

/*
 * A FINE timer that a collection found pending as placed but not due (FINE):
 * to the near or the fine level, with no cmpxchg, if its boundary lies
 * within them. Its state word already says it is placed for this @expires
 * (PD set, MV clear), and a move between the owner's own lists is the
 * owner's alone (I1); its bucket stays none, so a lazy re-arm that the
 * collection did not see finds none after its cmpxchg and has it placed
 * again (P7). A boundary beyond them (from a coarse slot, rounded down) is
 * for base_settle(), whose cmpxchg publishes the far bucket it may store
 * (P6). Owner, irqs off; the caller saw TEMPO_TIMER_FINE (fixed at init).
 * Return: true if moved.
 */
bool base_near_move(struct tempo_base *base, struct tempo_timer *t, u64 expires, u64 now_tick)
{
	u32 flags = READ_ONCE(t->flags);
	struct tempo_slot slot;

	base_choose_fine(base, flags, expires, now_tick, &slot);
	if (!slot_near(&slot))
		return false;
	list_del(&t->entry);
	base_link(base, t, flags, &slot);
	return true;
}

/* ---------------------------------------------------------------------- */
/* Arm and cancel.                                                         */

/*
 * Where an unpinned arm of an idle timer made on @this goes (ISOLATION):
 * @this if it keeps time for the system (housekeeping_cpumask(HK_TYPE_TIMER):
 * every CPU unless nohz_full= or isolcpus=nohz), else a housekeeping CPU
 * that takes timers. Without isolation housekeeping_cpu() is a static key
 * that stays off: no load, no branch taken.
 */
static __always_inline unsigned int arm_home(unsigned int this)
{
	int hk = -1;

	if (!housekeeping_cpu(this, HK_TYPE_TIMER))
		hk = housekeeping_any_cpu(HK_TYPE_TIMER);
	tempo_test_point(TEMPO_TP_WHEEL_HOME, NULL, (uintptr_t)&hk, this);
	if (likely(hk < 0) || hk == this || !__base_accepts(hk))
		return this;
	return hk;
}

/*
 * Arm @t to expire at @expires (ns) on @cpu (or, for -1, where it is if it
 * is held by a base, else on the calling CPU): the eager arm. Interrupts are
 * off throughout.
 */
static int timer_arm_tick(struct tempo_timer *t, int cpu, u64 expires, u64 now)
{
	struct tempo_base *local = this_cpu_ptr(bases);
	unsigned int this = smp_processor_id(), owner, target;
	/* One load: tempo_timer_set_slack() may store the flags meanwhile (marked). */
	u32 flags = READ_ONCE(t->flags);
	bool pinned = flags & TEMPO_TIMER_PINNED;
	struct tempo_slot slot;
	enum placement how;
	long old, new;

	old = atomic_long_read(&t->state);
	for (;;) {
		bool held = old & TT_HELD;

		if (old & TT_SHUTDOWN)
			return -ESHUTDOWN;
		owner = tt_cpu(old);
		if (cpu >= 0)
			target = cpu;
		else if (held || (pinned && __base_accepts(owner)))
			target = owner;
		else if (pinned)
			target = this;
		else
			target = arm_home(this);
		if (target == this && !local->online)
			target = __fallback_cpu(this);

		/* LMM(timer_arm_tick:A): published by timer_arm_tick:B (P1). */
		WRITE_ONCE(t->expires, expires);
		WRITE_ONCE(t->want_cpu, target);
		new = (old | TT_PENDING | TT_MOVED) + TT_SEQ_ONE;

		if (held && owner == this && local->online) {
			/* Ours: linked, parked, or its message is on our inbox. */
			new &= ~(TT_LINKED | TT_PARKED);
			if (target == this) {
				how = PLACE_LINK;
				new |= TT_LINKED;
			} else if (old & TT_QUEUED) {
				/* Our own inbox holds its message; it forwards. */
				how = PLACE_NOTHING;
			} else {
				how = PLACE_FORWARD;
				new = tt_set_cpu(new, target) | TT_QUEUED;
			}
		} else if (held) {
			how = (old & TT_QUEUED) ? PLACE_NOTHING : PLACE_SEND;
			new |= TT_QUEUED;
			target = owner;
		} else if (target == this) {
			how = PLACE_LINK;
			new = tt_set_cpu(new, this) | TT_LINKED;
		} else {
			how = PLACE_SEND;
			new = tt_set_cpu(new, target) | TT_QUEUED;
		}
		if (how == PLACE_LINK) {
			new &= ~TT_MOVED;	/* we place it */
			base_choose(local, flags, expires, now, &slot);
		}
		if (held && owner == this && local->online) {
			/*
			 * LMM(timer_arm_tick:C): the holder writes the bucket (I8),
			 * published by timer_arm_tick:B (P6); none if we let go.
			 */
			WRITE_ONCE(t->bucket, how == PLACE_LINK ? slot_far(&slot) :
					      TEMPO_NO_BUCKET);
		}
		tempo_test_point(TEMPO_TP_WHEEL_ARM, t, old, 0);
		/* LMM(timer_arm_tick:B): fully ordered, pairs with base_settle:A (P1, P6). */
		if (atomic_long_try_cmpxchg(&t->state, &old, new))
			break;
	}
	/*
	 * Published first (PARKING): if it was on our list it still is ours,
	 * linked, or queued on our own inbox, or queued for a push that
	 * base_place() does below, so nobody else touches the entry yet.
	 */
	if ((old & TT_LINKED) && tt_cpu(old) == this && local->online)
		tempo_wheel_del(base_wheel_of(local, flags), t);
	/*
	 * A timer no base held has no bucket (I8) and is ours from the cmpxchg
	 * on: a lazy operation that reads none before this store is only eager.
	 */
	if (!(old & TT_HELD) && how == PLACE_LINK)
		WRITE_ONCE(t->bucket, slot_far(&slot));
	stats_hold(local, old, new, false);
	trace_tempo_timer_arm(t, target, expires, old & TT_PENDING);
	base_place(local, t, flags, how, target, &slot);
	return !!(old & TT_PENDING);
}

/*
 * May a re-arm to @expires (ns), @delay_ns from now, leave its timer in the
 * far slot collected at @bucket (LAZY)? Yes if the slot is collected less
 * than a granule of the new delay's level after the expiry tick: when that
 * level's granule exceeds the wait, its start is at most the delay. (A delay
 * of LVL_START(lvl) ticks or more, in ns, has a level of at least lvl,
 * whatever tempo_timer_slack_ns() rounds it to.) tempo_lazy_ok() (wheel.h)
 * computes it without a loop or a division.
 */
static __always_inline bool lazy_ok(u64 bucket, u64 expires, s64 delay_ns)
{
	/* TEMPO_NO_BUCKET fails the rule by itself (wheel.h): no test of our own. */
	return tempo_lazy_ok(&lazy_rule, bucket, expires, delay_ns);
}

/*
 * The lazy rule of a FINE timer (FINE): its far slot may keep it for a
 * deadline of @expires (ns) if it is collected at or before it; the
 * collection then places it again, nearer, or finds it due.
 */
static inline bool fine_lazy_ok(u64 bucket, u64 expires)
{
	/* TEMPO_NO_BUCKET is above every deadline an arm takes (wheel.h). */
	return bucket <= expires;
}

/* Whether deadline @was (ns) falls due at the same tick as @expires. */
static inline bool same_tick(u64 was, u64 expires)
{
	u64 end;

	if (was == expires)
		return true;
	if (max(was, expires) - min(was, expires) >= tick_ns)
		return false;
	end = expiry_tick(expires) * tick_ns;
	return was <= end && was > end - tick_ns;
}

/*
 * A lazy re-arm whose cmpxchg came after the owner collected the slot it
 * counted on (P7): have the owner re-place the timer now rather than when its
 * dispatcher claims it. Either this CPU holds it, or a message does it.
 */
static void timer_poke(struct tempo_timer *t)
{
	struct tempo_base *local;
	unsigned long flags;
	unsigned int this;
	long old;

	local_irq_save(flags);
	local = this_cpu_ptr(bases);
	this = smp_processor_id();
	old = atomic_long_read(&t->state);
	do {
		/* Settled already, or a message settles it. */
		if ((old & (TT_LINKED | TT_QUEUED)) != TT_LINKED)
			goto out;
		if (tt_cpu(old) == this && local->online) {
			base_settle(local, t, 0, ktime_get_ns());
			goto out;
		}
	} while (!atomic_long_try_cmpxchg(&t->state, &old, old | TT_QUEUED));
	timer_send(local, t, tt_cpu(old), timer_defers(t));
out:
	local_irq_restore(flags);
}

/*
 * The lazy arm (LAZY): @t stays in the far slot its holder placed it in, and
 * only its state word changes, with interrupts on.
 * Return: as tempo_timer_arm(), or -EAGAIN if the arm must be eager.
 */
static int timer_arm_lazy(struct tempo_timer *t, int cpu, u64 expires, s64 delay_ns)
{
	/* LMM(timer_arm_lazy:A): pairs with base_settle:B, timer_arm_tick:B (P6). */
	long old = atomic_long_read_acquire(&t->state), new;
	bool fine = READ_ONCE(t->flags) & TEMPO_TIMER_FINE;

	for (;;) {
		u64 was;

		if ((old & (TT_LINKED | TT_QUEUED | TT_PARKED | TT_SHUTDOWN)) != TT_LINKED ||
		    (cpu >= 0 && cpu != tt_cpu(old)) ||
		    !(unlikely(fine) ? fine_lazy_ok(READ_ONCE(t->bucket), expires) :
				       lazy_ok(READ_ONCE(t->bucket), expires, delay_ns)))
			return -EAGAIN;
		/*
		 * Pending for this expiry tick already, where it is: nothing
		 * to write (LAZY, the same expiry). Ordered by timer_arm_lazy:A.
		 * A FINE timer's expiry is its own: only the same deadline.
		 */
		was = READ_ONCE(t->expires);
		if ((old & TT_PENDING) &&
		    (unlikely(fine) ? was == expires : same_tick(was, expires)) &&
		    READ_ONCE(t->want_cpu) == tt_cpu(old)) {
			trace_tempo_timer_arm(t, tt_cpu(old), was, true);
			return 1;
		}
		tempo_test_point(TEMPO_TP_WHEEL_LAZY, t, old, 0);
		/* LMM(timer_arm_lazy:B): published by timer_arm_lazy:C (P1). */
		WRITE_ONCE(t->expires, expires);
		WRITE_ONCE(t->want_cpu, tt_cpu(old));
		new = (old | TT_PENDING | TT_MOVED) + TT_SEQ_ONE;
		/* LMM(timer_arm_lazy:C): fully ordered; P1, and P7 with base_collect:A. */
		if (atomic_long_try_cmpxchg(&t->state, &old, new))
			break;
		/* A failed cmpxchg orders nothing: read again, for P6. */
		old = atomic_long_read_acquire(&t->state);
	}
	trace_tempo_timer_arm(t, tt_cpu(old), expires, old & TT_PENDING);
	/* LMM(timer_arm_lazy:D): pairs with base_collect:A (P7). */
	if (unlikely(!tempo_bucket_far(READ_ONCE(t->bucket))))
		timer_poke(t);
	return !!(old & TT_PENDING);
}

/*
 * The same expiry (LAZY): an arm of @t, held where it is (and on @cpu, if >=
 * 0), to the very deadline @expires it has. Pending and COARSE (@coarse),
 * there is nothing to write and nothing to check: loads of one cache line,
 * as mod_timer() returns for an unchanged expires, and the timer keeps the
 * bound of the arm that set @expires. Otherwise its far slot must serve a
 * delay of @delay_ns (lazy_ok()): pending, there is again nothing to write;
 * cancelled and still in the slot (a lazy cancel), the expires is already
 * the one it publishes (P1): one cmpxchg, and no look at the bucket after it
 * (P7 does not arise, see LAZY). No division, no seqcount, nothing else. Any
 * other case is timer_arm_ns()'s, whose lazy arm also returns early for an
 * expiry in the same tick.
 * Return: as tempo_timer_arm(), or -EAGAIN for timer_arm_ns().
 */
static __always_inline int timer_arm_same(struct tempo_timer *t, int cpu, u64 expires,
					  s64 delay_ns, bool coarse)
{
	/*
	 * LMM(timer_arm_same:A): pairs with timer_arm_tick:B, timer_arm_lazy:C
	 * and base_settle:B (P1, P6).
	 */
	long old = atomic_long_read_acquire(&t->state);

	if ((old & (TT_LINKED | TT_QUEUED | TT_PARKED | TT_SHUTDOWN)) != TT_LINKED ||
	    (cpu >= 0 && cpu != tt_cpu(old)) || READ_ONCE(t->expires) != expires)
		return -EAGAIN;
	if (!(coarse && (old & TT_PENDING)) &&
	    !lazy_ok(READ_ONCE(t->bucket), expires, delay_ns))
		return -EAGAIN;
	/*
	 * Pending, want_cpu needs no look: every state with LK and not QU was
	 * published with the holder's (an arm that wants another CPU sets QU
	 * or takes the timer), and another value is an arm in flight's, which
	 * this one, writing nothing, precedes. The cmpxchg below would publish
	 * it again, so it must be the holder's.
	 */
	if (!(old & TT_PENDING)) {
		if (READ_ONCE(t->want_cpu) != tt_cpu(old))
			return -EAGAIN;
		tempo_test_point(TEMPO_TP_WHEEL_LAZY, t, old, 0);
		/* LMM(timer_arm_same:B): relaxed; it publishes nothing new (P1). */
		if (!atomic_long_try_cmpxchg_relaxed(&t->state, &old,
						     (old | TT_PENDING | TT_MOVED) + TT_SEQ_ONE))
			return -EAGAIN;
	}
	trace_tempo_timer_arm(t, tt_cpu(old), expires, old & TT_PENDING);
	return !!(old & TT_PENDING);
}

/* The eager arm, out of line: the lazy one has none of its frame. */
static noinline int timer_arm_eager(struct tempo_timer *t, int cpu, u64 deadline_ns, u64 now_ns)
{
	unsigned long flags;
	int ret;

	local_irq_save(flags);
	ret = timer_arm_tick(t, cpu, deadline_ns, ns_to_tick_floor(now_ns));
	local_irq_restore(flags);
	return ret;
}

/*
 * Every arm but the same expiry's (timer_arm_same(), which the callers try
 * first, inline, without this function's frame).
 */
static noinline int timer_arm_ns(struct tempo_timer *t, int cpu, u64 deadline_ns, u64 now_ns)
{
	int ret;

	if (cpu >= 0 && (cpu >= nr_cpu_ids || !cpu_online(cpu)))
		return -ENODEV;

	ret = timer_arm_lazy(t, cpu, deadline_ns, deadline_ns - now_ns);
	if (ret != -EAGAIN)
		return ret;
	return timer_arm_eager(t, cpu, deadline_ns, now_ns);
}

/*
 * "Now" for an arm of @t, whose flags are @flags, and the pad its deadline
 * gets: the precise clock, or for a COARSE timer the start of the current
 * jiffy and a jiffy (COARSE). A test may move the coarse reading back to make
 * it stale (kmod/testing.h).
 */
static __always_inline u64 timer_now(const struct tempo_timer *t, u32 flags, u64 *pad)
{
	u64 now;

	if (!(flags & TEMPO_TIMER_COARSE)) {
		*pad = 0;
		return ktime_get_ns();
	}
	now = jiffies_now_ns();
	tempo_test_point(TEMPO_TP_WHEEL_COARSE, t, (uintptr_t)&now, 0);
	*pad = TICK_NSEC;
	return now;
}

/*
 * A COARSE timer's arm after a delay (timer_arm_delay()), from @now, the
 * start of the jiffy, padded by @pad (timer_now()). The same expiry comes
 * before the range check: a deadline the timer holds was set within the
 * longest delay of an earlier or equal reading of its clock, so a delay that
 * reaches it is in range, unless now + pad + delay wraps, which only a delay
 * of 2^63 or more can do: the sign test keeps those out.
 */
static __always_inline int timer_arm_after(struct tempo_timer *t, int cpu, u64 delay_ns,
					   u64 now, u64 pad)
{
	int ret;

	ret = -EAGAIN;
	if ((s64)delay_ns >= 0)
		ret = timer_arm_same(t, cpu, now + pad + delay_ns, pad + delay_ns, true);
	if (ret != -EAGAIN)
		return ret;
	if (delay_ns > coarse_max_delay_ns)
		return -ERANGE;
	return timer_arm_ns(t, cpu, now + pad + delay_ns, now);
}

/*
 * A precise arm, out of line: its clock read is a call, and needs a frame.
 * Its deadline is never the one it had (the clock has moved): no same
 * expiry to try, only the same tick (timer_arm_lazy()).
 */
static noinline int timer_arm_precise(struct tempo_timer *t, int cpu, u64 delay_ns)
{
	u64 now = ktime_get_ns();

	if (delay_ns > max_delay_ns)
		return -ERANGE;
	return timer_arm_ns(t, cpu, now + delay_ns, now);
}

/*
 * tempo_timer_arm() and tempo_timer_arm_on(). A COARSE one is inline, with no call
 * before its same expiry's return and so no frame: the arm TCP-like users
 * repeat.
 */
static __always_inline int timer_arm_delay(struct tempo_timer *t, int cpu, u64 delay_ns)
{
	/* One load of the flags: tempo_timer_set_slack() may store them (marked). */
	u32 flags = READ_ONCE(t->flags);
	u64 pad, now;

	if (!(flags & TEMPO_TIMER_COARSE))
		return timer_arm_precise(t, cpu, delay_ns);
	now = timer_now(t, flags, &pad);
	return timer_arm_after(t, cpu, delay_ns, now, pad);
}

/**
 * tempo_timer_arm - arm or re-arm a timer to expire after a delay
 * @timer: the timer
 * @delay_ns: delay from now, in nanoseconds of CLOCK_MONOTONIC
 *
 * An idle timer is armed on the calling CPU (or, with TEMPO_TIMER_PINNED, on
 * the CPU it last ran on); a timer a CPU still holds (pending, or cancelled
 * but not yet let go of) stays there. Re-arming a pending timer moves its
 * expiry (mod_timer() semantics): its callback runs once, at the new time.
 *
 * Context: any but NMI. O(1), lock-free; does not sleep.
 * Return: 1 if @timer was pending, 0 if it was idle, -ERANGE if @delay_ns is
 * larger than tempo_timer_max_delay_ns() (less one jiffy for a COARSE timer),
 * -ESHUTDOWN after shutdown_sync. Nothing changes on error.
 */
int tempo_timer_arm(struct tempo_timer *timer, u64 delay_ns)
{
	return timer_arm_delay(timer, -1, delay_ns);
}
EXPORT_SYMBOL_NS_GPL(tempo_timer_arm, "TEMPO");

/**
 * tempo_timer_arm_on - arm or re-arm a timer on a given CPU
 * @timer: the timer
 * @cpu: the CPU whose workqueue runs the callback
 * @delay_ns: delay from now, in nanoseconds
 *
 * A timer held by another CPU is moved to @cpu by its holder. If @cpu goes
 * offline before the timer fires, the timer moves to another online CPU (as
 * every timer of an offlined CPU does).
 *
 * Context: any but NMI. O(1), lock-free; does not sleep.
 * Return: as tempo_timer_arm(), or -ENODEV if @cpu is not online.
 */
int tempo_timer_arm_on(struct tempo_timer *timer, int cpu, u64 delay_ns)
{
	if (cpu < 0)
		return -ENODEV;
	return timer_arm_delay(timer, cpu, delay_ns);
}
EXPORT_SYMBOL_NS_GPL(tempo_timer_arm_on, "TEMPO");

/**
 * tempo_timer_arm_at - arm or re-arm a timer at an absolute deadline
 * @timer: the timer
 * @cpu: the CPU, or TEMPO_CPU_LOCAL for tempo_timer_arm()'s placement
 * @deadline: absolute CLOCK_MONOTONIC time (ktime_get()); a deadline in the
 *	past fires at the next tick
 *
 * The deadline is exact for every timer: a COARSE one only places the timer
 * by the jiffies, and is never early.
 *
 * Context: any but NMI. O(1), lock-free; does not sleep.
 * Return: as tempo_timer_arm_on().
 */
int tempo_timer_arm_at(struct tempo_timer *timer, int cpu, ktime_t deadline)
{
	u64 deadline_ns = ktime_to_ns(deadline), pad, now;
	/* One load of the flags: tempo_timer_set_slack() may store them (marked). */
	u32 flags = READ_ONCE(timer->flags);
	int ret;

	if (cpu < TEMPO_CPU_LOCAL)
		return -ENODEV;
	if ((s64)deadline_ns < 0)	/* a negative ktime: fire at the next tick */
		deadline_ns = 0;
	now = timer_now(timer, flags, &pad);
	/* Then expires - now_tick is at most tempo_wheel_max_ticks() + 1. */
	if (deadline_ns > now && deadline_ns - now > max_delay_ns)
		return -ERANGE;
	ret = timer_arm_same(timer, cpu, deadline_ns, deadline_ns - now,
			     flags & TEMPO_TIMER_COARSE);
	if (ret != -EAGAIN)
		return ret;
	return timer_arm_ns(timer, cpu, deadline_ns, now);
}
EXPORT_SYMBOL_NS_GPL(tempo_timer_arm_at, "TEMPO");

/*
 * The eager cancel: tempo_timer_cancel() of a timer not in a far slot. Out of
 * line, so that the lazy cancel has none of its frame.
 */
static noinline bool timer_cancel_eager(struct tempo_timer *timer)
{
	struct tempo_base *local;
	unsigned long flags;
	bool ours, send;
	unsigned int this;
	long old, new;

	local_irq_save(flags);
	local = this_cpu_ptr(bases);
	this = smp_processor_id();
	old = atomic_long_read(&timer->state);
	/*
	 * On our list: park it, then unlink it (PARKING). Only this CPU, with
	 * interrupts off, changes LINKED while cpu is ours, so this holds.
	 */
	ours = (old & TT_LINKED) && tt_cpu(old) == this && local->online;
	for (;;) {
		new = old;
		send = false;
		if (old & TT_PENDING)
			new = ((new & ~TT_PENDING) | TT_MOVED) + TT_SEQ_ONE;
		if (ours) {
			new = (new & ~TT_LINKED) | TT_PARKED;
			/* We let go of the slot (I8). */
			WRITE_ONCE(timer->bucket, TEMPO_NO_BUCKET);
		} else if ((old & (TT_PENDING | TT_LINKED)) == (TT_PENDING | TT_LINKED) &&
			   !(old & TT_QUEUED)) {
			/* Held by another CPU: it unlinks when the message pops. */
			send = true;
			new |= TT_QUEUED;
		}
		tempo_test_point(TEMPO_TP_WHEEL_CANCEL, timer, old, 0);
		if (new == old || atomic_long_try_cmpxchg(&timer->state, &old, new))
			break;
	}
	if (ours) {
		tempo_test_point(TEMPO_TP_WHEEL_PARKED, timer, new, 0);
		tempo_wheel_del(base_wheel(local, timer), timer);
	}
	stats_hold(local, old, new, false);
	trace_tempo_timer_cancel(timer, old & TT_PENDING);
	if (send)
		timer_send(local, timer, tt_cpu(old), timer_defers(timer));
	local_irq_restore(flags);
	return old & TT_PENDING;
}

/**
 * tempo_timer_cancel - stop a pending timer
 * @timer: the timer
 *
 * A timer in a far slot (placed at least tens of milliseconds ahead: see
 * include/tempo/timer.h) stays there, and its CPU drops it when it reaches
 * the slot; any other is unlinked at once by the calling CPU, or by the CPU
 * that holds it, which this call kicks. The callback may still be running
 * (or about to run, if it was claimed) when this returns: use
 * tempo_timer_cancel_sync() before freeing or re-initialising @timer.
 *
 * Context: any but NMI. O(1), lock-free; does not sleep.
 * Return: true if this call stopped a pending expiry.
 */
bool tempo_timer_cancel(struct tempo_timer *timer)
{
	/* LMM(tempo_timer_cancel:A): pairs with base_settle:B, timer_arm_tick:B (P6). */
	long old = atomic_long_read_acquire(&timer->state), new;

	for (;;) {
		if (!(old & TT_PENDING))
			return false;
		/* The lazy cancel (LAZY): in a far slot, only the state word. */
		if ((old & (TT_LINKED | TT_QUEUED | TT_PARKED)) != TT_LINKED ||
		    !tempo_bucket_far(READ_ONCE(timer->bucket)))
			return timer_cancel_eager(timer);
		new = ((old & ~TT_PENDING) | TT_MOVED) + TT_SEQ_ONE;
		tempo_test_point(TEMPO_TP_WHEEL_LAZY, timer, old, 0);
		if (atomic_long_try_cmpxchg(&timer->state, &old, new))
			break;
		old = atomic_long_read_acquire(&timer->state);
	}
	trace_tempo_timer_cancel(timer, true);
	return true;
}
EXPORT_SYMBOL_NS_GPL(tempo_timer_cancel, "TEMPO");
