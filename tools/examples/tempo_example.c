// SPDX-License-Identifier: GPL-2.0
/*
 * tempo_example: how a driver uses tempo's timers, ordered scheduler and
 * delay queue. It builds as a separate module against tempo's Module.symvers
 * and, at load, runs a small self-checking scenario:
 *
 *   A "device" receives @requests requests. Each is processed in parallel on
 *   tempo_order_submit()'s workers (uneven amounts of work, so they finish
 *   out of order) and completed strictly in arrival order, by whichever
 *   thread holds the oldest unfinished request: no completion thread.
 *
 *   Every request carries a watchdog, a tempo_timer armed at submission and
 *   cancelled at completion: the common timeout case, which never expires.
 *
 *   Every @retry_every-th request asks to be "retried later": its completion
 *   puts it on a delay queue, and a consumer kthread takes it once the delay
 *   has passed (never early) and counts how late it came.
 *
 * Before that, a probe shows the calls for asking and skipping: when a
 * pending timer will fire (tempo_timer_expires()), how long a queued
 * delay-queue item has left (tempo_delayq_query()), and moving an
 * ordered stream past a range of lost tickets at once
 * (tempo_order_trash_below()), the stored completion behind it running in
 * the same call.
 *
 * Loading fails (-EIO) if completions came out of order, a watchdog fired,
 * a retry came early or got lost, or the probe saw something else than the
 * headers promise; the summary goes to the kernel log.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>

#include <tempo/delayq.h>
#include <tempo/order.h>
#include <tempo/timer.h>

#include "compat.h"	/* kmod/compat.h: MODULE_IMPORT_NS("...") on 6.1 and 6.12 */

static unsigned int requests = 64;
module_param(requests, uint, 0444);
MODULE_PARM_DESC(requests, "requests to process at load (default 64)");

static unsigned int retry_every = 8;
module_param(retry_every, uint, 0444);
MODULE_PARM_DESC(retry_every, "every Nth request is retried through the delay queue (default 8)");

#define EX_WATCHDOG_NS	(2000 * NSEC_PER_MSEC)
#define EX_RETRY_NS	(10 * NSEC_PER_MSEC)

struct ex_req {
	struct tempo_order_req	ord;		/* ordered processing */
	struct tempo_timer	watchdog;	/* per-request timeout */
	struct tempo_delayq_node retry;		/* "try again later" */
	u32			seq;		/* arrival order */
	u64			retry_at;	/* ns, when retried */
};

static struct {
	struct tempo_order	*order;
	struct tempo_delayq	*retries;
	struct task_struct	*consumer;
	struct completion	all_done;
	atomic_t		outstanding;	/* requests not yet released */
	u32			next_seq;	/* next completion expected */
	u32			out_of_order, watchdogs, early, failed;
	u32			worked, retried;
	u64			retry_late_max;
} ex;

static void ex_release(struct ex_req *req)
{
	/* The watchdog callback may be running: wait for it before freeing. */
	tempo_timer_shutdown_sync(&req->watchdog);
	kfree(req);
	if (atomic_dec_and_test(&ex.outstanding))
		complete(&ex.all_done);
}

static void ex_watchdog(struct tempo_timer *t)
{
	struct ex_req *req = container_of(t, struct ex_req, watchdog);

	pr_warn("request %u timed out\n", req->seq);
	WRITE_ONCE(ex.watchdogs, ex.watchdogs + 1);
}

/* Parallel, on a tempo_order worker: process context, may sleep. */
static void ex_work(struct tempo_order_req *r)
{
	usleep_range(100, 100 + get_random_u32_below(2000));
}

/* In arrival order, one at a time: whoever holds the oldest request. */
static void ex_done(struct tempo_order_req *r)
{
	struct ex_req *req = container_of(r, struct ex_req, ord);

	tempo_timer_cancel(&req->watchdog);	/* the usual case: no expiry */
	if (r->status) {
		ex.failed++;
	} else if (req->seq != ex.next_seq++) {
		/* Completions never run concurrently: no lock needed here. */
		ex.out_of_order++;
	}
	ex.worked++;

	if (retry_every && req->seq % retry_every == retry_every - 1) {
		req->retry_at = ktime_get_ns() + EX_RETRY_NS;
		if (!tempo_delayq_put(ex.retries, &req->retry, EX_RETRY_NS))
			return;			/* the consumer releases it */
		ex.failed++;
	}
	ex_release(req);
}

/* Takes retries as they come due: no timed wait, one wake per item. */
static int ex_consumer(void *unused)
{
	struct tempo_delayq_node *node;
	struct ex_req *req;
	u64 now;

	for (;;) {
		node = tempo_delayq_take(ex.retries);
		if (IS_ERR(node)) {
			if (PTR_ERR(node) == -ESHUTDOWN || kthread_should_stop())
				break;
			continue;
		}
		req = container_of(node, struct ex_req, retry);
		now = ktime_get_ns();
		if (now < req->retry_at)
			ex.early++;
		else
			ex.retry_late_max = max(ex.retry_late_max, now - req->retry_at);
		ex.retried++;
		ex_release(req);
	}
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 100);
	return 0;
}

static void ex_probe_fired(struct tempo_timer *t)
{
}

static void ex_probe_done(void *arg)
{
	(*(u32 *)arg)++;
}

/* The query and skip calls, on objects of the probe's own. Return: failures. */
static int ex_probe(void)
{
	struct tempo_delayq_node node;
	struct tempo_timer timer;
	struct tempo_delayq *q;
	struct tempo_order *o;
	u64 t[4], now, expires;
	ktime_t deadline;
	u32 ran = 0;
	int i, bad = 0;

	/* A pending timer: its deadline, never before what was asked; then none. */
	tempo_timer_init(&timer, ex_probe_fired, 0);
	now = ktime_get_ns();
	if (tempo_timer_arm(&timer, NSEC_PER_SEC) ||
	    !tempo_timer_expires(&timer, &expires) || expires < now + NSEC_PER_SEC)
		bad++;
	tempo_timer_shutdown_sync(&timer);
	if (tempo_timer_expires(&timer, &expires) || expires)
		bad++;

	/* A queued item: how long until it may be taken; then gone. */
	q = tempo_delayq_create();
	if (!q)
		return 1;
	tempo_delayq_node_init(&node);
	now = ktime_get_ns();
	if (tempo_delayq_put(q, &node, 50 * NSEC_PER_MSEC))
		bad++;
	else if (tempo_delayq_query(q, &node, &deadline) != TEMPO_DELAYQ_PENDING ||
		 ktime_to_ns(deadline) < now + 50 * NSEC_PER_MSEC)
		bad++;
	if (!tempo_delayq_remove(q, &node) ||
	    tempo_delayq_query(q, &node, &deadline) != -ENOENT)
		bad++;
	tempo_delayq_shutdown(q);
	tempo_delayq_destroy(q, NULL, NULL);

	/*
	 * Tickets 1 and 2 are lost: 3 was submitted (stored behind them); one
	 * call gives up 1 and 2 and runs 3, after 0.
	 */
	o = tempo_order_create(8, NULL);
	if (IS_ERR(o))
		return bad + 1;
	for (i = 0; i < 4; i++)
		if (tempo_order_ticket_try(o, &t[i]))
			bad++;
	if (tempo_order_run(o, t[0], ex_probe_done, &ran) < 0 ||
	    tempo_order_run(o, t[3], ex_probe_done, &ran) < 0 || ran != 1)
		bad++;
	if (tempo_order_trash_below(o, t[3]) != 2 || ran != 2)
		bad++;
	if (tempo_order_trash_below(o, t[3] + 2) != -EINVAL)	/* never issued */
		bad++;
	tempo_order_destroy(o);
	if (bad)
		pr_warn("probe: %d of the query and skip checks failed\n", bad);
	return bad;
}

static int ex_submit_all(void)
{
	struct ex_req *req;
	u32 i;
	int err;

	for (i = 0; i < requests; i++) {
		req = kzalloc(sizeof(*req), GFP_KERNEL);
		if (!req)
			return -ENOMEM;
		req->seq = i;
		tempo_timer_init(&req->watchdog, ex_watchdog, 0);
		tempo_delayq_node_init(&req->retry);
		atomic_inc(&ex.outstanding);
		tempo_timer_arm(&req->watchdog, EX_WATCHDOG_NS);
		/* Sleeps while the window is full; the order of calls is the order. */
		err = tempo_order_submit(ex.order, &req->ord, ex_work, ex_done, 0);
		if (err) {
			atomic_dec(&ex.outstanding);
			tempo_timer_shutdown_sync(&req->watchdog);
			kfree(req);
			return err;
		}
	}
	return 0;
}

static int __init tempo_example_init(void)
{
	int err;

	init_completion(&ex.all_done);
	atomic_set(&ex.outstanding, 1);		/* ours, until all are submitted */
	if (ex_probe())
		return -EIO;

	ex.order = tempo_order_create(16, NULL);
	if (IS_ERR(ex.order))
		return PTR_ERR(ex.order);
	ex.retries = tempo_delayq_create();
	if (!ex.retries) {
		err = -ENOMEM;
		goto err_destroy_order;
	}
	ex.consumer = kthread_run(ex_consumer, NULL, "tempo_example");
	if (IS_ERR(ex.consumer)) {
		err = PTR_ERR(ex.consumer);
		goto err_destroy_delayq;
	}

	err = ex_submit_all();
	if (atomic_dec_and_test(&ex.outstanding))
		complete(&ex.all_done);
	wait_for_completion(&ex.all_done);

	pr_info("%u requests: %u completed in order (%u out of order), %u watchdogs fired, %u retried through the delay queue (%u early, latest %llu us late), %u failed\n",
		requests, ex.worked, ex.out_of_order, ex.watchdogs, ex.retried,
		ex.early, ex.retry_late_max / NSEC_PER_USEC, ex.failed);
	if (!err && (ex.out_of_order || ex.watchdogs || ex.early || ex.failed ||
		     ex.worked != requests))
		err = -EIO;

	tempo_delayq_shutdown(ex.retries);
	kthread_stop(ex.consumer);
err_destroy_delayq:
	tempo_delayq_destroy(ex.retries, NULL, NULL);
err_destroy_order:
	tempo_order_destroy(ex.order);
	return err;
}
module_init(tempo_example_init);

static void __exit tempo_example_exit(void)
{
}
module_exit(tempo_example_exit);

MODULE_IMPORT_NS("TEMPO");	/* tempo's API is exported in namespace TEMPO */
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tempo example client: timers, ordered completions, delay queue");
