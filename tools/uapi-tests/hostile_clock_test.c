// SPDX-License-Identifier: GPL-2.0
/*
 * tempo_hostile_clock: /dev/tempo against a hostile local user: root setting
 * the wall clock while a user watches or flips clocks, and a user who would
 * wake the machine. How the attacks run (uids, root, kids): hostile.h. Here:
 *
 *  - a set of the wall clock against one user's 150,000 epoll watchers: a
 *    walk that visits files, not watchers, and wakes no one needlessly;
 *  - clocks and flags flipped at a high rate on many timers while root sets
 *    the wall clock back and forth: nothing lost, a walk per change that
 *    visits files, not timers;
 *  - alarms that would wake the machine, armed without CAP_WAKE_ALARM: by
 *    the user, in a user namespace of its own, and on root's file.
 *
 * KTAP on stdout; each child's diagnostics go there too.
 */
#define _GNU_SOURCE
#include "hostile.h"

/* ---- a set of the wall clock against one user's watchers --------- */

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

/* ---- clocks flipped while root sets the wall clock --------------- */

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

/* ---- alarms: who may wake the machine ------------------------------ */

#define HOUR_NS		(3600ULL * SEC)

/*
 * Try every way of arming an alarm on @fd, whose timer @id (cookie 1, a
 * deadline of @deadline) must stay as it is: each fails with EPERM, with
 * the batch's out fields saying where, and nothing changes. The number of
 * failed expectations.
 */
static int alarm_refused(int fd, uint64_t id, uint64_t deadline)
{
	const uint32_t alarm = TEMPO_ARM_ALARM;
	long alarms = fdinfo_value(fd, "timers_boottime_alarm") +
		      fdinfo_value(fd, "timers_realtime_alarm");
	struct tempo_ctx_stats before = ctx_stats(fd), after;
	struct tempo_timer_spec s[2] = {
		{ .cookie = 2, .value = HOUR_NS },
		{ .cookie = 3, .value = HOUR_NS, .flags = TEMPO_ARM_BOOTTIME | alarm },
	};
	struct tempo_timer_query q = { .id = id };
	struct tempo_batch b;
	int failures = test_failures;

	EXPECT_ERRNO(tempo_arm(fd, s, 2, &b), -EPERM);
	EXPECT_TRUE(b.done == 0 && b.error_index == 1 && b.error == -EPERM);
	s[1].flags = TEMPO_ARM_REALTIME | TEMPO_ARM_ABS | alarm;
	s[1].value = clock_ns(CLOCK_REALTIME) + HOUR_NS;
	EXPECT_ERRNO(tempo_arm(fd, &s[1], 1, NULL), -EPERM);
	EXPECT_ERRNO(tempo_rearm(fd, id, 4, HOUR_NS, 0, TEMPO_ARM_REALTIME | alarm), -EPERM);
	after = ctx_stats(fd);
	EXPECT_EQ(after.timers, before.timers);
	EXPECT_EQ(after.armed, before.armed);
	EXPECT_EQ(fdinfo_value(fd, "timers_boottime_alarm") + fdinfo_value(fd, "timers_realtime_alarm"),
		  alarms);
	EXPECT_ERRNO(tempo_query(fd, &q, 1, NULL), 0);
	EXPECT_TRUE(q.state == TEMPO_TIMER_ARMED && q.cookie == 1 && q.deadline == deadline,
		    "state %u cookie %llu deadline %llu, was %llu", q.state,
		    (unsigned long long)q.cookie, (unsigned long long)q.deadline,
		    (unsigned long long)deadline);
	return test_failures - failures;
}

/* Root's file, with an alarm of root's on it, for alarm_kid(). */
struct alarm_root {
	int		fd;
	uint64_t	id, deadline;
};

/* Arm timer cookie 1 of @flags at @deadline (absolute) on @fd: its id, or 0. */
static uint64_t alarm_victim(int fd, uint32_t flags, uint64_t deadline)
{
	uint64_t id = 0;

	if (tempo_arm_one(fd, 1, deadline, 0, flags | TEMPO_ARM_ABS, &id))
		return 0;
	return id;
}

/*
 * uid 65534: arm alarms on its own file, on root's (@arg, struct
 * alarm_root: inherited), then as root of a user namespace of its own.
 */
static int alarm_kid(void *arg)
{
	const struct alarm_root *root = arg;
	uint64_t b = clock_ns(CLOCK_BOOTTIME) + HOUR_NS, id;
	int fd = tempo_open(0), bad = 0;

	ASSERT_GE(fd, 0);
	/* Its own file, with a plain BOOTTIME timer the refusals must leave alone. */
	id = alarm_victim(fd, TEMPO_ARM_BOOTTIME, b);
	ASSERT_TRUE(id);
	bad += alarm_refused(fd, id, b);
	EXPECT_EQ(fdinfo_value(fd, "timers_boottime_alarm"), 0);
	EXPECT_EQ(fdinfo_value(fd, "timers_boottime"), 1);
	/* Root's file: root's alarm may not be moved as an alarm, but may be cancelled. */
	EXPECT_EQ(fdinfo_value(root->fd, "timers_boottime_alarm"), 1);
	bad += alarm_refused(root->fd, root->id, root->deadline);
	EXPECT_EQ(fdinfo_value(root->fd, "timers_boottime_alarm"), 1);
	EXPECT_ERRNO(tempo_cancel_one(root->fd, root->id), 0);
	EXPECT_EQ(fdinfo_value(root->fd, "timers_boottime_alarm"), 0);
	/*
	 * Root of a user namespace of its own holds CAP_WAKE_ALARM there only.
	 * Dumpable again (the drop from root cleared it), so that its own
	 * /proc/self/uid_map is its to write.
	 */
	prctl(PR_SET_DUMPABLE, 1);
	if (unshare(CLONE_NEWUSER)) {
		test_diag("unshare(CLONE_NEWUSER): %s", strerror(errno));
	} else {
		write_file("/proc/self/setgroups", "deny");
		EXPECT_ERRNO(write_file("/proc/self/uid_map", "0 65534 1"), 0);
		EXPECT_ERRNO(write_file("/proc/self/gid_map", "0 65534 1"), 0);
		EXPECT_EQ(geteuid(), 0);
		id = alarm_victim(fd, TEMPO_ARM_BOOTTIME, b + 1);
		ASSERT_TRUE(id);
		bad += alarm_refused(fd, id, b + 1);
	}
	close(fd);
	return bad || test_failures ? TEST_FAIL : TEST_PASS;
}

/*
 * An alarm wakes the machine, which only CAP_WAKE_ALARM may ask for, as
 * timerfd_settime() checks it: uid 65534 gets EPERM for an arm batch that
 * holds an alarm (BOOTTIME or REALTIME), and for a re-arm into one, on its
 * own file, on a file root opened and armed an alarm on (the caller's
 * capability counts, not the opener's), and as root of a user namespace of
 * its own; and nothing changes: no timer armed, none moved, no alarm queue
 * holds anything. Fails if: the capability is not asked (the arm succeeds),
 * or asked of the opener, or in the caller's own user namespace.
 */
TEST_F(hostile, test_alarm_needs_cap_wake_alarm)
{
	struct alarm_root root = { .fd = tempo_open(0) };
	struct tempo_info in;
	int rc;

	ASSERT_GE(root.fd, 0);
	ASSERT_ERRNO(tempo_info(root.fd, &in), 0);
	if (!(in.features & TEMPO_FEAT_ALARM)) {
		close(root.fd);
		SKIP(return TEST_SKIP, "no alarms: no RTC the kernel wakes the machine with");
	}
	root.deadline = clock_ns(CLOCK_BOOTTIME) + 2 * HOUR_NS;
	root.id = alarm_victim(root.fd, TEMPO_ARM_BOOTTIME | TEMPO_ARM_ALARM, root.deadline);
	ASSERT_TRUE(root.id, "root's alarm");
	rc = kid_run(UID_A, alarm_kid, &root, 60000);
	close(root.fd);
	return rc;
}

static const struct test_case cases[] = {
	TEST_CASE_F(hostile, test_clock_flips_while_root_sets_the_clock),
	TEST_CASE_F_TIMEOUT(hostile, test_clock_set_spares_other_users, CW_TIMEOUT_S),
	TEST_CASE_F(hostile, test_alarm_needs_cap_wake_alarm),
	{}
};

int main(void)
{
	return hostile_main("tempo_hostile_clock", cases);
}
