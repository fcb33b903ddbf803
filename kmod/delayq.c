// SPDX-License-Identifier: GPL-2.0
/*
 * tempo delay queue: take() blocks until an item's delay has expired, and no
 * consumer ever does a timed wait to find out when that is. consume() takes
 * with a verdict per item, decided under the queue's lock, and says when
 * each item was found due.
 *
 * Model
 * -----
 * Time is cut into ticks of the wheel (tempo_timer_tick_ns()). A pending
 * item due within DQ_NEAR_TICKS ticks is "near": it sits in the bucket of its
 * deadline's tick, in a one-level wheel of DQ_NEAR_SLOTS buckets with an
 * occupancy bitmap, and has no timer of its own. Any other pending item is
 * "far": it is on q->far with its own tempo timer, aimed at a stage before
 * its deadline (below); the callback moves it into the near window. A far
 * put does not arm that timer itself: the node waits on q->unfiled, with
 * no timer, until the kick (below), armed for the end of the current tick,
 * arms the timers of all such nodes at once and moves them to q->far
 * (delayq_file()). A far item removed before then never reaches the wheel,
 * as a timeout cancelled soon after it was set. An item
 * put with its deadline already passed goes to q->ready (through an inbox,
 * below).
 *
 * The queue keeps one clock, now_tick: the tick of the latest clock reading
 * taken under its lock. A near tick below now_tick is "due": every node in
 * it is past its deadline, which lies inside the tick. Due near nodes and the
 * nodes on q->ready are what a consumer may take, earliest tick first
 * (delayq_next()). Whoever holds the lock and reads the clock advances
 * now_tick (delayq_advance()): a far put(), a consumer that finds nothing
 * takeable, poll's ready(), a far node's callback, and the queue's one timer,
 * the kick, armed for the end of the earliest near tick that is not due
 * (or of the current one, while far nodes wait on q->unfiled). So
 * a busy queue's consumers release items themselves; the kick only matters
 * when everyone sleeps.
 *
 * Each node that becomes takeable wakes one consumer asleep in take(),
 * unless the caller that made it takeable takes it itself: an advance over
 * n nodes wakes n (delayq_wake()); a node put on q->ready wakes one.
 * A consumer leaving with a node takeable that it was woken for passes its
 * wake-up on (delayq_pass_on()).
 *
 * put() of a node due now or within the near window takes no lock: it
 * claims the node with a cmpxchg of its state, pushes it on an inbox (an
 * llist: q->inbox_due for a node due by put's reading, q->inbox otherwise)
 * and is done, unless someone must hear of it at once (delayq_put()).
 * Whoever next holds the lock takes the inbox in (delayq_absorb()), before
 * it looks at anything else. So producers and consumers do not take turns
 * on the lock per item: a consumer takes in a batch of puts with one lock
 * round trip. A far put takes the lock, as its timer is armed inside it.
 *
 * consume() (delayq_consume_locked()) shows a callback the takeable nodes in
 * the order take() takes them, and applies each verdict in the critical
 * section that showed the node: TAKE is take(); STOP leaves the node as it
 * is and ends the call; AGAIN unlinks the node and links it again for the
 * later deadline the callback set, as put() would link it by a fresh
 * reading (ready, near or far), without the node ever leaving the queue
 * (delayq_requeue()). The nodes of a due near tick are shown as one run,
 * taken while the callback answers TAKE, with the run's bookkeeping settled
 * once at its end (delayq_take_run()). A file interface builds its event
 * queue on it:
 * a periodic timer is one node that goes round with AGAIN, a record that
 * cannot be copied out is a STOP, items that are not timers are put due.
 *
 * Due stamps: the callback is told when the queue found the node due, the
 * time a file interface reports as the item's expiry. A READY node carries
 * its own (node->due, set as it is linked: delayq_ready_link()); a near
 * node's is its bucket's (q->near_due[], set by delayq_advance() for each
 * occupied tick that falls due, O(occupied ticks) as the advance already
 * is). q->now, the latest reading the queue advanced with, stamps what
 * becomes takeable without a reading of its own. Which stamp each path
 * sets, and why none is early:
 *
 *	path                                  due stamp
 *	put()/put_at() already due            put's reading (>= deadline)
 *	far node's expiry finds it due        the callback's reading
 *	AGAIN, new deadline due at once       consume's fresh reading
 *	inbox node absorbed after its tick,   q->now
 *	  window too short: made READY
 *	near tick falls due (advance)         that reading, in near_due[]
 *	inbox node joins an EMPTY bucket      q->now, in near_due[]
 *	  whose tick is already due
 *	inbox node joins an OCCUPIED bucket   the bucket's stamp, unchanged
 *	  whose tick is already due
 *	"cannot re-arm" WARN paths            the deadline itself
 *
 * Never before the deadline: a reading that finds a node due is at or
 * after its deadline: either directly (the reading is at least the
 * deadline) or through now_tick (the node's tick is below now_tick, so its
 * deadline is below now_tick * tick_ns, which is at most some earlier
 * reading, hence at most this one: every reading the queue advances with
 * happens before the next critical section's ktime_get(), and CLOCK_MONOTONIC
 * does not go back across CPUs). A near bucket is stamped by a reading whose
 * tick is past the bucket's, so the stamp is at least the end of the
 * bucket's tick, past every deadline in it. The bucket's slot is reused
 * every DQ_NEAR_SLOTS ticks and a tick may fall due while its bucket is
 * empty, so the stamp of an empty bucket means nothing: a node that joins
 * a due tick's empty bucket stamps it with q->now, whose tick is now_tick,
 * past the joiner's (and so past its deadline); one that joins an occupied
 * due bucket shares its tick (all nodes of a bucket do: the window is one
 * lap) and its valid stamp. A bucket's stamp is only read while the bucket
 * is occupied and due. Never after consume's own clock: every stamp but the
 * WARN paths' is a reading taken before consume's critical section.
 *
 * Why one timer and not one per item: a near item costs a list insert and a
 * bit in the bitmap, with no timer to arm and none to cancel on remove(); a
 * tick's worth of items falls due with one clock reading. Per-item timers
 * cost an arm, a callback on a workqueue and a lock round trip per item, and
 * let items that one CPU's late workqueue holds back be overtaken.
 *
 * Deadline order, to the tick
 * ---------------------------
 * Items leave in deadline order to the tick:
 *  - near nodes leave by tick, as the buckets are scanned from the earliest
 *    (delayq_near_min()), and nodes of one tick in put order;
 *  - q->ready is sorted by deadline (delayq_make_ready()), and a ready node
 *    leaves before a due near tick only if its tick is not later;
 *  - a ready node is never behind a near tick that is not due: it was due
 *    by a reading the queue advanced with (callers advance before they make
 *    a node ready), so its tick is at most now_tick, and every near tick
 *    that is not due is at least now_tick.
 * A far node's timer fires up to 1/8 of its delay late in a coarse wheel
 * level (kmod/wheel.c). So it is a stage (delayq_stage_at()), aimed early
 * enough for its level, to reach the near window DQ_NEAR_TICKS / 2 ticks
 * before its deadline; a node crosses at most one stage per wheel level.
 *
 * What remains: items due in the same tick may leave in either order, and a
 * far node whose stage callback (or the kick that files it) is held off for
 * more than DQ_NEAR_TICKS / 2 ticks (96 ms at the default tick) can be
 * overtaken by near ones. Exact
 * order would need a structure ordered at every put (a heap: O(log n)); here
 * put, remove, take and expiry stay O(1). A late kick (its CPU's workqueue
 * starved) delays the items that sleeping consumers wait for, all together
 * and in order; a consumer or producer that comes by releases them sooner.
 *
 * No timed waits
 * --------------
 * No consumer sleeps with a timeout computed from the head's deadline
 * (Documentation/tempo.rst compares this with a leader-follower queue).
 * The kick, a tempo timer owned by the queue and not by a consumer, is what
 * waits for the earliest near tick: no consumer holds a timer, none hands a
 * duty over when it leaves, and a new earlier head re-arms the kick (O(1),
 * lock-free, inside the lock) instead of waking anyone. Consumers sleep as
 * exclusive waiters (WQ_FLAG_EXCLUSIVE, at the tail, so FIFO) and are woken
 * one per takeable node, with every poll waiter (delayq_wake()): no
 * thundering herd. A file built on the queue may wake its pollers for events
 * of its own (tempo_delayq_wake_poll(), EPOLLOUT say): the consumers' wake
 * function (delayq_consumer_wake()) lets a wake-up whose key lacks EPOLLIN
 * pass, so it neither wakes a consumer nor uses up an exclusive wake-up.
 *
 * What remains is the kernel's rule for exclusive waiters (the comment in
 * prepare_to_wait_event(), kernel/sched/wait.c): a waiter selected by a
 * wake-up must consume the condition or pass the wake-up on. We meet it by
 * construction: the queue's lock IS the wait queue's lock (q->wait.lock, as
 * timerfd does), a node becomes takeable and its wake-up is delivered in one
 * critical section, and a consumer decides to leave (signal, kthread_stop,
 * timeout, shutdown) in the same critical section in which it has just found
 * nothing takeable, by a fresh clock reading. A wake-up that selected it
 * earlier came with a node it now sees and takes; a wake-up after it left
 * cannot select it. A consumer is off the wait queue while it advances the
 * clock itself, so the wake-ups it gives go to others. So there is no window
 * in which a selected waiter leaves with an error and a node still takeable;
 * delayq_wait() asserts this (WARN_ON_ONCE on leaving with an error while a
 * node is takeable, outside shutdown).
 *
 * A selected waiter may leave without an error and with a node takeable,
 * though: consume() answered STOP, or reached its @max; take() found nodes
 * that fell due in its own critical section besides the one it was woken
 * for. Each such consumer counts what it owes (delayq_pass_on()): one
 * wake-up per node that fell due under it, plus the one that selected it,
 * less one per node it took or requeued; and gives them before it leaves
 * the lock. A wake-up that selected it for a node gone since is nobody's
 * and is not passed on when nothing is left to take.
 *
 * A consumer-side timeout (take_timeout()) is the caller's own deadline, not
 * an item's: it sleeps with schedule_hrtimeout() on an absolute expiry.
 *
 * Node state machine (node->state; under q->wait.lock but for put's claim)
 * -------------------------------------------------------------------------
 *
 *	IDLE, TAKEN, REMOVED  --put, near, lock-free-->  INBOX
 *	IDLE, TAKEN, REMOVED  --put, due, lock-free--->  INBOX_DUE
 *	IDLE, TAKEN, REMOVED  --put, far, locked------>  PENDING (far: unfiled,
 *	                                                  or timer if it cannot
 *	                                                  wait: delayq_defer_far())
 *	IDLE, TAKEN, REMOVED  --put_many, locked------>  PENDING or READY
 *	INBOX      --absorb-->  PENDING (near: no timer; far if no room)
 *	INBOX      --absorb, its tick already due-->  PENDING in that tick's
 *	                                               bucket (or READY if the
 *	                                               window does not reach it)
 *	INBOX_DUE  --absorb-->  READY
 *	PENDING (far, unfiled)  --kick: file-->  PENDING (far: timer)
 *	PENDING    --far timer: stage-->  PENDING (near, or a closer stage)
 *	PENDING    --far timer: due-->  READY
 *	PENDING    --take (near node, its tick due)-->  TAKEN
 *	READY      --take-->  TAKEN
 *	PENDING (near, due), READY  --consume: TAKE-->  TAKEN
 *	PENDING (near, due), READY  --consume: STOP-->  unchanged
 *	PENDING (near, due), READY  --consume: AGAIN-->  PENDING (near or far,
 *	                                                 new deadline), or READY
 *	                                                 if due by then
 *	PENDING    --remove-->  REMOVED (stale=1 if a far timer was firing;
 *	                                 an unfiled node has none armed)
 *	READY      --remove-->  REMOVED
 *	PENDING, READY  --destroy-->  DETACHED (timer cancel_sync'd)
 *	DETACHED   --destroy's hand-back-->  REMOVED
 *
 * put_many and remove_many are put (its locked path, whatever the delay)
 * and remove on each node in turn, in one critical section: no other CPU
 * sees a batch half done, and a node named twice is handled as in turn.
 * take is take, take_timeout, try_take and drain. A near node of a due tick
 * is still PENDING: "due" is a property of its tick (below now_tick), so a
 * tick falls due without touching its nodes. consume's AGAIN moves a node
 * from one linked state to another inside one critical section: no other
 * CPU ever sees it unlinked.
 * IDLE, TAKEN and REMOVED are all "not queued": put() accepts them, and its
 * cmpxchg from one of them to INBOX* is how it claims the node without the
 * lock (every other change is made under the lock, by whoever the state
 * says owns the node, with WRITE_ONCE for put's READ_ONCE). TAKEN and
 * REMOVED only record how the node left. An INBOX* node is queued but not
 * yet linked: remove() takes the inbox in first, and refuses a node whose
 * put() has claimed it but not pushed it yet (the put is not done).
 * DETACHED is a node destroy() has claimed and is cancelling; put() and
 * remove() refuse it.
 *
 * Stale expiries. remove() runs in any context and cannot wait for a timer
 * callback. If tempo_timer_cancel() fails on a filed far node, the wheel has
 * already claimed the expiry and the callback is on its way to the lock. The
 * node becomes REMOVED with node->stale set and q->nstale counted. The
 * callback then finds stale set, clears it (its last access to the node) and
 * does nothing else. While stale is set, put() refuses the node (-EBUSY) and
 * its memory must stay valid: tempo_delayq_node_sync() (cancel_sync) waits it
 * out, and destroy() waits for q->nstale to reach zero before freeing q. A
 * near or unfiled node has no timer armed, so its removal is never stale.
 *
 * Invariants, whenever q->wait.lock is free (but for the inboxes, as of the
 * last time they were taken in, which every locked section does first):
 *  - a node is on q->inbox (q->inbox_due) iff its state is INBOX
 *    (INBOX_DUE) and its put() has pushed it. An INBOX node's tick is at
 *    least kick_tick, or its put() takes the lock after the push, or the
 *    kick's callback will see it (delayq_kick:A). An INBOX_DUE node's put()
 *    found nobody on the wait queue, or takes the lock after the push;
 *  - a node is on q->far, q->unfiled or a q->near bucket iff state ==
 *    PENDING; on q->far its timer is armed or its callback is running (the
 *    callback moves it), on q->unfiled or in a bucket no timer of it is
 *    armed; node->near is 1 + its bucket, or 0 on q->far and q->unfiled;
 *    node->far is DQ_FAR_UNFILED exactly on q->unfiled;
 *  - while q->unfiled is not empty, the kick is armed for the end of
 *    now_tick or of an earlier tick (kick_tick <= now_tick), or its callback
 *    is on its way: its critical section files them all;
 *  - every near node's tick lies in [near_clk, near_clk + DQ_NEAR_SLOTS), in
 *    bucket tick % DQ_NEAR_SLOTS; near_n counts each bucket's nodes and
 *    near_occupied marks the non-empty ones; ndue counts the near nodes whose
 *    tick is below now_tick;
 *  - now_tick only grows, and a clock reading at or after
 *    now_tick * tick_ns was taken; so a due node is past its deadline;
 *    q->now only grows, is at least now_tick * tick_ns, and is a clock
 *    reading taken before the current critical section;
 *  - a READY node's due stamp is at or after its deadline; an occupied
 *    near bucket whose tick is due has a stamp at or after the end of its
 *    tick and at most q->now (see "Due stamps" above);
 *  - if a near tick is not due, the kick is armed for the end of it or of
 *    an earlier one (kick_tick <= it), or its callback is on the way, unless
 *    the queue is dead;
 *  - a node is on q->ready iff state == READY; q->ready is sorted by
 *    deadline, ties in the order the nodes became ready;
 *  - for every takeable node, a consumer was woken, or one took it, or no
 *    consumer was asleep on the wait queue when it became takeable; in
 *    counts: while consumers sleep, the wake-ups given and not yet used by
 *    a consumer's next pass are at least the takeable nodes
 *    (delayq_pass_on());
 *  - npending/nnear/nready count those lists; nstale counts stale nodes;
 *  - put = taken + removed + flushed + npending + nready (the counters;
 *    stats report ndue of npending as ready). AGAIN changes none of them
 *    (the node stays in npending + nready) and counts as requeued; each
 *    lap's expiry counts as expired, as every node's does, so expired
 *    counts expiries, not items;
 *  - once q->dead is set, take*() return -ESHUTDOWN and put() refuses, so
 *    items leave only through remove() or destroy()'s hand-back.
 *
 * What runs concurrently with what: any two of these, on one queue, from
 * any CPUs, except destroy with anything but remove() and a take() already
 * asleep (the contract in include/tempo/delayq.h). How each pair is safe:
 *  - put vs put: lock-free pushes on an llist, each of a node it claimed;
 *  - put vs take*: delayq_wait:A, and the inbox is taken in under the lock;
 *    consume is a take* (its callback runs inside its critical section, so
 *    only the lock-free push of a put runs concurrently with the callback,
 *    on a node the callback is not shown until it is taken in);
 *  - put vs kick: delayq_kick:A; both may re-arm the kick (below);
 *  - put vs remove: remove() of a node put() is still pushing returns false;
 *  - put vs far callback: the callback needs the lock; a far put arms inside,
 *    or leaves the arm to the kick, which arms inside;
 *  - take* vs far callback, take* vs kick: both advance under the lock;
 *  - take* vs remove, remove vs remove, remove vs destroy: one claims the
 *    node, whoever changes its state first under the lock; a node consume
 *    requeues (AGAIN) stays claimable throughout: remove() finds it
 *    PENDING or READY before and after, and cannot run in between;
 *  - consume's AGAIN vs the node's own far timer: a takeable node has no
 *    timer armed (near) or its callback has done with it (READY), so the
 *    re-arm of a far requeue is the node's only arm; the timer contract
 *    allows arming while that callback returns;
 *  - remove vs far callback: the stale flag, above; an unfiled node has no
 *    callback, and remove() takes it off q->unfiled before the kick files it
 *    or after (both under the lock);
 *  - far callback vs far callback: one per node at a time (the wheel);
 *  - far callback vs destroy: the callback of a DETACHED node does nothing,
 *    and destroy cancel_sync()s it;
 *  - kick vs destroy: destroy shuts the kick down before it frees @q, and
 *    before it detaches the unfiled nodes (the kick files none after);
 *  - take* vs destroy: sleepers leave with -ESHUTDOWN; destroy waits for them.
 *
 * The kick may be re-armed while its callback waits for the lock (a put of
 * an earlier tick); the callback then finds nothing or less due, and
 * re-arms for the earliest near tick that is not due, which is no later.
 *
 * Locks and ordering
 * ------------------
 * One spinlock, q->wait.lock, taken with interrupts disabled (put() and
 * remove() may come from hard interrupts). It orders everything in this file
 * but the lock-free put() and two more accesses that happen without it.
 *
 * The lock-free put() (delayq_put:A): its llist_add() is a fully ordered
 * RMW; it publishes the node's fields to delayq_absorb()'s xchg
 * (delayq_absorb:A), and orders the push before put()'s two reads:
 *  - waitqueue_active(), for a due node. Pairs with delayq_wait:A: a
 *    consumer adds itself to the wait queue, then, after the full barrier of
 *    set_current_state(), reads q->inbox_due. Either the consumer sees the
 *    node (and takes it in before it sleeps) or put() sees the consumer
 *    (and takes the lock to wake it): the store-buffering pattern, with a
 *    full barrier on each side. A poller's add_wait_queue() is followed by
 *    tempo_delayq_ready(), whose absorb is an xchg, fully ordered, too.
 *  - kick_tick, for a node not due. Pairs with delayq_kick:A: the kick's
 *    callback writes kick_tick, then smp_mb(), then reads q->inbox. Either
 *    it sees the node (and comes back within this tick for it) or put()
 *    sees the new kick_tick (and takes the lock if its tick is earlier).
 *    Every other write of kick_tick lowers it, which only makes the kick
 *    fire earlier than a put() that read the old value relies on.
 * The two more accesses:
 *  - node->stale is read by put() of a node last queued on ANOTHER queue,
 *    holding only the new queue's lock: smp_load_acquire() in
 *    delayq_node_busy() pairs with the smp_store_release() in
 *    delayq_expire(), which is the callback's last access to the node, so
 *    put()'s later writes to the node cannot race with it.
 *  - node->q is read by the callback before it takes the lock: put() wrote it
 *    before arming the timer, and the wheel's arm/expire hand-off (see
 *    kmod/wheel.c) orders the arm before the callback.
 * Timers are armed inside the lock (tempo_timer_arm_at() is lock-free and
 * callable from any context; a far node's on the critical section's own
 * clock reading, tempo_timer_arm_at_from(), which only places the timer:
 * its deadline alone decides when it fires), so remove() and destroy()
 * never see a far node whose timer is being armed: a node on q->far has
 * its timer armed, one on q->unfiled has none, and the kick moves it from
 * one to the other inside the lock. The kick is never armed on a dead
 * queue: shutdown sets q->dead under the lock, and destroy()'s
 * tempo_timer_shutdown_sync() of the kick comes after.
 *
 * Costs: put O(1): lock-free for a near or due node (a clock reading, a
 * cmpxchg and an llist_add), unless it needs the kick earlier or a waiter
 * woken; a far node takes the lock (put_many: one lock round trip and one
 * clock reading for the batch), and its O(1) wheel arm is left to the kick,
 * which files every far node put in its tick in one critical section, on
 * one reading; a far node removed before then costs the queue a list unlink
 * and the wheel nothing. The kick is armed at most once per tick for it. Taking the inbox
 * in is O(1) per node, paid once, by whoever holds the lock next; remove
 * O(1), take O(1), consume O(1) per verdict plus its callback (AGAIN: a
 * clock reading and a relink as put() does, a timer arm if far), an advance
 * O(occupied ticks that fell due, each stamped) with one wake-up per node
 * that fell due (O(1) each with nobody asleep), plus one re-arm per stage
 * for a far node (at most one per wheel level). Insertion
 * into q->ready walks from the tail, one step per later deadline already
 * ready. peek is O(1) unless the earliest pending item has left since the
 * last peek with nothing ready; then it walks the pending lists once,
 * O(pending), under the lock: peek is for diagnostics and poll-style "when",
 * not for hot paths.
 *
 * Not guaranteed: order within one tick, and the far-node case above (see
 * include/tempo/delayq.h); fairness beyond the FIFO order of exclusive
 * waiters (a consumer woken by a signal, a timeout or spuriously goes back
 * to the tail); anything after destroy() starts other than for consumers
 * already asleep in take().
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/percpu.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <uapi/linux/eventpoll.h>
#include <tempo/delayq.h>
#include <tempo/timer.h>

#include "internal.h"
#include "testing.h"

enum delayq_state {
	DELAYQ_IDLE = 0,
	DELAYQ_INBOX,		/* put lock-free, not due by put's reading */
	DELAYQ_INBOX_DUE,	/* put lock-free, due by put's reading */
	DELAYQ_PENDING,
	DELAYQ_READY,
	DELAYQ_TAKEN,
	DELAYQ_REMOVED,
	DELAYQ_DETACHED,
};

/* How a node on q->far or q->unfiled waits (node->far); DQ_FAR_STAGE otherwise. */
enum delayq_far {
	DQ_FAR_STAGE = 0,	/* its timer is armed for a stage before its deadline */
	DQ_FAR_EXACT,		/* its timer is armed for its deadline */
	DQ_FAR_UNFILED,		/* on q->unfiled: no timer yet, the kick arms it */
};

enum delayq_counter {
	DELAYQ_STAT_PUT,
	DELAYQ_STAT_EXPIRED,
	DELAYQ_STAT_TAKEN,
	DELAYQ_STAT_REMOVED,
	DELAYQ_STAT_FLUSHED,
	DELAYQ_STAT_WAKEUPS,
	DELAYQ_STAT_REARMED,
	DELAYQ_STAT_STAGED,
	DELAYQ_STAT_REQUEUED,
	DELAYQ_NR_STATS
};

/*
 * The near window: a node due within DQ_NEAR_TICKS ticks sits in the bucket of
 * its deadline's tick, with no timer of its own. DQ_NEAR_SLOTS - DQ_NEAR_TICKS
 * leaves room for due buckets that no consumer has emptied yet; a node that
 * does not fit waits on q->far with a timer instead. Far nodes are staged
 * into the window DQ_NEAR_TICKS / 2 ticks before their deadline.
 */
#define DQ_NEAR_TICKS	192
#define DQ_NEAR_SLOTS	256
#define DQ_EXACT_TICKS	32	/* < 63: the wheel's level 0 */

struct tempo_delayq {
	struct llist_head	inbox;		/* INBOX nodes: lock-free puts */
	struct llist_head	inbox_due;	/* INBOX_DUE nodes: ditto, due */
	wait_queue_head_t	wait;		/* .lock protects all below */
	struct list_head	far;		/* PENDING with a timer: put order */
	struct list_head	unfiled;	/* PENDING far, timer not armed yet */
	struct list_head	near[DQ_NEAR_SLOTS]; /* PENDING without: by tick % slots */
	unsigned int		near_n[DQ_NEAR_SLOTS];	/* nodes in near[i] */
	ktime_t			near_due[DQ_NEAR_SLOTS]; /* near[i]'s due stamp */
	DECLARE_BITMAP(near_occupied, DQ_NEAR_SLOTS);	/* near[i] non-empty */
	u64			near_clk;	/* <= tick of every near node */
	u64			now_tick;	/* latest reading's tick: below, due */
	ktime_t			now;		/* latest reading: now_tick's, or later */
	u64			kick_tick;	/* q->kick's near tick, or U64_MAX */
	u64			tick_ns;	/* tempo_timer_tick_ns() */
	u64			max_delay_ns;	/* tempo_timer_max_delay_ns() */
	struct tempo_timer	kick;		/* fires as a near tick falls due */
	struct list_head	ready;		/* READY nodes, by deadline */
	unsigned int		npending;	/* far + near */
	unsigned int		nnear;
	unsigned int		ndue;		/* near nodes of due ticks */
	unsigned int		nready;		/* on q->ready */
	unsigned int		nstale;		/* removed, callback in flight */
	unsigned int		nwaiters;	/* consumers in delayq_wait() */
	ktime_t			pending_min;	/* earliest pending deadline... */
	bool			pending_min_valid; /* ...if this is set */
	bool			dead;		/* shutdown: take* fail */
	u64			count[DELAYQ_NR_STATS];
};

/* Module totals: per-CPU so that queues on different CPUs share no line. */
struct delayq_totals {
	u64	count[DELAYQ_NR_STATS];
};

static DEFINE_PER_CPU(struct delayq_totals, delayq_totals);
static atomic_t delayq_live = ATOMIC_INIT(0);

static const char * const delayq_counter_names[DELAYQ_NR_STATS] = {
	[DELAYQ_STAT_PUT]	= "put",
	[DELAYQ_STAT_EXPIRED]	= "expired",
	[DELAYQ_STAT_TAKEN]	= "taken",
	[DELAYQ_STAT_REMOVED]	= "removed",
	[DELAYQ_STAT_FLUSHED]	= "flushed",
	[DELAYQ_STAT_WAKEUPS]	= "wakeups",
	[DELAYQ_STAT_REARMED]	= "rearmed",
	[DELAYQ_STAT_STAGED]	= "staged",
	[DELAYQ_STAT_REQUEUED]	= "requeued",
};

/* Under q->wait.lock, so the queue's counter needs no atomics. */
static void delayq_count_n(struct tempo_delayq *q, enum delayq_counter c,
			   unsigned int n)
{
	q->count[c] += n;
	this_cpu_add(delayq_totals.count[c], n);
}

static void delayq_count(struct tempo_delayq *q, enum delayq_counter c)
{
	delayq_count_n(q, c, 1);
}

static void delayq_lock_held(struct tempo_delayq *q)
{
	lockdep_assert_held(&q->wait.lock);
}

/*
 * Under q->wait.lock, or by the put() that owns the node; put() reads the
 * state of a node it may not own (the -EBUSY check), hence WRITE_ONCE.
 */
static void delayq_set_state(struct tempo_delayq_node *node, enum delayq_state state)
{
	WRITE_ONCE(node->state, state);
}

/* The deadlines are ktime_t (s64 ns of CLOCK_MONOTONIC): no wrap in 292 years. */
static bool delayq_node_before(const struct tempo_delayq_node *a,
			       const struct tempo_delayq_node *b)
{
	return ktime_before(a->deadline, b->deadline);
}

/* Is @state one of "not queued", which put() accepts? */
static bool delayq_state_free(u32 state)
{
	return state == DELAYQ_IDLE || state == DELAYQ_TAKEN || state == DELAYQ_REMOVED;
}

/*
 * Can @node not be put now? Called with the new queue's lock held, which is
 * also the node's queue's lock unless the node was last on another queue.
 */
static bool delayq_node_busy(const struct tempo_delayq_node *node)
{
	if (!delayq_state_free(READ_ONCE(node->state)))
		return true;
	/* LMM(delayq_node_busy:A) Pairs with: delayq_expire:A. */
	return smp_load_acquire(&node->stale);
}

/* The tick of @t (CLOCK_MONOTONIC); times before boot count as tick 0. */
static u64 delayq_tick(const struct tempo_delayq *q, ktime_t t)
{
	return t > 0 ? div64_u64(t, q->tick_ns) : 0;
}

/*
 * delayq_tick(@t) < @tick, without a division (a helper call on some
 * CPUs, and on the hot paths here). @tick is a real tick, far from
 * overflowing when multiplied back.
 */
static bool delayq_tick_below(const struct tempo_delayq *q, ktime_t t, u64 tick)
{
	return t < 0 ? tick > 0 : (u64)t < tick * q->tick_ns;
}

/*
 * Wake @n consumers (exclusive waiters, FIFO) and every poll waiter: one per
 * node that just became takeable and that the caller does not take itself.
 */
static void delayq_wake(struct tempo_delayq *q, unsigned int n)
{
	delayq_lock_held(q);
	if (n == 1)
		wake_up_locked_poll(&q->wait, EPOLLIN | EPOLLRDNORM);
	else if (n)	/* poll waiters see a NULL key: "any event", re-poll */
		__wake_up_locked(&q->wait, TASK_NORMAL, min_t(unsigned int, n, INT_MAX));
}

/*
 * The earliest near tick at or after @from, or U64_MAX. O(1): two
 * find-bit scans of DQ_NEAR_SLOTS bits. Every near tick lies in
 * [near_clk, near_clk + DQ_NEAR_SLOTS), so the slot at cyclic distance d
 * from @from's holds tick @from + d if that is inside the window.
 */
static u64 delayq_near_from(const struct tempo_delayq *q, u64 from)
{
	unsigned int s, b, d;

	if (!q->nnear || from >= q->near_clk + DQ_NEAR_SLOTS)
		return U64_MAX;
	from = max(from, q->near_clk);
	s = from % DQ_NEAR_SLOTS;
	b = find_next_bit(q->near_occupied, DQ_NEAR_SLOTS, s);
	if (b < DQ_NEAR_SLOTS) {
		d = b - s;
	} else {
		b = find_first_bit(q->near_occupied, s);
		d = b < s ? b + DQ_NEAR_SLOTS - s : DQ_NEAR_SLOTS;
	}
	return from + d < q->near_clk + DQ_NEAR_SLOTS ? from + d : U64_MAX;
}

/* The earliest near tick, or U64_MAX; near_clk moves up to it. */
static u64 delayq_near_min(struct tempo_delayq *q)
{
	u64 tick = delayq_near_from(q, q->near_clk);

	if (tick != U64_MAX)
		q->near_clk = tick;
	else
		WARN_ON_ONCE(q->nnear);	/* nnear says a bucket is occupied */
	return tick;
}

/*
 * Take a clock reading @now: the near ticks below its tick are due. Every
 * node in such a tick is past its deadline, since its deadline lies inside
 * the tick; the bucket of each occupied tick that falls due keeps @now as
 * its due stamp, which is past every deadline in it. Return the number of
 * near nodes that fell due with this reading: the caller wakes one consumer
 * for each it does not take itself. O(occupied ticks that fell due).
 */
static unsigned int delayq_advance(struct tempo_delayq *q, ktime_t now)
{
	unsigned int n = 0;
	u64 tick, t;

	delayq_lock_held(q);
	if (ktime_after(now, q->now))
		q->now = now;
	if (delayq_tick_below(q, now, q->now_tick + 1))
		return 0;	/* still in now_tick (or before) */
	tick = delayq_tick(q, now);
	for (t = delayq_near_from(q, q->now_tick); t < tick;
	     t = delayq_near_from(q, t + 1)) {
		n += q->near_n[t % DQ_NEAR_SLOTS];
		q->near_due[t % DQ_NEAR_SLOTS] = now;
	}
	q->now_tick = tick;
	q->ndue += n;
	delayq_count_n(q, DELAYQ_STAT_EXPIRED, n);
	return n;
}

/*
 * Is a node due @deadline takeable, by the reading @now the caller just
 * advanced with, or by an earlier reading on another CPU?
 */
static bool delayq_due(const struct tempo_delayq *q, ktime_t deadline, ktime_t now)
{
	return !ktime_before(now, deadline) || delayq_tick_below(q, deadline, q->now_tick);
}

/* Arm the kick for the end of near tick @tick (a no-op once shut down). */
static void delayq_kick_at(struct tempo_delayq *q, u64 tick)
{
	int err;

	if (q->dead)
		return;
	err = tempo_timer_arm_at(&q->kick, TEMPO_CPU_LOCAL,
				 ns_to_ktime((tick + 1) * q->tick_ns));
	if (!WARN_ON_ONCE(err < 0))
		WRITE_ONCE(q->kick_tick, tick);	/* put() reads it: see delayq_kick() */
}

/*
 * Link @node into the near window, unless its tick lies outside it. Return
 * whether it did.
 *
 * A node not due: its tick lies beyond the window only while a due tick at
 * the window's start is not yet emptied. Every near node was due within
 * DQ_NEAR_TICKS ticks of a reading no later than now_tick, and @node's tick
 * is at least now_tick, so lowering near_clk to @node's tick keeps every
 * node inside the window. Arms the kick if @node is now the earliest tick
 * it must fire for.
 *
 * A node whose tick is already due (one the inbox held until after its
 * tick): it joins its tick's bucket, takeable at once, if that is inside
 * the window as it stands; the caller wakes a consumer for it. Ready nodes
 * are sorted into q->ready, which costs a walk when they come out of
 * order, as a batch from the inbox does: a bucket costs nothing. If the
 * bucket is empty, its due stamp is stale (its slot fell due a lap ago, or
 * the tick fell due while the bucket was empty): it becomes q->now, a
 * reading past the end of every due tick. An occupied due bucket keeps its
 * stamp, past the end of its tick, which is @node's.
 */
static bool delayq_near_add(struct tempo_delayq *q, struct tempo_delayq_node *node)
{
	u64 tick = delayq_tick(q, node->deadline);
	unsigned int idx = tick % DQ_NEAR_SLOTS;
	bool due = tick < q->now_tick;

	if (!q->nnear)
		q->near_clk = tick;
	else if (tick < q->near_clk && !due)
		q->near_clk = tick;
	else if (tick < q->near_clk || tick - q->near_clk >= DQ_NEAR_SLOTS)
		return false;
	if (due && !q->near_n[idx])
		q->near_due[idx] = q->now;
	list_add_tail(&node->entry, &q->near[idx]);
	q->near_n[idx]++;
	__set_bit(idx, q->near_occupied);
	q->nnear++;
	node->near = idx + 1;
	if (due) {
		q->ndue++;
		delayq_count(q, DELAYQ_STAT_EXPIRED);
	} else if (tick < q->kick_tick) {
		delayq_kick_at(q, tick);
	}
	return true;
}

/*
 * Where a far node's timer goes, @left ticks before its deadline:
 * - below DQ_EXACT_TICKS (inside the wheel's level 0, which fires to the
 *   tick): at the deadline itself;
 * - below DQ_NEAR_TICKS (a node the near window had no room for): a stage
 *   aimed DQ_EXACT_TICKS / 2 ticks early;
 * - else: a stage aimed DQ_NEAR_TICKS / 2 ticks early, so the node joins the
 *   near window well before its deadline.
 * A stage aims early by the slack of the level its delay lands in too
 * (tempo_timer_slack_ns()), so it never fires late; each stage leaves at most
 * about 1/8 of the remaining delay, so a node crosses at most one stage per
 * wheel level. @exact is set when the timer is at the deadline.
 */
static ktime_t delayq_stage_at(struct tempo_delayq *q, ktime_t deadline, ktime_t now,
			       bool *exact)
{
	u64 left = ktime_sub(deadline, now), margin;

	*exact = left < DQ_EXACT_TICKS * q->tick_ns;
	if (*exact)
		return deadline;
	if (left < DQ_NEAR_TICKS * q->tick_ns)
		margin = DQ_EXACT_TICKS / 2 * q->tick_ns;
	else
		margin = DQ_NEAR_TICKS / 2 * q->tick_ns;
	return ktime_sub_ns(deadline, margin + tempo_timer_slack_ns(left - margin));
}

/* The bookkeeping of a node just linked on q->far or in a near bucket. */
static void delayq_pending_account(struct tempo_delayq *q, struct tempo_delayq_node *node)
{
	/* An invalid minimum stays invalid: peek() recomputes it. */
	if (!q->npending) {
		q->pending_min = node->deadline;
		q->pending_min_valid = true;
	} else if (q->pending_min_valid &&
		   ktime_before(node->deadline, q->pending_min)) {
		q->pending_min = node->deadline;
	}
	q->npending++;
	delayq_set_state(node, DELAYQ_PENDING);
}

/*
 * Arm far @node's timer for its deadline or its next stage, on @now, a
 * reading taken in this critical section: it only places the timer in the
 * wheel, the stage alone decides when it fires (tempo_timer_arm_at_from()).
 */
static int delayq_arm_far(struct tempo_delayq *q, struct tempo_delayq_node *node,
			  ktime_t now)
{
	bool exact;
	int err;

	err = tempo_timer_arm_at_from(&node->timer, TEMPO_CPU_LOCAL,
				      ktime_to_ns(delayq_stage_at(q, node->deadline, now, &exact)),
				      ktime_to_ns(now));
	if (err >= 0)
		node->far = exact ? DQ_FAR_EXACT : DQ_FAR_STAGE;
	return err;
}

/*
 * May far @node wait on q->unfiled, its timer not armed yet, for the kick
 * to arm it (delayq_file())? Only if it is far by its delay, so its first
 * stage lies at least DQ_NEAR_TICKS / 2 ticks (less its level's slack) past
 * @now, the caller's reading, and the kick comes within a tick or two; and
 * within the wheel's range, so that the kick's arm, on a later reading,
 * cannot fail. Arms the kick for the end of now_tick unless it is armed
 * for that tick or an earlier one (or its callback is on its way, which
 * files what it finds: kick_tick is only reset in its critical section).
 */
static bool delayq_defer_far(struct tempo_delayq *q, struct tempo_delayq_node *node,
			     ktime_t now)
{
	u64 left = ktime_sub(node->deadline, now);

	if (left < DQ_NEAR_TICKS * q->tick_ns || left > q->max_delay_ns)
		return false;
	if (q->kick_tick > q->now_tick)
		delayq_kick_at(q, q->now_tick);
	/* Not armed (a dead queue, a failed arm): arm the node's timer now. */
	return q->kick_tick <= q->now_tick;
}

/*
 * Make @node, not due, PENDING: in the near window if @near (it is due
 * within DQ_NEAR_TICKS ticks) and the window has room, else far: on
 * q->unfiled if @defer and delayq_defer_far() allows, else on q->far with
 * its timer armed (@near false: the caller knows the window has no room
 * for it). @now is the caller's clock reading, which the queue has been
 * advanced with; NULL if the caller has none (the clock is then read if a
 * timer must be armed; @defer must be false).
 */
static int delayq_link_pending(struct tempo_delayq *q, struct tempo_delayq_node *node,
			       bool near, const ktime_t *now, bool defer)
{
	int err;

	delayq_lock_held(q);
	node->near = 0;
	node->far = DQ_FAR_STAGE;
	if (!near || !delayq_near_add(q, node)) {
		ktime_t t = now ? *now : ktime_get();

		if (defer && delayq_defer_far(q, node, t)) {
			node->far = DQ_FAR_UNFILED;
			list_add_tail(&node->entry, &q->unfiled);
		} else {
			err = delayq_arm_far(q, node, t);
			if (err < 0)
				return err;
			list_add_tail(&node->entry, &q->far);
		}
	}
	delayq_pending_account(q, node);
	return 0;
}

/*
 * delayq_link_pending() of a node not due by @now, the caller's reading;
 * @defer as there.
 */
static int delayq_pending_add(struct tempo_delayq *q, struct tempo_delayq_node *node,
			      ktime_t now, bool defer)
{
	return delayq_link_pending(q, node,
				   ktime_sub(node->deadline, now) < DQ_NEAR_TICKS * q->tick_ns,
				   &now, defer);
}

static void delayq_pending_del(struct tempo_delayq *q,
			       struct tempo_delayq_node *node)
{
	delayq_lock_held(q);
	list_del_init(&node->entry);
	if (node->near) {
		unsigned int idx = node->near - 1;

		if (!--q->near_n[idx])
			__clear_bit(idx, q->near_occupied);
		if (delayq_tick_below(q, node->deadline, q->now_tick))
			q->ndue--;
		q->nnear--;
		node->near = 0;
	}
	q->npending--;
	/* Removing the minimum (or a tie of it) invalidates the cached one. */
	if (!q->npending || !ktime_after(node->deadline, q->pending_min))
		q->pending_min_valid = false;
}

/*
 * Insert @node, due, into the ready list by deadline, walking from the tail:
 * O(1) when nodes arrive in deadline order, the common case. Equal deadlines
 * keep arrival order. @due is its due stamp: the reading that found it due,
 * at or after its deadline. The caller wakes a consumer for it.
 */
static void delayq_ready_link(struct tempo_delayq *q, struct tempo_delayq_node *node,
			      ktime_t due)
{
	struct list_head *pos = q->ready.prev;

	delayq_lock_held(q);
	while (pos != &q->ready &&
	       delayq_node_before(node, list_entry(pos, struct tempo_delayq_node,
						   entry)))
		pos = pos->prev;
	list_add(&node->entry, pos);
	q->nready++;
	node->due = due;
	delayq_set_state(node, DELAYQ_READY);
	delayq_count(q, DELAYQ_STAT_EXPIRED);
}

/* delayq_ready_link(), and wake pollers and one consumer. */
static void delayq_make_ready(struct tempo_delayq *q, struct tempo_delayq_node *node,
			      ktime_t due)
{
	delayq_ready_link(q, node, due);
	delayq_wake(q, 1);
}

/*
 * The kick's filing: arm the timer of every node on q->unfiled, on the
 * kick's reading @now, and move it to q->far, in put order. A node the
 * kick comes so late for that its deadline has passed is armed for the
 * deadline itself, which fires at once: never early. The arm cannot fail
 * (delayq_defer_far() checked the range, and the delay has only shrunk);
 * should it, the node is made ready at its deadline, as in delayq_expire().
 */
static void delayq_file(struct tempo_delayq *q, ktime_t now)
{
	struct tempo_delayq_node *node, *next;

	delayq_lock_held(q);
	list_for_each_entry_safe(node, next, &q->unfiled, entry) {
		if (!WARN_ON_ONCE(delayq_arm_far(q, node, now) < 0)) {
			list_move_tail(&node->entry, &q->far);
			continue;
		}
		node->far = DQ_FAR_STAGE;
		delayq_pending_del(q, node);
		delayq_make_ready(q, node, node->deadline);
	}
}

/*
 * Take in the nodes put() queued lock-free since the last time, in put
 * order. A node due by its put's own reading becomes ready, and the queue
 * advances with that reading (node->due, its due stamp); a node whose
 * tick is due by now joins that tick's bucket (ready if the window does not
 * reach back to it); any other joins the near window (or, if the window has
 * no room, q->far with a timer). Every path that looks at
 * what is takeable or pending takes the inbox in first. Return: the near
 * nodes that fell due with those advances, as delayq_advance().
 * O(nodes taken in).
 */
static unsigned int delayq_absorb(struct tempo_delayq *q)
{
	struct tempo_delayq_node *node, *next;
	struct llist_node *first;
	unsigned int fresh = 0;

	delayq_lock_held(q);
	/*
	 * LMM(delayq_absorb:A) Fully ordered xchgs: the nodes' fields, written
	 * before their llist_add(), are seen. Pairs with: delayq_put:A.
	 */
	if (!llist_empty(&q->inbox_due)) {
		first = llist_reverse_order(llist_del_all(&q->inbox_due));
		llist_for_each_entry_safe(node, next, first, inbox) {
			fresh += delayq_advance(q, node->due);
			delayq_make_ready(q, node, node->due);
			delayq_count(q, DELAYQ_STAT_PUT);
		}
	}
	if (!llist_empty(&q->inbox)) {
		first = llist_reverse_order(llist_del_all(&q->inbox));
		llist_for_each_entry_safe(node, next, first, inbox) {
			bool due = delayq_tick_below(q, node->deadline, q->now_tick);

			node->near = 0;
			if (delayq_near_add(q, node)) {
				/* A due tick's bucket makes it takeable now. */
				node->far = DQ_FAR_STAGE;
				delayq_pending_account(q, node);
				fresh += due;
			} else if (due) {
				/* q->now is past the end of its tick. */
				delayq_make_ready(q, node, q->now);
			} else if (WARN_ON_ONCE(delayq_link_pending(q, node, false, NULL,
								    false) < 0)) {
				/* Only near delays take this path: no arm can fail. */
				delayq_make_ready(q, node, node->deadline);
			}
			delayq_count(q, DELAYQ_STAT_PUT);
		}
	}
	return fresh;
}

/*
 * Take the inbox in, for a locked section that takes nothing itself: the
 * nodes that fell due with it get a consumer woken each.
 */
static void delayq_take_in(struct tempo_delayq *q)
{
	delayq_wake(q, delayq_absorb(q));
}

/*
 * The node a consumer takes next, or NULL: of the ready head and the first
 * node of the earliest due near tick, the one of the earlier tick (the ready
 * head on a tie). Takes the inbox in first, and reads the clock only if
 * nothing is known to be takeable while a near node exists; neither if
 * @fresh is NULL. Nodes that fell due on the way are added to *@fresh.
 *
 * A ready node is never behind a near tick that is not due: it was due by a
 * reading the queue has advanced with, so its tick is at most now_tick, and
 * a near tick that is not due is at least now_tick.
 */
static struct tempo_delayq_node *delayq_next(struct tempo_delayq *q,
					     unsigned int *fresh)
{
	struct tempo_delayq_node *head;
	u64 tick;

	delayq_lock_held(q);
	if (fresh)
		*fresh += delayq_absorb(q);
	head = list_first_entry_or_null(&q->ready, struct tempo_delayq_node, entry);
	if (!q->nnear)
		return head;
	tick = delayq_near_min(q);
	if (tick >= q->now_tick) {
		if (head || !fresh)
			return head;
		*fresh += delayq_advance(q, ktime_get());
		if (tick >= q->now_tick)
			return NULL;
	}
	if (head && delayq_tick_below(q, head->deadline, tick + 1))
		return head;
	return list_first_entry(&q->near[tick % DQ_NEAR_SLOTS],
				struct tempo_delayq_node, entry);
}

/* Unlink a queued @node: READY, or PENDING (far, or near due or not). */
static void delayq_unlink(struct tempo_delayq *q, struct tempo_delayq_node *node)
{
	if (node->state == DELAYQ_READY) {
		list_del_init(&node->entry);
		q->nready--;
	} else {
		delayq_pending_del(q, node);
	}
}

/* Take the next node, if one is takeable; see delayq_next() for @fresh. */
static struct tempo_delayq_node *delayq_take_next(struct tempo_delayq *q,
						  unsigned int *fresh)
{
	struct tempo_delayq_node *node = delayq_next(q, fresh);

	if (node) {
		/*
		 * Not early: a node is ready, or its tick due, only after a
		 * clock reading past its deadline.
		 */
		delayq_unlink(q, node);
		delayq_set_state(node, DELAYQ_TAKEN);
		delayq_count(q, DELAYQ_STAT_TAKEN);
	}
	return node;
}

/*
 * The wake-ups a consumer owes as it leaves the lock, having taken or
 * requeued @n nodes: one per node that fell due in its critical section
 * (@fresh: nobody was woken for those), plus the wake-up that selected it
 * (@woken), less one per node it took. The rule for exclusive waiters
 * (prepare_to_wait_event()): a waiter a wake-up selected consumes the
 * condition or passes the wake-up on. A wake-up that selected it for a node
 * gone since (another consumer took it) is nobody's: nothing is passed on
 * when nothing is left to take. Callers in delayq_wait() are off the wait
 * queue here, so none of these wake-ups selects the caller itself.
 *
 * So, whenever the lock is free and consumers sleep, the wake-ups given and
 * not yet consumed are at least the takeable nodes: each node that becomes
 * takeable adds one, each consumer that runs after a wake-up uses one, and
 * each node taken or requeued is one fewer to cover.
 */
static void delayq_pass_on(struct tempo_delayq *q, unsigned int fresh, bool woken,
			   unsigned int n)
{
	unsigned int owed = fresh + woken;

	if (owed <= n)
		return;
	/* fresh > n leaves a fresh node; else only @woken is owed. */
	if (fresh <= n && !delayq_next(q, NULL))
		return;
	delayq_wake(q, owed - n);
}

/*
 * Take the next node, if one is takeable, and pass on the wake-ups owed
 * (delayq_pass_on()); @woken: a wake-up of the queue selected the caller.
 */
static struct tempo_delayq_node *delayq_pop(struct tempo_delayq *q, bool woken)
{
	struct tempo_delayq_node *node;
	unsigned int fresh = 0;

	node = delayq_take_next(q, &fresh);
	delayq_pass_on(q, fresh, woken, node ? 1 : 0);
	return node;
}

/*
 * Unlink takeable @node for a verdict of TEMPO_DELAYQ_TAKE or _AGAIN. The
 * callback may have moved node->deadline; the node is unlinked by @linked,
 * the deadline it is linked with (which decides ndue and pending_min).
 */
static void delayq_unlink_as(struct tempo_delayq *q, struct tempo_delayq_node *node,
			     ktime_t linked)
{
	ktime_t deadline = node->deadline;

	node->deadline = linked;
	delayq_unlink(q, node);
	node->deadline = deadline;
}

/*
 * TEMPO_DELAYQ_AGAIN: @node, takeable with deadline @linked, stays queued
 * until the later node->deadline the callback set. Unlinked and linked
 * again inside one critical section, so remove() never finds it missing;
 * linked as put() links a node, by a fresh reading: ready at once if that
 * reading finds it due (*@fresh counts it then, as the nodes that reading
 * made due), else near, or far with its timer armed. Counted as requeued;
 * its next expiry counts as expired, as any node's.
 */
static void delayq_requeue(struct tempo_delayq *q, struct tempo_delayq_node *node,
			   ktime_t linked, unsigned int *fresh)
{
	ktime_t now;

	WARN_ON_ONCE(!ktime_after(node->deadline, linked));
	delayq_unlink_as(q, node, linked);
	delayq_count(q, DELAYQ_STAT_REQUEUED);
	now = ktime_get();
	*fresh += delayq_advance(q, now);
	if (delayq_due(q, node->deadline, now)) {
		delayq_ready_link(q, node, now);
		(*fresh)++;
	} else if (WARN_ON_ONCE(delayq_pending_add(q, node, now, true) < 0)) {
		/* Beyond the wheel's range: the callback broke its contract. */
		delayq_ready_link(q, node, node->deadline);
		(*fresh)++;
	}
}

/* What tempo_delayq_consume() was asked to do, and what it did. */
struct delayq_consumer {
	tempo_delayq_consume_fn	fn;
	void			*arg;
	unsigned int		max;	/* > 0 */
	unsigned int		n;	/* TAKE and AGAIN verdicts */
};

/*
 * The run of a due near tick: @node is the first node of the earliest due
 * near tick, the node delayq_next() just chose. Show @c->fn that tick's
 * nodes in bucket order while it answers TAKE, at most @room of them, and
 * take each; the bookkeeping of the run (the bucket's count and bit, nnear,
 * ndue, npending, pending_min, the counter) is settled once, when it ends.
 *
 * Each node of the run is the one delayq_next() would choose: a TAKE only
 * unlinks, so the tick stays the earliest due one while its bucket holds a
 * node, the ready head (of a later tick, or delayq_next() would have chosen
 * it) stays behind it, and nothing else links a node in this critical
 * section (the inbox is taken in by delayq_next() only: a put() pushing
 * meanwhile is one that came after this critical section's start, as if
 * it came after its end). Every node of a due tick is due, so each taken
 * node leaves ndue.
 *
 * Return: the nodes taken. *@nodep: the node the run ended at, which
 * @c->fn answered *@verdict (not TAKE), still linked, with its linked
 * deadline in *@linked, for the caller to apply; or NULL if the bucket
 * emptied or @room was reached.
 */
static unsigned int delayq_take_run(struct tempo_delayq *q, struct delayq_consumer *c,
				    unsigned int room, struct tempo_delayq_node **nodep,
				    enum tempo_delayq_verdict *verdict, ktime_t *linked)
{
	struct tempo_delayq_node *node = *nodep;
	unsigned int idx = node->near - 1, k = 0;
	struct list_head *bucket = &q->near[idx];
	ktime_t stamp = q->near_due[idx];
	bool min_taken = false;

	delayq_lock_held(q);
	for (;;) {
		*linked = node->deadline;
		*verdict = c->fn(node, stamp, c->arg);
		if (*verdict != TEMPO_DELAYQ_TAKE)
			break;
		/* Not early: the tick is due (see delayq_take_next()). */
		min_taken |= !ktime_after(*linked, q->pending_min);
		list_del_init(&node->entry);
		node->near = 0;
		delayq_set_state(node, DELAYQ_TAKEN);
		if (++k == room || list_empty(bucket)) {
			node = NULL;
			break;
		}
		node = list_first_entry(bucket, struct tempo_delayq_node, entry);
	}
	if (k) {
		/* As delayq_pending_del() on each, at once. */
		q->near_n[idx] -= k;
		if (!q->near_n[idx])
			__clear_bit(idx, q->near_occupied);
		q->nnear -= k;
		q->ndue -= k;
		q->npending -= k;
		if (!q->npending || min_taken)
			q->pending_min_valid = false;
		delayq_count_n(q, DELAYQ_STAT_TAKEN, k);
	}
	*nodep = node;
	return k;
}

/*
 * Show @c->fn the takeable nodes, earliest first (delayq_next(), as take()
 * takes them), each in this critical section, and apply its verdicts: at
 * most @c->max TAKE or AGAIN, up to the first STOP. The nodes of a due near
 * tick go as one run (delayq_take_run()) while @c->fn takes them. Then
 * pass on the wake-ups owed (delayq_pass_on(); @woken as there). Return:
 * false if nothing was takeable (@c->fn was not called).
 */
static bool delayq_consume_locked(struct tempo_delayq *q, struct delayq_consumer *c,
				  bool woken)
{
	struct tempo_delayq_node *node;
	unsigned int fresh = 0, n = 0;
	bool shown = false;

	delayq_lock_held(q);
	while (n < c->max && (node = delayq_next(q, &fresh))) {
		enum tempo_delayq_verdict verdict;
		ktime_t linked;

		shown = true;
		if (node->near) {
			n += delayq_take_run(q, c, c->max - n, &node, &verdict, &linked);
			if (!node)
				continue;
		} else {
			linked = node->deadline;
			verdict = c->fn(node, node->due, c->arg);
		}
		if (verdict == TEMPO_DELAYQ_TAKE) {
			/* Not early: see delayq_take_next(). */
			delayq_unlink_as(q, node, linked);
			delayq_set_state(node, DELAYQ_TAKEN);
			delayq_count(q, DELAYQ_STAT_TAKEN);
		} else if (verdict == TEMPO_DELAYQ_AGAIN) {
			delayq_requeue(q, node, linked, &fresh);
		} else {
			/* STOP: the node stays as it is linked. */
			WARN_ON_ONCE(verdict != TEMPO_DELAYQ_STOP);
			if (WARN_ON_ONCE(node->deadline != linked))
				node->deadline = linked;
			break;
		}
		n++;
	}
	c->n = n;
	delayq_pass_on(q, fresh, woken, n);
	return shown;
}

/* Nothing left that destroy() must wait for before freeing @q. */
static bool delayq_quiescent(struct tempo_delayq *q)
{
	delayq_lock_held(q);
	return !q->nwaiters && !q->nstale;
}

/* A sleeper or a stale callback left a dead queue: maybe wake destroy(). */
static void delayq_left_dead(struct tempo_delayq *q)
{
	delayq_lock_held(q);
	if (q->dead && delayq_quiescent(q))
		wake_up_all_locked(&q->wait);
}

/*
 * The kick: process context on the tempo workqueue of the CPU it was armed
 * on, at the end of near tick kick_tick. Advance the queue with the clock,
 * wake one consumer per node that fell due, and arm for the next near tick.
 * destroy() shuts the kick down once the queue is dead (nothing re-arms it
 * then), before it frees @q.
 */
static void delayq_kick(struct tempo_timer *timer)
{
	struct tempo_delayq *q = container_of(timer, struct tempo_delayq, kick);
	unsigned int fresh;
	unsigned long flags;
	ktime_t now;
	u64 tick;

	spin_lock_irqsave(&q->wait.lock, flags);
	fresh = delayq_absorb(q);
	now = ktime_get();
	fresh += delayq_advance(q, now);
	delayq_file(q, now);
	delayq_wake(q, fresh);
	WRITE_ONCE(q->kick_tick, U64_MAX);
	tempo_test_point(TEMPO_TP_DELAYQ_KICK, q, q->now_tick, 0);
	tick = delayq_near_from(q, q->now_tick);
	/*
	 * LMM(delayq_kick:A) kick_tick, then the inbox. Pairs with:
	 * delayq_put:A (the inbox, then kick_tick). A put() that read the
	 * old, earlier kick_tick and left its node to us is in the inbox now:
	 * come back at the end of this tick for it. A later one sees the new
	 * kick_tick, and takes the lock if its tick is earlier.
	 */
	smp_mb();
	if (!llist_empty(&q->inbox))
		tick = min(tick, q->now_tick);
	if (tick != U64_MAX)
		delayq_kick_at(q, tick);
	spin_unlock_irqrestore(&q->wait.lock, flags);
}

/*
 * A far node's timer: process context on the tempo workqueue of the CPU the
 * node was armed on. Its locked section is its last access to the node and
 * to the queue: once a consumer has taken the node, or remove_sync()/
 * destroy() returned, the node may be freed.
 */
static void delayq_expire(struct tempo_timer *timer)
{
	struct tempo_delayq_node *node =
		container_of(timer, struct tempo_delayq_node, timer);
	/* Written by put() before it armed this timer: see "Locks and ordering". */
	struct tempo_delayq *q = READ_ONCE(node->q);
	unsigned int fresh;
	unsigned long flags;
	ktime_t now;
	int err;

	spin_lock_irqsave(&q->wait.lock, flags);
	if (node->stale) {
		/* remove() claimed the node while this expiry was in flight. */
		q->nstale--;
		delayq_left_dead(q);
		/*
		 * LMM(delayq_expire:A) The callback's last access to the node.
		 * Pairs with: delayq_node_busy:A (a put() on another queue).
		 */
		smp_store_release(&node->stale, false);
		goto unlock;
	}
	/* DETACHED (destroy is cancelling it): nothing to do. */
	if (node->state != DELAYQ_PENDING)
		goto unlock;

	now = ktime_get();
	fresh = delayq_advance(q, now);
	delayq_pending_del(q, node);
	if (delayq_due(q, node->deadline, now)) {
		delayq_make_ready(q, node, now);
	} else {
		if (node->far == DQ_FAR_EXACT) {
			/* The timer contract says never; don't hand out early. */
			WARN_ON_ONCE(1);
			delayq_count(q, DELAYQ_STAT_REARMED);
		} else {
			/* A stage: move the node closer (near, or a finer stage). */
			delayq_count(q, DELAYQ_STAT_STAGED);
		}
		err = delayq_pending_add(q, node, now, false);
		/* Cannot re-arm: the lesser evil is a slightly early item. */
		if (WARN_ON_ONCE(err < 0))
			delayq_make_ready(q, node, node->deadline);
	}
	delayq_wake(q, fresh);
unlock:
	spin_unlock_irqrestore(&q->wait.lock, flags);
}

/**
 * tempo_delayq_node_init() - prepare a node for its first put
 * @node: the node embedded in an item
 *
 * Call once before the node is first put; not while it is queued.
 *
 * Context: any context.
 */
void tempo_delayq_node_init(struct tempo_delayq_node *node)
{
	tempo_timer_init(&node->timer, delayq_expire, 0);
	INIT_LIST_HEAD(&node->entry);
	node->q = NULL;
	node->deadline = 0;
	node->due = 0;
	delayq_set_state(node, DELAYQ_IDLE);
	node->near = 0;
	node->far = DQ_FAR_STAGE;
	node->stale = false;
}
EXPORT_SYMBOL_GPL(tempo_delayq_node_init);

/**
 * tempo_delayq_node_sync() - wait until a removed node's expiry callback ends
 * @node: a node that is not queued (taken, removed or handed back)
 *
 * After tempo_delayq_remove() returned true, the node's expiry callback may
 * still be on its way (it will do nothing but let go of the node), and the
 * wheel may still hold the cancelled timer. Call this before freeing such a
 * node, even if it was put and taken again since; tempo_delayq_remove_sync()
 * does both steps. Harmless on a node with nothing in flight.
 *
 * Context: process context; may sleep. Must not run concurrently with a put()
 * of the same node.
 */
void tempo_delayq_node_sync(struct tempo_delayq_node *node)
{
	might_sleep();
	WARN_ON_ONCE(READ_ONCE(node->state) == DELAYQ_PENDING);
	tempo_timer_cancel_sync(&node->timer);
	/* The callback, if any, has returned: it cleared stale. */
	WARN_ON_ONCE(smp_load_acquire(&node->stale));
}
EXPORT_SYMBOL_GPL(tempo_delayq_node_sync);

/**
 * tempo_delayq_create() - allocate an empty delay queue
 *
 * The queue is charged to the caller's memory cgroup (GFP_KERNEL_ACCOUNT):
 * /dev/tempo creates one per open file, on behalf of the opener.
 *
 * Context: process context; may sleep.
 * Return: the queue, or NULL if out of memory.
 */
struct tempo_delayq *tempo_delayq_create(void)
{
	struct tempo_delayq *q = kzalloc(sizeof(*q), GFP_KERNEL_ACCOUNT);
	unsigned int i;

	if (!q)
		return NULL;
	init_waitqueue_head(&q->wait);
	init_llist_head(&q->inbox);
	init_llist_head(&q->inbox_due);
	INIT_LIST_HEAD(&q->far);
	INIT_LIST_HEAD(&q->unfiled);
	for (i = 0; i < DQ_NEAR_SLOTS; i++)
		INIT_LIST_HEAD(&q->near[i]);
	q->tick_ns = tempo_timer_tick_ns();
	q->max_delay_ns = tempo_timer_max_delay_ns();
	q->kick_tick = U64_MAX;
	tempo_timer_init(&q->kick, delayq_kick, 0);
	INIT_LIST_HEAD(&q->ready);
	atomic_inc(&delayq_live);
	return q;
}
EXPORT_SYMBOL_GPL(tempo_delayq_create);

/*
 * put() under the lock: the path of a far node, whose timer is armed inside
 * the lock (see remove()). The clock is read once, under the lock, and the
 * queue advanced with it: a node found not due must be due after every node
 * already takeable, so "now" must not predate them (delayq_next() relies on
 * it).
 */
/*
 * Under the lock, with @now the reading the queue just advanced to: put
 * @node for @deadline, as put()'s locked path does it (put_many() does it
 * for each of its nodes).
 */
static int delayq_put_one_locked(struct tempo_delayq *q, struct tempo_delayq_node *node,
				 ktime_t deadline, ktime_t now)
{
	int err;

	delayq_lock_held(q);
	if (unlikely(q->dead))
		return -ESHUTDOWN;
	if (unlikely(delayq_node_busy(node)))
		return -EBUSY;
	/* Before arming: the callback reads node->q before it takes the lock. */
	WRITE_ONCE(node->q, q);
	node->deadline = deadline;
	if (delayq_due(q, deadline, now)) {
		delayq_make_ready(q, node, now);
	} else {
		/*
		 * A far node's timer is armed inside the lock (see remove()),
		 * here or by the kick (delayq_file()).
		 */
		err = delayq_pending_add(q, node, now, true);
		if (err)
			return err;
	}
	delayq_count(q, DELAYQ_STAT_PUT);
	return 0;
}

static int delayq_put_locked(struct tempo_delayq *q, struct tempo_delayq_node *node,
			     ktime_t when, bool relative)
{
	unsigned int fresh;
	unsigned long flags;
	ktime_t now;
	int err;

	spin_lock_irqsave(&q->wait.lock, flags);
	fresh = delayq_absorb(q);
	now = ktime_get();
	fresh += delayq_advance(q, now);
	err = delayq_put_one_locked(q, node, relative ? ktime_add_ns(now, when) : when, now);
	delayq_wake(q, fresh);
	spin_unlock_irqrestore(&q->wait.lock, flags);
	return err;
}

/*
 * put_at(), or put() of a delay (@relative: @when is nanoseconds from now).
 *
 * A node due now or within the near window takes the lock-free path: claim
 * it (cmpxchg of its state from "not queued" to INBOX or INBOX_DUE, by this
 * reading of the clock), fill it in, and push it on q->inbox_due or
 * q->inbox, for the next holder of the lock to take in (delayq_absorb()).
 * Only two things need the lock at once, and both are checked after the
 * push:
 *  - a due node with someone on the wait queue (a consumer or a poller):
 *    take it in and wake them now;
 *  - a node of a tick earlier than the kick's: take it in, which re-arms
 *    the kick (delayq_near_add()).
 * Otherwise the kick, armed for its tick or an earlier one, takes the node
 * in before its tick ends; or a consumer that comes by does.
 */
static int delayq_put(struct tempo_delayq *q, struct tempo_delayq_node *node,
		      ktime_t when, bool relative)
{
	ktime_t now = ktime_get(), deadline = relative ? ktime_add_ns(now, when) : when;
	bool due = !ktime_before(now, deadline), wake;
	u32 old = READ_ONCE(node->state);
	struct llist_head *inbox;
	unsigned long flags;
	u64 kick;

	if (!due && ktime_sub(deadline, now) >= DQ_NEAR_TICKS * q->tick_ns)
		return delayq_put_locked(q, node, when, relative);
	if (unlikely(!delayq_state_free(old)))
		return -EBUSY;
	/* LMM(delayq_put:B) Pairs with: delayq_expire:A (stale cleared). */
	if (unlikely(smp_load_acquire(&node->stale)))
		return -EBUSY;
	if (unlikely(READ_ONCE(q->dead)))
		return -ESHUTDOWN;
	if (cmpxchg(&node->state, old, due ? DELAYQ_INBOX_DUE : DELAYQ_INBOX) != old)
		return -EBUSY;
	WRITE_ONCE(node->q, q);
	node->deadline = deadline;
	node->due = now;	/* read for a due node only: its due stamp */
	inbox = due ? &q->inbox_due : &q->inbox;
	/*
	 * LMM(delayq_put:A) A fully ordered RMW (llist_add() succeeds with a
	 * cmpxchg): it publishes the node (pairs with delayq_absorb:A), and
	 * orders the push before the reads below. Pairs with: delayq_wait:A
	 * (a consumer adds itself to the wait queue, then reads inbox_due) and
	 * delayq_kick:A (the kick writes kick_tick, then reads the inbox):
	 * either they see this node, or this sees them.
	 */
	llist_add(&node->inbox, inbox);
	tempo_test_point(TEMPO_TP_DELAYQ_PUSHED, q, ktime_to_ns(deadline), due);
	if (due) {
		/* Ordered after the push by it: see LMM(delayq_put:A) above. */
		wake = waitqueue_active(&q->wait);
	} else {
		kick = READ_ONCE(q->kick_tick);
		wake = kick == U64_MAX || delayq_tick_below(q, deadline, kick);
	}
	if (wake) {
		spin_lock_irqsave(&q->wait.lock, flags);
		delayq_take_in(q);
		spin_unlock_irqrestore(&q->wait.lock, flags);
	}
	return 0;
}

/**
 * tempo_delayq_put_at() - queue an item until an absolute deadline
 * @q: the queue
 * @node: the item's node, initialised and not queued
 * @deadline: CLOCK_MONOTONIC time (ktime_get()) from which it may be taken
 *
 * A deadline already past makes the item ready at once, without a timer.
 *
 * Context: any context except NMI; does not sleep.
 * Return: 0 on success; -EBUSY if @node is queued (here or elsewhere), being
 * handed back by destroy, or removed with its expiry still in flight (see
 * tempo_delayq_node_sync()); -ESHUTDOWN if @q is shut down; -ERANGE if the
 * deadline is beyond tempo_timer_max_delay_ns() from now. On error @node is
 * not queued.
 */
int tempo_delayq_put_at(struct tempo_delayq *q, struct tempo_delayq_node *node,
			ktime_t deadline)
{
	return delayq_put(q, node, deadline, false);
}
EXPORT_SYMBOL_GPL(tempo_delayq_put_at);

/**
 * tempo_delayq_put_many() - queue a batch of items under one lock
 * @q: the queue
 * @nodes: the items' nodes, each initialised and not queued
 * @deadlines: each item's deadline, as for tempo_delayq_put_at()
 * @n: how many
 * @errp: out: 0, or the error of the first item not queued
 *
 * As tempo_delayq_put_at() on each item in turn, stopping at the first that
 * fails, with one lock round trip and one clock reading for the batch: a
 * caller with many items at once (/dev/tempo's arm batch) pays per item for
 * the linking alone. Items due soon take the locked path here as well.
 *
 * Context: any context except NMI; does not sleep; interrupts are off for
 * O(@n): keep @n bounded (a caller's chunk).
 * Return: the number of items queued, nodes[0..ret); if fewer than @n,
 * *@errp is what tempo_delayq_put_at() would have returned for nodes[ret],
 * which is not queued, nor is any after it.
 */
unsigned int tempo_delayq_put_many(struct tempo_delayq *q,
				   struct tempo_delayq_node *const *nodes,
				   const ktime_t *deadlines, unsigned int n, int *errp)
{
	unsigned int i, fresh;
	unsigned long flags;
	ktime_t now;
	int err = 0;

	spin_lock_irqsave(&q->wait.lock, flags);
	fresh = delayq_absorb(q);
	now = ktime_get();
	fresh += delayq_advance(q, now);
	for (i = 0; i < n; i++) {
		err = delayq_put_one_locked(q, nodes[i], deadlines[i], now);
		if (err)
			break;
	}
	delayq_wake(q, fresh);
	spin_unlock_irqrestore(&q->wait.lock, flags);
	*errp = err;
	return i;
}
EXPORT_SYMBOL_GPL(tempo_delayq_put_many);

/**
 * tempo_delayq_put() - queue an item for a delay
 * @q: the queue
 * @node: the item's node, initialised and not queued
 * @delay_ns: nanoseconds from now until the item may be taken; 0 is "now"
 *
 * Context: any context except NMI; does not sleep.
 * Return: as tempo_delayq_put_at(); -ERANGE if @delay_ns exceeds
 * tempo_timer_max_delay_ns().
 */
int tempo_delayq_put(struct tempo_delayq *q, struct tempo_delayq_node *node,
		     u64 delay_ns)
{
	if (delay_ns > tempo_timer_max_delay_ns())
		return -ERANGE;
	return delayq_put(q, node, delay_ns, true);
}
EXPORT_SYMBOL_GPL(tempo_delayq_put);

/*
 * A consumer's wake function: any wake-up of the queue's own (no key, or
 * EPOLLIN) selects it, as autoremove_wake_function() would; a wake-up that
 * carries only another event (tempo_delayq_wake_poll(), say EPOLLOUT) is
 * for pollers and passes it by without using up an exclusive wake-up.
 */
static int delayq_consumer_wake(struct wait_queue_entry *wait, unsigned int mode,
				int sync, void *key)
{
	if (key && !(key_to_poll(key) & EPOLLIN))
		return 0;
	return autoremove_wake_function(wait, mode, sync, key);
}

static bool delayq_kthread_should_stop(void)
{
	return (current->flags & PF_KTHREAD) && kthread_should_stop();
}

/*
 * Sleep as an exclusive waiter until an item is ready, then take it (@c
 * NULL), or consume (delayq_consume_locked() with @c). @end is the caller's
 * absolute timeout, or NULL for none. Return: the node taken, NULL when
 * @c consumed, or an ERR_PTR().
 *
 * Each pass checks, in one critical section of q->wait.lock: shutdown, an
 * item (take or consume it), then, after setting TASK_INTERRUPTIBLE so that a signal or
 * kthread_stop() between the check and schedule() is not lost:
 * kthread_stop(), a signal, the timeout. kthread_stop() comes before signals
 * because it sets TIF_NOTIFY_SIGNAL, which signal_pending() reports. Items
 * are published and their wake-up delivered under the same lock, so leaving
 * with an error never strands an item a wake-up meant for us (see the design
 * comment).
 *
 * The wait entry is off the queue whenever delayq_pop() or
 * delayq_consume_locked() runs: a wake-up it gives for a node that fell due
 * must go to another consumer. After a wake-up that was not the queue's
 * (timeout, signal, spurious), the entry is taken off and re-added at the
 * tail. A pass that follows a wake-up of the queue tells them so (@woken):
 * if it leaves a node takeable it did not pay for, it passes the wake-up on.
 */
static struct tempo_delayq_node *delayq_wait(struct tempo_delayq *q,
					     ktime_t *end, struct delayq_consumer *c)
{
	struct tempo_delayq_node *node = NULL;
	bool woken = false, done = false;
	DEFINE_WAIT_FUNC(wait, delayq_consumer_wake);
	int err;

	spin_lock_irq(&q->wait.lock);
	q->nwaiters++;
	for (;;) {
		err = -ESHUTDOWN;
		if (q->dead)
			break;
		if (c) {
			done = delayq_consume_locked(q, c, woken);
		} else {
			node = delayq_pop(q, woken);
			done = node;
		}
		if (done)
			break;
		woken = false;	/* found nothing: that wake-up is nobody's */
		__add_wait_queue_entry_tail_exclusive(&q->wait, &wait);
		set_current_state(TASK_INTERRUPTIBLE);
		/*
		 * LMM(delayq_wait:A) On the wait queue, then (the full barrier
		 * of set_current_state()) read the due inbox. Pairs with:
		 * delayq_put:A. A due node pushed before we were on the queue
		 * is seen here; one pushed after, its put() sees us and takes
		 * it in under the lock, waking us. Nodes not due are the kick's
		 * business: looping for them would spin while puts go on.
		 */
		if (!llist_empty(&q->inbox_due)) {
			list_del_init(&wait.entry);
			continue;
		}
		/* First: kthread_stop() also makes signal_pending() true. */
		err = -EINTR;
		if (delayq_kthread_should_stop())
			break;
		err = -ERESTARTSYS;
		if (signal_pending(current))
			break;
		err = -ETIMEDOUT;
		if (end && !ktime_before(ktime_get(), *end))
			break;

		spin_unlock_irq(&q->wait.lock);
		if (end)
			schedule_hrtimeout(end, HRTIMER_MODE_ABS);
		else
			schedule();
		spin_lock_irq(&q->wait.lock);
		/* autoremove_wake_function() unlinked us: a queue wake-up. */
		woken = list_empty(&wait.entry);
		if (woken)
			delayq_count(q, DELAYQ_STAT_WAKEUPS);
		else
			list_del_init(&wait.entry);
	}
	__set_current_state(TASK_RUNNING);
	if (!list_empty(&wait.entry))
		list_del_init(&wait.entry);
	q->nwaiters--;
	if (done)
		err = 0;
	else	/* Leaving with an error: there must be nothing we could take. */
		WARN_ON_ONCE(!q->dead && delayq_next(q, NULL));
	delayq_left_dead(q);
	spin_unlock_irq(&q->wait.lock);
	return err ? ERR_PTR(err) : node;
}

/**
 * tempo_delayq_take() - take the earliest ready item, sleeping until there is one
 * @q: the queue
 *
 * Sleeps as an exclusive waiter: each item that becomes ready wakes one
 * sleeping consumer. An interrupted take loses nothing: the item stays ready
 * for the next consumer.
 *
 * Context: process context; sleeps interruptibly. Do not hold locks.
 * Return: the item's node, now TAKEN and owned by the caller; or
 * ERR_PTR(-ERESTARTSYS) on a signal, ERR_PTR(-EINTR) when the calling kthread
 * is being stopped (kthread_stop()), ERR_PTR(-ESHUTDOWN) once @q is shut down.
 */
struct tempo_delayq_node *tempo_delayq_take(struct tempo_delayq *q)
{
	might_sleep();
	return delayq_wait(q, NULL, NULL);
}
EXPORT_SYMBOL_GPL(tempo_delayq_take);

/**
 * tempo_delayq_take_timeout() - tempo_delayq_take() with the caller's timeout
 * @q: the queue
 * @timeout_ns: longest wait, in nanoseconds; 0 does not sleep
 *
 * The timeout is the caller's own limit (an hrtimer sleep); it has nothing to
 * do with when items expire.
 *
 * Context: process context; sleeps interruptibly. Do not hold locks.
 * Return: as tempo_delayq_take(), or ERR_PTR(-ETIMEDOUT) if no item became
 * ready in time.
 */
struct tempo_delayq_node *tempo_delayq_take_timeout(struct tempo_delayq *q,
						    u64 timeout_ns)
{
	ktime_t end = ktime_add_ns(ktime_get(), min_t(u64, timeout_ns, KTIME_MAX / 2));

	might_sleep();
	return delayq_wait(q, &end, NULL);
}
EXPORT_SYMBOL_GPL(tempo_delayq_take_timeout);

/**
 * tempo_delayq_try_take() - take the earliest ready item if there is one
 * @q: the queue
 *
 * Context: any context except NMI; does not sleep.
 * Return: the item's node, now TAKEN and owned by the caller;
 * ERR_PTR(-EAGAIN) if no item is ready; ERR_PTR(-ESHUTDOWN) once @q is shut
 * down. Never NULL.
 */
struct tempo_delayq_node *tempo_delayq_try_take(struct tempo_delayq *q)
{
	struct tempo_delayq_node *node;
	unsigned long flags;

	spin_lock_irqsave(&q->wait.lock, flags);
	if (unlikely(q->dead))
		node = ERR_PTR(-ESHUTDOWN);
	else
		node = delayq_pop(q, false) ?: ERR_PTR(-EAGAIN);
	spin_unlock_irqrestore(&q->wait.lock, flags);
	return node;
}
EXPORT_SYMBOL_GPL(tempo_delayq_try_take);

/**
 * tempo_delayq_drain() - take up to @max ready items at once
 * @q: the queue
 * @nodes: receives the nodes, in the order take() would return them
 * @max: size of @nodes
 *
 * One critical section: the batch is contiguous in that order. It takes only
 * items that are ready; it never waits.
 *
 * Context: any context except NMI; does not sleep. The lock is held for
 * O(@max): keep @max modest in atomic context.
 * Return: the number of nodes stored (0 if none is ready), or -ESHUTDOWN once
 * @q is shut down.
 */
int tempo_delayq_drain(struct tempo_delayq *q,
		       struct tempo_delayq_node **nodes, unsigned int max)
{
	struct tempo_delayq_node *node;
	unsigned int n = 0, fresh = 0;
	unsigned long flags;

	max = min_t(unsigned int, max, INT_MAX);
	spin_lock_irqsave(&q->wait.lock, flags);
	if (unlikely(q->dead)) {
		spin_unlock_irqrestore(&q->wait.lock, flags);
		return -ESHUTDOWN;
	}
	while (n < max && (node = delayq_take_next(q, &fresh)))
		nodes[n++] = node;
	/* The nodes that fell due and that this batch did not take. */
	delayq_pass_on(q, fresh, false, n);
	spin_unlock_irqrestore(&q->wait.lock, flags);
	return n;
}
EXPORT_SYMBOL_GPL(tempo_delayq_drain);

/**
 * tempo_delayq_consume() - take items with a verdict decided under the queue's lock
 * @q: the queue
 * @fn: shown each takeable item, with when the queue found it due; decides
 *	its fate (see &typedef tempo_delayq_consume_fn)
 * @arg: passed to @fn
 * @max: at most this many TAKE or AGAIN verdicts; 0 returns 0 at once
 * @flags: 0, or TEMPO_DELAYQ_WAIT to sleep until an item is takeable
 *
 * Shows @fn the takeable items one at a time, in the order take() would
 * take them, each in the critical section in which its verdict is applied:
 * TEMPO_DELAYQ_TAKE takes it (as take() would), TEMPO_DELAYQ_AGAIN keeps
 * it queued for the later deadline @fn set (ready at once if a fresh
 * reading finds that due, and then shown again if @max allows), and
 * TEMPO_DELAYQ_STOP leaves it takeable and ends the call. Items that fell
 * due during the call and that it did not consume get a consumer woken
 * each, as drain() does; a call that a wake-up selected (with
 * TEMPO_DELAYQ_WAIT) and that leaves an item takeable without having taken
 * one passes that wake-up on, so no item strands with consumers asleep.
 *
 * With TEMPO_DELAYQ_WAIT, sleeps as an exclusive waiter exactly as
 * tempo_delayq_take() does until an item is takeable, then consumes in the
 * critical section that found it.
 *
 * Context: without TEMPO_DELAYQ_WAIT, any context except NMI, does not
 * sleep, and holds the lock for O(@max) calls of @fn: keep @max modest in
 * atomic context. With it, process context; sleeps interruptibly. @fn runs
 * with the queue's lock held and interrupts off.
 * Return: the number of TAKE and AGAIN verdicts (0 if the first item was
 * answered STOP); -EAGAIN if nothing is takeable and TEMPO_DELAYQ_WAIT is not
 * set; -ERESTARTSYS on a signal and -EINTR when the calling kthread is being
 * stopped, while waiting; -ESHUTDOWN once @q is shut down; -EINVAL for an
 * unknown flag.
 */
int tempo_delayq_consume(struct tempo_delayq *q, tempo_delayq_consume_fn fn, void *arg,
			 unsigned int max, unsigned int flags)
{
	struct delayq_consumer c = {
		.fn = fn,
		.arg = arg,
		.max = min_t(unsigned int, max, INT_MAX),
	};
	struct tempo_delayq_node *waited;
	unsigned long irqflags;
	int ret;

	if (flags & ~TEMPO_DELAYQ_WAIT)
		return -EINVAL;
	if (!max)
		return 0;
	if (flags & TEMPO_DELAYQ_WAIT) {
		might_sleep();
		waited = delayq_wait(q, NULL, &c);
		return IS_ERR(waited) ? PTR_ERR(waited) : c.n;
	}
	spin_lock_irqsave(&q->wait.lock, irqflags);
	if (unlikely(q->dead))
		ret = -ESHUTDOWN;
	else
		ret = delayq_consume_locked(q, &c, false) ? c.n : -EAGAIN;
	spin_unlock_irqrestore(&q->wait.lock, irqflags);
	return ret;
}
EXPORT_SYMBOL_GPL(tempo_delayq_consume);

/*
 * Under the lock, the inbox taken in: remove @node if it is queued on @q.
 * tempo_delayq_remove() says what happens to a timer already firing.
 */
static bool delayq_remove_locked(struct tempo_delayq *q, struct tempo_delayq_node *node)
{
	delayq_lock_held(q);
	/* If the node is on @q, node->q is @q and stable under @q's lock. */
	if (READ_ONCE(node->q) != q)
		return false;
	switch (node->state) {
	case DELAYQ_PENDING:
		/*
		 * A near node has no timer: its tick is the queue's business;
		 * an unfiled one has none armed yet.
		 */
		if (!node->near && node->far != DQ_FAR_UNFILED &&
		    !tempo_timer_cancel(&node->timer)) {
			/* The callback is on its way: it will clear stale. */
			node->stale = true;
			q->nstale++;
		}
		fallthrough;
	case DELAYQ_READY:
		delayq_unlink(q, node);
		break;
	default:
		return false;
	}
	delayq_set_state(node, DELAYQ_REMOVED);
	delayq_count(q, DELAYQ_STAT_REMOVED);
	return true;
}

/**
 * tempo_delayq_remove() - take an item out of the queue, ready or not
 * @q: the queue
 * @node: the item's node
 *
 * O(1): unlinks the node, and cancels its timer if it has one (a delay
 * beyond the near window's). If that timer was already firing (the wheel
 * claimed the expiry), its callback still runs later and does nothing but
 * let go of the node; until then put() refuses the node with -EBUSY. Either
 * way the wheel may still hold the cancelled timer for a moment: call
 * tempo_delayq_node_sync() before freeing the node (or to re-put it at
 * once), or use tempo_delayq_remove_sync(). Racing with the
 * expiry, take() or destroy(), exactly one of them gets the node: whoever
 * changes its state first under the queue's lock.
 *
 * Context: any context except NMI; does not sleep.
 * Return: true if this call removed the node (it was pending or ready on @q);
 * false if it was not queued on @q (already taken, removed, handed back, or
 * being handed back by destroy()).
 */
bool tempo_delayq_remove(struct tempo_delayq *q, struct tempo_delayq_node *node)
{
	unsigned long flags;
	bool removed;

	spin_lock_irqsave(&q->wait.lock, flags);
	/*
	 * A node still in the inbox is linked first; one a put() is still
	 * pushing (INBOX*, not in the inbox yet) is not queued yet.
	 */
	delayq_take_in(q);
	removed = delayq_remove_locked(q, node);
	spin_unlock_irqrestore(&q->wait.lock, flags);
	return removed;
}
EXPORT_SYMBOL_GPL(tempo_delayq_remove);

/**
 * tempo_delayq_remove_many() - remove a batch of items under one lock
 * @q: the queue
 * @nodes: the items' nodes
 * @n: how many
 * @removed: out: for each item, what tempo_delayq_remove() would return
 *
 * As tempo_delayq_remove() on each item in turn, with one lock round trip
 * for the batch. A node named twice is removed by the first and not found
 * by the second, as in turn.
 *
 * Context: any context except NMI; does not sleep; interrupts are off for
 * O(@n): keep @n bounded (a caller's chunk).
 * Return: the number of items removed.
 */
unsigned int tempo_delayq_remove_many(struct tempo_delayq *q,
				      struct tempo_delayq_node *const *nodes,
				      unsigned int n, bool *removed)
{
	unsigned int i, count = 0;
	unsigned long flags;

	spin_lock_irqsave(&q->wait.lock, flags);
	delayq_take_in(q);
	for (i = 0; i < n; i++) {
		removed[i] = delayq_remove_locked(q, nodes[i]);
		count += removed[i];
	}
	spin_unlock_irqrestore(&q->wait.lock, flags);
	return count;
}
EXPORT_SYMBOL_GPL(tempo_delayq_remove_many);

/**
 * tempo_delayq_remove_sync() - remove an item and wait out its expiry
 * @q: the queue
 * @node: the item's node
 *
 * tempo_delayq_remove(), then tempo_delayq_node_sync() if it removed the
 * node: on true the node may be freed at once.
 *
 * Context: process context; may sleep.
 * Return: as tempo_delayq_remove().
 */
bool tempo_delayq_remove_sync(struct tempo_delayq *q,
			      struct tempo_delayq_node *node)
{
	might_sleep();
	if (!tempo_delayq_remove(q, node))
		return false;
	tempo_delayq_node_sync(node);
	return true;
}
EXPORT_SYMBOL_GPL(tempo_delayq_remove_sync);

/* The earliest deadline on @list, or @min if none is earlier. */
static ktime_t delayq_list_min(const struct list_head *list, ktime_t min)
{
	const struct tempo_delayq_node *node;

	list_for_each_entry(node, list, entry)
		if (ktime_before(node->deadline, min))
			min = node->deadline;
	return min;
}

/**
 * tempo_delayq_peek() - the earliest deadline in the queue
 * @q: the queue
 * @deadline: receives it
 *
 * The deadline of the item take() would return, if one is ready by the
 * queue's latest clock reading (peek reads no clock), else the earliest
 * pending deadline. The latter is cached; when the item that held it has
 * left, the next peek walks the pending lists once (O(pending), under the
 * lock).
 *
 * Context: any context except NMI; does not sleep.
 * Return: true and *@deadline set, or false if @q is empty.
 */
bool tempo_delayq_peek(struct tempo_delayq *q, ktime_t *deadline)
{
	struct tempo_delayq_node *node;
	unsigned long flags;
	bool found = true;

	spin_lock_irqsave(&q->wait.lock, flags);
	delayq_take_in(q);
	node = delayq_next(q, NULL);
	if (node) {
		*deadline = node->deadline;
	} else if (!q->npending) {
		found = false;
	} else {
		if (!q->pending_min_valid) {
			unsigned int i;

			q->pending_min = delayq_list_min(&q->far, KTIME_MAX);
			q->pending_min = delayq_list_min(&q->unfiled, q->pending_min);
			for (i = 0; i < DQ_NEAR_SLOTS; i++)
				q->pending_min = delayq_list_min(&q->near[i], q->pending_min);
			q->pending_min_valid = true;
		}
		*deadline = q->pending_min;
	}
	spin_unlock_irqrestore(&q->wait.lock, flags);
	return found;
}
EXPORT_SYMBOL_GPL(tempo_delayq_peek);

/**
 * tempo_delayq_size() - number of queued items, pending and ready
 * @q: the queue
 *
 * Context: any context except NMI; does not sleep.
 * Return: pending + ready items at one instant.
 */
unsigned int tempo_delayq_size(struct tempo_delayq *q)
{
	unsigned long flags;
	unsigned int n;

	spin_lock_irqsave(&q->wait.lock, flags);
	delayq_take_in(q);
	n = q->npending + q->nready;
	spin_unlock_irqrestore(&q->wait.lock, flags);
	return n;
}
EXPORT_SYMBOL_GPL(tempo_delayq_size);

/**
 * tempo_delayq_ready() - is an item ready to be taken?
 * @q: the queue
 *
 * For poll(): after poll_wait() on tempo_delayq_waitqueue(), report EPOLLIN
 * if this returns true. A shut-down queue reports false.
 *
 * Context: any context except NMI; does not sleep.
 * Return: true if a try_take() now would find an item.
 */
bool tempo_delayq_ready(struct tempo_delayq *q)
{
	unsigned int fresh = 0;
	unsigned long flags;
	bool ready;

	spin_lock_irqsave(&q->wait.lock, flags);
	ready = !q->dead && delayq_next(q, &fresh);
	/* It takes nothing: the nodes a reading found due want consumers. */
	delayq_wake(q, fresh);
	spin_unlock_irqrestore(&q->wait.lock, flags);
	return ready;
}
EXPORT_SYMBOL_GPL(tempo_delayq_ready);

/**
 * tempo_delayq_waitqueue() - the wait queue a poll() should wait on
 * @q: the queue
 *
 * Expiries wake every non-exclusive waiter and one exclusive waiter per item
 * that became ready, with the key EPOLLIN for one item and no key (any
 * event) for several; shutdown wakes all. Do not add exclusive waiters of
 * your own or take its lock: both belong to the queue.
 *
 * Context: any context.
 * Return: the wait queue head, valid until tempo_delayq_destroy().
 */
wait_queue_head_t *tempo_delayq_waitqueue(struct tempo_delayq *q)
{
	return &q->wait;
}
EXPORT_SYMBOL_GPL(tempo_delayq_waitqueue);

/**
 * tempo_delayq_wake_poll() - tell a queue's pollers of an event of the caller's
 * @q: the queue
 * @mask: the poll events (EPOLLOUT, say); must not include EPOLLIN
 *
 * For a file built on the queue whose poll() reports more than EPOLLIN:
 * wakes every poll waiter on tempo_delayq_waitqueue() with @mask as the key.
 * Consumers asleep in take*() or consume() ignore it: it neither wakes them
 * nor counts as one of the exclusive wake-ups items are owed.
 *
 * Context: any context except NMI; does not sleep.
 */
void tempo_delayq_wake_poll(struct tempo_delayq *q, __poll_t mask)
{
	if (WARN_ON_ONCE(mask & EPOLLIN))
		mask &= ~EPOLLIN;
	if (mask)
		wake_up_poll(&q->wait, mask);
}
EXPORT_SYMBOL_GPL(tempo_delayq_wake_poll);

/**
 * tempo_delayq_query() - is an item queued, and until when?
 * @q: the queue
 * @node: the item's node
 * @deadline: receives the item's deadline when it is queued on @q
 *
 * One critical section: the answer is the node's state at one instant, as
 * remove() would find it. A node a put() is still pushing counts as not yet
 * queued, as for remove().
 *
 * Context: any context except NMI; does not sleep.
 * Return: TEMPO_DELAYQ_PENDING if the item waits for its deadline;
 * TEMPO_DELAYQ_TAKEABLE if a take() now could return it (its deadline has
 * passed by the queue's latest clock reading); -ENOENT if it is not queued
 * on @q (never put, taken, removed or handed back).
 */
int tempo_delayq_query(struct tempo_delayq *q, struct tempo_delayq_node *node,
		       ktime_t *deadline)
{
	unsigned long flags;
	int ret = -ENOENT;

	spin_lock_irqsave(&q->wait.lock, flags);
	delayq_take_in(q);
	if (READ_ONCE(node->q) != q)
		goto unlock;
	switch (node->state) {
	case DELAYQ_PENDING:
		/* A near node of a due tick is takeable without moving. */
		ret = node->near && delayq_tick_below(q, node->deadline, q->now_tick) ?
		      TEMPO_DELAYQ_TAKEABLE : TEMPO_DELAYQ_PENDING;
		break;
	case DELAYQ_READY:
		ret = TEMPO_DELAYQ_TAKEABLE;
		break;
	default:
		goto unlock;
	}
	*deadline = node->deadline;
unlock:
	spin_unlock_irqrestore(&q->wait.lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(tempo_delayq_query);

/**
 * tempo_delayq_stats() - a snapshot of a queue's counters
 * @q: the queue
 * @stats: receives them
 *
 * Context: any context except NMI; does not sleep.
 */
void tempo_delayq_stats(struct tempo_delayq *q, struct tempo_delayq_stats *stats)
{
	unsigned long flags;

	spin_lock_irqsave(&q->wait.lock, flags);
	delayq_take_in(q);
	stats->put = q->count[DELAYQ_STAT_PUT];
	stats->expired = q->count[DELAYQ_STAT_EXPIRED];
	stats->taken = q->count[DELAYQ_STAT_TAKEN];
	stats->removed = q->count[DELAYQ_STAT_REMOVED];
	stats->flushed = q->count[DELAYQ_STAT_FLUSHED];
	stats->wakeups = q->count[DELAYQ_STAT_WAKEUPS];
	stats->rearmed = q->count[DELAYQ_STAT_REARMED];
	stats->staged = q->count[DELAYQ_STAT_STAGED];
	stats->requeued = q->count[DELAYQ_STAT_REQUEUED];
	stats->pending = q->npending - q->ndue;
	stats->ready = q->nready + q->ndue;
	stats->waiters = q->nwaiters;
	spin_unlock_irqrestore(&q->wait.lock, flags);
}
EXPORT_SYMBOL_GPL(tempo_delayq_stats);

/**
 * tempo_delayq_shutdown() - stop a queue: fail all takes, refuse all puts
 * @q: the queue
 *
 * Consumers asleep in take() wake and return -ESHUTDOWN, as do all later
 * take*() calls; put() returns -ESHUTDOWN. Queued items stay queued (their
 * timers keep running) until tempo_delayq_destroy() hands them back, and
 * remove() still works. Idempotent.
 *
 * Context: any context except NMI; does not sleep.
 */
void tempo_delayq_shutdown(struct tempo_delayq *q)
{
	unsigned long flags;

	spin_lock_irqsave(&q->wait.lock, flags);
	if (!q->dead) {
		WRITE_ONCE(q->dead, true);	/* put() reads it without the lock */
		wake_up_all_locked(&q->wait);
	}
	spin_unlock_irqrestore(&q->wait.lock, flags);
}
EXPORT_SYMBOL_GPL(tempo_delayq_shutdown);

enum delayq_detach { DETACH_FAR, DETACH_READY, DETACH_NEAR };

/*
 * Detach from @q, or return NULL if there is none: the first far node, the
 * node take() would return next (by the latest clock reading), or any near
 * node, earliest tick first.
 */
static struct tempo_delayq_node *delayq_detach_first(struct tempo_delayq *q,
						     enum delayq_detach which)
{
	struct tempo_delayq_node *node = NULL;
	u64 tick;

	spin_lock_irq(&q->wait.lock);
	delayq_take_in(q);
	switch (which) {
	case DETACH_FAR:
		node = list_first_entry_or_null(&q->far, struct tempo_delayq_node, entry) ?:
		       list_first_entry_or_null(&q->unfiled, struct tempo_delayq_node, entry);
		if (node)
			delayq_pending_del(q, node);
		break;
	case DETACH_READY:
		node = delayq_next(q, NULL);
		if (node)
			delayq_unlink(q, node);
		break;
	case DETACH_NEAR:
		tick = delayq_near_min(q);
		if (tick != U64_MAX) {
			node = list_first_entry(&q->near[tick % DQ_NEAR_SLOTS],
						struct tempo_delayq_node, entry);
			delayq_pending_del(q, node);
		}
		break;
	}
	if (node)
		delayq_set_state(node, DELAYQ_DETACHED);
	spin_unlock_irq(&q->wait.lock);
	return node;
}

/* Sleep until no consumer is asleep in @q and no stale callback is owed. */
static void delayq_wait_quiescent(struct tempo_delayq *q)
{
	DEFINE_WAIT(wait);

	spin_lock_irq(&q->wait.lock);
	while (!delayq_quiescent(q)) {
		/* Not exclusive: wake_up_all_locked() in delayq_left_dead(). */
		if (list_empty(&wait.entry))
			__add_wait_queue_entry_tail(&q->wait, &wait);
		set_current_state(TASK_UNINTERRUPTIBLE);
		spin_unlock_irq(&q->wait.lock);
		schedule();
		spin_lock_irq(&q->wait.lock);
	}
	__set_current_state(TASK_RUNNING);
	if (!list_empty(&wait.entry))
		list_del_init(&wait.entry);
	spin_unlock_irq(&q->wait.lock);
}

/**
 * tempo_delayq_destroy() - shut down and free a queue, handing back its items
 * @q: the queue
 * @release: called once for each item still queued, ready ones first in
 *	the order take() would return them, then pending ones (those beyond
 *	the near window in put order, then the others by tick); may free
 *	the item.
 *	NULL if the caller knows the queue is empty (items found are then
 *	dropped with a warning).
 * @arg: passed to @release
 *
 * Shuts @q down (see tempo_delayq_shutdown()), detaches every queued node,
 * cancel_sync()s the timers of pending ones (so no callback touches them
 * after @release), waits for consumers asleep in take() to leave with
 * -ESHUTDOWN and for the callbacks of stale removed nodes, then calls
 * @release on each node (state REMOVED) and frees @q. No lock is held while
 * sleeping, so the queue's lock is never held for more than one node.
 *
 * Context: process context; may sleep. No call on @q may start once destroy
 * has (see the contract in include/tempo/delayq.h).
 * Return: the number of items handed back (or dropped).
 */
unsigned int tempo_delayq_destroy(struct tempo_delayq *q,
				  tempo_delayq_release_fn release, void *arg)
{
	struct tempo_delayq_node *node, *next;
	LIST_HEAD(detached);
	LIST_HEAD(pending);
	unsigned int n = 0;

	might_sleep();
	tempo_delayq_shutdown(q);
	/* Dead: nothing re-arms the kick (delayq_kick_at()). */
	tempo_timer_shutdown_sync(&q->kick);

	/*
	 * Far nodes first: until they are all DETACHED a far node's timer may
	 * still move it into the near window or the ready list, and advance
	 * the queue's clock; after, nothing moves (put() and take*() refuse a
	 * dead queue, the kick is shut down, ready() reads no clock).
	 */
	while ((node = delayq_detach_first(q, DETACH_FAR))) {
		/* Waits for a callback in flight; it sees DETACHED and leaves. */
		tempo_timer_cancel_sync(&node->timer);
		list_add_tail(&node->entry, &pending);
	}
	/*
	 * Ready nodes are handed back first. Their timers, and those of near
	 * nodes, are idle unless an earlier remove() left a cancelled arm
	 * linked in the wheel: sync them too, so every node handed back may
	 * be freed.
	 */
	while ((node = delayq_detach_first(q, DETACH_READY))) {
		tempo_timer_cancel_sync(&node->timer);
		list_add_tail(&node->entry, &detached);
	}
	list_splice_tail(&pending, &detached);
	while ((node = delayq_detach_first(q, DETACH_NEAR))) {
		tempo_timer_cancel_sync(&node->timer);
		list_add_tail(&node->entry, &detached);
	}
	delayq_wait_quiescent(q);

	spin_lock_irq(&q->wait.lock);
	/* Shut down: nothing could have been queued since. */
	WARN_ON_ONCE(q->npending || q->nready || q->nnear || q->ndue ||
		     !list_empty(&q->ready) || !list_empty(&q->far) ||
		     !list_empty(&q->unfiled));
	list_for_each_entry(node, &detached, entry) {
		delayq_set_state(node, DELAYQ_REMOVED);
		delayq_count(q, DELAYQ_STAT_FLUSHED);
		n++;
	}
	spin_unlock_irq(&q->wait.lock);

	list_for_each_entry_safe(node, next, &detached, entry) {
		list_del_init(&node->entry);
		if (release)
			release(node, arg);
	}
	WARN(!release && n, "tempo: delay queue destroyed with %u items\n", n);
	atomic_dec(&delayq_live);
	kfree(q);
	return n;
}
EXPORT_SYMBOL_GPL(tempo_delayq_destroy);

static int delayq_totals_show(struct seq_file *m, void *unused)
{
	u64 sum[DELAYQ_NR_STATS] = {};
	int cpu, c;

	for_each_possible_cpu(cpu) {
		const struct delayq_totals *t = per_cpu_ptr(&delayq_totals, cpu);

		for (c = 0; c < DELAYQ_NR_STATS; c++)
			sum[c] += READ_ONCE(t->count[c]);
	}
	seq_printf(m, "queues %d\n", atomic_read(&delayq_live));
	for (c = 0; c < DELAYQ_NR_STATS; c++)
		seq_printf(m, "%s %llu\n", delayq_counter_names[c], sum[c]);
	/* Not atomic across CPUs: a snapshot, exact only when idle. */
	seq_printf(m, "queued %lld\n",
		   (s64)(sum[DELAYQ_STAT_PUT] - sum[DELAYQ_STAT_TAKEN] -
			 sum[DELAYQ_STAT_REMOVED] - sum[DELAYQ_STAT_FLUSHED]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(delayq_totals);

/**
 * tempo_delayq_debugfs() - create the delay queue's debugfs file
 * @dir: tempo's debugfs directory
 *
 * Creates "delayq": module-wide totals of all queues' counters.
 *
 * Context: process context, from the module's init.
 */
void tempo_delayq_debugfs(struct dentry *dir)
{
	debugfs_create_file("delayq", 0444, dir, NULL, &delayq_totals_fops);
}

/**
 * tempo_delayq_init() - module init of the delay queue core
 *
 * Context: process context, module init.
 * Return: 0.
 */
int tempo_delayq_init(void)
{
	return 0;
}

/**
 * tempo_delayq_exit() - module exit of the delay queue core
 *
 * Every queue must have been destroyed: their timers live in the wheel.
 *
 * Context: process context, module exit.
 */
void tempo_delayq_exit(void)
{
	WARN(atomic_read(&delayq_live), "tempo: %d delay queues leaked\n",
	     atomic_read(&delayq_live));
}
