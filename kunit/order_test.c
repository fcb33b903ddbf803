// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "tempo_order": the ordered scheduler (kmod/order.c).
 *
 * Each case checks one behaviour; its "Fails if" line names the breakage of
 * kmod/order.c it detects. Every completion used here goes through
 * ot_record(), which checks what the scheduler promises on the spot: no two
 * completions of a domain at once (an "inside" counter that must never
 * exceed 1), strict ticket order (each ticket recorded must be above the
 * previous one), and exactly once (a per-item run counter). The cases then
 * check the recorded sequence, the return values and the domain's counters.
 *
 * Threads: helper kthreads finish with kthread_complete_and_exit(), so the
 * test thread may free what they used once it has waited for them. Waits are
 * bounded (OT_WAIT) so that a broken scheduler fails a case instead of
 * hanging the VM.
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/debugfs.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include <tempo/order.h>

#include "compat.h"
#include "internal.h"

static unsigned int order_stress_ms = 2000;
module_param(order_stress_ms, uint, 0644);
MODULE_PARM_DESC(order_stress_ms,
		 "tempo_order stress case: how long producers run, in ms (default 2000)");

#define OT_WAIT		(10 * HZ)

/* What completions record. */
struct ot_log {
	u64			*seq;		/* tickets, in completion order */
	struct task_struct	**who;		/* the task that ran each */
	unsigned int		cap;
	unsigned int		n;		/* under the head token only */
	u64			last;
	bool			any;
	atomic_t		inside;
	atomic_t		overlap;	/* completions seen running at once */
	atomic_t		disorder;	/* ticket not above the previous */
	atomic_t		total;
};

struct ot_item {
	struct ot_log	*log;
	u64		ticket;
	atomic_t	runs;
};

static struct ot_log *ot_log_new(struct kunit *test, unsigned int cap)
{
	struct ot_log *log = kunit_kzalloc(test, sizeof(*log), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, log);
	log->seq = kunit_kcalloc(test, cap, sizeof(*log->seq), GFP_KERNEL);
	log->who = kunit_kcalloc(test, cap, sizeof(*log->who), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, log->seq);
	KUNIT_ASSERT_NOT_NULL(test, log->who);
	log->cap = cap;
	return log;
}

static void ot_record(void *arg)
{
	struct ot_item *it = arg;
	struct ot_log *log = it->log;

	if (atomic_inc_return(&log->inside) != 1)
		atomic_inc(&log->overlap);
	/* Plain accesses: the head token is the only lock they need. */
	if (log->any && (s64)(it->ticket - log->last) <= 0)
		atomic_inc(&log->disorder);
	log->any = true;
	log->last = it->ticket;
	if (log->n < log->cap) {
		log->seq[log->n] = it->ticket;
		log->who[log->n] = current;
	}
	log->n++;
	atomic_inc(&it->runs);
	atomic_inc(&log->total);
	atomic_dec(&log->inside);
}

static struct tempo_order *ot_create(struct kunit *test, u32 window,
				     const struct tempo_order_opts *opts)
{
	struct tempo_order *o = tempo_order_create(window, opts);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, o);
	return o;
}

static void ot_expect_log_clean(struct kunit *test, struct ot_log *log)
{
	KUNIT_EXPECT_EQ(test, atomic_read(&log->overlap), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&log->disorder), 0);
}

/* Poll until the domain has nothing pending (or give up after OT_WAIT). */
static void ot_wait_quiet(struct tempo_order *o, struct tempo_order_stats *st)
{
	unsigned long end = jiffies + OT_WAIT;

	for (;;) {
		tempo_order_stats(o, st);
		if ((!st->pending && !st->stored) || time_after(jiffies, end))
			return;
		usleep_range(2000, 3000);
	}
}

/*
 * Strict order: tickets taken in order, completions handed in from many
 * kthreads in a random order, in rounds that go several times round the ring.
 * Fails if: a streak runs a completion out of ticket order, twice, or misses a
 * stored one (order_advance()), or a slot reused a lap later keeps a stale
 * word (order_retire()).
 */
#define OT_ORDER_WINDOW	64
#define OT_ORDER_ROUNDS	16

struct ot_shuffle {
	struct tempo_order	*o;
	struct ot_item		*items;
	unsigned int		*perm;
	unsigned int		n, stride, first;
	atomic_t		*gate;
	atomic_t		errors;
	struct completion	done;
};

static int ot_shuffle_fn(void *data)
{
	struct ot_shuffle *s = data;
	unsigned int i;
	int ret;

	while (!atomic_read_acquire(s->gate))
		cpu_relax();
	for (i = s->first; i < s->n; i += s->stride) {
		struct ot_item *it = &s->items[s->perm[i]];

		ret = tempo_order_run(s->o, it->ticket, ot_record, it);
		if (ret < 0)
			atomic_inc(&s->errors);
		if (get_random_u32_below(4) == 0)
			udelay(get_random_u32_below(20));
	}
	kthread_complete_and_exit(&s->done, 0);
}

static void tempo_order_strict_order_random_arrival(struct kunit *test)
{
	unsigned int nthreads = max(4U, 2 * num_online_cpus());
	unsigned int n = OT_ORDER_WINDOW, round, i, j;
	struct ot_log *log = ot_log_new(test, n * OT_ORDER_ROUNDS);
	struct ot_shuffle *s;
	struct tempo_order_stats st;
	struct ot_item *items;
	unsigned int *perm;
	struct tempo_order *o;
	atomic_t gate;

	s = kunit_kcalloc(test, nthreads, sizeof(*s), GFP_KERNEL);
	items = kunit_kcalloc(test, n, sizeof(*items), GFP_KERNEL);
	perm = kunit_kcalloc(test, n, sizeof(*perm), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_NOT_NULL(test, items);
	KUNIT_ASSERT_NOT_NULL(test, perm);
	o = ot_create(test, OT_ORDER_WINDOW, NULL);

	for (round = 0; round < OT_ORDER_ROUNDS; round++) {
		for (i = 0; i < n; i++) {
			items[i].log = log;
			atomic_set(&items[i].runs, 0);
			KUNIT_ASSERT_EQ(test, tempo_order_ticket_try(o, &items[i].ticket), 0);
			perm[i] = i;
		}
		/* The window is full now. */
		KUNIT_EXPECT_EQ(test, tempo_order_ticket_try(o, &items[0].ticket), -EAGAIN);
		for (i = n - 1; i > 0; i--) {
			j = get_random_u32_below(i + 1);	/* not inside swap() */
			swap(perm[i], perm[j]);
		}

		atomic_set(&gate, 0);
		for (j = 0; j < nthreads; j++) {
			struct task_struct *task;

			s[j] = (struct ot_shuffle){ .o = o, .items = items,
				.perm = perm, .n = n, .stride = nthreads,
				.first = j, .gate = &gate };
			init_completion(&s[j].done);
			task = kthread_run(ot_shuffle_fn, &s[j], "ot_shuffle/%u", j);
			KUNIT_ASSERT_FALSE(test, IS_ERR(task));
		}
		atomic_set_release(&gate, 1);
		for (j = 0; j < nthreads; j++) {
			KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&s[j].done, OT_WAIT));
			KUNIT_EXPECT_EQ(test, atomic_read(&s[j].errors), 0);
		}
		ot_wait_quiet(o, &st);
		for (i = 0; i < n; i++)
			KUNIT_EXPECT_EQ_MSG(test, atomic_read(&items[i].runs), 1,
					    "ticket %llu", items[i].ticket);
	}

	KUNIT_EXPECT_EQ(test, log->n, n * OT_ORDER_ROUNDS);
	for (i = 0; i < log->n && i < log->cap; i++)
		KUNIT_ASSERT_EQ_MSG(test, log->seq[i], (u64)i, "position %u", i);
	ot_expect_log_clean(test, log);
	KUNIT_EXPECT_EQ(test, st.taken, (u64)n * OT_ORDER_ROUNDS);
	KUNIT_EXPECT_EQ(test, st.completed, (u64)n * OT_ORDER_ROUNDS);
	KUNIT_EXPECT_EQ(test, st.pending, 0);
	KUNIT_EXPECT_EQ(test, st.stored, 0);
	tempo_order_destroy(o);
}

/*
 * trash() of one of 8 tickets, at the head, in the middle, at the end.
 * Fails if: a streak runs a TRASHED slot or stops at it, a trash() of the head
 * does not run what is stored behind it, or a finished ticket is accepted
 * again.
 */
struct ot_trash_case {
	const char	*name;
	unsigned int	victim;
};

static const struct ot_trash_case ot_trash_cases[] = {
	{ "head", 0 },
	{ "middle", 3 },
	{ "end", 7 },
};

static void ot_trash_one(struct kunit *test, const struct ot_trash_case *c)
{
	struct ot_log *log = ot_log_new(test, 16);
	struct tempo_order_stats st;
	struct ot_item items[9] = {};
	struct tempo_order *o;
	unsigned int i, k;
	int ret;

	o = ot_create(test, 8, NULL);
	for (i = 0; i < 8; i++) {
		items[i].log = log;
		KUNIT_ASSERT_EQ(test, tempo_order_ticket_try(o, &items[i].ticket), 0);
	}
	/* Backwards: everything is stored until ticket 0 arrives. */
	for (i = 7; i > 0; i--) {
		ret = i == c->victim ? tempo_order_trash(o, items[i].ticket) :
			tempo_order_run(o, items[i].ticket, ot_record, &items[i]);
		KUNIT_EXPECT_EQ_MSG(test, ret, 0, "ticket %u", i);
	}
	KUNIT_EXPECT_EQ(test, log->n, 0);
	ret = c->victim == 0 ? tempo_order_trash(o, items[0].ticket) :
		tempo_order_run(o, items[0].ticket, ot_record, &items[0]);
	KUNIT_EXPECT_EQ(test, ret, 1);

	KUNIT_ASSERT_EQ(test, log->n, 7);
	for (i = 0, k = 0; i < 8; i++) {
		if (i == c->victim) {
			KUNIT_EXPECT_EQ(test, atomic_read(&items[i].runs), 0);
			continue;
		}
		KUNIT_EXPECT_EQ(test, atomic_read(&items[i].runs), 1);
		KUNIT_EXPECT_EQ(test, log->seq[k++], items[i].ticket);
	}
	/* A trashed ticket is finished: neither run nor trash takes it again. */
	KUNIT_EXPECT_EQ(test, tempo_order_trash(o, items[c->victim].ticket), -EINVAL);
	KUNIT_EXPECT_EQ(test, tempo_order_run(o, items[c->victim].ticket,
					      ot_record, &items[c->victim]), -EINVAL);

	/* The stream goes on. */
	items[8].log = log;
	KUNIT_ASSERT_EQ(test, tempo_order_ticket_try(o, &items[8].ticket), 0);
	KUNIT_EXPECT_EQ(test, tempo_order_run(o, items[8].ticket, ot_record, &items[8]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&items[8].runs), 1);

	tempo_order_stats(o, &st);
	KUNIT_EXPECT_EQ(test, st.taken, 9);
	KUNIT_EXPECT_EQ(test, st.completed, 8);
	KUNIT_EXPECT_EQ(test, st.trashed, 1);
	KUNIT_EXPECT_EQ(test, st.pending, 0);
	KUNIT_EXPECT_EQ(test, st.stored, 0);
	ot_expect_log_clean(test, log);
	tempo_order_destroy(o);
}

/*
 * Table-driven without KUNIT_ARRAY_PARAM: on 6.1 the debugfs results file,
 * which the test VM collects, keeps only the last parameter's result line.
 */
static void tempo_order_trash_positions(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ot_trash_cases); i++) {
		kunit_info(test, "trash at the %s\n", ot_trash_cases[i].name);
		ot_trash_one(test, &ot_trash_cases[i]);
	}
}

/*
 * A full window with the try policy: -EAGAIN until the head moves.
 * Fails if: tempo_order_ticket_try() hands out a ticket while next - head is
 * the window, or the head passing trashed tickets gives no room back.
 */
static void tempo_order_window_full_try(struct kunit *test)
{
	struct ot_log *log = ot_log_new(test, 8);
	struct ot_item items[6] = {};
	struct tempo_order *o;
	u64 t;
	int i;

	o = ot_create(test, 4, NULL);
	for (i = 0; i < 4; i++) {
		items[i].log = log;
		KUNIT_ASSERT_EQ(test, tempo_order_ticket_try(o, &items[i].ticket), 0);
	}
	KUNIT_EXPECT_EQ(test, tempo_order_ticket_try(o, &t), -EAGAIN);
	/* Finishing a ticket that is not the head makes no room. */
	KUNIT_EXPECT_EQ(test, tempo_order_trash(o, items[1].ticket), 0);
	KUNIT_EXPECT_EQ(test, tempo_order_ticket_try(o, &t), -EAGAIN);
	/* The head and the trashed one behind it: two tickets of room. */
	KUNIT_EXPECT_EQ(test, tempo_order_run(o, items[0].ticket, ot_record, &items[0]), 1);
	items[4].log = log;
	items[5].log = log;
	KUNIT_EXPECT_EQ(test, tempo_order_ticket_try(o, &items[4].ticket), 0);
	KUNIT_EXPECT_EQ(test, tempo_order_ticket_try(o, &items[5].ticket), 0);
	KUNIT_EXPECT_EQ(test, items[5].ticket, 5);
	KUNIT_EXPECT_EQ(test, tempo_order_ticket_try(o, &t), -EAGAIN);

	for (i = 2; i < 6; i++)
		KUNIT_EXPECT_EQ(test, tempo_order_run(o, items[i].ticket,
						      ot_record, &items[i]), 1);
	KUNIT_EXPECT_EQ(test, log->n, 5);
	ot_expect_log_clean(test, log);
	tempo_order_destroy(o);
}

/*
 * Several tickets at once: as many as asked or as fit, consecutive, after
 * the ones already taken; the blocking form sleeps until room for one.
 * Fails if: order_take() hands out more than the window has room for, or
 * tickets that are not the next ones in order.
 */
static void tempo_order_tickets_take_what_fits(struct kunit *test)
{
	struct ot_log *log = ot_log_new(test, 16);
	struct ot_item items[8] = {};
	struct tempo_order_stats st;
	struct tempo_order *o;
	u64 t, first;
	int i;

	o = ot_create(test, 8, NULL);
	KUNIT_EXPECT_EQ(test, tempo_order_tickets_try(o, 0, &t), -EINVAL);
	KUNIT_EXPECT_EQ(test, tempo_order_tickets(o, 0, &t), -EINVAL);
	KUNIT_ASSERT_EQ(test, tempo_order_ticket_try(o, &t), 0);
	KUNIT_EXPECT_EQ(test, t, 0);
	KUNIT_ASSERT_EQ(test, tempo_order_tickets_try(o, 4, &first), 4);
	KUNIT_EXPECT_EQ(test, first, 1);
	/* Three fit of five. */
	KUNIT_ASSERT_EQ(test, tempo_order_tickets(o, 5, &first), 3);
	KUNIT_EXPECT_EQ(test, first, 5);
	KUNIT_EXPECT_EQ(test, tempo_order_tickets_try(o, 2, &first), -EAGAIN);
	for (i = 0; i < 8; i++) {
		items[i].log = log;
		items[i].ticket = i;
		KUNIT_EXPECT_EQ(test, tempo_order_run(o, i, ot_record, &items[i]), 1);
	}
	tempo_order_stats(o, &st);
	KUNIT_EXPECT_EQ(test, st.taken, 8);
	KUNIT_EXPECT_EQ(test, st.completed, 8);
	KUNIT_EXPECT_EQ(test, log->n, 8);
	ot_expect_log_clean(test, log);
	/* Room again: eight more, from 8. */
	KUNIT_EXPECT_EQ(test, tempo_order_tickets_try(o, 64, &first), 8);
	KUNIT_EXPECT_EQ(test, first, 8);
	KUNIT_EXPECT_EQ(test, tempo_order_trash_below(o, 16), 8);
	tempo_order_destroy(o);
}

/* A taker blocked in tempo_order_ticket(). */
struct ot_taker {
	struct tempo_order	*o;
	u64			ticket;
	int			ret;
	bool			signals;
	const bool		*room_made;	/* set by the completion */
	bool			saw_room;
	struct completion	started, done;
};

static int ot_taker_fn(void *data)
{
	struct ot_taker *tk = data;

	if (tk->signals)
		allow_signal(SIGKILL);
	complete(&tk->started);
	tk->ret = tempo_order_ticket(tk->o, &tk->ticket);
	tk->saw_room = READ_ONCE(*tk->room_made);
	kthread_complete_and_exit(&tk->done, 0);
}

static void ot_set_flag(void *arg)
{
	WRITE_ONCE(*(bool *)arg, true);
}

/*
 * A full window with the blocking policy: the taker sleeps until room.
 * Fails if: a blocked taker is not woken when the head moves
 * (order_wake_takers()), or wakes with a ticket before there is room.
 */
static void tempo_order_window_full_blocks(struct kunit *test)
{
	struct ot_taker *tk = kunit_kzalloc(test, sizeof(*tk), GFP_KERNEL);
	struct task_struct *task;
	struct tempo_order *o;
	bool room_made = false;
	u64 t0, t1;

	KUNIT_ASSERT_NOT_NULL(test, tk);
	o = ot_create(test, 2, NULL);
	KUNIT_ASSERT_EQ(test, tempo_order_ticket(o, &t0), 0);
	KUNIT_ASSERT_EQ(test, tempo_order_ticket(o, &t1), 0);

	tk->o = o;
	tk->room_made = &room_made;
	init_completion(&tk->started);
	init_completion(&tk->done);
	task = kthread_run(ot_taker_fn, tk, "ot_taker");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&tk->started, OT_WAIT));

	/* Still asleep 100 ms later: no room was made. */
	KUNIT_EXPECT_FALSE(test, wait_for_completion_timeout(&tk->done,
							     msecs_to_jiffies(100)));
	/* Ticket 1 first: still no room, the head is ticket 0. */
	KUNIT_EXPECT_EQ(test, tempo_order_trash(o, t1), 0);
	KUNIT_EXPECT_FALSE(test, wait_for_completion_timeout(&tk->done,
							     msecs_to_jiffies(50)));
	KUNIT_EXPECT_EQ(test, tempo_order_run(o, t0, ot_set_flag, &room_made), 1);

	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&tk->done, OT_WAIT));
	KUNIT_EXPECT_EQ(test, tk->ret, 0);
	KUNIT_EXPECT_EQ(test, tk->ticket, 2);
	KUNIT_EXPECT_TRUE(test, tk->saw_room);
	KUNIT_EXPECT_EQ(test, tempo_order_trash(o, tk->ticket), 1);
	tempo_order_destroy(o);
}

/*
 * A blocked taker that gets a signal returns -ERESTARTSYS with no ticket.
 * Fails if: tempo_order_ticket() ignores signals, or takes a ticket on its
 * way out.
 */
static void tempo_order_window_full_signal(struct kunit *test)
{
	struct ot_taker *tk = kunit_kzalloc(test, sizeof(*tk), GFP_KERNEL);
	struct tempo_order_stats st;
	struct task_struct *task;
	struct tempo_order *o;
	bool room_made = false;
	u64 t0;

	KUNIT_ASSERT_NOT_NULL(test, tk);
	o = ot_create(test, 1, NULL);
	KUNIT_ASSERT_EQ(test, tempo_order_ticket(o, &t0), 0);

	tk->o = o;
	tk->signals = true;
	tk->room_made = &room_made;
	init_completion(&tk->started);
	init_completion(&tk->done);
	task = kthread_run(ot_taker_fn, tk, "ot_taker_sig");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&tk->started, OT_WAIT));
	KUNIT_EXPECT_FALSE(test, wait_for_completion_timeout(&tk->done,
							     msecs_to_jiffies(50)));
	send_sig(SIGKILL, task, 1);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&tk->done, OT_WAIT));
	KUNIT_EXPECT_EQ(test, tk->ret, -ERESTARTSYS);

	tempo_order_stats(o, &st);
	KUNIT_EXPECT_EQ(test, st.taken, 1);
	KUNIT_EXPECT_EQ(test, tempo_order_trash(o, t0), 1);
	tempo_order_destroy(o);
}

/*
 * The missing-ticket deadline: a ticket taken and never finished is trashed
 * about deadline_ns later, the completions behind it run, and its late owner
 * gets -ETIME. A ticket finished in time is not touched.
 * Fails if: the deadline is not armed for a taken head (order_note_taken(),
 * order_advance()), fires early, times out a ticket finished in time, or
 * the late owner gets anything but -ETIME.
 */
#define OT_DEADLINE_MS	50

static void tempo_order_deadline_missing_ticket(struct kunit *test)
{
	struct tempo_order_opts opts = { .deadline_ns = OT_DEADLINE_MS * NSEC_PER_MSEC };
	struct ot_log *log = ot_log_new(test, 8);
	struct ot_item items[5] = {};
	struct tempo_order_stats st;
	unsigned long end;
	struct tempo_order *o;
	ktime_t start;
	s64 waited_ms;
	int i;

	o = ot_create(test, 8, &opts);
	for (i = 0; i < 5; i++)
		items[i].log = log;

	/* In time: run at once, then nothing may time out. */
	KUNIT_ASSERT_EQ(test, tempo_order_ticket_try(o, &items[0].ticket), 0);
	KUNIT_EXPECT_EQ(test, tempo_order_run(o, items[0].ticket, ot_record, &items[0]), 1);
	msleep(2 * OT_DEADLINE_MS);
	tempo_order_stats(o, &st);
	KUNIT_EXPECT_EQ(test, st.timed_out, 0);

	/* Ticket 1 goes missing; 2 and 3 are stored behind it. */
	start = ktime_get();
	for (i = 1; i < 4; i++)
		KUNIT_ASSERT_EQ(test, tempo_order_ticket_try(o, &items[i].ticket), 0);
	KUNIT_EXPECT_EQ(test, tempo_order_run(o, items[2].ticket, ot_record, &items[2]), 0);
	KUNIT_EXPECT_EQ(test, tempo_order_run(o, items[3].ticket, ot_record, &items[3]), 0);

	/*
	 * Wait for the streak to end, not only for its completions: the
	 * head holder counts a completion before it publishes head, so a
	 * snapshot between the two sees pending = next - head still 1.
	 */
	end = jiffies + OT_WAIT;
	do {
		usleep_range(5000, 6000);
		tempo_order_stats(o, &st);
	} while ((st.completed < 3 || st.pending) && time_before(jiffies, end));
	waited_ms = ktime_ms_delta(ktime_get(), start);

	KUNIT_EXPECT_EQ(test, st.completed, 3);
	KUNIT_EXPECT_EQ(test, st.timed_out, 1);
	KUNIT_EXPECT_EQ(test, st.pending, 0);
	KUNIT_EXPECT_GE(test, waited_ms, OT_DEADLINE_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&items[1].runs), 0);
	KUNIT_ASSERT_EQ(test, log->n, 3);
	KUNIT_EXPECT_EQ(test, log->seq[1], items[2].ticket);
	KUNIT_EXPECT_EQ(test, log->seq[2], items[3].ticket);

	/* The owner shows up late. */
	KUNIT_EXPECT_EQ(test, tempo_order_run(o, items[1].ticket, ot_record, &items[1]), -ETIME);
	KUNIT_EXPECT_EQ(test, tempo_order_trash(o, items[1].ticket), -ETIME);
	KUNIT_EXPECT_EQ(test, atomic_read(&items[1].runs), 0);

	/* The stream continues. */
	KUNIT_ASSERT_EQ(test, tempo_order_ticket_try(o, &items[4].ticket), 0);
	KUNIT_EXPECT_EQ(test, tempo_order_run(o, items[4].ticket, ot_record, &items[4]), 1);
	tempo_order_stats(o, &st);
	KUNIT_EXPECT_EQ(test, st.taken, 5);
	KUNIT_EXPECT_EQ(test, st.completed, 4);
	KUNIT_EXPECT_EQ(test, st.timed_out, 1);
	ot_expect_log_clean(test, log);
	tempo_order_destroy(o);
}

/*
 * submit() with TEMPO_ORDER_SPREAD: work that sleeps for random times,
 * completions in order.
 * Fails if: submit completes out of order or twice, leaves an online CPU
 * without work (TEMPO_ORDER_SPREAD ignored), or never finishes with a window
 * smaller than the requests.
 */
#define OT_SUBMIT_N	48

struct ot_req {
	struct tempo_order_req	ord;
	unsigned int		idx;
	unsigned int		sleep_ms;
	int			cpu;
	struct ot_item		item;
	atomic_t		*left;
	struct completion	*all_done;
	int			status;
};

static void ot_req_work(struct tempo_order_req *r)
{
	struct ot_req *req = container_of(r, struct ot_req, ord);

	req->cpu = raw_smp_processor_id();
	msleep(req->sleep_ms);
}

static void ot_req_done(struct tempo_order_req *r)
{
	struct ot_req *req = container_of(r, struct ot_req, ord);

	req->status = r->status;
	req->item.ticket = r->ticket;
	ot_record(&req->item);
	if (atomic_dec_and_test(req->left))
		complete(req->all_done);
}

static void tempo_order_submit_sleeping_work(struct kunit *test)
{
	struct ot_log *log = ot_log_new(test, OT_SUBMIT_N);
	struct ot_req *reqs = kunit_kcalloc(test, OT_SUBMIT_N, sizeof(*reqs), GFP_KERNEL);
	DECLARE_COMPLETION_ONSTACK(all_done);
	struct tempo_order_stats st;
	struct tempo_order *o;
	cpumask_t used;
	atomic_t left;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, reqs);
	o = ot_create(test, 16, NULL);	/* less than N: submit also blocks */
	atomic_set(&left, OT_SUBMIT_N);
	for (i = 0; i < OT_SUBMIT_N; i++) {
		reqs[i].idx = i;
		/* Later requests tend to finish first. */
		reqs[i].sleep_ms = 1 + (OT_SUBMIT_N - i) % 7 + get_random_u32_below(4);
		reqs[i].item.log = log;
		reqs[i].left = &left;
		reqs[i].all_done = &all_done;
		reqs[i].status = -ENOEXEC;
		KUNIT_ASSERT_EQ(test, tempo_order_submit(o, &reqs[i].ord, ot_req_work,
							 ot_req_done, TEMPO_ORDER_SPREAD), 0);
	}
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&all_done, OT_WAIT));
	ot_wait_quiet(o, &st);

	KUNIT_ASSERT_EQ(test, log->n, OT_SUBMIT_N);
	cpumask_clear(&used);
	for (i = 0; i < OT_SUBMIT_N; i++) {
		KUNIT_EXPECT_EQ(test, log->seq[i], reqs[i].ord.ticket);
		KUNIT_EXPECT_EQ(test, atomic_read(&reqs[i].item.runs), 1);
		KUNIT_EXPECT_EQ(test, reqs[i].status, 0);
		if (reqs[i].cpu >= 0 && reqs[i].cpu < nr_cpu_ids)
			cpumask_set_cpu(reqs[i].cpu, &used);
	}
	/* Spread over the online CPUs. */
	KUNIT_EXPECT_EQ(test, cpumask_weight(&used), num_online_cpus());
	KUNIT_EXPECT_EQ(test, st.completed, OT_SUBMIT_N);
	KUNIT_EXPECT_EQ(test, st.pending, 0);
	ot_expect_log_clean(test, log);
	tempo_order_destroy(o);
}

/*
 * Where submit() runs the work_fns: without TEMPO_ORDER_SPREAD every one on
 * the submitting CPU, with it on every online CPU in turn. The submitting
 * CPU is held by preemption being off while it submits (twice a batch and
 * more, so that a cut work item is among them).
 * Fails if: a work_fn runs on another CPU than the submitter's (requests
 * spread without TEMPO_ORDER_SPREAD), an online CPU runs none with it (the
 * flag ignored), or the completions are out of order.
 */
#define OT_LOCAL_N	(2 * TEMPO_ORDER_SUBMIT_BATCH + 3)

/* Submit OT_LOCAL_N requests from one CPU; the CPUs their work ran on. */
static void ot_submit_from_one_cpu(struct kunit *test, unsigned int flags,
				   int *cpu, cpumask_t *used)
{
	struct ot_log *log = ot_log_new(test, OT_LOCAL_N);
	struct ot_req *reqs = kunit_kcalloc(test, OT_LOCAL_N, sizeof(*reqs), GFP_KERNEL);
	DECLARE_COMPLETION_ONSTACK(all_done);
	struct tempo_order_stats st;
	struct tempo_order *o;
	atomic_t left;
	int i, err = 0;

	KUNIT_ASSERT_NOT_NULL(test, reqs);
	o = ot_create(test, roundup_pow_of_two(OT_LOCAL_N), NULL);
	atomic_set(&left, OT_LOCAL_N);
	for (i = 0; i < OT_LOCAL_N; i++) {
		reqs[i].item.log = log;
		reqs[i].left = &left;
		reqs[i].all_done = &all_done;
		reqs[i].status = -ENOEXEC;
		reqs[i].cpu = -1;
	}
	preempt_disable();
	*cpu = smp_processor_id();
	for (i = 0; i < OT_LOCAL_N && !err; i++)
		err = tempo_order_submit(o, &reqs[i].ord, ot_req_work, ot_req_done,
					 TEMPO_ORDER_NOWAIT | flags);
	preempt_enable();
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&all_done, OT_WAIT));
	ot_wait_quiet(o, &st);

	KUNIT_ASSERT_EQ(test, log->n, OT_LOCAL_N);
	cpumask_clear(used);
	for (i = 0; i < OT_LOCAL_N; i++) {
		KUNIT_EXPECT_EQ(test, log->seq[i], reqs[i].ord.ticket);
		KUNIT_EXPECT_EQ(test, reqs[i].status, 0);
		KUNIT_ASSERT_TRUE(test, reqs[i].cpu >= 0 && reqs[i].cpu < nr_cpu_ids);
		cpumask_set_cpu(reqs[i].cpu, used);
	}
	KUNIT_EXPECT_EQ(test, st.completed, OT_LOCAL_N);
	ot_expect_log_clean(test, log);
	tempo_order_destroy(o);
}

static void tempo_order_submit_where_work_runs(struct kunit *test)
{
	cpumask_t used;
	int cpu;

	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU online: nowhere else to run");
	ot_submit_from_one_cpu(test, 0, &cpu, &used);
	KUNIT_EXPECT_EQ(test, cpumask_weight(&used), 1);
	KUNIT_EXPECT_TRUE(test, cpumask_test_cpu(cpu, &used));
	ot_submit_from_one_cpu(test, TEMPO_ORDER_SPREAD, &cpu, &used);
	KUNIT_EXPECT_EQ(test, cpumask_weight(&used), num_online_cpus());
}

/*
 * submit() with TEMPO_ORDER_NOWAIT on a full window fails at once.
 * Fails if: TEMPO_ORDER_NOWAIT sleeps or succeeds on a full window, or an
 * unknown flag is accepted.
 */
static void tempo_order_submit_nowait_full(struct kunit *test)
{
	struct ot_log *log = ot_log_new(test, 8);
	struct ot_req *reqs = kunit_kcalloc(test, 3, sizeof(*reqs), GFP_KERNEL);
	DECLARE_COMPLETION_ONSTACK(all_done);
	struct tempo_order *o;
	atomic_t left;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, reqs);
	o = ot_create(test, 2, NULL);
	atomic_set(&left, 2);
	for (i = 0; i < 3; i++) {
		reqs[i].sleep_ms = 50;
		reqs[i].item.log = log;
		reqs[i].left = &left;
		reqs[i].all_done = &all_done;
	}
	KUNIT_EXPECT_EQ(test, tempo_order_submit(o, &reqs[0].ord, ot_req_work, ot_req_done,
						 TEMPO_ORDER_NOWAIT), 0);
	KUNIT_EXPECT_EQ(test, tempo_order_submit(o, &reqs[1].ord, ot_req_work, ot_req_done,
						 TEMPO_ORDER_NOWAIT), 0);
	KUNIT_EXPECT_EQ(test, tempo_order_submit(o, &reqs[2].ord, ot_req_work, ot_req_done,
						 TEMPO_ORDER_NOWAIT), -EAGAIN);
	KUNIT_EXPECT_EQ(test, tempo_order_submit(o, &reqs[2].ord, ot_req_work, ot_req_done,
						 0x80), -EINVAL);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&all_done, OT_WAIT));
	KUNIT_EXPECT_EQ(test, log->n, 2);
	tempo_order_destroy(o);
}

/*
 * A work_fn that sleeps holds up at most the requests after it in its work
 * item (TEMPO_ORDER_SUBMIT_BATCH in all): the requests submitted to its CPU
 * after those still run while it sleeps, on the workqueue's other workers.
 * All requests are submitted with preemption off, so that this CPU's worker
 * cannot start before the last: its inbox then holds half of them, the first
 * (the one its work item belongs to) blocks until the test lets it go.
 */
#define OT_CUT_N	(8 * TEMPO_ORDER_SUBMIT_BATCH)

struct ot_cut {
	struct tempo_order_req	ord;
	struct ot_item		item;
	struct ot_cut_ctx	*ctx;
};

struct ot_cut_ctx {
	int			cpu;		/* the submitting CPU */
	atomic_t		blocker;	/* a work_fn of cpu took the role */
	atomic_t		worked;		/* work_fns that returned */
	atomic_t		left;
	struct completion	release;
	struct completion	all_done;
};

static void ot_cut_work(struct tempo_order_req *r)
{
	struct ot_cut *c = container_of(r, struct ot_cut, ord);
	struct ot_cut_ctx *ctx = c->ctx;

	if (raw_smp_processor_id() == ctx->cpu && !atomic_xchg(&ctx->blocker, 1))
		wait_for_completion(&ctx->release);
	atomic_inc(&ctx->worked);
}

static void ot_cut_done(struct tempo_order_req *r)
{
	struct ot_cut *c = container_of(r, struct ot_cut, ord);

	c->item.ticket = r->ticket;
	ot_record(&c->item);
	if (atomic_dec_and_test(&c->ctx->left))
		complete(&c->ctx->all_done);
}

/*
 * Fails if: order_submit_chain() does not cut a chain after
 * TEMPO_ORDER_SUBMIT_BATCH requests, or queues the rest only after running
 * its own (a sleeping work_fn then holds up its CPU's whole inbox).
 */
static void tempo_order_submit_sleep_holds_its_cut(struct kunit *test)
{
	struct ot_log *log = ot_log_new(test, OT_CUT_N);
	struct ot_cut *reqs = kunit_kcalloc(test, OT_CUT_N, sizeof(*reqs), GFP_KERNEL);
	struct ot_cut_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	struct tempo_order_stats st;
	unsigned long end;
	struct tempo_order *o;
	int i, err = 0;

	KUNIT_ASSERT_NOT_NULL(test, reqs);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	o = ot_create(test, 2 * OT_CUT_N, NULL);
	init_completion(&ctx->release);
	init_completion(&ctx->all_done);
	atomic_set(&ctx->left, OT_CUT_N);
	for (i = 0; i < OT_CUT_N; i++) {
		reqs[i].item.log = log;
		reqs[i].ctx = ctx;
	}
	preempt_disable();
	ctx->cpu = smp_processor_id();
	for (i = 0; i < OT_CUT_N && !err; i++)
		err = tempo_order_submit(o, &reqs[i].ord, ot_cut_work, ot_cut_done,
					 TEMPO_ORDER_NOWAIT);
	preempt_enable();
	KUNIT_ASSERT_EQ(test, err, 0);

	/* Everything but the blocker's cut works while it sleeps. */
	end = jiffies + OT_WAIT;
	while (atomic_read(&ctx->worked) < OT_CUT_N - TEMPO_ORDER_SUBMIT_BATCH &&
	       time_before(jiffies, end))
		usleep_range(1000, 2000);
	KUNIT_EXPECT_GE(test, atomic_read(&ctx->worked), OT_CUT_N - TEMPO_ORDER_SUBMIT_BATCH);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->blocker), 1);
	/* In order: nothing after the blocker's ticket has completed. */
	KUNIT_EXPECT_LT(test, atomic_read(&log->total), OT_CUT_N);

	complete(&ctx->release);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&ctx->all_done, OT_WAIT));
	ot_wait_quiet(o, &st);
	KUNIT_EXPECT_EQ(test, log->n, OT_CUT_N);
	for (i = 0; i < OT_CUT_N; i++) {
		KUNIT_EXPECT_EQ(test, log->seq[i], reqs[i].ord.ticket);
		KUNIT_EXPECT_EQ(test, atomic_read(&reqs[i].item.runs), 1);
		KUNIT_EXPECT_EQ(test, reqs[i].ord.status, 0);
	}
	ot_expect_log_clean(test, log);
	tempo_order_destroy(o);
}

/*
 * A blocking submit waits for room for a batch, but not for ever: here the
 * test holds the tickets the room waits for, and frees one at a time.
 * Fails if: order_submit_ticket() waits for a quarter of the window with no
 * bound (the submit never returns while one ticket is free).
 */
#define OT_ROOM_W	16

struct ot_room {
	struct tempo_order	*o;
	struct ot_req		req;
	int			ret;
	struct completion	done;
};

static int ot_room_fn(void *data)
{
	struct ot_room *r = data;

	r->ret = tempo_order_submit(r->o, &r->req.ord, ot_req_work, ot_req_done, 0);
	kthread_complete_and_exit(&r->done, 0);
}

static void tempo_order_submit_blocked_takes_what_is_free(struct kunit *test)
{
	struct ot_log *log = ot_log_new(test, 2 * OT_ROOM_W);
	struct ot_room *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct ot_item items[OT_ROOM_W] = {};
	DECLARE_COMPLETION_ONSTACK(all_done);
	struct tempo_order_stats st = {};
	struct task_struct *task;
	struct tempo_order *o;
	atomic_t left;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	o = ot_create(test, OT_ROOM_W, NULL);
	for (i = 0; i < OT_ROOM_W; i++) {
		items[i].log = log;
		KUNIT_ASSERT_EQ(test, tempo_order_ticket_try(o, &items[i].ticket), 0);
	}
	atomic_set(&left, 1);
	r->o = o;
	r->req.item.log = log;
	r->req.left = &left;
	r->req.all_done = &all_done;
	init_completion(&r->done);
	task = kthread_run(ot_room_fn, r, "ot_room");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	KUNIT_EXPECT_FALSE(test, wait_for_completion_timeout(&r->done, msecs_to_jiffies(50)));
	/* One ticket of room, less than a quarter of the window. */
	KUNIT_EXPECT_EQ(test, tempo_order_run(o, items[0].ticket, ot_record, &items[0]), 1);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&r->done, OT_WAIT));
	KUNIT_EXPECT_EQ(test, r->ret, 0);
	KUNIT_EXPECT_EQ(test, r->req.ord.ticket, items[OT_ROOM_W - 1].ticket + 1);
	/* One blocked call, one wait, however many times it slept. */
	tempo_order_stats(o, &st);
	KUNIT_EXPECT_EQ(test, st.waits, 1);
	for (i = 1; i < OT_ROOM_W; i++)
		KUNIT_EXPECT_EQ(test, tempo_order_run(o, items[i].ticket, ot_record, &items[i]), 1);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&all_done, OT_WAIT));
	KUNIT_EXPECT_EQ(test, log->n, OT_ROOM_W + 1);
	ot_expect_log_clean(test, log);
	tempo_order_destroy(o);
}

/*
 * Mutual exclusion and order under contention: every thread takes tickets
 * and completes them at once, with completions slow enough to overlap.
 * Fails if: two threads hold the head token at once (a hand-off or a claim
 * that is not one cmpxchg from the state read), so completions overlap.
 */
struct ot_loop {
	struct tempo_order	*o;
	struct ot_log		*log;
	const ktime_t		*until;
	atomic_t		*gate;
	atomic_t		errors;
	unsigned int		count;
	struct completion	done;
};

static void ot_slow_record(void *arg)
{
	ot_record(arg);
	udelay(2);
	kfree(arg);
}

static int ot_loop_fn(void *data)
{
	struct ot_loop *l = data;
	struct ot_item *it;
	u64 t;

	while (!atomic_read_acquire(l->gate))
		cpu_relax();
	while (ktime_before(ktime_get(), *l->until)) {
		it = kzalloc(sizeof(*it), GFP_KERNEL);
		if (!it || tempo_order_ticket(l->o, &t)) {
			kfree(it);
			atomic_inc(&l->errors);
			break;
		}
		it->log = l->log;
		it->ticket = t;
		if (get_random_u32_below(2))
			udelay(get_random_u32_below(10));
		if (tempo_order_run(l->o, t, ot_slow_record, it) < 0)
			atomic_inc(&l->errors);
		l->count++;
	}
	kthread_complete_and_exit(&l->done, 0);
}

static void tempo_order_mutual_exclusion(struct kunit *test)
{
	unsigned int nthreads = max(4U, 2 * num_online_cpus()), j, total = 0;
	struct ot_log *log = ot_log_new(test, 1);
	struct tempo_order_stats st;
	struct tempo_order *o;
	struct ot_loop *l;
	ktime_t until;
	atomic_t gate;

	l = kunit_kcalloc(test, nthreads, sizeof(*l), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, l);
	o = ot_create(test, 32, NULL);
	atomic_set(&gate, 0);
	for (j = 0; j < nthreads; j++) {
		struct task_struct *task;

		l[j].o = o;
		l[j].log = log;
		l[j].gate = &gate;
		l[j].until = &until;
		init_completion(&l[j].done);
		task = kthread_run(ot_loop_fn, &l[j], "ot_loop/%u", j);
		KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	}
	/* From the start gate on: creating threads is slow under TCG. */
	until = ktime_add_ms(ktime_get(), 300);
	atomic_set_release(&gate, 1);
	for (j = 0; j < nthreads; j++) {
		KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&l[j].done, OT_WAIT));
		KUNIT_EXPECT_EQ(test, atomic_read(&l[j].errors), 0);
		total += l[j].count;
	}
	ot_wait_quiet(o, &st);
	KUNIT_EXPECT_GT(test, total, 0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&log->total), total);
	KUNIT_EXPECT_EQ(test, st.completed, total);
	ot_expect_log_clean(test, log);
	tempo_order_destroy(o);
}

/*
 * Exactly once: every ticket is handed to run() by two threads at the same
 * time. One call wins (1 or 0), the other gets -EINVAL, and the completion
 * runs once.
 * Fails if: order_put() claims a slot by anything but a cmpxchg from the word
 * it read, so both calls succeed or the completion runs twice.
 */
#define OT_DUP_N	64

struct ot_dup {
	struct tempo_order	*o;
	struct ot_item		*items;
	atomic_t		*gate;
	unsigned int		n;
	int			*ret;
	struct completion	done;
};

static int ot_dup_fn(void *data)
{
	struct ot_dup *d = data;
	unsigned int i;

	while (!atomic_read_acquire(d->gate))
		cpu_relax();
	/* Backwards, so most calls store and race on the slot, not the head. */
	for (i = d->n; i-- > 0;)
		d->ret[i] = tempo_order_run(d->o, d->items[i].ticket, ot_record,
					    &d->items[i]);
	kthread_complete_and_exit(&d->done, 0);
}

static void tempo_order_exactly_once(struct kunit *test)
{
	struct ot_log *log = ot_log_new(test, OT_DUP_N);
	struct ot_item *items = kunit_kcalloc(test, OT_DUP_N, sizeof(*items), GFP_KERNEL);
	int *ret = kunit_kcalloc(test, 2 * OT_DUP_N, sizeof(*ret), GFP_KERNEL);
	struct tempo_order_stats st;
	struct tempo_order *o;
	struct ot_dup d[2];
	atomic_t gate;
	int i, j;

	KUNIT_ASSERT_NOT_NULL(test, items);
	KUNIT_ASSERT_NOT_NULL(test, ret);
	o = ot_create(test, OT_DUP_N, NULL);
	for (i = 0; i < OT_DUP_N; i++) {
		items[i].log = log;
		KUNIT_ASSERT_EQ(test, tempo_order_ticket_try(o, &items[i].ticket), 0);
	}
	atomic_set(&gate, 0);
	for (j = 0; j < 2; j++) {
		struct task_struct *task;

		d[j] = (struct ot_dup){ .o = o, .items = items, .gate = &gate,
			.n = OT_DUP_N, .ret = ret + j * OT_DUP_N };
		init_completion(&d[j].done);
		task = kthread_run(ot_dup_fn, &d[j], "ot_dup/%d", j);
		KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	}
	atomic_set_release(&gate, 1);
	for (j = 0; j < 2; j++)
		KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&d[j].done, OT_WAIT));
	ot_wait_quiet(o, &st);

	for (i = 0; i < OT_DUP_N; i++) {
		int a = ret[i], b = ret[OT_DUP_N + i];

		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&items[i].runs), 1, "ticket %d", i);
		KUNIT_EXPECT_TRUE_MSG(test, (a >= 0 && b == -EINVAL) ||
				      (b >= 0 && a == -EINVAL),
				      "ticket %d: %d and %d", i, a, b);
	}
	KUNIT_EXPECT_EQ(test, log->n, OT_DUP_N);
	KUNIT_EXPECT_EQ(test, st.completed, OT_DUP_N);
	ot_expect_log_clean(test, log);
	tempo_order_destroy(o);
}

/*
 * Streak bound: with max_streak = 4, the caller that finds 99 completions
 * stored behind its own runs 4 in all and hands the rest to the workqueue,
 * which still runs them in order, 4 at a time.
 * Fails if: a head holder passes more than max_streak tickets, or the rest it
 * defers is not continued on the workqueue, in order (order_defer()).
 */
#define OT_STREAK_N	100

static void tempo_order_streak_bound(struct kunit *test)
{
	struct tempo_order_opts opts = { .max_streak = 4 };
	struct ot_log *log = ot_log_new(test, OT_STREAK_N);
	struct ot_item *items = kunit_kcalloc(test, OT_STREAK_N, sizeof(*items), GFP_KERNEL);
	struct tempo_order_stats st;
	struct tempo_order *o;
	unsigned int mine = 0;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, items);
	o = ot_create(test, 128, &opts);
	for (i = 0; i < OT_STREAK_N; i++) {
		items[i].log = log;
		KUNIT_ASSERT_EQ(test, tempo_order_ticket_try(o, &items[i].ticket), 0);
	}
	for (i = OT_STREAK_N - 1; i > 0; i--)
		KUNIT_EXPECT_EQ(test, tempo_order_run(o, items[i].ticket, ot_record, &items[i]), 0);
	KUNIT_EXPECT_EQ(test, tempo_order_run(o, items[0].ticket, ot_record, &items[0]), 1);
	ot_wait_quiet(o, &st);

	KUNIT_ASSERT_EQ(test, log->n, OT_STREAK_N);
	for (i = 0; i < OT_STREAK_N; i++) {
		KUNIT_EXPECT_EQ(test, log->seq[i], items[i].ticket);
		KUNIT_EXPECT_EQ(test, atomic_read(&items[i].runs), 1);
		if (log->who[i] == current)
			mine++;
	}
	KUNIT_EXPECT_EQ(test, mine, 4);
	KUNIT_EXPECT_EQ(test, st.longest_streak, 4);
	KUNIT_EXPECT_GE(test, st.deferred, (OT_STREAK_N - 4) / 4);
	KUNIT_EXPECT_EQ(test, st.completed, OT_STREAK_N);
	ot_expect_log_clean(test, log);
	tempo_order_destroy(o);
}

/*
 * Wrap safety: domains whose tickets cross U64_MAX, the sign bit and the
 * 61-bit tag boundary behave like one starting at 0.
 * Fails if: a ticket comparison is not a signed difference, or a slot's tag
 * keeps too few bits, so a ticket a lap away or across U64_MAX aliases.
 */
static const u64 ot_wrap_starts[] = {
	0,
	U64_MAX - 5,
	(1ULL << 61) - 5,
	(u64)S64_MAX - 5,
	U64_MAX - (1ULL << 20),
};

static void ot_wrap_one(struct kunit *test, u64 first)
{
	struct tempo_order_opts opts = { .first_ticket = first };
	struct ot_log *log = ot_log_new(test, 32);
	struct ot_item items[8] = {};
	struct tempo_order_stats st;
	struct tempo_order *o;
	unsigned int round, i;
	u64 t, want = opts.first_ticket;

	o = ot_create(test, 8, &opts);
	for (round = 0; round < 4; round++) {
		for (i = 0; i < 8; i++) {
			items[i].log = log;
			atomic_set(&items[i].runs, 0);
			KUNIT_ASSERT_EQ(test, tempo_order_ticket_try(o, &items[i].ticket), 0);
			KUNIT_EXPECT_EQ(test, items[i].ticket, want + round * 8 + i);
		}
		KUNIT_EXPECT_EQ(test, tempo_order_ticket_try(o, &t), -EAGAIN);
		/* Not yet handed out, and long finished: both refused. */
		KUNIT_EXPECT_EQ(test, tempo_order_run(o, want + round * 8 + 8,
						      ot_record, &items[0]), -EINVAL);
		if (round)
			KUNIT_EXPECT_EQ(test, tempo_order_run(o, want, ot_record,
							      &items[0]), -EINVAL);
		for (i = 7; i > 0; i--)
			KUNIT_EXPECT_EQ(test, tempo_order_run(o, items[i].ticket,
							      ot_record, &items[i]), 0);
		KUNIT_EXPECT_EQ(test, tempo_order_run(o, items[0].ticket,
						      ot_record, &items[0]), 1);
		for (i = 0; i < 8; i++)
			KUNIT_EXPECT_EQ(test, atomic_read(&items[i].runs), 1);
	}
	KUNIT_ASSERT_EQ(test, log->n, 32);
	for (i = 0; i < 32; i++)
		KUNIT_EXPECT_EQ(test, log->seq[i], want + i);
	tempo_order_stats(o, &st);
	KUNIT_EXPECT_EQ(test, st.taken, 32);
	KUNIT_EXPECT_EQ(test, st.completed, 32);
	KUNIT_EXPECT_EQ(test, st.pending, 0);
	ot_expect_log_clean(test, log);
	tempo_order_destroy(o);
}

static void tempo_order_wrap_safe(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ot_wrap_starts); i++) {
		kunit_info(test, "first_ticket %#llx\n", ot_wrap_starts[i]);
		ot_wrap_one(test, ot_wrap_starts[i]);
	}
}

/*
 * Stress on all CPUs, for order_stress_ms: producers take tickets (blocking
 * or try), then run, trash or (producer 0, now and then) lose them; the
 * deadline times the lost ones out. Payloads carry per-producer sequence
 * numbers. Checked: global ticket order, per-producer order, no double
 * completion, no overlap, and the conservation law
 *	taken = completed + trashed + timed_out + pending
 * against both the domain's counters and the producers' own counts.
 * Fails if: any completion is doubled, overlapped or out of global or
 * per-producer order, or a ticket is lost from the conservation law, under
 * timeouts, trashes and blocked takers on every CPU.
 */
#define OT_STRESS_WINDOW	256
#define OT_STRESS_DEADLINE_MS	50
#define OT_STRESS_LOSE_EVERY_MS	250

struct ot_payload {
	struct ot_stress	*s;
	u64			ticket;
	u64			seq;
	unsigned int		prod;
	atomic_t		consumed;
};

struct ot_producer {
	struct ot_stress	*s;
	unsigned int		id;
	struct ot_payload	*pay;		/* OT_STRESS_WINDOW, reused by seq */
	u64			taken, run, trashed, lost, late, stale, again;
	atomic_t		errors;
	struct completion	done;
};

struct ot_stress {
	struct tempo_order	*o;
	ktime_t			until;
	atomic_t		gate;
	/* Under the head token: */
	u64			last_ticket;
	bool			any;
	u64			*last_seq;	/* per producer, +1 */
	u64			completions;
	atomic_t		disorder, prod_disorder, doubles, inside, overlap;
};

static void ot_stress_done(void *arg)
{
	struct ot_payload *p = arg;
	struct ot_stress *s = p->s;

	if (atomic_inc_return(&s->inside) != 1)
		atomic_inc(&s->overlap);
	if (atomic_inc_return(&p->consumed) != 1)
		atomic_inc(&s->doubles);
	if (s->any && (s64)(p->ticket - s->last_ticket) <= 0)
		atomic_inc(&s->disorder);
	s->any = true;
	s->last_ticket = p->ticket;
	if (p->seq + 1 <= s->last_seq[p->prod])
		atomic_inc(&s->prod_disorder);
	s->last_seq[p->prod] = p->seq + 1;
	s->completions++;
	atomic_dec(&s->inside);
}

static int ot_producer_fn(void *data)
{
	struct ot_producer *pr = data;
	struct ot_stress *s = pr->s;
	ktime_t last_loss = ktime_get();
	struct ot_payload *p;
	u64 seq = 0, t;
	int ret;

	while (!atomic_read_acquire(&s->gate))
		cpu_relax();
	while (ktime_before(ktime_get(), s->until)) {
		if (seq & 1) {
			ret = tempo_order_ticket_try(s->o, &t);
			if (ret == -EAGAIN) {
				pr->again++;
				ret = tempo_order_ticket(s->o, &t);
			}
		} else {
			ret = tempo_order_ticket(s->o, &t);
		}
		if (ret) {
			atomic_inc(&pr->errors);
			break;
		}
		pr->taken++;
		/* Reusable: ticket t - W, this entry's last user, is finished. */
		p = &pr->pay[seq % OT_STRESS_WINDOW];
		p->s = s;
		p->ticket = t;
		p->seq = seq++;
		p->prod = pr->id;
		atomic_set(&p->consumed, 0);

		if (get_random_u32_below(4) == 0)
			udelay(get_random_u32_below(8));
		if (pr->id == 0 &&
		    ktime_ms_delta(ktime_get(), last_loss) >= OT_STRESS_LOSE_EVERY_MS) {
			last_loss = ktime_get();
			pr->lost++;
			continue;
		}
		if (get_random_u32_below(32) == 0) {
			ret = tempo_order_trash(s->o, t);
			if (ret >= 0)
				pr->trashed++;
		} else {
			ret = tempo_order_run(s->o, t, ot_stress_done, p);
			if (ret >= 0)
				pr->run++;
		}
		/*
		 * Preempted past the deadline between take and run: timed out,
		 * -ETIME; or -EINVAL if, meanwhile, the next ticket of the same
		 * slot timed out too (the contract does not promise -ETIME then).
		 * Either is counted, and must be a timeout: the conservation law
		 * below holds them to st.timed_out.
		 */
		if (ret == -ETIME)
			pr->late++;
		else if (ret == -EINVAL)
			pr->stale++;
		else if (ret < 0)
			atomic_inc(&pr->errors);
		if (!(seq & 63))
			cond_resched();
	}
	kthread_complete_and_exit(&pr->done, 0);
}

static void tempo_order_stress_conservation(struct kunit *test)
{
	struct tempo_order_opts opts = {
		.deadline_ns = OT_STRESS_DEADLINE_MS * NSEC_PER_MSEC,
		.max_streak = 16,
	};
	unsigned int nprod = 2 * num_online_cpus(), i;
	u64 taken = 0, run = 0, trashed = 0, lost = 0, late = 0, stale = 0, again = 0;
	struct tempo_order_stats st;
	struct ot_producer *pr;
	struct ot_stress *s;

	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	pr = kunit_kcalloc(test, nprod, sizeof(*pr), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_NOT_NULL(test, pr);
	s->last_seq = kunit_kcalloc(test, nprod, sizeof(*s->last_seq), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s->last_seq);
	s->o = ot_create(test, OT_STRESS_WINDOW, &opts);

	for (i = 0; i < nprod; i++) {
		struct task_struct *task;

		pr[i].s = s;
		pr[i].id = i;
		pr[i].pay = kunit_kcalloc(test, OT_STRESS_WINDOW, sizeof(*pr[i].pay),
					  GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, pr[i].pay);
		init_completion(&pr[i].done);
		task = kthread_create(ot_producer_fn, &pr[i], "ot_prod/%u", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(task));
		kthread_bind(task, cpumask_nth(i % num_online_cpus(), cpu_online_mask));
		wake_up_process(task);
	}
	s->until = ktime_add_ms(ktime_get(), order_stress_ms);
	atomic_set_release(&s->gate, 1);
	for (i = 0; i < nprod; i++) {
		unsigned long tmo = msecs_to_jiffies(order_stress_ms) + OT_WAIT;

		KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&pr[i].done, tmo));
		KUNIT_EXPECT_EQ(test, atomic_read(&pr[i].errors), 0);
		taken += pr[i].taken;
		run += pr[i].run;
		trashed += pr[i].trashed;
		lost += pr[i].lost;
		late += pr[i].late;
		stale += pr[i].stale;
		again += pr[i].again;
	}
	/* The lost tickets time out within about a deadline each. */
	ot_wait_quiet(s->o, &st);

	kunit_info(test, "%u producers: taken %llu run %llu trashed %llu lost %llu late %llu (%llu of them stale), -EAGAIN %llu, longest streak %llu, deferred %llu\n",
		   nprod, taken, run, trashed, lost, late + stale, stale, again,
		   st.longest_streak, st.deferred);
	KUNIT_EXPECT_GT(test, taken, 0);
	KUNIT_EXPECT_EQ(test, st.taken, taken);
	KUNIT_EXPECT_EQ(test, st.completed, run);
	KUNIT_EXPECT_EQ(test, s->completions, run);
	KUNIT_EXPECT_EQ(test, st.trashed, trashed);
	KUNIT_EXPECT_EQ(test, st.timed_out, lost + late + stale);
	KUNIT_EXPECT_EQ(test, st.pending, 0);
	KUNIT_EXPECT_EQ(test, st.stored, 0);
	KUNIT_EXPECT_EQ(test, st.taken,
			st.completed + st.trashed + st.timed_out + st.pending);
	KUNIT_EXPECT_LE(test, st.longest_streak, 16);
	KUNIT_EXPECT_EQ(test, atomic_read(&s->disorder), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&s->prod_disorder), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&s->doubles), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&s->overlap), 0);
	tempo_order_destroy(s->o);
}

/*
 * Module-wide totals (debugfs tempo/order): live domains count, destroyed
 * ones are folded in. (The file itself cannot be read from here on 6.1:
 * kernel_read() needs ->read_iter, which debugfs lacks; see main_test.c.)
 * Fails if: the totals lose a live domain's counts (order_stats_add()) or a
 * destroyed domain's (the fold in tempo_order_destroy()).
 */
static void tempo_order_module_totals(struct kunit *test)
{
	struct tempo_order_stats before, live, after;
	struct dentry *dir, *file;
	struct tempo_order *o;
	u64 domains, t;
	bool ran = false;

	dir = debugfs_lookup("tempo", NULL);
	if (!IS_ERR_OR_NULL(dir)) {
		file = debugfs_lookup("order", dir);
		KUNIT_EXPECT_NOT_ERR_OR_NULL(test, file);
		dput(file);
		dput(dir);
	}

	domains = tempo_order_stats_all(&before);
	o = ot_create(test, 4, NULL);
	KUNIT_ASSERT_EQ(test, tempo_order_ticket_try(o, &t), 0);
	KUNIT_EXPECT_EQ(test, tempo_order_run(o, t, ot_set_flag, &ran), 1);
	KUNIT_ASSERT_EQ(test, tempo_order_ticket_try(o, &t), 0);
	KUNIT_EXPECT_EQ(test, tempo_order_trash(o, t), 1);
	KUNIT_ASSERT_EQ(test, tempo_order_ticket_try(o, &t), 0);

	KUNIT_EXPECT_EQ(test, tempo_order_stats_all(&live), domains + 1);
	KUNIT_EXPECT_EQ(test, live.taken, before.taken + 3);
	KUNIT_EXPECT_EQ(test, live.pending, before.pending + 1);
	KUNIT_EXPECT_EQ(test, tempo_order_trash(o, t), 1);
	tempo_order_destroy(o);

	KUNIT_EXPECT_EQ(test, tempo_order_stats_all(&after), domains);
	KUNIT_EXPECT_TRUE(test, ran);
	KUNIT_EXPECT_EQ(test, after.taken, before.taken + 3);
	KUNIT_EXPECT_EQ(test, after.completed, before.completed + 1);
	KUNIT_EXPECT_EQ(test, after.trashed, before.trashed + 2);
	KUNIT_EXPECT_EQ(test, after.pending, before.pending);
}

/*
 * Ticket validity around the start and the window's edges: a ticket never
 * handed out (before the first, at or past next, a lap away) is -EINVAL
 * from run() and trash(), with or without a missing-ticket deadline, and
 * changes nothing; so is a ticket already finished. Only an outstanding
 * ticket is accepted. (A slot's "expired" marker starts at the ticket one
 * lap below the start: the validity check must not let such a ticket reach
 * it.)
 * Fails if: order_put() accepts a ticket outside [first, next), or lets one
 * below the start reach order_stale() (-ETIME instead of -EINVAL).
 */
struct ot_valid_case {
	const char	*name;
	u64		first;
	u64		deadline_ns;
};

static const struct ot_valid_case ot_valid_cases[] = {
	{ "first 0",			0,		0 },
	{ "first 0, deadline",		0,		10 * NSEC_PER_SEC },
	{ "first 5",			5,		0 },
	{ "first 5, deadline",		5,		10 * NSEC_PER_SEC },
	{ "first U64_MAX - 1",		U64_MAX - 1,	0 },
	{ "first U64_MAX - 1, deadline", U64_MAX - 1,	10 * NSEC_PER_SEC },
};

#define OT_VALID_WINDOW	4

static void ot_valid_one(struct kunit *test, const struct ot_valid_case *c)
{
	struct tempo_order_opts opts = {
		.first_ticket = c->first,
		.deadline_ns = c->deadline_ns,
	};
	const u64 f = c->first, w = OT_VALID_WINDOW;
	/* Never handed out, or already finished, once f ran and f + 1 is taken. */
	const u64 bad[] = {
		f - 1, f - 2, f - w, f - w + 1, f - 2 * w, f,	/* before, and done */
		f + 2, f + 3, f + w, f + w + 1, f + 2 * w,	/* at or past next */
		U64_MAX, 0, f + (1ULL << 63), f - (1ULL << 62),
	};
	struct tempo_order_stats st;
	struct ot_log *log = ot_log_new(test, 8);
	struct ot_item items[2] = { { .log = log }, { .log = log } };
	struct tempo_order *o = ot_create(test, w, &opts);
	u64 t0, t1;
	unsigned int i;
	int ret;

	KUNIT_ASSERT_EQ(test, tempo_order_ticket_try(o, &t0), 0);
	KUNIT_ASSERT_EQ(test, tempo_order_ticket_try(o, &t1), 0);
	KUNIT_ASSERT_EQ(test, t0, f);
	KUNIT_ASSERT_EQ(test, t1, f + 1);
	items[0].ticket = t0;
	KUNIT_EXPECT_EQ(test, tempo_order_run(o, t0, ot_record, &items[0]), 1);

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		if (bad[i] == t1)
			continue;	/* the outstanding one (an alias on wrap) */
		ret = tempo_order_trash(o, bad[i]);
		KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "trash(first %+lld)",
				    (s64)(bad[i] - f));
		ret = tempo_order_run(o, bad[i], ot_record, &items[1]);
		KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "run(first %+lld)",
				    (s64)(bad[i] - f));
	}
	/* Nothing changed: t1 is still outstanding and the only one. */
	tempo_order_stats(o, &st);
	KUNIT_EXPECT_EQ(test, st.taken, 2);
	KUNIT_EXPECT_EQ(test, st.completed, 1);
	KUNIT_EXPECT_EQ(test, st.trashed, 0);
	KUNIT_EXPECT_EQ(test, st.pending, 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&items[1].runs), 0);

	items[1].ticket = t1;
	KUNIT_EXPECT_EQ(test, tempo_order_run(o, t1, ot_record, &items[1]), 1);
	KUNIT_EXPECT_EQ(test, tempo_order_trash(o, t1), -EINVAL);	/* done */
	KUNIT_EXPECT_EQ(test, atomic_read(&items[1].runs), 1);
	ot_expect_log_clean(test, log);
	tempo_order_destroy(o);
}

/*
 * Skip a range: trash_below(end) trashes exactly the tickets below end not
 * yet submitted, leaves those submitted to run in order, runs the stored
 * completions after the range at once, gives the window its room back,
 * refuses an end beyond what was handed out (changing nothing), and leaves
 * the run() of a trashed ticket -EINVAL.
 * Fails if: tempo_order_trash_below() trashes a submitted ticket, misses one
 * below end, changes anything for an end beyond next, or leaves the stored
 * completions after the range waiting.
 */
static void ot_skip_one(struct kunit *test, const struct ot_valid_case *c)
{
	struct tempo_order_opts opts = {
		.first_ticket = c->first,
		.deadline_ns = c->deadline_ns,
	};
	struct ot_log *log = ot_log_new(test, 16);
	struct ot_item items[8];
	struct tempo_order_stats st;
	struct tempo_order *o = ot_create(test, 8, &opts);
	const u64 f = c->first;
	u64 t;
	int i;

	for (i = 0; i < 8; i++) {
		KUNIT_ASSERT_EQ(test, tempo_order_ticket_try(o, &t), 0);
		KUNIT_ASSERT_EQ(test, t, f + i);
		items[i] = (struct ot_item){ .log = log, .ticket = t };
	}
	/* Submitted: 1, 3 and 5 (behind 0). Not submitted: 0, 2, 4, 6, 7. */
	KUNIT_EXPECT_EQ(test, tempo_order_run(o, f + 1, ot_record, &items[1]), 0);
	KUNIT_EXPECT_EQ(test, tempo_order_run(o, f + 3, ot_record, &items[3]), 0);
	KUNIT_EXPECT_EQ(test, tempo_order_run(o, f + 5, ot_record, &items[5]), 0);
	KUNIT_EXPECT_EQ(test, tempo_order_ticket_try(o, &t), -EAGAIN);	/* full */

	/* Beyond what was handed out: refused, nothing changed. */
	KUNIT_EXPECT_EQ(test, tempo_order_trash_below(o, f + 9), -EINVAL);
	KUNIT_EXPECT_EQ(test, tempo_order_trash_below(o, f - 1), -EINVAL);
	tempo_order_stats(o, &st);
	KUNIT_EXPECT_EQ(test, st.trashed, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&log->total), 0);

	/* 0, 2 and 4 go; 1, 3 and 5 complete at once, in order. */
	KUNIT_EXPECT_EQ(test, tempo_order_trash_below(o, f + 5), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&log->total), 3);
	KUNIT_EXPECT_EQ(test, log->seq[0], f + 1);
	KUNIT_EXPECT_EQ(test, log->seq[1], f + 3);
	KUNIT_EXPECT_EQ(test, log->seq[2], f + 5);
	KUNIT_EXPECT_EQ(test, tempo_order_run(o, f + 2, ot_record, &items[2]), -EINVAL);
	/* Again, or below the head: nothing left to trash there. */
	KUNIT_EXPECT_EQ(test, tempo_order_trash_below(o, f + 5), 0);
	/* The window has its room back: six more tickets. */
	for (i = 0; i < 6; i++)
		KUNIT_EXPECT_EQ(test, tempo_order_ticket_try(o, &t), 0);
	KUNIT_EXPECT_EQ(test, tempo_order_ticket_try(o, &t), -EAGAIN);
	/* All of the rest, the end at next: everything outstanding goes. */
	KUNIT_EXPECT_EQ(test, tempo_order_trash_below(o, f + 14), 8);
	tempo_order_stats(o, &st);
	KUNIT_EXPECT_EQ(test, st.taken, 14);
	KUNIT_EXPECT_EQ(test, st.completed, 3);
	KUNIT_EXPECT_EQ(test, st.trashed, 11);
	KUNIT_EXPECT_EQ(test, st.pending, 0);
	KUNIT_EXPECT_EQ(test, st.timed_out, 0);
	ot_expect_log_clean(test, log);
	tempo_order_destroy(o);
}

static void tempo_order_trash_below_skips(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ot_valid_cases); i++) {
		kunit_info(test, "%s\n", ot_valid_cases[i].name);
		ot_skip_one(test, &ot_valid_cases[i]);
	}
}

/* A loop, not KUNIT_ARRAY_PARAM: see tempo_order_trash_positions(). */
static void tempo_order_ticket_validity(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ot_valid_cases); i++) {
		kunit_info(test, "%s\n", ot_valid_cases[i].name);
		ot_valid_one(test, &ot_valid_cases[i]);
	}
}

/* KUNIT_CASE_SLOW: over a second; make check and check-kcsan run every case. */
static struct kunit_case tempo_order_cases[] = {
	KUNIT_CASE(tempo_order_strict_order_random_arrival),
	KUNIT_CASE(tempo_order_trash_positions),
	KUNIT_CASE(tempo_order_window_full_try),
	KUNIT_CASE(tempo_order_tickets_take_what_fits),
	KUNIT_CASE(tempo_order_window_full_blocks),
	KUNIT_CASE(tempo_order_window_full_signal),
	KUNIT_CASE(tempo_order_deadline_missing_ticket),
	KUNIT_CASE(tempo_order_submit_sleeping_work),
	KUNIT_CASE(tempo_order_submit_where_work_runs),
	KUNIT_CASE(tempo_order_submit_nowait_full),
	KUNIT_CASE(tempo_order_submit_sleep_holds_its_cut),
	KUNIT_CASE(tempo_order_submit_blocked_takes_what_is_free),
	KUNIT_CASE(tempo_order_mutual_exclusion),
	KUNIT_CASE(tempo_order_exactly_once),
	KUNIT_CASE(tempo_order_streak_bound),
	KUNIT_CASE(tempo_order_wrap_safe),
	KUNIT_CASE(tempo_order_ticket_validity),
	KUNIT_CASE(tempo_order_trash_below_skips),
	KUNIT_CASE_SLOW(tempo_order_stress_conservation),
	KUNIT_CASE(tempo_order_module_totals),
	{}
};

static struct kunit_suite tempo_order_suite = {
	.name = "tempo_order",
	.test_cases = tempo_order_cases,
};

kunit_test_suite(tempo_order_suite);
