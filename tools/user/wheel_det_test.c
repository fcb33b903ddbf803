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
#include "tap.h"
#include "testing.h"

#define TICK_NS		1000000ULL
#define T0		(1000 * TICK_NS)

struct obj {
	struct tempo_timer	timer;
	u64			deadline;
	unsigned int		fired;
	int			cpu;		/* where it last ran */
	bool			free_in_callback;
};

static unsigned int fired_total, freed_total;

/*
 * This binary is built with TEMPO_TESTING: the cores call tempo_test_point()
 * at their racy points (kmod/testing.h: just before each state-word cmpxchg),
 * and a test may set race_hook to run another CPU's operations right there.
 * Runs once per arming, at whichever wheel point comes first, or at
 * park_where only, when a test sets it.
 */
static void (*race_hook)(void);
static int park_where = -1;

void tempo_test_point(enum tempo_test_point where, const void *obj, u64 arg,
		      unsigned int state)
{
	void (*fn)(void) = race_hook;

	if (park_where >= 0 && (int)where != park_where)
		return;
	park_where = -1;
	(void)obj;
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
	CHECK(ktime_get_ns() >= o->deadline, "fired %llu ns early",
	      o->deadline - ktime_get_ns());
	/*
	 * The contract (include/tempo/timer.h): "The callback may re-arm its
	 * own timer, and may free it." So when it runs, no base may still
	 * hold the timer: neither on a list (LINKED) nor on an inbox (QUEUED).
	 */
	CHECK(!(st & H_TT_HELD),
	      "callback runs while a base still holds the timer (state %#lx)", st);
	if (o->free_in_callback && !(st & H_TT_HELD)) {
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
	u64 armed, fired, cancelled;

	tempo_sim_run_all();
	tempo_wheel_totals(&armed, &fired, &cancelled);
	CHECK(armed == fired + cancelled, "armed %llu fired %llu cancelled %llu",
	      armed, fired, cancelled);
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
	CHECK(tempo_timer_arm(&o->timer, 5 * TICK_NS) == 0, "idle timer");
	h_drive_until(o->deadline - 1);
	CHECK(o->fired == 0, "fired early");
	h_drive_until(o->deadline + tempo_timer_slack_ns(5 * TICK_NS));
	CHECK(o->fired == 1, "fired %u times", o->fired);
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
	CHECK(tempo_timer_arm(&o->timer, 5 * TICK_NS) == 0, "idle timer");

	tempo_sim_clock_advance(5 * TICK_NS);
	CHECK(tempo_sim_run_hrtimers() == 1, "CPU 0's hrtimer collects t");
	CHECK(fired_total == 0, "nothing runs in hardirq");

	tempo_sim_set_cpu(1);
	o->deadline = ktime_get_ns();
	CHECK(tempo_timer_arm(&o->timer, 0) == 1, "re-arm of a collected timer: pending");
	CHECK(tempo_sim_pending_csds(0) == 1, "the message to CPU 0 is in flight");

	tempo_sim_set_cpu(0);
	tempo_sim_run_works();		/* the claim, IPI still in flight */
	tempo_sim_run_csds();		/* the IPI: the inbox drains */
	h_drive_until(ktime_get_ns() + 2 * TICK_NS);
	CHECK(fired_total == 1, "fired %u times", fired_total);
	CHECK(freed_total == 1, "freed %u times", freed_total);
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
	CHECK(tempo_timer_cancel(&o->timer), "cancel of a collected timer stops it");
	tempo_sim_set_cpu(0);
	tempo_sim_run_works();
	CHECK(o->fired == 0, "cancelled timer ran");
	tempo_sim_run_csds();
	CHECK(!(h_state(&o->timer) & H_TT_HELD), "still held");
	tempo_sim_set_cpu(1);
	CHECK(!tempo_timer_cancel_sync(&o->timer), "nothing left to stop");
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
	CHECK(tempo_timer_arm_on(&o->timer, 1, 4 * TICK_NS) == 1, "pending");
	tempo_sim_set_cpu(0);
	tempo_sim_run_csds();		/* CPU 0 forwards to CPU 1 */
	tempo_sim_set_cpu(2);
	o->deadline = ktime_get_ns() + 2 * TICK_NS;
	CHECK(tempo_timer_arm(&o->timer, 2 * TICK_NS) == 1, "pending");
	h_drive_until(o->deadline - 1);
	CHECK(fired_total == 0, "early");
	h_drive_until(o->deadline + 2 * TICK_NS);
	CHECK(fired_total == 1 && freed_total == 1, "fired %u", fired_total);
	teardown();
}

/*
 * A remote CPU's message must never make it touch the list of a CPU going
 * offline. The interleaving (the bug behind "came online with timers on its
 * wheel", seen once in ~7 make check runs):
 *
 *   CPU 0 (going offline)                   CPU 1
 *   a, b LINKED on CPU 0; b alone in its slot
 *   offline: seal the inbox, evacuate:
 *     settle a ...
 *                                           cancel(b): held by CPU 0, so
 *                                           QUEUED, push -> sealed; the old
 *                                           code then moved b's cpu to 1
 *                                           with LINKED still set, so ...
 *                                           drain: b "LINKED here": list_del
 *                                           from CPU 0's slot, from CPU 1
 *     ... evacuate b's slot: found empty, its occupied bit stays set
 *   online: the wheel is not empty
 */
static struct obj *hook_b;

static void hook_cancel_b_from_cpu1(void)
{
	tempo_sim_set_cpu(1);
	CHECK(tempo_timer_cancel(&hook_b->timer), "b was pending");
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
	CHECK(race_hook == NULL, "the evacuation reached the race point");
	CHECK(tempo_wheel_cpu_quiet(0, &armed), "CPU 0's wheel is not empty after offline");
	CHECK(!armed, "CPU 0's hrtimer still armed after offline");
	CHECK(!(h_state(&b->timer) & (H_TT_HELD | H_TT_PENDING)),
	      "b still held: state %#lx", h_state(&b->timer));

	tempo_sim_set_cpu(1);
	h_drive_until(a->deadline + 2 * TICK_NS);
	CHECK(a->fired == 1 && b->fired == 0, "a fired %u, b fired %u", a->fired, b->fired);
	tempo_sim_cpu_up(0);
	CHECK(tempo_wheel_cpu_quiet(0, &armed), "CPU 0 came online with timers");
	teardown();
	free(a);
	free(b);
}

/* The same race with a re-arm: the timer ends up on an online CPU, once. */
static void hook_rearm_b_from_cpu1(void)
{
	tempo_sim_set_cpu(1);
	hook_b->deadline = ktime_get_ns() + 3 * TICK_NS;
	CHECK(tempo_timer_arm(&hook_b->timer, 3 * TICK_NS) == 1, "b was pending");
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
	CHECK(race_hook == NULL, "the evacuation reached the race point");
	CHECK(tempo_wheel_cpu_quiet(0, &armed), "CPU 0's wheel is not empty after offline");

	tempo_sim_set_cpu(1);
	h_drive_until(b->deadline + 2 * TICK_NS);
	CHECK(a->fired == 1, "a fired %u times", a->fired);
	CHECK(freed_total == 1, "b fired %u times", freed_total);	/* b freed itself */
	tempo_sim_cpu_up(0);
	CHECK(tempo_wheel_cpu_quiet(0, &armed), "CPU 0 came online with timers");
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
	CHECK(tempo_timer_arm(&park_obj->timer, 5 * TICK_NS) == 0, "parked timer is idle");
	CHECK(h_state(&park_obj->timer) & H_TT_QUEUED, "arm of a parked timer messages its owner");
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
	CHECK(tempo_timer_arm(&o->timer, 100 * TICK_NS) == 0, "idle timer");
	park_hook(TEMPO_TP_WHEEL_PARKED, hook_arm_parked_from_cpu1);
	CHECK(tempo_timer_cancel(&o->timer), "cancel stops the pending timer");
	CHECK(race_hook == NULL, "the cancel reached its parked point");
	h_drive_until(o->deadline + tempo_timer_slack_ns(5 * TICK_NS));
	CHECK(o->fired == 1, "fired %u times", o->fired);
	CHECK(o->cpu == 0, "fired on CPU %d, not on its holder", o->cpu);
	CHECK(tempo_wheel_cpu_quiet(1, &armed), "CPU 1's wheel holds the entry");
	teardown();
	free(o);
}

/*
 * A parked timer is re-armed in place by its owner, and cancel_sync lets go
 * of it from either CPU: on the owner by clearing PARKED, elsewhere through
 * the owner (timer_unpark()).
 */
static void test_parked_rearm_and_cancel_sync(void)
{
	struct obj *o;

	setup(2);
	o = obj_new(false);
	tempo_sim_set_cpu(0);
	tempo_timer_arm(&o->timer, 100 * TICK_NS);
	CHECK(tempo_timer_cancel(&o->timer), "cancel stops it");
	CHECK((h_state(&o->timer) & (H_TT_HELD | H_TT_PENDING)) == H_TT_PARKED,
	      "a local cancel parks: state %#lx", h_state(&o->timer));
	o->deadline = ktime_get_ns() + 4 * TICK_NS;
	CHECK(tempo_timer_arm(&o->timer, 4 * TICK_NS) == 0, "parked timer is idle");
	CHECK((h_state(&o->timer) & (H_TT_HELD | H_TT_PENDING)) == (H_TT_LINKED | H_TT_PENDING),
	      "re-armed in place: state %#lx", h_state(&o->timer));
	h_drive_until(o->deadline + tempo_timer_slack_ns(4 * TICK_NS));
	CHECK(o->fired == 1, "fired %u times", o->fired);

	tempo_timer_arm(&o->timer, 100 * TICK_NS);
	tempo_timer_cancel(&o->timer);
	CHECK(!tempo_timer_cancel_sync(&o->timer), "nothing left to stop");
	CHECK(!(h_state(&o->timer) & H_TT_HELD), "cancel_sync on the owner: state %#lx",
	      h_state(&o->timer));

	tempo_timer_arm(&o->timer, 100 * TICK_NS);
	tempo_timer_cancel(&o->timer);
	tempo_sim_set_cpu(1);
	CHECK(!tempo_timer_cancel_sync(&o->timer), "nothing left to stop");
	CHECK(!(h_state(&o->timer) & H_TT_HELD), "cancel_sync elsewhere: state %#lx",
	      h_state(&o->timer));
	tempo_sim_set_cpu(0);
	teardown();
	CHECK(o->fired == 1, "fired %u times", o->fired);
	free(o);
}

int main(void)
{
	tap_begin("wheel_det", 8);
	tap_run("fires_once_on_time", test_fires_once_on_time);
	tap_run("claim_with_remote_rearm_in_flight", test_claim_with_remote_rearm_in_flight);
	tap_run("claim_with_remote_cancel_in_flight", test_claim_with_remote_cancel_in_flight);
	tap_run("arm_on_moves_while_in_flight", test_arm_on_moves_while_in_flight);
	tap_run("offline_with_remote_cancel_racing_evacuation",
		test_offline_with_remote_cancel_racing_evacuation);
	tap_run("offline_with_remote_rearm_racing_evacuation",
		test_offline_with_remote_rearm_racing_evacuation);
	tap_run("remote_arm_while_parking", test_remote_arm_while_parking);
	tap_run("parked_rearm_and_cancel_sync", test_parked_rearm_and_cancel_sync);
	return tap_end("wheel_det");
}
