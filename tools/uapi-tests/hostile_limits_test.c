// SPDX-License-Identifier: GPL-2.0
/*
 * tempo_hostile_limits: /dev/tempo against a hostile local user: the per-
 * user bounds, and loops and arrays a user controls.
 * How the attacks run (uids, root, kids): hostile.h. Here:
 *
 *  - per-user bounds: contexts, timers, queued ordered bytes, batch copies;
 *    a user's namespace of delegated uids; the memory cgroup charge and its
 *    limit (ENOMEM, never the OOM killer);
 *  - memory a failed arm batch grew, counted by no per-user limit;
 *  - long user-controlled loops: cancel by cookie over a big table, killed;
 *    unread ordered records keeping their data;
 *  - user arrays read twice (TEMPO_IOC_TIMER_ARM against max_timers).
 *
 * KTAP on stdout; each child's diagnostics go there too.
 */
#define _GNU_SOURCE
#include "hostile.h"

/* ---- per-user limits --------------------------------------------- */

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

/* ---- memory cgroup ----------------------------------------------- */

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

/* ---- loops a user controls --------------------------------------- */

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

/* ---- user arrays read once --------------------------------------- */

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

/* ---- memory no limit counted ------------------------------------- */

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

static const struct test_case cases[] = {
	TEST_CASE_F(hostile, test_user_limit_contexts),
	TEST_CASE_F(hostile, test_user_limit_timers),
	TEST_CASE_F(hostile, test_user_limit_bytes),
	TEST_CASE_F(hostile, test_user_limit_across_user_namespaces),
	TEST_CASE_F(hostile, test_user_limit_copy_bytes),
	TEST_CASE_F(hostile, test_memcg_arm_fails_without_oom_kill),
	TEST_CASE_F(hostile, test_cancel_cookie_killable),
	TEST_CASE_F(hostile, test_nosink_data_freed_at_completion),
	TEST_CASE_F(hostile, test_arm_double_fetch_bounded),
	TEST_CASE_F(hostile, test_failed_batch_keeps_no_memory),
	{}
};

int main(void)
{
	return hostile_main("tempo_hostile_limits", cases);
}
