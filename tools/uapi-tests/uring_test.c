// SPDX-License-Identifier: GPL-2.0
/*
 * tempo_uring: /dev/tempo through io_uring (liburing), KTAP.
 *
 * Arm and cancel batches as IORING_OP_URING_CMD (TEMPO_URING_CMD_*), inline
 * and forced to an io_uring worker (IOSQE_ASYNC); records read with
 * IORING_OP_READ, READV and READ_FIXED, inline (read_iter with IOCB_NOWAIT:
 * no worker thread) and with IOSQE_ASYNC, and with readv(2); readiness with
 * IORING_OP_POLL_ADD, single and multishot. Each timer's record is
 * delivered exactly once, whole, however reads are spread over io_uring's
 * inline and worker paths, and a faulting buffer loses nothing.
 */
#include <dirent.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <liburing.h>

#include "common.h"
#include "libtempo_uring.h"

#define RING_DEPTH	16

static int ring_open(struct io_uring *ring)
{
	int err = io_uring_queue_init(RING_DEPTH, ring, 0);

	if (err)
		test_diag("io_uring_queue_init: %s", strerror(-err));
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

	ASSERT_GE(fd, 0);
	ASSERT_EQ(ring_open(&ring), 0);
	for (async = 0; async < 2; async++) {
		memset(s, 0, sizeof(s));
		for (i = 0; i < 8; i++) {
			s[i].cookie = i < 4 ? (uint64_t)i : cookie;
			s[i].value = 10 * 1000 * MS;
		}
		memset(&b, 0, sizeof(b));
		b.ptr = (uintptr_t)s;
		b.count = 8;
		ASSERT_ERRNO(ring_cmd(&ring, fd, TEMPO_URING_CMD_ARM, &b, async), 8);
		ASSERT_TRUE(b.done == 8 && b.error == 0 && b.error_index == 8);
		for (i = 0; i < 8; i++) {
			ASSERT_NE(s[i].id, 0);
			ids[i] = s[i].id;
		}
		ASSERT_EQ(ctx_stats(fd).timers, 8);

		sqe = io_uring_get_sqe(&ring);
		tempo_uring_prep_cancel(sqe, fd, &uc, &b, ids, 2, 0);
		if (async)
			sqe->flags |= IOSQE_ASYNC;
		ASSERT_ERRNO(ring_wait(&ring, NULL), 2);
		/* Again: gone, the batch goes on, the CQE says ENOENT. */
		ids[2] = ids[0];
		memset(&b, 0, sizeof(b));
		b.ptr = (uintptr_t)(ids + 1);
		b.count = 3;
		ASSERT_ERRNO(ring_cmd(&ring, fd, TEMPO_URING_CMD_CANCEL, &b, async), -ENOENT);
		ASSERT_TRUE(b.done == 1 && b.error_index == 0 && b.error == -ENOENT);
		memset(&b, 0, sizeof(b));
		b.ptr = (uintptr_t)&cookie;
		b.count = 1;
		b.flags = TEMPO_CANCEL_COOKIE;
		ASSERT_ERRNO(ring_cmd(&ring, fd, TEMPO_URING_CMD_CANCEL, &b, async), 1);
		ASSERT_EQ(b.affected, 4);
		ASSERT_EQ(ctx_stats(fd).timers, 1);
		ASSERT_ERRNO(tempo_cancel_one(fd, s[2].id), 0);	/* the one left */
	}

	/* Refusals: nothing armed. */
	memset(&b, 0, sizeof(b));
	b.ptr = (uintptr_t)s;
	b.count = 1;
	sqe = io_uring_get_sqe(&ring);
	tempo_uring_prep_cmd(sqe, fd, TEMPO_URING_CMD_ARM, &uc, &b);
	uc.flags = 1;
	memcpy(sqe->cmd, &uc, sizeof(uc));
	ASSERT_ERRNO(ring_wait(&ring, NULL), -EINVAL);
	ASSERT_ERRNO(ring_cmd(&ring, fd, 99, &b, false), -ENOTTY);
	b.count = 0;
	ASSERT_ERRNO(ring_cmd(&ring, fd, TEMPO_URING_CMD_ARM, &b, false), -EINVAL);
	ASSERT_EQ(b.error, -EINVAL);
	ASSERT_TRUE(ctx_stats(fd).timers == 0 && ctx_stats(fd).armed == 16);
	io_uring_queue_exit(&ring);
	close(fd);
	return TEST_PASS;
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

	ASSERT_TRUE(s && fd >= 0);
	ASSERT_EQ(ring_open(&ring), 0);
	for (i = 0; i < n; i++)
		s[i].value = 10 * 1000 * MS;
	memset(&b, 0, sizeof(b));
	b.ptr = (uintptr_t)s;
	b.count = n;
	ASSERT_ERRNO(ring_cmd(&ring, fd, TEMPO_URING_CMD_ARM, &b, false), (int)n);
	ASSERT_TRUE(ctx_stats(fd).timers == n && ctx_stats(fd).armed == n);
	for (i = 1; i < n; i++)
		ASSERT_NE(s[i].id, s[i - 1].id);
	io_uring_queue_exit(&ring);
	close(fd);
	free(s);
	return TEST_PASS;
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

	ASSERT_GE(fd, 0);
	ASSERT_EQ(ring_open(&ring), 0);
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
			ASSERT_ERRNO(res, RD_TIMERS);
			continue;
		}
		ASSERT_TRUE(res > 0 && res % sizeof(struct tempo_event) == 0);
		inflight--;
		for (k = 0; k < res / (int)sizeof(struct tempo_event); k++) {
			struct tempo_event *e = &ev[ud][k];

			ASSERT_TRUE(e->type == TEMPO_EV_TIMER && e->cookie < RD_TIMERS);
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
	test_diag("%llu records, %llu duplicates, %llu early, %llu reads left in flight",
		  (unsigned long long)got, (unsigned long long)dup,
		  (unsigned long long)early, (unsigned long long)inflight);
	ASSERT_TRUE(got == RD_TIMERS && !dup && !early);
	for (i = 0; i < RD_TIMERS; i++)
		ASSERT_EQ(seen[i], 1);
	ASSERT_TRUE(ctx_stats(fd).timers == 0 && ctx_stats(fd).events_read == RD_TIMERS);
	/* Reads still in flight end with the ring (the fd closes after). */
	io_uring_queue_exit(&ring);
	close(fd);
	return TEST_PASS;
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

	ASSERT_GE(fd, 0);
	ASSERT_EQ(ring_open(&ring), 0);
	for (async = 0; async < 2; async++) {
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_poll_add(sqe, fd, POLLIN);
		io_uring_submit(&ring);
		usleep(20000);
		ASSERT_EQ(io_uring_peek_cqe(&ring, &cqe), -EAGAIN);	/* nothing ready */
		t0 = tempo_now_ns();
		ASSERT_ERRNO(tempo_arm_one(fd, 5, 10 * MS, 0, 0, &id), 0);
		res = ring_wait(&ring, NULL);
		ASSERT_TRUE(res > 0 && (res & POLLIN));
		ASSERT_GE(tempo_now_ns(), t0 + 10 * MS);
		sqe = io_uring_get_sqe(&ring);
		tempo_uring_prep_read(sqe, fd, &ev, 1);
		if (async)
			sqe->flags |= IOSQE_ASYNC;
		ASSERT_ERRNO(ring_wait(&ring, NULL), (int)sizeof(ev));
		ASSERT_TRUE(ev.id == id && ev.cookie == 5 && (ev.flags & TEMPO_EVF_FINAL));
		sqe = io_uring_get_sqe(&ring);
		tempo_uring_prep_read(sqe, fd, &ev, 1);
		if (async)
			sqe->flags |= IOSQE_ASYNC;
		io_uring_submit(&ring);
		usleep(20000);
		ASSERT_EQ(io_uring_peek_cqe(&ring, &cqe), -EAGAIN);	/* waits for a record */
		ASSERT_TRUE(read(fd, &ev, sizeof(ev)) == -1 && errno == EAGAIN);
		ASSERT_ERRNO(tempo_arm_one(fd, 6, 10 * MS, 0, 0, &id), 0);
		ASSERT_ERRNO(ring_wait(&ring, NULL), (int)sizeof(ev));
		ASSERT_TRUE(ev.id == id && ev.cookie == 6);
	}
	io_uring_queue_exit(&ring);
	close(fd);
	return TEST_PASS;
}

/* io_uring's worker threads of this process (named iou-wrk-<pid>), or -1. */
static int iowq_workers(void)
{
	char path[300], comm[32];
	struct dirent *d;
	int n = 0, fd;
	ssize_t len;
	DIR *dir;

	dir = opendir("/proc/self/task");
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", d->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		len = read(fd, comm, sizeof(comm) - 1);
		close(fd);
		comm[len > 0 ? len : 0] = 0;
		n += !strncmp(comm, "iou-wrk", 7);
	}
	closedir(dir);
	return n;
}

/* Arm a one-shot due in @delay ns with @cookie; its id. */
static uint64_t arm_in(int fd, uint64_t cookie, uint64_t delay)
{
	uint64_t id = 0;

	if (tempo_arm_one(fd, cookie, delay, 0, 0, &id))
		return 0;
	return id;
}

#define NW_REC	4

/*
 * In the case's own process (the harness forks each: no io_uring worker
 * yet), on a blocking fd: READ, READV (three iovecs that cut records apart)
 * and READ_FIXED of records already ready, and a READ of an empty queue
 * that the record of a timer armed after it completes. Returns 0 or the
 * line that failed.
 */
static int reads_inline(void)
{
	static struct tempo_event ev[NW_REC], fixed[NW_REC];
	static char vbuf[3 * sizeof(struct tempo_event)];
	struct iovec iov[3], reg = { .iov_base = fixed, .iov_len = sizeof(fixed) };
	struct io_uring_sqe *sqe;
	struct tempo_event rec[3];
	struct io_uring ring;
	uint64_t id[NW_REC], t0;
	int fd = tempo_open(0), i, res;

	if (fd < 0 || io_uring_queue_init(RING_DEPTH, &ring, 0) ||
	    io_uring_register_buffers(&ring, &reg, 1))
		return __LINE__;
	/* READ: two records ready, room for four. */
	for (i = 0; i < 2; i++)
		id[i] = arm_in(fd, 10 + i, 0);
	if (wait_ready(fd, 2, 5000))
		return __LINE__;
	sqe = io_uring_get_sqe(&ring);
	tempo_uring_prep_read(sqe, fd, ev, NW_REC);
	res = ring_wait(&ring, NULL);
	if (res != 2 * (int)sizeof(ev[0]) || ev[0].cookie + ev[1].cookie != 21)
		return __LINE__;
	res = iowq_workers();
	if (res) {
		test_diag("a READ of records ready: %d io_uring worker threads", res);
		return __LINE__;
	}
	/* READV: 40 + 60 + 44 bytes hold three records, cut across the iovecs. */
	for (i = 0; i < 4; i++)
		id[i] = arm_in(fd, 20 + i, 0);
	if (wait_ready(fd, 4, 5000))
		return __LINE__;
	iov[0] = (struct iovec){ vbuf, 40 };
	iov[1] = (struct iovec){ vbuf + 40, 60 };
	iov[2] = (struct iovec){ vbuf + 100, 44 };
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_readv(sqe, fd, iov, 3, 0);
	res = ring_wait(&ring, NULL);
	memcpy(rec, vbuf, sizeof(rec));
	if (res != 3 * (int)sizeof(rec[0]))
		return __LINE__;
	for (i = 0; i < 3; i++)
		if (rec[i].type != TEMPO_EV_TIMER || rec[i].cookie < 20 || rec[i].cookie > 23)
			return __LINE__;
	/* READ_FIXED (registered pages): the fourth. */
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read_fixed(sqe, fd, fixed, sizeof(fixed), 0, 0);
	res = ring_wait(&ring, NULL);
	if (res != (int)sizeof(fixed[0]) ||
	    rec[0].cookie + rec[1].cookie + rec[2].cookie + fixed[0].cookie != 20 + 21 + 22 + 23)
		return __LINE__;
	/* READ of an empty queue: waits, then the timer's record completes it. */
	sqe = io_uring_get_sqe(&ring);
	tempo_uring_prep_read(sqe, fd, ev, NW_REC);
	io_uring_submit(&ring);
	usleep(20000);
	t0 = tempo_now_ns();
	id[0] = arm_in(fd, 30, 10 * MS);
	res = ring_wait(&ring, NULL);
	if (res != (int)sizeof(ev[0]) || ev[0].id != id[0] || tempo_now_ns() < t0 + 10 * MS)
		return __LINE__;
	if (ctx_stats(fd).events_read != 2 + 4 + 1 || ctx_stats(fd).timers)
		return __LINE__;
	/* Every one of them completed without a worker thread. */
	res = iowq_workers();
	io_uring_queue_exit(&ring);
	close(fd);
	if (res)
		test_diag("after READ, READV, READ_FIXED and a READ that waited: %d io_uring worker threads",
			  res);
	return res ? __LINE__ : 0;
}

/*
 * io_uring reads /dev/tempo inline (read_iter with IOCB_NOWAIT, FMODE_NOWAIT)
 * and waits for records by poll, never in a worker: READ, READV and
 * READ_FIXED of a blocking fd complete with whole records, exactly once,
 * and no io-wq worker thread exists afterwards. Fails if: the file cannot be
 * read without blocking (no read_iter, no FMODE_NOWAIT: io_uring hands every
 * READ that finds a record to a worker, iou-wrk-*), or READV of iovecs
 * smaller than a record fails with EINVAL.
 */
static int test_uring_reads_inline(void)
{
	int line = reads_inline();

	if (line)
		test_diag("%s:%d: failed", __FILE__, line);
	return line ? TEST_FAIL : TEST_PASS;
}

/*
 * readv(2) and io_uring READV give whole records, never part of one, in
 * iovecs that cut records apart: 48 + 47 bytes read one record (the next
 * does not fit in what is left), 20 + 100 bytes two. O_NONBLOCK: EAGAIN. An
 * io_uring READ whose second record would land on a PROT_NONE page reads
 * one; the other stays, and is read once. Fails if: readv(2) reads each
 * iovec with a read() of its own (one smaller than a record fails with
 * EINVAL).
 */
static int test_readv_whole_records(void)
{
	static char buf[3 * sizeof(struct tempo_event)];
	struct tempo_event rec[3], ev;
	uint64_t seen = 0;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct iovec iov[2];
	char *region;
	int fd = tempo_open(O_NONBLOCK), i;

	ASSERT_GE(fd, 0);
	ASSERT_EQ(ring_open(&ring), 0);
	for (i = 0; i < 3; i++)
		ASSERT_TRUE(arm_in(fd, i, 0));
	ASSERT_ERRNO(wait_ready(fd, 3, 5000), 0);
	iov[0] = (struct iovec){ buf, 48 };
	iov[1] = (struct iovec){ buf + 48, 47 };
	ASSERT_EQ(readv(fd, iov, 2), (ssize_t)sizeof(rec[0]));
	memcpy(rec, buf, sizeof(rec[0]));
	seen |= 1ULL << rec[0].cookie;
	iov[0] = (struct iovec){ buf, 20 };
	iov[1] = (struct iovec){ buf + 20, 100 };
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_readv(sqe, fd, iov, 2, 0);
	ASSERT_ERRNO(ring_wait(&ring, NULL), 2 * (int)sizeof(rec[0]));
	memcpy(rec, buf, 2 * sizeof(rec[0]));
	for (i = 0; i < 2; i++) {
		ASSERT_TRUE(rec[i].type == TEMPO_EV_TIMER && rec[i].cookie < 3);
		ASSERT_FALSE(seen & (1ULL << rec[i].cookie));
		seen |= 1ULL << rec[i].cookie;
	}
	ASSERT_EQ(seen, 7);
	ASSERT_TRUE(readv(fd, iov, 2) == -1 && errno == EAGAIN);

	region = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(region, MAP_FAILED);
	ASSERT_EQ(mprotect(region + 4096, 4096, PROT_NONE), 0);
	for (i = 0; i < 2; i++)
		ASSERT_TRUE(arm_in(fd, 10 + i, 0));
	ASSERT_ERRNO(wait_ready(fd, 2, 5000), 0);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, fd, region + 4096 - sizeof(ev), 2 * sizeof(ev), 0);
	ASSERT_ERRNO(ring_wait(&ring, NULL), (int)sizeof(ev));
	memcpy(rec, region + 4096 - sizeof(ev), sizeof(ev));
	ASSERT_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	ASSERT_TRUE(rec[0].cookie + ev.cookie == 21 && ctx_stats(fd).events_lost == 0);
	ASSERT_TRUE(ctx_stats(fd).timers == 0 && ctx_stats(fd).events_read == 5);
	munmap(region, 8192);
	io_uring_queue_exit(&ring);
	close(fd);
	return TEST_PASS;
}

/*
 * A multishot IORING_OP_POLL_ADD stays armed: each timer that fires posts a
 * CQE with EPOLLIN and IORING_CQE_F_MORE, and each record is read once; the
 * poll ends when it is removed.
 */
static int test_uring_poll_multishot(void)
{
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct tempo_event ev;
	struct io_uring ring;
	int fd = tempo_open(O_NONBLOCK), round, done = 0;
	uint64_t id;

	ASSERT_GE(fd, 0);
	ASSERT_EQ(ring_open(&ring), 0);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_poll_multishot(sqe, fd, POLLIN);
	io_uring_sqe_set_data64(sqe, 1);
	io_uring_submit(&ring);
	for (round = 0; round < 3; round++) {
		id = arm_in(fd, round, 5 * MS);
		ASSERT_TRUE(id);
		ASSERT_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
		ASSERT_TRUE(cqe->user_data == 1 && cqe->res > 0 && (cqe->res & POLLIN));
		ASSERT_TRUE(cqe->flags & IORING_CQE_F_MORE);
		io_uring_cqe_seen(&ring, cqe);
		ASSERT_TRUE(read(fd, &ev, sizeof(ev)) == sizeof(ev) && ev.id == id);
		ASSERT_TRUE(read(fd, &ev, sizeof(ev)) == -1 && errno == EAGAIN);
	}
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_poll_remove(sqe, 1);
	io_uring_sqe_set_data64(sqe, 2);
	io_uring_submit(&ring);
	while (done < 2) {
		ASSERT_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
		if (cqe->user_data == 1)
			ASSERT_FALSE(cqe->flags & IORING_CQE_F_MORE);
		else
			ASSERT_TRUE(cqe->user_data == 2 && cqe->res == 0);
		io_uring_cqe_seen(&ring, cqe);
		done++;
	}
	io_uring_queue_exit(&ring);
	close(fd);
	return TEST_PASS;
}

static const struct test_case cases[] = {
	TEST_CASE(test_uring_arm_cancel),
	TEST_CASE(test_uring_arm_grows),
	TEST_CASE(test_uring_read_exactly_once),
	TEST_CASE(test_uring_poll),
	TEST_CASE(test_uring_reads_inline),
	TEST_CASE(test_readv_whole_records),
	TEST_CASE(test_uring_poll_multishot),
	{}
};

int main(void)
{
	struct io_uring ring;
	int fd = tempo_open(0);

	if (fd < 0)
		return test_skip_all("no %s: %s", TEMPO_DEVICE, strerror(-fd));
	close(fd);
	if (io_uring_queue_init(2, &ring, 0))
		return test_skip_all("no io_uring");
	io_uring_queue_exit(&ring);
	return test_run("tempo_uring", cases);
}
