// SPDX-License-Identifier: GPL-2.0
/*
 * tempo_uring: /dev/tempo through io_uring (liburing), KTAP.
 *
 * Arm and cancel batches as IORING_OP_URING_CMD (TEMPO_URING_CMD_*), inline
 * and forced to an io_uring worker (IOSQE_ASYNC); records read with
 * IORING_OP_READ, with and without IOSQE_ASYNC, and readiness with
 * IORING_OP_POLL_ADD. Each timer's record is delivered exactly once, however
 * reads are spread over io_uring's inline and worker paths.
 */
#include <poll.h>
#include <stdlib.h>
#include <liburing.h>

#include "common.h"
#include "libtempo_uring.h"

#define RING_DEPTH	16

static int ring_open(struct io_uring *ring)
{
	int err = io_uring_queue_init(RING_DEPTH, ring, 0);

	if (err)
		ktap_diag("io_uring_queue_init: %s", strerror(-err));
	return err;
}

/* Submit what is queued and wait for one CQE: its res, and its user_data in *@ud. */
static int ring_wait(struct io_uring *ring, uint64_t *ud)
{
	struct io_uring_cqe *cqe;
	int err, res;

	io_uring_submit(ring);
	err = io_uring_wait_cqe(ring, &cqe);
	if (err)
		return err;
	res = cqe->res;
	if (ud)
		*ud = cqe->user_data;
	io_uring_cqe_seen(ring, cqe);
	return res;
}

/* One uring_cmd, inline or (@async) from a worker: the CQE's res. */
static int ring_cmd(struct io_uring *ring, int fd, uint32_t op, struct tempo_batch *b,
		    bool async)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct tempo_uring_cmd uc;

	tempo_uring_prep_cmd(sqe, fd, op, &uc, b);
	if (async)
		sqe->flags |= IOSQE_ASYNC;
	return ring_wait(ring, NULL);
}

/*
 * Arm and cancel through uring_cmd, inline and with IOSQE_ASYNC: the CQE
 * carries the count done, or the ioctl's error with the batch's out fields
 * set; ids come back as from the ioctl; a bad flag is EINVAL and an unknown
 * command ENOTTY, with nothing done.
 */
static int test_uring_arm_cancel(void)
{
	struct tempo_timer_spec s[8];
	struct tempo_uring_cmd uc;
	struct io_uring_sqe *sqe;
	struct tempo_batch b;
	struct io_uring ring;
	uint64_t ids[8], cookie = 77;
	int fd = tempo_open(O_NONBLOCK), i, async;

	CHECK(fd >= 0);
	CHECK(ring_open(&ring) == 0);
	for (async = 0; async < 2; async++) {
		memset(s, 0, sizeof(s));
		for (i = 0; i < 8; i++) {
			s[i].cookie = i < 4 ? (uint64_t)i : cookie;
			s[i].value = 10 * 1000 * MS;
		}
		memset(&b, 0, sizeof(b));
		b.ptr = (uintptr_t)s;
		b.count = 8;
		CHECK_ERR(ring_cmd(&ring, fd, TEMPO_URING_CMD_ARM, &b, async), 8);
		CHECK(b.done == 8 && b.error == 0 && b.error_index == 8);
		for (i = 0; i < 8; i++) {
			CHECK(s[i].id != 0);
			ids[i] = s[i].id;
		}
		CHECK(ctx_stats(fd).timers == 8);

		sqe = io_uring_get_sqe(&ring);
		tempo_uring_prep_cancel(sqe, fd, &uc, &b, ids, 2, 0);
		if (async)
			sqe->flags |= IOSQE_ASYNC;
		CHECK_ERR(ring_wait(&ring, NULL), 2);
		/* Again: gone, the batch goes on, the CQE says ENOENT. */
		ids[2] = ids[0];
		memset(&b, 0, sizeof(b));
		b.ptr = (uintptr_t)(ids + 1);
		b.count = 3;
		CHECK_ERR(ring_cmd(&ring, fd, TEMPO_URING_CMD_CANCEL, &b, async), -ENOENT);
		CHECK(b.done == 1 && b.error_index == 0 && b.error == -ENOENT);
		memset(&b, 0, sizeof(b));
		b.ptr = (uintptr_t)&cookie;
		b.count = 1;
		b.flags = TEMPO_CANCEL_COOKIE;
		CHECK_ERR(ring_cmd(&ring, fd, TEMPO_URING_CMD_CANCEL, &b, async), 1);
		CHECK(b.affected == 4);
		CHECK(ctx_stats(fd).timers == 1);
		CHECK_ERR(tempo_cancel_one(fd, s[2].id), 0);	/* the one left */
	}

	/* Refusals: nothing armed. */
	memset(&b, 0, sizeof(b));
	b.ptr = (uintptr_t)s;
	b.count = 1;
	sqe = io_uring_get_sqe(&ring);
	tempo_uring_prep_cmd(sqe, fd, TEMPO_URING_CMD_ARM, &uc, &b);
	uc.flags = 1;
	memcpy(sqe->cmd, &uc, sizeof(uc));
	CHECK_ERR(ring_wait(&ring, NULL), -EINVAL);
	CHECK_ERR(ring_cmd(&ring, fd, 99, &b, false), -ENOTTY);
	b.count = 0;
	CHECK_ERR(ring_cmd(&ring, fd, TEMPO_URING_CMD_ARM, &b, false), -EINVAL);
	CHECK(b.error == -EINVAL);
	CHECK(ctx_stats(fd).timers == 0 && ctx_stats(fd).armed == 16);
	io_uring_queue_exit(&ring);
	close(fd);
	return KTAP_PASS;
}

/*
 * A batch that needs the slot table to grow cannot be armed on io_uring's
 * non-blocking issue (it allocates): the command comes back from a worker
 * with every timer armed, once.
 */
static int test_uring_arm_grows(void)
{
	const uint32_t n = 1000;
	struct tempo_timer_spec *s = calloc(n, sizeof(*s));
	struct tempo_batch b;
	struct io_uring ring;
	uint32_t i;
	int fd = tempo_open(O_NONBLOCK);

	CHECK(s && fd >= 0);
	CHECK(ring_open(&ring) == 0);
	for (i = 0; i < n; i++)
		s[i].value = 10 * 1000 * MS;
	memset(&b, 0, sizeof(b));
	b.ptr = (uintptr_t)s;
	b.count = n;
	CHECK_ERR(ring_cmd(&ring, fd, TEMPO_URING_CMD_ARM, &b, false), (int)n);
	CHECK(ctx_stats(fd).timers == n && ctx_stats(fd).armed == n);
	for (i = 1; i < n; i++)
		CHECK(s[i].id != s[i - 1].id);
	io_uring_queue_exit(&ring);
	close(fd);
	free(s);
	return KTAP_PASS;
}

#define RD_TIMERS	256
#define RD_READS	4

/*
 * Exactly once: RD_READS reads in flight through io_uring on a blocking fd,
 * half with IOSQE_ASYNC, before any record exists; then RD_TIMERS one-shots
 * are armed through uring_cmd, due over 20 ms; the reads complete as records
 * come, each re-submitted while records are owed. Every timer's record
 * arrives once, never early, and no id twice. (A read(2) on the same
 * blocking fd would race the ring's reads for the last records: the poll
 * case mixes the two on a non-blocking fd.)
 */
static int test_uring_read_exactly_once(void)
{
	static struct tempo_event ev[RD_READS][8];
	static uint8_t seen[RD_TIMERS];
	struct tempo_timer_spec s[RD_TIMERS];
	struct io_uring_sqe *sqe;
	struct tempo_uring_cmd uc;
	struct tempo_batch b;
	struct io_uring ring;
	uint64_t ud, got = 0, early = 0, dup = 0, inflight = 0, t0;
	int fd = tempo_open(0), i, res, k;

	CHECK(fd >= 0);
	CHECK(ring_open(&ring) == 0);
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < RD_READS; i++) {
		sqe = io_uring_get_sqe(&ring);
		tempo_uring_prep_read(sqe, fd, ev[i], 8);
		if (i & 1)
			sqe->flags |= IOSQE_ASYNC;
		io_uring_sqe_set_data64(sqe, i);
		inflight++;
	}
	io_uring_submit(&ring);
	memset(s, 0, sizeof(s));
	for (i = 0; i < RD_TIMERS; i++) {
		s[i].cookie = i;
		s[i].value = (i % 20 + 1) * MS;
	}
	t0 = tempo_now_ns();
	sqe = io_uring_get_sqe(&ring);
	tempo_uring_prep_arm(sqe, fd, &uc, &b, s, RD_TIMERS);
	io_uring_sqe_set_data64(sqe, 100);
	while (got < RD_TIMERS) {
		res = ring_wait(&ring, &ud);
		if (ud == 100) {
			CHECK_ERR(res, RD_TIMERS);
			continue;
		}
		CHECK(res > 0 && res % sizeof(struct tempo_event) == 0);
		inflight--;
		for (k = 0; k < res / (int)sizeof(struct tempo_event); k++) {
			struct tempo_event *e = &ev[ud][k];

			CHECK(e->type == TEMPO_EV_TIMER && e->cookie < RD_TIMERS);
			dup += seen[e->cookie]++ > 0;
			early += e->time < e->deadline || e->deadline < t0 + MS;
			got++;
		}
		if (got + inflight < RD_TIMERS) {
			sqe = io_uring_get_sqe(&ring);
			tempo_uring_prep_read(sqe, fd, ev[ud], 8);
			if (ud & 1)
				sqe->flags |= IOSQE_ASYNC;
			io_uring_sqe_set_data64(sqe, ud);
			inflight++;
		}
	}
	ktap_diag("%llu records, %llu duplicates, %llu early, %llu reads left in flight",
		  (unsigned long long)got, (unsigned long long)dup,
		  (unsigned long long)early, (unsigned long long)inflight);
	CHECK(got == RD_TIMERS && !dup && !early);
	for (i = 0; i < RD_TIMERS; i++)
		CHECK(seen[i] == 1);
	CHECK(ctx_stats(fd).timers == 0 && ctx_stats(fd).events_read == RD_TIMERS);
	/* Reads still in flight end with the ring (the fd closes after). */
	io_uring_queue_exit(&ring);
	close(fd);
	return KTAP_PASS;
}

/*
 * IORING_OP_POLL_ADD: EPOLLIN once a record is ready, not before; the
 * record then reads at once (inline, and from a worker). On a pollable file
 * io_uring turns a read that would block into a wait for readiness, even
 * under O_NONBLOCK: a READ submitted with nothing ready completes with the
 * record of a timer armed after it, not with EAGAIN.
 */
static int test_uring_poll(void)
{
	struct io_uring_sqe *sqe;
	struct tempo_event ev;
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	uint64_t id, t0;
	int fd = tempo_open(O_NONBLOCK), res, async;

	CHECK(fd >= 0);
	CHECK(ring_open(&ring) == 0);
	for (async = 0; async < 2; async++) {
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_poll_add(sqe, fd, POLLIN);
		io_uring_submit(&ring);
		usleep(20000);
		CHECK(io_uring_peek_cqe(&ring, &cqe) == -EAGAIN);	/* nothing ready */
		t0 = tempo_now_ns();
		CHECK_ERR(tempo_arm_one(fd, 5, 10 * MS, 0, 0, &id), 0);
		res = ring_wait(&ring, NULL);
		CHECK(res > 0 && (res & POLLIN));
		CHECK(tempo_now_ns() >= t0 + 10 * MS);
		sqe = io_uring_get_sqe(&ring);
		tempo_uring_prep_read(sqe, fd, &ev, 1);
		if (async)
			sqe->flags |= IOSQE_ASYNC;
		CHECK_ERR(ring_wait(&ring, NULL), (int)sizeof(ev));
		CHECK(ev.id == id && ev.cookie == 5 && (ev.flags & TEMPO_EVF_FINAL));
		sqe = io_uring_get_sqe(&ring);
		tempo_uring_prep_read(sqe, fd, &ev, 1);
		if (async)
			sqe->flags |= IOSQE_ASYNC;
		io_uring_submit(&ring);
		usleep(20000);
		CHECK(io_uring_peek_cqe(&ring, &cqe) == -EAGAIN);	/* waits for a record */
		CHECK(read(fd, &ev, sizeof(ev)) == -1 && errno == EAGAIN);
		CHECK_ERR(tempo_arm_one(fd, 6, 10 * MS, 0, 0, &id), 0);
		CHECK_ERR(ring_wait(&ring, NULL), (int)sizeof(ev));
		CHECK(ev.id == id && ev.cookie == 6);
	}
	io_uring_queue_exit(&ring);
	close(fd);
	return KTAP_PASS;
}

static const struct ktap_case cases[] = {
	KTAP_CASE(test_uring_arm_cancel),
	KTAP_CASE(test_uring_arm_grows),
	KTAP_CASE(test_uring_read_exactly_once),
	KTAP_CASE(test_uring_poll),
	{ NULL, NULL }
};

int main(void)
{
	struct io_uring ring;
	int fd = tempo_open(0);

	if (fd < 0) {
		printf("KTAP version 1\n1..0 # SKIP no %s: %s\n", TEMPO_DEVICE, strerror(-fd));
		return 77;
	}
	close(fd);
	if (io_uring_queue_init(2, &ring, 0)) {
		printf("KTAP version 1\n1..0 # SKIP no io_uring\n");
		return 77;
	}
	io_uring_queue_exit(&ring);
	return ktap_run("tempo_uring", cases);
}
