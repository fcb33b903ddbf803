/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test points: the one way a test reaches into a core.
 *
 * Each core names the places where it decides a race (a state word read and
 * not yet changed by its cmpxchg) and calls tempo_test_point() there. In a
 * module built with TEMPO_TESTING=1 (make check, make check-kcsan, and the
 * userspace build of the cores in tools/user-cores/), a point calls the hook a test
 * installed with tempo_test_set_hook() and then, when the tempo.inject_delay
 * parameter is set, busy-waits a random while to widen the window. In every
 * other build a point is an empty inline and no symbol below exists: the
 * public headers in include/tempo/ carry nothing for tests.
 *
 * A point in process context may also be held from userspace, for a test in
 * the VM that drives /dev/tempo (tools/uapi-tests/): root writes the point's
 * name to the tempo.test_hold parameter, and the first thread that reaches
 * that point sleeps there (interruptibly, at most 30 s) until test_hold is
 * set to "none"; tempo.test_held reads 1 while it sleeps. Only the points
 * marked "may be held" below are, each named in kmod/testing.c.
 *
 * A hook runs in the core's context at that point: it may be hardirq, with
 * interrupts off or inside an RCU read-side section, so it may only sleep
 * where the comment of the point says so. kmod/testing.c; the userspace
 * harness (tools/user-cores/) supplies its own tempo_test_point().
 */
#ifndef _TEMPO_TESTING_H
#define _TEMPO_TESTING_H

#include <linux/types.h>

enum tempo_test_point {
	/*
	 * wheel.c, @obj the timer, @arg the word the next cmpxchg expects (the
	 * inbox head for PUSH, else the timer's state). Atomic context.
	 */
	TEMPO_TP_WHEEL_PUSH,		/* inbox_push: before the push cmpxchg */
	TEMPO_TP_WHEEL_SETTLE,		/* base_settle: before the claim */
	TEMPO_TP_WHEEL_DISPATCH,	/* base_dispatch: running set, before the claim */
	TEMPO_TP_WHEEL_ARM,		/* arm: before the state cmpxchg */
	TEMPO_TP_WHEEL_CANCEL,		/* cancel: before the state cmpxchg */
	TEMPO_TP_WHEEL_PARKED,		/* cancel: parked, before the unlink */
	TEMPO_TP_WHEEL_LAZY,		/* lazy arm/cancel: decided, before its stores */
	/*
	 * wheel.c, arm of a TEMPO_TIMER_COARSE timer, @obj the timer, @arg the
	 * address of its coarse reading, the start of the jiffy (a u64 *): a
	 * hook may move the reading back, as overdue jiffies would. Any context.
	 */
	TEMPO_TP_WHEEL_COARSE,
	/*
	 * order.c, @obj the domain, @arg the ticket, @state the slot's state as
	 * read (order.c's enum order_st; tools/user-cores/order_det_test.c includes
	 * order.c to name them). Process context: may sleep.
	 */
	TEMPO_TP_ORDER_OWNER_SEEN,	/* run/trash read its slot, before cmpxchg */
	TEMPO_TP_ORDER_OWNER_WRITING,	/* run stored fn/arg, before parking */
	TEMPO_TP_ORDER_HEAD_SEEN,	/* head holder read the next slot, before cmpxchg */
	/*
	 * order.c, order_submit_chain() cut a chain of submitted requests,
	 * before it queues the rest: @obj the domain, @arg the first ticket of
	 * the rest, @state 0. Process context: may sleep.
	 */
	TEMPO_TP_ORDER_SUBMIT_CUT,
	/*
	 * dev_order.c, @obj the file's context, @arg the ticket. Process context:
	 * may sleep, may be held.
	 */
	TEMPO_TP_DEV_TICKET_TAKEN,	/* ticket issued by the domain, not yet recorded */
	/*
	 * wheel.c, an unpinned arm of an idle timer (arm_home()), @obj NULL,
	 * @arg the address of an int: the housekeeping CPU the arm goes to, or
	 * -1 to stay; @state the arming CPU. A hook may set it, as an arm on a
	 * CPU outside housekeeping_cpumask(HK_TYPE_TIMER) would find.
	 * Interrupts off.
	 */
	TEMPO_TP_WHEEL_HOME,
	/*
	 * wheel.c, base_dkick_fn(), @obj the base: dkick_armed cleared, before
	 * the drain of the deferrable inbox. Softirq.
	 */
	TEMPO_TP_WHEEL_DKICK,
	/*
	 * delayq_clock.c, delayq_walk_one(), @obj the queue a walk has just
	 * visited (and pins still): no lock held. Process context: may sleep.
	 */
	TEMPO_TP_DELAYQ_CLOCK_VISIT,	/* the clock change's walk (a work item) */
	TEMPO_TP_DELAYQ_ALARM_VISIT,	/* the suspend pass */
};

typedef void (*tempo_test_hook_t)(enum tempo_test_point where, const void *obj,
				  u64 arg, unsigned int state);

#ifdef TEMPO_TESTING
void tempo_test_point(enum tempo_test_point where, const void *obj, u64 arg,
		      unsigned int state);
void tempo_test_set_hook(tempo_test_hook_t hook);
#else
static inline void tempo_test_point(enum tempo_test_point where,
				    const void *obj, u64 arg,
				    unsigned int state) { }
#endif

#endif /* _TEMPO_TESTING_H */
