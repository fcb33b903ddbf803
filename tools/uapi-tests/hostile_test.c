// SPDX-License-Identifier: GPL-2.0
/*
 * tempo_hostile: /dev/tempo against a hostile local user.
 *
 * /dev/tempo may be opened by every user, so nothing one user does through
 * it may borrow the kernel's privileges, harm another user, or escape a
 * per-user bound. Run as root, this program forks each attack into a child
 * that drops to uid 65534 ("nobody"); a second user, uid 65533, checks that
 * it does not notice. Root only sets module parameters (restored after each
 * case), creates files and cgroups, and watches the children with a bound on
 * wall-clock time: a child stuck in the kernel is reported, then released
 * (its full sink pipe drained, its cookie array truncated) or left behind,
 * and the next case runs. The attacks:
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
 *  - the sink's file position, shared with the owner's own write(2)s;
 *  - per-user bounds: contexts, timers, queued ordered bytes, batch copies;
 *    a user's namespace of delegated uids; the memory cgroup charge and its
 *    limit (ENOMEM, never the OOM killer);
 *  - long user-controlled loops: cancel by cookie over a big table, killed;
 *    unread ordered records keeping their data;
 *  - user arrays read twice (TEMPO_IOC_TIMER_ARM against max_timers);
 *  - deadlines beyond the wheel (2^63, U64_MAX: ERANGE, never early);
 *  - read() into a buffer that faults: no record lost;
 *  - the ABI's smaller points: overrun saturation, struct tempo_batch's out
 *    fields on early errors, no -ERESTARTSYS in sink_last_error;
 *  - memory a failed arm batch grew, counted by no per-user limit;
 *  - one user's big slots sorted on the CPU that runs another's timers;
 *  - the module-wide counters, which show one user another's activity;
 *  - clocks and flags flipped at a high rate on many timers while root sets
 *    the wall clock back and forth: nothing lost, a walk per change that
 *    visits files, not timers.
 *
 * KTAP on stdout; each child's diagnostics go there too.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/epoll.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "common.h"
#include "kids.h"

#define UID_A		65534	/* "nobody": the attacker */
#define UID_B		65533	/* another user, who must not notice */

#define STREAK		64	/* the ordered scheduler's max_streak */
#define SLOW_MS		1000	/* no operation of an innocent user may take longer */
#define SEC		(1000 * MS)

/* ---- test points and the fixture ------------------------------------- */

/*
 * The test points a VM test may hold (kmod/testing.h): root names one in
 * tempo.test_hold, and the first thread to reach it sleeps there until it is
 * set to "none"; tempo.test_held says 1 meanwhile. Only in a module built
 * with TEMPO_TESTING (make check): -ENOENT otherwise.
 */
static bool hold_armed;

static int hold_set(const char *point)
{
	int fd = open("/sys/module/tempo/parameters/test_hold", O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, point, strlen(point)) != (ssize_t)strlen(point))
		ret = -errno;
	close(fd);
	if (!ret)
		hold_armed = strcmp(point, "none");
	return ret;
}

/* Wait until tempo.test_held reads @want: 0, or -ETIMEDOUT after @ms. */
static int hold_wait(long want, int ms)
{
	uint64_t end = now_ms() + ms;

	while (param_get("test_held") != want) {
		if (now_ms() >= end)
			return -ETIMEDOUT;
		usleep(1000);
	}
	return 0;
}

/*
 * After a case, however it ended (its fixture's teardown), or between two
 * halves of one: its kids killed (and released), its sink pipe closed, the
 * parameters it set restored and the test point it held released. Fails if
 * any of that could not be done.
 */
static int case_cleanup(void)
{
	int ret = TEST_PASS;

	if (kids_cleanup())
		ret = TEST_FAIL;
	if (params_restore())
		ret = TEST_FAIL;
	if (hold_armed && hold_set("none")) {
		test_diag("cannot disarm tempo.test_hold");
		ret = TEST_FAIL;
	}
	return ret;
}

/* Every case's fixture: no data, nothing to set up, case_cleanup() after. */
FIXTURE(hostile) {
};

FIXTURE_SETUP(hostile)
{
	return TEST_PASS;
}

FIXTURE_TEARDOWN(hostile)
{
	return case_cleanup();
}

/* ---- ordered streams and sinks --------------------------------------- */

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

/* A kernel without AF_UNIX (CONFIG_UNIX) has no such sink to refuse. */
static bool no_unix_sockets(int err)
{
	if (err != EAFNOSUPPORT)
		return false;
	test_diag("no AF_UNIX sockets in this kernel (CONFIG_UNIX): not tried");
	return true;
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

/* ---- sink I/O only on the caller's request ---------------------------- */

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

/* ---- tickets --------------------------------------------------------- */

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

/* ---- per-user limits -------------------------------------------------- */

/* uid 65534: 8 contexts, the per-user limit; a 9th fails, in any process. */
static int contexts_kid(void *unused)
{
	int fd[8], i, ret, status;
	pid_t pid;

	(void)unused;
	for (i = 0; i < 8; i++) {
		fd[i] = tempo_open(0);
		if (fd[i] < 0)
			test_diag("uid %u: open #%d: %s", getuid(), i + 1, strerror(-fd[i]));
		ASSERT_GE(fd[i], 0);
	}
	ASSERT_ERRNO(tempo_open(0), -EMFILE);
	/* Another process of the same user: the count is per user. */
	fflush(NULL);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		ret = tempo_open(0);
		if (ret != -EMFILE)
			test_diag("uid %u, second process: open = %d, want -EMFILE", getuid(), ret);
		_exit(ret == -EMFILE ? 0 : 1);
	}
	ASSERT_TRUE(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status));
	say(1);
	await_go();
	close(fd[0]);
	fd[0] = tempo_open(0);			/* the room came back */
	ASSERT_GE(fd[0], 0);
	ASSERT_ERRNO(tempo_open(0), -EMFILE);
	for (i = 0; i < 8; i++)
		close(fd[i]);
	return TEST_PASS;
}

/* uid 65533: works while 65534 is at its limits. */
static int other_user_kid(void *unused)
{
	struct tempo_timer_spec s[60];
	uint64_t t[4];
	static char data[8192];
	struct tempo_event ev[4];
	int fd[3], i;

	(void)unused;
	memset(s, 0, sizeof(s));
	for (i = 0; i < 60; i++)
		s[i].value = 100 * SEC;
	for (i = 0; i < 3; i++) {
		fd[i] = tempo_open(O_NONBLOCK);
		ASSERT_GE(fd[i], 0);
	}
	ASSERT_ERRNO(tempo_arm(fd[0], s, 60, NULL), 0);
	ASSERT_ERRNO(tempo_arm(fd[1], s, 30, NULL), 0);
	for (i = 0; i < 4; i++)
		ASSERT_ERRNO(tempo_ticket(fd[2], 0, &t[i]), 0);
	for (i = 3; i >= 0; i--)
		ASSERT_ERRNO(tempo_submit(fd[2], t[i], i, data, sizeof(data)), 0);
	ASSERT_EQ(tempo_read_events(fd[2], ev, 4), 4);
	for (i = 0; i < 3; i++)
		close(fd[i]);
	return TEST_PASS;
}

/* Run @attacker as uid 65534 to its limit, uid 65533 meanwhile, then let 65534 go on. */
static int limit_case(kid_fn_t attacker)
{
	struct kid *a, *b;
	int rb;

	a = kid_start(UID_A, attacker, NULL);
	ASSERT_TRUE(a);
	if (kid_hear(a, 30000) != 1) {
		kid_finish(a, 10000);
		return TEST_FAIL;
	}
	b = kid_start(UID_B, other_user_kid, NULL);
	ASSERT_TRUE(b);
	rb = kid_finish(b, 30000);
	if (rb != TEST_PASS)
		test_diag("uid %u failed while uid %u was at its limit", UID_B, UID_A);
	kid_go(a, 1);
	ASSERT_EQ(kid_finish(a, 30000), TEST_PASS);
	ASSERT_EQ(rb, TEST_PASS);
	return TEST_PASS;
}

/*
 * max_user_contexts: open() beyond it fails with EMFILE, counted over all of
 * the user's files; another user still opens; a close gives the room back.
 * Fails if: nothing but RLIMIT_NOFILE bounds a user's files.
 */
TEST_F(hostile, test_user_limit_contexts)
{
	if (param_need("max_user_contexts", 8))
		return TEST_FAIL;
	return limit_case(contexts_kid);
}

/* uid 65534: 100 timers over 4 files, the per-user limit. */
static int timers_kid(void *unused)
{
	struct tempo_timer_spec s[30];
	struct tempo_batch b;
	int fd[4], i;

	(void)unused;
	memset(s, 0, sizeof(s));
	for (i = 0; i < 30; i++)
		s[i].value = 100 * SEC;
	for (i = 0; i < 4; i++) {
		fd[i] = tempo_open(0);
		ASSERT_GE(fd[i], 0);
	}
	for (i = 0; i < 3; i++)
		ASSERT_ERRNO(tempo_arm(fd[i], s, 30, NULL), 0);
	ASSERT_ERRNO(tempo_arm(fd[3], s, 30, &b), -ENOSPC);	/* 120 > 100: none armed */
	ASSERT_TRUE(b.done == 0 && b.error == -ENOSPC);
	ASSERT_TRUE(ctx_stats(fd[3]).timers == 0 && ctx_stats(fd[3]).armed == 0);
	ASSERT_ERRNO(tempo_arm(fd[3], s, 10, NULL), 0);		/* exactly 100 */
	ASSERT_ERRNO(tempo_arm(fd[0], s, 1, NULL), -ENOSPC);
	say(1);
	await_go();
	close(fd[0]);
	ASSERT_ERRNO(tempo_arm(fd[3], s, 30, NULL), 0);		/* the room came back */
	ASSERT_ERRNO(tempo_arm(fd[1], s, 1, NULL), -ENOSPC);
	for (i = 1; i < 4; i++)
		close(fd[i]);
	return TEST_PASS;
}

/*
 * max_user_timers: TEMPO_IOC_TIMER_ARM beyond it fails with ENOSPC, whole
 * batch, counted over all of the user's files.
 */
TEST_F(hostile, test_user_limit_timers)
{
	if (param_need("max_user_timers", 100))
		return TEST_FAIL;
	return limit_case(timers_kid);
}

#define NFILES		4
#define NTICKETS	16
#define CHUNK		8192

/* uid 65534: parked 8 KiB submissions over 4 files up to 64 KiB per user. */
static int bytes_kid(void *unused)
{
	static char data[CHUNK];
	uint64_t t[NFILES][NTICKETS], accepted = 0;
	int fd[NFILES], f = 0, i = 0, n, err = 0;

	(void)unused;
	for (f = 0; f < NFILES; f++) {
		fd[f] = tempo_open(O_NONBLOCK);
		ASSERT_GE(fd[f], 0);
		for (i = 0; i < NTICKETS; i++)
			ASSERT_ERRNO(tempo_ticket(fd[f], 0, &t[f][i]), 0);
	}
	/* Tickets 1.. park behind ticket 0, which nobody submits yet. */
	for (n = 0; n < (NTICKETS - 1) * NFILES; n++) {
		f = n % NFILES;
		i = 1 + n / NFILES;
		err = tempo_submit(fd[f], t[f][i], i, data, CHUNK);
		if (err)
			break;
		accepted += CHUNK;
	}
	test_diag("uid %u: %llu bytes parked, then submit = %d (%s)", getuid(),
		  (unsigned long long)accepted, err, err ? strerror(-err) : "-");
	ASSERT_ERRNO(err, -ENOSPC);
	ASSERT_TRUE(accepted <= 65536 && accepted >= 65536 / 2);
	say(1);
	await_go();
	close(fd[(f + 1) % NFILES]);			/* frees its parked data */
	ASSERT_ERRNO(tempo_submit(fd[f], t[f][i], 0, data, CHUNK), 0);	/* still ours */
	return TEST_PASS;
}

/*
 * max_user_bytes: queued ordered data beyond it fails TEMPO_IOC_ORDER_SUBMIT
 * with ENOSPC, the ticket still the caller's.
 */
TEST_F(hostile, test_user_limit_bytes)
{
	if (param_need("max_user_bytes", 65536))
		return TEST_FAIL;
	return limit_case(bytes_kid);
}

#define NS_UIDS		4		/* uids 0..3 of the namespace */
#define NS_BASE		200000		/* ...are these, outside it */
#define NS_CONTEXTS	8		/* max_user_contexts */

/*
 * In the namespace, as uid @uid: open files until EMFILE, say how many on
 * @up, keep them until @hold reads EOF.
 */
static void ns_opener(uid_t uid, int up, int hold)
{
	int n = 0, fd;
	char c;

	if (setresgid(0, 0, 0) || setresuid(uid, uid, uid))
		_exit(1);
	while (n < 4 * NS_CONTEXTS && (fd = tempo_open(0)) >= 0)
		n++;
	if (write(up, &n, sizeof(n)) != sizeof(n))
		_exit(1);
	while (read(hold, &c, 1) > 0)
		;
	_exit(0);
}

/*
 * uid 65534: a user namespace whose uids 0..NS_UIDS-1 root maps to
 * NS_BASE.. (a delegated range); each of those uids, in turn, opens files
 * until EMFILE while the others keep theirs. Says the total.
 */
static int userns_kid(void *unused)
{
	int up[2], hold[2], i, n, total = 0;
	pid_t pid;

	(void)unused;
	if (unshare(CLONE_NEWUSER)) {
		test_diag("uid %u: unshare(CLONE_NEWUSER): %s", getuid(), strerror(errno));
		say(-errno);
		return TEST_SKIP;
	}
	say(1);
	ASSERT_EQ(await_go(), 1);		/* uid_map and gid_map written */
	ASSERT_TRUE(pipe(up) == 0 && pipe(hold) == 0);
	for (i = 0; i < NS_UIDS; i++) {
		fflush(NULL);
		pid = fork();
		ASSERT_GE(pid, 0);
		if (!pid) {
			close(up[0]);
			close(hold[1]);
			ns_opener(i, up[1], hold[0]);
		}
		ASSERT_EQ(read(up[0], &n, sizeof(n)), sizeof(n));
		test_diag("uid %d of the namespace (uid %d outside): %d files", i, NS_BASE + i, n);
		total += n;
	}
	close(hold[1]);			/* the openers close theirs and go */
	while (wait(NULL) > 0)
		;
	say(total);
	return TEST_PASS;
}

/*
 * Per-user limits count per user namespace, as the kernel's ucounts do: the
 * users of a namespace are charged, together, to its creator as well. So
 * uid 65534, with NS_UIDS uids of its own namespace mapped to a delegated
 * range, gets max_user_contexts once in all: NS_CONTEXTS files over the
 * NS_UIDS users, not NS_CONTEXTS each. Fails if: the limits are keyed on the
 * uid alone (each mapped uid then has them all: NS_UIDS * NS_CONTEXTS).
 * Skipped on a kernel without user namespaces.
 */
TEST_F(hostile, test_user_limit_across_user_namespaces)
{
	char path[64], map[64];
	struct kid *k;
	int ret;

	if (param_need("max_user_contexts", NS_CONTEXTS))
		return TEST_FAIL;
	k = kid_start(UID_A, userns_kid, NULL);
	ASSERT_TRUE(k);
	ret = kid_hear(k, 30000);
	if (ret < 0 && ret != -ETIMEDOUT && ret != -EPIPE) {
		kid_finish(k, 10000);
		return TEST_SKIP;
	}
	ASSERT_ERRNO(ret, 1);
	snprintf(map, sizeof(map), "0 %d %d\n", NS_BASE, NS_UIDS);
	snprintf(path, sizeof(path), "/proc/%d/uid_map", k->pid);
	ASSERT_ERRNO(write_file(path, map), 0);
	snprintf(path, sizeof(path), "/proc/%d/gid_map", k->pid);
	ASSERT_ERRNO(write_file(path, map), 0);
	kid_go(k, 1);
	ret = kid_hear(k, 30000);
	test_diag("uid %u's namespace, %d uids: %d files in all; max_user_contexts %d", UID_A,
		  NS_UIDS, ret, NS_CONTEXTS);
	ASSERT_EQ(kid_finish(k, 30000), TEST_PASS);
	ASSERT_EQ(ret, NS_CONTEXTS);
	return TEST_PASS;
}

#define COPY_LIMIT	65536		/* max_user_copy_bytes for the case */
#define COPY_N		2048		/* specs: 80 KiB, over it; half of them fit */

/* uid 65534: arm, cancel and query batches against max_user_copy_bytes. */
static int copy_limit_kid(void *unused)
{
	static struct tempo_timer_spec s[COPY_N];
	static struct tempo_timer_query q[COPY_N];
	static uint64_t keys[COPY_N];
	struct tempo_batch b;
	int fd = tempo_open(0), i;

	(void)unused;
	ASSERT_GE(fd, 0);
	for (i = 0; i < COPY_N; i++) {
		s[i] = (struct tempo_timer_spec){ .cookie = i, .value = 100 * SEC };
		keys[i] = i;
	}
	/* 80 KiB of specs: refused whole, with the batch's out fields. */
	ASSERT_ERRNO(tempo_arm(fd, s, COPY_N, &b), -ENOSPC);
	ASSERT_TRUE(b.done == 0 && b.error_index == COPY_N && b.error == -ENOSPC);
	ASSERT_TRUE(ctx_stats(fd).timers == 0 && ctx_stats(fd).armed == 0);
	ASSERT_ERRNO(tempo_arm(fd, s, COPY_N / 2, &b), 0);		/* 40 KiB */
	for (i = 0; i < COPY_N; i++)
		q[i].id = s[i % (COPY_N / 2)].id;
	/* 96 KiB of queries; 16 KiB of cookies and a 64 KiB table: refused. */
	ASSERT_ERRNO(tempo_query(fd, q, COPY_N, &b), -ENOSPC);
	ASSERT_ERRNO(tempo_cancel(fd, keys, COPY_N, TEMPO_CANCEL_COOKIE, &b), -ENOSPC);
	ASSERT_TRUE(b.done == 0 && b.affected == 0);
	ASSERT_EQ(ctx_stats(fd).timers, COPY_N / 2);
	/* 8 KiB of cookies and a 32 KiB table fit. */
	ASSERT_ERRNO(tempo_cancel(fd, keys, COPY_N / 2, TEMPO_CANCEL_COOKIE, &b), 0);
	ASSERT_TRUE(b.affected == COPY_N / 2 && ctx_stats(fd).timers == 0);
	close(fd);
	return TEST_PASS;
}

/*
 * max_user_copy_bytes bounds the kernel copies of batch arrays a user's
 * calls hold at once (and cancel by cookie's table): a batch whose copy
 * would go past it fails with ENOSPC and changes nothing. Fails if: a call
 * copies up to max_timers elements (tens of MiB) whatever the user's other
 * calls hold.
 */
TEST_F(hostile, test_user_limit_copy_bytes)
{
	struct kid *k;

	if (param_need("max_user_copy_bytes", COPY_LIMIT))
		return TEST_FAIL;
	k = kid_start(UID_A, copy_limit_kid, NULL);
	ASSERT_TRUE(k);
	return kid_finish(k, 30000);
}

/* ---- memory cgroup --------------------------------------------------- */

#define CG_ROOT		"/sys/fs/cgroup"
#define CG_DIR		CG_ROOT "/tempo-hostile"

/* The value of @key in a flat-keyed file (memory.events), or the first number. */
static long long cg_read(const char *path, const char *key)
{
	char buf[1024], *p;
	long long v = -1;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	if (!key)
		return strtoll(buf, NULL, 10);
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, strlen(key)) && p[strlen(key)] == ' ')
			v = strtoll(p + strlen(key) + 1, NULL, 10);
	return v;
}

static int cg_setup(void)
{
	char buf[256] = "";
	int fd;

	if (access(CG_ROOT "/cgroup.controllers", F_OK) &&
	    mount("cgroup2", CG_ROOT, "cgroup2", 0, NULL) && errno != EBUSY) {
		test_diag("mount cgroup2 on %s: %s", CG_ROOT, strerror(errno));
		return -1;
	}
	fd = open(CG_ROOT "/cgroup.controllers", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, buf, sizeof(buf) - 1) < 0 || !strstr(buf, "memory")) {
		test_diag("no memory controller in %s/cgroup.controllers: \"%s\"", CG_ROOT, buf);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	if (write_file(CG_ROOT "/cgroup.subtree_control", "+memory")) {
		test_diag("cannot enable the memory controller: %s", strerror(errno));
		return -1;
	}
	if (mkdir(CG_DIR, 0755) && errno != EEXIST) {
		test_diag("mkdir %s: %s", CG_DIR, strerror(errno));
		return -1;
	}
	return 0;
}

/* Fault in @kb of stack now, so that later calls need no new stack pages. */
static __attribute__((noinline)) void touch_stack(size_t kb)
{
	volatile char pad[256 * 1024];
	size_t i;

	for (i = 0; i < kb * 1024 && i < sizeof(pad); i += 4096)
		pad[i] = 1;
}

static struct tempo_timer_spec memcg_specs[1024];

/* uid 65534, in a memory cgroup with little room: arm until refused. */
static int memcg_kid(void *unused)
{
	long long c0, c1, armed = 0;
	uint64_t b0, b1;
	char buf[64];
	int fd, cur, err = 0, i;

	(void)unused;
	touch_stack(256);
	memset(memcg_specs, 0, sizeof(memcg_specs));
	for (i = 0; i < 1024; i++)
		memcg_specs[i].value = 1000 * SEC;
	say(1);
	await_go();			/* now in CG_DIR, memory.max set */
	/* Opened (and read once) now: a seq_file buffer is charged at the first read. */
	cur = open(CG_DIR "/memory.current", O_RDONLY | O_CLOEXEC);
	ASSERT_GE(cur, 0);
	ASSERT_GT(pread(cur, buf, sizeof(buf) - 1, 0), 0);
	fd = tempo_open(0);
	ASSERT_GE(fd, 0);
	b0 = mod_stats(fd).bytes;
	memset(buf, 0, sizeof(buf));
	ASSERT_GT(pread(cur, buf, sizeof(buf) - 1, 0), 0);
	c0 = strtoll(buf, NULL, 10);
	while (armed < 512 * 1024) {
		err = tempo_arm(fd, memcg_specs, 1024, NULL);
		if (err)
			break;
		armed += 1024;
	}
	memset(buf, 0, sizeof(buf));
	ASSERT_GT(pread(cur, buf, sizeof(buf) - 1, 0), 0);
	c1 = strtoll(buf, NULL, 10);
	b1 = mod_stats(fd).bytes;
	close(fd);
	close(cur);
	test_diag("uid %u: %lld timers armed, then %d (%s); memory.current +%lld, module bytes +%lld",
		  getuid(), armed, err, err ? strerror(-err) : "-", c1 - c0,
		  (long long)(b1 - b0));
	ASSERT_TRUE(err == -ENOMEM || err == -ENOSPC);
	ASSERT_GT(armed, 0);
	ASSERT_GE(c1 - c0, (long long)(b1 - b0) / 2);	/* the charge is visible */
	return TEST_PASS;
}

/*
 * Everything allocated for a file is charged to the opener's memory cgroup,
 * and a memory.max makes TEMPO_IOC_TIMER_ARM fail with ENOMEM or ENOSPC: the
 * OOM killer never runs (memory.events: oom_kill 0) and the child lives.
 * Fails if: the timer table's pages are allocated so that hitting the limit
 * wakes the memcg OOM killer, which kills the child.
 */
TEST_F(hostile, test_memcg_arm_fails_without_oom_kill)
{
	char num[32];
	long long cur, oom;
	struct kid *k;
	int rc;

	ASSERT_EQ(cg_setup(), 0);
	param_push("max_timers", 1 << 20);
	param_push("max_user_timers", 1 << 22);	/* absent today: not what this case tests */
	k = kid_start(UID_A, memcg_kid, NULL);
	ASSERT_TRUE(k);
	ASSERT_ERRNO(kid_hear(k, 30000), 1);
	snprintf(num, sizeof(num), "%d", k->pid);
	ASSERT_EQ(write_file(CG_DIR "/cgroup.procs", num), 0);
	cur = cg_read(CG_DIR "/memory.current", NULL);
	snprintf(num, sizeof(num), "%lld", cur + (4 << 20));
	ASSERT_EQ(write_file(CG_DIR "/memory.max", num), 0);
	kid_go(k, 1);
	rc = kid_finish(k, 120000);
	oom = cg_read(CG_DIR "/memory.events", "oom_kill");
	test_diag("%s: memory.max %s, memory.events oom_kill %lld", CG_DIR, num, oom);
	rmdir(CG_DIR);
	ASSERT_EQ(oom, 0);
	ASSERT_EQ(rc, TEST_PASS);
	return TEST_PASS;
}

/* ---- loops a user controls ------------------------------------------- */

#define BIG_TABLE	102400	/* timers, as many as TCG arms in a few seconds */
#define NCOOKIES	100000

static struct tempo_timer_spec big_specs[1024];

/* uid 65534: a big table, then one cancel of NCOOKIES absent cookies. */
static int cookie_kid(void *p)
{
	int mfd = *(int *)p, fd = tempo_open(0), i, armed = 0;
	uint64_t *keys, end = now_ms() + 10000;
	struct tempo_batch b;

	ASSERT_GE(fd, 0);
	keys = mmap(NULL, NCOOKIES * sizeof(*keys), PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	ASSERT_NE(keys, MAP_FAILED);
	while (armed < BIG_TABLE && now_ms() < end) {
		for (i = 0; i < 1024; i++)
			big_specs[i] = (struct tempo_timer_spec){ .cookie = armed + i,
								  .value = 1000 * SEC };
		ASSERT_ERRNO(tempo_arm(fd, big_specs, 1024, NULL), 0);
		armed += 1024;
	}
	for (i = 0; i < NCOOKIES; i++)
		keys[i] = (1ULL << 62) + i;		/* none of them armed */
	say(armed);
	tempo_cancel(fd, keys, NCOOKIES, TEMPO_CANCEL_COOKIE, &b);
	test_diag("uid %u: the cancel of %d cookies over %d timers returned (affected %u)",
		  getuid(), NCOOKIES, armed, b.affected);
	/* Wait for the SIGKILL here: the exit, not a close(), tears the table down. */
	for (;;)
		pause();
	return TEST_PASS;
}

/*
 * Cancel by cookie is killable and not quadratic: one TEMPO_IOC_TIMER_CANCEL
 * of 100K absent cookies over a 100K-timer table either returns (the child
 * then sleeps, waiting for its end) or, SIGKILLed after 300 ms of system
 * time in it, leaves it within KILL_MS. The exit's teardown of the table is
 * waited for separately. A cancel that scanned the whole table per cookie
 * (10^10 steps) and checked no fatal signal would fail the case; the child
 * is then released by truncating the shared file its cookie array lives in
 * (the next copy faults).
 */
TEST_F(hostile, test_cancel_cookie_killable)
{
	long long stime, now = 0;
	struct kid *k;
	int mfd, armed, err;
	uint64_t t;

	param_push("max_timers", 1 << 20);
	param_push("max_user_timers", 1 << 22);	/* absent today: not what this case tests */
	mfd = memfd_create("tempo-hostile-cookies", 0);
	ASSERT_GE(mfd, 0);
	if (ftruncate(mfd, NCOOKIES * sizeof(uint64_t))) {
		close(mfd);
		ASSERT_TRUE(0);
	}
	k = kid_start(UID_A, cookie_kid, &mfd);
	if (!k) {
		close(mfd);
		ASSERT_TRUE(k);
	}
	armed = kid_hear(k, 60000);
	stime = proc_stime(k->pid);
	if (armed > 0) {
		/*
		 * The cancel never sleeps: wait for 300 ms of system time
		 * after the kid's last word (it went straight into the ioctl),
		 * or for its end.
		 */
		t = now_ms() + 30000;
		while ((now = proc_stime(k->pid)) >= 0 && now < stime + 30 && now_ms() < t &&
		       proc_state(k->pid) != 'S')	/* returned: waits in pause() */
			usleep(10000);
		test_diag("uid %u: %d timers; cancel by %d cookies, SIGKILL after %lld ticks of system time (%s)",
			  UID_A, armed, NCOOKIES, now - stime, proc_where(k->pid));
	}
	t = now_ms();
	kill(k->pid, SIGKILL);
	/* Out of the ioctl at once; the exit then tears down a big table. */
	err = wait_exiting(k->pid, KILL_MS);
	if (!err) {
		test_diag("uid %u: left the cancel %llu ms after SIGKILL", UID_A,
			  (unsigned long long)(now_ms() - t));
		err = kid_reap(k, 120000, false);
	}
	if (err) {
		test_diag("uid %u: still in TEMPO_IOC_TIMER_CANCEL %d ms after SIGKILL (%s); truncating its cookies",
			  UID_A, KILL_MS, proc_where(k->pid));
		if (ftruncate(mfd, 0) || kid_reap(k, 30000, false)) {
			test_diag("pid %d: left behind (%s)", k->pid, proc_where(k->pid));
			left_behind++;
			kid_forget(k);
		}
	} else {
		test_diag("uid %u: ended %llu ms after SIGKILL, its %d timers torn down", UID_A,
			  (unsigned long long)(now_ms() - t), armed);
	}
	close(mfd);
	ASSERT_GE(armed, 10240);
	ASSERT_FALSE(err);
	return TEST_PASS;
}

/* uid 65534: 64 x 64 KiB in order, no sink, nothing read. */
static int nosink_kid(void *unused)
{
	static char data[65536];
	struct tempo_event ev[64];
	struct tempo_ctx_stats st;
	struct tempo_info in;
	uint64_t t[64], b0, b1;
	uint32_t len;
	int fd = tempo_open(O_NONBLOCK), i;

	(void)unused;
	ASSERT_GE(fd, 0);
	ASSERT_ERRNO(tempo_info(fd, &in), 0);
	len = in.max_data < sizeof(data) ? in.max_data : sizeof(data);
	b0 = mod_stats(fd).bytes;
	for (i = 0; i < 64; i++) {
		ASSERT_ERRNO(tempo_ticket(fd, 0, &t[i]), 0);
		ASSERT_ERRNO(tempo_submit(fd, t[i], i, data, len), 0);
	}
	st = ctx_stats(fd);
	b1 = mod_stats(fd).bytes;
	test_diag("uid %u: 64 unread records of %u bytes: module bytes +%lld (%llu completed, %llu ready)",
		  getuid(), len, (long long)(b1 - b0), (unsigned long long)st.completed,
		  (unsigned long long)st.events_ready);
	ASSERT_TRUE(st.completed == 64 && st.events_ready == 64);
	ASSERT_EQ(tempo_read_events(fd, ev, 64), 64);
	for (i = 0; i < 64; i++)
		ASSERT_TRUE(ev[i].type == TEMPO_EV_ORDER && ev[i].id == t[i] && ev[i].len == len);
	close(fd);
	/* A record, not the data: far below 64 x 64 KiB. */
	ASSERT_LT((int64_t)(b1 - b0), 64 * 4096);
	return TEST_PASS;
}

/*
 * Submission data is freed when its completion runs if there is no sink:
 * unread records cost a record each, not their data (only len is reported).
 * Fails if: each unread record keeps its 64 KiB.
 */
TEST_F(hostile, test_nosink_data_freed_at_completion)
{
	return kid_run(UID_A, nosink_kid, NULL, 60000);
}

/* ---- user arrays read once ------------------------------------------- */

/*
 * max_timers for the double-fetch case, and the batch: big enough that the
 * two reads of each chunk of the array are far apart compared with a flip.
 */
#define DF_MAX		2048

struct flip {
	struct tempo_timer_spec *s;
	atomic_int stop;
};

/* Flip every element between TEMPO_ARM_REARM and a new timer, all the time. */
static void *flipper(void *p)
{
	struct flip *f = p;
	int i;

	while (!atomic_load_explicit(&f->stop, memory_order_relaxed)) {
		for (i = 0; i < DF_MAX; i++)
			__atomic_store_n(&f->s[i].flags, TEMPO_ARM_REARM, __ATOMIC_RELAXED);
		for (i = 0; i < DF_MAX; i++)
			__atomic_store_n(&f->s[i].flags, 0, __ATOMIC_RELAXED);
	}
	return NULL;
}

static struct tempo_timer_spec df_specs[DF_MAX];

/*
 * uid 65534: arm batches another thread keeps rewriting; count live timers.
 * The table is held at half the limit: the validation then passes whenever
 * it reads at most DF_MAX / 2 new timers, and an arm pass that reads more
 * than that goes past the limit.
 */
static int double_fetch_kid(void *unused)
{
	struct flip f = { .s = df_specs };
	static uint64_t extra[DF_MAX];
	uint64_t base, timers, worst = 0, t0, end;
	unsigned int arms = 0, n;
	pthread_t th;
	int fd = tempo_open(0), i, ret;

	(void)unused;
	ASSERT_GE(fd, 0);
	ASSERT_ERRNO(tempo_arm_one(fd, 7, 1000 * SEC, 0, 0, &base), 0);
	for (i = 0; i < DF_MAX; i++)
		df_specs[i] = (struct tempo_timer_spec){ .cookie = 7, .value = 1000 * SEC,
							 .id = base };
	ASSERT_EQ(pthread_create(&th, NULL, flipper, &f), 0);
	t0 = now_ms();
	end = t0 + 10000;
	while (arms < 200000 && now_ms() < end) {
		for (i = 0; i < DF_MAX; i++)
			df_specs[i].id = base;	/* the arm wrote new ids over some */
		ret = tempo_arm(fd, df_specs, DF_MAX, NULL);
		arms++;
		timers = ctx_stats(fd).timers;
		if (timers > worst)
			worst = timers;
		if (timers > DF_MAX)
			break;
		if (ret && ret != -ENOSPC) {
			test_diag("uid %u: arm = %d (%s)", getuid(), ret, strerror(-ret));
			break;
		}
		/* Back to DF_MAX / 2: cancel new timers (ids the arm wrote). */
		for (i = 0, n = 0; !ret && i < DF_MAX && timers - n > DF_MAX / 2; i++)
			if (df_specs[i].id != base)
				extra[n++] = df_specs[i].id;
		if (n)
			tempo_cancel(fd, extra, n, 0, NULL);
	}
	atomic_store(&f.stop, 1);
	pthread_join(th, NULL);
	close(fd);
	test_diag("uid %u: %u arms in %llu ms of %d specs flipped between TEMPO_ARM_REARM and new, max_timers %d: at most %llu live timers",
		  getuid(), arms, (unsigned long long)(now_ms() - t0), DF_MAX, DF_MAX,
		  (unsigned long long)worst);
	ASSERT_LE(worst, DF_MAX);
	return TEST_PASS;
}

/*
 * TEMPO_IOC_TIMER_ARM reads the user's array once: a thread flipping
 * TEMPO_ARM_REARM on the elements during the call cannot make it arm more
 * new timers than it counted against max_timers. Fails if: the validation
 * pass and the arm pass each copy the array (the table grows past the
 * limit).
 */
TEST_F(hostile, test_arm_double_fetch_bounded)
{
	struct kid *k;

	ASSERT_EQ(param_push("max_timers", DF_MAX), 0);
	param_push("max_user_timers", 1 << 22);	/* absent today: not what this case tests */
	k = kid_start(UID_A, double_fetch_kid, NULL);
	ASSERT_TRUE(k);
	return kid_finish(k, 60000);
}

/* ---- never early ----------------------------------------------------- */

/* Arm one timer in a fresh context: 0 or -errno; *@armed: timers it left. */
static int arm_fresh(uint64_t value, uint64_t period, uint32_t flags, uint64_t *armed,
		     bool *fired)
{
	struct tempo_ctx_stats st;
	uint64_t id;
	int fd = tempo_open(O_NONBLOCK), ret;

	if (fd < 0)
		return fd;
	ret = tempo_arm_one(fd, 1, value, period, flags, &id);
	*fired = !ret && !wait_ready(fd, 1, 200);
	st = ctx_stats(fd);
	*armed = st.armed;
	close(fd);
	return ret;
}

static int expect_erange(uint64_t value, uint32_t flags, const char *what)
{
	uint64_t armed;
	bool fired;
	int ret = arm_fresh(value, 0, flags, &armed, &fired);

	if (ret == -ERANGE && !armed)
		return 0;
	test_diag("%s %#llx (%s): %d (%s), %llu armed%s; want -ERANGE, none armed",
		  flags & TEMPO_ARM_ABS ? "absolute deadline" : "relative delay",
		  (unsigned long long)value, what, ret, ret ? strerror(-ret) : "accepted",
		  (unsigned long long)armed, fired ? ", and it fired at once" : "");
	return 1;
}

/* uid 65534: absolute deadlines the wheel cannot hold, and the ones it can. */
static int abs_range_kid(void *unused)
{
	struct tempo_event ev;
	struct tempo_info in;
	uint64_t id, now, t0;
	int fd, bad = 0;

	(void)unused;
	fd = tempo_open(O_NONBLOCK);
	ASSERT_GE(fd, 0);
	ASSERT_ERRNO(tempo_info(fd, &in), 0);
	bad += expect_erange(1ULL << 63, TEMPO_ARM_ABS, "2^63");
	bad += expect_erange((1ULL << 63) + 1, TEMPO_ARM_ABS, "2^63 + 1");
	bad += expect_erange(UINT64_MAX - 1, TEMPO_ARM_ABS, "U64_MAX - 1");
	bad += expect_erange(UINT64_MAX, TEMPO_ARM_ABS, "U64_MAX");
	now = tempo_now_ns();
	/* A tick beyond, plus 1 s for the time from our clock reading to the kernel's. */
	bad += expect_erange(now + in.max_delay_ns + in.tick_ns + SEC, TEMPO_ARM_ABS,
			     "now + max_delay_ns + tick + 1 s");

	/* A deadline in the past still fires at once. */
	ASSERT_ERRNO(tempo_arm_one(fd, 2, 1, 0, TEMPO_ARM_ABS, &id), 0);
	ASSERT_ERRNO(wait_ready(fd, 1, 5000), 0);
	ASSERT_TRUE(tempo_read_events(fd, &ev, 1) == 1 && ev.id == id && ev.deadline == 1);

	/* Periodic, period max_delay_ns: accepted; its next record never early. */
	t0 = tempo_now_ns();
	ASSERT_ERRNO(tempo_arm_one(fd, 3, t0 + 2 * MS, in.max_delay_ns, TEMPO_ARM_ABS, &id), 0);
	ASSERT_ERRNO(wait_ready(fd, 1, 5000), 0);
	ASSERT_TRUE(tempo_read_events(fd, &ev, 1) == 1 && ev.id == id);
	ASSERT_TRUE(ev.deadline == t0 + 2 * MS && ev.time >= ev.deadline);
	usleep(300000);
	if (ctx_stats(fd).events_ready) {
		ASSERT_EQ(tempo_read_events(fd, &ev, 1), 1);
		test_diag("periodic timer of period max_delay_ns: a second record at %llu, deadline %llu",
			  (unsigned long long)ev.time, (unsigned long long)ev.deadline);
		bad++;
	}
	ASSERT_ERRNO(tempo_cancel_one(fd, id), 0);
	close(fd);
	return bad ? TEST_FAIL : TEST_PASS;
}

/*
 * An absolute deadline the wheel cannot hold gets ERANGE and arms nothing:
 * 2^63, 2^63 + 1, U64_MAX - 1, U64_MAX, now + max_delay_ns + a tick. Only a
 * deadline in the past fires at once; a periodic timer of period
 * max_delay_ns is accepted and not early. Fails if: deadlines from
 * 2^63 + now on are taken as negative and fire at once, or the others get
 * EINVAL.
 */
TEST_F(hostile, test_arm_abs_beyond_range_erange)
{
	return kid_run(UID_A, abs_range_kid, NULL, 60000);
}

/* uid 65534: relative delays beyond max_delay_ns. */
static int rel_range_kid(void *unused)
{
	struct tempo_info in;
	uint64_t armed;
	bool fired;
	int fd = tempo_open(0), bad = 0;

	(void)unused;
	ASSERT_GE(fd, 0);
	ASSERT_ERRNO(tempo_info(fd, &in), 0);
	close(fd);
	bad += expect_erange(in.max_delay_ns + 1, 0, "max_delay_ns + 1");
	bad += expect_erange(in.max_delay_ns + in.tick_ns, 0, "max_delay_ns + tick");
	bad += expect_erange(UINT64_MAX / 2, 0, "U64_MAX / 2");
	bad += expect_erange(UINT64_MAX, 0, "U64_MAX");
	ASSERT_ERRNO(arm_fresh(in.max_delay_ns, 0, 0, &armed, &fired), 0);
	ASSERT_TRUE(armed == 1 && !fired);
	return bad ? TEST_FAIL : TEST_PASS;
}

/*
 * A relative delay beyond max_delay_ns gets ERANGE, like a deadline beyond
 * the wheel (the same error for "too far", whichever way it is said).
 */
TEST_F(hostile, test_arm_delay_beyond_max_erange)
{
	return kid_run(UID_A, rel_range_kid, NULL, 60000);
}

/* ---- read() into a faulting buffer ------------------------------------ */

/* uid 65534: two records ready, the buffer's second record faults. */
static int read_midway_kid(void *unused)
{
	struct tempo_timer_spec s[2];
	struct tempo_event ev[2];
	struct tempo_ctx_stats st;
	char *region, *buf;
	ssize_t n;
	int fd = tempo_open(O_NONBLOCK), err;

	(void)unused;
	ASSERT_GE(fd, 0);
	region = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(region, MAP_FAILED);
	ASSERT_EQ(mprotect(region + 4096, 4096, PROT_NONE), 0);
	buf = region + 4096 - sizeof(struct tempo_event);
	memset(s, 0, sizeof(s));
	s[0].cookie = 1;
	s[1].cookie = 2;
	ASSERT_ERRNO(tempo_arm(fd, s, 2, NULL), 0);
	ASSERT_ERRNO(wait_ready(fd, 2, 5000), 0);
	n = read(fd, buf, 2 * sizeof(struct tempo_event));
	err = errno;
	st = ctx_stats(fd);
	test_diag("uid %u: read() of 2 records, the second into a PROT_NONE page: %zd (%s); events_lost %llu, events_ready %llu",
		  getuid(), n, n < 0 ? strerror(err) : "-", (unsigned long long)st.events_lost,
		  (unsigned long long)st.events_ready);
	ASSERT_EQ(n, sizeof(struct tempo_event));
	ASSERT_TRUE(st.events_lost == 0 && st.events_ready == 1);
	memcpy(&ev[0], buf, sizeof(ev[0]));
	ASSERT_EQ(tempo_read_events(fd, &ev[1], 1), 1);
	ASSERT_TRUE((ev[0].id == s[0].id && ev[1].id == s[1].id) ||
		    (ev[0].id == s[1].id && ev[1].id == s[0].id));
	ASSERT_EQ(ctx_stats(fd).timers, 0);
	close(fd);
	return TEST_PASS;
}

/*
 * read() returns the records it could copy: with the buffer's second record
 * on a PROT_NONE page it returns one record, and the other stays readable.
 * Fails if: both are dequeued before the copy (both are lost and read()
 * says EFAULT).
 */
TEST_F(hostile, test_read_fault_midway_loses_nothing)
{
	return kid_run(UID_A, read_midway_kid, NULL, 30000);
}

/* uid 65534: read() into a wholly unmapped buffer. */
static int read_unmapped_kid(void *unused)
{
	struct tempo_ctx_stats st;
	struct tempo_event ev;
	uint64_t id;
	void *bad;
	int fd = tempo_open(O_NONBLOCK);

	(void)unused;
	ASSERT_GE(fd, 0);
	bad = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(bad, MAP_FAILED);

	/* Read or cancelled, exactly once: still cancellable after the EFAULT. */
	ASSERT_ERRNO(tempo_arm_one(fd, 1, 0, 0, 0, &id), 0);
	ASSERT_ERRNO(wait_ready(fd, 1, 5000), 0);
	ASSERT_TRUE(read(fd, bad, sizeof(ev)) == -1 && errno == EFAULT);
	st = ctx_stats(fd);
	test_diag("uid %u: after read() EFAULT: events_lost %llu, events_ready %llu, timers %llu",
		  getuid(), (unsigned long long)st.events_lost,
		  (unsigned long long)st.events_ready, (unsigned long long)st.timers);
	ASSERT_TRUE(st.events_lost == 0 && st.events_ready == 1 && st.timers == 1);
	ASSERT_ERRNO(tempo_cancel_one(fd, id), 0);
	ASSERT_TRUE(read(fd, &ev, sizeof(ev)) == -1 && errno == EAGAIN);

	/* ...or read, once. */
	ASSERT_ERRNO(tempo_arm_one(fd, 2, 0, 0, 0, &id), 0);
	ASSERT_ERRNO(wait_ready(fd, 1, 5000), 0);
	ASSERT_TRUE(read(fd, bad, sizeof(ev)) == -1 && errno == EFAULT);
	ASSERT_EQ(tempo_read_events(fd, &ev, 1), 1);
	ASSERT_TRUE(ev.id == id && ev.cookie == 2 && (ev.flags & TEMPO_EVF_FINAL));
	ASSERT_ERRNO(tempo_cancel_one(fd, id), -ENOENT);
	st = ctx_stats(fd);
	ASSERT_TRUE(st.events_lost == 0 && st.timers == 0);
	close(fd);
	return TEST_PASS;
}

/*
 * read() into an unmapped buffer fails with EFAULT and loses nothing: the
 * record stays readable, the one-shot stays cancellable until its record is
 * read, events_lost stays 0. Fails if: the record is dequeued before the
 * copy (it is lost, events_lost 1, and the id is dead).
 */
TEST_F(hostile, test_read_unmapped_efault_keeps_record)
{
	return kid_run(UID_A, read_unmapped_kid, NULL, 30000);
}

/* ---- smaller ABI points ---------------------------------------------- */

/* uid 65534: a periodic timer left unread for more than 2^32 periods. */
static int overrun_kid(void *p)
{
	uint64_t period = *(uint64_t *)p, id, t0, wait_ns;
	struct tempo_event ev;
	int fd = tempo_open(0);

	ASSERT_GE(fd, 0);
	t0 = tempo_now_ns();
	ASSERT_ERRNO(tempo_arm_one(fd, 1, 0, period, 0, &id), 0);
	wait_ns = (period << 32) + (period << 30) + 500 * MS;
	while (tempo_now_ns() - t0 < wait_ns)
		usleep(100000);
	ASSERT_EQ(tempo_read_events(fd, &ev, 1), 1);
	test_diag("uid %u: periodic timer of %llu ns unread for %llu ns: overrun %u",
		  getuid(), (unsigned long long)period,
		  (unsigned long long)(tempo_now_ns() - t0), ev.overrun);
	ASSERT_ERRNO(tempo_cancel_one(fd, id), 0);
	close(fd);
	ASSERT_TRUE(ev.id == id && ev.overrun == UINT32_MAX);
	return TEST_PASS;
}

/*
 * overrun saturates at U32_MAX rather than wrapping: a periodic timer left
 * unread for more than 2^32 periods. Reachable only with min_period_ns
 * lowered to a few ns (2^32 periods of 1 ns: 4.3 s); skipped if the module
 * refuses that. Fails if: the count wraps modulo 2^32.
 */
TEST_F(hostile, test_periodic_overrun_saturates)
{
	uint64_t period;
	struct kid *k;
	long v;

	param_push("min_period_ns", 1);
	v = param_get("min_period_ns");
	ASSERT_GE(v, 0);
	period = v ? v : 1;
	if (period > 4) {
		test_diag("min_period_ns %llu: 2^32 periods take %llu s, too long",
			  (unsigned long long)period,
			  (unsigned long long)((period << 32) / SEC));
		return TEST_SKIP;
	}
	k = kid_start(UID_A, overrun_kid, &period);
	ASSERT_TRUE(k);
	return kid_finish(k, 60000);
}

/* One batch ioctl with the out fields pre-filled with 0xAA: 0 if as wanted. */
static int batch_out(int fd, unsigned long cmd, const void *ptr, uint32_t count, uint32_t flags,
		     int want, uint32_t want_index, const char *what)
{
	struct tempo_batch b;
	int ret;

	memset(&b, 0xaa, sizeof(b));
	b.ptr = (uintptr_t)ptr;
	b.count = count;
	b.flags = flags;
	ret = ioctl(fd, cmd, &b) ? -errno : 0;
	if (ret == want && !b.done && b.error_index == want_index && b.error == want &&
	    !b.affected)
		return 0;
	test_diag("%s: %d, done %#x, error_index %#x, error %d, affected %#x; want %d, 0, %u, %d, 0",
		  what, ret, b.done, b.error_index, b.error, b.affected, want, want_index, want);
	return 1;
}

#define ARM	TEMPO_IOC_TIMER_ARM
#define CANCEL	TEMPO_IOC_TIMER_CANCEL

/* uid 65534, max_timers 16: every early error of arm and cancel. */
static int batch_kid(void *unused)
{
	struct tempo_timer_spec s[17];
	uint64_t keys[4] = { 1, 2, 3, 4 };
	int fd = tempo_open(0), bad = 0, i;

	(void)unused;
	ASSERT_GE(fd, 0);
	memset(s, 0, sizeof(s));
	for (i = 0; i < 17; i++)
		s[i].value = 100 * SEC;
	s[3].flags = 1U << 7;
	bad += batch_out(fd, ARM, s, 5, 0, -EINVAL, 3, "arm, element 3 bad flag");
	s[3].flags = 0;
	s[2].period = 1;
	bad += batch_out(fd, ARM, s, 5, 0, -EINVAL, 2, "arm, element 2 short period");
	s[2].period = 0;
	s[1].slack_us = TEMPO_SLACK_MAX_US + 1;
	bad += batch_out(fd, ARM, s, 5, 0, -EINVAL, 1, "arm, element 1 slack too large");
	s[1].slack_us = 0;
	bad += batch_out(fd, ARM, s, 0, 0, -EINVAL, 0, "arm, count 0");
	bad += batch_out(fd, ARM, s, 5, 1, -EINVAL, 5, "arm, batch flags 1");
	bad += batch_out(fd, ARM, s, 17, 0, -ENOSPC, 17, "arm, count 17 > max_timers 16");
	ASSERT_ERRNO(tempo_arm(fd, s, 10, NULL), 0);
	bad += batch_out(fd, ARM, s, 10, 0, -ENOSPC, 10, "arm, 10 more with 10 of 16 live");
	ASSERT_EQ(ctx_stats(fd).timers, 10);
	bad += batch_out(fd, CANCEL, keys, 0, 0, -EINVAL, 0, "cancel, count 0");
	bad += batch_out(fd, CANCEL, keys, 4, 1U << 5, -EINVAL, 4, "cancel, unknown flag");
	ASSERT_EQ(ctx_stats(fd).timers, 10);
	close(fd);
	return bad ? TEST_FAIL : TEST_PASS;
}

/*
 * The out fields of struct tempo_batch (done, error_index, error, affected)
 * are written on the early EINVAL/ENOSPC returns too, as the header says:
 * done 0, error_index the first bad element (count for a batch-level
 * failure), error the errno. Fails if: they keep whatever the caller left
 * there.
 */
TEST_F(hostile, test_batch_out_fields_on_early_errors)
{
	struct kid *k;

	ASSERT_EQ(param_push("max_timers", 16), 0);
	k = kid_start(UID_A, batch_kid, NULL);
	ASSERT_TRUE(k);
	return kid_finish(k, 30000);
}

/* ---- the event queue: wake-ups and critical sections ------------------ */

/* Pin the calling thread to CPU 0: 0 or -errno. */
static int pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

static int pin_cpu0(void)
{
	return pin_cpu(0);
}

/* Wait until thread @tid sleeps (state S or D): 0, or -ETIMEDOUT after @ms. */
static int wait_asleep(pid_t tid, int ms)
{
	uint64_t end = now_ms() + ms;
	char st;

	for (;;) {
		st = proc_state(tid);
		if (st == 'S' || st == 'D')
			return 0;
		if (now_ms() >= end)
			return -ETIMEDOUT;
		usleep(1000);
	}
}

/* An EPOLLEXCLUSIVE poller and a blocked reader of one file. */
struct epx {
	int fd, ep;
	atomic_int poller, reader;	/* their thread ids, once running */
	atomic_int polled, got;		/* what epoll_wait()/read() returned; -2 before */
};

static void *epx_poll_thread(void *p)
{
	struct epx *x = p;
	struct epoll_event ev;

	atomic_store(&x->poller, (int)syscall(SYS_gettid));
	atomic_store(&x->polled, epoll_wait(x->ep, &ev, 1, 20000));
	return NULL;
}

static void *epx_read_thread(void *p)
{
	struct epx *x = p;
	struct tempo_event ev;

	atomic_store(&x->reader, (int)syscall(SYS_gettid));
	atomic_store(&x->got, (int)tempo_read_events(x->fd, &ev, 1));
	return NULL;
}

/* uid 65534: epoll_wait() on an EPOLLEXCLUSIVE registration, read() blocked, a record. */
static int epoll_exclusive_kid(void *unused)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLEXCLUSIVE };
	struct epx x = { .polled = -2, .got = -2 };
	pthread_t pt, rt;
	uint64_t id, t0;

	(void)unused;
	x.fd = tempo_open(0);
	ASSERT_GE(x.fd, 0);
	x.ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_GE(x.ep, 0);
	ASSERT_EQ(epoll_ctl(x.ep, EPOLL_CTL_ADD, x.fd, &ev), 0);
	ASSERT_EQ(pthread_create(&pt, NULL, epx_poll_thread, &x), 0);
	while (!atomic_load(&x.poller))
		usleep(1000);
	ASSERT_ERRNO(wait_asleep(atomic_load(&x.poller), 5000), 0);
	ASSERT_EQ(pthread_create(&rt, NULL, epx_read_thread, &x), 0);
	while (!atomic_load(&x.reader))
		usleep(1000);
	ASSERT_ERRNO(wait_asleep(atomic_load(&x.reader), 5000), 0);
	t0 = now_ms();
	ASSERT_ERRNO(tempo_arm_one(x.fd, 1, 20 * MS, 0, 0, &id), 0);
	while (atomic_load(&x.got) == -2 && now_ms() - t0 < 5000)
		usleep(1000);
	test_diag("uid %u: one record due in 20 ms: the blocked read() %s after %llu ms; epoll_wait() returned %d",
		  getuid(), atomic_load(&x.got) == -2 ? "still sleeps" : "returned",
		  (unsigned long long)(now_ms() - t0), atomic_load(&x.polled));
	/* A reader still asleep ends with the process. */
	return atomic_load(&x.got) == 1 ? TEST_PASS : TEST_FAIL;
}

/*
 * A ready record reaches a blocked reader whatever pollers wait: one thread
 * waits in epoll_wait() on an EPOLLEXCLUSIVE registration of the file (made
 * first), another is blocked in read(); a record due in 20 ms must end the
 * read() within 5 s. Fails if: the registration is an exclusive waiter on
 * the readers' wait queue, ahead of the reader (it takes the one wake-up the
 * record gets, and the read() sleeps on).
 */
TEST_F(hostile, test_epoll_exclusive_spares_blocked_reader)
{
	return kid_run(UID_A, epoll_exclusive_kid, NULL, 30000);
}

#define WI_DUE		(262144 - 256)	/* unread records, past their deadlines */
#define WI_ARMS		256		/* then timers due before all of them, one call */
#define WI_LATE_MS	100		/* the most another user's timer may be late */

static struct tempo_timer_spec wi_specs[WI_DUE];

/* uid 65534, on CPU 0: WI_DUE unread records, then, on the go-ahead, WI_ARMS arms before them. */
static int worst_insert_kid(void *unused)
{
	unsigned int i, n;
	uint64_t t0;
	int fd;

	(void)unused;
	ASSERT_ERRNO(pin_cpu0(), 0);
	fd = tempo_open(0);
	ASSERT_GE(fd, 0);
	for (i = 0; i < WI_DUE; i++) {
		wi_specs[i].value = 1000000 + i;	/* long past, in deadline order */
		wi_specs[i].flags = TEMPO_ARM_ABS;
	}
	for (i = 0; i < WI_DUE; i += n) {
		n = WI_DUE - i < 65536 ? WI_DUE - i : 65536;
		ASSERT_ERRNO(tempo_arm(fd, wi_specs + i, n, NULL), 0);
	}
	ASSERT_EQ(ctx_stats(fd).events_ready, WI_DUE);
	say(1);
	await_go();
	for (i = 0; i < WI_ARMS; i++)
		wi_specs[i].value = 1 + i;		/* before every record queued */
	t0 = tempo_now_ns();
	ASSERT_ERRNO(tempo_arm(fd, wi_specs, WI_ARMS, NULL), 0);
	say((int)((tempo_now_ns() - t0) / MS));
	close(fd);
	return TEST_PASS;
}

/* uid 65533, on CPU 0: read() blocked for a timer 50 ms ahead; say how late it returned, in ms. */
static int late_bystander_kid(void *unused)
{
	struct tempo_event ev;
	uint64_t id;
	int fd;

	(void)unused;
	ASSERT_ERRNO(pin_cpu0(), 0);
	fd = tempo_open(0);
	ASSERT_GE(fd, 0);
	ASSERT_ERRNO(tempo_arm_one(fd, 1, 50 * MS, 0, 0, &id), 0);
	ASSERT_EQ(tempo_read_events(fd, &ev, 1), 1);
	say((int)((tempo_now_ns() - ev.deadline) / MS));
	close(fd);
	return TEST_PASS;
}

/*
 * No length a user controls decides how long interrupts or preemption stay
 * off. uid 65534 holds 261,888 unread records, past their deadlines, and
 * arms 256 timers due before every one of them in one TEMPO_IOC_TIMER_ARM,
 * on CPU 0, while uid 65533, on CPU 0 too, sleeps in read() for a timer
 * 50 ms ahead: that read() must return less than WI_LATE_MS after the
 * deadline. Fails if: a put does work in the length of the queue with
 * interrupts or preemption off (a sorted ready list walked from its tail:
 * the call took 2.5 s and the other timer was 148 ms late), or the arm
 * batch holds preemption off across its puts.
 */
TEST_F(hostile, test_worst_insert_spares_other_users)
{
	int late, took, rc = TEST_PASS;
	struct kid *a, *b;

	ASSERT_EQ(param_push("max_user_timers", WI_DUE + WI_ARMS), 0);
	a = kid_start(UID_A, worst_insert_kid, NULL);
	ASSERT_TRUE(a);
	ASSERT_ERRNO(kid_hear(a, 120000), 1);
	b = kid_start(UID_B, late_bystander_kid, NULL);
	ASSERT_TRUE(b);
	ASSERT_ERRNO(wait_in_syscall(b->pid, SYS_read, 10000), 0);
	kid_go(a, 1);
	late = kid_hear(b, 60000);
	took = kid_hear(a, 60000);
	test_diag("uid %u: %u arms before %u unread records took %d ms; uid %u's timer was %d ms late",
		  UID_A, WI_ARMS, WI_DUE, took, UID_B, late);
	if (late < 0 || late >= WI_LATE_MS)
		rc = TEST_FAIL;
	if (kid_finish(b, 10000) != TEST_PASS || kid_finish(a, 120000) != TEST_PASS)
		rc = TEST_FAIL;
	return rc;
}

/* ---- third review: memory no limit counted, sorting, a side channel --- */

#define FB_FILES	8
#define FB_NEW		65535	/* new timers after a bad REARM: the user's whole limit, nearly */

static struct tempo_timer_spec fb_specs[FB_NEW + 1];

/*
 * uid 65534: in each of FB_FILES files one arm batch that fails at its first
 * element (a REARM of an id that names no timer: ENOENT), after the checks
 * made room for FB_NEW new timers; then, on the go-ahead, the whole limit in
 * one more file and nothing beyond it.
 */
static int failed_batch_kid(void *unused)
{
	struct tempo_batch b;
	int fd[FB_FILES + 1], f, err;

	(void)unused;
	for (f = 1; f <= FB_NEW; f++)
		fb_specs[f].value = 100 * SEC;
	fb_specs[0].flags = TEMPO_ARM_REARM;
	fb_specs[0].id = 12345;
	for (f = 0; f < FB_FILES; f++) {
		fd[f] = tempo_open(0);
		ASSERT_GE(fd[f], 0);
		err = tempo_arm(fd[f], fb_specs, FB_NEW + 1, &b);
		ASSERT_ERRNO(err, -ENOENT);
		ASSERT_TRUE(b.done == 0 && b.error_index == 0);
		ASSERT_EQ(ctx_stats(fd[f]).timers, 0);
	}
	say(1);
	await_go();
	fb_specs[0].flags = 0;
	fb_specs[0].value = 100 * SEC;
	fd[FB_FILES] = tempo_open(0);
	ASSERT_GE(fd[FB_FILES], 0);
	ASSERT_ERRNO(tempo_arm(fd[FB_FILES], fb_specs, FB_NEW + 1, NULL), 0);
	ASSERT_ERRNO(tempo_arm(fd[0], fb_specs, 1, NULL), -ENOSPC);
	return TEST_PASS;
}

/* MemAvailable of /proc/meminfo, in KiB; 0 if unreadable. */
static unsigned long long mem_available_kib(void)
{
	unsigned long long kib = 0;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

/*
 * An arm batch that fails gives back all it allocated: uid 65534 makes, in
 * each of 8 files, a batch of a bad REARM and 65,535 new timers fail at its
 * first element; the module's memory for timers (its bytes figure, which
 * counts the slot tables) must be what it was, and the user must still get
 * its whole max_user_timers, no more. Fails if: the slot table grown for
 * the batch's new timers stays until close(), counted by no per-user limit
 * (54 MiB held here, about 6.5 MiB per file and ioctl).
 */
TEST_F(hostile, test_failed_batch_keeps_no_memory)
{
	unsigned long long m0, m1;
	uint64_t b0, b1;
	int probe = tempo_open(0), rc;
	struct kid *k;

	ASSERT_GE(probe, 0);
	ASSERT_EQ(mod_stats(probe).scope, TEMPO_STATS_MODULE);
	ASSERT_EQ(param_push("max_user_timers", FB_NEW + 1), 0);
	b0 = mod_stats(probe).bytes;
	m0 = mem_available_kib();
	k = kid_start(UID_A, failed_batch_kid, NULL);
	ASSERT_TRUE(k);
	rc = kid_hear(k, 120000);
	b1 = mod_stats(probe).bytes;
	m1 = mem_available_kib();
	test_diag("uid %u: %d failed batches of %u new timers: module bytes %+lld, MemAvailable %+lld KiB",
		  UID_A, FB_FILES, FB_NEW, (long long)(b1 - b0), (long long)(m1 - m0));
	kid_go(k, 1);
	rc = rc == 1 ? kid_finish(k, 120000) : TEST_FAIL;
	close(probe);
	ASSERT_EQ(b1, b0);
	return rc;
}

/*
 * One user's sorting: uid 65534 (the attacker) holds SU_FILES files, each a
 * delay queue with its own kick, armed from CPU 1 and watched by an epoll
 * set it never waits on, and arms in each, in random order, timers due
 * within one of the queue's ticks (2^20 ns) at t0; uid 65533 (the victim),
 * also on CPU 1, has SU_VICTIM timers due 2-62 ms after t0, read() blocked
 * for them, and a thread spinning on CPU 1 that notes the longest gap in
 * its run. Rounds of SU_SMALL and SU_BIG timers per attacker file
 * alternate: the bigger slots may not delay the victim's records, or take
 * its CPU, by more than SU_MARGIN_MS over the small ones, in the better of
 * the two big rounds against the worse of the two small ones (what the
 * slots cost comes back every round; a host that does not run the VM's CPU
 * for a while does not). That is the bound
 * the queue keeps: a kick's expiry moves at most 16 items, whatever its
 * slots hold; a file's own readers and pollers sort the rest, in their own
 * time.
 */
#define SU_FILES	64
#define SU_SMALL	10
#define SU_BIG		1000
#define SU_VICTIM	16
#define SU_MARGIN_MS	20
#define SU_AHEAD_MS	2000	/* t0, from the go-ahead: room to arm 64,000 timers, */
#define SU_AHEAD_MAX_MS	32000	/* doubled up to this while the attacker needs more */

struct su_shared {
	uint64_t	t0;		/* a tick boundary of the delay queue */
	unsigned int	per_file;	/* the attacker's timers per file this round */
};

static struct su_shared *su;

/* uid 65534, on CPU 1: each round, SU_FILES files, su->per_file timers each. */
static int sorting_attacker_kid(void *unused)
{
	static struct tempo_timer_spec specs[SU_BIG];
	struct epoll_event ev = { .events = EPOLLIN };
	int fd[SU_FILES], ep, f, round;
	unsigned int i, n, seed = 12345;

	(void)unused;
	ASSERT_ERRNO(pin_cpu(1), 0);
	for (round = 0; await_go() > 0; round++) {
		ep = epoll_create1(EPOLL_CLOEXEC);
		ASSERT_GE(ep, 0);
		n = su->per_file;
		for (f = 0; f < SU_FILES; f++) {
			fd[f] = tempo_open(O_NONBLOCK);
			ASSERT_GE(fd[f], 0);
			ASSERT_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, fd[f], &ev), 0);
			for (i = 0; i < n; i++) {
				seed = seed * 1103515245 + 12345;
				specs[i].value = su->t0 + (seed >> 8) % (1U << 20);
				specs[i].flags = TEMPO_ARM_ABS;
			}
			ASSERT_ERRNO(tempo_arm(fd[f], specs, n, NULL), 0);
		}
		say(tempo_now_ns() < su->t0 - 200 * MS ? 1 : -1);
		await_go();			/* the victim has reported */
		for (f = 0; f < SU_FILES; f++)
			close(fd[f]);
		close(ep);
		say(2);
	}
	return TEST_PASS;
}

struct su_spin {
	uint64_t from, to, gap;
};

/* The longest time CPU 1 did not run this thread, within [from, to]. */
static void *su_spin_thread(void *arg)
{
	struct su_spin *sp = arg;
	uint64_t last, now;

	struct timespec ts = { .tv_sec = sp->from / SEC, .tv_nsec = sp->from % SEC };

	if (pin_cpu(1))
		return NULL;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	last = tempo_now_ns();
	while ((now = tempo_now_ns()) < sp->to) {
		if (now - last > sp->gap)
			sp->gap = now - last;
		last = now;
	}
	return NULL;
}

/* uid 65533, on CPU 1: each round, its timers after t0; says its latest record's lateness, then its CPU gap, in ms. */
static int sorting_victim_kid(void *unused)
{
	struct tempo_timer_spec specs[SU_VICTIM];
	struct tempo_event ev;
	struct su_spin sp;
	uint64_t late, worst;
	pthread_t spin;
	int fd, i;

	(void)unused;
	ASSERT_ERRNO(pin_cpu(1), 0);
	fd = tempo_open(0);
	ASSERT_GE(fd, 0);
	while (await_go() > 0) {
		memset(specs, 0, sizeof(specs));
		for (i = 0; i < SU_VICTIM; i++) {
			specs[i].value = su->t0 + 2 * MS + i * 4 * MS;
			specs[i].flags = TEMPO_ARM_ABS;
		}
		ASSERT_ERRNO(tempo_arm(fd, specs, SU_VICTIM, NULL), 0);
		sp.from = su->t0 - 100 * MS;
		sp.to = su->t0 + 100 * MS;
		sp.gap = 0;
		ASSERT_EQ(pthread_create(&spin, NULL, su_spin_thread, &sp), 0);
		worst = 0;
		for (i = 0; i < SU_VICTIM; i++) {
			ASSERT_EQ(tempo_read_events(fd, &ev, 1), 1);
			ASSERT_GE(ev.time, ev.deadline);
			late = tempo_now_ns() - ev.deadline;
			if (late > worst)
				worst = late;
		}
		pthread_join(spin, NULL);
		say((int)(worst / MS));
		say((int)(sp.gap / MS));
	}
	return TEST_PASS;
}

TEST_F(hostile, test_sorting_spares_other_users)
{
	static const unsigned int rounds[] = { SU_SMALL, SU_BIG, SU_BIG, SU_SMALL };
	int late[4], gap[4], worst_small_late = 0, best_big_late = INT32_MAX;
	int worst_small_gap = 0, best_big_gap = INT32_MAX, rc = TEST_PASS, r, said;
	int ahead_ms = SU_AHEAD_MS;
	struct kid *a, *b;

	su = mmap(NULL, sizeof(*su), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(su != MAP_FAILED);
	a = kid_start(UID_A, sorting_attacker_kid, NULL);
	b = kid_start(UID_B, sorting_victim_kid, NULL);
	ASSERT_TRUE(a && b);
	for (r = 0; r < 4 && rc == TEST_PASS; r++) {
		su->t0 = ((tempo_now_ns() + ahead_ms * MS) >> 20) << 20;
		su->per_file = rounds[r];
		kid_go(a, 1);
		said = kid_hear(a, 2 * SU_AHEAD_MAX_MS);
		if (said == -1 && ahead_ms < SU_AHEAD_MAX_MS) {
			/* Armed too late for t0 (a slow kernel): again, with more room. */
			test_diag("round %d: %u timers took over %d ms to arm; again", r,
				  SU_FILES * rounds[r], ahead_ms - 200);
			ahead_ms *= 2;
			kid_go(a, 1);
			if (kid_hear(a, 120000) != 2) {
				rc = TEST_FAIL;
				break;
			}
			r--;
			continue;
		}
		if (said != 1) {
			test_diag("round %d: the attacker did not arm %u timers in time", r,
				  SU_FILES * rounds[r]);
			rc = TEST_FAIL;
			break;
		}
		kid_go(b, 1);
		late[r] = kid_hear(b, 60000);
		gap[r] = kid_hear(b, 60000);
		kid_go(a, 1);
		if (late[r] < 0 || gap[r] < 0 || kid_hear(a, 120000) != 2) {
			rc = TEST_FAIL;
			break;
		}
		test_diag("round %d: uid %u, %u timers in each of %u files due in one tick; uid %u's latest record %d ms late, its CPU gap %d ms",
			  r, UID_A, rounds[r], SU_FILES, UID_B, late[r], gap[r]);
		if (rounds[r] == SU_BIG) {
			best_big_late = late[r] < best_big_late ? late[r] : best_big_late;
			best_big_gap = gap[r] < best_big_gap ? gap[r] : best_big_gap;
		} else {
			worst_small_late = late[r] > worst_small_late ? late[r] : worst_small_late;
			worst_small_gap = gap[r] > worst_small_gap ? gap[r] : worst_small_gap;
		}
	}
	kid_go(a, 0);
	kid_go(b, 0);
	if (kid_finish(a, 60000) != TEST_PASS || kid_finish(b, 60000) != TEST_PASS)
		rc = TEST_FAIL;
	munmap(su, sizeof(*su));
	if (rc != TEST_PASS)
		return rc;
	EXPECT_LE(best_big_late, worst_small_late + SU_MARGIN_MS);
	EXPECT_LE(best_big_gap, worst_small_gap + SU_MARGIN_MS);
	return TEST_PASS;
}

/* uid 65533: its own figures, before and after uid 65534's activity, which it must not see. */
static int stats_bystander_kid(void *unused)
{
	struct tempo_mod_stats m0, m1;
	int fd;

	(void)unused;
	fd = tempo_open(0);
	ASSERT_GE(fd, 0);
	m0 = mod_stats(fd);
	ASSERT_EQ(m0.scope, TEMPO_STATS_USER);
	ASSERT_EQ(m0.contexts, 1);
	ASSERT_EQ(m0.opens, 0);
	say(1);
	await_go();			/* uid 65534 opened, armed and read */
	m1 = mod_stats(fd);
	test_diag("uid %u sees contexts %llu -> %llu, opens %llu -> %llu, armed %llu -> %llu",
		  getuid(), (unsigned long long)m0.contexts, (unsigned long long)m1.contexts,
		  (unsigned long long)m0.opens, (unsigned long long)m1.opens,
		  (unsigned long long)m0.armed, (unsigned long long)m1.armed);
	ASSERT_EQ(memcmp(&m0, &m1, sizeof(m0)), 0);
	/* Its own timers: its figures move. */
	ASSERT_ERRNO(tempo_arm_one(fd, 1, 100 * SEC, 0, 0, NULL), 0);
	m1 = mod_stats(fd);
	ASSERT_EQ(m1.timers, 1);
	ASSERT_GT(m1.bytes, 0);
	return TEST_PASS;
}

/* uid 65534: open a file, arm 5 timers and read their records. */
static int stats_actor_kid(void *unused)
{
	struct tempo_event ev[5];
	int fd, i, n = 0;

	(void)unused;
	fd = tempo_open(0);
	ASSERT_GE(fd, 0);
	for (i = 0; i < 5; i++)
		ASSERT_ERRNO(tempo_arm_one(fd, i, MS, 0, 0, NULL), 0);
	while (n < 5) {
		i = tempo_read_events(fd, ev, 5 - n);
		ASSERT_GT(i, 0);
		n += i;
	}
	close(fd);
	return TEST_PASS;
}

/*
 * TEMPO_IOC_STATS shows no user another's activity: uid 65533's view is the
 * same before and after uid 65534 opens a file, arms 5 timers and reads
 * them; root (CAP_SYS_ADMIN) sees the module's figures move. Fails if: every
 * caller gets the module-wide counters (uid 65533 then sees exactly when
 * uid 65534 opens, arms and reads).
 */
TEST_F(hostile, test_stats_hide_other_users)
{
	struct tempo_mod_stats m0, m1;
	struct kid *a, *b;
	int probe = tempo_open(0), rc;

	ASSERT_GE(probe, 0);
	m0 = mod_stats(probe);
	ASSERT_EQ(m0.scope, TEMPO_STATS_MODULE);
	b = kid_start(UID_B, stats_bystander_kid, NULL);
	ASSERT_TRUE(b);
	ASSERT_ERRNO(kid_hear(b, 30000), 1);
	a = kid_start(UID_A, stats_actor_kid, NULL);
	ASSERT_TRUE(a);
	rc = kid_finish(a, 30000);
	m1 = mod_stats(probe);
	kid_go(b, 1);
	if (kid_finish(b, 30000) != TEST_PASS)
		rc = TEST_FAIL;
	close(probe);
	ASSERT_GE(m1.opens, m0.opens + 2);
	ASSERT_GE(m1.armed, m0.armed + 5);
	return rc;
}

/* uid 65534: open a file and pass it to uid 65533; then, on the go-ahead, another file and 5 timers. */
static int stats_passer_kid(void *arg)
{
	int sock = *(int *)arg, fd, fd2, i;

	fd = tempo_open(0);
	ASSERT_GE(fd, 0);
	ASSERT_ERRNO(send_fd(sock, fd), 0);
	say(1);
	await_go();
	fd2 = tempo_open(0);
	ASSERT_GE(fd2, 0);
	for (i = 0; i < 5; i++)
		ASSERT_ERRNO(tempo_arm_one(fd2, i, 100 * SEC, 0, 0, NULL), 0);
	say(2);
	await_go();
	close(fd2);
	close(fd);
	return TEST_PASS;
}

/* uid 65533: the file uid 65534 passed it; its STATS before and after uid 65534's other file. */
static int stats_receiver_kid(void *arg)
{
	struct tempo_mod_stats m0, m1;
	int sock = *(int *)arg, fd;

	fd = recv_fd(sock);
	ASSERT_GE(fd, 0);
	m0 = mod_stats(fd);
	ASSERT_EQ(m0.scope, TEMPO_STATS_USER);
	say(1);
	await_go();			/* uid 65534 opened another file, armed 5 timers */
	m1 = mod_stats(fd);
	test_diag("uid %u, through uid %u's file: contexts %llu -> %llu, timers %llu -> %llu, bytes %llu -> %llu",
		  getuid(), UID_A, (unsigned long long)m0.contexts,
		  (unsigned long long)m1.contexts, (unsigned long long)m0.timers,
		  (unsigned long long)m1.timers, (unsigned long long)m0.bytes,
		  (unsigned long long)m1.bytes);
	ASSERT_EQ(memcmp(&m0, &m1, sizeof(m0)), 0);
	/* Its own figures: uid 65533 opened nothing. */
	EXPECT_EQ(m1.contexts, 0);
	EXPECT_EQ(m1.timers, 0);
	close(fd);
	return TEST_PASS;
}

/*
 * TEMPO_IOC_STATS of a passed file shows the caller's own user: uid 65534
 * opens a file and passes it to uid 65533 over a unix socket, then opens a
 * second file and arms 5 timers in it; uid 65533's STATS through the passed
 * file do not change, and show its own holdings (none). Fails if: the
 * figures are the opener's user's whoever asks (uid 65533 then sees uid
 * 65534's contexts go 1 -> 2, its timers 0 -> 5).
 */
TEST_F(hostile, test_stats_of_passed_file_hide_opener)
{
	struct kid *a, *b;
	int sv[2], rc;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		ASSERT_TRUE(no_unix_sockets(errno));
		return TEST_SKIP;
	}
	a = kid_start(UID_A, stats_passer_kid, &sv[0]);
	ASSERT_TRUE(a);
	ASSERT_ERRNO(kid_hear(a, 30000), 1);
	b = kid_start(UID_B, stats_receiver_kid, &sv[1]);
	ASSERT_TRUE(b);
	ASSERT_ERRNO(kid_hear(b, 30000), 1);
	kid_go(a, 1);
	ASSERT_ERRNO(kid_hear(a, 30000), 2);
	kid_go(b, 1);
	rc = kid_finish(b, 30000);
	kid_go(a, 1);
	if (kid_finish(a, 30000) != TEST_PASS)
		rc = TEST_FAIL;
	close(sv[0]);
	close(sv[1]);
	return rc;
}

/* ---- a set of the wall clock against one user's watchers ------------- */

/*
 * The attacker's watchers: CW_DUPS fds of its file, each in CW_EPOLLS epoll
 * instances, 150,000 (an epoll registration and its removal cost about 0.15
 * and 0.25 ms in the test VM, under TCG with KASAN and lockdep: about a
 * minute there, CW_TIMEOUT_S below for the KCSAN kernel). -DCW_DUPS=100
 * -DCW_EPOLLS=200 makes a quicker run of 20,000 while working on the walk.
 */
#ifndef CW_DUPS
#define CW_DUPS		500
#endif
#ifndef CW_EPOLLS
#define CW_EPOLLS	300
#endif
#define CW_TIMEOUT_S	900
#define CW_SETS		3	/* root's sets of the wall clock per round, */
#define CW_SET_GAP_MS	150	/* this far apart */
#define CW_MARGIN_MS	100	/* the most a round with watchers may add */
#define CW_HOUR		(3600 * SEC)

/* What root tells the victims: the window of each round, MONOTONIC ns. */
struct cw_shared {
	uint64_t from, to;
};

static struct cw_shared *cw;

static int min_int(int a, int b)
{
	return a < b ? a : b;
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

/* A counter of debugfs tempo/dev_clock ("walks", "visits", "moves", "wakes"), or -1. */
static long long dev_clock_stat(const char *key)
{
	FILE *f = fopen("/sys/kernel/debug/tempo/dev_clock", "r");
	long long v = -1, x;
	char name[32];

	if (!f)
		return -1;
	while (fscanf(f, "%31s %lld", name, &x) == 2)
		if (!strcmp(name, key))
			v = x;
	fclose(f);
	return v;
}

/*
 * uid 65534: one absolute REALTIME timer, due already and never read; on
 * the go-ahead its file goes into CW_EPOLLS epoll instances through
 * CW_DUPS fds each (says how many registrations it made, or -errno), and
 * on the next, they all go.
 */
static int cw_attacker_kid(void *unused)
{
	struct epoll_event ev = { .events = EPOLLIN }, got;
	static int dups[CW_DUPS], eps[CW_EPOLLS];
	int fd, d, e, et, n = 0;

	(void)unused;
	fd = tempo_open(O_NONBLOCK);
	ASSERT_GE(fd, 0);
	ASSERT_ERRNO(tempo_arm_one(fd, 1, tempo_now(TEMPO_ARM_REALTIME) - SEC, 0,
				   TEMPO_ARM_ABS | TEMPO_ARM_REALTIME, NULL), 0);
	ASSERT_ERRNO(wait_ready(fd, 1, 5000), 0);
	/* An edge-triggered watch, its one edge taken: another comes only with a wake-up. */
	et = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_GE(et, 0);
	got.events = EPOLLIN | EPOLLET;
	ASSERT_EQ(epoll_ctl(et, EPOLL_CTL_ADD, fd, &got), 0);
	ASSERT_EQ(epoll_wait(et, &got, 1, 0), 1);
	say(1);
	await_go();
	for (d = 0; d < CW_DUPS; d++) {
		dups[d] = dup(fd);
		if (dups[d] < 0) {
			say(-errno);
			return TEST_FAIL;
		}
	}
	for (e = 0; e < CW_EPOLLS; e++) {
		eps[e] = epoll_create1(EPOLL_CLOEXEC);
		if (eps[e] < 0) {
			say(-errno);
			return TEST_FAIL;
		}
		for (d = 0; d < CW_DUPS; d++, n++) {
			if (epoll_ctl(eps[e], EPOLL_CTL_ADD, dups[d], &ev)) {
				say(-errno);
				return TEST_FAIL;
			}
		}
	}
	say(n);
	await_go();
	for (e = 0; e < CW_EPOLLS; e++)
		close(eps[e]);
	for (d = 0; d < CW_DUPS; d++)
		close(dups[d]);
	/* Still due, never read; and heard again (an edge) if a set woke its watchers. */
	ASSERT_EQ(ctx_stats(fd).events_ready, 1);
	say(epoll_wait(et, &got, 1, 0));
	await_go();
	close(et);
	close(fd);
	return TEST_PASS;
}

/* uid 65533, on CPU *@cpu: the longest it did not run in each round's window, ms. */
static int cw_spinner_kid(void *cpu)
{
	uint64_t last, now, gap;

	ASSERT_ERRNO(pin_cpu(*(int *)cpu), 0);
	while (await_go() > 0) {
		while (tempo_now_ns() < cw->from)
			usleep(1000);
		gap = 0;
		last = tempo_now_ns();
		while ((now = tempo_now_ns()) < cw->to) {
			if (now - last > gap)
				gap = now - last;
			last = now;
		}
		say((int)(gap / MS));
	}
	return TEST_PASS;
}

/*
 * uid 65533, on CPU 1: open, a first BOOTTIME arm (the file joins the walk's
 * list) and close(), over and over; the longest round, ms.
 */
static int cw_closer_kid(void *unused)
{
	uint64_t t0, worst;
	int fd;

	(void)unused;
	ASSERT_ERRNO(pin_cpu(1), 0);
	while (await_go() > 0) {
		while (tempo_now_ns() < cw->from)
			usleep(1000);
		worst = 0;
		while ((t0 = tempo_now_ns()) < cw->to) {
			fd = tempo_open(0);
			ASSERT_GE(fd, 0);
			ASSERT_ERRNO(tempo_arm_one(fd, 1, CW_HOUR, 0, TEMPO_ARM_BOOTTIME, NULL), 0);
			close(fd);
			if (tempo_now_ns() - t0 > worst)
				worst = tempo_now_ns() - t0;
		}
		say((int)(worst / MS));
	}
	return TEST_PASS;
}

/*
 * Root, on CPU 0: one round of CW_SETS sets of CLOCK_REALTIME to what it
 * reads; the victims' figures, the longer gap of the two CPUs.
 */
static int cw_round(struct kid **spin, struct kid *closer, int *gap, int *close_ms)
{
	struct timespec ts;
	int i, g;

	cw->from = tempo_now_ns() + 100 * MS;
	cw->to = cw->from + (CW_SETS + 1) * CW_SET_GAP_MS * MS;
	kid_go(spin[0], 1);
	kid_go(spin[1], 1);
	kid_go(closer, 1);
	usleep(100000 + CW_SET_GAP_MS * 1000 / 2);
	for (i = 0; i < CW_SETS; i++) {
		/* As NTP or an administrator would: the time it is. */
		clock_gettime(CLOCK_REALTIME, &ts);
		if (clock_settime(CLOCK_REALTIME, &ts))
			return -errno;
		usleep(CW_SET_GAP_MS * 1000);
	}
	*gap = kid_hear(spin[0], 60000);
	g = kid_hear(spin[1], 60000);
	*gap = g < 0 || *gap < 0 ? -1 : max_int(*gap, g);
	*close_ms = kid_hear(closer, 60000);
	return *gap < 0 || *close_ms < 0 ? -ETIMEDOUT : 0;
}

/*
 * A set of the wall clock costs one visit per file, whatever a user hangs
 * on its files: uid 65534 holds one absolute REALTIME timer, due and never
 * read, and adds its file to epoll CW_DUPS * CW_EPOLLS times (CW_DUPS fds
 * of it in each of CW_EPOLLS epoll instances), and watches it with one
 * edge-triggered registration whose edge it took; root, on CPU 0, sets
 * CLOCK_REALTIME to the time it reads, 3 times a round. uid 65533 spins on
 * both CPUs, and opens a file, arms its first BOOTTIME timer and closes it
 * over and over on CPU 1. In the better of two rounds with the watchers,
 * its longest gap and its longest open-arm-close may exceed the worse of
 * two rounds without them (before and after) by at most CW_MARGIN_MS: the
 * walk holds its locks for one visit of one file. And a proxy standing due
 * stays, waking nobody: the edge-triggered watch hears no new edge, and the
 * walks of the rounds with watchers woke no file (debugfs tempo/dev_clock's
 * "wakes"). Fails if: each set moves the due proxy, an edge each time, and
 * wakes the file's watchers under the file's clk_lock and the global list's
 * lock (at 20,000 watchers the open-arm-close took 524 and 700 ms against
 * 64 and 177 ms without, and the edge-triggered watch heard an edge; at
 * 150,000, 1.1 and 5.7 s against 133 and 387 ms).
 */
TEST_F(hostile, test_clock_set_spares_other_users)
{
	int gap[4], closing[4], said, r, rc = TEST_PASS, edges = -1;
	long long wakes0 = -1, wakes1 = -1, saved = -1;
	static int cpus[2] = { 0, 1 };
	struct kid *a, *spin[2], *closer;
	char buf[32];
	FILE *f;

	f = fopen("/proc/sys/fs/epoll/max_user_watches", "r");
	if (f) {
		if (fscanf(f, "%lld", &saved) != 1)
			saved = -1;
		fclose(f);
	}
	if (saved >= 0 && saved < 2 * CW_DUPS * CW_EPOLLS) {
		snprintf(buf, sizeof(buf), "%d", 2 * CW_DUPS * CW_EPOLLS);
		ASSERT_ERRNO(write_file("/proc/sys/fs/epoll/max_user_watches", buf), 0);
	}
	cw = mmap(NULL, sizeof(*cw), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(cw != MAP_FAILED);
	a = kid_start(UID_A, cw_attacker_kid, NULL);
	spin[0] = kid_start(UID_B, cw_spinner_kid, &cpus[0]);
	spin[1] = kid_start(UID_B, cw_spinner_kid, &cpus[1]);
	closer = kid_start(UID_B, cw_closer_kid, NULL);
	ASSERT_TRUE(a && spin[0] && spin[1] && closer);
	ASSERT_ERRNO(pin_cpu(0), 0);
	ASSERT_ERRNO(kid_hear(a, 30000), 1);
	for (r = 0; r < 4 && rc == TEST_PASS; r++) {
		if (r == 1) {
			uint64_t t0 = now_ms();

			kid_go(a, 1);
			said = kid_hear(a, CW_TIMEOUT_S * 1000 / 3);
			test_diag("uid %u: %d epoll registrations of its file in %llu ms", UID_A,
				  said, (unsigned long long)(now_ms() - t0));
			if (said != CW_DUPS * CW_EPOLLS) {
				rc = TEST_FAIL;
				break;
			}
			wakes0 = dev_clock_stat("wakes");
		}
		if (r == 3) {
			wakes1 = dev_clock_stat("wakes");
			kid_go(a, 1);
			edges = kid_hear(a, CW_TIMEOUT_S * 1000 / 3);
			if (edges < 0) {
				rc = TEST_FAIL;
				break;
			}
		}
		if (cw_round(spin, closer, &gap[r], &closing[r])) {
			rc = TEST_FAIL;
			break;
		}
		test_diag("round %d, %s: uid %u's longest gap on either CPU %d ms, open + first BOOTTIME arm + close() on CPU 1 %d ms",
			  r, r == 1 || r == 2 ? "with the watchers" : "no watchers", UID_B, gap[r],
			  closing[r]);
	}
	kid_go(a, 0);
	kid_go(spin[0], 0);
	kid_go(spin[1], 0);
	kid_go(closer, 0);
	/* Its watchers go with it: about as long as their registration. */
	if (kid_finish(a, CW_TIMEOUT_S * 1000 / 3) != TEST_PASS ||
	    kid_finish(spin[0], 60000) != TEST_PASS ||
	    kid_finish(spin[1], 60000) != TEST_PASS || kid_finish(closer, 60000) != TEST_PASS)
		rc = TEST_FAIL;
	munmap(cw, sizeof(*cw));
	if (saved >= 0 && saved < 2 * CW_DUPS * CW_EPOLLS) {
		snprintf(buf, sizeof(buf), "%lld", saved);
		write_file("/proc/sys/fs/epoll/max_user_watches", buf);
	}
	if (rc != TEST_PASS)
		return rc;
	EXPECT_LE(min_int(gap[1], gap[2]), max_int(gap[0], gap[3]) + CW_MARGIN_MS);
	EXPECT_LE(min_int(closing[1], closing[2]), max_int(closing[0], closing[3]) + CW_MARGIN_MS);
	test_diag("files the walks of the rounds with watchers woke: %lld; edges its watchers heard: %d",
		  wakes1 - wakes0, edges);
	EXPECT_EQ(edges, 0, "a set woke the watchers of a record due all along");
	EXPECT_TRUE(wakes0 >= 0 && wakes1 == wakes0);
	return TEST_PASS;
}

/* ---- clocks flipped while root sets the wall clock ---- */

#define FLIP_FILES	4
#define FLIP_TIMERS	64
#define FLIP_SETS	200	/* root's steps each way */

struct flip_file {
	int		fd;
	uint64_t	id[FLIP_TIMERS];
	bool		live[FLIP_TIMERS];
};

static uint64_t flip_rng = 88172645463325252ULL;

static uint64_t flip_rnd(void)
{
	flip_rng ^= flip_rng << 13;
	flip_rng ^= flip_rng >> 7;
	flip_rng ^= flip_rng << 17;
	return flip_rng;
}

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* A spec of any clock and flags, due within half a second (or past). */
static void flip_spec(struct tempo_timer_spec *s, uint64_t cookie)
{
	static const uint32_t flags[] = {
		0, TEMPO_ARM_BOOTTIME, TEMPO_ARM_REALTIME,
		TEMPO_ARM_ABS | TEMPO_ARM_REALTIME,
		TEMPO_ARM_ABS | TEMPO_ARM_REALTIME | TEMPO_ARM_CANCEL_ON_SET,
		TEMPO_ARM_ABS | TEMPO_ARM_BOOTTIME,
	};
	uint64_t r = flip_rnd(), delay = (r >> 8) % (500 * MS);

	memset(s, 0, sizeof(*s));
	s->cookie = cookie;
	s->flags = flags[r % 6];
	s->value = delay;
	if (s->flags & TEMPO_ARM_ABS)
		s->value = clock_ns(s->flags & TEMPO_ARM_REALTIME ? CLOCK_REALTIME :
				    CLOCK_BOOTTIME) + delay - 100 * MS;
	if (!((r >> 40) % 10))
		s->period = (20 + (r >> 48) % 80) * MS;
}

/* Read what is ready; a FINAL record ends its timer, once. Return: errors seen. */
static int flip_read(struct flip_file *f, unsigned int fi)
{
	struct tempo_event ev[32];
	int errors = 0;
	ssize_t n, i;

	while ((n = tempo_read_events(f->fd, ev, 32)) > 0) {
		for (i = 0; i < n; i++) {
			unsigned int t = ev[i].cookie % 1000;

			if (ev[i].cookie / 1000 != fi || t >= FLIP_TIMERS || !f->live[t] ||
			    f->id[t] != ev[i].id) {
				test_diag("file %u: a record of no live timer (cookie %llu)", fi,
					  (unsigned long long)ev[i].cookie);
				errors++;
				continue;
			}
			if ((ev[i].flags & TEMPO_EVF_CLOCK_SET) && !(ev[i].flags & TEMPO_EVF_FINAL))
				errors++;
			/* Never early in its clock (a clock set's record may be). */
			if (!(ev[i].flags & TEMPO_EVF_CLOCK_SET) && ev[i].time < ev[i].deadline) {
				test_diag("file %u: cookie %llu early by %llu ns", fi,
					  (unsigned long long)ev[i].cookie,
					  (unsigned long long)(ev[i].deadline - ev[i].time));
				errors++;
			}
			if (ev[i].flags & TEMPO_EVF_FINAL)
				f->live[t] = false;
		}
	}
	return errors;
}

/* uid 65534: flip clocks and flags at random until told to stop, then end every timer. */
static int flip_kid(void *unused)
{
	unsigned long failures = test_failures;
	struct flip_file files[FLIP_FILES];
	struct tempo_timer_spec s;
	unsigned int fi, t, ops = 0, refused = 0;
	int errors = 0, err;

	(void)unused;
	for (fi = 0; fi < FLIP_FILES; fi++) {
		files[fi].fd = tempo_open(O_NONBLOCK);
		ASSERT_GE(files[fi].fd, 0);
		for (t = 0; t < FLIP_TIMERS; t++) {
			flip_spec(&s, fi * 1000 + t);
			ASSERT_ERRNO(tempo_arm(files[fi].fd, &s, 1, NULL), 0);
			files[fi].id[t] = s.id;
			files[fi].live[t] = true;
		}
	}
	say(1);
	while (!kid_told_to_stop()) {
		struct flip_file *f = &files[(fi = flip_rnd() % FLIP_FILES)];

		t = flip_rnd() % FLIP_TIMERS;
		switch (flip_rnd() % 4) {
		case 0:		/* flip a live timer to another clock, flags, deadline */
			if (!f->live[t])
				break;
			flip_spec(&s, fi * 1000 + t);
			err = tempo_rearm(f->fd, f->id[t], s.cookie, s.value, s.period, s.flags);
			if (err == -ECANCELED) {
				refused++;
			} else if (err) {
				test_diag("re-arm: %s", strerror(-err));
				errors++;
			}
			break;
		case 1:
			if (f->live[t]) {
				err = tempo_cancel_one(f->fd, f->id[t]);
				if (err) {
					test_diag("cancel: %s", strerror(-err));
					errors++;
				}
				f->live[t] = false;
			}
			break;
		case 2:
			if (f->live[t])
				break;
			flip_spec(&s, fi * 1000 + t);
			err = tempo_arm(f->fd, &s, 1, NULL);
			if (!err) {
				f->id[t] = s.id;
				f->live[t] = true;
			} else if (err == -ECANCELED) {
				refused++;
			} else {
				test_diag("arm: %s", strerror(-err));
				errors++;
			}
			break;
		default:
			errors += flip_read(f, fi);
		}
		ops++;
	}
	/* Every timer ends once: cancelled now, or its FINAL record read first. */
	for (fi = 0; fi < FLIP_FILES; fi++) {
		errors += flip_read(&files[fi], fi);
		for (t = 0; t < FLIP_TIMERS; t++) {
			if (!files[fi].live[t])
				continue;
			if (tempo_cancel_one(files[fi].fd, files[fi].id[t])) {
				test_diag("file %u timer %u: live, and cancel fails", fi, t);
				errors++;
			}
			files[fi].live[t] = false;
		}
		errors += flip_read(&files[fi], fi);
		EXPECT_EQ(ctx_stats(files[fi].fd).timers, 0, "file %u", fi);
		close(files[fi].fd);
	}
	test_diag("%u operations, %u refused with ECANCELED, %d errors", ops, refused, errors);
	EXPECT_EQ(errors, 0);
	return test_failures == failures ? TEST_PASS : TEST_FAIL;
}

/* debugfs "dev_clock": the walks after clock changes, and the files they visited. */
static void dev_clock_counts(long long *walks, long long *visits)
{
	FILE *f = fopen("/sys/kernel/debug/tempo/dev_clock", "r");

	*walks = *visits = -1;
	if (!f)
		return;
	if (fscanf(f, "walks %lld visits %lld", walks, visits) != 2)
		*walks = *visits = -1;
	fclose(f);
}

/*
 * Clocks flipped at a high rate while root sets the wall clock: uid 65534
 * keeps 4 files of 64 timers busy, re-arming them at random among
 * MONOTONIC, BOOTTIME, REALTIME relative and absolute, and CANCEL_ON_SET,
 * cancelling, arming anew and reading, while root sets CLOCK_REALTIME an
 * hour back and forward 200 times each. Nothing lost: every timer ends
 * exactly once (a FINAL record read, or a cancel that succeeds; a record of
 * no live timer is an error) and none is left; bounded work: each walk
 * after a change visits at most the files open, not the 256 timers; no
 * WARN (the VM fails on one). The wall clock is put back as it would have
 * run.
 */
TEST_F(hostile, test_clock_flips_while_root_sets_the_clock)
{
	uint64_t real0 = clock_ns(CLOCK_REALTIME), mono0 = clock_ns(CLOCK_MONOTONIC), t;
	long long w0, v0, w1, v1;
	struct timespec ts;
	struct kid *k;
	int i, rc;

	dev_clock_counts(&w0, &v0);
	if (w0 < 0)
		SKIP(return TEST_SKIP, "no debugfs tempo/dev_clock");
	k = kid_start(65534, flip_kid, NULL);
	ASSERT_TRUE(k != NULL);
	ASSERT_EQ(kid_hear(k, 20000), 1);
	for (i = 0; i < 2 * FLIP_SETS; i++) {
		t = clock_ns(CLOCK_REALTIME) + (i & 1 ? 3600ULL : -3600ULL) * 1000000000ULL;
		ts.tv_sec = t / 1000000000ULL;
		ts.tv_nsec = t % 1000000000ULL;
		EXPECT_EQ(clock_settime(CLOCK_REALTIME, &ts), 0);
		usleep(5000);
	}
	t = real0 + (clock_ns(CLOCK_MONOTONIC) - mono0);
	ts.tv_sec = t / 1000000000ULL;
	ts.tv_nsec = t % 1000000000ULL;
	clock_settime(CLOCK_REALTIME, &ts);
	kid_go(k, 0);
	rc = kid_finish(k, 60000);
	usleep(100000);	/* the last walk */
	dev_clock_counts(&w1, &v1);
	test_diag("%lld walks after %d sets, %lld files visited", w1 - w0, 2 * FLIP_SETS + 1,
		  v1 - v0);
	EXPECT_GT(w1 - w0, 0);
	EXPECT_LE(w1 - w0, 2 * FLIP_SETS + 2);
	/* The kid's files, and any other test's left open: never a timer each. */
	EXPECT_LE(v1 - v0, (w1 - w0) * (FLIP_FILES + 4));
	return rc;
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
	TEST_CASE_F(hostile, test_user_limit_contexts),
	TEST_CASE_F(hostile, test_user_limit_timers),
	TEST_CASE_F(hostile, test_user_limit_bytes),
	TEST_CASE_F(hostile, test_user_limit_across_user_namespaces),
	TEST_CASE_F(hostile, test_user_limit_copy_bytes),
	TEST_CASE_F(hostile, test_memcg_arm_fails_without_oom_kill),
	TEST_CASE_F(hostile, test_cancel_cookie_killable),
	TEST_CASE_F(hostile, test_nosink_data_freed_at_completion),
	TEST_CASE_F(hostile, test_arm_double_fetch_bounded),
	TEST_CASE_F(hostile, test_arm_abs_beyond_range_erange),
	TEST_CASE_F(hostile, test_arm_delay_beyond_max_erange),
	TEST_CASE_F(hostile, test_read_fault_midway_loses_nothing),
	TEST_CASE_F(hostile, test_read_unmapped_efault_keeps_record),
	TEST_CASE_F(hostile, test_periodic_overrun_saturates),
	TEST_CASE_F(hostile, test_batch_out_fields_on_early_errors),
	TEST_CASE_F(hostile, test_epoll_exclusive_spares_blocked_reader),
	TEST_CASE_F(hostile, test_worst_insert_spares_other_users),
	TEST_CASE_F(hostile, test_failed_batch_keeps_no_memory),
	TEST_CASE_F(hostile, test_sorting_spares_other_users),
	TEST_CASE_F(hostile, test_stats_hide_other_users),
	TEST_CASE_F(hostile, test_stats_of_passed_file_hide_opener),
	TEST_CASE_F(hostile, test_clock_flips_while_root_sets_the_clock),
	TEST_CASE_F_TIMEOUT(hostile, test_clock_set_spares_other_users, CW_TIMEOUT_S),
	TEST_CASE_F(hostile, test_sink_unix_socket_cycle_collected),	/* leaks today: last */
	{}
};

int main(void)
{
	int fd, rc;

	fd = tempo_open(0);
	if (fd < 0 || geteuid())
		return test_skip_all("%s", fd < 0 ? "no " TEMPO_DEVICE :
				     "needs root (to drop to other uids)");
	close(fd);
	/* A kid gone before the parent writes to it is not the parent's death. */
	signal(SIGPIPE, SIG_IGN);
	/* Whatever the kernel does, the VM runner's 600 s are not all ours. */
	alarm(480);
	/* A case waits up to 120 s for a kid; a case process up to this long. */
	test_timeout = 300;
	rc = test_run("tempo_hostile", cases);
	return rc;
}
