// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for kmod/order.c against a reference model. One simulated
 * CPU, deterministic: the input chooses the window, max_streak and first
 * ticket (near 0 or near U64_MAX, to cross the wrap), then a sequence of
 * ticket_try / run / trash on any outstanding ticket (interleaved
 * ownership: any order), duplicates of finished tickets, never-taken
 * tickets, tempo_order_submit() with TEMPO_ORDER_NOWAIT, on the submitting
 * CPU or with TEMPO_ORDER_SPREAD (its requests wait in the CPU's inbox, in
 * chains cut at TEMPO_ORDER_SUBMIT_BATCH, until the work items run), and
 * deliveries of the work items (resume and submit). The model is a sorted
 * list of taken tickets with their outcome; a submitted one counts as run.
 * Checked after every step:
 *  - ticket_try, tickets_try and submit: -EAGAIN iff the window is full
 *    (next - head >= W), else the model's next ticket (tickets_try: as
 *    many as it wants or as fit, from there);
 *  - run/trash of an outstanding ticket: 1 iff it is the head, else 0;
 *    a duplicate or never-taken ticket: -EINVAL, and nothing completes;
 *  - completions so far are a prefix of the model's order (the run tickets,
 *    in ticket order, trashed ones skipped), each once; once the work
 *    items have run, exactly the model's order and head.
 */
#include <linux/types.h>
#include <tempo/order.h>
#include "internal.h"
#include "sim.h"

#define MAXT	512

/* M_SUB: submitted, its work item not run yet (then M_RUN). */
enum { M_OUT, M_RUN, M_TRASH, M_SUB };

static struct tempo_order *o;
static u64 first, next_m;
static u8 mst[MAXT];			/* by ticket - first */
static u64 out[MAXT];
static unsigned int nout;
static u64 log_[MAXT];
static unsigned int nlog;
static struct tempo_order_req reqs[MAXT];	/* by ticket - first */

#define FAIL(...) do { fprintf(stderr, "order_fuzz: " __VA_ARGS__); fputc('\n', stderr); abort(); } while (0)

static void fn(void *arg)
{
	if (nlog >= MAXT)
		FAIL("too many completions");
	log_[nlog++] = (u64)(uintptr_t)arg;
}

static void sub_work(struct tempo_order_req *req)
{
	(void)req;
}

static void sub_done(struct tempo_order_req *req)
{
	if (req->status)
		FAIL("submit of %llu released with %d", req->ticket, req->status);
	fn((void *)(uintptr_t)req->ticket);
}

static u64 real_head(void)
{
	struct tempo_order_stats st;

	tempo_order_stats(o, &st);
	return first + st.taken - st.pending;
}

/* The model's completion order, up to @n entries; returns its length. */
static unsigned int model_log(u64 *exp, u64 *head)
{
	unsigned int n = 0;
	u64 k;

	for (k = 0; k < next_m - first && mst[k] != M_OUT; k++)
		if (mst[k] == M_RUN || mst[k] == M_SUB)
			exp[n++] = first + k;
	*head = first + k;
	return n;
}

static void check(bool quiet)
{
	static u64 exp[MAXT];
	u64 head, rh;
	unsigned int n = model_log(exp, &head), i;

	if (nlog > n)
		FAIL("%u completions, model has %u", nlog, n);
	for (i = 0; i < nlog; i++)
		if (log_[i] != exp[i])
			FAIL("completion %u is %llu, expected %llu", i, log_[i], exp[i]);
	rh = real_head();
	if ((s64)(rh - head) > 0)
		FAIL("head %llu beyond the model's %llu", rh, head);
	if (quiet && (nlog != n || rh != head))
		FAIL("quiet: %u completions of %u, head %llu model %llu", nlog, n, rh, head);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	tempo_sim_init(1, false, true);
	tempo_sim_clock_set(1000000000);
	if (tempo_wheel_init(100000, 10) || tempo_order_init())
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct tempo_order_opts opts = {};
	struct tempo_order_stats st;
	u32 window;
	size_t i;

	if (size < 3)
		return 0;
	window = 1u << (data[0] % 6);			/* 1..32 */
	opts.max_streak = 1 + data[1] % 6;
	opts.first_ticket = first = (data[2] & 1) ? U64_MAX - (data[2] >> 1) : data[2] >> 1;
	o = tempo_order_create(window, &opts);
	if (IS_ERR(o))
		abort();
	next_m = first;
	nout = nlog = 0;
	memset(mst, 0, sizeof(mst));

	for (i = 3; i < size; i++) {
		u8 b = data[i], op = b % 8, arg = b >> 3;
		u64 t, rh = real_head();
		int ret;

		switch (op) {
		case 0: case 1: case 2:	/* take, several (op 1), or submit (op 2) */
		{
			struct tempo_order_req *req = &reqs[next_m - first];
			u32 want = 1 + arg % 4, n, k;

			if (next_m - first >= MAXT - 4)
				break;
			if (op == 1) {
				ret = tempo_order_tickets_try(o, want, &t);
				if (next_m - rh >= window) {
					if (ret != -EAGAIN)
						FAIL("take %u with a full window: %d", want, ret);
					break;
				}
				n = min_t(u64, want, window - (next_m - rh));
				if (ret != (int)n || t != next_m)
					FAIL("take %u: %d, ticket %llu, expected %u from %llu",
					     want, ret, t, n, next_m);
				for (k = 0; k < n; k++) {
					out[nout++] = next_m;
					mst[next_m - first] = M_OUT;
					next_m++;
				}
				break;
			}
			if (op == 2) {
				/* On this CPU, or spread over the others. */
				ret = tempo_order_submit(o, req, sub_work, sub_done,
							 TEMPO_ORDER_NOWAIT |
							 (arg & 1 ? TEMPO_ORDER_SPREAD : 0));
				t = req->ticket;
			} else {
				ret = tempo_order_ticket_try(o, &t);
			}
			if (next_m - rh >= window) {
				if (ret != -EAGAIN)
					FAIL("take with a full window: %d", ret);
				break;
			}
			if (ret || t != next_m)
				FAIL("take: %d, ticket %llu, expected %llu", ret, t, next_m);
			if (op == 2) {
				mst[t - first] = M_SUB;	/* completes once its work runs */
			} else {
				out[nout++] = t;
				mst[t - first] = M_OUT;
			}
			next_m++;
			break;
		}
		case 3: case 4: case 5:	/* run or trash an outstanding ticket */
		{
			unsigned int j;
			bool trash = op == 5;

			if (!nout)
				break;
			j = arg % nout;
			t = out[j];
			out[j] = out[--nout];
			mst[t - first] = trash ? M_TRASH : M_RUN;
			ret = trash ? tempo_order_trash(o, t) :
				      tempo_order_run(o, t, fn, (void *)(uintptr_t)t);
			if (ret != (t == rh ? 1 : 0))
				FAIL("%s(%llu) = %d, head %llu", trash ? "trash" : "run", t, ret, rh);
			break;
		}
		case 6:			/* duplicate, or never taken */
		{
			unsigned int before = nlog;

			if ((arg & 1) && next_m != first) {
				t = first + (arg >> 1) % (next_m - first);
				if (mst[t - first] == M_OUT || mst[t - first] == M_SUB)
					break;
			} else {
				t = next_m + (arg >> 1);
			}
			ret = (arg & 2) ? tempo_order_trash(o, t) :
					  tempo_order_run(o, t, fn, (void *)(uintptr_t)t);
			if (ret != -EINVAL)
				FAIL("second or untaken put of %llu = %d (next %llu)", t, ret, next_m);
			if (nlog != before)
				FAIL("a refused put completed something");
			break;
		}
		case 7:			/* deliver the work items (resume, submit) */
			tempo_sim_run_all();
			for (t = first; t != next_m; t++)
				if (mst[t - first] == M_SUB)
					mst[t - first] = M_RUN;
			check(true);
			break;
		}
		check(false);
	}
	/* Finish the rest in the input's order, then everything must be done. */
	while (nout) {
		u64 t = out[--nout];

		mst[t - first] = M_TRASH;
		if (tempo_order_trash(o, t) < 0)
			FAIL("final trash of %llu", t);
		check(false);
	}
	tempo_sim_run_all();
	check(true);
	tempo_order_stats(o, &st);
	if (st.taken != st.completed + st.trashed + st.timed_out + st.pending || st.pending ||
	    st.taken != next_m - first || st.completed != nlog)
		FAIL("conservation: taken %llu completed %llu trashed %llu pending %llu",
		     st.taken, st.completed, st.trashed, st.pending);
	tempo_order_destroy(o);
	if (tempo_user_warnings)
		FAIL("core warned");
	return 0;
}
