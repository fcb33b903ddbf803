// SPDX-License-Identifier: GPL-2.0
/*
 * Deterministic tests of kmod/wheel.c in userspace: one thread plays every
 * CPU and the harness decides when each IPI, hrtimer and work item is
 * delivered, so races that a real machine hits once in a million runs are
 * written down as a sequence of steps.
 */
#include <linux/types.h>
#include "wheel_harness.h"
#include "wheel.h"
#include "harness.h"
#include "testing.h"

#define TICK_NS		1000000ULL
#define T0		(1000 * TICK_NS)

struct obj {
	struct tempo_timer	timer;
	u64			deadline;
	unsigned int		fired;
	u64			fired_at;	/* when it last ran */
	int			cpu;		/* where it last ran */
	bool			free_in_callback;
};

static unsigned int fired_total, freed_total;

/*
 * This binary is built with TEMPO_TESTING: the cores call tempo_test_point()
 * at their racy points (kmod/testing.h: just before each state-word cmpxchg),
 * and a test may set race_hook to run another CPU's operations right there.
 * Runs once per arming, at whichever wheel point comes first, or at
 * park_where only (and for park_timer only), when a test sets it.
 */
static void (*race_hook)(void);
static int park_where = -1;
static const void *park_timer;

void tempo_test_point(enum tempo_test_point where, const void *obj, u64 arg,
		      unsigned int state)
{
	void (*fn)(void) = race_hook;

	if (park_where >= 0 && (int)where != park_where)
		return;
	if (park_timer && obj != park_timer)
		return;
	park_where = -1;
	park_timer = NULL;
	(void)arg;
	(void)state;
	race_hook = NULL;
	if (fn)
		fn();
}

static void obj_fn(struct tempo_timer *t)
{
	struct obj *o = container_of(t, struct obj, timer);
	long st = h_state(t);

	fired_total++;
	o->fired++;
	o->cpu = smp_processor_id();
	o->fired_at = ktime_get_ns();
	EXPECT_GE(ktime_get_ns(), o->deadline, "fired %llu ns early",
		  o->deadline - ktime_get_ns());
	/*
	 * The contract (include/tempo/timer.h): "The callback may re-arm its
	 * own timer, and may free it." So when it runs, no base may still
	 * hold the timer: neither on a list (LINKED) nor on an inbox (QUEUED).
	 */
	EXPECT_FALSE(st & TT_HELD,
		     "callback runs while a base still holds the timer (state %#lx)", st);
	if (o->free_in_callback && !(st & TT_HELD)) {
		freed_total++;
		free(o);	/* under ASan, a later touch is a use-after-free */
	}
}

static struct obj *obj_new(bool free_in_cb)
{
	struct obj *o = calloc(1, sizeof(*o));

	tempo_timer_init(&o->timer, obj_fn, 0);
	o->free_in_callback = free_in_cb;
	return o;
}

static void setup(unsigned int ncpus)
{
	tempo_sim_init(ncpus, false, true);
	tempo_sim_clock_set(T0);
	fired_total = freed_total = 0;
	if (tempo_wheel_init(TICK_NS, 10))
		abort();
}

static void teardown(void)
{
	u64 taken, fired, released;

	tempo_sim_run_all();
	/* Every timer a base took hold of has fired or been let go of. */
	tempo_wheel_totals(&taken, &fired, &released);
	EXPECT_EQ(taken, fired + released, "taken %llu fired %llu released %llu",
		  taken, fired, released);
	tempo_sim_set_cpu(0);
	tempo_wheel_exit();
}

/* Arm on CPU 0, reach the deadline: fires once, on time. */
static void test_fires_once_on_time(void)
{
	struct obj *o;

	setup(2);
	o = obj_new(false);
	tempo_sim_set_cpu(0);
	o->deadline = ktime_get_ns() + 5 * TICK_NS;
	EXPECT_EQ(tempo_timer_arm(&o->timer, 5 * TICK_NS), 0, "idle timer");
	h_drive_until(o->deadline - 1);
	EXPECT_EQ(o->fired, 0, "fired early");
	h_drive_until(o->deadline + tempo_timer_slack_ns(5 * TICK_NS));
	EXPECT_EQ(o->fired, 1, "fired %u times", o->fired);
	teardown();
	free(o);
}

/*
 * The claim must not run a timer whose seq moved on (I7, the seq check in
 * base_settle()'s FIRE case). The interleaving:
 *
 *   CPU 0 (owner)                         CPU 1
 *   arm(t, 5 ticks): LINKED on CPU 0
 *   hrtimer: collect t -> expired list
 *                                         arm(t, 0): held by CPU 0, so
 *                                         seq++, QUEUED, push to CPU 0's
 *                                         inbox, IPI (not delivered yet)
 *   work: claim t   <- seq != linked_seq: re-place (LINKED), no callback;
 *                      without the check: FIRE with QUEUED still set, the
 *                      callback frees t, and ...
 *   IPI: drain inbox <- ... this pops a freed timer (use-after-free)
 *   next tick: t fires once, with no base holding it
 */
static void test_claim_with_remote_rearm_in_flight(void)
{
	struct obj *o;

	setup(2);
	o = obj_new(true);
	tempo_sim_set_cpu(0);
	o->deadline = ktime_get_ns() + 5 * TICK_NS;
	EXPECT_EQ(tempo_timer_arm(&o->timer, 5 * TICK_NS), 0, "idle timer");

	tempo_sim_clock_advance(5 * TICK_NS);
	EXPECT_EQ(tempo_sim_run_hrtimers(), 1, "CPU 0's hrtimer collects t");
	EXPECT_EQ(fired_total, 0, "nothing runs in hardirq");

	tempo_sim_set_cpu(1);
	o->deadline = ktime_get_ns();
	EXPECT_EQ(tempo_timer_arm(&o->timer, 0), 1, "re-arm of a collected timer: pending");
	EXPECT_EQ(tempo_sim_pending_csds(0), 1, "the message to CPU 0 is in flight");

	tempo_sim_set_cpu(0);
	tempo_sim_run_works();		/* the claim, IPI still in flight */
	tempo_sim_run_csds();		/* the IPI: the inbox drains */
	h_drive_until(ktime_get_ns() + 2 * TICK_NS);
	EXPECT_EQ(fired_total, 1, "fired %u times", fired_total);
	EXPECT_EQ(freed_total, 1, "freed %u times", freed_total);
	teardown();
}

/* A remote cancel in flight when the owner claims: no callback. */
static void test_claim_with_remote_cancel_in_flight(void)
{
	struct obj *o;

	setup(2);
	o = obj_new(false);
	tempo_sim_set_cpu(0);
	o->deadline = ktime_get_ns() + 3 * TICK_NS;
	tempo_timer_arm(&o->timer, 3 * TICK_NS);
	tempo_sim_clock_advance(3 * TICK_NS);
	tempo_sim_run_hrtimers();
	tempo_sim_set_cpu(1);
	EXPECT_TRUE(tempo_timer_cancel(&o->timer), "cancel of a collected timer stops it");
	tempo_sim_set_cpu(0);
	tempo_sim_run_works();
	EXPECT_EQ(o->fired, 0, "cancelled timer ran");
	tempo_sim_run_csds();
	EXPECT_FALSE(h_state(&o->timer) & TT_HELD, "still held");
	tempo_sim_set_cpu(1);
	EXPECT_FALSE(tempo_timer_cancel_sync(&o->timer), "nothing left to stop");
	teardown();
	free(o);
}

/* arm_on another CPU, then re-arm from a third while the move is in flight. */
static void test_arm_on_moves_while_in_flight(void)
{
	struct obj *o;

	setup(3);
	o = obj_new(true);
	tempo_sim_set_cpu(0);
	tempo_timer_arm(&o->timer, 10 * TICK_NS);
	tempo_sim_set_cpu(2);
	EXPECT_EQ(tempo_timer_arm_on(&o->timer, 1, 4 * TICK_NS), 1, "pending");
	tempo_sim_set_cpu(0);
	tempo_sim_run_csds();		/* CPU 0 forwards to CPU 1 */
	tempo_sim_set_cpu(2);
	o->deadline = ktime_get_ns() + 2 * TICK_NS;
	EXPECT_EQ(tempo_timer_arm(&o->timer, 2 * TICK_NS), 1, "pending");
	h_drive_until(o->deadline - 1);
	EXPECT_EQ(fired_total, 0, "early");
	h_drive_until(o->deadline + 2 * TICK_NS);
	EXPECT_TRUE(fired_total == 1 && freed_total == 1, "fired %u", fired_total);
	teardown();
}

/*
 * A remote CPU's message must never make it touch the list of a CPU going
 * offline. The interleaving that timer_send() must not allow, by moving b's
 * cpu while b is still LINKED:
 *
 *   CPU 0 (going offline)                   CPU 1
 *   a, b LINKED on CPU 0; b alone in its slot
 *   offline: seal the inbox, evacuate:
 *     settle a ...
 *                                           cancel(b): held by CPU 0, so
 *                                           QUEUED, push -> sealed; were
 *                                           b's cpu moved to 1 with LINKED
 *                                           still set, then ...
 *                                           drain: b "LINKED here": list_del
 *                                           from CPU 0's slot, from CPU 1
 *     ... evacuate b's slot: found empty, its occupied bit stays set
 *   online: the wheel is not empty (CPU 0 came back with timers on it)
 */
static struct obj *hook_b;

static void hook_cancel_b_from_cpu1(void)
{
	tempo_sim_set_cpu(1);
	EXPECT_TRUE(tempo_timer_cancel(&hook_b->timer), "b was pending");
	tempo_sim_run_irqs();
	tempo_sim_set_cpu(0);
}

static void test_offline_with_remote_cancel_racing_evacuation(void)
{
	struct obj *a, *b;
	bool armed;

	setup(2);
	a = obj_new(false);
	b = obj_new(false);
	tempo_sim_set_cpu(0);
	a->deadline = ktime_get_ns() + 2 * TICK_NS;
	tempo_timer_arm(&a->timer, 2 * TICK_NS);	/* level 0 */
	tempo_timer_arm(&b->timer, 100 * TICK_NS);	/* level 1, its own slot */

	hook_b = b;
	race_hook = hook_cancel_b_from_cpu1;
	tempo_sim_cpu_down(0);
	EXPECT_EQ(race_hook, NULL, "the evacuation reached the race point");
	EXPECT_TRUE(tempo_wheel_cpu_quiet(0, &armed), "CPU 0's wheel is not empty after offline");
	EXPECT_FALSE(armed, "CPU 0's hrtimer still armed after offline");
	EXPECT_FALSE(h_state(&b->timer) & (TT_HELD | TT_PENDING),
		     "b still held: state %#lx", h_state(&b->timer));

	tempo_sim_set_cpu(1);
	h_drive_until(a->deadline + 2 * TICK_NS);
	EXPECT_TRUE(a->fired == 1 && b->fired == 0, "a fired %u, b fired %u", a->fired, b->fired);
	tempo_sim_cpu_up(0);
	EXPECT_TRUE(tempo_wheel_cpu_quiet(0, &armed), "CPU 0 came online with timers");
	teardown();
	free(a);
	free(b);
}

/* The same race with a re-arm: the timer ends up on an online CPU, once. */
static void hook_rearm_b_from_cpu1(void)
{
	tempo_sim_set_cpu(1);
	hook_b->deadline = ktime_get_ns() + 3 * TICK_NS;
	EXPECT_EQ(tempo_timer_arm(&hook_b->timer, 3 * TICK_NS), 1, "b was pending");
	tempo_sim_run_irqs();
	tempo_sim_set_cpu(0);
}

static void test_offline_with_remote_rearm_racing_evacuation(void)
{
	struct obj *a, *b;
	bool armed;

	setup(2);
	a = obj_new(false);
	b = obj_new(true);
	tempo_sim_set_cpu(0);
	a->deadline = ktime_get_ns() + 2 * TICK_NS;
	tempo_timer_arm(&a->timer, 2 * TICK_NS);
	tempo_timer_arm(&b->timer, 100 * TICK_NS);

	hook_b = b;
	race_hook = hook_rearm_b_from_cpu1;
	tempo_sim_cpu_down(0);
	EXPECT_EQ(race_hook, NULL, "the evacuation reached the race point");
	EXPECT_TRUE(tempo_wheel_cpu_quiet(0, &armed), "CPU 0's wheel is not empty after offline");

	tempo_sim_set_cpu(1);
	h_drive_until(b->deadline + 2 * TICK_NS);
	EXPECT_EQ(a->fired, 1, "a fired %u times", a->fired);
	EXPECT_EQ(freed_total, 1, "b fired %u times", freed_total);	/* b freed itself */
	tempo_sim_cpu_up(0);
	EXPECT_TRUE(tempo_wheel_cpu_quiet(0, &armed), "CPU 0 came online with timers");
	teardown();
	free(a);
}

/*
 * PARKING: a cancel on the owner publishes first and unlinks after. A remote
 * arm that lands in between must not take the entry:
 *
 *   CPU 0 (owner)                         CPU 1
 *   arm(t, 100 ticks): LINKED on CPU 0
 *   cancel(t): cmpxchg -> PARKED
 *                                         arm(t, 5 ticks): held (PARKED) by
 *                                         CPU 0: QUEUED, push, IPI
 *   unlink t from its slot
 *   IPI: settle: link t for 5 ticks
 *   ... t fires once, on time, on CPU 0
 *
 * Were the cancel to leave t claimable (LINKED cleared, PARKED not set), CPU
 * 1 would link t into its own wheel and CPU 0's unlink would then cut it out
 * of CPU 1's slot: the timer is lost.
 */
static struct obj *park_obj;

static void park_hook(enum tempo_test_point where, void (*fn)(void))
{
	park_where = where;
	race_hook = fn;
}

static void hook_arm_parked_from_cpu1(void)
{
	tempo_sim_set_cpu(1);
	park_obj->deadline = ktime_get_ns() + 5 * TICK_NS;
	EXPECT_EQ(tempo_timer_arm(&park_obj->timer, 5 * TICK_NS), 0, "parked timer is idle");
	EXPECT_TRUE(h_state(&park_obj->timer) & TT_QUEUED, "arm of a parked timer messages its owner");
	tempo_sim_set_cpu(0);
}

static void test_remote_arm_while_parking(void)
{
	struct obj *o;
	bool armed;

	setup(2);
	o = obj_new(false);
	park_obj = o;
	tempo_sim_set_cpu(0);
	EXPECT_EQ(tempo_timer_arm(&o->timer, 100 * TICK_NS), 0, "idle timer");
	park_hook(TEMPO_TP_WHEEL_PARKED, hook_arm_parked_from_cpu1);
	EXPECT_TRUE(tempo_timer_cancel(&o->timer), "cancel stops the pending timer");
	EXPECT_EQ(race_hook, NULL, "the cancel reached its parked point");
	h_drive_until(o->deadline + tempo_timer_slack_ns(5 * TICK_NS));
	EXPECT_EQ(o->fired, 1, "fired %u times", o->fired);
	EXPECT_EQ(o->cpu, 0, "fired on CPU %d, not on its holder", o->cpu);
	EXPECT_TRUE(tempo_wheel_cpu_quiet(1, &armed), "CPU 1's wheel holds the entry");
	teardown();
	free(o);
}

/*
 * A parked timer is re-armed in place by its owner, and cancel_sync lets go
 * of it from either CPU: on the owner by clearing PARKED, elsewhere through
 * the owner (timer_release()).
 */
static void test_parked_rearm_and_cancel_sync(void)
{
	struct obj *o;

	setup(2);
	o = obj_new(false);
	tempo_sim_set_cpu(0);
	tempo_timer_arm(&o->timer, 100 * TICK_NS);
	EXPECT_TRUE(tempo_timer_cancel(&o->timer), "cancel stops it");
	EXPECT_EQ((h_state(&o->timer) & (TT_HELD | TT_PENDING)), TT_PARKED,
		  "a local cancel parks: state %#lx", h_state(&o->timer));
	o->deadline = ktime_get_ns() + 4 * TICK_NS;
	EXPECT_EQ(tempo_timer_arm(&o->timer, 4 * TICK_NS), 0, "parked timer is idle");
	EXPECT_EQ((h_state(&o->timer) & (TT_HELD | TT_PENDING)), (TT_LINKED | TT_PENDING),
		  "re-armed in place: state %#lx", h_state(&o->timer));
	h_drive_until(o->deadline + tempo_timer_slack_ns(4 * TICK_NS));
	EXPECT_EQ(o->fired, 1, "fired %u times", o->fired);

	tempo_timer_arm(&o->timer, 100 * TICK_NS);
	tempo_timer_cancel(&o->timer);
	EXPECT_FALSE(tempo_timer_cancel_sync(&o->timer), "nothing left to stop");
	EXPECT_FALSE(h_state(&o->timer) & TT_HELD, "cancel_sync on the owner: state %#lx",
		     h_state(&o->timer));

	tempo_timer_arm(&o->timer, 100 * TICK_NS);
	tempo_timer_cancel(&o->timer);
	tempo_sim_set_cpu(1);
	EXPECT_FALSE(tempo_timer_cancel_sync(&o->timer), "nothing left to stop");
	EXPECT_FALSE(h_state(&o->timer) & TT_HELD, "cancel_sync elsewhere: state %#lx",
		     h_state(&o->timer));
	tempo_sim_set_cpu(0);
	teardown();
	EXPECT_EQ(o->fired, 1, "fired %u times", o->fired);
	free(o);
}

/* ---------------------------------------------------------------------- */
/* Lazy re-arm and cancel (kmod/wheel.c, LAZY).                            */

/*
 * With TICK_NS = 1 ms and 10 levels the far slots are level 2 and up
 * (granule 64 ticks). A timer armed 620 ticks after T0 expires at tick 1620
 * and sits in the level-2 slot collected at tick 1664 (BUCKET).
 */
#define FAR_TICKS	620
#define BUCKET		1664ULL

static struct obj *lazy_obj;
static int lazy_ret;

static u64 tick_ns(u64 tick)
{
	return tick * TICK_NS;
}

/* Arm @o far on CPU 0, at T0; it sits in the slot of BUCKET. */
static void arm_far_on_cpu0(struct obj *o)
{
	tempo_sim_set_cpu(0);
	o->deadline = ktime_get_ns() + FAR_TICKS * TICK_NS;
	EXPECT_EQ(tempo_timer_arm(&o->timer, FAR_TICKS * TICK_NS), 0, "idle timer");
	EXPECT_EQ(o->timer.bucket, tick_ns(BUCKET), "placed in a far slot: bucket %llu", o->timer.bucket);
}

/* CPU 0 reaches BUCKET: its hrtimer collects the slot; its work item not yet. */
static void cpu0_collects(void)
{
	tempo_sim_set_cpu(0);
	tempo_sim_clock_set(tick_ns(BUCKET));
	EXPECT_EQ(tempo_sim_run_hrtimers(), 1, "CPU 0's hrtimer runs at the bucket");
}

static void hook_cpu0_collects_and_claims(void)
{
	cpu0_collects();
	EXPECT_EQ(tempo_sim_run_works(), 1, "the claim runs");
	EXPECT_EQ(lazy_obj->fired, 1, "the timer ran for its first deadline");
	tempo_sim_set_cpu(1);
}

static void hook_cpu0_collects(void)
{
	cpu0_collects();
	tempo_sim_set_cpu(1);
}

/*
 * Two CPUs, a far timer on CPU 0 whose slot comes at BUCKET, the clock a
 * tick before it, CPU 1 current and @hook parked at the lazy point.
 */
static struct obj *lazy_race(void (*hook)(void))
{
	struct obj *o;

	setup(2);
	o = obj_new(false);
	lazy_obj = o;
	arm_far_on_cpu0(o);
	tempo_sim_clock_set(tick_ns(BUCKET - 1));
	tempo_sim_set_cpu(1);
	park_hook(TEMPO_TP_WHEEL_LAZY, hook);
	return o;
}

/*
 * A lazy re-arm decided on a far slot, then the owner collects the slot and
 * claims the timer before the re-arm's cmpxchg: the cmpxchg fails, the arm
 * finds the timer idle and arms it afresh, eagerly. It ran once for its old
 * deadline and runs once more for the new one, both on time.
 */
static void test_lazy_rearm_loses_to_claim(void)
{
	struct obj *o = lazy_race(hook_cpu0_collects_and_claims);

	lazy_ret = tempo_timer_arm(&o->timer, tick_ns(BUCKET + 100) - ktime_get_ns());
	EXPECT_EQ(race_hook, NULL, "the arm reached its lazy point");
	EXPECT_EQ(lazy_ret, 0, "the claim came first: the arm finds the timer idle (%d)", lazy_ret);
	o->deadline = tick_ns(BUCKET + 100);
	h_drive_until(o->deadline + tempo_timer_slack_ns(100 * TICK_NS));
	EXPECT_EQ(o->fired, 2, "fired %u times", o->fired);
	teardown();
	free(o);
}

/*
 * The other order (P7): the re-arm decided on the far slot, the owner's
 * hrtimer collects the slot (the timer looks due as placed: it goes to the
 * expired list), then the re-arm's cmpxchg succeeds. The re-arm must see the
 * slot is gone and have the owner re-place the timer now, by a message: its
 * interrupt re-places it before the dispatcher runs. The dispatcher, when it
 * comes, must not run it (MV). It fires once, on time for the new deadline.
 * Fails if: timer_arm_lazy() does not check the bucket after its cmpxchg
 * (the timer waits on the expired list, MOVED, for the dispatcher).
 */
static void test_lazy_rearm_after_collection_pokes_owner(void)
{
	struct obj *o = lazy_race(hook_cpu0_collects);

	o->deadline = tick_ns(BUCKET + 5);
	lazy_ret = tempo_timer_arm(&o->timer, o->deadline - ktime_get_ns());
	EXPECT_EQ(race_hook, NULL, "the arm reached its lazy point");
	EXPECT_EQ(lazy_ret, 1, "re-arm of a pending timer (%d)", lazy_ret);
	EXPECT_EQ(tempo_sim_pending_csds(0), 1, "the owner is told to re-place it");
	tempo_sim_set_cpu(0);
	tempo_sim_run_irqs();		/* the message, not the dispatcher */
	EXPECT_TRUE(!(h_state(&o->timer) & TT_MOVED) && o->timer.idx != TEMPO_IDX_EXPIRED,
		    "re-placed in a slot by the interrupt: state %#lx", h_state(&o->timer));
	tempo_sim_run_works();		/* the dispatcher finds nothing to run */
	EXPECT_EQ(o->fired, 0, "ran for a deadline it no longer has");
	h_drive_until(o->deadline + tempo_timer_slack_ns(6 * TICK_NS));
	EXPECT_EQ(o->fired, 1, "fired %u times", o->fired);
	teardown();
	free(o);
}

/*
 * A lazy cancel against the claim, both orders. Claim first: the cancel's
 * cmpxchg fails, it finds the timer not pending and returns false. Cancel
 * first: the collection drops the timer in the interrupt, with no callback
 * and no work item.
 */
static void test_lazy_cancel_loses_to_claim(void)
{
	struct obj *o = lazy_race(hook_cpu0_collects_and_claims);

	EXPECT_FALSE(tempo_timer_cancel(&o->timer), "the callback was claimed: nothing stopped");
	EXPECT_EQ(race_hook, NULL, "the cancel reached its lazy point");
	EXPECT_EQ(o->fired, 1, "fired %u times", o->fired);
	EXPECT_FALSE(h_state(&o->timer) & (TT_HELD | TT_PENDING), "state %#lx",
		     h_state(&o->timer));
	teardown();
	free(o);
}

static void test_lazy_cancel_then_collection_drops_it(void)
{
	struct obj *o;
	bool armed;

	setup(2);
	o = obj_new(false);
	arm_far_on_cpu0(o);
	tempo_sim_set_cpu(1);
	EXPECT_TRUE(tempo_timer_cancel(&o->timer), "cancel stops the pending timer");
	EXPECT_EQ((h_state(&o->timer) & (TT_HELD | TT_PENDING)), TT_LINKED,
		  "a far timer's cancel leaves it in its slot: state %#lx", h_state(&o->timer));
	EXPECT_EQ(tempo_sim_pending_csds(0), 0, "a lazy cancel sends no message");
	EXPECT_FALSE(tempo_timer_pending(&o->timer), "pending after cancel");
	EXPECT_FALSE(tempo_timer_cancel(&o->timer), "a second cancel stops nothing");
	cpu0_collects();
	EXPECT_FALSE(h_state(&o->timer) & TT_HELD, "the collection let go of it: state %#lx",
		     h_state(&o->timer));
	EXPECT_EQ(tempo_sim_run_works(), 0, "garbage costs a work item");
	EXPECT_TRUE(tempo_wheel_cpu_quiet(0, &armed) && !armed, "CPU 0 still holds or ticks");
	EXPECT_EQ(o->fired, 0, "a cancelled timer ran");
	teardown();
	free(o);
}

/*
 * A lazy operation decided, then another CPU re-arms the timer eagerly (to
 * an earlier deadline the far slot cannot serve: a message to the owner).
 * The lazy cmpxchg fails, the operation finds QUEUED and goes eager. The
 * timer ends up as the last operation left it, and runs at most once.
 */
static struct obj *eager_obj;

static void hook_eager_rearm_from_cpu2(void)
{
	tempo_sim_set_cpu(2);
	eager_obj->deadline = ktime_get_ns() + 5 * TICK_NS;
	EXPECT_EQ(tempo_timer_arm(&eager_obj->timer, 5 * TICK_NS), 1, "pending");
	EXPECT_TRUE(h_state(&eager_obj->timer) & TT_QUEUED, "an early re-arm messages the owner");
	tempo_sim_set_cpu(1);
}

static void test_lazy_cancel_races_remote_eager_arm(void)
{
	struct obj *o;

	setup(3);
	o = obj_new(false);
	eager_obj = o;
	arm_far_on_cpu0(o);
	tempo_sim_set_cpu(1);
	park_hook(TEMPO_TP_WHEEL_LAZY, hook_eager_rearm_from_cpu2);
	EXPECT_TRUE(tempo_timer_cancel(&o->timer), "cancel stops the pending timer");
	EXPECT_EQ(race_hook, NULL, "the cancel reached its lazy point");
	h_drive_until(ktime_get_ns() + 2 * FAR_TICKS * TICK_NS);
	EXPECT_EQ(o->fired, 0, "the cancel came last, yet the timer ran");
	EXPECT_FALSE(h_state(&o->timer) & TT_HELD, "still held: state %#lx", h_state(&o->timer));
	teardown();
	free(o);
}

static void test_lazy_rearm_races_remote_eager_arm(void)
{
	struct obj *o;
	u64 last;

	setup(3);
	o = obj_new(false);
	eager_obj = o;
	arm_far_on_cpu0(o);
	tempo_sim_set_cpu(1);
	park_hook(TEMPO_TP_WHEEL_LAZY, hook_eager_rearm_from_cpu2);
	last = ktime_get_ns() + (FAR_TICKS + 300) * TICK_NS;
	EXPECT_EQ(tempo_timer_arm(&o->timer, (FAR_TICKS + 300) * TICK_NS), 1, "pending");
	EXPECT_EQ(race_hook, NULL, "the arm reached its lazy point");
	o->deadline = last;	/* the lazy arm committed last */
	h_drive_until(last + tempo_timer_slack_ns((FAR_TICKS + 300) * TICK_NS));
	EXPECT_EQ(o->fired, 1, "fired %u times", o->fired);
	EXPECT_EQ(o->cpu, 0, "fired on CPU %d, not on its holder", o->cpu);
	teardown();
	free(o);
}

/*
 * A lazy operation between the evacuation's read of the timer's state word
 * and its cmpxchg (CPU 0 going offline): the cmpxchg fails and the evacuation
 * settles what the word says last, so a re-armed timer moves to CPU 1 and
 * fires there once, on time; a cancelled one is let go of. Either way CPU 0
 * goes offline with an empty wheel.
 */
static bool evac_cancel;

static void hook_lazy_op_on_b_from_cpu1(void)
{
	tempo_sim_set_cpu(1);
	if (evac_cancel) {
		EXPECT_TRUE(tempo_timer_cancel(&hook_b->timer), "b was pending");
	} else {
		hook_b->deadline = ktime_get_ns() + (FAR_TICKS + 200) * TICK_NS;
		EXPECT_EQ(tempo_timer_arm(&hook_b->timer, (FAR_TICKS + 200) * TICK_NS), 1,
			  "b was pending");
	}
	EXPECT_EQ(tempo_sim_pending_csds(0), 0, "a lazy operation sends no message");
	tempo_sim_set_cpu(0);
}

static void lazy_op_races_evacuation(bool cancel)
{
	struct obj *a, *b;
	bool armed;

	setup(2);
	a = obj_new(false);
	b = obj_new(false);
	evac_cancel = cancel;
	tempo_sim_set_cpu(0);
	a->deadline = ktime_get_ns() + 2 * TICK_NS;
	tempo_timer_arm(&a->timer, 2 * TICK_NS);	/* settled first */
	arm_far_on_cpu0(b);

	hook_b = b;
	/* Between the evacuation's read of b's state word and its cmpxchg. */
	park_hook(TEMPO_TP_WHEEL_SETTLE, hook_lazy_op_on_b_from_cpu1);
	park_timer = &b->timer;
	tempo_sim_cpu_down(0);
	EXPECT_EQ(race_hook, NULL, "the evacuation reached the race point");
	EXPECT_TRUE(tempo_wheel_cpu_quiet(0, &armed), "CPU 0's wheel is not empty after offline");

	tempo_sim_set_cpu(1);
	h_drive_until(b->deadline + tempo_timer_slack_ns((FAR_TICKS + 200) * TICK_NS));
	EXPECT_EQ(a->fired, 1, "a fired %u times", a->fired);
	EXPECT_EQ(b->fired, (cancel ? 0 : 1), "b fired %u times", b->fired);
	if (!cancel)
		EXPECT_EQ(b->cpu, 1, "b fired on CPU %d", b->cpu);
	EXPECT_FALSE(h_state(&b->timer) & TT_HELD, "b still held: state %#lx", h_state(&b->timer));
	tempo_sim_cpu_up(0);
	EXPECT_TRUE(tempo_wheel_cpu_quiet(0, &armed), "CPU 0 came online with timers");
	teardown();
	free(a);
	free(b);
}

static void test_lazy_rearm_races_evacuation(void)
{
	lazy_op_races_evacuation(false);
}

static void test_lazy_cancel_races_evacuation(void)
{
	lazy_op_races_evacuation(true);
}

/*
 * cancel_sync and shutdown_sync right after a lazy cancel let go of the
 * timer at once, from the owner and from elsewhere: they never wait for its
 * slot (the clock does not move here). Fails if: they wait for the timer to
 * leave its lists without asking its owner to let go (the sim reports a wait
 * that nothing can satisfy).
 */
static void test_sync_after_lazy_cancel(void)
{
	unsigned int cpu, shutdown;
	struct obj *o;
	bool armed;

	for (shutdown = 0; shutdown < 2; shutdown++) {
		for (cpu = 0; cpu < 2; cpu++) {
			setup(2);
			o = obj_new(false);
			arm_far_on_cpu0(o);
			tempo_sim_set_cpu(cpu);
			EXPECT_TRUE(tempo_timer_cancel(&o->timer), "cancel stops the pending timer");
			EXPECT_TRUE(h_state(&o->timer) & TT_LINKED, "left in its slot");
			EXPECT_TRUE(shutdown ? !tempo_timer_shutdown_sync(&o->timer) :
					 !tempo_timer_cancel_sync(&o->timer),
				    "nothing left to stop");
			EXPECT_LT(ktime_get_ns(), o->deadline, "waited for the slot");
			EXPECT_FALSE(h_state(&o->timer) & TT_HELD,
				     "still held after %s on CPU %u: state %#lx",
				     shutdown ? "shutdown_sync" : "cancel_sync", cpu, h_state(&o->timer));
			EXPECT_TRUE(tempo_wheel_cpu_quiet(0, &armed), "CPU 0's wheel still holds it");
			if (shutdown)
				EXPECT_EQ(tempo_timer_arm(&o->timer, TICK_NS), -ESHUTDOWN, "armed");
			tempo_sim_set_cpu(0);
			teardown();
			EXPECT_EQ(o->fired, 0, "fired %u times", o->fired);
			free(o);
		}
	}
}

/*
 * Postpone chains keep the bound of the last deadline. A far timer re-armed
 * again and again stays in its slot as long as the slot comes less than a
 * granule of the new delay's level after the new deadline; the chain's last
 * deadline is what it fires for, never early and within
 * tempo_timer_slack_ns() of that delay. Here the last deadline is before
 * the slot (it fires when the slot is collected, 30 ticks late, under the
 * 64-tick granule of its 594-tick delay), then, in a second timer, after it
 * (re-placed when the slot is collected, fires on time).
 * Fails if: the collection leaves a re-armed timer that is due to the
 * dispatcher as placed (it is re-placed there and fires a tick late).
 */
static void test_postpone_chain_bound(void)
{
	struct obj *o[2];
	unsigned int i, k;
	u64 last_d[2];

	setup(2);
	for (i = 0; i < 2; i++) {
		o[i] = obj_new(false);
		arm_far_on_cpu0(o[i]);
	}
	for (k = 1; k <= 4; k++) {
		tempo_sim_clock_set(T0 + k * 10 * TICK_NS);
		for (i = 0; i < 2; i++) {
			u64 d = (FAR_TICKS - 30 + i * 100 + k) * TICK_NS;

			tempo_sim_set_cpu(1);
			o[i]->deadline = ktime_get_ns() + d;
			last_d[i] = d;
			EXPECT_EQ(tempo_timer_arm(&o[i]->timer, d), 1, "pending");
			EXPECT_TRUE(h_state(&o[i]->timer) & TT_MOVED, "a postpone in the slot is lazy");
			EXPECT_EQ(o[i]->timer.bucket, tick_ns(BUCKET), "still in its slot");
		}
	}
	h_drive_until(o[0]->deadline - 1);
	EXPECT_EQ(o[0]->fired, 0, "early");
	EXPECT_LT(BUCKET * TICK_NS - o[0]->deadline, tempo_timer_slack_ns(last_d[0]),
		  "the test's slot is too late for its last delay");
	h_drive_until(o[0]->deadline + tempo_timer_slack_ns(last_d[0]));
	EXPECT_EQ(o[0]->fired, 1, "o[0] fired %u times", o[0]->fired);
	/* Due when its slot is collected: it goes to the expired list there. */
	EXPECT_EQ(o[0]->fired_at, BUCKET * TICK_NS, "o[0] fired at tick %llu, its slot is %llu",
		  o[0]->fired_at / TICK_NS, BUCKET);
	h_drive_until(o[1]->deadline - 1);
	EXPECT_EQ(o[1]->fired, 0, "early");
	h_drive_until(o[1]->deadline + 2 * TICK_NS);
	EXPECT_EQ(o[1]->fired, 1, "o[1] fired %u times, not on time", o[1]->fired);
	teardown();
	free(o[0]);
	free(o[1]);
}

/*
 * What laziness costs an idle CPU: 64 far timers cancelled and never
 * re-armed cost their CPU one hrtimer expiry per far slot they sat in, no
 * more, and no work item; then its hrtimer stops.
 */
static void test_garbage_costs_one_expiry_per_slot(void)
{
	struct obj *o[64];
	unsigned int i, expiries = 0, works = 0, slots = 0;
	u64 last = 0;
	bool armed;

	setup(2);
	tempo_sim_set_cpu(0);
	for (i = 0; i < 64; i++) {
		o[i] = obj_new(false);
		EXPECT_EQ(tempo_timer_arm(&o[i]->timer, (600 + 37 * i) * TICK_NS), 0, "idle");
		if (o[i]->timer.bucket != last)
			slots++;
		last = o[i]->timer.bucket;
	}
	for (i = 0; i < 64; i++) {
		tempo_sim_set_cpu(i & 1);
		EXPECT_TRUE(tempo_timer_cancel(&o[i]->timer), "pending");
	}
	tempo_sim_set_cpu(0);
	for (;;) {
		u64 next = tempo_sim_next_hrtimer();

		if (next == U64_MAX)
			break;
		tempo_sim_clock_set(next);
		expiries += tempo_sim_run_hrtimers();
		works += tempo_sim_run_works();
	}
	EXPECT_EQ(expiries, slots, "%u expiries for %u slots of garbage", expiries, slots);
	EXPECT_EQ(works, 0, "%u work items for garbage", works);
	EXPECT_TRUE(tempo_wheel_cpu_quiet(0, &armed) && !armed, "CPU 0 still holds or ticks");
	teardown();
	for (i = 0; i < 64; i++) {
		EXPECT_EQ(o[i]->fired, 0, "a cancelled timer ran");
		free(o[i]);
	}
}

/* ---------------------------------------------------------------------- */
/* COARSE timers and the same expiry (kmod/wheel.c, COARSE and LAZY).      */

static struct obj *coarse_obj(void)
{
	struct obj *o = obj_new(false);

	tempo_timer_init(&o->timer, obj_fn, TEMPO_TIMER_COARSE);
	return o;
}

/*
 * A COARSE arm dates "now" by the jiffy (T0 starts one; a jiffy is
 * TICK_NSEC, 4 ms here) and pads by one: armed anywhere in the jiffy, the
 * timer is due TICK_NSEC + delay after the jiffy's start, never before
 * now + delay, and a jiffy late at most. Re-armed to the same delay within
 * the jiffy, it is pending for the same deadline and nothing is written;
 * in the next jiffy it is postponed by a jiffy, lazily (MV).
 * Fails if: the arm dates now by anything but the jiffy (the deadline moves
 * within it, or is early), or a re-arm within the jiffy writes the state.
 */
static void test_coarse_dates_by_jiffy(void)
{
	u64 d = 656 * TICK_NS, j0, at;
	struct obj *o;
	long st;

	setup(2);
	o = coarse_obj();
	tempo_sim_set_cpu(0);
	j0 = ktime_get_ns();
	tempo_sim_clock_advance(TICK_NSEC - 1000);	/* late in the jiffy */
	at = ktime_get_ns();
	EXPECT_EQ(tempo_timer_arm(&o->timer, d), 0, "idle timer");
	EXPECT_EQ(o->timer.expires, j0 + TICK_NSEC + d, "deadline %llu ns after the jiffy",
		  o->timer.expires - j0);
	EXPECT_GE(o->timer.expires, at + d, "early by %llu ns", at + d - o->timer.expires);
	st = h_state(&o->timer);
	tempo_sim_clock_set(j0);
	tempo_sim_set_cpu(1);
	EXPECT_EQ(tempo_timer_arm(&o->timer, d), 1, "pending");
	EXPECT_EQ(h_state(&o->timer), st, "the same expiry wrote the state: %#lx, was %#lx",
		  h_state(&o->timer), st);
	tempo_sim_clock_set(j0 + TICK_NSEC);
	EXPECT_EQ(tempo_timer_arm(&o->timer, d), 1, "pending");
	EXPECT_EQ(o->timer.expires, j0 + 2 * TICK_NSEC + d, "postponed by a jiffy");
	EXPECT_TRUE(h_state(&o->timer) & TT_MOVED, "postponed lazily: %#lx", h_state(&o->timer));
	o->deadline = o->timer.expires - TICK_NSEC;
	h_drive_until(o->deadline - 1);
	EXPECT_EQ(o->fired, 0, "early");
	h_drive_until(o->timer.expires + tempo_timer_slack_ns(d + TICK_NSEC));
	EXPECT_EQ(o->fired, 1, "fired %u times", o->fired);
	teardown();
	free(o);
}

/*
 * A re-arm of a pending timer to the deadline it holds, with a shorter
 * delay: a precise timer is bounded by that latest arm, a COARSE one keeps
 * the bound of the arm that set the deadline, as mod_timer() with an
 * unchanged expires (include/tempo/timer.h, "tempo timer time bounds").
 * Each is armed at T0 to expire at tick 1604, in the level-2 slot of tick
 * 1664 (60 ticks after, under the 64-tick granule of its 604-tick d), and
 * re-armed from CPU 1 at T0 + 200 ms to the same deadline, by
 * tempo_timer_arm() or tempo_timer_arm_at(): a d of 404 ticks, whose level-1
 * granule is 8 ticks. The precise timer leaves the slot and fires within 8
 * ticks of its deadline; the COARSE one is left as it was, state word and
 * slot, and fires with its slot, within the first arm's bound.
 * Fails if: the same deadline skips the lazy rule for a precise timer (it
 * stays in its slot and fires 60 ticks late), or takes it for a pending
 * COARSE one (re-placed: the state word changes, and it fires on time).
 */
static void test_same_deadline_bound_per_kind(void)
{
	const u64 due = tick_ns(1604), first_d = due - T0, d = due - T0 - 200 * TICK_NS;
	unsigned int v;

	for (v = 0; v < 4; v++) {
		bool coarse = v & 1, at = v & 2;
		const char *kind = coarse ? "coarse" : "precise", *how = at ? "arm_at" : "arm";
		struct obj *o;
		long st;

		setup(2);
		o = coarse ? coarse_obj() : obj_new(false);
		tempo_sim_set_cpu(0);
		EXPECT_EQ(tempo_timer_arm_at(&o->timer, TEMPO_CPU_LOCAL, ns_to_ktime(due)), 0,
			  "idle timer");
		EXPECT_EQ(o->timer.bucket, tick_ns(BUCKET), "in a far slot: bucket %llu",
			  o->timer.bucket);
		tempo_sim_clock_set(T0 + 200 * TICK_NS);	/* a jiffy's start */
		tempo_sim_set_cpu(1);
		st = h_state(&o->timer);
		EXPECT_EQ(at ? tempo_timer_arm_at(&o->timer, TEMPO_CPU_LOCAL, ns_to_ktime(due)) :
			       tempo_timer_arm(&o->timer, d - (coarse ? TICK_NSEC : 0)),
			  1, "%s %s: pending", kind, how);
		EXPECT_EQ(o->timer.expires, due, "%s %s: not the same deadline: %llu", kind, how,
			  o->timer.expires);
		if (coarse) {
			EXPECT_EQ(h_state(&o->timer), st,
				  "%s %s: the state changed: %#lx, was %#lx", kind, how,
				  h_state(&o->timer), st);
			EXPECT_EQ(o->timer.bucket, tick_ns(BUCKET), "%s %s: left its slot", kind,
				  how);
		} else {
			EXPECT_NE(h_state(&o->timer), st, "%s %s: the state is as it was", kind,
				  how);
		}
		o->deadline = due;
		h_drive_until(due - 1);
		EXPECT_EQ(o->fired, 0, "early");
		if (!coarse)
			EXPECT_NE(o->timer.bucket, tick_ns(BUCKET),
				  "%s %s: left in a slot 60 ticks after its deadline", kind, how);
		h_drive_until(due + tempo_timer_slack_ns(coarse ? first_d : d));
		EXPECT_EQ(o->fired, 1, "%s %s: not within %llu ns of its deadline", kind, how,
			  tempo_timer_slack_ns(coarse ? first_d : d));
		if (coarse)
			EXPECT_EQ(o->fired_at, tick_ns(BUCKET),
				  "%s %s: fired at tick %llu, not with its slot", kind, how,
				  o->fired_at / TICK_NS);
		teardown();
		free(o);
	}
}

/*
 * A pending COARSE timer in a near slot (no bucket, which the lazy rule
 * refuses), re-armed within the jiffy to the same delay, is left as it was:
 * the same deadline, from any slot.
 * Fails if: the same deadline of a pending COARSE timer takes the lazy rule
 * (the re-arm is eager: the state word changes).
 */
static void test_same_deadline_coarse_near(void)
{
	struct obj *o;
	long st;

	setup(2);
	o = coarse_obj();
	tempo_sim_set_cpu(0);
	EXPECT_EQ(tempo_timer_arm(&o->timer, 100 * TICK_NS), 0, "idle timer");
	EXPECT_EQ(o->timer.bucket, TEMPO_NO_BUCKET, "in a far slot");
	st = h_state(&o->timer);
	tempo_sim_clock_advance(TICK_NSEC / 2);
	tempo_sim_set_cpu(1);
	EXPECT_EQ(tempo_timer_arm(&o->timer, 100 * TICK_NS), 1, "pending");
	EXPECT_EQ(h_state(&o->timer), st, "the state changed: %#lx, was %#lx",
		  h_state(&o->timer), st);
	o->deadline = o->timer.expires;
	h_drive_until(o->deadline + tempo_timer_slack_ns(100 * TICK_NS + TICK_NSEC));
	EXPECT_EQ(o->fired, 1, "fired %u times", o->fired);
	teardown();
	free(o);
}

/*
 * A delay too long to be an arm's is refused, even one that wraps onto the
 * deadline the timer has: a COARSE arm tries the same expiry before the
 * range check (timer_arm_after()), so that must not see such a delay; a
 * precise one checks the range first (timer_arm_precise()), and its case
 * keeps it so. Each kind of timer is armed at T0 to a deadline in the last
 * tick before its far slot's bucket (a wait the lazy rule serves for any
 * delay) and, with the clock past that deadline but short of the bucket,
 * re-armed with the delay that wraps now (+ the pad) onto it: -ERANGE, the
 * state and deadline as they were, and it fires once.
 * Fails if: the same expiry's re-arm takes a delay of 2^63 or more (seen:
 * without timer_arm_after()'s sign test, the COARSE timer is "pending", 1).
 */
static void test_same_expiry_wrapped_delay_refused(void)
{
	unsigned int coarse;

	for (coarse = 0; coarse < 2; coarse++) {
		u64 expires = tick_ns(BUCKET) - (coarse ? 1 : TICK_NS / 2), now, delay;
		struct obj *o;
		long st;

		setup(2);
		o = coarse ? coarse_obj() : obj_new(false);
		tempo_sim_set_cpu(0);
		EXPECT_EQ(tempo_timer_arm_at(&o->timer, 0, ns_to_ktime(expires)), 0, "idle timer");
		EXPECT_EQ(o->timer.bucket, tick_ns(BUCKET), "in a far slot: bucket %llu",
			  o->timer.bucket);
		/* Past the deadline, short of the bucket; a COARSE now is the jiffy's start. */
		tempo_sim_clock_set(coarse ? tick_ns(BUCKET) - 2 * TICK_NS :
					     expires + TICK_NS / 4);
		now = coarse ? tick_ns(BUCKET) - TICK_NSEC : ktime_get_ns();
		delay = expires - now - (coarse ? TICK_NSEC : 0);
		EXPECT_TRUE((s64)delay < 0, "delay %llu does not wrap", delay);
		st = h_state(&o->timer);
		EXPECT_EQ(tempo_timer_arm(&o->timer, delay), -ERANGE, "%s: a delay of %llu",
			  coarse ? "coarse" : "precise", delay);
		EXPECT_EQ(h_state(&o->timer), st, "the state changed: %#lx, was %#lx",
			  h_state(&o->timer), st);
		EXPECT_EQ(o->timer.expires, expires, "the deadline moved: %llu", o->timer.expires);
		o->deadline = expires;
		h_drive_until(tick_ns(BUCKET) + TICK_NS);
		EXPECT_EQ(o->fired, 1, "fired %u times", o->fired);
		teardown();
		free(o);
	}
}

/*
 * The same deadline does not make a stopped timer pending again, nor skip a
 * message on its way: a lazily cancelled COARSE timer re-armed to its old
 * deadline is armed (returns 0, pending); one that CPU 1's arm_on() asked
 * CPU 0 to move, re-armed where it is before the message is read, stays on
 * CPU 0, as the last arm says. (Due at tick 1660, 4 ticks before its slot:
 * the same expiry's shortest path.)
 * Fails if: the same-expiry return ignores PENDING, or QUEUED (which alone
 * stops a pending timer's move here: its want_cpu is not looked at).
 */
static void test_same_expiry_not_stopped_or_moving(void)
{
	u64 d = 656 * TICK_NS;
	struct obj *o;

	setup(2);
	o = coarse_obj();
	tempo_sim_set_cpu(0);
	EXPECT_EQ(tempo_timer_arm(&o->timer, d), 0, "idle timer");
	EXPECT_TRUE(tempo_timer_cancel(&o->timer), "pending");
	EXPECT_TRUE(h_state(&o->timer) & TT_LINKED, "a lazy cancel leaves it in its slot");
	EXPECT_EQ(tempo_timer_arm(&o->timer, d), 0, "a cancelled timer is idle");
	EXPECT_TRUE(tempo_timer_pending(&o->timer), "not armed again");

	tempo_sim_set_cpu(1);
	EXPECT_EQ(tempo_timer_arm_on(&o->timer, 1, d), 1, "pending");
	EXPECT_TRUE(h_state(&o->timer) & TT_QUEUED, "a message asks CPU 0 to move it: %#lx",
		    h_state(&o->timer));
	EXPECT_EQ(tempo_timer_arm(&o->timer, d), 1, "pending");
	o->deadline = ktime_get_ns() + d;
	h_drive_until(o->timer.expires + tempo_timer_slack_ns(d + TICK_NSEC));
	EXPECT_EQ(o->fired, 1, "fired %u times", o->fired);
	EXPECT_EQ(o->cpu, 0, "fired on CPU %d, not where the last arm left it", o->cpu);
	teardown();
	free(o);
}

/*
 * A lazily cancelled timer re-armed to the deadline it had is armed again in
 * its slot by one cmpxchg (LAZY, the same expiry): it was idle (the arm
 * returns 0), it is pending, still in the slot, with no message; it fires
 * once. If the owner collects the slot between the re-arm's read and its
 * cmpxchg, the collection lets go of the cancelled timer, the cmpxchg fails,
 * and the arm starts afresh on the calling CPU: it still fires once, at once
 * (its deadline has passed by then).
 * Fails if: the re-arm in the slot ignores its cmpxchg's failure (it says
 * the timer is armed, and it never fires).
 */
static void test_rearm_same_after_cancel(void)
{
	ktime_t at = ns_to_ktime(tick_ns(1660));
	unsigned int race;
	struct obj *o;
	long st;

	for (race = 0; race < 2; race++) {
		setup(2);
		o = obj_new(false);
		lazy_obj = o;
		tempo_sim_set_cpu(0);
		EXPECT_EQ(tempo_timer_arm_at(&o->timer, TEMPO_CPU_LOCAL, at), 0, "idle timer");
		EXPECT_EQ(o->timer.bucket, tick_ns(BUCKET), "placed in a far slot: bucket %llu",
			  o->timer.bucket);
		tempo_sim_set_cpu(1);
		EXPECT_TRUE(tempo_timer_cancel(&o->timer), "pending");
		st = h_state(&o->timer);
		if (race)
			park_hook(TEMPO_TP_WHEEL_LAZY, hook_cpu0_collects);
		EXPECT_EQ(tempo_timer_arm_at(&o->timer, TEMPO_CPU_LOCAL, at), 0, "a cancelled timer");
		if (race) {
			EXPECT_EQ(race_hook, NULL, "the arm reached its lazy point");
		} else {
			EXPECT_EQ(h_state(&o->timer), (st | TT_PENDING) + (1L << 24),
				  "not one cmpxchg in the slot: %#lx, was %#lx",
				  h_state(&o->timer), st);
			EXPECT_EQ(tempo_sim_pending_csds(0), 0, "a message for it");
		}
		o->deadline = tick_ns(1660);
		h_drive_until(tick_ns(BUCKET) + 2 * TICK_NS);
		EXPECT_EQ(o->fired, 1, "%s: fired %u times", race ? "collected first" : "in the slot",
			  o->fired);
		teardown();
		free(o);
	}
}

/* ---- DEFERRABLE ------------------------------------------------------------ */

static struct obj *obj_new_deferrable(void)
{
	struct obj *o = obj_new(false);

	tempo_timer_init(&o->timer, obj_fn, TEMPO_TIMER_DEFERRABLE);
	return o;
}

/*
 * A deferrable timer never arms the wheel's hrtimer: with nothing else armed
 * the harness finds no hrtimer to stop at, as an idle CPU would take no
 * interrupt. It runs when the CPU runs anyway (here: the harness delivering
 * the carrier, a timer_list, once the clock is past it), never early, once.
 */
static void test_deferrable_never_programs_hrtimer(void)
{
	struct obj *o, *p;

	setup(2);
	o = obj_new_deferrable();
	p = obj_new_deferrable();
	tempo_sim_set_cpu(0);
	o->deadline = ktime_get_ns() + 5 * TICK_NS;
	p->deadline = ktime_get_ns() + 700 * TICK_NS;
	EXPECT_EQ(tempo_timer_arm(&o->timer, 5 * TICK_NS), 0, "idle timer");
	EXPECT_EQ(tempo_timer_arm(&p->timer, 700 * TICK_NS), 0, "idle timer");
	tempo_timer_cancel(&p->timer);		/* lazy: garbage in a far slot */
	EXPECT_EQ(tempo_sim_next_hrtimer(), U64_MAX, "a deferrable timer armed the hrtimer");
	h_drive_until(o->deadline - 1);
	EXPECT_EQ(o->fired, 0, "fired early");
	h_drive_until(o->deadline + 30 * TICK_NS);
	EXPECT_EQ(o->fired, 1, "fired %u times", o->fired);
	EXPECT_EQ(tempo_sim_next_hrtimer(), U64_MAX, "the garbage armed the hrtimer");
	h_drive_until(p->deadline + 200 * TICK_NS);
	EXPECT_EQ(p->fired, 0, "a cancelled deferrable timer fired");
	teardown();
	free(o);
	free(p);
}

/*
 * A remote arm and cancel of a deferrable timer send no IPI: the message
 * waits on the owner's deferrable inbox for dkick, a deferrable timer_list
 * for the owner's next tick. A precise timer's message to the same CPU still
 * kicks it, and that run drains both inboxes.
 */
static void test_deferrable_remote_no_ipi(void)
{
	struct obj *o, *q, *w;

	setup(2);
	o = obj_new_deferrable();
	q = obj_new_deferrable();
	w = obj_new(false);
	tempo_sim_set_cpu(1);
	o->deadline = ktime_get_ns() + 3 * TICK_NS;
	EXPECT_EQ(tempo_timer_arm_on(&o->timer, 0, 3 * TICK_NS), 0, "idle timer");
	EXPECT_EQ(tempo_timer_arm_on(&q->timer, 0, 3 * TICK_NS), 0, "idle timer");
	EXPECT_EQ(tempo_sim_pending_csds(0), 0, "a deferrable arm sent an IPI");
	EXPECT_TRUE(tempo_timer_cancel(&q->timer), "q was pending");
	EXPECT_EQ(tempo_sim_pending_csds(0), 0, "a deferrable cancel sent an IPI");
	/* The dkick's jiffy comes: placed on CPU 0, then due, and it runs. */
	h_drive_until(o->deadline + 3 * TICK_NSEC);
	EXPECT_EQ(o->fired, 1, "fired %u times", o->fired);
	EXPECT_EQ(o->cpu, 0, "ran on cpu %d", o->cpu);
	EXPECT_EQ(q->fired, 0, "the cancelled one fired");

	/* Queued again, then a precise arm kicks CPU 0: both inboxes drain. */
	tempo_sim_set_cpu(1);
	o->deadline = ktime_get_ns() + 2 * TICK_NS;
	w->deadline = ktime_get_ns() + 2 * TICK_NS;
	EXPECT_EQ(tempo_timer_arm_on(&o->timer, 0, 2 * TICK_NS), 0, "idle timer");
	EXPECT_EQ(tempo_timer_arm_on(&w->timer, 0, 2 * TICK_NS), 0, "idle timer");
	EXPECT_EQ(tempo_sim_pending_csds(0), 1, "the precise arm kicks");
	tempo_sim_set_cpu(0);
	tempo_sim_run_irqs();
	EXPECT_FALSE(h_state(&o->timer) & TT_QUEUED, "the kick left the deferrable message");
	h_drive_until(w->deadline);
	EXPECT_EQ(w->fired, 1, "w fired %u times", w->fired);
	EXPECT_EQ(o->fired, 2, "collected with w: fired %u times", o->fired);
	teardown();
	free(o);
	free(q);
	free(w);
}

/*
 * P8 on the sequential machine: a push to the deferrable inbox while dkick's
 * function runs. At TEMPO_TP_WHEEL_DKICK it has cleared dkick_armed and not
 * drained yet: the pusher queues dkick again (no WARN from add_timer_on() of
 * a pending timer_list), the drain takes the message, the second dkick finds
 * nothing. Nothing is lost, nothing fires twice. (Clearing the flag after the
 * drain instead loses the message: the push between them finds it set.)
 */
static struct obj *dk_o;

static void hook_push_deferrable_from_cpu1(void)
{
	int saved = tempo_sim_this_cpu;

	tempo_sim_set_cpu(1);
	dk_o->deadline = ktime_get_ns() + TICK_NS;
	EXPECT_EQ(tempo_timer_arm_on(&dk_o->timer, 0, TICK_NS), 0, "idle timer");
	tempo_sim_set_cpu(saved);
}

static void test_deferrable_push_races_dkick(void)
{
	struct obj *a;

	setup(2);
	a = obj_new_deferrable();
	dk_o = obj_new_deferrable();
	tempo_sim_set_cpu(1);
	/*
	 * A message that places nothing (an arm cancelled before it landed),
	 * so that no carrier is armed to drain the inbox by chance.
	 */
	EXPECT_EQ(tempo_timer_arm_on(&a->timer, 0, 2 * TICK_NS), 0, "idle timer");
	EXPECT_TRUE(tempo_timer_cancel(&a->timer), "a was pending");
	park_where = TEMPO_TP_WHEEL_DKICK;
	race_hook = hook_push_deferrable_from_cpu1;
	h_drive_until(ktime_get_ns() + 3 * TICK_NSEC);
	EXPECT_EQ(race_hook, NULL, "dkick did not reach the race point");
	EXPECT_EQ(a->fired, 0, "a fired %u times", a->fired);
	h_drive_until(dk_o->deadline + 3 * TICK_NSEC);
	EXPECT_EQ(dk_o->fired, 1, "the racing push: fired %u times", dk_o->fired);
	EXPECT_EQ(tempo_user_warnings, 0, "warnings");
	teardown();
	free(a);
	free(dk_o);
}

/*
 * cancel_sync of a deferrable timer whose arm message waits on another CPU's
 * deferrable inbox: it has that CPU process its base (an IPI, the poke)
 * instead of waiting for its next tick, which never comes here (the clock
 * stands still: without the poke the wait never ends, and the sim aborts).
 */
static void test_deferrable_cancel_sync_pokes(void)
{
	struct obj *o;

	setup(2);
	o = obj_new_deferrable();
	tempo_sim_set_cpu(1);
	EXPECT_EQ(tempo_timer_arm_on(&o->timer, 0, 5000 * TICK_NS), 0, "idle timer");
	EXPECT_TRUE(h_state(&o->timer) & TT_QUEUED, "the message is on its way");
	EXPECT_TRUE(tempo_timer_cancel_sync(&o->timer), "was pending");
	EXPECT_FALSE(h_state(&o->timer) & (TT_HELD | TT_PENDING), "still held: %#lx",
		     h_state(&o->timer));
	EXPECT_EQ(o->fired, 0, "fired");
	teardown();
	free(o);
}

/*
 * Offline a CPU that holds deferrable timers (one in its wheel, one on its
 * deferrable inbox): both move to the other CPU's deferrable wheel and fire
 * there, once, never early; the dead CPU's wheels and inboxes are empty.
 */
static void test_deferrable_offline(void)
{
	struct obj *a, *b;
	bool armed;

	setup(2);
	a = obj_new_deferrable();
	b = obj_new_deferrable();
	tempo_sim_set_cpu(0);
	a->deadline = ktime_get_ns() + 4 * TICK_NS;
	EXPECT_EQ(tempo_timer_arm(&a->timer, 4 * TICK_NS), 0, "idle timer");
	tempo_sim_set_cpu(1);
	b->deadline = ktime_get_ns() + 300 * TICK_NS;
	EXPECT_EQ(tempo_timer_arm_on(&b->timer, 0, 300 * TICK_NS), 0, "idle timer");
	tempo_sim_cpu_down(0);
	EXPECT_TRUE(tempo_wheel_cpu_quiet(0, &armed), "CPU 0's wheels are not empty after offline");
	tempo_sim_set_cpu(1);
	h_drive_until(b->deadline + 100 * TICK_NS);
	EXPECT_TRUE(a->fired == 1 && b->fired == 1, "a fired %u, b fired %u", a->fired, b->fired);
	EXPECT_TRUE(a->cpu == 1 && b->cpu == 1, "a ran on %d, b on %d", a->cpu, b->cpu);
	tempo_sim_cpu_up(0);
	EXPECT_TRUE(tempo_wheel_cpu_quiet(0, &armed), "CPU 0 came online with timers");
	teardown();
	free(a);
	free(b);
}

/* ---------------------------------------------------------------------- */
/* FINE timers (kmod/wheel.c, FINE).                                        */

static struct obj *obj_new_fine(void)
{
	struct obj *o = obj_new(false);

	tempo_timer_init(&o->timer, obj_fn, TEMPO_TIMER_FINE);
	return o;
}

/* CPU 0's wheel expiries so far (the hrtimer's runs). */
static u64 cpu0_expiries(void)
{
	struct tempo_wheel_stats st;
	bool online;

	tempo_wheel_cpu_stats(0, &st, &online);
	return st.expiries;
}

/*
 * The near level's arithmetic (kmod/wheel.h), exhaustively over three ticks
 * from 0 and from 2^40 ns, for tick lengths with and without 64 as a
 * divisor: tempo_near_floor(t) is the last boundary at or before t,
 * tempo_near_of(d) the first at or after d, and boundary b's instant is
 * (b / 64) * tick + ceil((b % 64) * tick / 64), by the division.
 * Fails if: tempo_near_ns() rounds down (tick 999983: a deadline's first
 * boundary comes before it).
 */
static void test_fine_arithmetic(void)
{
	static const u32 ticks[] = { 10000, 10007, 12345, 999983, 1000000 };
	unsigned int i, bad = 0;

	for (i = 0; i < sizeof(ticks) / sizeof(ticks[0]); i++) {
		u64 d = ticks[i], base, t;
		struct tempo_tick_div r;

		tempo_tick_div_init(&r, d);
		for (base = 0; base <= (1ULL << 40); base += 1ULL << 40) {
			for (t = base; t < base + 3 * d && bad < 5; t++) {
				u64 f = tempo_near_floor(&r, t), b = tempo_near_of(&r, t);
				u64 fb = f % 64, want = (f / 64) * d + (fb * d + 63) / 64;

				if (tempo_near_ns(&r, f) != want || want > t ||
				    tempo_near_ns(&r, f + 1) <= t || tempo_near_ns(&r, b) < t ||
				    (b && tempo_near_ns(&r, b - 1) >= t)) {
					EXPECT_TRUE(false, "tick %llu t %llu: floor %llu at %llu, of %llu at %llu",
						    d, t, f, tempo_near_ns(&r, f), b,
						    tempo_near_ns(&r, b));
					bad++;
				}
			}
		}
	}
}

/*
 * FINE timers at every distance, from before the near level to a far slot,
 * each at a deadline a random fraction into its tick: each fires once, never
 * early, late by less than a 64th of a tick on the simulated clock (which
 * stops at every hrtimer expiry, so the callback runs at the expiry's time);
 * it costs at most one hrtimer expiry per level it passes, and one more.
 * Fails if: a FINE timer is placed by its tick (seen failing: late by up to
 * a tick), or a coarse slot is rounded up (late by up to a granule).
 */
static void test_fine_fires_on_time(void)
{
	static const u64 ticks[] = { 0, 1, 2, 10, 62, 63, 100, 600, 700, 5000, 40000 };
	unsigned int i, k;

	for (i = 0; i < sizeof(ticks) / sizeof(ticks[0]); i++) {
		for (k = 0; k < 8; k++) {
			struct obj *o;
			u64 e0;

			setup(2);
			o = obj_new_fine();
			tempo_sim_set_cpu(0);
			tempo_sim_clock_set(T0 + (u64)rand() % TICK_NS);
			o->deadline = ktime_get_ns() + ticks[i] * TICK_NS + (u64)rand() % TICK_NS;
			e0 = cpu0_expiries();
			EXPECT_EQ(tempo_timer_arm_at(&o->timer, TEMPO_CPU_LOCAL,
						     ns_to_ktime(o->deadline)), 0, "idle timer");
			h_drive_until(o->deadline - 1);
			EXPECT_EQ(o->fired, 0, "fired early");
			h_drive_until(o->deadline + TICK_NS);
			EXPECT_EQ(o->fired, 1, "fired %u times", o->fired);
			EXPECT_LT(o->fired_at - o->deadline, TICK_NS / 64 + 1,
				  "%llu ticks ahead: late by %llu ns", ticks[i],
				  o->fired_at - o->deadline);
			EXPECT_LE(cpu0_expiries() - e0, 12ULL, "%llu expiries",
				  cpu0_expiries() - e0);
			teardown();
			free(o);
		}
	}
}

/*
 * A FINE timer 2 to 63 ticks ahead waits in the fine level, which the near
 * level pulls from at the interrupt of its first boundary: it costs exactly
 * one hrtimer expiry, its own, with nothing else on the wheel; and so do 64
 * of them, one per tick, at random points of their ticks, 64 expiries.
 * Fails if: the fine level is left out (seen failing: two expiries each, one
 * at the start of the timer's tick to move it to the near level).
 */
static void test_fine_one_expiry_each(void)
{
	struct obj *o[64];
	unsigned int i;
	u64 e0;

	setup(2);
	tempo_sim_set_cpu(0);
	for (i = 0; i < 64; i++) {
		o[i] = obj_new_fine();
		o[i]->deadline = T0 + (2 + i) * TICK_NS + (u64)rand() % TICK_NS;
	}
	e0 = cpu0_expiries();
	tempo_timer_arm_at(&o[0]->timer, TEMPO_CPU_LOCAL, ns_to_ktime(o[0]->deadline));
	h_drive_until(o[0]->deadline + TICK_NS);
	EXPECT_EQ(o[0]->fired, 1, "fired %u times", o[0]->fired);
	EXPECT_EQ(cpu0_expiries() - e0, 1ULL, "one timer: %llu expiries", cpu0_expiries() - e0);
	e0 = cpu0_expiries();
	for (i = 1; i < 64; i++)
		tempo_timer_arm_at(&o[i]->timer, TEMPO_CPU_LOCAL, ns_to_ktime(o[i]->deadline));
	h_drive_until(o[63]->deadline + TICK_NS);
	for (i = 1; i < 64; i++) {
		EXPECT_EQ(o[i]->fired, 1, "timer %u fired %u times", i, o[i]->fired);
		EXPECT_LT(o[i]->fired_at - o[i]->deadline, TICK_NS / 64 + 1, "timer %u late by %llu",
			  i, o[i]->fired_at - o[i]->deadline);
	}
	EXPECT_EQ(cpu0_expiries() - e0, 63ULL, "63 timers: %llu expiries", cpu0_expiries() - e0);
	teardown();
	for (i = 0; i < 64; i++)
		free(o[i]);
}

/*
 * FINE timers with a slack coalesce: 64 of them due one per 64th of a tick
 * over a tick, each with a slack of 8/64 of a tick, take at most 9 expiries,
 * each within its window.
 * Fails if: the aim ignores the slack (64 expiries).
 */
static void test_fine_slack_coalesces(void)
{
	struct obj *o[64];
	u64 slack = 8 * (TICK_NS / 64), e0;
	unsigned int i;

	setup(2);
	tempo_sim_set_cpu(0);
	for (i = 0; i < 64; i++) {
		o[i] = obj_new_fine();
		EXPECT_EQ(tempo_timer_set_slack(&o[i]->timer, slack), 0, "slack");
		EXPECT_EQ(tempo_timer_get_slack(&o[i]->timer), slack, "kept exactly");
		o[i]->deadline = T0 + 10 * TICK_NS + i * (TICK_NS / 64) + 1;
		tempo_timer_arm_at(&o[i]->timer, TEMPO_CPU_LOCAL, ns_to_ktime(o[i]->deadline));
	}
	e0 = cpu0_expiries();
	h_drive_until(T0 + 12 * TICK_NS);
	EXPECT_LE(cpu0_expiries() - e0, 10ULL, "%llu expiries", cpu0_expiries() - e0);
	for (i = 0; i < 64; i++) {
		EXPECT_EQ(o[i]->fired, 1, "timer %u fired %u times", i, o[i]->fired);
		EXPECT_LE(o[i]->fired_at - o[i]->deadline, slack, "timer %u late by %llu", i,
			  o[i]->fired_at - o[i]->deadline);
	}
	teardown();
	for (i = 0; i < 64; i++)
		free(o[i]);
}

/*
 * P7 with the move to the near level (FINE). A FINE timer in a far slot due
 * half a tick after the slot's bucket: a lazy re-arm to a quarter of a tick
 * after the bucket decides on the far slot; the owner's hrtimer collects the
 * slot and, the timer pending as placed, moves it to the near level for its
 * old deadline, with no cmpxchg; then the re-arm's cmpxchg succeeds. It must
 * find no bucket and have the owner place the timer again now: it fires once,
 * on time for its new deadline, not at the old one.
 * Fails if: the move stores a far bucket (seen failing: the re-arm trusts it,
 * and the timer fires at its old deadline, a quarter of a tick late).
 */
static struct obj *fine_obj;

static void hook_cpu0_collects_fine(void)
{
	tempo_sim_set_cpu(0);
	tempo_sim_clock_set(tick_ns(1600));
	EXPECT_EQ(tempo_sim_run_hrtimers(), 1, "CPU 0's hrtimer runs at the bucket");
	EXPECT_TRUE(fine_obj->timer.idx >= TEMPO_NEAR_OFFS && fine_obj->timer.idx != TEMPO_IDX_EXPIRED,
		    "moved to the near level: idx %u", fine_obj->timer.idx);
	tempo_sim_set_cpu(1);
}

static void test_fine_lazy_rearm_after_near_move(void)
{
	struct obj *o;

	setup(2);
	o = obj_new_fine();
	fine_obj = o;
	tempo_sim_set_cpu(0);
	o->deadline = tick_ns(1600) + TICK_NS / 2;	/* level 2: the slot of 1600 */
	EXPECT_EQ(tempo_timer_arm_at(&o->timer, TEMPO_CPU_LOCAL, ns_to_ktime(o->deadline)), 0,
		  "idle timer");
	EXPECT_EQ(o->timer.bucket, tick_ns(1600), "a far slot, rounded down: %llu",
		  o->timer.bucket);
	tempo_sim_clock_set(tick_ns(1599));
	tempo_sim_set_cpu(1);
	park_hook(TEMPO_TP_WHEEL_LAZY, hook_cpu0_collects_fine);
	o->deadline = tick_ns(1600) + TICK_NS / 4;
	EXPECT_EQ(tempo_timer_arm_at(&o->timer, TEMPO_CPU_LOCAL, ns_to_ktime(o->deadline)), 1,
		  "re-arm of a pending timer");
	EXPECT_EQ(race_hook, NULL, "the arm reached its lazy point");
	tempo_sim_set_cpu(0);
	h_drive_until(o->deadline + TICK_NS);
	EXPECT_EQ(o->fired, 1, "fired %u times", o->fired);
	EXPECT_LT(o->fired_at - o->deadline, TICK_NS / 64 + 1, "late by %llu ns",
		  o->fired_at - o->deadline);
	teardown();
	free(o);
}

/*
 * A FINE timer's lazy rule (FINE): in the far slot of tick 1600, due at
 * 1600.5 ticks, re-armed from another CPU to 1600.7 (the same tick, later:
 * the slot still serves it, but not the old boundary), to 1599.3 (before the
 * slot: eager), to 1650.2 (after it: lazy, the slot stays), each time firing
 * once, for the deadline it holds last, within a 64th of a tick.
 * Fails if: a FINE re-arm in the same tick writes nothing (seen failing: it
 * fires at the old boundary, early), or the tick timers' lazy rule serves it
 * (seen failing: 1599.3 served by the slot of 1600, late by most of a tick).
 */
static void test_fine_lazy_rules(void)
{
	static const u64 to[] = { 1600700, 1599300, 1650200 };
	unsigned int i;

	for (i = 0; i < sizeof(to) / sizeof(to[0]); i++) {
		struct obj *o;
		u64 bucket;

		setup(2);
		o = obj_new_fine();
		tempo_sim_set_cpu(0);
		o->deadline = tick_ns(1600) + TICK_NS / 2;
		tempo_timer_arm_at(&o->timer, TEMPO_CPU_LOCAL, ns_to_ktime(o->deadline));
		bucket = o->timer.bucket;
		EXPECT_EQ(bucket, tick_ns(1600), "a far slot, rounded down: %llu", bucket);
		tempo_sim_clock_set(tick_ns(1500));
		tempo_sim_set_cpu(1);
		o->deadline = to[i] * (TICK_NS / 1000);
		EXPECT_EQ(tempo_timer_arm_at(&o->timer, TEMPO_CPU_LOCAL, ns_to_ktime(o->deadline)),
			  1, "pending");
		if (o->deadline >= bucket)
			EXPECT_EQ(o->timer.bucket, bucket, "lazy: still in its slot");
		tempo_sim_set_cpu(0);
		h_drive_until(o->deadline + TICK_NS);
		EXPECT_EQ(o->fired, 1, "fired %u times", o->fired);
		EXPECT_LT(o->fired_at - o->deadline, TICK_NS / 64 + 1, "to %llu: late by %llu ns",
			  to[i], o->fired_at - o->deadline);
		teardown();
		free(o);
	}
}

/*
 * A FINE timer re-armed, from another CPU, for a deadline its owner's near
 * level has passed when the message is placed (the interrupt's first
 * collection moved the near clock past it): it goes into the near slot
 * collected next, and fires within a 64th of a tick.
 * Fails if: the near level's test compares a passed boundary's negative
 * distance unsigned (found by tools/user-cores/wheel_fuzz.c: the timer went
 * to the levels and fired a tick late).
 */
static void test_fine_passed_boundary(void)
{
	struct obj *o, *p;

	setup(2);
	o = obj_new_fine();
	p = obj_new(false);
	tempo_sim_set_cpu(0);
	/* A tick timer due now: the collection moves the wheel's clock on too. */
	p->deadline = T0;
	tempo_timer_arm(&p->timer, 0);
	tempo_timer_arm_at(&o->timer, TEMPO_CPU_LOCAL, ns_to_ktime(T0 + 255000));
	tempo_sim_set_cpu(1);
	o->deadline = T0;
	EXPECT_EQ(tempo_timer_arm_at(&o->timer, TEMPO_CPU_LOCAL, ns_to_ktime(T0)), 1, "pending");
	tempo_sim_set_cpu(0);
	h_drive_until(T0 + 2 * TICK_NS);
	EXPECT_EQ(o->fired, 1, "fired %u times", o->fired);
	EXPECT_LT(o->fired_at - o->deadline, TICK_NS / 64 + 1, "late by %llu ns",
		  o->fired_at - o->deadline);
	teardown();
	free(o);
	free(p);
}

/*
 * A tick timer is due at its expiry tick, not at its deadline: a lazy re-arm
 * to a later deadline of the same tick writes nothing and relies on it. A
 * timer in a far slot that its CPU has not collected yet (its hrtimer held
 * back past the slot), re-armed lazily to now and then to now + 106 us,
 * keeps the first deadline; the overdue collection then finds it: it must
 * not fire before its expiry tick, which serves the second deadline too.
 * Fails if: the collection and the claim compare the deadline with the time
 * for a tick timer, as for a FINE one (found by tools/user-cores/
 * wheel_fuzz.c: fired 106 us early).
 */
static void test_same_tick_rearm_in_overdue_slot(void)
{
	struct obj *o;
	u64 now;

	setup(2);
	o = obj_new(false);
	tempo_sim_set_cpu(0);
	tempo_timer_arm(&o->timer, 912 * TICK_NS);		/* a far slot */
	tempo_sim_clock_advance(3734 * TICK_NS + 217096);	/* past it, uncollected */
	now = ktime_get_ns();
	EXPECT_EQ(tempo_timer_arm(&o->timer, 0), 1, "pending");
	o->deadline = now + 106000;
	EXPECT_EQ(tempo_timer_arm(&o->timer, 106000), 1, "pending");
	h_drive_until(now + 2 * TICK_NS);
	EXPECT_EQ(o->fired, 1, "fired %u times", o->fired);
	teardown();
	free(o);
}

/*
 * A FINE timer in the near level on CPU 0, cancelled from CPU 1 (a message),
 * then re-armed from CPU 1 nearer and farther while the message is in flight:
 * it fires once, for the last deadline set, on time.
 */
static void test_fine_remote_in_near(void)
{
	struct obj *o;

	setup(2);
	o = obj_new_fine();
	tempo_sim_set_cpu(0);
	o->deadline = T0 + TICK_NS / 2;
	tempo_timer_arm_at(&o->timer, TEMPO_CPU_LOCAL, ns_to_ktime(o->deadline));
	EXPECT_TRUE(o->timer.idx >= TEMPO_NEAR_OFFS && o->timer.idx != TEMPO_IDX_EXPIRED,
		    "in the near level: idx %u", o->timer.idx);
	tempo_sim_set_cpu(1);
	EXPECT_TRUE(tempo_timer_cancel(&o->timer), "pending");
	o->deadline = T0 + TICK_NS / 4;
	EXPECT_EQ(tempo_timer_arm_at(&o->timer, TEMPO_CPU_LOCAL, ns_to_ktime(o->deadline)), 0,
		  "re-arm after cancel");
	o->deadline = T0 + TICK_NS + TICK_NS / 8;
	EXPECT_EQ(tempo_timer_arm_at(&o->timer, TEMPO_CPU_LOCAL, ns_to_ktime(o->deadline)), 1,
		  "pending");
	tempo_sim_set_cpu(0);
	h_drive_until(o->deadline + TICK_NS);
	EXPECT_EQ(o->fired, 1, "fired %u times", o->fired);
	EXPECT_LT(o->fired_at - o->deadline, TICK_NS / 64 + 1, "late by %llu ns",
		  o->fired_at - o->deadline);
	teardown();
	free(o);
}

/* ---------------------------------------------------------------------- */
/* IRQ timers (kmod/wheel_owner.c, interrupt callbacks).                   */

static unsigned int irq_works_ran, irq_off_runs;
static bool irq_in_works;

static void irq_fn(struct tempo_timer *t)
{
	irq_off_runs += irqs_disabled();
	irq_works_ran += irq_in_works;
	obj_fn(t);
}

static struct obj *obj_new_irq(unsigned int flags, bool free_in_cb)
{
	struct obj *o = obj_new(free_in_cb);

	tempo_timer_init(&o->timer, irq_fn, TEMPO_TIMER_IRQ | flags);
	return o;
}

/*
 * An IRQ timer, tick or FINE, runs in the hrtimer's interrupt, interrupts
 * off, with no work item: once, on time, and it may free itself there.
 * Fails if: the collection sends it to the expired list (seen failing: it
 * ran only when the work items ran).
 */
static void test_irq_runs_in_interrupt(void)
{
	static const unsigned int kinds[] = { 0, TEMPO_TIMER_FINE };
	unsigned int k;

	for (k = 0; k < 2; k++) {
		struct obj *o;

		setup(2);
		irq_works_ran = irq_off_runs = 0;
		o = obj_new_irq(kinds[k], true);
		tempo_sim_set_cpu(0);
		o->deadline = ktime_get_ns() + 70 * TICK_NS + TICK_NS / 3;
		tempo_timer_arm_at(&o->timer, TEMPO_CPU_LOCAL, ns_to_ktime(o->deadline));
		for (;;) {
			u64 next = tempo_sim_next_hrtimer();

			if (next == U64_MAX || fired_total)
				break;
			tempo_sim_clock_set(next);
			tempo_sim_run_hrtimers();	/* interrupts only, no work item */
		}
		EXPECT_EQ(fired_total, 1, "kind %u: fired %u times in interrupts", kinds[k],
			  fired_total);
		EXPECT_EQ(irq_off_runs, 1, "ran with interrupts off");
		EXPECT_EQ(freed_total, 1, "freed itself");
		irq_in_works = true;
		EXPECT_EQ(tempo_sim_run_works(), 0, "a work item was queued");
		irq_in_works = false;
		EXPECT_EQ(irq_works_ran, 0, "ran from a work item");
		teardown();
	}
}

/*
 * The claim in the interrupt is the dispatcher's (I7): a cancel from another
 * CPU that lands between the collection and the claim (at the claim's test
 * point) stops the callback; a re-arm there moves it to its new deadline.
 * Fails if: base_run_irq() runs what it collected without the claim (seen
 * failing: the cancelled timer ran).
 */
static struct obj *irq_obj;
static bool irq_rearm;

static void hook_cancel_irq_from_cpu1(void)
{
	tempo_sim_set_cpu(1);
	if (irq_rearm) {
		irq_obj->deadline = ktime_get_ns() + 3 * TICK_NS;
		EXPECT_EQ(tempo_timer_arm(&irq_obj->timer, 3 * TICK_NS), 1, "pending at the claim");
	} else {
		EXPECT_TRUE(tempo_timer_cancel(&irq_obj->timer), "pending at the claim");
	}
	tempo_sim_set_cpu(0);
}

static void test_irq_claim_races_remote(void)
{
	unsigned int r;

	for (r = 0; r < 2; r++) {
		struct obj *o;

		setup(2);
		o = obj_new_irq(0, false);
		irq_obj = o;
		irq_rearm = r;
		tempo_sim_set_cpu(0);
		o->deadline = ktime_get_ns() + 5 * TICK_NS;
		tempo_timer_arm(&o->timer, 5 * TICK_NS);
		tempo_sim_clock_set(o->deadline);
		park_hook(TEMPO_TP_WHEEL_SETTLE, hook_cancel_irq_from_cpu1);
		park_timer = &o->timer;
		tempo_sim_run_hrtimers();
		EXPECT_EQ(race_hook, NULL, "the claim reached its test point");
		EXPECT_EQ(o->fired, 0, "%s at the claim, but it ran", r ? "re-armed" : "cancelled");
		h_drive_until(ktime_get_ns() + 5 * TICK_NS);
		EXPECT_EQ(o->fired, r, "fired %u times", o->fired);
		teardown();
		free(o);
	}
}

/*
 * An IRQ callback re-arms its own timer, a FINE one, every 300 us for 20
 * periods: each runs once, in the interrupt, never early, within a 64th of
 * a tick (the re-arm inside the hrtimer's callback reaches the hrtimer
 * through the next expiry it returns).
 * Fails if: base_process() reads the next expiry before running the IRQ
 * callbacks (seen failing: the re-armed timer waited for an unrelated
 * expiry, late).
 */
static unsigned int irq_periods;

static void irq_periodic_fn(struct tempo_timer *t)
{
	struct obj *o = container_of(t, struct obj, timer);

	obj_fn(t);
	EXPECT_LT(o->fired_at - o->deadline, TICK_NS / 64 + 1, "period %u late by %llu ns",
		  o->fired, o->fired_at - o->deadline);
	if (++irq_periods < 20) {
		o->deadline += 300000;
		tempo_timer_arm_at(t, TEMPO_CPU_LOCAL, ns_to_ktime(o->deadline));
	}
}

static void test_irq_rearms_itself(void)
{
	struct obj *o;

	setup(2);
	irq_periods = 0;
	o = obj_new(false);
	tempo_timer_init(&o->timer, irq_periodic_fn, TEMPO_TIMER_FINE | TEMPO_TIMER_IRQ);
	tempo_sim_set_cpu(0);
	o->deadline = ktime_get_ns() + 100000;
	tempo_timer_arm_at(&o->timer, TEMPO_CPU_LOCAL, ns_to_ktime(o->deadline));
	for (;;) {
		u64 next = tempo_sim_next_hrtimer();

		if (next == U64_MAX || next > T0 + 20 * TICK_NS)
			break;
		tempo_sim_clock_set(next);
		tempo_sim_run_hrtimers();
	}
	EXPECT_EQ(o->fired, 20, "fired %u times in interrupts", o->fired);
	teardown();
	free(o);
}

static const struct test_case cases[] = {
	TEST_CASE_VOID(test_fires_once_on_time),
	TEST_CASE_VOID(test_claim_with_remote_rearm_in_flight),
	TEST_CASE_VOID(test_claim_with_remote_cancel_in_flight),
	TEST_CASE_VOID(test_arm_on_moves_while_in_flight),
	TEST_CASE_VOID(test_offline_with_remote_cancel_racing_evacuation),
	TEST_CASE_VOID(test_offline_with_remote_rearm_racing_evacuation),
	TEST_CASE_VOID(test_remote_arm_while_parking),
	TEST_CASE_VOID(test_parked_rearm_and_cancel_sync),
	TEST_CASE_VOID(test_lazy_rearm_loses_to_claim),
	TEST_CASE_VOID(test_lazy_rearm_after_collection_pokes_owner),
	TEST_CASE_VOID(test_lazy_cancel_loses_to_claim),
	TEST_CASE_VOID(test_lazy_cancel_then_collection_drops_it),
	TEST_CASE_VOID(test_lazy_cancel_races_remote_eager_arm),
	TEST_CASE_VOID(test_lazy_rearm_races_remote_eager_arm),
	TEST_CASE_VOID(test_lazy_rearm_races_evacuation),
	TEST_CASE_VOID(test_lazy_cancel_races_evacuation),
	TEST_CASE_VOID(test_sync_after_lazy_cancel),
	TEST_CASE_VOID(test_postpone_chain_bound),
	TEST_CASE_VOID(test_garbage_costs_one_expiry_per_slot),
	TEST_CASE_VOID(test_coarse_dates_by_jiffy),
	TEST_CASE_VOID(test_same_deadline_bound_per_kind),
	TEST_CASE_VOID(test_same_deadline_coarse_near),
	TEST_CASE_VOID(test_same_expiry_wrapped_delay_refused),
	TEST_CASE_VOID(test_same_expiry_not_stopped_or_moving),
	TEST_CASE_VOID(test_rearm_same_after_cancel),
	TEST_CASE_VOID(test_deferrable_never_programs_hrtimer),
	TEST_CASE_VOID(test_deferrable_remote_no_ipi),
	TEST_CASE_VOID(test_deferrable_push_races_dkick),
	TEST_CASE_VOID(test_deferrable_cancel_sync_pokes),
	TEST_CASE_VOID(test_deferrable_offline),
	TEST_CASE_VOID(test_fine_arithmetic),
	TEST_CASE_VOID(test_fine_fires_on_time),
	TEST_CASE_VOID(test_fine_one_expiry_each),
	TEST_CASE_VOID(test_fine_slack_coalesces),
	TEST_CASE_VOID(test_fine_lazy_rearm_after_near_move),
	TEST_CASE_VOID(test_fine_lazy_rules),
	TEST_CASE_VOID(test_fine_remote_in_near),
	TEST_CASE_VOID(test_fine_passed_boundary),
	TEST_CASE_VOID(test_same_tick_rearm_in_overdue_slot),
	TEST_CASE_VOID(test_irq_runs_in_interrupt),
	TEST_CASE_VOID(test_irq_claim_races_remote),
	TEST_CASE_VOID(test_irq_rearms_itself),
	{}
};

int main(void)
{
	return test_run("wheel_det", cases);
}
