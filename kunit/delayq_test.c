// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "tempo_delayq": the delay queue of kmod/delayq.c.
 *
 * Each case checks one behaviour and was made to fail once by breaking the
 * code it covers (noted per case as "Fails if"). Times are generous: the
 * test VM is an emulated (TCG) machine with KASAN, so a millisecond of
 * simulated time can take much longer, and lateness is never an error here;
 * earliness always is.
 *
 * Consumer kthreads record into shared counters and the test thread alone
 * asserts. Every test item counts how often it was taken, and conservation
 * (put = taken + removed + handed back + queued, each item exactly once) is
 * checked wherever several parties race for items.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/poll.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/signal.h>
#include <linux/slab.h>
#include <tempo/delayq.h>

#define DQ_MS		(NSEC_PER_MSEC)
#define DQ_LONG_WAIT_MS	20000	/* for things that must happen, eventually */

struct dq_item {
	struct tempo_delayq_node node;
	unsigned int id;
	atomic_t taken;		/* times a consumer got it: must end 0 or 1 */
	bool removed;		/* remove() returned true for it */
	ktime_t taken_at;
};

static struct dq_item *dq_item_of(struct tempo_delayq_node *node)
{
	return container_of(node, struct dq_item, node);
}

static struct dq_item *dq_items(struct kunit *test, unsigned int n)
{
	struct dq_item *items = kunit_kcalloc(test, n, sizeof(*items), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, items);
	for (i = 0; i < n; i++) {
		tempo_delayq_node_init(&items[i].node);
		items[i].id = i;
	}
	return items;
}

static struct tempo_delayq *dq_create(struct kunit *test)
{
	struct tempo_delayq *q = tempo_delayq_create();

	KUNIT_ASSERT_NOT_NULL(test, q);
	return q;
}

static struct tempo_delayq_stats dq_stats(struct tempo_delayq *q)
{
	struct tempo_delayq_stats s;

	tempo_delayq_stats(q, &s);
	return s;
}

/* Poll @cond every 1-2 ms for up to @ms; true if it became true. */
#define dq_wait_for(cond, ms)						\
({									\
	unsigned long __end = jiffies + msecs_to_jiffies(ms);		\
	bool __ok;							\
									\
	while (!(__ok = (cond)) && time_before(jiffies, __end))		\
		usleep_range(1000, 2000);				\
	__ok;								\
})

struct dq_release_ctx {
	unsigned int n;
	unsigned int ids[8];
};

/* destroy()'s release callback for kunit-allocated items: record only. */
static void dq_release_record(struct tempo_delayq_node *node, void *arg)
{
	struct dq_release_ctx *ctx = arg;

	if (ctx->n < ARRAY_SIZE(ctx->ids))
		ctx->ids[ctx->n] = dq_item_of(node)->id;
	ctx->n++;
}

/* ...and for kmalloc'ed ones: record and free. */
static void dq_release_free(struct tempo_delayq_node *node, void *arg)
{
	dq_release_record(node, arg);
	kfree(dq_item_of(node));	/* KASAN catches a later callback on it */
}

/* --- consumer kthreads --------------------------------------------------- */

struct dq_consumer {
	struct tempo_delayq	*q;
	struct task_struct	*task;
	unsigned int		max_takes;	/* 0: until an error */
	bool			allow_sig;	/* SIGUSR1 interrupts take() */
	bool			stop_on_signal;	/* ...and ends the loop */
	atomic_t		ntaken;
	atomic_t		early;		/* takes before the deadline */
	atomic_t		interrupted;	/* -ERESTARTSYS seen */
	int			err;		/* the error that ended the loop */
	bool			done;		/* loop ended (release) */
};

static int dq_consumer_fn(void *arg)
{
	struct dq_consumer *c = arg;
	struct tempo_delayq_node *node;
	int err = 0;

	if (c->allow_sig)
		allow_signal(SIGUSR1);
	while (!c->max_takes || atomic_read(&c->ntaken) < c->max_takes) {
		ktime_t now;

		node = tempo_delayq_take(c->q);
		if (IS_ERR(node)) {
			err = PTR_ERR(node);
			if (err == -ERESTARTSYS && c->allow_sig) {
				flush_signals(current);
				atomic_inc(&c->interrupted);
				if (c->stop_on_signal)
					break;
				continue;
			}
			break;
		}
		now = ktime_get();
		if (ktime_before(now, node->deadline))
			atomic_inc(&c->early);
		dq_item_of(node)->taken_at = now;
		atomic_inc(&dq_item_of(node)->taken);
		atomic_inc(&c->ntaken);
	}
	WRITE_ONCE(c->err, err);
	smp_store_release(&c->done, true);	/* Pairs with: dq_consumer_done() */

	/* Park until kthread_stop(), unless that is what ended the loop. */
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return err;
}

static bool dq_consumer_done(struct dq_consumer *c)
{
	return smp_load_acquire(&c->done);	/* Pairs with: dq_consumer_fn() */
}

static struct dq_consumer *dq_consumers(struct kunit *test,
					struct tempo_delayq *q, unsigned int n,
					unsigned int max_takes, bool allow_sig)
{
	struct dq_consumer *cs = kunit_kcalloc(test, n, sizeof(*cs), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, cs);
	for (i = 0; i < n; i++) {
		cs[i].q = q;
		cs[i].max_takes = max_takes;
		cs[i].allow_sig = allow_sig;
		cs[i].task = kthread_create(dq_consumer_fn, &cs[i], "dq_cons/%u", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(cs[i].task));
		/* Our own reference: the thread may end before kthread_stop(). */
		get_task_struct(cs[i].task);
		wake_up_process(cs[i].task);
	}
	return cs;
}

static int dq_consumer_stop(struct dq_consumer *c)
{
	int ret = kthread_stop(c->task);

	put_task_struct(c->task);
	c->task = NULL;
	return ret;
}

static unsigned int dq_consumers_taken(struct dq_consumer *cs, unsigned int n)
{
	unsigned int i, sum = 0;

	for (i = 0; i < n; i++)
		sum += atomic_read(&cs[i].ntaken);
	return sum;
}

static unsigned int dq_consumers_done(struct dq_consumer *cs, unsigned int n)
{
	unsigned int i, sum = 0;

	for (i = 0; i < n; i++)
		sum += dq_consumer_done(&cs[i]);
	return sum;
}

static bool dq_waiters_are(struct tempo_delayq *q, unsigned int n)
{
	return dq_stats(q).waiters == n;
}

/* Wait until @n consumers are asleep in take(), then give them time to sleep. */
static void dq_expect_waiters(struct kunit *test, struct tempo_delayq *q,
			      unsigned int n)
{
	KUNIT_ASSERT_TRUE_MSG(test, dq_wait_for(dq_waiters_are(q, n), DQ_LONG_WAIT_MS),
			      "expected %u waiters, have %u", n, dq_stats(q).waiters);
	msleep(20);
}

/* --- cases --------------------------------------------------------------- */

/*
 * Items come out no earlier than their deadline, and a consumer that takes
 * them as they become takeable sees them in deadline order, to the tick. The
 * delays are put in shuffled order and are at least 5 ms apart, far above
 * the wheel's tick, so each item's tick falls due (through the waker, with
 * the consumer asleep) before the next item's deadline.
 * Fails if: a node is taken before a clock reading at or past its deadline
 * (delayq_next()), or the waker is not armed for the earliest deadline
 * (delayq_notify()).
 */
static void delayq_take_never_early_in_order(struct kunit *test)
{
	static const unsigned int delays_ms[] = { 40, 5, 30, 15, 50, 10, 25, 20, 45, 35 };
	const unsigned int n = ARRAY_SIZE(delays_ms);
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, n);
	const u64 tick = tempo_timer_tick_ns();
	struct tempo_delayq_node *node;
	ktime_t prev = 0, now;
	unsigned int i, prev_id = 0;

	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[i].node,
						       delays_ms[i] * DQ_MS), 0);
	KUNIT_EXPECT_EQ(test, tempo_delayq_size(q), n);

	for (i = 0; i < n; i++) {
		node = tempo_delayq_take_timeout(q, DQ_LONG_WAIT_MS * DQ_MS);
		KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(node), "take %u: %ld", i,
				       PTR_ERR(node));
		now = ktime_get();
		KUNIT_EXPECT_TRUE_MSG(test, !ktime_before(now, node->deadline),
				      "item %u taken %lld ns early", dq_item_of(node)->id,
				      ktime_to_ns(ktime_sub(node->deadline, now)));
		/*
		 * In order to the tick, as the header promises: a stall of the
		 * guest between two puts can put both deadlines in one tick,
		 * and those leave in put order.
		 */
		KUNIT_EXPECT_FALSE_MSG(test, div64_u64(node->deadline, tick) <
					     div64_u64(prev, tick),
				       "item %u (tick %llu) out of deadline order: after item %u (tick %llu)",
				       dq_item_of(node)->id, div64_u64(node->deadline, tick),
				       prev_id, div64_u64(prev, tick));
		prev = node->deadline;
		prev_id = dq_item_of(node)->id;
	}
	KUNIT_EXPECT_EQ(test, tempo_delayq_size(q), 0U);
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, NULL, NULL), 0U);
}

/*
 * Many items fall due at once: items put for deadlines a few ms apart, in
 * shuffled order, are left until the last deadline has passed and then
 * taken without sleeping. They must all be takeable, and leave in deadline
 * order: one clock reading makes them all due. The deadlines are absolute
 * (one base reading), so a guest stall between two puts cannot reorder
 * them; an item whose deadline a stall has already passed is due at its
 * put, and must still leave in order.
 * Fails if: delayq_next() takes any due node but the leftmost, or the tree
 * is not kept in deadline order (delayq_link()).
 */
static void delayq_due_ticks_leave_in_order(struct kunit *test)
{
	static const unsigned int at_ms[] = { 12, 4, 20, 8, 16, 28, 6, 24, 10, 18, 14, 26 };
	const unsigned int n = ARRAY_SIZE(at_ms);
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, n);
	struct tempo_delayq_node *node;
	ktime_t base = ktime_get(), last = 0, prev = 0;
	unsigned int i, taken, prev_id = 0;

	for (i = 0; i < n; i++) {
		ktime_t at = ktime_add_ms(base, at_ms[i]);

		KUNIT_ASSERT_EQ(test, tempo_delayq_put_at(q, &items[i].node, at), 0);
		last = max(last, at);
	}
	/* Past the last deadline, and past the end of its tick. */
	while (ktime_before(ktime_get(), ktime_add_ns(last, 2 * tempo_timer_tick_ns())))
		usleep_range(2000, 5000);
	for (taken = 0; taken < n; taken++) {
		node = tempo_delayq_try_take(q);
		KUNIT_ASSERT_FALSE_MSG(test, IS_ERR_OR_NULL(node),
				       "only %u of %u due items were takeable", taken, n);
		KUNIT_EXPECT_FALSE_MSG(test, ktime_before(node->deadline, prev),
				       "item %u (+%u ms) taken after item %u (+%u ms)",
				       dq_item_of(node)->id, at_ms[dq_item_of(node)->id],
				       prev_id, at_ms[prev_id]);
		prev = node->deadline;
		prev_id = dq_item_of(node)->id;
	}
	KUNIT_EXPECT_EQ(test, PTR_ERR(tempo_delayq_try_take(q)), -EAGAIN);
	KUNIT_EXPECT_EQ(test, tempo_delayq_size(q), 0U);
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, NULL, NULL), 0U);
}

/* --- deadline order across CPUs and granules ------------------------------ */

struct dq_put_on {
	struct tempo_delayq		*q;
	struct tempo_delayq_node	*node;
	ktime_t				deadline;
};

static int dq_put_on_fn(void *arg)
{
	struct dq_put_on *p = arg;

	return tempo_delayq_put_at(p->q, p->node, p->deadline);
}

/* put_at() from @cpu, so that the item's timer is armed on @cpu's wheel. */
static int dq_put_at_on(struct tempo_delayq *q, struct tempo_delayq_node *node,
			ktime_t deadline, int cpu)
{
	struct dq_put_on p = { .q = q, .node = node, .deadline = deadline };

	return smp_call_on_cpu(cpu, dq_put_on_fn, &p, false);
}

/* A SCHED_FIFO spinner: holds off every CFS task of its CPU until @until. */
static int dq_hog_fn(void *arg)
{
	ktime_t until = *(ktime_t *)arg;

	while (ktime_before(ktime_get(), until))
		cpu_relax();
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/*
 * Put A (due in 25 ms) from @cpu_a and B (5 ms later) from @cpu_b, then hold
 * @cpu_a's CFS tasks, its timer workqueue included, off for 180 ms with a
 * SCHED_FIFO spinner. Return: the spinner, to kthread_stop(); @now: the base.
 */
static struct task_struct *dq_starve_scenario(struct kunit *test, struct tempo_delayq *q,
					      struct dq_item *items, int cpu_a, int cpu_b,
					      ktime_t *now, ktime_t *until)
{
	struct task_struct *hog;

	*now = ktime_get();
	KUNIT_ASSERT_EQ(test, dq_put_at_on(q, &items[0].node, ktime_add_ms(*now, 25), cpu_a), 0);
	KUNIT_ASSERT_EQ(test, dq_put_at_on(q, &items[1].node, ktime_add_ms(*now, 30), cpu_b), 0);
	*until = ktime_add_ms(*now, 180);
	hog = kthread_create(dq_hog_fn, until, "dq_hog");
	KUNIT_ASSERT_FALSE(test, IS_ERR(hog));
	kthread_bind(hog, cpu_a);
	sched_set_fifo(hog);
	wake_up_process(hog);
	return hog;
}

/*
 * Deadline order holds even when the CPU holding the earlier item's timer
 * cannot run its timer callbacks (a starved workqueue): A's timer is on a
 * CPU that a SCHED_FIFO spinner holds for 150 ms past A's deadline, B (5 ms
 * later) is on another CPU. B's expiry comes first, yet a consumer must get
 * A first, in deadline order. Then again with two consumers asleep: B is
 * held back without a wake-up, so when A's expiry releases it, a second
 * consumer must be woken for it.
 * Fails if: an item is handed out while an earlier one is queued (not the
 * tree's leftmost), or a consumer that leaves an item due does not wake the
 * next (delayq_notify()).
 */
static void delayq_order_survives_a_starved_cpu(struct kunit *test)
{
	struct tempo_delayq *q;
	struct dq_item *items;
	struct tempo_delayq_node *first, *second;
	struct dq_consumer *cs;
	struct task_struct *hog;
	ktime_t now, until;
	int cpu_a, cpu_b, i;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	cpu_a = cpumask_first(cpu_online_mask);
	cpu_b = cpumask_next(cpu_a, cpu_online_mask);
	q = dq_create(test);
	items = dq_items(test, 2);

	hog = dq_starve_scenario(test, q, items, cpu_a, cpu_b, &now, &until);
	/* The consumer runs on B's CPU, so only A's CPU is starved. */
	set_cpus_allowed_ptr(current, cpumask_of(cpu_b));
	first = tempo_delayq_take_timeout(q, DQ_LONG_WAIT_MS * DQ_MS);
	second = tempo_delayq_take_timeout(q, DQ_LONG_WAIT_MS * DQ_MS);
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	kthread_stop(hog);

	KUNIT_ASSERT_FALSE(test, IS_ERR(first));
	KUNIT_ASSERT_FALSE(test, IS_ERR(second));
	KUNIT_EXPECT_EQ_MSG(test, dq_item_of(first)->id, 0U,
			    "item %u (deadline +%lld us) came before item 0",
			    dq_item_of(first)->id,
			    ktime_to_us(ktime_sub(first->deadline, now)));
	KUNIT_EXPECT_EQ(test, dq_item_of(second)->id, 1U);

	/* Two consumers asleep, one item each. */
	cs = dq_consumers(test, q, 2, 1, false);
	dq_expect_waiters(test, q, 2);
	hog = dq_starve_scenario(test, q, items, cpu_a, cpu_b, &now, &until);
	KUNIT_EXPECT_TRUE_MSG(test, dq_wait_for(dq_consumers_taken(cs, 2) == 2, 3000),
			      "%u of 2 items taken: a released item stranded",
			      dq_consumers_taken(cs, 2));
	kthread_stop(hog);
	tempo_delayq_shutdown(q);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, atomic_read(&items[i].taken), 1);
		dq_consumer_stop(&cs[i]);
	}
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, NULL, NULL), 0U);
}

struct dq_hog_mark {
	ktime_t	until;
	ktime_t	started;	/* written by the spinner as it starts */
};

/* dq_hog_fn() that also records when it started spinning. */
static int dq_hog_mark_fn(void *arg)
{
	struct dq_hog_mark *h = arg;

	WRITE_ONCE(h->started, ktime_get());
	return dq_hog_fn(&h->until);
}

enum dq_try { DQ_TRY_PASS, DQ_TRY_FAIL, DQ_TRY_AGAIN };

/*
 * One try of delayq_taken_without_the_waker: put an item due in 40 ms from
 * @cpu_a, so that the queue's timer (the waker) is armed there; hold @cpu_a's
 * CFS tasks, its timer workqueue included, off for 600 ms; from @cpu_b, two
 * ticks after the deadline, try_take(). DQ_TRY_AGAIN if the try proves
 * nothing: the spinner started after the deadline, or a stall of the guest
 * let the spinner end before the try_take() returned.
 */
static enum dq_try dq_without_the_waker_once(struct kunit *test, int cpu_a, int cpu_b)
{
	const u64 tick = tempo_timer_tick_ns();
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, 1);
	struct dq_hog_mark h = {};
	struct tempo_delayq_node *node;
	struct task_struct *hog;
	ktime_t now, deadline, after;
	bool valid;

	now = ktime_get();
	deadline = ktime_add_ms(now, 40);
	h.until = ktime_add_ms(now, 600);
	KUNIT_ASSERT_EQ(test, dq_put_at_on(q, &items[0].node, deadline, cpu_a), 0);
	hog = kthread_create(dq_hog_mark_fn, &h, "dq_hog");
	KUNIT_ASSERT_FALSE(test, IS_ERR(hog));
	get_task_struct(hog);
	kthread_bind(hog, cpu_a);
	sched_set_fifo(hog);
	wake_up_process(hog);

	set_cpus_allowed_ptr(current, cpumask_of(cpu_b));
	while (ktime_before(ktime_get(), ktime_add_ns(deadline, 2 * tick)))
		usleep_range(1000, 2000);
	node = tempo_delayq_try_take(q);
	after = ktime_get();
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	kthread_stop(hog);
	put_task_struct(hog);

	valid = READ_ONCE(h.started) && ktime_before(READ_ONCE(h.started), deadline) &&
		ktime_before(after, h.until);
	if (!IS_ERR(node))
		KUNIT_EXPECT_FALSE_MSG(test, ktime_before(after, node->deadline),
				       "taken %lld ns early",
				       ktime_to_ns(ktime_sub(node->deadline, after)));
	else
		KUNIT_EXPECT_EQ(test, PTR_ERR(node), -EAGAIN);
	/* Not taken: destroy hands it back (its tick is due by now). */
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, dq_release_record,
						   &(struct dq_release_ctx){}),
			IS_ERR(node) ? 1U : 0U);
	if (!valid)
		return DQ_TRY_AGAIN;
	return IS_ERR(node) ? DQ_TRY_FAIL : DQ_TRY_PASS;
}

/*
 * A consumer that comes by takes an item once its tick is due, without
 * waiting for the queue's timer: here that timer's CPU cannot run its timer
 * workqueue (a SCHED_FIFO spinner holds it off), and a try_take() from
 * another CPU two ticks after the deadline must get the item all the same.
 * Up to three tries; a try the guest's stalls make meaningless is retried.
 * Fails if: only the waker makes items takeable (delayq_next() reads no
 * clock).
 */
static void delayq_taken_without_the_waker(struct kunit *test)
{
	int cpu_a, cpu_b, i;
	enum dq_try r = DQ_TRY_AGAIN;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	cpu_a = cpumask_first(cpu_online_mask);
	cpu_b = cpumask_next(cpu_a, cpu_online_mask);
	for (i = 0; i < 3 && r == DQ_TRY_AGAIN; i++)
		r = dq_without_the_waker_once(test, cpu_a, cpu_b);
	if (r == DQ_TRY_AGAIN)
		kunit_skip(test, "the guest stalled through all three tries");
	KUNIT_EXPECT_EQ_MSG(test, r, DQ_TRY_PASS,
			    "a due item was not takeable while the waker's CPU was starved");
}

/*
 * A long delay lands in a coarse wheel level (1 s: 64 ms granules), yet the
 * item is available at tick precision: A is due 1 tick after a 64-tick
 * boundary, where its granule would fire 63 ticks late; B, put later, is due
 * 10 ms after A. A must come first.
 * Fails if: an item due later is taken before an earlier one that a coarse
 * timer would release late.
 */
static void delayq_long_delay_is_tick_precise(struct kunit *test)
{
	const u64 tick = tempo_timer_tick_ns(), gran = tempo_timer_slack_ns(NSEC_PER_SEC);
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, 2);
	struct tempo_delayq_node *first, *second;
	u64 da;

	KUNIT_ASSERT_GE(test, gran, 8 * tick);
	da = ktime_get_ns() + NSEC_PER_SEC;
	da = roundup(da, gran) + 1;	/* just past a granule boundary */
	KUNIT_ASSERT_EQ(test, tempo_delayq_put_at(q, &items[0].node, ns_to_ktime(da)), 0);
	msleep(div_u64(da - 40 * DQ_MS - ktime_get_ns(), DQ_MS));
	KUNIT_ASSERT_EQ(test, tempo_delayq_put_at(q, &items[1].node,
						  ns_to_ktime(da + 10 * DQ_MS)), 0);

	first = tempo_delayq_take_timeout(q, DQ_LONG_WAIT_MS * DQ_MS);
	second = tempo_delayq_take_timeout(q, DQ_LONG_WAIT_MS * DQ_MS);
	KUNIT_ASSERT_FALSE(test, IS_ERR(first));
	KUNIT_ASSERT_FALSE(test, IS_ERR(second));
	KUNIT_EXPECT_EQ_MSG(test, dq_item_of(first)->id, 0U,
			    "the later item came first: the far item fired from its coarse slot");
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, NULL, NULL), 0U);
}

/*
 * Items that are ready together come out sorted by deadline, ties in put
 * order, however they became ready: here straight from put_at() with past
 * deadlines, in shuffled order, so only the sorted insertion orders them.
 * Fails if: delayq_link() puts equal deadlines left of each other, or out of
 * deadline order.
 */
static void delayq_ready_sorted_by_deadline(struct kunit *test)
{
	static const int ago_ms[] = { 3, 9, 1, 7, 7, 2, 8, 5, 9, 4, 6, 0 };
	const unsigned int n = ARRAY_SIZE(ago_ms);
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, n);
	struct tempo_delayq_node **got;
	ktime_t base = ktime_sub_ns(ktime_get(), 10 * DQ_MS);
	unsigned int i;
	int nr;

	got = kunit_kcalloc(test, n, sizeof(*got), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, got);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test,
				tempo_delayq_put_at(q, &items[i].node,
						    ktime_sub_ns(base, ago_ms[i] * DQ_MS)),
				0);
	KUNIT_EXPECT_TRUE(test, tempo_delayq_ready(q));

	nr = tempo_delayq_take_many(q, got, n);
	KUNIT_ASSERT_EQ(test, nr, (int)n);
	for (i = 1; i < n; i++) {
		ktime_t a = got[i - 1]->deadline, b = got[i]->deadline;

		KUNIT_EXPECT_FALSE_MSG(test, ktime_before(b, a),
				       "position %u: item %u before item %u", i,
				       dq_item_of(got[i - 1])->id, dq_item_of(got[i])->id);
		if (a == b)	/* the two 7s and the two 9s: put order */
			KUNIT_EXPECT_LT(test, dq_item_of(got[i - 1])->id,
					dq_item_of(got[i])->id);
	}
	KUNIT_EXPECT_EQ(test, tempo_delayq_take_many(q, got, n), 0);
	KUNIT_EXPECT_FALSE(test, tempo_delayq_ready(q));
	tempo_delayq_destroy(q, NULL, NULL);
}

/*
 * remove() of a pending item cancels it: it never becomes ready, the size
 * drops at once, a second remove() says no, and it can be put again at once.
 * Fails if: remove() leaves the node in the tree (the item turns up later) or
 * returns true twice.
 */
static void delayq_remove_pending(struct kunit *test)
{
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, 2);
	struct tempo_delayq_stats s;
	struct tempo_delayq_node *node;
	ktime_t removed_at;

	KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[0].node, 300 * DQ_MS), 0);
	KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[1].node, 30 * DQ_MS), 0);
	KUNIT_EXPECT_EQ(test, tempo_delayq_size(q), 2U);
	KUNIT_EXPECT_TRUE(test, tempo_delayq_remove(q, &items[0].node));
	removed_at = ktime_get();
	KUNIT_EXPECT_EQ(test, tempo_delayq_size(q), 1U);
	KUNIT_EXPECT_FALSE(test, tempo_delayq_remove(q, &items[0].node));
	/* A loaded host can stall the guest for that long: nothing to test then. */
	if (!ktime_before(removed_at, items[0].node.deadline)) {
		tempo_delayq_destroy(q, NULL, NULL);
		kunit_skip(test, "the guest stalled 300 ms between put and remove");
	}

	/* The other one still comes; the removed one never does. */
	node = tempo_delayq_take_timeout(q, DQ_LONG_WAIT_MS * DQ_MS);
	KUNIT_ASSERT_FALSE(test, IS_ERR(node));
	KUNIT_EXPECT_PTR_EQ(test, node, &items[1].node);
	msleep(max_t(s64, 0, ktime_ms_delta(items[0].node.deadline, ktime_get())) + 60);
	KUNIT_EXPECT_EQ(test, PTR_ERR(tempo_delayq_try_take(q)), -EAGAIN);

	s = dq_stats(q);
	KUNIT_EXPECT_EQ(test, s.put, 2ULL);
	KUNIT_EXPECT_EQ(test, s.removed, 1ULL);
	KUNIT_EXPECT_EQ(test, s.taken, 1ULL);
	KUNIT_EXPECT_EQ(test, s.expired, 1ULL);

	KUNIT_EXPECT_EQ(test, tempo_delayq_put(q, &items[0].node, 0), 0);
	KUNIT_EXPECT_PTR_EQ(test, tempo_delayq_try_take(q), &items[0].node);
	tempo_delayq_destroy(q, NULL, NULL);
}

/* tempo_delayq_requeue()'s fn: the item it was shown, and how often. */
struct dq_requeue_seen {
	struct tempo_delayq_node *node;
	unsigned int calls;
};

static void dq_requeued(struct tempo_delayq_node *node, void *arg)
{
	struct dq_requeue_seen *seen = arg;

	seen->node = node;
	seen->calls++;
}

/*
 * requeue() moves a queued item, from the cascade or the sorted part, to a
 * deadline earlier or later, after the items of that deadline put before,
 * counted as requeued, fn shown it once; an item not queued on the queue,
 * a deadline too far and a queue shut down change nothing and call no fn.
 */
static void delayq_requeue_moves_in_place(struct kunit *test)
{
	struct tempo_delayq *q = dq_create(test), *q2 = dq_create(test);
	struct dq_item *items = dq_items(test, 4);
	struct dq_requeue_seen seen = {};
	ktime_t past = ktime_sub_ns(ktime_get(), 10 * DQ_MS), far, old;
	struct tempo_delayq_stats s;

	far = ktime_add_ns(ktime_get(), 3600ULL * NSEC_PER_SEC);
	KUNIT_ASSERT_EQ(test, tempo_delayq_put_at(q, &items[0].node, far), 0);
	KUNIT_ASSERT_EQ(test, tempo_delayq_put_at(q, &items[1].node, past), 0);
	KUNIT_ASSERT_EQ(test, tempo_delayq_put_at(q, &items[2].node, past), 0);
	KUNIT_ASSERT_EQ(test, tempo_delayq_put_at(q2, &items[3].node, past), 0);

	/* From an hour ahead to due: after the two of that deadline. */
	KUNIT_EXPECT_EQ(test, tempo_delayq_requeue(q, &items[0].node, past, dq_requeued, &seen), 0);
	KUNIT_EXPECT_EQ(test, seen.calls, 1U);
	KUNIT_EXPECT_PTR_EQ(test, seen.node, &items[0].node);
	KUNIT_EXPECT_EQ(test, tempo_delayq_size(q), 3U);
	s = dq_stats(q);
	KUNIT_EXPECT_EQ(test, s.put, 3ULL);
	KUNIT_EXPECT_EQ(test, s.requeued, 1ULL);
	KUNIT_EXPECT_EQ(test, s.removed, 0ULL);
	KUNIT_EXPECT_EQ(test, s.ready, 3U);

	/* From due to an hour ahead: no longer takeable. */
	KUNIT_EXPECT_EQ(test, tempo_delayq_requeue(q, &items[1].node, far, NULL, NULL), 0);
	KUNIT_EXPECT_PTR_EQ(test, tempo_delayq_try_take(q), &items[2].node);
	KUNIT_EXPECT_PTR_EQ(test, tempo_delayq_try_take(q), &items[0].node);
	KUNIT_EXPECT_EQ(test, PTR_ERR(tempo_delayq_try_take(q)), -EAGAIN);

	/* Refused: taken, on another queue, too far, shut down. */
	seen.calls = 0;
	KUNIT_EXPECT_EQ(test, tempo_delayq_requeue(q, &items[0].node, past, dq_requeued, &seen),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, tempo_delayq_requeue(q, &items[3].node, far, dq_requeued, &seen),
			-ENOENT);
	old = items[1].node.deadline;
	KUNIT_EXPECT_EQ(test, tempo_delayq_requeue(q, &items[1].node,
						   ktime_add_ns(ktime_get(),
								tempo_timer_max_delay_ns() +
								NSEC_PER_SEC),
						   dq_requeued, &seen), -ERANGE);
	KUNIT_EXPECT_EQ(test, items[1].node.deadline, old);
	tempo_delayq_shutdown(q);
	KUNIT_EXPECT_EQ(test, tempo_delayq_requeue(q, &items[1].node, past, dq_requeued, &seen),
			-ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, seen.calls, 0U);
	KUNIT_EXPECT_EQ(test, tempo_delayq_size(q), 1U);
	KUNIT_EXPECT_PTR_EQ(test, tempo_delayq_try_take(q2), &items[3].node);
	s = dq_stats(q);
	KUNIT_EXPECT_EQ(test, s.requeued, 2ULL);
	KUNIT_EXPECT_EQ(test, s.put, s.taken + s.removed + s.flushed + s.pending + s.ready);
	KUNIT_EXPECT_TRUE(test, tempo_delayq_remove(q, &items[1].node));
	tempo_delayq_destroy(q, NULL, NULL);
	tempo_delayq_destroy(q2, NULL, NULL);
}

/*
 * remove() of a ready item unlinks it; remove() of a taken item says no.
 * Fails if: remove() ignores READY nodes or counts TAKEN ones.
 */
static void delayq_remove_ready(struct kunit *test)
{
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, 3);
	unsigned int i;

	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[i].node, 1 * DQ_MS), 0);
	KUNIT_ASSERT_TRUE(test, dq_wait_for(dq_stats(q).ready == 3, DQ_LONG_WAIT_MS));

	KUNIT_EXPECT_TRUE(test, tempo_delayq_remove(q, &items[1].node));
	KUNIT_EXPECT_FALSE(test, tempo_delayq_remove(q, &items[1].node));
	KUNIT_EXPECT_EQ(test, tempo_delayq_size(q), 2U);
	KUNIT_EXPECT_PTR_EQ(test, tempo_delayq_try_take(q), &items[0].node);
	KUNIT_EXPECT_FALSE(test, tempo_delayq_remove(q, &items[0].node));
	KUNIT_EXPECT_PTR_EQ(test, tempo_delayq_try_take(q), &items[2].node);
	KUNIT_EXPECT_EQ(test, PTR_ERR(tempo_delayq_try_take(q)), -EAGAIN);
	KUNIT_EXPECT_EQ(test, tempo_delayq_size(q), 0U);
	KUNIT_EXPECT_EQ(test, dq_stats(q).removed, 1ULL);
	tempo_delayq_destroy(q, NULL, NULL);
}

/*
 * remove() racing with the expiry: put with a 1 ms delay, wait a random
 * while around the deadline, then remove. remove() claims the node whether it
 * is still pending, being found due by the waker, or due: it returns true
 * every time, nothing turns up afterwards, and the node can be put again at
 * once.
 * Fails if: remove() of a due node leaves it takeable (an item turns up
 * after its removal), or a removed node is still busy (put() returns
 * -EBUSY).
 */
static void delayq_remove_races_expiry(struct kunit *test)
{
	const unsigned int rounds = 200;
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *item = dq_items(test, 1);
	unsigned int i, removed = 0;
	struct tempo_delayq_stats s;

	for (i = 0; i < rounds; i++) {
		KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &item->node, DQ_MS), 0);
		/* Around the expiry, spinning or sleeping (the VM is slow). */
		if (i & 1)
			udelay(get_random_u32() % 2000);
		else
			fsleep(get_random_u32() % 4000);
		removed += tempo_delayq_remove(q, &item->node);
		KUNIT_EXPECT_EQ(test, PTR_ERR(tempo_delayq_try_take(q)), -EAGAIN);
		KUNIT_ASSERT_EQ(test, tempo_delayq_size(q), 0U);
	}
	s = dq_stats(q);
	kunit_info(test, "%u removed: %llu after they became ready", removed,
		   s.expired);
	KUNIT_EXPECT_EQ(test, removed, rounds);
	KUNIT_EXPECT_EQ(test, s.removed, (u64)rounds);
	KUNIT_EXPECT_EQ(test, s.taken, 0ULL);

	/* A removed node may be put again at once. */
	KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &item->node, DQ_MS), 0);
	usleep_range(1000, 1100);
	if (tempo_delayq_remove(q, &item->node))
		KUNIT_EXPECT_EQ(test, tempo_delayq_put(q, &item->node, 0), 0);
	KUNIT_EXPECT_PTR_EQ(test, tempo_delayq_take_timeout(q, DQ_LONG_WAIT_MS * DQ_MS),
			    &item->node);
	tempo_delayq_destroy(q, NULL, NULL);
}

/*
 * try_take() never blocks; take_timeout() waits for the caller's timeout and
 * no longer, and returns an item that becomes ready within it.
 * Fails if: try_take() returns NULL or sleeps, take_timeout() returns early
 * with -ETIMEDOUT (schedule_hrtimeout() result ignored) or ignores @end.
 */
static void delayq_try_and_timeout(struct kunit *test)
{
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, 3);
	struct tempo_delayq_node *node;
	ktime_t t0;

	KUNIT_EXPECT_EQ(test, PTR_ERR(tempo_delayq_try_take(q)), -EAGAIN);
	KUNIT_EXPECT_EQ(test, PTR_ERR(tempo_delayq_take_timeout(q, 0)), -ETIMEDOUT);

	t0 = ktime_get();
	node = tempo_delayq_take_timeout(q, 20 * DQ_MS);
	KUNIT_EXPECT_EQ(test, PTR_ERR(node), -ETIMEDOUT);
	KUNIT_EXPECT_GE(test, ktime_to_ns(ktime_sub(ktime_get(), t0)), 20 * DQ_MS);

	/*
	 * Pending but not ready within the timeout. Due far beyond it, so that
	 * a guest stalled by a loaded host cannot make it ready meanwhile.
	 */
	KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[0].node, 10000 * DQ_MS), 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(tempo_delayq_take_timeout(q, 10 * DQ_MS)),
			-ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, PTR_ERR(tempo_delayq_try_take(q)), -EAGAIN);
	KUNIT_EXPECT_TRUE(test, tempo_delayq_remove(q, &items[0].node));

	/* Ready within the timeout: returned, not before its deadline. */
	KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[1].node, 50 * DQ_MS), 0);
	node = tempo_delayq_take_timeout(q, DQ_LONG_WAIT_MS * DQ_MS);
	KUNIT_ASSERT_PTR_EQ(test, node, &items[1].node);
	KUNIT_EXPECT_FALSE(test, ktime_before(ktime_get(), node->deadline));

	/* A ready item is returned even with a zero timeout. */
	KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[2].node, 0), 0);
	KUNIT_EXPECT_PTR_EQ(test, tempo_delayq_take_timeout(q, 0), &items[2].node);
	tempo_delayq_destroy(q, NULL, NULL);
}

/*
 * peek() gives the earliest deadline queued, due or not, the next one after
 * the item that held it leaves; size() counts every queued item.
 * Fails if: remove() leaves the tree's cached leftmost behind
 * (rb_erase() for rb_erase_cached()).
 */
static void delayq_peek_and_size(struct kunit *test)
{
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, 4);
	struct dq_release_ctx ctx = {};
	ktime_t d;

	KUNIT_EXPECT_FALSE(test, tempo_delayq_peek(q, &d));
	KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[0].node, 2000 * DQ_MS), 0);
	KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[1].node, 1000 * DQ_MS), 0);
	KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[2].node, 3000 * DQ_MS), 0);
	KUNIT_EXPECT_EQ(test, tempo_delayq_size(q), 3U);

	KUNIT_ASSERT_TRUE(test, tempo_delayq_peek(q, &d));
	KUNIT_EXPECT_EQ(test, d, items[1].node.deadline);
	KUNIT_EXPECT_TRUE(test, tempo_delayq_remove(q, &items[1].node));
	KUNIT_ASSERT_TRUE(test, tempo_delayq_peek(q, &d));
	KUNIT_EXPECT_EQ(test, d, items[0].node.deadline);

	/* A ready item wins even though pending ones exist. */
	KUNIT_ASSERT_EQ(test, tempo_delayq_put_at(q, &items[3].node,
						  ktime_sub_ns(ktime_get(), DQ_MS)), 0);
	KUNIT_EXPECT_EQ(test, tempo_delayq_size(q), 3U);
	KUNIT_ASSERT_TRUE(test, tempo_delayq_peek(q, &d));
	KUNIT_EXPECT_EQ(test, d, items[3].node.deadline);

	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, dq_release_record, &ctx), 3U);
	KUNIT_EXPECT_EQ(test, ctx.n, 3U);
}

/*
 * put() refuses a queued node, an out-of-range delay, and a shut-down queue;
 * after shutdown every take variant fails with -ESHUTDOWN.
 * Fails if: put() re-queues a queued node (list corruption) or take()
 * returns items after shutdown.
 */
static void delayq_put_errors_and_shutdown(struct kunit *test)
{
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, 3);
	struct dq_release_ctx ctx = {};
	struct tempo_delayq_node *nodes[2];

	KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[0].node, 1000 * DQ_MS), 0);
	KUNIT_EXPECT_EQ(test, tempo_delayq_put(q, &items[0].node, 0), -EBUSY);
	KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[1].node, 0), 0);
	KUNIT_EXPECT_EQ(test, tempo_delayq_put(q, &items[1].node, 0), -EBUSY);
	KUNIT_EXPECT_EQ(test, tempo_delayq_put(q, &items[2].node,
					       tempo_timer_max_delay_ns() + 1), -ERANGE);
	KUNIT_EXPECT_EQ(test, tempo_delayq_size(q), 2U);

	tempo_delayq_shutdown(q);
	KUNIT_EXPECT_EQ(test, tempo_delayq_put(q, &items[2].node, 0), -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, PTR_ERR(tempo_delayq_take(q)), -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, PTR_ERR(tempo_delayq_take_timeout(q, DQ_MS)), -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, PTR_ERR(tempo_delayq_try_take(q)), -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, tempo_delayq_take_many(q, nodes, 2), -ESHUTDOWN);
	KUNIT_EXPECT_FALSE(test, tempo_delayq_ready(q));
	/* remove() still works on a shut-down queue. */
	KUNIT_EXPECT_TRUE(test, tempo_delayq_remove(q, &items[0].node));
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, dq_release_record, &ctx), 1U);
	KUNIT_EXPECT_EQ(test, ctx.n, 1U);
	KUNIT_EXPECT_EQ(test, ctx.ids[0], 1U);
}

/*
 * N consumers asleep in take(), one item put: exactly one consumer wakes and
 * takes it, the others stay asleep; then each further item wakes one more.
 * Fails if: an item wakes all waiters (wake_up_all_locked()), or consumers
 * wait non-exclusively: wakeups would be N, not 1.
 */
static void delayq_wake_one(struct kunit *test)
{
	const unsigned int n = 4;
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, n);
	struct dq_consumer *cs = dq_consumers(test, q, n, 1, false);
	struct tempo_delayq_stats s;
	unsigned int i;

	dq_expect_waiters(test, q, n);
	KUNIT_EXPECT_EQ(test, dq_stats(q).wakeups, 0ULL);

	KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[0].node, 5 * DQ_MS), 0);
	KUNIT_EXPECT_TRUE(test, dq_wait_for(dq_consumers_taken(cs, n) == 1,
					    DQ_LONG_WAIT_MS));
	msleep(50);	/* time for a herd to show up */
	s = dq_stats(q);
	KUNIT_EXPECT_EQ(test, s.wakeups, 1ULL);
	KUNIT_EXPECT_EQ(test, s.waiters, n - 1);
	KUNIT_EXPECT_EQ(test, dq_consumers_taken(cs, n), 1U);
	KUNIT_EXPECT_EQ(test, dq_consumers_done(cs, n), 1U);

	for (i = 1; i < n; i++)
		KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[i].node, i * DQ_MS), 0);
	KUNIT_EXPECT_TRUE(test, dq_wait_for(dq_consumers_done(cs, n) == n,
					    DQ_LONG_WAIT_MS));
	s = dq_stats(q);
	KUNIT_EXPECT_EQ(test, s.taken, (u64)n);
	KUNIT_EXPECT_LE(test, s.wakeups, s.expired);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ(test, atomic_read(&items[i].taken), 1);
		KUNIT_EXPECT_EQ(test, atomic_read(&cs[i].ntaken), 1);
		KUNIT_EXPECT_EQ(test, atomic_read(&cs[i].early), 0);
		dq_consumer_stop(&cs[i]);
	}
	tempo_delayq_destroy(q, NULL, NULL);
}

/*
 * A consumer asleep in take() on an empty queue, then put() of an item that
 * is already due: the put itself must wake the consumer, since no timer of
 * the queue is armed to do it. The consumer is seen asleep in take() before
 * the put.
 * Fails if: a due put() does not wake a sleeper (delayq_notify() after the
 * put): the consumer then sleeps until its own timeout.
 */
static void delayq_due_put_wakes_a_sleeper(struct kunit *test)
{
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, 1);
	struct dq_consumer *cs = dq_consumers(test, q, 1, 1, false);

	KUNIT_ASSERT_TRUE_MSG(test,
			      dq_wait_for(dq_waiters_are(q, 1) &&
					  /* racy, and enough: it decides when to put */
					  !task_is_running(cs[0].task), DQ_LONG_WAIT_MS),
			      "the consumer never went to sleep");
	msleep(20);	/* past schedule() */
	KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[0].node, 0), 0);
	KUNIT_EXPECT_TRUE_MSG(test, dq_wait_for(dq_consumers_taken(cs, 1) == 1, 5000),
			      "a due item stayed with its consumer asleep for 5 s");
	KUNIT_EXPECT_EQ(test, dq_stats(q).wakeups, 1ULL);
	KUNIT_EXPECT_EQ(test, atomic_read(&items[0].taken), 1);
	tempo_delayq_shutdown(q);
	dq_consumer_stop(&cs[0]);
	tempo_delayq_destroy(q, dq_release_record, &(struct dq_release_ctx){});
}

/*
 * Several consumers and a producer that also removes: every item is taken
 * exactly once or removed exactly once, none early, the counters balance,
 * and no consumer was woken more often than items became ready.
 * Fails if: two consumers can take one node (double take), an expiry is lost
 * (the wait times out), or wakes are not one per item.
 */
static void delayq_consumers_conservation(struct kunit *test)
{
	const unsigned int n = 300, nc = 4;
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, n);
	struct dq_consumer *cs = dq_consumers(test, q, nc, 0, false);
	unsigned int i, removed = 0, once = 0, early = 0;
	struct tempo_delayq_stats s;

	dq_expect_waiters(test, q, nc);
	for (i = 0; i < n; i++) {
		u64 delay = (get_random_u32() % 20) * DQ_MS;

		KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[i].node, delay), 0);
		/* Every 7th item is removed again, ready or not. */
		if (i % 7 == 3 && tempo_delayq_remove(q, &items[i - 3].node)) {
			items[i - 3].removed = true;
			removed++;
		}
		if (i % 32 == 0)
			usleep_range(500, 1500);
	}
	KUNIT_EXPECT_TRUE(test, dq_wait_for(dq_consumers_taken(cs, nc) + removed == n,
					    DQ_LONG_WAIT_MS));
	s = dq_stats(q);
	KUNIT_EXPECT_LE(test, s.wakeups, s.expired);
	kunit_info(test, "%u taken, %u removed, %llu wake-ups for %llu ready items",
		   dq_consumers_taken(cs, nc), removed, s.wakeups, s.expired);

	tempo_delayq_shutdown(q);
	for (i = 0; i < nc; i++) {
		KUNIT_EXPECT_EQ(test, dq_consumer_stop(&cs[i]), -ESHUTDOWN);
		early += atomic_read(&cs[i].early);
	}
	for (i = 0; i < n; i++)
		once += atomic_read(&items[i].taken) + items[i].removed == 1;
	KUNIT_EXPECT_EQ(test, once, n);
	KUNIT_EXPECT_EQ(test, early, 0U);

	s = dq_stats(q);
	KUNIT_EXPECT_EQ(test, s.put, (u64)n);
	KUNIT_EXPECT_EQ(test, s.taken + s.removed + s.flushed + s.pending + s.ready,
			s.put);
	KUNIT_EXPECT_EQ(test, s.removed, (u64)removed);
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, NULL, NULL), 0U);
}

/*
 * A signal interrupts take() with -ERESTARTSYS and loses nothing: in rounds,
 * a consumer blocked in take() gets SIGUSR1 while an item becomes ready. It
 * ends each round with the item or interrupted; an item it did not take is
 * still there for the test thread.
 * Fails if: take() leaves with -ERESTARTSYS after popping an item (the item
 * is lost: neither side has it), or ignores signals (the round times out).
 */
static void delayq_signal_loses_nothing(struct kunit *test)
{
	const unsigned int rounds = 40;
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, rounds);
	struct tempo_delayq_node *node;
	unsigned int i, took = 0, interrupted = 0, by_us = 0;
	struct dq_consumer *c;

	c = dq_consumers(test, q, 1, 0, true);
	c->stop_on_signal = false;
	for (i = 0; i < rounds; i++) {
		unsigned int before = atomic_read(&c->ntaken) + atomic_read(&c->interrupted);

		dq_expect_waiters(test, q, 1);
		KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[i].node, DQ_MS), 0);
		udelay(get_random_u32() % 2000);
		send_sig(SIGUSR1, c->task, 1);
		KUNIT_ASSERT_TRUE(test, dq_wait_for(atomic_read(&c->ntaken) +
						    atomic_read(&c->interrupted) > before,
						    DQ_LONG_WAIT_MS));
		/* Interrupted: the item is still ours to take (or it took it). */
		if (!atomic_read(&items[i].taken)) {
			node = tempo_delayq_try_take(q);
			if (IS_ERR(node) && !atomic_read(&items[i].taken))
				node = tempo_delayq_take_timeout(q, 50 * DQ_MS);
			/* Maybe an earlier round's item: any is fine, once. */
			if (!IS_ERR(node)) {
				atomic_inc(&dq_item_of(node)->taken);
				by_us++;
			}
		}
	}
	/* Whatever is left, the consumer (still looping) takes. */
	KUNIT_EXPECT_TRUE(test, dq_wait_for(atomic_read(&c->ntaken) + by_us == rounds,
					    DQ_LONG_WAIT_MS));
	tempo_delayq_shutdown(q);
	KUNIT_EXPECT_EQ(test, dq_consumer_stop(c), -ESHUTDOWN);
	took = atomic_read(&c->ntaken);
	interrupted = atomic_read(&c->interrupted);
	kunit_info(test, "consumer took %u, was interrupted %u times; test took %u",
		   took, interrupted, by_us);
	KUNIT_EXPECT_GT(test, interrupted, 0U);
	for (i = 0; i < rounds; i++)
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&items[i].taken), 1,
				    "item %u", i);
	KUNIT_EXPECT_EQ(test, took + by_us, rounds);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->early), 0);
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, NULL, NULL), 0U);
}

/*
 * kthread_stop() of a consumer blocked in take() makes take() return -EINTR;
 * the pending item is unaffected and is taken later.
 * Fails if: take() does not check kthread_should_stop() (kthread_stop()
 * hangs: the case times out).
 */
static void delayq_kthread_stop_interrupts(struct kunit *test)
{
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, 2);
	struct dq_consumer *c = dq_consumers(test, q, 1, 0, false);

	KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[0].node, 60000 * DQ_MS), 0);
	dq_expect_waiters(test, q, 1);
	KUNIT_EXPECT_EQ(test, dq_consumer_stop(c), -EINTR);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->ntaken), 0);
	KUNIT_EXPECT_EQ(test, dq_stats(q).waiters, 0U);
	/* The queue is intact: the pending item is still there, new ones flow. */
	KUNIT_EXPECT_EQ(test, tempo_delayq_size(q), 1U);
	KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[1].node, DQ_MS), 0);
	KUNIT_EXPECT_PTR_EQ(test, tempo_delayq_take_timeout(q, DQ_LONG_WAIT_MS * DQ_MS),
			    &items[1].node);
	KUNIT_EXPECT_TRUE(test, tempo_delayq_remove(q, &items[0].node));
	tempo_delayq_destroy(q, NULL, NULL);
}

/*
 * destroy() hands back every queued item exactly once, in deadline order
 * (due ones first): the release callback frees them and nothing touches
 * them later.
 * Fails if: destroy() hands back only the due items, or the queue's timer
 * fires on a queue already freed (KASAN use-after-free during the final
 * sleep).
 */
static void delayq_destroy_hands_back(struct kunit *test)
{
	static const unsigned int delay_ms[] = { 400, 0, 600, 0, 500 };
	/* Due: 1 then 3 (put order = deadline order); pending: 0, 4, 2. */
	static const unsigned int want[] = { 1, 3, 0, 4, 2 };
	const unsigned int n = ARRAY_SIZE(delay_ms);
	struct tempo_delayq *q = dq_create(test);
	struct dq_release_ctx ctx = {};
	struct dq_item *item;
	unsigned int i;

	for (i = 0; i < n; i++) {
		item = kzalloc(sizeof(*item), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, item);
		tempo_delayq_node_init(&item->node);
		item->id = i;
		KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &item->node,
						       delay_ms[i] * DQ_MS), 0);
	}
	KUNIT_EXPECT_EQ(test, dq_stats(q).ready, 2U);
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, dq_release_free, &ctx), n);
	KUNIT_EXPECT_EQ(test, ctx.n, n);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, ctx.ids[i], want[i], "hand-back %u", i);
	msleep(700);	/* past every deadline: a live timer would hit freed memory */
}

/*
 * destroy() while consumers are asleep in take() (no shutdown first): it
 * wakes them, waits for them to leave with -ESHUTDOWN, hands back the pending
 * items, and frees the queue. KASAN would flag a consumer still touching it.
 * Fails if: destroy() does not wait for sleepers (use-after-free of q).
 */
static void delayq_destroy_with_waiters(struct kunit *test)
{
	const unsigned int nc = 3;
	struct tempo_delayq *q = dq_create(test);
	struct dq_release_ctx ctx = {};
	struct dq_consumer *cs;
	struct dq_item *item;
	unsigned int i;

	item = kzalloc(sizeof(*item), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, item);
	tempo_delayq_node_init(&item->node);
	KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &item->node, 5000 * DQ_MS), 0);

	cs = dq_consumers(test, q, nc, 0, false);
	dq_expect_waiters(test, q, nc);
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, dq_release_free, &ctx), 1U);
	KUNIT_EXPECT_EQ(test, ctx.n, 1U);
	for (i = 0; i < nc; i++) {
		unsigned int ms;

		/*
		 * destroy() waited for the sleepers to leave take(); each
		 * consumer thread then records that a moment later.
		 */
		for (ms = 0; ms < 2000 && !dq_consumer_done(&cs[i]); ms += 10)
			fsleep(10 * USEC_PER_MSEC);
		KUNIT_EXPECT_TRUE(test, dq_consumer_done(&cs[i]));
		KUNIT_EXPECT_EQ(test, dq_consumer_stop(&cs[i]), -ESHUTDOWN);
	}
}

/* --- consume ------------------------------------------------------------- */

/* What a consume callback saw, for the test thread to check. */
struct dq_seen {
	unsigned int		n;		/* calls of the callback */
	struct tempo_delayq_node *node[16];
	ktime_t			due[16];	/* the stamp it was given */
	ktime_t			deadline[16];	/* node->deadline, as shown */
	ktime_t			now[16];	/* the callback's own clock */
	enum tempo_delayq_verdict verdict[16];	/* what to answer; TAKE past them */
};

static enum tempo_delayq_verdict dq_seen_fn(struct tempo_delayq_node *node, ktime_t due,
					    void *arg)
{
	struct dq_seen *s = arg;
	unsigned int i = s->n++;

	if (i >= ARRAY_SIZE(s->node))
		return TEMPO_DELAYQ_STOP;
	s->node[i] = node;
	s->due[i] = due;
	s->deadline[i] = node->deadline;
	s->now[i] = ktime_get();
	return s->verdict[i];
}

/* A consumer kthread that calls consume(TEMPO_DELAYQ_WAIT) in a loop. */
struct dq_cconsumer {
	struct tempo_delayq	*q;
	struct task_struct	*task;
	tempo_delayq_consume_fn	fn;
	void			*arg;
	unsigned int		max;		/* per call */
	unsigned int		calls;		/* calls to make; 0: until an error */
	bool			allow_sig;	/* SIGUSR1 interrupts the wait */
	atomic_t		consumed;	/* sum of what the calls returned */
	atomic_t		made;		/* calls that returned, >= 0 */
	int			last;		/* what the last call returned */
	bool			done;		/* loop ended (release) */
};

static int dq_cconsumer_fn(void *arg)
{
	struct dq_cconsumer *c = arg;
	int ret = 0;

	if (c->allow_sig)
		allow_signal(SIGUSR1);
	while ((!c->calls || atomic_read(&c->made) < c->calls) && !kthread_should_stop()) {
		ret = tempo_delayq_consume(c->q, c->fn, c->arg, c->max, TEMPO_DELAYQ_WAIT);
		WRITE_ONCE(c->last, ret);
		if (ret < 0)
			break;
		atomic_add(ret, &c->consumed);
		atomic_inc(&c->made);
	}
	if (ret == -ERESTARTSYS)
		flush_signals(current);
	smp_store_release(&c->done, true);	/* Pairs with: dq_cconsumer_done() */
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return ret;
}

static bool dq_cconsumer_done(struct dq_cconsumer *c)
{
	return smp_load_acquire(&c->done);	/* Pairs with: dq_cconsumer_fn() */
}

static struct dq_cconsumer *dq_cconsumer_start(struct kunit *test, struct tempo_delayq *q,
					       tempo_delayq_consume_fn fn, void *arg,
					       unsigned int max, unsigned int calls)
{
	struct dq_cconsumer *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->q = q;
	c->fn = fn;
	c->arg = arg;
	c->max = max;
	c->calls = calls;
	c->task = kthread_create(dq_cconsumer_fn, c, "dq_ccons");
	KUNIT_ASSERT_FALSE(test, IS_ERR(c->task));
	get_task_struct(c->task);
	return c;
}

static void dq_cconsumer_run(struct dq_cconsumer *c)
{
	wake_up_process(c->task);
}

static int dq_cconsumer_stop(struct dq_cconsumer *c)
{
	int ret = kthread_stop(c->task);

	put_task_struct(c->task);
	c->task = NULL;
	return ret;
}

/*
 * consume() shows the takeable items in the order take() takes them
 * (ready items: by deadline, ties in put order), takes at most @max per
 * call and returns how many it took; a try_take() between two calls gets
 * the next one in that order.
 * Fails if: consume() ignores @max (the first call takes 6), or walks the
 * ready list in another order.
 */
static void delayq_consume_in_take_order(struct kunit *test)
{
	static const int ago_ms[] = { 3, 9, 1, 7, 7, 2, 8, 5, 9, 4, 6, 0 };
	const unsigned int n = ARRAY_SIZE(ago_ms);
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, n);
	struct dq_seen *seen = kunit_kzalloc(test, sizeof(*seen), GFP_KERNEL);
	ktime_t base = ktime_sub_ns(ktime_get(), 10 * DQ_MS);
	struct tempo_delayq_node *node, *order[ARRAY_SIZE(ago_ms)];
	unsigned int i, j, k = 0;

	KUNIT_ASSERT_NOT_NULL(test, seen);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, tempo_delayq_put_at(q, &items[i].node,
							  ktime_sub_ms(base, ago_ms[i])), 0);
	/* take()'s order: by deadline, ties in put order (a stable insertion sort). */
	for (i = 0; i < n; i++) {
		for (j = i; j > 0 && ago_ms[dq_item_of(order[j - 1])->id] < ago_ms[i]; j--)
			order[j] = order[j - 1];
		order[j] = &items[i].node;
	}

	KUNIT_EXPECT_EQ(test, tempo_delayq_consume(q, dq_seen_fn, seen, 5, 0), 5);
	KUNIT_ASSERT_EQ(test, seen->n, 5U);
	node = tempo_delayq_try_take(q);
	KUNIT_ASSERT_FALSE(test, IS_ERR(node));
	KUNIT_EXPECT_EQ(test, tempo_delayq_consume(q, dq_seen_fn, seen, 100, 0), 6);
	KUNIT_ASSERT_EQ(test, seen->n, 11U);
	for (i = 0; i < n; i++) {
		struct tempo_delayq_node *got = i == 5 ? node : seen->node[k++];

		KUNIT_EXPECT_PTR_EQ_MSG(test, got, order[i], "position %u: item %u, not item %u",
					i, dq_item_of(got)->id, dq_item_of(order[i])->id);
	}
	KUNIT_EXPECT_EQ(test, tempo_delayq_consume(q, dq_seen_fn, seen, 100, 0), -EAGAIN);
	KUNIT_EXPECT_EQ(test, seen->n, 11U);
	KUNIT_EXPECT_EQ(test, dq_stats(q).taken, (u64)n);
	KUNIT_EXPECT_EQ(test, tempo_delayq_size(q), 0U);
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, NULL, NULL), 0U);
}

/*
 * The due stamp consume() gives is never before the item's deadline and
 * never after the callback's own clock: for items put already due (put()
 * of 0, put_at() of a past time: put's reading), a near item and a far one
 * (put 400 ticks ahead: the waker comes in stages), both found due by a
 * reading the waker takes after the deadline.
 * Fails if: the stamp is not a reading that found the item due (the
 * deadline itself, or a reading before it).
 */
static void delayq_consume_due_stamps(struct kunit *test)
{
	enum { PUT_NOW, PUT_PAST, NEAR, FAR, NR };
	static const char * const what[NR] = { "put(0)", "put_at(past)", "near", "far" };
	const u64 tick = tempo_timer_tick_ns();
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, NR);
	struct dq_seen *seen = kunit_kzalloc(test, sizeof(*seen), GFP_KERNEL);
	unsigned int i;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, seen);
	KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[FAR].node, 400 * tick), 0);
	KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[NEAR].node, 20 * DQ_MS), 0);
	KUNIT_EXPECT_EQ(test, tempo_delayq_put_at(q, &items[PUT_PAST].node,
						  ktime_sub_ms(ktime_get(), 5)), 0);
	KUNIT_EXPECT_EQ(test, tempo_delayq_put(q, &items[PUT_NOW].node, 0), 0);
	/* No ASSERT from here: the far item's timer must not outlive the case. */
	while (seen->n < NR) {
		ret = tempo_delayq_consume(q, dq_seen_fn, seen, NR, TEMPO_DELAYQ_WAIT);
		if (ret <= 0) {
			KUNIT_FAIL(test, "consume(WAIT) returned %d", ret);
			break;
		}
	}
	KUNIT_EXPECT_EQ(test, seen->n, (unsigned int)NR);
	for (i = 0; i < min_t(unsigned int, seen->n, NR); i++) {
		unsigned int id = dq_item_of(seen->node[i])->id;

		KUNIT_EXPECT_FALSE_MSG(test, ktime_before(seen->due[i], seen->deadline[i]),
				       "%s: due %lld ns before its deadline", what[id],
				       ktime_to_ns(ktime_sub(seen->deadline[i], seen->due[i])));
		KUNIT_EXPECT_FALSE_MSG(test, ktime_after(seen->due[i], seen->now[i]),
				       "%s: due %lld ns after the callback's clock", what[id],
				       ktime_to_ns(ktime_sub(seen->due[i], seen->now[i])));
		/* A reading the waker took after the deadline, not the deadline. */
		if (id == NEAR || id == FAR)
			KUNIT_EXPECT_TRUE_MSG(test, ktime_after(seen->due[i], seen->deadline[i]),
					      "%s: stamped with its deadline", what[id]);
	}
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, dq_release_record,
						   &(struct dq_release_ctx){}), 0U);
}

/* A periodic item for consume(): AGAIN for @laps laps, then TAKE. */
struct dq_pitem {
	struct tempo_delayq_node node;
	unsigned int	id;
	unsigned int	laps;		/* AGAIN verdicts given (under the queue's lock) */
	unsigned int	want_laps;
	unsigned int	period_ms;
	atomic_t	taken;
	bool		removed;	/* remove() returned true for it */
};

struct dq_pctx {
	atomic_t	shown;
	atomic_t	again;
	atomic_t	take;
	atomic_t	early;		/* shown before its deadline, by stamp or clock */
	atomic_t	stamp_late;	/* stamp after the callback's clock */
	atomic_t	after_removal;	/* shown after remove() returned true */
	atomic_t	stopped;	/* STOP verdicts (dq_pctx.stop_every) */
	unsigned int	stop_every;	/* answer STOP to every Nth showing; 0: never */
};

static enum tempo_delayq_verdict dq_periodic_fn(struct tempo_delayq_node *node, ktime_t due,
						void *arg)
{
	struct dq_pitem *it = container_of(node, struct dq_pitem, node);
	struct dq_pctx *cx = arg;
	ktime_t now = ktime_get();
	int shown = atomic_inc_return(&cx->shown);

	if (ktime_before(due, node->deadline) || ktime_before(now, node->deadline))
		atomic_inc(&cx->early);
	if (ktime_after(due, now))
		atomic_inc(&cx->stamp_late);
	if (READ_ONCE(it->removed))
		atomic_inc(&cx->after_removal);
	if (cx->stop_every && shown % cx->stop_every == 0) {
		atomic_inc(&cx->stopped);
		return TEMPO_DELAYQ_STOP;
	}
	if (it->laps < it->want_laps) {
		it->laps++;
		node->deadline = ktime_add_ms(node->deadline, it->period_ms);
		atomic_inc(&cx->again);
		return TEMPO_DELAYQ_AGAIN;
	}
	atomic_inc(&it->taken);
	atomic_inc(&cx->take);
	return TEMPO_DELAYQ_TAKE;
}

static struct dq_pitem *dq_pitems(struct kunit *test, unsigned int n)
{
	struct dq_pitem *items = kunit_kcalloc(test, n, sizeof(*items), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, items);
	for (i = 0; i < n; i++) {
		tempo_delayq_node_init(&items[i].node);
		items[i].id = i;
	}
	return items;
}

/*
 * AGAIN keeps the item queued for the deadline the callback moved: the
 * size stays 1 between laps, the item is not takeable before its new
 * deadline, and each lap is shown at or after that deadline with a stamp
 * that is neither early nor after the callback's clock. Three laps of
 * 100 ms, then TAKE: counted as one put, three requeued, four expired, one
 * taken.
 * Fails if: AGAIN links the item again by the deadline it was shown for
 * (takeable at once: shown early), or drops it from the queue.
 */
static void delayq_consume_again_not_early(struct kunit *test)
{
	struct tempo_delayq *q = dq_create(test);
	struct dq_pitem *it = dq_pitems(test, 1);
	struct dq_pctx cx = {};
	struct tempo_delayq_node *node;
	struct tempo_delayq_stats s;
	unsigned int lap;
	ktime_t prev;

	it->want_laps = 3;
	it->period_ms = 100;
	KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &it->node, 10 * DQ_MS), 0);
	for (lap = 0; lap < 3; lap++) {
		prev = it->node.deadline;
		KUNIT_ASSERT_EQ(test, tempo_delayq_consume(q, dq_periodic_fn, &cx, 1,
							   TEMPO_DELAYQ_WAIT), 1);
		KUNIT_EXPECT_EQ(test, it->laps, lap + 1);
		KUNIT_EXPECT_EQ(test, it->node.deadline, ktime_add_ms(prev, 100));
		KUNIT_EXPECT_EQ(test, tempo_delayq_size(q), 1U);
		node = tempo_delayq_try_take(q);
		if (!IS_ERR(node)) {
			bool early = ktime_before(ktime_get(), node->deadline);

			tempo_delayq_destroy(q, NULL, NULL);
			KUNIT_ASSERT_FALSE_MSG(test, early, "lap %u: taken before its new deadline",
					       lap);
			/* Not early: the guest stalled 100 ms since the AGAIN. */
			kunit_skip(test, "the guest stalled past lap %u's deadline", lap);
		}
		KUNIT_EXPECT_EQ(test, PTR_ERR(node), -EAGAIN);
	}
	KUNIT_ASSERT_EQ(test, tempo_delayq_consume(q, dq_periodic_fn, &cx, 1,
						   TEMPO_DELAYQ_WAIT), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&it->taken), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&cx.early), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&cx.stamp_late), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&cx.shown), 4);
	s = dq_stats(q);
	KUNIT_EXPECT_EQ(test, s.put, 1ULL);
	KUNIT_EXPECT_EQ(test, s.requeued, 3ULL);
	KUNIT_EXPECT_EQ(test, s.expired, 4ULL);
	KUNIT_EXPECT_EQ(test, s.taken, 1ULL);
	KUNIT_EXPECT_EQ(test, s.taken + s.removed + s.flushed + s.pending + s.ready, s.put);
	KUNIT_EXPECT_EQ(test, tempo_delayq_size(q), 0U);
	tempo_delayq_destroy(q, NULL, NULL);
}

/*
 * An item consume() answered AGAIN can be removed between laps, whether
 * its next deadline is 30 ms or 400 ticks on (a waker in stages): it is
 * still queued, remove() finds it, and it never turns up again.
 * Fails if: AGAIN leaves the item unlinked, or linked without its state
 * (remove() says false, or the size is wrong).
 */
static void delayq_consume_again_then_remove(struct kunit *test)
{
	const u64 tick = tempo_timer_tick_ns();
	struct tempo_delayq *q = dq_create(test);
	struct dq_pitem *items = dq_pitems(test, 2);
	struct dq_pctx cx = {};
	struct tempo_delayq_stats s;
	unsigned int i;

	items[0].want_laps = 5;
	items[0].period_ms = 30;				/* near */
	items[1].want_laps = 5;
	items[1].period_ms = div64_u64(400 * tick, DQ_MS) + 1;	/* far */
	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[i].node, 0), 0);
	/* No ASSERT from here: the far item's timer must not outlive the case. */
	KUNIT_EXPECT_EQ(test, tempo_delayq_consume(q, dq_periodic_fn, &cx, 2, 0), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&cx.again), 2);
	KUNIT_EXPECT_EQ(test, tempo_delayq_size(q), 2U);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_TRUE_MSG(test, tempo_delayq_remove(q, &items[i].node),
				      "item %u (%u ms period) not found queued", i,
				      items[i].period_ms);
		WRITE_ONCE(items[i].removed, true);
	}
	KUNIT_EXPECT_EQ(test, tempo_delayq_size(q), 0U);
	/* Past the near item's next deadline: nothing comes. */
	msleep(60);
	KUNIT_EXPECT_EQ(test, tempo_delayq_consume(q, dq_periodic_fn, &cx, 2, 0), -EAGAIN);
	KUNIT_EXPECT_EQ(test, atomic_read(&cx.after_removal), 0);
	s = dq_stats(q);
	KUNIT_EXPECT_EQ(test, s.put, 2ULL);
	KUNIT_EXPECT_EQ(test, s.requeued, 2ULL);
	KUNIT_EXPECT_EQ(test, s.removed, 2ULL);
	KUNIT_EXPECT_EQ(test, s.taken + s.removed + s.flushed + s.pending + s.ready, s.put);
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, dq_release_record,
						   &(struct dq_release_ctx){}), 0U);
}

/*
 * STOP leaves the item where it was, still takeable, and ends the call:
 * STOP on the first item returns 0 (with TEMPO_DELAYQ_WAIT too, without
 * sleeping), TAKE then STOP returns 1, and try_take() then gets the item
 * the callback stopped at.
 * Fails if: STOP unlinks the item or counts it.
 */
static void delayq_consume_stop_leaves_item(struct kunit *test)
{
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, 3);
	struct dq_seen *seen = kunit_kzalloc(test, sizeof(*seen), GFP_KERNEL);
	ktime_t base = ktime_sub_ms(ktime_get(), 10);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, seen);
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, tempo_delayq_put_at(q, &items[i].node,
							  ktime_add_ms(base, i)), 0);
	seen->verdict[0] = TEMPO_DELAYQ_STOP;
	seen->verdict[1] = TEMPO_DELAYQ_STOP;
	KUNIT_EXPECT_EQ(test, tempo_delayq_consume(q, dq_seen_fn, seen, 3, 0), 0);
	KUNIT_EXPECT_EQ(test, tempo_delayq_consume(q, dq_seen_fn, seen, 3, TEMPO_DELAYQ_WAIT), 0);
	KUNIT_EXPECT_EQ(test, seen->n, 2U);
	KUNIT_EXPECT_PTR_EQ(test, seen->node[1], &items[0].node);
	KUNIT_EXPECT_EQ(test, tempo_delayq_size(q), 3U);

	seen->verdict[2] = TEMPO_DELAYQ_TAKE;
	seen->verdict[3] = TEMPO_DELAYQ_STOP;
	KUNIT_EXPECT_EQ(test, tempo_delayq_consume(q, dq_seen_fn, seen, 3, 0), 1);
	KUNIT_EXPECT_EQ(test, seen->n, 4U);
	KUNIT_EXPECT_PTR_EQ(test, seen->node[2], &items[0].node);
	KUNIT_EXPECT_PTR_EQ(test, seen->node[3], &items[1].node);
	KUNIT_EXPECT_EQ(test, tempo_delayq_size(q), 2U);
	KUNIT_EXPECT_PTR_EQ(test, tempo_delayq_try_take(q), &items[1].node);
	KUNIT_EXPECT_EQ(test, dq_stats(q).taken, 2ULL);
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, dq_release_record,
						   &(struct dq_release_ctx){}), 1U);
}

/*
 * dq_seen_fn(), but an AGAIN moves the item DQ_RUN_MS on, as a periodic one:
 * far enough that it is not due again before the case ends, whatever the
 * host's load.
 */
#define DQ_RUN_MS	10000

static enum tempo_delayq_verdict dq_run_fn(struct tempo_delayq_node *node, ktime_t due,
					   void *arg)
{
	enum tempo_delayq_verdict v = dq_seen_fn(node, due, arg);

	if (v == TEMPO_DELAYQ_AGAIN)
		node->deadline = ktime_add_ms(node->deadline, DQ_RUN_MS);
	return v;
}

/*
 * consume() over due items of equal deadlines: six items of one deadline
 * and two of a later one, two ticks on, all due. The first call's verdicts
 * are TAKE, TAKE, AGAIN, TAKE, STOP: it must show them in put order, apply
 * each (the AGAIN item pending again, the STOP item still takeable), and
 * leave the counts as if each had been taken alone; a call whose @max ends
 * inside the first six stops there; the next goes on into the later two.
 * Fails if: the counts are off (ready, pending or size count the taken
 * items), or a call goes past a STOP or past @max.
 */
static void delayq_consume_tick_run(struct kunit *test)
{
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, 8);
	struct dq_seen *seen = kunit_kzalloc(test, sizeof(*seen), GFP_KERNEL);
	u64 tick = tempo_timer_tick_ns();
	/*
	 * Far enough that every put lands before the first deadline even on a
	 * slow (KCSAN) kernel.
	 */
	ktime_t first = ktime_add_ns(ktime_get(), 40 * tick), later = ktime_add_ns(first, 2 * tick);
	struct tempo_delayq_stats st;
	ktime_t deadline;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, seen);
	for (i = 0; i < 8; i++)
		KUNIT_ASSERT_EQ(test, tempo_delayq_put_at(q, &items[i].node,
							  i < 6 ? first : later), 0);
	KUNIT_ASSERT_TRUE(test, ktime_before(ktime_get(), first));
	/* Both ticks due (a take() would find an item by now, and the later tick too). */
	KUNIT_ASSERT_TRUE(test, dq_wait_for(ktime_after(ktime_get(),
							ktime_add_ns(later, 2 * tick)), 1000));
	KUNIT_ASSERT_TRUE(test, tempo_delayq_ready(q));

	seen->verdict[2] = TEMPO_DELAYQ_AGAIN;
	seen->verdict[4] = TEMPO_DELAYQ_STOP;
	KUNIT_EXPECT_EQ(test, tempo_delayq_consume(q, dq_run_fn, seen, 16, 0), 4);
	KUNIT_ASSERT_EQ(test, seen->n, 5U);
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_PTR_EQ(test, seen->node[i], &items[i].node);
	st = dq_stats(q);
	KUNIT_EXPECT_EQ(test, st.taken, 3ULL);
	KUNIT_EXPECT_EQ(test, st.requeued, 1ULL);
	KUNIT_EXPECT_EQ(test, st.ready, 4U);	/* items 4..7 */
	KUNIT_EXPECT_EQ(test, st.pending, 1U);	/* item 2, DQ_RUN_MS on */
	KUNIT_EXPECT_EQ(test, tempo_delayq_size(q), 5U);
	KUNIT_EXPECT_EQ(test, tempo_delayq_query(q, &items[2].node, &deadline),
			TEMPO_DELAYQ_PENDING);
	KUNIT_EXPECT_EQ(test, tempo_delayq_query(q, &items[4].node, &deadline),
			TEMPO_DELAYQ_TAKEABLE);

	/* @max ends the run inside the first tick... */
	KUNIT_EXPECT_EQ(test, tempo_delayq_consume(q, dq_run_fn, seen, 1, 0), 1);
	KUNIT_EXPECT_PTR_EQ(test, seen->node[5], &items[4].node);
	/* ...and the next call finishes it and goes on into the later tick. */
	KUNIT_EXPECT_EQ(test, tempo_delayq_consume(q, dq_run_fn, seen, 16, 0), 3);
	KUNIT_ASSERT_EQ(test, seen->n, 9U);
	for (i = 6; i < 9; i++)
		KUNIT_EXPECT_PTR_EQ(test, seen->node[i], &items[i - 1].node);
	st = dq_stats(q);
	KUNIT_EXPECT_EQ(test, st.taken, 7ULL);
	KUNIT_EXPECT_EQ(test, st.ready, 0U);
	KUNIT_EXPECT_EQ(test, st.pending, 1U);
	KUNIT_EXPECT_EQ(test, tempo_delayq_size(q), 1U);
	KUNIT_EXPECT_EQ(test, tempo_delayq_consume(q, dq_run_fn, seen, 16, 0), -EAGAIN);
	KUNIT_EXPECT_TRUE(test, tempo_delayq_peek(q, &deadline));
	KUNIT_EXPECT_EQ(test, deadline, ktime_add_ms(first, DQ_RUN_MS));
	KUNIT_EXPECT_TRUE(test, tempo_delayq_remove(q, &items[2].node));
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, NULL, NULL), 0U);
}

/*
 * A consumer woken for an item that answers STOP passes its wake-up on:
 * consumer A sleeps in consume(TEMPO_DELAYQ_WAIT) with a callback that
 * answers STOP, then consumer B sleeps in take(); an item put due wakes A
 * (first in line), A leaves with 0, and B must be woken to take the item.
 * Fails if: a consumer that leaves an item due does not wake the next
 * (delayq_notify() at the end of its pass): B sleeps on while the item
 * waits.
 */
static void delayq_consume_stop_passes_wakeup(struct kunit *test)
{
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, 1);
	struct dq_seen *seen = kunit_kzalloc(test, sizeof(*seen), GFP_KERNEL);
	struct dq_cconsumer *a;
	struct dq_consumer *b;

	KUNIT_ASSERT_NOT_NULL(test, seen);
	seen->verdict[0] = TEMPO_DELAYQ_STOP;
	a = dq_cconsumer_start(test, q, dq_seen_fn, seen, 1, 1);
	dq_cconsumer_run(a);
	dq_expect_waiters(test, q, 1);
	b = dq_consumers(test, q, 1, 1, false);
	dq_expect_waiters(test, q, 2);

	KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[0].node, 0), 0);
	KUNIT_EXPECT_TRUE_MSG(test, dq_wait_for(dq_cconsumer_done(a), DQ_LONG_WAIT_MS),
			      "the first sleeper was not woken");
	KUNIT_EXPECT_EQ(test, READ_ONCE(a->last), 0);
	KUNIT_EXPECT_EQ(test, seen->n, 1U);
	KUNIT_EXPECT_TRUE_MSG(test, dq_wait_for(dq_consumers_taken(b, 1) == 1, 5000),
			      "the item waited 5 s with a consumer asleep in take()");
	KUNIT_EXPECT_EQ(test, atomic_read(&items[0].taken), 1);
	tempo_delayq_shutdown(q);
	dq_consumer_stop(b);
	dq_cconsumer_stop(a);
	tempo_delayq_destroy(q, dq_release_record, &(struct dq_release_ctx){});
}

/*
 * consume(TEMPO_DELAYQ_WAIT) on an empty queue sleeps until an item is
 * takeable, then consumes it in the critical section that found it, not
 * before its deadline.
 * Fails if: WAIT is ignored (-EAGAIN at once) or the sleeper is not woken.
 */
static void delayq_consume_wait_until_due(struct kunit *test)
{
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, 1);
	struct dq_seen *seen = kunit_kzalloc(test, sizeof(*seen), GFP_KERNEL);
	struct dq_cconsumer *c;

	KUNIT_ASSERT_NOT_NULL(test, seen);
	c = dq_cconsumer_start(test, q, dq_seen_fn, seen, 8, 1);
	dq_cconsumer_run(c);
	dq_expect_waiters(test, q, 1);
	KUNIT_EXPECT_FALSE(test, dq_cconsumer_done(c));
	KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[0].node, 30 * DQ_MS), 0);
	KUNIT_ASSERT_TRUE(test, dq_wait_for(dq_cconsumer_done(c), DQ_LONG_WAIT_MS));
	KUNIT_EXPECT_EQ(test, READ_ONCE(c->last), 1);
	KUNIT_EXPECT_EQ(test, seen->n, 1U);
	KUNIT_EXPECT_FALSE(test, ktime_before(seen->now[0], items[0].node.deadline));
	KUNIT_EXPECT_EQ(test, dq_stats(q).wakeups, 1ULL);
	dq_cconsumer_stop(c);
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, NULL, NULL), 0U);
}

/*
 * consume(TEMPO_DELAYQ_WAIT) sleeps interruptibly, as take() does: a
 * signal ends it with -ERESTARTSYS, kthread_stop() with -EINTR, shutdown
 * with -ESHUTDOWN; a pending item is not lost.
 * Fails if: the wait ignores signals or kthread_stop() (the case hangs), or
 * an interrupted consume() takes the item.
 */
static void delayq_consume_wait_interrupted(struct kunit *test)
{
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, 1);
	struct dq_seen *seen = kunit_kzalloc(test, sizeof(*seen), GFP_KERNEL);
	struct dq_cconsumer *c[3];
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, seen);
	KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[0].node, 60000 * DQ_MS), 0);
	for (i = 0; i < 3; i++) {
		c[i] = dq_cconsumer_start(test, q, dq_seen_fn, seen, 1, 0);
		c[i]->allow_sig = true;
		dq_cconsumer_run(c[i]);
	}
	dq_expect_waiters(test, q, 3);

	send_sig(SIGUSR1, c[0]->task, 1);
	KUNIT_EXPECT_TRUE(test, dq_wait_for(dq_cconsumer_done(c[0]), DQ_LONG_WAIT_MS));
	KUNIT_EXPECT_EQ(test, READ_ONCE(c[0]->last), -ERESTARTSYS);
	KUNIT_EXPECT_EQ(test, dq_cconsumer_stop(c[0]), -ERESTARTSYS);

	KUNIT_EXPECT_EQ(test, dq_cconsumer_stop(c[1]), -EINTR);
	KUNIT_EXPECT_EQ(test, dq_stats(q).waiters, 1U);

	tempo_delayq_shutdown(q);
	KUNIT_EXPECT_TRUE(test, dq_wait_for(dq_cconsumer_done(c[2]), DQ_LONG_WAIT_MS));
	KUNIT_EXPECT_EQ(test, dq_cconsumer_stop(c[2]), -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, seen->n, 0U);
	KUNIT_EXPECT_EQ(test, tempo_delayq_size(q), 1U);
	KUNIT_EXPECT_TRUE(test, tempo_delayq_remove(q, &items[0].node));
	tempo_delayq_destroy(q, NULL, NULL);
}

/*
 * consume()'s refusals: -EAGAIN with nothing takeable (empty, or pending
 * only), -EINVAL for an unknown flag, 0 for @max 0, -ESHUTDOWN once shut
 * down (with or without TEMPO_DELAYQ_WAIT, items queued or not); the
 * callback is never called.
 * Fails if: consume() of a shut-down queue still consumes, or WAIT with
 * nothing takeable and no sleep allowed returns anything but a sleep.
 */
static void delayq_consume_refusals(struct kunit *test)
{
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, 2);
	struct dq_seen *seen = kunit_kzalloc(test, sizeof(*seen), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, seen);
	KUNIT_EXPECT_EQ(test, tempo_delayq_consume(q, dq_seen_fn, seen, 4, 0), -EAGAIN);
	KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[0].node, 60000 * DQ_MS), 0);
	KUNIT_EXPECT_EQ(test, tempo_delayq_consume(q, dq_seen_fn, seen, 4, 0), -EAGAIN);
	KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[1].node, 0), 0);
	KUNIT_EXPECT_EQ(test, tempo_delayq_consume(q, dq_seen_fn, seen, 4, BIT(7)), -EINVAL);
	KUNIT_EXPECT_EQ(test, tempo_delayq_consume(q, dq_seen_fn, seen, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, tempo_delayq_consume(q, dq_seen_fn, seen, 0, TEMPO_DELAYQ_WAIT),
			0);
	tempo_delayq_shutdown(q);
	KUNIT_EXPECT_EQ(test, tempo_delayq_consume(q, dq_seen_fn, seen, 4, 0), -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, tempo_delayq_consume(q, dq_seen_fn, seen, 4, TEMPO_DELAYQ_WAIT),
			-ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, seen->n, 0U);
	KUNIT_EXPECT_EQ(test, tempo_delayq_size(q), 2U);
	KUNIT_EXPECT_TRUE(test, tempo_delayq_remove(q, &items[0].node));
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, dq_release_record,
						   &(struct dq_release_ctx){}), 1U);
}

/*
 * Several consumers in consume(TEMPO_DELAYQ_WAIT), with batches of 1 to 7,
 * take periodic items (each AGAIN for 0 to 3 laps of 4 to 12 ms, then
 * TAKE; every 7th showing is answered STOP) while the test thread removes
 * items at random, mostly between laps. Every item ends taken exactly once
 * or removed exactly once (taken + removed = put), a taken one after all
 * its laps; none is shown before its deadline, with an early stamp, or
 * after its removal; the queue's counters agree (requeued = the AGAIN
 * verdicts).
 * Fails if: a consumed node is not marked TAKEN (a later remove() claims it
 * too), or AGAIN loses or duplicates a node.
 */
static void delayq_consume_conservation(struct kunit *test)
{
	const unsigned int n = 240, nc = 3;
	struct tempo_delayq *q = dq_create(test);
	struct dq_pitem *items = dq_pitems(test, n);
	struct dq_pctx *cx = kunit_kzalloc(test, sizeof(*cx), GFP_KERNEL);
	struct dq_cconsumer *cs[3];
	unsigned int i, removed = 0, taken = 0, once = 0, laps_ok = 0;
	unsigned long end = jiffies + msecs_to_jiffies(DQ_LONG_WAIT_MS);
	struct tempo_delayq_stats s;

	KUNIT_ASSERT_NOT_NULL(test, cx);
	cx->stop_every = 7;
	for (i = 0; i < nc; i++) {
		cs[i] = dq_cconsumer_start(test, q, dq_periodic_fn, cx, 1 + 3 * i, 0);
		dq_cconsumer_run(cs[i]);
	}
	dq_expect_waiters(test, q, nc);
	for (i = 0; i < n; i++) {
		items[i].want_laps = get_random_u32() % 4;
		items[i].period_ms = 4 + get_random_u32() % 9;
		KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[i].node,
						       (get_random_u32() % 16) * DQ_MS), 0);
		/* A recent item: most likely between two laps. */
		if (i >= 8 && get_random_u32() % 4 == 0 &&
		    tempo_delayq_remove(q, &items[i - 8].node)) {
			WRITE_ONCE(items[i - 8].removed, true);
			removed++;
		}
		if (i % 16 == 0)
			usleep_range(500, 1500);
	}
	/* Until every item is accounted for. */
	while (atomic_read(&cx->take) + removed < n && time_before(jiffies, end))
		usleep_range(1000, 2000);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&cx->take) + removed, n,
			    "taken + removed is not put (waited up to %u s)",
			    DQ_LONG_WAIT_MS / 1000);
	tempo_delayq_shutdown(q);
	/*
	 * Each consumer ends its loop on consume()'s -ESHUTDOWN; stopped
	 * before that, one still handling a batch would end on the stop.
	 */
	for (i = 0; i < nc; i++) {
		KUNIT_EXPECT_TRUE(test, dq_wait_for(dq_cconsumer_done(cs[i]), DQ_LONG_WAIT_MS));
		KUNIT_EXPECT_EQ(test, dq_cconsumer_stop(cs[i]), -ESHUTDOWN);
	}
	for (i = 0; i < n; i++) {
		int t = atomic_read(&items[i].taken);

		once += t + items[i].removed == 1;
		taken += t;
		laps_ok += !t || items[i].laps == items[i].want_laps;
	}
	kunit_info(test, "%u taken, %u removed, %d laps, %d showings, %d stops", taken,
		   removed, atomic_read(&cx->again), atomic_read(&cx->shown),
		   atomic_read(&cx->stopped));
	KUNIT_EXPECT_EQ(test, once, n);
	KUNIT_EXPECT_EQ(test, laps_ok, n);
	KUNIT_EXPECT_EQ(test, atomic_read(&cx->early), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&cx->stamp_late), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&cx->after_removal), 0);
	s = dq_stats(q);
	KUNIT_EXPECT_EQ(test, s.put, (u64)n);
	KUNIT_EXPECT_EQ(test, s.taken, (u64)taken);
	KUNIT_EXPECT_EQ(test, s.removed, (u64)removed);
	KUNIT_EXPECT_EQ(test, s.requeued, (u64)atomic_read(&cx->again));
	KUNIT_EXPECT_EQ(test, s.taken + s.removed + s.flushed + s.pending + s.ready, s.put);
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, NULL, NULL), 0U);
}

/*
 * Items that are not timers, as a file interface queues them: records put
 * due (delay 0) from one thread leave in put order, and a report put at
 * time 0 leaves before every item already takeable. A second put of the
 * report while it is queued is refused (EBUSY): the queued one stands for
 * both; once taken, it can be put again.
 * Fails if: the tree is not kept in deadline order (the report comes last),
 * or equal deadlines lose their put order.
 */
static void delayq_due_items_and_report(struct kunit *test)
{
	const unsigned int n = 12;
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, n + 1);
	struct dq_item *report = &items[n];
	struct dq_seen *seen = kunit_kzalloc(test, sizeof(*seen), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, seen);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[i].node, 0), 0);
	KUNIT_ASSERT_EQ(test, tempo_delayq_put_at(q, &report->node, 0), 0);
	KUNIT_EXPECT_EQ(test, tempo_delayq_put_at(q, &report->node, 0), -EBUSY);
	KUNIT_EXPECT_EQ(test, tempo_delayq_consume(q, dq_seen_fn, seen, n + 1, 0), (int)n + 1);
	KUNIT_ASSERT_EQ(test, seen->n, n + 1);
	KUNIT_EXPECT_PTR_EQ_MSG(test, seen->node[0], &report->node,
				"the report is item %u", dq_item_of(seen->node[0])->id);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_PTR_EQ_MSG(test, seen->node[i + 1], &items[i].node,
					"position %u: item %u", i + 1,
					dq_item_of(seen->node[i + 1])->id);
	KUNIT_EXPECT_EQ(test, tempo_delayq_put_at(q, &report->node, 0), 0);
	KUNIT_EXPECT_PTR_EQ(test, tempo_delayq_try_take(q), &report->node);
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, NULL, NULL), 0U);
}

struct dq_poller {
	struct wait_queue_entry	wait;
	unsigned int		woken;
	__poll_t		key;
};

static int dq_poller_wake(struct wait_queue_entry *wait, unsigned int mode, int sync,
			  void *key)
{
	struct dq_poller *p = container_of(wait, struct dq_poller, wait);

	p->woken++;
	p->key = key_to_poll(key);
	return 1;
}

/*
 * A wake-up of the pollers' wait queue with an event of the caller's reaches
 * the poller and not a consumer asleep in take(): with one of each, an
 * EPOLLOUT wake-up reaches the poller (key EPOLLOUT) while the consumer
 * sleeps on (no wake-up counted), and an item put due later still wakes the
 * consumer, and the poller with EPOLLIN.
 * Fails if: consumers sleep on the pollers' wait queue (the consumer is
 * woken by EPOLLOUT, and the stats count a wake-up).
 */
static void delayq_watch_wakeup_spares_consumers(struct kunit *test)
{
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, 1);
	struct dq_poller *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct dq_consumer *c;

	KUNIT_ASSERT_NOT_NULL(test, p);
	init_waitqueue_func_entry(&p->wait, dq_poller_wake);
	add_wait_queue(tempo_delayq_waitqueue(q), &p->wait);
	c = dq_consumers(test, q, 1, 1, false);
	dq_expect_waiters(test, q, 1);

	wake_up_poll(tempo_delayq_waitqueue(q), EPOLLOUT | EPOLLWRNORM);
	msleep(20);
	KUNIT_EXPECT_EQ(test, p->woken, 1U);
	KUNIT_EXPECT_EQ(test, (__force u32)p->key,
			(__force u32)(EPOLLOUT | EPOLLWRNORM));
	KUNIT_EXPECT_EQ(test, dq_stats(q).wakeups, 0ULL);
	KUNIT_EXPECT_EQ(test, dq_stats(q).waiters, 1U);

	KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[0].node, 0), 0);
	KUNIT_EXPECT_TRUE(test, dq_wait_for(dq_consumers_taken(c, 1) == 1, DQ_LONG_WAIT_MS));
	KUNIT_EXPECT_EQ(test, dq_stats(q).wakeups, 1ULL);
	KUNIT_EXPECT_TRUE(test, p->key & EPOLLIN);
	remove_wait_queue(tempo_delayq_waitqueue(q), &p->wait);
	tempo_delayq_shutdown(q);
	dq_consumer_stop(c);
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, NULL, NULL), 0U);
}

/*
 * move() puts, moves and takes out an item as put_at(), requeue() and
 * remove() would, counted as they count, and wakes nobody: an item moved
 * from an hour ahead to due leaves the consumer asleep in take() and the
 * poller unwoken until announce(), which wakes the consumer and gives the
 * poller one EPOLLIN; a move that makes nothing due asks for no announce.
 * Fails if: move() ends its critical section as a put does (the consumer
 * takes the item, or the poller is woken, before the announce).
 */
static void delayq_move_wakes_nobody(struct kunit *test)
{
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, 2);
	struct dq_poller *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	ktime_t far = ktime_add_ns(ktime_get(), 3600ULL * NSEC_PER_SEC);
	struct tempo_delayq_stats s;
	struct dq_consumer *c;
	bool announce = true;

	KUNIT_ASSERT_NOT_NULL(test, p);
	init_waitqueue_func_entry(&p->wait, dq_poller_wake);
	add_wait_queue(tempo_delayq_waitqueue(q), &p->wait);
	c = dq_consumers(test, q, 1, 1, false);
	KUNIT_ASSERT_TRUE_MSG(test,
			      dq_wait_for(dq_waiters_are(q, 1) && !task_is_running(c[0].task),
					  DQ_LONG_WAIT_MS),
			      "the consumer never went to sleep");
	msleep(20);	/* past schedule() */

	/* Not queued: a put, an hour ahead. Nothing due, nothing to announce. */
	KUNIT_EXPECT_EQ(test, tempo_delayq_move(q, &items[0].node, far, &announce), 0);
	KUNIT_EXPECT_FALSE(test, announce);
	/* Queued: moved, due. Told to nobody yet. */
	KUNIT_EXPECT_EQ(test, tempo_delayq_move(q, &items[0].node, 0, &announce), 0);
	KUNIT_EXPECT_TRUE(test, announce);
	msleep(50);
	KUNIT_EXPECT_EQ(test, dq_consumers_taken(c, 1), 0U);
	KUNIT_EXPECT_EQ(test, p->woken, 0U);
	/* (Not stats(): any call that ends a critical section tells them.) */
	tempo_delayq_announce(q);
	KUNIT_EXPECT_TRUE_MSG(test, dq_wait_for(dq_consumers_taken(c, 1) == 1, 5000),
			      "announce() did not wake the consumer");
	KUNIT_EXPECT_EQ(test, p->woken, 1U);
	KUNIT_EXPECT_TRUE(test, p->key & EPOLLIN);

	/* Out of the queue, and a node not queued taken out: nothing. */
	KUNIT_EXPECT_EQ(test, tempo_delayq_move(q, &items[1].node, far, &announce), 0);
	KUNIT_EXPECT_EQ(test, tempo_delayq_move(q, &items[1].node, KTIME_MAX, &announce), 0);
	KUNIT_EXPECT_FALSE(test, announce);
	KUNIT_EXPECT_EQ(test, tempo_delayq_move(q, &items[1].node, KTIME_MAX, &announce), 0);
	KUNIT_EXPECT_EQ(test, tempo_delayq_size(q), 0U);
	far = ktime_add_ns(ktime_get(), tempo_timer_max_delay_ns() + NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, tempo_delayq_move(q, &items[1].node, far, &announce), -ERANGE);
	s = dq_stats(q);
	KUNIT_EXPECT_EQ(test, s.put, 2ULL);
	KUNIT_EXPECT_EQ(test, s.requeued, 1ULL);
	KUNIT_EXPECT_EQ(test, s.removed, 1ULL);
	KUNIT_EXPECT_EQ(test, s.put, s.taken + s.removed + s.flushed + s.pending + s.ready);
	remove_wait_queue(tempo_delayq_waitqueue(q), &p->wait);
	tempo_delayq_shutdown(q);
	dq_consumer_stop(c);
	KUNIT_EXPECT_EQ(test, tempo_delayq_move(q, &items[1].node, 0, &announce), -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, NULL, NULL), 0U);
}

/*
 * tempo_delayq_query() tells where an item stands, as remove() would find
 * it: a far and a near item PENDING with their deadlines, an item put due
 * TAKEABLE, a near item TAKEABLE once its deadline has passed (still
 * queued), and -ENOENT for an item never put, taken or removed.
 * Fails if: query reads an item whose deadline has passed as PENDING (take()
 * could return it), or reports a taken item.
 */
static void delayq_query_states(struct kunit *test)
{
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, 4);
	ktime_t d;

	KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[0].node, 2 * NSEC_PER_SEC), 0);
	KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[1].node, 30 * DQ_MS), 0);
	KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[2].node, 0), 0);
	KUNIT_EXPECT_EQ(test, tempo_delayq_query(q, &items[0].node, &d), TEMPO_DELAYQ_PENDING);
	KUNIT_EXPECT_EQ(test, d, items[0].node.deadline);
	KUNIT_EXPECT_EQ(test, tempo_delayq_query(q, &items[2].node, &d), TEMPO_DELAYQ_TAKEABLE);
	KUNIT_EXPECT_EQ(test, tempo_delayq_query(q, &items[3].node, &d), -ENOENT);
	KUNIT_EXPECT_PTR_EQ(test, tempo_delayq_try_take(q), &items[2].node);
	KUNIT_EXPECT_EQ(test, tempo_delayq_query(q, &items[2].node, &d), -ENOENT);

	/* The near item: PENDING until its tick falls due (the waker), then TAKEABLE. */
	if (tempo_delayq_query(q, &items[1].node, &d) == TEMPO_DELAYQ_PENDING)
		KUNIT_EXPECT_FALSE(test, ktime_before(d, items[1].node.deadline));
	KUNIT_EXPECT_TRUE(test, dq_wait_for(tempo_delayq_query(q, &items[1].node, &d) ==
					    TEMPO_DELAYQ_TAKEABLE, DQ_LONG_WAIT_MS));
	KUNIT_EXPECT_FALSE(test, ktime_before(ktime_get(), items[1].node.deadline));
	KUNIT_EXPECT_PTR_EQ(test, tempo_delayq_try_take(q), &items[1].node);

	KUNIT_EXPECT_TRUE(test, tempo_delayq_remove(q, &items[0].node));
	KUNIT_EXPECT_EQ(test, tempo_delayq_query(q, &items[0].node, &d), -ENOENT);
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, NULL, NULL), 0U);
}

/*
 * put_many() and remove_many() are put_at() and remove() on each item in
 * turn under one lock. One batch of a due, a near and a far item, then the
 * near one named again: three are queued, the fourth fails with EBUSY and
 * nothing after it is queued. They leave in deadline order, never early.
 * remove_many() naming the far item twice and an unqueued one removes it
 * once. Fails if: a batch goes on past its first failure, or queues an item
 * out of order or early, or remove_many() counts a node twice.
 */
static void delayq_many_as_in_turn(struct kunit *test)
{
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, 4);
	struct tempo_delayq_node *nodes[5], *rm[3];
	ktime_t dl[5], now = ktime_get(), d;
	bool removed[3];
	int err = 0;
	u64 put0 = dq_stats(q).put;

	nodes[0] = &items[0].node;
	dl[0] = ktime_sub_ns(now, DQ_MS);
	nodes[1] = &items[1].node;
	dl[1] = ktime_add_ns(now, 30 * DQ_MS);
	nodes[2] = &items[2].node;
	dl[2] = ktime_add_ns(now, 10 * NSEC_PER_SEC);
	nodes[3] = &items[1].node;
	dl[3] = ktime_add_ns(now, 40 * DQ_MS);
	nodes[4] = &items[3].node;
	dl[4] = now;
	KUNIT_EXPECT_EQ(test, tempo_delayq_put_many(q, nodes, dl, 5, &err), 3U);
	KUNIT_EXPECT_EQ(test, err, -EBUSY);
	KUNIT_EXPECT_EQ(test, dq_stats(q).put, put0 + 3);
	KUNIT_EXPECT_EQ(test, tempo_delayq_query(q, &items[3].node, &d), -ENOENT);
	KUNIT_EXPECT_EQ(test, tempo_delayq_query(q, &items[2].node, &d), TEMPO_DELAYQ_PENDING);
	KUNIT_EXPECT_EQ(test, d, dl[2]);

	KUNIT_EXPECT_PTR_EQ(test, tempo_delayq_try_take(q), &items[0].node);
	rm[0] = &items[2].node;
	rm[1] = &items[2].node;
	rm[2] = &items[3].node;
	KUNIT_EXPECT_EQ(test, tempo_delayq_remove_many(q, rm, 3, removed), 1U);
	KUNIT_EXPECT_TRUE(test, removed[0]);
	KUNIT_EXPECT_FALSE(test, removed[1]);
	KUNIT_EXPECT_FALSE(test, removed[2]);

	KUNIT_EXPECT_PTR_EQ(test, tempo_delayq_take(q), &items[1].node);
	KUNIT_EXPECT_FALSE(test, ktime_before(ktime_get(), dl[1]));
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, NULL, NULL), 0U);
}

/* --- the tree ------------------------------------------------------------ */

/* Drain @q, due items only, and check they are @want[0..n) in that order. */
static void dq_expect_drain(struct kunit *test, struct tempo_delayq *q, struct dq_item *items,
			    const unsigned int *want, unsigned int n)
{
	struct tempo_delayq_node *got[16];
	unsigned int i;
	int nr;

	nr = tempo_delayq_take_many(q, got, ARRAY_SIZE(got));
	KUNIT_EXPECT_EQ(test, nr, (int)n);
	for (i = 0; i < n && i < (unsigned int)max(nr, 0); i++)
		KUNIT_EXPECT_PTR_EQ_MSG(test, got[i], &items[want[i]].node,
					"position %u: item %u, not item %u", i,
					dq_item_of(got[i])->id, want[i]);
}

/*
 * Equal and adjacent deadlines, put so that each way into the tree is
 * taken: before the leftmost, from the rightmost on, and down from the
 * root, with equals of the leftmost, of the rightmost and of an inner node
 * (deadlines D-1, D, D+1 ns, all past). They leave by deadline, equal
 * deadlines in put order.
 * Fails if: a deadline equal to the leftmost's takes the O(1) way before it
 * (ktime_before() there made !ktime_after()), or the descent puts a node
 * left of its equals.
 */
static void delayq_equal_and_adjacent_deadlines(struct kunit *test)
{
	/* Offsets from D, in put order; want: by deadline, then put order. */
	static const int at[] = { 0, 0, -1, 1, 0, -1, 1, -1, 0 };
	static const unsigned int want[] = { 2, 5, 7, 0, 1, 4, 8, 3, 6 };
	const unsigned int n = ARRAY_SIZE(at);
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, n);
	ktime_t d = ktime_sub_ms(ktime_get(), 5);
	unsigned int i;

	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, tempo_delayq_put_at(q, &items[i].node,
							  ktime_add_ns(d, at[i])), 0);
	dq_expect_drain(test, q, items, want, n);
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, NULL, NULL), 0U);
}

/*
 * remove() of the leftmost, an inner and the rightmost node, then puts that
 * take the O(1) ways again (before every node, after every node) and one
 * down the middle: the tree's ends follow each removal, the removed items
 * never come back, the rest leave in deadline order. All deadlines are
 * past (due), 1 ms apart.
 * Fails if: removing the rightmost leaves q->last on it (the next put after
 * every node hangs under a node that left the tree: it is lost or taken
 * out of order), or removing the leftmost leaves the cached leftmost on it.
 */
static void delayq_remove_at_the_ends_and_inside(struct kunit *test)
{
	/* 0..6 put at -70..-10 ms; 7 at -5 ms (last), 8 at -80 ms (first), 9 at -45 ms. */
	static const unsigned int want[] = { 8, 1, 2, 9, 4, 5, 7 };
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, 10);
	ktime_t now = ktime_get(), d;
	unsigned int i;

	for (i = 0; i < 7; i++)
		KUNIT_ASSERT_EQ(test, tempo_delayq_put_at(q, &items[i].node,
							  ktime_sub_ms(now, 70 - 10 * i)), 0);
	KUNIT_EXPECT_TRUE(test, tempo_delayq_remove(q, &items[0].node));	/* leftmost */
	KUNIT_ASSERT_TRUE(test, tempo_delayq_peek(q, &d));
	KUNIT_EXPECT_EQ(test, d, items[1].node.deadline);
	KUNIT_EXPECT_TRUE(test, tempo_delayq_remove(q, &items[6].node));	/* rightmost */
	KUNIT_EXPECT_TRUE(test, tempo_delayq_remove(q, &items[3].node));	/* inner */
	KUNIT_EXPECT_FALSE(test, tempo_delayq_remove(q, &items[6].node));
	KUNIT_EXPECT_EQ(test, tempo_delayq_size(q), 4U);
	KUNIT_ASSERT_EQ(test, tempo_delayq_put_at(q, &items[7].node, ktime_sub_ms(now, 5)), 0);
	KUNIT_ASSERT_EQ(test, tempo_delayq_put_at(q, &items[8].node, ktime_sub_ms(now, 80)), 0);
	KUNIT_ASSERT_EQ(test, tempo_delayq_put_at(q, &items[9].node, ktime_sub_ms(now, 45)), 0);
	KUNIT_ASSERT_TRUE(test, tempo_delayq_peek(q, &d));
	KUNIT_EXPECT_EQ(test, d, items[8].node.deadline);
	dq_expect_drain(test, q, items, want, ARRAY_SIZE(want));
	KUNIT_EXPECT_EQ(test, tempo_delayq_size(q), 0U);
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, NULL, NULL), 0U);
}

/*
 * stats() counts the due items exactly however many fell due at once, in
 * steps of a bounded critical section: 300 items put already due (shuffled
 * deadlines) and 20 pending; after a count, taking 10, removing a counted
 * one, putting one due before every counted one and one after them, the
 * counts follow each change.
 * Fails if: stats() stops counting after its first step (ready 64), or an
 * item that leaves the counted prefix is not subtracted.
 */
static void delayq_ready_count_in_steps(struct kunit *test)
{
	const unsigned int nd = 300, np = 20, n = nd + np + 2;
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, n);
	struct tempo_delayq_node *got[10];
	ktime_t now = ktime_get();
	struct tempo_delayq_stats st;
	unsigned int i;

	for (i = 0; i < nd; i++) {
		ktime_t at = ktime_sub_us(now, 1000 + (i * 7919) % 1000);

		KUNIT_ASSERT_EQ(test, tempo_delayq_put_at(q, &items[i].node, at), 0);
	}
	for (i = nd; i < nd + np; i++)
		KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[i].node, 60 * NSEC_PER_SEC), 0);
	st = dq_stats(q);
	KUNIT_EXPECT_EQ(test, st.ready, nd);
	KUNIT_EXPECT_EQ(test, st.pending, np);
	KUNIT_EXPECT_EQ(test, tempo_delayq_take_many(q, got, 10), 10);
	KUNIT_EXPECT_EQ(test, dq_stats(q).ready, nd - 10);
	/* One of the counted items still queued. */
	for (i = 0; i < nd && !tempo_delayq_remove(q, &items[i].node); i++)
		;
	KUNIT_EXPECT_EQ(test, dq_stats(q).ready, nd - 11);
	KUNIT_ASSERT_EQ(test, tempo_delayq_put_at(q, &items[n - 2].node, ktime_sub_ms(now, 5)), 0);
	KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[n - 1].node, 0), 0);
	st = dq_stats(q);
	KUNIT_EXPECT_EQ(test, st.ready, nd - 9);
	KUNIT_EXPECT_EQ(test, st.pending, np);
	KUNIT_EXPECT_EQ(test, st.put, (u64)n);
	KUNIT_EXPECT_EQ(test, st.taken + st.removed + st.flushed + st.pending + st.ready, st.put);
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, dq_release_record,
						   &(struct dq_release_ctx){}), nd - 9 + np);
}

/* A poller that, like epoll's EPOLLEXCLUSIVE, reports that it took the wake-up. */
static int dq_exclusive_wake(struct wait_queue_entry *wait, unsigned int mode, int sync,
			     void *key)
{
	dq_poller_wake(wait, mode, sync, key);
	return 1;
}

/*
 * An exclusive poller on tempo_delayq_waitqueue() (as epoll adds an
 * EPOLLEXCLUSIVE registration, first in line) and a consumer asleep in
 * take(): an item put due wakes both; the poller's wake-up is not the
 * consumer's.
 * Fails if: consumers sleep on the pollers' wait queue (the poller, first
 * and exclusive, takes the one wake-up and the consumer sleeps on).
 */
static void delayq_exclusive_poller_spares_consumers(struct kunit *test)
{
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, 1);
	struct dq_poller *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct dq_consumer *c;

	KUNIT_ASSERT_NOT_NULL(test, p);
	init_waitqueue_func_entry(&p->wait, dq_exclusive_wake);
	add_wait_queue_exclusive(tempo_delayq_waitqueue(q), &p->wait);
	c = dq_consumers(test, q, 1, 1, false);
	dq_expect_waiters(test, q, 1);
	KUNIT_ASSERT_EQ(test, tempo_delayq_put(q, &items[0].node, 0), 0);
	KUNIT_EXPECT_TRUE_MSG(test, dq_wait_for(dq_consumers_taken(c, 1) == 1, 5000),
			      "a due item waited 5 s with a consumer asleep in take()");
	KUNIT_EXPECT_EQ(test, p->woken, 1U);
	KUNIT_EXPECT_TRUE(test, p->key & EPOLLIN);
	remove_wait_queue(tempo_delayq_waitqueue(q), &p->wait);
	tempo_delayq_shutdown(q);
	dq_consumer_stop(c);
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, dq_release_record,
						   &(struct dq_release_ctx){}), 0U);
}

/* destroy()'s release callback for dq_destroy_many: deadline order, then free. */
struct dq_many_ctx {
	unsigned int	n;
	unsigned int	out_of_order;
	ktime_t		prev;
};

static void dq_release_many(struct tempo_delayq_node *node, void *arg)
{
	struct dq_many_ctx *ctx = arg;

	ctx->out_of_order += ktime_before(node->deadline, ctx->prev);
	ctx->prev = node->deadline;
	ctx->n++;
	kfree(dq_item_of(node));
}

/* The queue's grain (kmod/delayq.c: DQ_GRAIN_SHIFT) and the grains level k starts at. */
#define DQ_GRAIN	BIT_ULL(20)
#define DQ_CASCADE_LVL(k)	(1ULL << (6 * (k)))
#define DQ_LEVEL_ITEMS	(2 * 5 * 3 * 3)

static void dq_release_level(struct tempo_delayq_node *node, void *arg)
{
	struct dq_many_ctx *ctx = arg;

	/* Equal deadlines leave in put order: ids were given in put order. */
	ctx->out_of_order += ktime_before(node->deadline, ctx->prev) ||
			     (node->deadline == ctx->prev && dq_item_of(node)->id < ctx->n);
	ctx->prev = node->deadline;
	ctx->n = dq_item_of(node)->id;
}

/*
 * Items on every level of the queue's wheel, with deadlines on both sides of
 * each level's start, and of a tick where its slots are emptied (a multiple
 * of 64^k ticks), each at, just after and at the end of a tick, put in a
 * scrambled order: peek() sorts ahead to the earliest item and remove()
 * takes it out, so the walk moves items down every level as time would;
 * it meets them in deadline order. destroy() hands back the rest, still on
 * their levels, in the same order.
 * Fails if: a slot's items are re-placed on a wrong level, or on a slot
 * emptied before them (met out of order or not at all), or destroy hands
 * back the wheel's items unsorted.
 */
static void delayq_every_level_in_order(struct kunit *test)
{
	static const s64 near[] = { -1, 0, 1 };
	static const u64 off[] = { 0, 1, DQ_GRAIN - 1 };
	const unsigned int n = DQ_LEVEL_ITEMS;
	struct tempo_delayq *q = dq_create(test);
	struct dq_item *items = dq_items(test, n);
	struct dq_many_ctx ctx = { .prev = KTIME_MIN };
	ktime_t *deadline = kunit_kcalloc(test, n, sizeof(*deadline), GFP_KERNEL), d = 0, want;
	unsigned int i, j, k, m = 0, walked;
	u64 now = ktime_get_ns() / DQ_GRAIN, base = (now + 1) * DQ_GRAIN, aligned;

	for (k = 1; k <= 5; k++) {
		/* A multiple of 64^k ticks, where level k's slots are emptied. */
		aligned = (now / DQ_CASCADE_LVL(k) + 2) * DQ_CASCADE_LVL(k);
		for (i = 0; i < ARRAY_SIZE(near); i++)
			for (j = 0; j < ARRAY_SIZE(off); j++) {
				/* Either side of where level k starts, from now... */
				deadline[m++] = base + (DQ_CASCADE_LVL(k) + near[i]) * DQ_GRAIN +
						off[j];
				/* ...and of where its slots are emptied. */
				deadline[m++] = (aligned + near[i]) * DQ_GRAIN + off[j];
			}
	}
	/* Put in a scrambled order; item ids are put order. */
	KUNIT_ASSERT_NOT_NULL(test, deadline);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, tempo_delayq_put_at(q, &items[i].node,
							  deadline[(i * 17) % n]), 0);
	/* Walk the first levels' worth: 40 items, each the earliest left. */
	for (walked = 0; walked < 40; walked++) {
		want = KTIME_MAX;
		for (i = 0; i < n; i++)
			if (!items[i].removed && ktime_before(items[i].node.deadline, want))
				want = items[i].node.deadline;
		/* No ASSERT until destroy: the items must not outlive the queue. */
		if (!tempo_delayq_peek(q, &d) || d != want) {
			KUNIT_FAIL(test, "walk %u: peek %lld ns from the earliest", walked,
				   ktime_to_ns(ktime_sub(d, want)));
			break;
		}
		for (i = 0; i < n; i++)
			if (!items[i].removed && items[i].node.deadline == want)
				break;
		KUNIT_EXPECT_TRUE(test, tempo_delayq_remove(q, &items[i].node));
		items[i].removed = true;
	}
	KUNIT_EXPECT_EQ(test, tempo_delayq_size(q), n - walked);
	ctx.n = 0;
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, dq_release_level, &ctx), n - walked);
	KUNIT_EXPECT_EQ(test, ctx.out_of_order, 0U);
}

/*
 * destroy() of a queue of 2000 items, half due and half pending (deadlines
 * spread over 10 s, put in a scrambled order), with a remove() now and
 * then: it hands back each queued item once, in deadline order, and the
 * release callback frees them (KASAN sees any later touch).
 * Fails if: destroy() hands back only the due items (the pending ones
 * leak: kmemleak, and the count is short).
 */
static void delayq_destroy_many(struct kunit *test)
{
	const unsigned int n = 2000;
	struct tempo_delayq *q = dq_create(test);
	struct dq_many_ctx ctx = { .prev = KTIME_MIN };
	ktime_t now = ktime_get();
	unsigned int i, removed = 0;
	struct dq_item *item, *prev = NULL;

	for (i = 0; i < n; i++) {
		s64 ms = (s64)((i * 7919) % n) * 10000 / n - 5000;

		item = kzalloc(sizeof(*item), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, item);
		tempo_delayq_node_init(&item->node);
		item->id = i;
		KUNIT_ASSERT_EQ(test, tempo_delayq_put_at(q, &item->node,
							  ktime_add(now, ms * NSEC_PER_MSEC)), 0);
		if (prev && i % 10 == 0 && tempo_delayq_remove(q, &prev->node)) {
			kfree(prev);
			removed++;
		}
		prev = item;
	}
	KUNIT_EXPECT_EQ(test, tempo_delayq_destroy(q, dq_release_many, &ctx), n - removed);
	KUNIT_EXPECT_EQ(test, ctx.n, n - removed);
	KUNIT_EXPECT_EQ(test, ctx.out_of_order, 0U);
}

static struct kunit_case tempo_delayq_cases[] = {
	KUNIT_CASE(delayq_take_never_early_in_order),
	KUNIT_CASE(delayq_due_ticks_leave_in_order),
	KUNIT_CASE(delayq_ready_sorted_by_deadline),
	KUNIT_CASE(delayq_order_survives_a_starved_cpu),
	KUNIT_CASE(delayq_taken_without_the_waker),
	KUNIT_CASE(delayq_long_delay_is_tick_precise),
	KUNIT_CASE(delayq_remove_pending),
	KUNIT_CASE(delayq_remove_ready),
	KUNIT_CASE(delayq_requeue_moves_in_place),
	KUNIT_CASE(delayq_move_wakes_nobody),
	KUNIT_CASE(delayq_remove_races_expiry),
	KUNIT_CASE(delayq_try_and_timeout),
	KUNIT_CASE(delayq_peek_and_size),
	KUNIT_CASE(delayq_put_errors_and_shutdown),
	KUNIT_CASE(delayq_wake_one),
	KUNIT_CASE(delayq_due_put_wakes_a_sleeper),
	KUNIT_CASE(delayq_consumers_conservation),
	KUNIT_CASE(delayq_signal_loses_nothing),
	KUNIT_CASE(delayq_kthread_stop_interrupts),
	KUNIT_CASE(delayq_destroy_hands_back),
	KUNIT_CASE(delayq_destroy_with_waiters),
	KUNIT_CASE(delayq_consume_in_take_order),
	KUNIT_CASE(delayq_consume_due_stamps),
	KUNIT_CASE(delayq_consume_again_not_early),
	KUNIT_CASE(delayq_consume_again_then_remove),
	KUNIT_CASE(delayq_consume_stop_leaves_item),
	KUNIT_CASE(delayq_consume_tick_run),
	KUNIT_CASE(delayq_consume_stop_passes_wakeup),
	KUNIT_CASE(delayq_consume_wait_until_due),
	KUNIT_CASE(delayq_consume_wait_interrupted),
	KUNIT_CASE(delayq_consume_refusals),
	KUNIT_CASE(delayq_consume_conservation),
	KUNIT_CASE(delayq_due_items_and_report),
	KUNIT_CASE(delayq_watch_wakeup_spares_consumers),
	KUNIT_CASE(delayq_query_states),
	KUNIT_CASE(delayq_many_as_in_turn),
	KUNIT_CASE(delayq_equal_and_adjacent_deadlines),
	KUNIT_CASE(delayq_remove_at_the_ends_and_inside),
	KUNIT_CASE(delayq_ready_count_in_steps),
	KUNIT_CASE(delayq_exclusive_poller_spares_consumers),
	KUNIT_CASE(delayq_destroy_many),
	KUNIT_CASE(delayq_every_level_in_order),
	{}
};

static struct kunit_suite tempo_delayq_suite = {
	.name = "tempo_delayq",
	.test_cases = tempo_delayq_cases,
};

kunit_test_suite(tempo_delayq_suite);
