// SPDX-License-Identifier: GPL-2.0
/*
 * tempo_hostile_sink: /dev/tempo against a hostile local user: ordered
 * streams and their sinks, as a hostile user would use them.
 * How the attacks run (uids, root, kids): hostile.h. Here:
 *
 *  - ordered sink writes past the streak bound: setuid bit, RLIMIT_FSIZE
 *    (done by a kworker with kernel credentials, they skip both);
 *  - a sink pipe nobody reads: another user's close() and operations, and
 *    SIGKILL of the blocked writer, in TEMPO_IOC_ORDER_SUBMIT and FLUSH;
 *  - sink I/O by whoever touches the file: exit() and a fd dropped in
 *    another user's recvmsg() with completions waiting for a full pipe, a
 *    privileged process using another user's fd, O_NONBLOCK read();
 *  - a ticket recorded after another thread skipped past it (a test point
 *    holds the recording thread), and a skip whose count cannot be written;
 *  - sinks that can hold file references (unix sockets), and the reference
 *    cycle through SCM_RIGHTS that keeps a context alive forever;
 *  - the sink's file position, shared with the owner's own write(2)s.
 *
 * KTAP on stdout; each child's diagnostics go there too.
 */
#define _GNU_SOURCE
#include "hostile.h"

/* ---- ordered streams and sinks ----------------------------------- */

/*
 * Take @n tickets and submit them so that one drain covers them all: 1..n-1
 * first (they park), the first STREAK of them with no data, then ticket 0.
 * Its submitter completes 0..STREAK-1 (and writes those, no bytes) and the
 * scheduler hands the rest, past the streak bound, to its workqueue, which
 * queues them for the sink: TEMPO_IOC_ORDER_FLUSH writes them. Only that
 * rest has bytes (@len each).
 */
static int streak_submit(int fd, unsigned int n, unsigned int len)
{
	static char data[4096];
	uint64_t first = 0, t;
	unsigned int i, k;
	int err;

	memset(data, 'h', sizeof(data));
	for (i = 0; i < n; i++) {
		err = tempo_ticket(fd, 0, &t);
		if (err)
			return err;
		if (!i)
			first = t;
		else if (t != first + i)
			return -EPROTO;
	}
	for (i = 1; i <= n; i++) {
		k = i % n;
		err = tempo_submit(fd, first + k, k, data, k < STREAK ? 0 : len);
		if (err)
			return err;
	}
	return 0;
}

/* Enter the context (TEMPO_IOC_STATS) until @n completions ran, up to @ms. */
static int wait_completed(int fd, uint64_t n, int ms, struct tempo_ctx_stats *st)
{
	uint64_t end = now_ms() + ms;

	for (;;) {
		*st = ctx_stats(fd);
		if (st->completed >= n)
			return 0;
		if (now_ms() >= end)
			return -ETIMEDOUT;
		usleep(1000);
	}
}

/*
 * A pipe nobody reads, full: a write to p[1] blocks. The parent keeps p[0]
 * (non-blocking, for drain_sink()) so that it is never closed under a writer.
 */
static int pipe_full(int p[2])
{
	static char page[4096];

	if (pipe(p))
		return -errno;
	if (fcntl(p[1], F_SETFL, O_NONBLOCK) || fcntl(p[0], F_SETFL, O_NONBLOCK))
		return -errno;
	while (write(p[1], page, sizeof(page)) > 0)
		;
	if (errno != EAGAIN || fcntl(p[1], F_SETFL, 0))
		return -errno;
	drain_fd = p[0];
	return 0;
}

struct streak_arg {
	const char *path;	/* the sink file */
	unsigned int n;		/* tickets */
	unsigned int len;	/* bytes per ticket past the streak bound */
	long fsize;		/* RLIMIT_FSIZE, or -1 */
};

static int streak_kid(void *p)
{
	const struct streak_arg *a = p;
	struct tempo_ctx_stats st;
	struct rlimit rl;
	int fd, sink, err;

	signal(SIGXFSZ, SIG_IGN);
	if (a->fsize >= 0) {
		rl.rlim_cur = rl.rlim_max = a->fsize;
		ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &rl), 0);
	}
	sink = open(a->path, O_WRONLY | O_CLOEXEC);
	ASSERT_GE(sink, 0);
	fd = tempo_open(0);
	ASSERT_GE(fd, 0);
	ASSERT_ERRNO(tempo_set_sink(fd, sink), 0);
	ASSERT_ERRNO(streak_submit(fd, a->n, a->len), 0);
	err = wait_completed(fd, a->n, 20000, &st);
	ASSERT_ERRNO(tempo_flush(fd), 0);		/* the rest, by this thread */
	st = ctx_stats(fd);
	test_diag("uid %u: %llu of %u completed; sink_bytes %llu, sink_errors %llu, sink_last_error %d",
		  getuid(), (unsigned long long)st.completed, a->n,
		  (unsigned long long)st.sink_bytes, (unsigned long long)st.sink_errors,
		  st.sink_last_error);
	ASSERT_ERRNO(err, 0);
	close(fd);
	close(sink);
	if (a->fsize >= 0) {
		ASSERT_GT(st.sink_errors, 0);
		ASSERT_ERRNO(st.sink_last_error, -EFBIG);
	}
	return TEST_PASS;
}

/*
 * Root makes a root-owned file of mode 04777 in a tmpfs directory; uid 65534
 * makes it the sink of a long streak (streak_submit()). @st receives the
 * file's stat after the kid is done; returns the kid's verdict.
 */
static int streak_attack(long fsize, unsigned int n, unsigned int len, struct stat *st)
{
	char dir[] = "/tmp/tempo-hostile.XXXXXX", path[64];
	struct streak_arg a = { .path = path, .n = n, .len = len, .fsize = fsize };
	struct kid *k;
	int fd, rc = TEST_FAIL;

	ASSERT_TRUE(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/setuid", dir);
	fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
	if (fd >= 0 && !chmod(dir, 0755) && !fchmod(fd, 04777)) {
		k = kid_start(UID_A, streak_kid, &a);
		rc = k ? kid_finish(k, 60000) : TEST_FAIL;
		if (stat(path, st)) {
			test_diag("stat %s: %s", path, strerror(errno));
			rc = TEST_FAIL;
		}
		test_diag("root's file of mode 04777 after uid %u's %u ordered sink writes of %u bytes%s: mode %04o, %lld bytes",
			  UID_A, n - STREAK, len, fsize >= 0 ? " under RLIMIT_FSIZE 100" : "",
			  st->st_mode & 07777, (long long)st->st_size);
	}
	if (fd >= 0)
		close(fd);
	unlink(path);
	rmdir(dir);
	return rc;
}

/*
 * Sink writes past the streak bound are made by the thread that asks for
 * them (TEMPO_IOC_ORDER_FLUSH), with its credentials: a write by uid 65534
 * clears the setuid bit. Before the hostile-user work the rest of the
 * streak was written by a kworker with kernel credentials, and the bit
 * stayed.
 */
TEST_F(hostile, test_sink_streak_clears_setuid)
{
	struct stat st = { 0 };
	const unsigned int n = 256, len = 16;

	ASSERT_EQ(streak_attack(-1, n, len, &st), TEST_PASS);
	ASSERT_FALSE(st.st_mode & S_ISUID);
	ASSERT_EQ(st.st_size, (off_t)(n - STREAK) * len);
	return TEST_PASS;
}

/*
 * ...and under the writer's RLIMIT_FSIZE: the file stops at 100 bytes and
 * the failed writes are counted with -EFBIG. A kworker had no limit.
 */
TEST_F(hostile, test_sink_streak_honours_rlimit_fsize)
{
	struct stat st = { 0 };
	int rc = streak_attack(100, 256, 16, &st);

	ASSERT_LE(st.st_size, 100);
	ASSERT_EQ(rc, TEST_PASS);
	return TEST_PASS;
}

#define STUCK_N		128	/* tickets of a stuck streak: 64 x 4 KiB past the bound */

/*
 * uid 65534: a streak whose rest must go to its full sink pipe, then
 * TEMPO_IOC_ORDER_FLUSH, which writes the rest and blocks.
 */
static int stuck_streak_kid(void *p)
{
	int sink = *(int *)p, fd = tempo_open(0);
	struct tempo_ctx_stats st;

	ASSERT_GE(fd, 0);
	ASSERT_ERRNO(tempo_set_sink(fd, sink), 0);
	ASSERT_ERRNO(streak_submit(fd, STUCK_N, 4096), 0);
	ASSERT_ERRNO(wait_completed(fd, STUCK_N, 20000, &st), 0);	/* all queued */
	say(1);
	tempo_flush(fd);
	for (;;)
		pause();
	return TEST_FAIL;
}

/* Run @expr, and count it as slow if it took more than SLOW_MS. */
#define TIMED(expr) do {						\
	uint64_t __t = now_ms();					\
	expr;								\
	__t = now_ms() - __t;						\
	if (__t > worst)						\
		worst = __t;						\
	if (__t > SLOW_MS) {						\
		test_diag("uid %u: %s took %llu ms", getuid(), #expr,	\
			  (unsigned long long)__t);			\
		slow++;							\
	}								\
} while (0)

/* uid 65533, an innocent bystander: every operation, each bounded in time. */
static int bystander_kid(void *unused)
{
	struct tempo_timer_spec s[4];
	struct tempo_event ev[4];
	uint64_t worst = 0, t;
	int fd = -1, p[2], round, got, n, slow = 0, err = 0, sinkerr = 0;
	char buf[8];

	(void)unused;
	ASSERT_EQ(pipe(p), 0);
	for (round = 0; round < 3; round++) {
		TIMED(fd = tempo_open(0));
		ASSERT_GE(fd, 0);
		memset(s, 0, sizeof(s));
		TIMED(err = tempo_arm(fd, s, 4, NULL));
		ASSERT_ERRNO(err, 0);
		for (got = 0; got < 4; got += n) {
			TIMED(n = tempo_read_events(fd, ev, 4 - got));
			ASSERT_GT(n, 0);
		}
		TIMED(err = tempo_ticket(fd, 0, &t));
		ASSERT_ERRNO(err, 0);
		TIMED(err = tempo_submit(fd, t, 1, "record", 6));
		ASSERT_ERRNO(err, 0);
		TIMED(n = tempo_read_events(fd, ev, 1));
		ASSERT_TRUE(n == 1 && ev[0].type == TEMPO_EV_ORDER && ev[0].id == t);
		TIMED(sinkerr = tempo_set_sink(fd, p[1]));
		ASSERT_ERRNO(sinkerr, 0);
		TIMED(err = tempo_ticket(fd, 0, &t));
		ASSERT_ERRNO(err, 0);
		TIMED(err = tempo_submit(fd, t, 2, "sunk", 4));
		ASSERT_ERRNO(err, 0);
		ASSERT_EQ(read(p[0], buf, sizeof(buf)), 4);
		TIMED(close(fd));
	}
	test_diag("uid %u: 3 rounds of open, arm, read, ticket, submit, sink, close: slowest %llu ms",
		  getuid(), (unsigned long long)worst);
	return slow ? TEST_FAIL : TEST_PASS;
}

/*
 * One user's stuck sink harms no other user: while uid 65534's streak waits
 * on its full pipe, uid 65533's every operation and close() ends within
 * SLOW_MS. Fails if: a stuck drain sits in a module-wide workqueue that
 * 65533's close() flushes (D state until the pipe is drained). Then 65534 ends on SIGKILL without help.
 */
TEST_F(hostile, test_sink_stuck_spares_other_users)
{
	struct kid *a, *b;
	int p[2], rc;

	ASSERT_EQ(pipe_full(p), 0);
	a = kid_start(UID_A, stuck_streak_kid, &p[1]);
	close(p[1]);
	ASSERT_TRUE(a);
	ASSERT_ERRNO(kid_hear(a, 30000), 1);
	b = kid_start(UID_B, bystander_kid, NULL);
	ASSERT_TRUE(b);
	if (kid_reap(b, 15000, false)) {
		test_diag("uid %u: still blocked 15 s after it started, while uid %u's sink is stuck (%s)",
			  UID_B, UID_A, proc_where(b->pid));
		rc = TEST_FAIL;
	} else {
		rc = kid_verdict(b);
	}
	if (kid_kill(a, KILL_MS))
		rc = TEST_FAIL;
	return rc;
}

/* uid 65534: submit into a full sink pipe; blocks in TEMPO_IOC_ORDER_SUBMIT. */
static int blocked_submit_kid(void *p)
{
	static char data[4096];
	int sink = *(int *)p, fd = tempo_open(0);
	uint64_t t;

	ASSERT_GE(fd, 0);
	ASSERT_ERRNO(tempo_set_sink(fd, sink), 0);
	ASSERT_ERRNO(tempo_ticket(fd, 0, &t), 0);
	say(1);
	tempo_submit(fd, t, 0, data, sizeof(data));
	test_diag("uid %u: the submit into a full pipe returned", getuid());
	return TEST_FAIL;
}

/* uid 65534: a streak left to write to a full pipe, then TEMPO_IOC_ORDER_FLUSH. */
static int blocked_flush_kid(void *p)
{
	int sink = *(int *)p, fd = tempo_open(0);
	struct tempo_ctx_stats st;

	ASSERT_GE(fd, 0);
	ASSERT_ERRNO(tempo_set_sink(fd, sink), 0);
	ASSERT_ERRNO(streak_submit(fd, STUCK_N, 4096), 0);
	ASSERT_ERRNO(wait_completed(fd, STUCK_N, 20000, &st), 0);	/* all queued */
	say(1);
	tempo_flush(fd);
	test_diag("uid %u: the flush into a full pipe returned", getuid());
	return TEST_FAIL;
}

/*
 * SIGKILL a uid 65534 kid once it sleeps in @nr on a full sink pipe (its read
 * end left in drain_fd for case_cleanup()): TEST_PASS if it ended within
 * KILL_MS.
 */
static int sigkill_blocked(kid_fn_t fn, long nr, const char *what)
{
	struct kid *k;
	uint64_t t;
	int p[2], err;

	ASSERT_EQ(pipe_full(p), 0);
	k = kid_start(UID_A, fn, &p[1]);
	close(p[1]);
	ASSERT_TRUE(k);
	ASSERT_ERRNO(kid_hear(k, 30000), 1);
	err = wait_in_syscall(k->pid, nr, 10000);
	if (err == -ETIMEDOUT)
		test_diag("uid %u: not asleep in %s after 10 s (%s)", UID_A, what,
			  proc_where(k->pid));
	test_diag("uid %u in %s on a full sink pipe: %s; SIGKILL", UID_A, what,
		  err == -ESRCH ? "already gone" : proc_where(k->pid));
	t = now_ms();
	if (kid_kill(k, KILL_MS)) {
		test_diag("uid %u blocked in %s with a sink write pending: not ended by SIGKILL",
			  UID_A, what);
		return TEST_FAIL;
	}
	test_diag("uid %u: ended %llu ms after SIGKILL", UID_A, (unsigned long long)(now_ms() - t));
	return TEST_PASS;
}

/*
 * SIGKILL always gets a thread out of a sink write: one blocked on a full
 * pipe in TEMPO_IOC_ORDER_SUBMIT, and one in TEMPO_IOC_ORDER_FLUSH of a
 * context whose streak is left to write. (close() writes nothing:
 * test_sink_exit_full_pipe_ends.)
 */
TEST_F(hostile, test_sink_sigkill_frees_writer)
{
	int in_submit, in_flush;

	in_submit = sigkill_blocked(blocked_submit_kid, SYS_ioctl, "TEMPO_IOC_ORDER_SUBMIT");
	case_cleanup();
	in_flush = sigkill_blocked(blocked_flush_kid, SYS_ioctl, "TEMPO_IOC_ORDER_FLUSH");

	ASSERT_EQ(in_submit, TEST_PASS);
	ASSERT_EQ(in_flush, TEST_PASS);
	return TEST_PASS;
}

static void on_signal(int sig)
{
	(void)sig;
}

/* uid 65534: a sink write blocked on a full pipe, interrupted by a signal. */
static int interrupted_kid(void *p)
{
	struct sigaction sa = { .sa_handler = on_signal };	/* no SA_RESTART */
	static char data[4096];
	struct tempo_ctx_stats st;
	int sink = *(int *)p, fd = tempo_open(0), ret;
	uint64_t t;

	ASSERT_GE(fd, 0);
	ASSERT_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	ASSERT_ERRNO(tempo_set_sink(fd, sink), 0);
	ASSERT_ERRNO(tempo_ticket(fd, 0, &t), 0);
	say(1);
	ret = tempo_submit(fd, t, 0, data, sizeof(data));
	say(2);
	await_go();	/* the pipe is being drained now */
	st = ctx_stats(fd);
	test_diag("uid %u: interrupted submit returned %d; sink_errors %llu, sink_last_error %d",
		  getuid(), ret, (unsigned long long)st.sink_errors, st.sink_last_error);
	close(fd);
	/* An errno of the write (EINTR, ...), never a kernel-internal one (512..). */
	ASSERT_TRUE(st.sink_last_error <= 0 && st.sink_last_error > -512);
	return TEST_PASS;
}

/*
 * sink_last_error never shows a kernel-internal errno: a sink write blocked
 * on a full pipe and interrupted by a handled signal (no SA_RESTART) records
 * -EINTR (or the write's real error). Fails if: it records -ERESTARTSYS
 * (-512).
 */
TEST_F(hostile, test_sink_last_error_no_erestartsys)
{
	struct kid *k;
	int p[2];

	ASSERT_EQ(pipe_full(p), 0);
	k = kid_start(UID_A, interrupted_kid, &p[1]);
	close(p[1]);
	ASSERT_TRUE(k);
	ASSERT_ERRNO(kid_hear(k, 30000), 1);
	ASSERT_ERRNO(wait_in_syscall(k->pid, SYS_ioctl, 10000), 0);
	kill(k->pid, SIGUSR1);
	ASSERT_ERRNO(kid_hear(k, 10000), 2);
	drain_sink();
	kid_go(k, 1);
	if (kid_reap(k, 20000, true)) {
		test_diag("uid %u: still running (%s)", UID_A, proc_where(k->pid));
		return TEST_FAIL;
	}
	return kid_verdict(k);
}

static int sink_result(int fd, int sink, const char *what, int want)
{
	int ret = tempo_set_sink(fd, sink);

	if (ret == want)
		return 0;
	test_diag("TEMPO_IOC_ORDER_SINK(%s) = %d (%s), want %d (%s)", what, ret,
		  ret < 0 ? strerror(-ret) : "accepted", want,
		  want < 0 ? strerror(-want) : "accepted");
	return 1;
}

/* uid 65534: which files may be a sink. */
static int sink_kinds_kid(void *unused)
{
	static const int types[] = { SOCK_STREAM, SOCK_DGRAM };
	char fifo[64], file[64];
	int fd = tempo_open(0), sv[2], p[2], f, i, bad = 0, sockets = 1;

	(void)unused;
	ASSERT_GE(fd, 0);
	for (i = 0; i < 2; i++) {
		if (socketpair(AF_UNIX, types[i], 0, sv)) {
			ASSERT_TRUE(no_unix_sockets(errno));
			sockets = 0;
			break;
		}
		bad += sink_result(fd, sv[0], i ? "AF_UNIX SOCK_DGRAM socket" :
						  "AF_UNIX SOCK_STREAM socket", -EINVAL);
		close(sv[0]);
		close(sv[1]);
	}

	snprintf(file, sizeof(file), "/tmp/tempo-hostile-file.%d", getpid());
	f = open(file, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	ASSERT_GE(f, 0);
	bad += sink_result(fd, f, "regular file", 0);
	close(f);
	unlink(file);
	ASSERT_EQ(pipe(p), 0);
	bad += sink_result(fd, p[1], "pipe", 0);
	close(p[0]);
	close(p[1]);
	snprintf(fifo, sizeof(fifo), "/tmp/tempo-hostile-fifo.%d", getpid());
	ASSERT_EQ(mkfifo(fifo, 0600), 0);
	f = open(fifo, O_RDWR | O_CLOEXEC);
	unlink(fifo);
	ASSERT_GE(f, 0);
	bad += sink_result(fd, f, "FIFO", 0);
	close(f);
	/* A character device the kernel can write (write_iter only), 0666. */
	f = open("/dev/urandom", O_WRONLY | O_CLOEXEC);
	ASSERT_GE(f, 0);
	bad += sink_result(fd, f, "/dev/urandom", 0);
	close(f);
	/* /dev/null wires both write and write_iter: kernel_write() cannot use it. */
	f = open("/dev/null", O_WRONLY | O_CLOEXEC);
	ASSERT_GE(f, 0);
	bad += sink_result(fd, f, "/dev/null", -EINVAL);
	close(f);
	ASSERT_ERRNO(tempo_set_sink(fd, -1), 0);
	close(fd);
	if (bad)
		return TEST_FAIL;
	return sockets ? TEST_PASS : TEST_SKIP;
}

/*
 * A sink is a regular file, a FIFO or pipe, or a character device the kernel
 * can write (/dev/urandom; /dev/null, with both write and write_iter, is not
 * one); a
 * unix socket (which can hold file references: the tempo file itself, through
 * SCM_RIGHTS) is refused with EINVAL, although it has write_iter and no
 * write as such a device does: the kind of file decides. Skipped on a
 * kernel without CONFIG_UNIX, if the other kinds are right.
 */
TEST_F(hostile, test_sink_unix_socket_refused)
{
	return kid_run(UID_A, sink_kinds_kid, NULL, 30000);
}

#define FPOS_N		4000	/* records each way */
#define FPOS_LEN	64

/* The owner's own write(2)s of 'W' records to the sink file. */
static void *fpos_writer(void *p)
{
	char rec[FPOS_LEN];
	int file = *(int *)p, i;

	memset(rec, 'W', sizeof(rec));
	for (i = 0; i < FPOS_N; i++)
		if (write(file, rec, sizeof(rec)) != sizeof(rec))
			break;
	return NULL;
}

/* uid 65534: ordered 'T' records to a file it also write(2)s to itself. */
static int fpos_kid(void *unused)
{
	char path[64], rec[FPOS_LEN], blk[FPOS_LEN];
	int fd = tempo_open(0), file, i, t = 0, w = 0, torn = 0;
	pthread_t th;
	uint64_t tk;
	off_t size;

	(void)unused;
	ASSERT_GE(fd, 0);
	snprintf(path, sizeof(path), "/tmp/tempo-hostile-fpos.%d", getpid());
	file = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
	unlink(path);
	ASSERT_GE(file, 0);
	ASSERT_ERRNO(tempo_set_sink(fd, file), 0);
	memset(rec, 'T', sizeof(rec));
	ASSERT_EQ(pthread_create(&th, NULL, fpos_writer, &file), 0);
	for (i = 0; i < FPOS_N; i++) {
		ASSERT_ERRNO(tempo_ticket(fd, 0, &tk), 0);
		ASSERT_ERRNO(tempo_submit(fd, tk, i, rec, sizeof(rec)), 0);	/* written now */
	}
	pthread_join(th, NULL);
	close(fd);
	size = lseek(file, 0, SEEK_END);
	for (i = 0; pread(file, blk, sizeof(blk), (off_t)i * FPOS_LEN) == sizeof(blk); i++) {
		if (!memcmp(blk, rec, sizeof(blk)))
			t++;
		else if (blk[0] == 'W' && !memcmp(blk, blk + 1, sizeof(blk) - 1))
			w++;
		else
			torn++;
	}
	close(file);
	test_diag("uid %u: sink file of %lld bytes, want %d: %d whole sink records, %d whole write(2) records, %d torn",
		  getuid(), (long long)size, 2 * FPOS_N * FPOS_LEN, t, w, torn);
	ASSERT_TRUE(size == 2 * FPOS_N * FPOS_LEN && t == FPOS_N && w == FPOS_N);
	return TEST_PASS;
}

/*
 * The sink's file position moves as write(2) moves it, under the file's
 * position lock: the owner's own writes to the same open file never race the
 * sink's, so no record overwrites another. Fails if: the sink write reads
 * and stores f_pos unlocked around kernel_write() (records are lost).
 */
TEST_F(hostile, test_sink_fpos_shared_with_owner)
{
	return kid_run(UID_A, fpos_kid, NULL, 60000);
}

/* uid 65534: the tempo file's sink is a socket that holds the tempo file. */
static int cycle_kid(void *unused)
{
	int fd = tempo_open(0), sv[2], ret;

	(void)unused;
	ASSERT_GE(fd, 0);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		ASSERT_TRUE(no_unix_sockets(errno));
		return TEST_SKIP;
	}
	ret = tempo_set_sink(fd, sv[0]);
	test_diag("uid %u: unix socket as the sink: %d (%s)", getuid(), ret,
		  ret ? strerror(-ret) : "accepted");
	/* In flight to sv[0], the tempo file's sink. */
	ASSERT_ERRNO(send_fd(sv[1], fd), 0);
	close(fd);
	close(sv[0]);
	close(sv[1]);
	return TEST_PASS;
}

/*
 * No reference cycle keeps a context alive: uid 65534 makes a unix socket
 * its sink, passes the tempo fd over the socket's peer with SCM_RIGHTS, and
 * closes every fd; the context must go (module's contexts count back, the
 * unix GC being triggered meanwhile). Fails if: a unix socket is accepted as
 * a sink (both files then stay forever and the module cannot be unloaded:
 * this case runs last). Skipped on a kernel without
 * CONFIG_UNIX.
 */
TEST_F(hostile, test_sink_unix_socket_cycle_collected)
{
	uint64_t before, now = 0, end;
	struct kid *k;
	int probe = tempo_open(0), sv[2], ret;

	ASSERT_GE(probe, 0);
	before = mod_stats(probe).contexts;
	k = kid_start(UID_A, cycle_kid, NULL);
	ASSERT_TRUE(k);
	ret = kid_finish(k, 30000);
	if (ret == TEST_SKIP) {
		close(probe);
		return TEST_SKIP;
	}
	ASSERT_EQ(ret, TEST_PASS);
	end = now_ms() + 5000;
	for (;;) {
		now = mod_stats(probe).contexts;
		if (now <= before || now_ms() >= end)
			break;
		/* Closing a unix socket runs the GC when anything is in flight. */
		if (!socketpair(AF_UNIX, SOCK_DGRAM, 0, sv)) {
			close(sv[0]);
			close(sv[1]);
		}
		usleep(50000);
	}
	test_diag("module contexts: %llu before, %llu 5 s after uid %u closed everything",
		  (unsigned long long)before, (unsigned long long)now, UID_A);
	close(probe);
	ASSERT_LE(now, before);
	return TEST_PASS;
}

/* ---- sink I/O only on the caller's request ----------------------- */

/* The module's count of completions dropped at close, unwritten. */
static uint64_t sink_dropped(void)
{
	int fd = tempo_open(0);
	uint64_t n;

	if (fd < 0)
		return ~0ULL;
	n = mod_stats(fd).sink_dropped;
	close(fd);
	return n;
}

/* uid 65534: a streak whose rest waits for a full sink pipe; then exit, no close(). */
static int exit_queued_kid(void *p)
{
	int sink = *(int *)p, fd = tempo_open(0);

	ASSERT_GE(fd, 0);
	ASSERT_ERRNO(tempo_set_sink(fd, sink), 0);
	ASSERT_ERRNO(streak_submit(fd, STUCK_N, 4096), 0);
	say(1);
	return TEST_PASS;	/* the exit drops the last reference */
}

/*
 * A process whose sink pipe is full exits at once: release(), in do_exit(),
 * writes nothing; the completions still queued are dropped and counted in
 * the module's sink_dropped. Fails if: release() writes them (it sleeps in
 * pipe_wait_writable() with the group exit under way, SIGKILL is lost, and only
 * draining the pipe lets the process end).
 */
TEST_F(hostile, test_sink_exit_full_pipe_ends)
{
	uint64_t before = sink_dropped(), after, t;
	struct kid *k;
	int p[2], rc;

	ASSERT_EQ(pipe_full(p), 0);
	k = kid_start(UID_A, exit_queued_kid, &p[1]);
	close(p[1]);
	ASSERT_TRUE(k);
	ASSERT_ERRNO(kid_hear(k, 30000), 1);
	t = now_ms();
	if (kid_reap(k, KILL_MS, false)) {
		test_diag("uid %u: still exiting %d ms after its last word (%s)", UID_A, KILL_MS,
			  proc_where(k->pid));
		kid_kill(k, KILL_MS);
		return TEST_FAIL;
	}
	t = now_ms() - t;
	rc = kid_verdict(k);
	after = sink_dropped();
	test_diag("uid %u: gone %llu ms after its last word, a full sink pipe and %d completions queued; sink_dropped +%llu",
		  UID_A, (unsigned long long)t, STUCK_N - STREAK,
		  (unsigned long long)(after - before));
	ASSERT_EQ(rc, TEST_PASS);
	ASSERT_EQ(after - before, STUCK_N - STREAK);
	return TEST_PASS;
}

struct pass_arg {
	const char *path;	/* the sink: this file, opened for writing... */
	int sink;		/* ...or this fd */
	int sock;		/* where the tempo fd goes */
	unsigned int len;	/* bytes per completion past the streak bound */
};

/* uid 65534: completions queued for a sink, then the tempo fd sent over @sock and closed. */
static int pass_queued_kid(void *p)
{
	const struct pass_arg *a = p;
	int fd = tempo_open(O_NONBLOCK), sink = a->sink;

	ASSERT_GE(fd, 0);
	if (a->path)
		sink = open(a->path, O_WRONLY | O_CLOEXEC);
	ASSERT_GE(sink, 0);
	ASSERT_ERRNO(tempo_set_sink(fd, sink), 0);
	ASSERT_ERRNO(streak_submit(fd, STUCK_N, a->len), 0);
	/* The rest of the streak is the scheduler's to complete, and to queue. */
	ASSERT_ERRNO(send_fd(a->sock, fd), 0);
	close(fd);
	if (a->path)
		close(sink);
	say(1);
	await_go();
	return TEST_PASS;
}

/* uid 65533: recvmsg() with no room for a passed fd: the kernel drops it, here. */
static int drop_fd_kid(void *p)
{
	int sock = *(int *)p;
	char c;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	uint64_t t;
	ssize_t n;

	await_go();
	t = now_ms();
	n = recvmsg(sock, &m, 0);
	t = now_ms() - t;
	test_diag("uid %u: recvmsg() that drops uid %u's tempo fd: %zd in %llu ms (msg_flags %#x)",
		  getuid(), UID_A, n, (unsigned long long)t, m.msg_flags);
	ASSERT_TRUE(n == 1 && (m.msg_flags & MSG_CTRUNC));
	ASSERT_LT(t, SLOW_MS);
	return TEST_PASS;
}

/*
 * A tempo fd dropped in transit costs its receiver nothing: uid 65534 sends
 * a tempo fd whose completions wait for a full sink pipe over a unix socket
 * and closes it; uid 65533 receives with no control buffer, so the kernel
 * drops the fd and the last fput runs in 65533's recvmsg(), which returns at
 * once, and the data is dropped and counted. Fails if: that recvmsg() writes
 * 65534's sink as 65533 (with the pipe full it never returns).
 */
TEST_F(hostile, test_sink_fd_dropped_in_transit_costs_receiver_nothing)
{
	struct pass_arg a = { .len = 4096 };
	uint64_t before = sink_dropped(), after;
	int p[2], sv[2], rc;
	struct kid *ka, *kb;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		ASSERT_TRUE(no_unix_sockets(errno));
		return TEST_SKIP;
	}
	ASSERT_EQ(pipe_full(p), 0);
	a.sink = p[1];
	a.sock = sv[0];
	ka = kid_start(UID_A, pass_queued_kid, &a);
	close(p[1]);
	ASSERT_TRUE(ka);
	ASSERT_ERRNO(kid_hear(ka, 30000), 1);
	kb = kid_start(UID_B, drop_fd_kid, &sv[1]);
	close(sv[0]);
	close(sv[1]);
	ASSERT_TRUE(kb);
	kid_go(kb, 1);
	if (kid_reap(kb, 15000, false)) {
		test_diag("uid %u: still in recvmsg() 15 s later (%s)", UID_B, proc_where(kb->pid));
		rc = TEST_FAIL;
	} else {
		rc = kid_verdict(kb);
	}
	kid_go(ka, 1);
	ASSERT_EQ(kid_finish(ka, 30000), TEST_PASS);
	after = sink_dropped();
	test_diag("sink_dropped +%llu", (unsigned long long)(after - before));
	ASSERT_EQ(rc, TEST_PASS);
	ASSERT_EQ(after - before, STUCK_N - STREAK);
	return TEST_PASS;
}

/*
 * A privileged process that holds another user's tempo fd (received, or a
 * setuid program's inherited stdin) writes nothing by using it: root takes
 * uid 65534's fd, whose completions wait for a root-owned file of mode
 * 04777, and calls read(), poll(), TEMPO_IOC_STATS and TEMPO_IOC_ORDER_TICKET
 * and closes it. The file stays empty with its setuid bit, and the data is
 * dropped and counted. Fails if: root's read() writes it with root's
 * credentials (the file grows and keeps its setuid bit, which 65534's own
 * write clears).
 */
TEST_F(hostile, test_sink_privileged_reader_writes_nothing)
{
	char dir[] = "/tmp/tempo-hostile.XXXXXX", path[64];
	struct pass_arg a = { .path = path, .len = 16 };
	uint64_t before = sink_dropped(), after, t;
	int sv[2], fd, file, rc = TEST_FAIL;
	struct tempo_ctx_stats st;
	struct stat sb = { 0 };
	struct tempo_event ev;
	struct pollfd pf;
	struct kid *k;
	ssize_t n;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		ASSERT_TRUE(no_unix_sockets(errno));
		return TEST_SKIP;
	}
	ASSERT_TRUE(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/setuid", dir);
	file = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
	if (file < 0 || chmod(dir, 0755) || fchmod(file, 04777))
		goto out;
	a.sock = sv[0];
	k = kid_start(UID_A, pass_queued_kid, &a);
	if (!k || kid_hear(k, 30000) != 1)
		goto out;
	fd = recv_fd(sv[1]);
	if (fd < 0) {
		test_diag("recvmsg of uid %u's tempo fd: %s", UID_A, strerror(-fd));
		goto out;
	}
	n = read(fd, &ev, sizeof(ev));		/* O_NONBLOCK: nothing to read */
	wait_completed(fd, STUCK_N, 20000, &st);
	pf = (struct pollfd){ .fd = fd, .events = POLLIN | POLLOUT };
	poll(&pf, 1, 0);
	tempo_ticket(fd, TEMPO_TICKET_NONBLOCK, &t);
	close(fd);
	kid_go(k, 1);
	rc = kid_finish(k, 30000) == TEST_PASS && n == -1 && (pf.revents & POLLOUT) &&
	     st.sink_pending == STUCK_N - STREAK ? TEST_PASS : TEST_FAIL;
	if (stat(path, &sb))
		rc = TEST_FAIL;
	after = sink_dropped();
	test_diag("root's read(), poll(), TEMPO_IOC_STATS, TICKET and close() of uid %u's tempo fd: file of mode %04o, %lld bytes; poll %#x, sink_pending %u, sink_dropped +%llu",
		  UID_A, sb.st_mode & 07777, (long long)sb.st_size, pf.revents, st.sink_pending,
		  (unsigned long long)(after - before));
	if (sb.st_size || !(sb.st_mode & S_ISUID) || after - before != STUCK_N - STREAK)
		rc = TEST_FAIL;
out:
	if (file >= 0)
		close(file);
	close(sv[0]);
	close(sv[1]);
	unlink(path);
	rmdir(dir);
	return rc;
}

/*
 * uid 65534, an O_NONBLOCK tempo file whose completions wait for a full
 * sink pipe: read(), poll(), TEMPO_IOC_STATS, a ticket and close() each
 * return at once.
 */
static int nonblock_calls_kid(void *p)
{
	int sink = *(int *)p, fd = tempo_open(O_NONBLOCK), slow = 0, err = 0;
	struct tempo_ctx_stats st = { 0 };
	uint64_t worst = 0, t, end;
	struct tempo_event ev;
	struct pollfd pf;
	ssize_t n = 0;

	ASSERT_GE(fd, 0);
	ASSERT_ERRNO(tempo_set_sink(fd, sink), 0);
	ASSERT_ERRNO(streak_submit(fd, STUCK_N, 4096), 0);
	say(1);
	TIMED(n = read(fd, &ev, sizeof(ev)));
	ASSERT_TRUE(n == -1 && errno == EAGAIN);
	/* The scheduler's workqueue queues the rest of the streak meanwhile. */
	for (end = now_ms() + 20000; st.sink_pending < STUCK_N - STREAK && now_ms() < end;)
		TIMED(st = ctx_stats(fd));
	ASSERT_EQ(st.sink_pending, STUCK_N - STREAK);
	pf = (struct pollfd){ .fd = fd, .events = POLLIN | POLLOUT };
	TIMED(n = poll(&pf, 1, 0));
	ASSERT_TRUE(n == 1 && (pf.revents & POLLOUT) && !(pf.revents & POLLIN));
	TIMED(err = tempo_ticket(fd, TEMPO_TICKET_NONBLOCK, &t));
	ASSERT_ERRNO(err, 0);
	TIMED(close(fd));
	test_diag("uid %u: read(), poll(), TEMPO_IOC_STATS, TICKET and close() with %d completions waiting for a full sink pipe: slowest %llu ms",
		  getuid(), STUCK_N - STREAK, (unsigned long long)worst);
	return slow ? TEST_FAIL : TEST_PASS;
}

/*
 * Only a call that asks for sink I/O does it: with completions waiting for
 * a full sink pipe, an O_NONBLOCK read() returns EAGAIN at once, and poll(),
 * TEMPO_IOC_STATS, a ticket and close() return at once. Fails if: any of
 * them writes the sink first (it sleeps in pipe_wait_writable(), O_NONBLOCK or
 * not).
 */
TEST_F(hostile, test_sink_nonblock_read_returns_at_once)
{
	struct kid *k;
	int p[2];

	ASSERT_EQ(pipe_full(p), 0);
	k = kid_start(UID_A, nonblock_calls_kid, &p[1]);
	close(p[1]);
	ASSERT_TRUE(k);
	ASSERT_ERRNO(kid_hear(k, 30000), 1);
	return kid_finish(k, 15000);
}

/* ---- tickets ----------------------------------------------------- */

#define RACE_WINDOW	2	/* order_window: ticket RACE_WINDOW shares ticket 0's slot */

static int race_fd = -1, race_ret;
static uint64_t race_ticket = ~0ULL;

static void *race_ticket_thread(void *unused)
{
	(void)unused;
	race_ret = tempo_ticket(race_fd, 0, &race_ticket);
	return NULL;
}

/*
 * uid 65534: one thread's TEMPO_IOC_ORDER_TICKET is held after the domain
 * issued ticket 0 and before the file recorded it; meanwhile another thread
 * of the file skips past ticket 0 and takes a window of tickets, the last of
 * which shares ticket 0's slot of the ownership table.
 */
static int ticket_skip_kid(void *unused)
{
	struct tempo_ctx_stats st;
	uint32_t trashed = 0;
	pthread_t th;
	uint64_t t, i;

	(void)unused;
	race_fd = tempo_open(0);
	ASSERT_GE(race_fd, 0);
	ASSERT_EQ(pthread_create(&th, NULL, race_ticket_thread, NULL), 0);
	say(1);
	ASSERT_EQ(await_go(), 1);		/* ticket 0 issued, its record held */
	ASSERT_ERRNO(tempo_skip(race_fd, 1, &trashed), 0);
	ASSERT_EQ(trashed, 1);
	for (i = 1; i <= RACE_WINDOW; i++) {
		ASSERT_ERRNO(tempo_ticket(race_fd, TEMPO_TICKET_NONBLOCK, &t), 0);
		ASSERT_EQ(t, i);
	}
	say(2);
	ASSERT_EQ(await_go(), 2);		/* the held record went on */
	pthread_join(th, NULL);
	ASSERT_ERRNO(race_ret, 0);
	ASSERT_EQ(race_ticket, 0);
	/* Ticket 0 was finished by the skip; every later one is still ours. */
	ASSERT_ERRNO(tempo_submit(race_fd, 0, 0, NULL, 0), -EINVAL);
	ASSERT_ERRNO(tempo_trash(race_fd, RACE_WINDOW), 0);
	for (i = 1; i < RACE_WINDOW; i++)
		ASSERT_ERRNO(tempo_submit(race_fd, i, i, NULL, 0), 0);
	st = ctx_stats(race_fd);
	test_diag("uid %u: %llu tickets, %llu trashed, %llu submitted, %llu completed",
		  getuid(), (unsigned long long)st.tickets, (unsigned long long)st.trashed,
		  (unsigned long long)st.submitted, (unsigned long long)st.completed);
	ASSERT_TRUE(st.tickets == RACE_WINDOW + 1 && st.trashed == 2 &&
		    st.submitted == RACE_WINDOW - 1 && st.completed == RACE_WINDOW - 1);
	close(race_fd);
	return TEST_PASS;
}

/*
 * Every ticket handed out stays submittable or trashable by its file until
 * it is finished, whatever runs concurrently. Forced through the test point
 * between the domain's issue of a ticket and the file's record of it: a skip
 * finishes ticket 0 and a window of tickets follows, the last in ticket 0's
 * slot, before ticket 0's record is made. Fails if: that late record
 * overwrites the newer ticket's (the newer ticket can be neither submitted
 * nor trashed, EINVAL, the stream stalls there, and close() WARNs in
 * tempo_order_destroy() and dev_user_put()). Needs a TEMPO_TESTING module.
 */
TEST_F(hostile, test_ticket_record_never_overwrites_newer)
{
	struct kid *k;
	int rc;

	if (param_get("test_held") < 0) {
		test_diag("no tempo.test_hold: not a TEMPO_TESTING module");
		return TEST_SKIP;
	}
	ASSERT_EQ(param_push("order_window", RACE_WINDOW), 0);
	ASSERT_EQ(hold_set("dev_ticket_taken"), 0);
	k = kid_start(UID_A, ticket_skip_kid, NULL);
	ASSERT_TRUE(k);
	ASSERT_ERRNO(kid_hear(k, 30000), 1);
	if (hold_wait(1, 10000)) {
		test_diag("uid %u: TEMPO_IOC_ORDER_TICKET never reached the held point", UID_A);
		return TEST_FAIL;
	}
	kid_go(k, 1);
	rc = kid_hear(k, 30000);
	ASSERT_EQ(hold_set("none"), 0);
	ASSERT_ERRNO(rc, 2);
	ASSERT_ERRNO(hold_wait(0, 10000), 0);
	kid_go(k, 2);
	return kid_finish(k, 30000);
}


/* uid 65534: TEMPO_IOC_ORDER_SKIP with its struct on a read-only page. */
static int skip_efault_kid(void *unused)
{
	struct tempo_ctx_stats st;
	struct tempo_skip *sk;
	uint64_t t[4];
	int fd = tempo_open(0), i, ret;

	(void)unused;
	ASSERT_GE(fd, 0);
	for (i = 0; i < 4; i++)
		ASSERT_ERRNO(tempo_ticket(fd, 0, &t[i]), 0);
	sk = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(sk, MAP_FAILED);
	memset(sk, 0, sizeof(*sk));
	sk->end = t[3] + 1;
	ASSERT_EQ(mprotect(sk, 4096, PROT_READ), 0);
	ret = ioctl(fd, TEMPO_IOC_ORDER_SKIP, sk) ? -errno : 0;
	st = ctx_stats(fd);
	test_diag("uid %u: TEMPO_IOC_ORDER_SKIP of 4 tickets, its struct read-only: %d; trashed %llu",
		  getuid(), ret, (unsigned long long)st.trashed);
	ASSERT_ERRNO(ret, -EFAULT);
	ASSERT_EQ(st.trashed, 0);
	for (i = 3; i >= 0; i--)			/* every ticket still ours */
		ASSERT_ERRNO(tempo_submit(fd, t[i], i, NULL, 0), 0);
	ASSERT_EQ(ctx_stats(fd).completed, 4);
	close(fd);
	return TEST_PASS;
}

/*
 * A TEMPO_IOC_ORDER_SKIP that fails with EFAULT changes nothing: the out
 * field is written once before any ticket is trashed. Fails if: the skip
 * trashes the tickets and then fails to write the count back (EFAULT, and
 * four tickets gone).
 */
TEST_F(hostile, test_skip_efault_changes_nothing)
{
	return kid_run(UID_A, skip_efault_kid, NULL, 30000);
}

static const struct test_case cases[] = {
	TEST_CASE_F(hostile, test_sink_streak_clears_setuid),
	TEST_CASE_F(hostile, test_sink_streak_honours_rlimit_fsize),
	TEST_CASE_F(hostile, test_sink_stuck_spares_other_users),
	TEST_CASE_F(hostile, test_sink_sigkill_frees_writer),
	TEST_CASE_F(hostile, test_sink_last_error_no_erestartsys),
	TEST_CASE_F(hostile, test_sink_unix_socket_refused),
	TEST_CASE_F(hostile, test_sink_fpos_shared_with_owner),
	TEST_CASE_F(hostile, test_sink_exit_full_pipe_ends),
	TEST_CASE_F(hostile, test_sink_fd_dropped_in_transit_costs_receiver_nothing),
	TEST_CASE_F(hostile, test_sink_privileged_reader_writes_nothing),
	TEST_CASE_F(hostile, test_sink_nonblock_read_returns_at_once),
	TEST_CASE_F(hostile, test_ticket_record_never_overwrites_newer),
	TEST_CASE_F(hostile, test_skip_efault_changes_nothing),
	TEST_CASE_F(hostile, test_sink_unix_socket_cycle_collected),	/* leaks today: last */
	{}
};

int main(void)
{
	return hostile_main("tempo_hostile_sink", cases);
}
