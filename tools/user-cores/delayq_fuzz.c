// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for kmod/delayq.c against a reference model: per node,
 * queued or not, its deadline and its put order; the queue's order is the
 * queued nodes sorted by (deadline, put order). One simulated CPU and the
 * fake clock, so every run is deterministic and nothing sleeps.
 *
 * The input picks the tempo wheel's tick and levels (the waker's timer), the
 * number of nodes (16..256) and the starting clock (just before a boundary
 * of one of the queue's wheel levels), then a sequence of operations:
 * put, put_at (deadlines past, now, equal to another node's, on level
 * boundaries, beyond the longest delay), requeue (the same deadlines, of a
 * queued node, or after shutdown), put_many (refused nodes in the
 * batch; slots of up to 256 nodes of one deadline), remove, remove_many
 * (duplicates), try_take, take and take_timeout (only where they cannot
 * sleep: with an item due, else take_timeout(0)), drain, consume with a
 * verdict per item (TAKE, AGAIN to a later deadline, STOP), with
 * TEMPO_DELAYQ_WAIT, with TEMPO_DELAYQ_ALL (every item, due or not), with a
 * bad flag, peek, query, size, stats, ready, a
 * watcher on
 * tempo_delayq_waitqueue() attached, detached, answering or not, clock moves
 * of every size (1 ns up to 64^5 of the queue's grains, to a grain or level
 * boundary, to a deadline), each either a jump, a jump with the expired
 * hrtimers and work run once, or a drive from expiry to expiry (so the waker
 * runs at its times), and shutdown. Checked at every step:
 *  - take*, drain and consume hand out nodes in (deadline, put order) order,
 *    never before their deadline; a consumer that comes by finds an item
 *    whenever the model has one due (try_take, take_timeout(0), ready), and
 *    drain and consume with room take every item due at the call;
 *  - consume's due time is at or after the deadline, no later than the
 *    clock, never decreasing; its return counts TAKE and AGAIN;
 *  - put*, remove* and query return what the model says; peek gives the
 *    earliest deadline; size the number queued;
 *  - stats: put, taken, removed and requeued as the model counts them,
 *    pending + ready the number queued, ready the number due, put = taken +
 *    removed + flushed + queued, expired between (taken + requeued + ready)
 *    and that plus the removals of due items, no consumer and no wake-up;
 *  - the watcher: a readiness edge only while the model has an item due at
 *    the edge's time; woken with no key, it answers with ready(), outside
 *    the waitqueue's lock, as poll() does; while it is attached and answers,
 *    a drive from a time nothing is due over an item's deadline brings an
 *    edge less than one tempo tick after that deadline (the waker's bound);
 *    until a watcher first attaches, no hrtimer is armed (the waker is armed
 *    only while somebody waits);
 *  - after shutdown: take*, put* and ready refuse, remove and query work;
 *  - destroy hands back the rest in take() order; the core never WARNs.
 * Any failure abort()s so that libFuzzer saves the input.
 */
#include <linux/types.h>
#include <tempo/delayq.h>
#include <tempo/timer.h>
#include "internal.h"
#include "sim.h"

#define NN		256
/* The queue's grain (kmod/delayq.c: DQ_GRAIN_SHIFT) and cascade geometry. */
#define DQ_GRAIN		BIT_ULL(20)
#define DQ_LVL(k)	(1ULL << (6 * (k)))	/* ticks at which level k starts */
/* The clock stops moving here: deadlines stay far from S64_MAX. */
#define CLOCK_CEIL	BIT_ULL(60)
/* hrtimer expiries one drive may stop at before it is called a livelock. */
#define DRIVE_STEPS	200000

struct mnode {
	struct tempo_delayq_node dq;
	bool	queued;
	u64	deadline;
	u64	seq;		/* put order: the model's own count */
};

/* The waker's timer: the module's default wheel, and ones that reach further or finer. */
static const struct {
	u32		tick;
	unsigned int	levels;
} wheel_cfg[] = {
	{ 1000000, 10 },	/* default: delays up to about 2^52.9 ns */
	{ 2000000, 11 },	/* delays beyond the queue's wheel, 2^36 of its ticks */
	{ 10000, 10 },		/* the finest tick the module accepts */
	{ 1 << 20, 6 },		/* the queue's grain, few levels: a short longest delay */
};

static struct tempo_delayq *q;
static struct mnode mn[NN];
static unsigned int nn;			/* nodes in play */
static u64 seq, max_delay, tick_ns;
static bool dead;
static u64 m_put, m_taken, m_removed, m_requeued, m_removed_due;
static u64 m_early;			/* left before due: consume ALL, requeue() */
static u64 last_due;			/* consume's due times never decrease */

/* The watcher: a poller on tempo_delayq_waitqueue(). */
static struct {
	struct wait_queue_entry	wait;
	bool			attached;
	bool			ever;		/* attached at some time in this run */
	bool			lazy;		/* does not answer a request to look */
	unsigned int		edges;		/* woken with EPOLLIN: an item is due */
	u64			edge_min;	/* the earliest edge since the last check */
	u64			first_edge;	/* the first edge of the current drive */
	unsigned int		looks, looked;	/* woken with no key; of which answered */
} w;

static const u8 *in;
static size_t in_len, in_pos;
static unsigned int step;

#define FAIL(fmt, ...) do {							\
	fprintf(stderr, "delayq_fuzz: step %u, clock %llu: " fmt "\n", step,	\
		ktime_get_ns(), ##__VA_ARGS__);					\
	abort();								\
} while (0)

static u8 in8(void)
{
	return in_pos < in_len ? in[in_pos++] : 0;
}

static u16 in16(void)
{
	u16 hi = in8();

	return hi << 8 | in8();
}

static u64 now(void)
{
	return ktime_get_ns();
}

static unsigned int idx(const struct tempo_delayq_node *node)
{
	const struct mnode *m = container_of(node, struct mnode, dq);

	if (m < mn || m >= mn + nn)
		FAIL("a node that is not ours: %p", (void *)node);
	return m - mn;
}

/* ---- the model ------------------------------------------------------- */

static bool m_before(unsigned int a, unsigned int b)
{
	return mn[a].deadline < mn[b].deadline ||
	       (mn[a].deadline == mn[b].deadline && mn[a].seq < mn[b].seq);
}

/* The node take() returns next, due or not; -1 if none is queued. */
static int m_first(void)
{
	int f = -1;
	unsigned int i;

	for (i = 0; i < nn; i++)
		if (mn[i].queued && (f < 0 || m_before(i, f)))
			f = i;
	return f;
}

static int m_first_due(void)
{
	int f = m_first();

	return f >= 0 && mn[f].deadline <= now() ? f : -1;
}

static unsigned int m_count(bool due_only)
{
	unsigned int i, n = 0;

	for (i = 0; i < nn; i++)
		n += mn[i].queued && (!due_only || mn[i].deadline <= now());
	return n;
}

static void m_link(unsigned int i, u64 deadline)
{
	mn[i].queued = true;
	mn[i].deadline = deadline;
	mn[i].seq = seq++;
}

/* What put_at() of node @i for @deadline returns; on 0 the model has it queued. */
static int m_put_at(unsigned int i, u64 deadline)
{
	if (dead)
		return -ESHUTDOWN;
	if (mn[i].queued)
		return -EBUSY;
	if (deadline > now() && deadline - now() > max_delay)
		return -ERANGE;
	m_link(i, deadline);
	m_put++;
	return 0;
}

static bool m_remove(unsigned int i)
{
	if (!mn[i].queued)
		return false;
	mn[i].queued = false;
	m_removed++;
	m_removed_due += mn[i].deadline <= now();
	return true;
}

/* A node handed out by take*() or drain: the model's first, due. */
static void m_taken_node(struct tempo_delayq_node *node, const char *what)
{
	int f = m_first_due();
	unsigned int i = idx(node);

	if (f < 0)
		FAIL("%s: node %u (deadline %llu), the model has nothing due", what, i,
		     mn[i].deadline);
	if ((int)i != f)
		FAIL("%s: node %u (deadline %llu seq %llu), want node %d (deadline %llu seq %llu)",
		     what, i, mn[i].deadline, mn[i].seq, f, mn[f].deadline, mn[f].seq);
	if (ktime_to_ns(node->deadline) != (s64)mn[i].deadline)
		FAIL("%s: node %u's deadline %lld, the model's %llu", what, i,
		     (long long)node->deadline, mn[i].deadline);
	mn[i].queued = false;
	m_taken++;
}

/* ---- inputs: nodes, delays, deadlines, clock moves -------------------- */

/* The first queued node from node @i on, round the array; @i if none is queued. */
static unsigned int queued_from(unsigned int i)
{
	unsigned int k;

	for (k = 0; k < nn; k++)
		if (mn[(i + k) % nn].queued)
			return (i + k) % nn;
	return i;
}

static unsigned int node_arg(void)
{
	return in8() % nn;
}

/* A delay of every size: 0, a few ns, inside a tick, ticks, a level's start, far, the longest. */
static u64 delay_of(u8 sel, u16 x)
{
	static const s64 off[] = { 0, 1, -1, DQ_GRAIN - 1, -(s64)DQ_GRAIN, DQ_GRAIN / 2, 7, -7 };
	u64 d;

	switch (sel & 7) {
	case 0:
		return 0;
	case 1:
		return x % 64;
	case 2:
		return x * 16ULL;				/* < 1 tick */
	case 3:
		return (x & 255) * DQ_GRAIN + ((u64)(x >> 8) << 12);	/* < 256 ticks */
	case 4:		/* around the start of a level */
		d = DQ_LVL(1 + (x & 7) % 5) * DQ_GRAIN;
		return d + off[(x >> 3) & 7];
	case 5:
		return (u64)x * x * 1013;			/* < 73 min */
	case 6:
		return (u64)x << 36;				/* < 2^52 ns */
	default:	/* around the longest delay, or a fraction of it */
		if (x & 1)
			return max_delay >> ((x >> 1) & 15);
		return max_delay + 1 - ((x >> 1) & 3);
	}
}

/* A multiple of 64^k ticks after now (k 0..5), moved by a little. */
static u64 boundary_of(u8 sel, u16 x)
{
	static const s64 off[] = { 0, 0, 1, -1, DQ_GRAIN - 1, -(s64)DQ_GRAIN, 3, DQ_GRAIN };
	u64 span = DQ_LVL((sel >> 3) % 6), t;

	t = (now() / DQ_GRAIN / span + 1 + (x & 3)) * span * DQ_GRAIN;
	return t + off[(x >> 2) & 7];
}

/* A deadline: ahead, past, now, another node's, on a boundary. */
static u64 deadline_arg(void)
{
	u8 sel = in8();
	u16 x = in16();
	u64 d, t = now();

	switch ((sel >> 5) & 7) {
	case 0:
	case 1:
	case 2:
		return t + delay_of(sel, x);
	case 3:
		d = delay_of(sel, x);
		return d < t ? t - d : 0;
	case 4:		/* equal to a queued node's deadline (else any node's), or next to it */
		d = mn[queued_from(x % nn)].deadline;
		return (sel & 1) ? (sel & 2 ? d + 1 : d - !!d) : d;
	case 5:
		return boundary_of(sel, x);
	case 6:
		return t;
	default:	/* the earliest queued, or around it */
		d = m_first() >= 0 ? mn[m_first()].deadline : t;
		return d + (sel & 3) - !!d;
	}
}

/* ---- the watcher ------------------------------------------------------ */

static int watcher_wake(struct wait_queue_entry *wait, unsigned int mode, int sync, void *key)
{
	(void)wait;
	(void)mode;
	(void)sync;
	if (!key) {
		w.looks++;
		return 0;
	}
	w.edges++;
	if (now() < w.edge_min)
		w.edge_min = now();
	if (now() < w.first_edge)
		w.first_edge = now();
	return 0;
}

static void check_ready(bool ready, const char *what)
{
	bool want = !dead && m_first_due() >= 0;

	if (ready != want)
		FAIL("%s: ready() %d, the model %d", what, ready, want);
}

/*
 * An edge only while an item is due at the edge's time: every edge comes
 * from the settle that ends a call, so the model after the call has it.
 */
static void check_edges(void)
{
	int f;

	if (w.edge_min == U64_MAX)
		return;
	if (dead)
		FAIL("readiness edge after shutdown");
	f = m_first();
	if (f < 0 || mn[f].deadline > w.edge_min)
		FAIL("readiness edge at %llu, the earliest deadline %llu", w.edge_min,
		     f < 0 ? 0ULL : mn[f].deadline);
	w.edge_min = U64_MAX;
}

/* Answer each request to look, as poll() does: ready(), outside the waitqueue's lock. */
static void answer_looks(void)
{
	while (w.attached && !w.lazy && w.looked < w.looks) {
		w.looked = w.looks;
		check_ready(tempo_delayq_ready(q), "look");
		check_edges();
		tempo_sim_run_all();
	}
	check_edges();
}

static void run_and_look(void)
{
	tempo_sim_run_all();
	answer_looks();
}

static void watcher_toggle(void)
{
	if (w.attached) {
		remove_wait_queue(tempo_delayq_waitqueue(q), &w.wait);
		w.attached = false;
		return;
	}
	/* As poll() does: on the waitqueue first, then ask. */
	add_wait_queue(tempo_delayq_waitqueue(q), &w.wait);
	w.attached = true;
	w.ever = true;
	w.looked = w.looks;
	check_ready(tempo_delayq_ready(q), "attach");
}

/* ---- the clock -------------------------------------------------------- */

/*
 * Move the clock to @target from hrtimer expiry to hrtimer expiry, running
 * everything due at each (the waker among them). With a watcher that answers
 * and nothing due at the start, an item's deadline passed by a tempo tick
 * must have brought a readiness edge less than a tempo tick after it.
 */
static void drive(u64 target)
{
	int f = m_first();
	u64 d = f >= 0 ? mn[f].deadline : U64_MAX, next;
	bool live = w.attached && !w.lazy && !dead && f >= 0 && d > now() &&
		    d + tick_ns <= target;
	unsigned int steps = 0;

	w.first_edge = U64_MAX;
	run_and_look();
	for (;;) {
		next = tempo_sim_next_hrtimer();
		if (next == U64_MAX || next > target)
			break;
		if (next > now())
			tempo_sim_clock_set(next);
		run_and_look();
		if (++steps > DRIVE_STEPS)
			FAIL("%u hrtimer expiries on the way to %llu, the next at %llu", steps,
			     target, tempo_sim_next_hrtimer());
	}
	if (target > now())
		tempo_sim_clock_set(target);
	run_and_look();
	if (live && (w.first_edge == U64_MAX || w.first_edge >= d + tick_ns))
		FAIL("node %d due at %llu: no readiness edge by %llu (first %llu, tempo tick %llu)",
		     f, d, target, w.first_edge, tick_ns);
}

static void clock_move(void)
{
	u8 sel = in8(), mode = in8();
	u16 x = in16();
	u64 t = now(), to;
	int f;

	if (t >= CLOCK_CEIL)
		return;
	switch (sel & 7) {
	case 0:
		to = t + 1;
		break;
	case 1:
		to = t + x % DQ_GRAIN;
		break;
	case 2:
		to = t + DQ_GRAIN + (x % 3) - 1;
		break;
	case 3:
		to = boundary_of(sel & ~0x38, x);	/* a tick boundary, or next to it */
		break;
	case 4:
		to = boundary_of(sel, x);
		break;
	case 5:		/* to the earliest deadline, or another node's */
		f = (x & 1) ? (int)((x >> 1) % nn) : m_first();
		to = f >= 0 ? mn[f].deadline : t;
		to += (x >> 9) % 3 - !!to;
		break;
	case 6:
		to = t + delay_of(sel >> 3, x);
		break;
	default:
		to = t + DQ_LVL(1 + (sel >> 3) % 5) * DQ_GRAIN * (1 + x % 3);
		break;
	}
	if (to <= t)
		return;
	to = min_t(u64, to, CLOCK_CEIL);
	switch (mode & 3) {
	case 0:		/* nobody runs: a consumer that comes by finds the queue behind */
		tempo_sim_clock_set(to);
		break;
	case 1:		/* late: everything expired runs once, at the new time */
		tempo_sim_clock_set(to);
		run_and_look();
		break;
	default:
		drive(to);
		break;
	}
}

/* ---- the operations --------------------------------------------------- */

static void op_put(void)
{
	unsigned int i = node_arg();
	u8 sel = in8();
	u64 delay = delay_of(sel, in16());
	int want, got;

	want = delay > max_delay ? -ERANGE : m_put_at(i, now() + delay);
	got = tempo_delayq_put(q, &mn[i].dq, delay);
	if (got != want)
		FAIL("put node %u delay %llu: %d, want %d", i, delay, got, want);
}

static void op_put_at(void)
{
	unsigned int i = node_arg();
	u64 deadline = deadline_arg();
	int want = m_put_at(i, deadline), got;

	got = tempo_delayq_put_at(q, &mn[i].dq, deadline);
	if (got != want)
		FAIL("put_at node %u deadline %llu: %d, want %d", i, deadline, got, want);
}

static unsigned int requeue_calls;
static void op_requeue(unsigned int i);

/* put_at() of a node that is not queued; requeue() of one that is, or after shutdown. */
static void op_put_at_or_requeue(void)
{
	unsigned int i = node_arg();

	if (!mn[i].queued && !dead) {
		u64 deadline = deadline_arg();
		int want = m_put_at(i, deadline), got;

		got = tempo_delayq_put_at(q, &mn[i].dq, deadline);
		if (got != want)
			FAIL("put_at node %u deadline %llu: %d, want %d", i, deadline, got, want);
		return;
	}
	op_requeue(i);
}

static void requeued_fn(struct tempo_delayq_node *node, void *arg)
{
	if (node != arg)
		FAIL("requeue: fn shown node %u, not %u", idx(node), idx(arg));
	requeue_calls++;
}

/*
 * requeue() of node @i for a deadline: as remove() and put_at() in one
 * section (after the items of that deadline queued before); on an error
 * nothing changes and fn is not called.
 */
static void op_requeue(unsigned int i)
{
	u64 deadline = deadline_arg();
	unsigned int calls = requeue_calls;
	int want = 0, got;

	if (dead)
		want = -ESHUTDOWN;
	else if (!mn[i].queued)
		want = -ENOENT;
	else if (deadline > now() && deadline - now() > max_delay)
		want = -ERANGE;
	got = tempo_delayq_requeue(q, &mn[i].dq, deadline, requeued_fn, &mn[i].dq);
	if (got != want)
		FAIL("requeue node %u deadline %llu: %d, want %d", i, deadline, got, want);
	if (requeue_calls != calls + !want)
		FAIL("requeue node %u: fn called %u times, want %d", i, requeue_calls - calls,
		     !want);
	if (want)
		return;
	m_early += mn[i].deadline > now();
	m_link(i, deadline);
	m_requeued++;
}

/* A batch, some of it refused (queued, twice in the batch, too far, shut down). */
static void op_put_many(void)
{
	static struct tempo_delayq_node *nodes[NN];
	static ktime_t deadlines[NN];
	unsigned int n = in8() % 17, i, want = 0, got;
	int werr = 0, err = 12345;

	for (i = 0; i < n; i++) {
		unsigned int j = node_arg();

		nodes[i] = &mn[j].dq;
		deadlines[i] = deadline_arg();
	}
	for (i = 0; i < n && !werr; i++) {
		werr = m_put_at(idx(nodes[i]), deadlines[i]);
		want += !werr;
	}
	got = tempo_delayq_put_many(q, nodes, deadlines, n, &err);
	if (got != want || err != werr)
		FAIL("put_many of %u: %u, err %d; want %u, err %d", n, got, err, want, werr);
}

/*
 * Up to every idle node in one batch, of one deadline or spaced by a step
 * (forward or back): slots of more nodes than the waker moves or a
 * critical section sorts, runs and trees of equal deadlines.
 */
static void op_put_bulk(void)
{
	static const u64 steps[] = { 0, 0, 1, DQ_GRAIN, 37, DQ_GRAIN / 3, DQ_GRAIN * 65, 0 };
	static struct tempo_delayq_node *nodes[NN];
	static ktime_t deadlines[NN];
	u8 sel = in8();
	unsigned int count = 1 + in8() % nn, first = node_arg(), n = 0, want = 0, i, got;
	u64 d = deadline_arg(), st = steps[sel & 7];
	int err, werr = 0;

	for (i = 0; i < nn && n < count; i++) {
		unsigned int j = (first + i) % nn;

		if (mn[j].queued)
			continue;
		nodes[n] = &mn[j].dq;
		deadlines[n] = d;
		n++;
		if (sel & 8)
			d = d > st ? d - st : 0;
		else
			d += st;
	}
	for (i = 0; i < n && !werr; i++) {
		werr = m_put_at(idx(nodes[i]), deadlines[i]);
		want += !werr;
	}
	got = tempo_delayq_put_many(q, nodes, deadlines, n, &err);
	if (got != want || err != werr)
		FAIL("put_many (bulk) of %u: %u, err %d; want %u, err %d", n, got, err, want, werr);
}

static void op_remove(void)
{
	unsigned int i = node_arg();
	bool want = m_remove(i), got = tempo_delayq_remove(q, &mn[i].dq);

	if (got != want)
		FAIL("remove node %u: %d, want %d", i, got, want);
}

static void op_remove_many(void)
{
	static struct tempo_delayq_node *nodes[16];
	bool removed[16], want[16];
	unsigned int n = in8() % 17, i, count = 0, got;

	for (i = 0; i < n; i++) {
		unsigned int j = node_arg();

		nodes[i] = &mn[j].dq;
		want[i] = m_remove(j);
		count += want[i];
	}
	got = tempo_delayq_remove_many(q, nodes, n, removed);
	if (got != count)
		FAIL("remove_many of %u: %u, want %u", n, got, count);
	for (i = 0; i < n; i++)
		if (removed[i] != want[i])
			FAIL("remove_many: node %u (%u of %u): %d, want %d", idx(nodes[i]), i, n,
			     removed[i], want[i]);
}

/* What a take that finds nothing returns: -ESHUTDOWN, else @none. */
static void check_none(struct tempo_delayq_node *got, long none, const char *what)
{
	long want = dead ? -ESHUTDOWN : none;

	if (!IS_ERR(got))
		FAIL("%s: node %u, want %ld", what, idx(got), want);
	if (PTR_ERR(got) != want)
		FAIL("%s: %ld, want %ld", what, PTR_ERR(got), want);
}

static void op_try_take(void)
{
	struct tempo_delayq_node *got = tempo_delayq_try_take(q);

	if (dead || m_first_due() < 0)
		check_none(got, -EAGAIN, "try_take");
	else if (IS_ERR(got))
		FAIL("try_take: %ld, node %d due", PTR_ERR(got), m_first_due());
	else
		m_taken_node(got, "try_take");
}

/*
 * take() and take_timeout() only where they cannot sleep: an item due, or
 * shut down; else take_timeout(0), which gives up at once.
 */
static void op_take(void)
{
	bool due = m_first_due() >= 0;
	u8 sel = in8();
	bool sleeping = (sel & 1) && (due || dead);
	u64 timeout = due || dead ? delay_of(sel >> 1, in16()) : 0;
	struct tempo_delayq_node *got;

	got = sleeping ? tempo_delayq_take(q) : tempo_delayq_take_timeout(q, timeout);
	if (dead || !due)
		check_none(got, -ETIMEDOUT, sleeping ? "take" : "take_timeout");
	else if (IS_ERR(got))
		FAIL("%s: %ld, node %d due", sleeping ? "take" : "take_timeout", PTR_ERR(got),
		     m_first_due());
	else
		m_taken_node(got, sleeping ? "take" : "take_timeout");
}

static void op_drain(void)
{
	static struct tempo_delayq_node *nodes[NN];
	unsigned int max = in8() % (nn + 2), due = m_count(true), i;
	int got = tempo_delayq_take_many(q, nodes, max);

	if (dead) {
		if (got != -ESHUTDOWN)
			FAIL("drain after shutdown: %d", got);
		return;
	}
	if (got != (int)min(max, due))
		FAIL("drain of %u: %d, with %u due", max, got, due);
	for (i = 0; i < (unsigned int)got; i++)
		m_taken_node(nodes[i], "drain");
}

/* consume(): the callback checks each item shown and applies the input's verdict. */
struct consumer {
	unsigned int	max, n;
	bool		stopped;
	bool		all;	/* TEMPO_DELAYQ_ALL: shown due or not */
};

static enum tempo_delayq_verdict consume_fn(struct tempo_delayq_node *node, ktime_t due,
					    void *arg)
{
	struct consumer *c = arg;
	unsigned int i = idx(node);
	int f = c->all ? m_first() : m_first_due();
	bool early = mn[i].deadline > now();
	u8 v = in8();
	u64 nd;

	if (c->stopped || c->n >= c->max)
		FAIL("consume: shown node %u after %u verdicts of %u%s", i, c->n, c->max,
		     c->stopped ? " and a STOP" : "");
	if ((int)i != f)
		FAIL("consume: shown node %u (deadline %llu seq %llu), want node %d", i,
		     mn[i].deadline, mn[i].seq, f);
	if ((!c->all && ktime_to_ns(due) < (s64)mn[i].deadline) || ktime_to_ns(due) > (s64)now() ||
	    (u64)due < last_due)
		FAIL("consume: node %u (deadline %llu) found due at %lld (last %llu)", i,
		     mn[i].deadline, (long long)due, last_due);
	last_due = due;
	switch (v & 3) {
	case 0:
	case 1:
		mn[i].queued = false;
		m_taken++;
		m_early += early;
		c->n++;
		return TEMPO_DELAYQ_TAKE;
	case 2:		/* a periodic item: later, within the longest delay of now */
		nd = mn[i].deadline + 1 + delay_of(v >> 2, in16());
		nd = min(nd, now() + max_delay);
		nd = max(nd, mn[i].deadline + 1);	/* ALL: it may be beyond that */
		node->deadline = nd;
		m_link(i, nd);
		m_requeued++;
		m_early += early;
		c->n++;
		return TEMPO_DELAYQ_AGAIN;
	default:
		c->stopped = true;
		return TEMPO_DELAYQ_STOP;
	}
}

static void op_consume(bool odd)
{
	u8 sel = in8();
	struct consumer c = { .max = in8() % 40 };
	unsigned int flags = 0;
	bool due = m_first_due() >= 0;
	int got, want;

	if (odd) {
		switch (sel & 3) {
		case 0:
			c.max = 0;
			break;
		case 1:		/* ALL, or a bad combination or flag */
			flags = (const unsigned int[]){ TEMPO_DELAYQ_ALL, TEMPO_DELAYQ_ALL,
				TEMPO_DELAYQ_ALL | TEMPO_DELAYQ_WAIT, 4 }[(sel >> 2) & 3];
			c.all = flags == TEMPO_DELAYQ_ALL;
			due = c.all ? m_first() >= 0 : due;
			break;
		default:	/* sleeps only when nothing is due */
			if (due || dead)
				flags = TEMPO_DELAYQ_WAIT;
			break;
		}
	}
	got = tempo_delayq_consume(q, consume_fn, &c, c.max, flags);
	if (flags & ~(TEMPO_DELAYQ_WAIT | TEMPO_DELAYQ_ALL) ||
	    flags == (TEMPO_DELAYQ_WAIT | TEMPO_DELAYQ_ALL))
		want = -EINVAL;
	else if (!c.max)
		want = 0;
	else if (dead)
		want = -ESHUTDOWN;
	else if (!due)
		want = -EAGAIN;
	else
		want = c.n;
	if (got != want)
		FAIL("consume max %u flags %u: %d, want %d", c.max, flags, got, want);
	if (want <= 0 && c.n)
		FAIL("consume: %u verdicts applied, returned %d", c.n, got);
	/* Every item due at the call (any, with ALL), unless STOP or @max ended it. */
	if (got > 0 && !c.stopped && c.n < c.max && (c.all ? m_first() : m_first_due()) >= 0)
		FAIL("consume max %u: %u verdicts, node %d left due", c.max, c.n, m_first_due());
}

static void op_peek(void)
{
	ktime_t d = -1;
	int f = m_first();
	bool got = tempo_delayq_peek(q, &d);

	if (got != f >= 0 || (f >= 0 && ktime_to_ns(d) != (s64)mn[f].deadline))
		FAIL("peek: %d, %lld; want %d, %llu (node %d)", got, (long long)d, f >= 0,
		     f >= 0 ? mn[f].deadline : 0ULL, f);
}

static void op_query(void)
{
	unsigned int i = node_arg();
	ktime_t d = -1;
	int got = tempo_delayq_query(q, &mn[i].dq, &d), want = -ENOENT;

	if (mn[i].queued)
		want = mn[i].deadline <= now() ? TEMPO_DELAYQ_TAKEABLE : TEMPO_DELAYQ_PENDING;
	if (got != want || (want > 0 && ktime_to_ns(d) != (s64)mn[i].deadline))
		FAIL("query node %u: %d, deadline %lld; want %d, %llu", i, got, (long long)d, want,
		     mn[i].deadline);
}

static void op_stats(void)
{
	struct tempo_delayq_stats st;
	unsigned int queued = m_count(false), due = m_count(true);
	u64 low, high;

	tempo_delayq_stats(q, &st);
	if (st.put != m_put || st.taken != m_taken || st.removed != m_removed)
		FAIL("stats: put %llu taken %llu removed %llu; want %llu %llu %llu", st.put,
		     st.taken, st.removed, m_put, m_taken, m_removed);
	if (st.requeued != m_requeued || st.flushed)
		FAIL("stats: requeued %llu flushed %llu; want %llu 0", st.requeued, st.flushed,
		     m_requeued);
	if (st.pending + st.ready != queued || st.ready != due)
		FAIL("stats: pending %u ready %u; model %u queued, %u due", st.pending, st.ready,
		     queued, due);
	if (st.put != st.taken + st.removed + st.flushed + st.pending + st.ready)
		FAIL("conservation: put %llu, taken %llu + removed %llu + flushed %llu + queued %u",
		     st.put, st.taken, st.removed, st.flushed, st.pending + st.ready);
	low = st.taken + st.requeued + st.ready - m_early;
	high = low + m_removed_due;
	if (st.expired < low || st.expired > high)
		FAIL("stats: expired %llu, not in [%llu, %llu]", st.expired, low, high);
	if (st.waiters || st.wakeups)
		FAIL("stats: %u waiters, %llu wake-ups with no consumer asleep", st.waiters,
		     st.wakeups);
}

static void op_size(void)
{
	unsigned int got = tempo_delayq_size(q), want = m_count(false);

	if (got != want)
		FAIL("size %u, want %u", got, want);
}

static void op_shutdown(void)
{
	if (in8() & 7)
		return;
	tempo_delayq_shutdown(q);
	dead = true;
}

/* ---- the run ---------------------------------------------------------- */

static struct tempo_delayq_node *handed[NN];
static unsigned int nhanded;

static void release(struct tempo_delayq_node *node, void *arg)
{
	(void)arg;
	if (nhanded >= NN)
		FAIL("destroy handed back more than %u nodes", NN);
	handed[nhanded++] = node;
}

/* destroy(): the rest, in take() order. */
static void finish(void)
{
	unsigned int n, i, want = m_count(false);
	int f;

	if (w.attached)
		watcher_toggle();
	nhanded = 0;
	n = tempo_delayq_destroy(q, release, NULL);
	q = NULL;
	if (n != want || nhanded != want)
		FAIL("destroy: %u handed back (%u released), want %u", n, nhanded, want);
	for (i = 0; i < nhanded; i++) {
		f = m_first();
		if ((int)idx(handed[i]) != f)
			FAIL("destroy: hand-back %u is node %u, want %d", i, idx(handed[i]), f);
		mn[f].queued = false;
	}
	tempo_sim_run_all();
}

static void setup(const u8 *data, size_t size)
{
	static const unsigned int sizes[] = { 16, 48, 96, 256 };
	unsigned int cfg, i;
	u64 start;
	u16 x;

	in = data;
	in_len = size;
	in_pos = 0;
	step = 0;
	cfg = in8();
	nn = sizes[(cfg >> 2) & 3];
	cfg = (cfg & 3) < 2 ? 0 : 1 + (cfg & 1) + ((cfg >> 4) & 1);
	x = in16();
	/* Just before a boundary of one of the queue's levels, or on it. */
	start = DQ_LVL(x % 6) * (1 + ((x >> 3) & 7)) * DQ_GRAIN;
	start -= min(start - DQ_GRAIN, (u64)(x >> 6) * 4099 * ((x & 0x20) ? DQ_GRAIN / 64 : 1));

	tempo_sim_init(1, false, true);
	tempo_sim_clock_set(start);
	tempo_sim_set_cpu(0);
	if (tempo_wheel_init(wheel_cfg[cfg].tick, wheel_cfg[cfg].levels) || tempo_delayq_init())
		abort();
	tick_ns = wheel_cfg[cfg].tick;
	max_delay = tempo_timer_max_delay_ns();
	q = tempo_delayq_create();
	if (!q)
		abort();
	for (i = 0; i < nn; i++) {
		tempo_delayq_node_init(&mn[i].dq);
		mn[i].queued = false;
		mn[i].deadline = 0;
		mn[i].seq = 0;
	}
	seq = 0;
	dead = false;
	m_put = 0;
	m_taken = 0;
	m_removed = 0;
	m_requeued = 0;
	m_removed_due = 0;
	m_early = 0;
	last_due = 0;
	memset(&w, 0, sizeof(w));
	init_waitqueue_func_entry(&w.wait, watcher_wake);
	w.edge_min = U64_MAX;
	w.first_edge = U64_MAX;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	setup(data, size);
	while (in_pos < in_len) {
		u8 op = in8();

		step++;
		switch (op % 26) {
		case 0:
		case 1:
			op_put();
			break;
		case 2:
			op_put_at();
			break;
		case 3:		/* a queued node: requeue() */
			op_put_at_or_requeue();
			break;
		case 4:
			op_put_many();
			break;
		case 5:
			op_put_bulk();
			break;
		case 6:
			op_remove();
			break;
		case 7:
			op_remove_many();
			break;
		case 8:
			op_try_take();
			break;
		case 9:
			op_take();
			break;
		case 10:
			op_drain();
			break;
		case 11:
		case 12:
			op_consume(false);
			break;
		case 13:
			op_peek();
			break;
		case 14:
			op_query();
			break;
		case 15:
			op_stats();
			break;
		case 16:
			check_ready(tempo_delayq_ready(q), "ready");
			break;
		case 17:
			op_size();
			break;
		case 18:
			watcher_toggle();
			break;
		case 19:
			w.lazy = !w.lazy;
			break;
		case 20:
		case 21:
		case 22:
			clock_move();
			break;
		case 23:
			run_and_look();
			break;
		case 24:
			op_consume(true);
			break;
		default:
			op_shutdown();
			break;
		}
		answer_looks();
		if (tempo_user_warnings)
			FAIL("the core warned");
		/* Nobody has ever waited: the waker has never been armed. */
		if (!w.ever && tempo_sim_next_hrtimer() != U64_MAX)
			FAIL("an hrtimer armed for %llu, and nobody has waited",
			     tempo_sim_next_hrtimer());
	}
	op_stats();
	finish();
	tempo_delayq_exit();
	tempo_wheel_exit();
	if (tempo_user_warnings)
		FAIL("the core warned");
	return 0;
}
