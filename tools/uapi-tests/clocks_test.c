// SPDX-License-Identifier: GPL-2.0
/*
 * tempo_clocks: /dev/tempo's clocks, run as root in the test VM
 * (include/uapi/tempo.h, "Clocks" and "Time namespaces").
 *
 *  - time namespaces: a task whose CLOCK_MONOTONIC and CLOCK_BOOTTIME run
 *    70 and 71 days ahead of the host's arms absolute timers, queries them,
 *    reads their records and ordered records and asks TEMPO_IOC_INFO, all
 *    in its own clocks; a file opened outside and used inside, and one
 *    opened inside and used outside (passed with SCM_RIGHTS), show each side
 *    the same instants in its own clock; a namespace behind the host reads
 *    the host's earlier times as 0.
 *  - clock_settime(CLOCK_REALTIME) forward and back by hours: absolute
 *    REALTIME timers fire when the wall clock reaches them and never
 *    before, a periodic one counts the periods a step passed, a relative
 *    one does not move, CANCEL_ON_SET ones end with TEMPO_EVF_CLOCK_SET (and
 *    refuse re-arms until read). The wall clock is put back as it would
 *    have run.
 *  - a real suspend and resume (ACPI S3, woken by the RTC's alarm; on a
 *    KCSAN kernel, which cannot resume from S3, the kernel's own
 *    suspend and resume short of the platform's sleep, suspend_for()): a
 *    BOOTTIME timer due during the sleep fires right after resume, a
 *    MONOTONIC timer does not count the sleep, a REALTIME
 *    one the sleep passed fires, and a CANCEL_ON_SET one reports the change
 *    (a resume sets the wall clock forward by the time slept).
 *  - alarms (TEMPO_ARM_ALARM): their flags, records and fdinfo lines; a
 *    relative REALTIME alarm that follows a set of the wall clock; and an
 *    ACPI S3 suspend that nothing wakes but tempo's alarm, BOOTTIME and
 *    REALTIME, with the RTC's own alarm set far later as a bounded fallback
 *    that fails the case (alarm_suspend()). Not on a KCSAN kernel.
 *
 * Cases that need a namespace start a kid in one (tools/uapi-tests/kids.h); it
 * reports through its exit status (and its diagnostics on the shared
 * stdout). KTAP on stdout.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>

#include "common.h"
#include "kids.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME	0x00000080
#endif

#define SEC		1000000000ULL
#define DAY_S		86400LL
#define NS_MONO_S	(70 * DAY_S)	/* the namespace's offsets, s */
#define NS_BOOT_S	(71 * DAY_S)
#define HOUR		(3600 * SEC)
#define TIMENS_MS	60000	/* a kid in a time namespace, at most */

static uint64_t now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * SEC + ts.tv_nsec;
}

/* Wait up to @ms for a record; 1 if one was read into @ev, 0 if none came. */
static int read_within(int fd, struct tempo_event *ev, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, ms) != 1)
		return 0;
	return tempo_read_events(fd, ev, 1) == 1 ? 1 : -1;
}

/* One record within 5 s: a timer that does not fire fails a case, never hangs it. */
static int read_one(int fd, struct tempo_event *ev)
{
	return read_within(fd, ev, 5000) == 1 ? 0 : -1;
}

/*
 * Start @fn(@arg) in a kid in a new time namespace whose MONOTONIC and
 * BOOTTIME clocks are @mono_s and @boot_s seconds off the host's:
 * unshare(CLONE_NEWTIME) makes the namespace of the case's future children
 * (the case stays in the host's), the offsets are set, and the kid is
 * forked into it. TEST_PASS and the kid in @k, TEST_SKIP without time
 * namespaces, or TEST_FAIL.
 */
static int timens_start(long long mono_s, long long boot_s, kid_fn_t fn, void *arg,
			struct kid **k)
{
	char offs[96];
	int fd;

	if (unshare(CLONE_NEWTIME)) {
		if (errno == EINVAL)
			SKIP(return TEST_SKIP, "no time namespaces");
		test_diag("unshare(CLONE_NEWTIME): %s", strerror(errno));
		return TEST_FAIL;
	}
	fd = open("/proc/self/timens_offsets", O_WRONLY);
	snprintf(offs, sizeof(offs), "monotonic %lld 0\nboottime %lld 0\n", mono_s, boot_s);
	if (fd < 0 || write(fd, offs, strlen(offs)) != (ssize_t)strlen(offs)) {
		test_diag("cannot set the time namespace's offsets: %s", strerror(errno));
		return TEST_FAIL;
	}
	close(fd);
	*k = kid_start(KID_SAME_UID, fn, arg);
	ASSERT_TRUE(*k);
	return TEST_PASS;
}

/* @fn(@arg) in a time namespace @mono_s and @boot_s seconds off: its verdict. */
static int timens_run(long long mono_s, long long boot_s, kid_fn_t fn, void *arg)
{
	struct kid *k;
	int rc = timens_start(mono_s, boot_s, fn, arg, &k);

	return rc == TEST_PASS ? kid_finish(k, TIMENS_MS) : rc;
}

/* TEMPO_IOC_INFO's readings: each clock's, in the caller's namespace, one instant. */
static int check_info_clocks(int fd)
{
	uint64_t m0, b0, r0, m1, b1, r1;
	struct tempo_info in;

	m0 = now_ns(CLOCK_MONOTONIC);
	b0 = now_ns(CLOCK_BOOTTIME);
	r0 = now_ns(CLOCK_REALTIME);
	ASSERT_ERRNO(tempo_info(fd, &in), 0);
	m1 = now_ns(CLOCK_MONOTONIC);
	b1 = now_ns(CLOCK_BOOTTIME);
	r1 = now_ns(CLOCK_REALTIME);
	ASSERT_TRUE(in.features & TEMPO_FEAT_CLOCKS);
	EXPECT_GE(in.now_monotonic, m0);
	EXPECT_LE(in.now_monotonic, m1);
	EXPECT_GE(in.now_boottime, b0);
	EXPECT_LE(in.now_boottime, b1);
	/* REALTIME: no namespace; the same instant within the calls around it. */
	EXPECT_GE(in.now_realtime, r0 - (m1 - m0));
	EXPECT_LE(in.now_realtime, r1 + (m1 - m0));
	EXPECT_EQ(in.reserved, 0);
	return TEST_PASS;
}

static int test_info_clocks(void)
{
	int fd = tempo_open(0), ret;

	ASSERT_GE(fd, 0);
	ret = check_info_clocks(fd);
	close(fd);
	return ret;
}

/* TEMPO_IOC_INFO asked with the struct of a caller built before it grew. */
static int test_info_ver0(void)
{
	unsigned char buf[sizeof(struct tempo_info)];
	struct tempo_info *in = (struct tempo_info *)buf;
	int fd = tempo_open(0);

	ASSERT_GE(fd, 0);
	memset(buf, 0xa5, sizeof(buf));
	ASSERT_EQ(ioctl(fd, _IOC(_IOC_READ, TEMPO_IOC_MAGIC, 0, TEMPO_INFO_SIZE_VER0), buf), 0);
	EXPECT_EQ(in->version, TEMPO_ABI_VERSION);
	EXPECT_TRUE(in->max_user_bytes != 0xa5a5a5a5);
	/* Nothing written beyond the caller's struct. */
	EXPECT_EQ(in->now_monotonic, 0xa5a5a5a5a5a5a5a5ULL);
	EXPECT_EQ(in->reserved, 0xa5a5a5a5a5a5a5a5ULL);
	close(fd);
	return TEST_PASS;
}

/* ---- time namespaces ---- */

/* In a namespace 70 (MONOTONIC) and 71 (BOOTTIME) days ahead: everything in its clocks. */
static int ns_arm_query_read(void *unused)
{
	struct tempo_timer_query q[2] = {};
	uint64_t t0, t1, mabs, babs, ticket;
	struct tempo_event ev;
	uint64_t id[4];
	int fd, i, seen = 0;

	(void)unused;
	fd = tempo_open(0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(check_info_clocks(fd), TEST_PASS);
	t0 = now_ns(CLOCK_MONOTONIC);
	ASSERT_GT(t0, NS_MONO_S * SEC, "the namespace's MONOTONIC clock");
	mabs = t0 + 300 * MS;
	babs = now_ns(CLOCK_BOOTTIME) + 200 * MS;
	ASSERT_ERRNO(tempo_arm_one(fd, 1, mabs, 0, TEMPO_ARM_ABS, &id[0]), 0);
	ASSERT_ERRNO(tempo_arm_one(fd, 2, babs, 0, TEMPO_ARM_ABS | TEMPO_ARM_BOOTTIME, &id[1]), 0);
	ASSERT_ERRNO(tempo_arm_one(fd, 3, 100 * MS, 0, 0, &id[2]), 0);
	/* A deadline before the namespace's clock began: taken as that instant. */
	ASSERT_ERRNO(tempo_arm_one(fd, 4, 0, 0, TEMPO_ARM_ABS, &id[3]), 0);

	q[0].id = id[0];
	q[1].id = id[1];
	ASSERT_ERRNO(tempo_query(fd, q, 2, NULL), 0);
	EXPECT_EQ(q[0].state, TEMPO_TIMER_ARMED);
	EXPECT_EQ(q[0].deadline, mabs);
	EXPECT_TRUE(q[0].remaining > 0 && q[0].remaining <= 300 * MS,
		    "remaining %llu ns", (unsigned long long)q[0].remaining);
	EXPECT_EQ(q[1].deadline, babs);
	EXPECT_TRUE(q[1].remaining > 0 && q[1].remaining <= 200 * MS,
		    "remaining %llu ns", (unsigned long long)q[1].remaining);

	/* An ordered record: submitted and completed in the namespace's MONOTONIC. */
	ASSERT_ERRNO(tempo_ticket(fd, 0, &ticket), 0);
	ASSERT_ERRNO(tempo_submit(fd, ticket, 5, "x", 1), 0);

	for (i = 0; i < 5; i++) {
		ASSERT_EQ(read_one(fd, &ev), 0);
		t1 = now_ns(ev.flags & TEMPO_EVF_BOOTTIME ? CLOCK_BOOTTIME : CLOCK_MONOTONIC);
		EXPECT_LE(ev.time, t1, "record %llu", (unsigned long long)ev.cookie);
		EXPECT_GE(ev.time, ev.deadline, "record %llu", (unsigned long long)ev.cookie);
		if (ev.cookie != 4)
			EXPECT_LT(ev.time - ev.deadline, 5 * SEC, "record %llu",
				  (unsigned long long)ev.cookie);
		seen |= 1 << ev.cookie;
		switch (ev.cookie) {
		case 1:
			EXPECT_EQ(ev.deadline, mabs);
			EXPECT_EQ(ev.flags & (TEMPO_EVF_BOOTTIME | TEMPO_EVF_REALTIME), 0);
			break;
		case 2:
			EXPECT_EQ(ev.deadline, babs);
			EXPECT_TRUE(ev.flags & TEMPO_EVF_BOOTTIME);
			break;
		case 3:
			EXPECT_TRUE(ev.deadline >= t0 + 100 * MS && ev.deadline < t0 + SEC);
			break;
		case 4:
			EXPECT_EQ(ev.deadline, NS_MONO_S * SEC);
			break;
		case 5:
			EXPECT_EQ(ev.type, TEMPO_EV_ORDER);
			EXPECT_TRUE(ev.deadline >= t0 && ev.deadline <= t1);
			break;
		}
	}
	EXPECT_EQ(seen, 0x3e);
	close(fd);
	return TEST_PASS;
}

static int test_timens_own_clocks(void)
{
	return timens_run(NS_MONO_S, NS_BOOT_S, ns_arm_query_read, NULL);
}

/* What the two sides tell each other: a timer's id and the deadline it was armed with. */
struct armed {
	uint64_t id;
	uint64_t value;
	uint32_t flags;
};

/* Query timer @a->id of @fd and read its record: both must say @deadline. */
static int check_seen_as(int fd, const struct armed *a, uint64_t deadline)
{
	struct tempo_timer_query q = { .id = a->id };
	struct tempo_event ev;

	ASSERT_ERRNO(tempo_query(fd, &q, 1, NULL), 0);
	EXPECT_EQ(q.deadline, deadline);
	ASSERT_EQ(read_one(fd, &ev), 0);
	EXPECT_EQ(ev.id, a->id);
	EXPECT_EQ(ev.deadline, deadline);
	EXPECT_GE(ev.time, ev.deadline);
	return TEST_PASS;
}

static int passed_sock = -1, passed_fd = -1;

/*
 * Inside: arm on the file opened outside (inherited), open a file of its
 * own and pass it out; then check the timers the outside armed on it, in
 * this namespace's clocks.
 */
static int ns_passed_files(void *unused)
{
	struct armed a[2], b[2];
	int fd_in, i;

	(void)unused;
	fd_in = tempo_open(0);
	ASSERT_GE(fd_in, 0);
	ASSERT_ERRNO(send_fd(passed_sock, fd_in), 0);
	a[0] = (struct armed){ .value = now_ns(CLOCK_MONOTONIC) + 200 * MS, .flags = TEMPO_ARM_ABS };
	a[1] = (struct armed){ .value = now_ns(CLOCK_BOOTTIME) + 250 * MS,
			       .flags = TEMPO_ARM_ABS | TEMPO_ARM_BOOTTIME };
	for (i = 0; i < 2; i++)
		ASSERT_ERRNO(tempo_arm_one(passed_fd, i, a[i].value, 0, a[i].flags, &a[i].id), 0);
	ASSERT_EQ(write(passed_sock, a, sizeof(a)), (ssize_t)sizeof(a));
	ASSERT_EQ(read(passed_sock, b, sizeof(b)), (ssize_t)sizeof(b));
	ASSERT_EQ(check_seen_as(fd_in, &b[0], b[0].value + NS_MONO_S * SEC), TEST_PASS);
	ASSERT_EQ(check_seen_as(fd_in, &b[1], b[1].value + NS_BOOT_S * SEC), TEST_PASS);
	close(fd_in);
	return TEST_PASS;
}

static int test_timens_passed_files(void)
{
	int sv[2], fd_out, fd_in, i, ret;
	struct armed a[2], b[2];
	struct kid *k;

	fd_out = tempo_open(0);
	ASSERT_GE(fd_out, 0);
	ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	passed_sock = sv[1];
	passed_fd = fd_out;
	ret = timens_start(NS_MONO_S, NS_BOOT_S, ns_passed_files, NULL, &k);
	if (ret != TEST_PASS)
		return ret;
	close(sv[1]);
	fd_in = recv_fd(sv[0]);
	ASSERT_GE(fd_in, 0);
	/* The inside armed on our file in its clocks: we see the host's. */
	ASSERT_EQ(read(sv[0], a, sizeof(a)), (ssize_t)sizeof(a));
	EXPECT_EQ(check_seen_as(fd_out, &a[0], a[0].value - NS_MONO_S * SEC), TEST_PASS);
	EXPECT_EQ(check_seen_as(fd_out, &a[1], a[1].value - NS_BOOT_S * SEC), TEST_PASS);
	/* And we arm on its file in the host's clocks. */
	b[0] = (struct armed){ .value = now_ns(CLOCK_MONOTONIC) + 200 * MS, .flags = TEMPO_ARM_ABS };
	b[1] = (struct armed){ .value = now_ns(CLOCK_BOOTTIME) + 250 * MS,
			       .flags = TEMPO_ARM_ABS | TEMPO_ARM_BOOTTIME };
	for (i = 0; i < 2; i++)
		EXPECT_ERRNO(tempo_arm_one(fd_in, i, b[i].value, 0, b[i].flags, &b[i].id), 0);
	EXPECT_EQ(write(sv[0], b, sizeof(b)), (ssize_t)sizeof(b));
	ret = kid_finish(k, TIMENS_MS);
	close(sv[0]);
	close(fd_in);
	close(fd_out);
	return ret;
}

/*
 * A namespace whose MONOTONIC is behind the host's by all but 2 s of the
 * host's uptime: the host's deadline of 1 s, before the namespace's clock
 * began, reads as 0 there; its own times read as its clock does.
 */
static int behind_fd = -1;
static uint64_t behind_host_deadline;

static int ns_behind(void *unused)
{
	struct tempo_timer_query q = {};
	struct tempo_event ev;
	uint64_t id, t;

	(void)unused;
	t = now_ns(CLOCK_MONOTONIC);
	ASSERT_LT(t, 10 * SEC, "the namespace's MONOTONIC clock");
	/* The host's timer, armed on the inherited file, is due before our clock began. */
	ASSERT_EQ(read_one(behind_fd, &ev), 0);
	EXPECT_EQ(ev.deadline, 0, "host deadline %llu", (unsigned long long)behind_host_deadline);
	EXPECT_GE(ev.time, ev.deadline);
	/* Ours reads in our clock. */
	ASSERT_ERRNO(tempo_arm_one(behind_fd, 2, t + 100 * MS, 0, TEMPO_ARM_ABS, &id), 0);
	q.id = id;
	ASSERT_ERRNO(tempo_query(behind_fd, &q, 1, NULL), 0);
	EXPECT_EQ(q.deadline, t + 100 * MS);
	ASSERT_EQ(read_one(behind_fd, &ev), 0);
	EXPECT_EQ(ev.deadline, t + 100 * MS);
	return TEST_PASS;
}

static int test_timens_behind(void)
{
	uint64_t id, up = now_ns(CLOCK_MONOTONIC);
	long long off = -(long long)(up / SEC) + 2;
	int ret;

	behind_fd = tempo_open(0);
	ASSERT_GE(behind_fd, 0);
	ASSERT_GT(up, 5 * SEC);
	behind_host_deadline = SEC;
	ASSERT_ERRNO(tempo_arm_one(behind_fd, 1, behind_host_deadline, 0, TEMPO_ARM_ABS, &id), 0);
	ret = timens_run(off, 0, ns_behind, NULL);
	close(behind_fd);
	return ret;
}

/* ---- flags, re-arms across clocks, fdinfo ---- */

/* Clock flags that name no timer are refused, and the batch arms nothing. */
static int test_clock_flags_refused(void)
{
	static const uint32_t bad[] = {
		TEMPO_ARM_BOOTTIME | TEMPO_ARM_REALTIME,
		TEMPO_ARM_CANCEL_ON_SET,
		TEMPO_ARM_CANCEL_ON_SET | TEMPO_ARM_REALTIME,
		TEMPO_ARM_CANCEL_ON_SET | TEMPO_ARM_ABS,
		TEMPO_ARM_CANCEL_ON_SET | TEMPO_ARM_ABS | TEMPO_ARM_BOOTTIME,
		TEMPO_ARM_DEFERRABLE | TEMPO_ARM_BOOTTIME,
		TEMPO_ARM_DEFERRABLE | TEMPO_ARM_REALTIME,
		TEMPO_ARM_DEFERRABLE | TEMPO_ARM_REALTIME | TEMPO_ARM_ABS,
		TEMPO_ARM_DEFERRABLE | TEMPO_ARM_ABS | TEMPO_ARM_REALTIME | TEMPO_ARM_CANCEL_ON_SET,
		TEMPO_ARM_ALARM,
		TEMPO_ARM_ALARM | TEMPO_ARM_ABS,
		TEMPO_ARM_ALARM | TEMPO_ARM_BOOTTIME | TEMPO_ARM_REALTIME,
		TEMPO_ARM_ALARM | TEMPO_ARM_ABS | TEMPO_ARM_REALTIME | TEMPO_ARM_CANCEL_ON_SET,
		TEMPO_ARM_ALARM | TEMPO_ARM_DEFERRABLE,
		1U << 31,
	};
	struct tempo_timer_spec s[2];
	unsigned int i;
	int fd = tempo_open(0);

	ASSERT_GE(fd, 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(s, 0, sizeof(s));
		s[0].value = SEC;
		s[1].value = SEC;
		s[1].flags = bad[i];
		EXPECT_ERRNO(tempo_arm(fd, s, 2, NULL), -EINVAL, "flags %#x", bad[i]);
	}
	EXPECT_EQ(ctx_stats(fd).timers, 0);
	close(fd);
	return TEST_PASS;
}

/* A re-arm moves a timer between clocks; its record says which. */
static int test_rearm_across_clocks(void)
{
	struct tempo_timer_query q = {};
	struct tempo_event ev;
	uint64_t id, b;
	int fd = tempo_open(0);

	ASSERT_GE(fd, 0);
	ASSERT_ERRNO(tempo_arm_one(fd, 1, 10 * SEC, 0, 0, &id), 0);
	b = now_ns(CLOCK_BOOTTIME) + 20 * SEC;
	ASSERT_ERRNO(tempo_rearm(fd, id, 2, b, 0, TEMPO_ARM_ABS | TEMPO_ARM_BOOTTIME), 0);
	q.id = id;
	ASSERT_ERRNO(tempo_query(fd, &q, 1, NULL), 0);
	EXPECT_EQ(q.deadline, b);
	EXPECT_EQ(q.cookie, 2);
	ASSERT_ERRNO(tempo_rearm(fd, id, 3, now_ns(CLOCK_REALTIME) + HOUR, 0,
				 TEMPO_ARM_ABS | TEMPO_ARM_REALTIME | TEMPO_ARM_CANCEL_ON_SET), 0);
	ASSERT_ERRNO(tempo_rearm(fd, id, 4, 50 * MS, 0, TEMPO_ARM_REALTIME), 0);
	ASSERT_EQ(read_one(fd, &ev), 0);
	EXPECT_EQ(ev.id, id);
	EXPECT_EQ(ev.cookie, 4);
	EXPECT_EQ(ev.flags, TEMPO_EVF_FINAL | TEMPO_EVF_REALTIME);
	EXPECT_GE(ev.time, ev.deadline);
	EXPECT_LE(ev.time, now_ns(CLOCK_REALTIME));
	EXPECT_EQ(ctx_stats(fd).timers, 0);
	close(fd);
	return TEST_PASS;
}

/*
 * fdinfo, as timerfd's and io_uring's: the live timers per clock, the records
 * ready. "timers_realtime" counts every REALTIME timer without
 * CANCEL_ON_SET, relative ones too (their records say REALTIME), as they
 * come and go by arm, read, cancel and re-arm. Fails if: it counts the
 * absolute ones only (the queue of that clock), leaving out the relative
 * ones, which are MONOTONIC timers inside.
 */
static int test_fdinfo(void)
{
	uint64_t id, rel[2], mono, r = now_ns(CLOCK_REALTIME);
	struct tempo_event ev[4];
	int fd = tempo_open(O_NONBLOCK), i;

	ASSERT_GE(fd, 0);
	EXPECT_EQ(fdinfo_value(fd, "timers_realtime"), 0);
	for (i = 0; i < 2; i++)
		ASSERT_ERRNO(tempo_arm_one(fd, i, HOUR, 0, 0, &mono), 0);
	for (i = 0; i < 3; i++)
		ASSERT_ERRNO(tempo_arm_one(fd, i, HOUR, 0, TEMPO_ARM_BOOTTIME, &id), 0);
	ASSERT_ERRNO(tempo_arm_one(fd, 0, r + HOUR, 0, TEMPO_ARM_ABS | TEMPO_ARM_REALTIME, &id), 0);
	ASSERT_ERRNO(tempo_arm_one(fd, 0, r + HOUR, 0,
				   TEMPO_ARM_ABS | TEMPO_ARM_REALTIME | TEMPO_ARM_CANCEL_ON_SET, &id), 0);
	for (i = 0; i < 2; i++)
		ASSERT_ERRNO(tempo_arm_one(fd, 0, HOUR, 0, TEMPO_ARM_REALTIME, &rel[i]), 0);
	/* Due at once: one MONOTONIC, one BOOTTIME and one relative REALTIME record ready. */
	ASSERT_ERRNO(tempo_arm_one(fd, 9, 0, 0, 0, &id), 0);
	ASSERT_ERRNO(tempo_arm_one(fd, 9, 0, 0, TEMPO_ARM_BOOTTIME, &id), 0);
	ASSERT_ERRNO(tempo_arm_one(fd, 9, 0, 0, TEMPO_ARM_REALTIME, &id), 0);
	usleep(20000);
	EXPECT_EQ(fdinfo_value(fd, "timers"), 12);
	EXPECT_EQ(fdinfo_value(fd, "timers_boottime"), 4);
	EXPECT_EQ(fdinfo_value(fd, "timers_realtime"), 4);
	EXPECT_EQ(fdinfo_value(fd, "timers_realtime_cancel_on_set"), 1);
	EXPECT_EQ(fdinfo_value(fd, "timers_monotonic_deferrable"), 0);
	EXPECT_EQ(fdinfo_value(fd, "ready"), 3);
	EXPECT_EQ(ctx_stats(fd).events_ready, 3);
	/* The three read, one relative REALTIME cancelled, one re-armed MONOTONIC... */
	EXPECT_EQ(tempo_read_events(fd, ev, 4), 3);
	EXPECT_ERRNO(tempo_cancel_one(fd, rel[0]), 0);
	EXPECT_ERRNO(tempo_rearm(fd, rel[1], 0, HOUR, 0, 0), 0);
	EXPECT_EQ(fdinfo_value(fd, "timers"), 8);
	EXPECT_EQ(fdinfo_value(fd, "timers_realtime"), 1);
	/* ...and a MONOTONIC one re-armed relative REALTIME. */
	EXPECT_ERRNO(tempo_rearm(fd, mono, 0, HOUR, 0, TEMPO_ARM_REALTIME), 0);
	EXPECT_EQ(fdinfo_value(fd, "timers_realtime"), 2);
	EXPECT_EQ(fdinfo_value(fd, "ready"), 0);
	close(fd);
	return TEST_PASS;
}

/* ---- deferrable timers ---- */

/*
 * A deferrable timer: the feature bit; alone and with ABS it arms; its record
 * comes, never early, once the CPU that armed it runs it. A precise timer of
 * the same file 300 ms ahead wakes that CPU at the latest (the test VM's idle
 * CPUs wake now and then by themselves too), so the record comes within 5 s.
 */
static int test_deferrable(void)
{
	struct tempo_timer_query q = {};
	struct tempo_info in;
	struct tempo_event ev;
	uint64_t id, pid, t0, got = 0;
	int fd = tempo_open(0), i;

	ASSERT_GE(fd, 0);
	ASSERT_ERRNO(tempo_info(fd, &in), 0);
	EXPECT_TRUE(in.features & TEMPO_FEAT_DEFERRABLE);
	t0 = now_ns(CLOCK_MONOTONIC);
	ASSERT_ERRNO(tempo_arm_one(fd, 1, 50 * MS, 0, TEMPO_ARM_DEFERRABLE, &id), 0);
	ASSERT_ERRNO(tempo_arm_one(fd, 2, 300 * MS, 0, 0, &pid), 0);
	q.id = id;
	ASSERT_ERRNO(tempo_query(fd, &q, 1, NULL), 0);
	EXPECT_EQ(q.state, TEMPO_TIMER_ARMED);
	EXPECT_GE(q.deadline, t0 + 50 * MS);
	EXPECT_EQ(fdinfo_value(fd, "timers_monotonic_deferrable"), 1);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(read_one(fd, &ev), 0);
		EXPECT_EQ(ev.flags, TEMPO_EVF_FINAL);
		EXPECT_GE(ev.time, ev.deadline);
		got |= ev.cookie;
		if (ev.cookie == 1) {
			EXPECT_EQ(ev.id, id);
			EXPECT_GE(ev.deadline, t0 + 50 * MS);
		}
	}
	EXPECT_EQ(got, 3);
	EXPECT_EQ(ctx_stats(fd).timers, 0);

	/* ABS too, in the past: due at once (at the CPU's next tick). */
	ASSERT_ERRNO(tempo_arm_one(fd, 4, now_ns(CLOCK_MONOTONIC) - MS, 0,
				   TEMPO_ARM_DEFERRABLE | TEMPO_ARM_ABS, &id), 0);
	ASSERT_ERRNO(tempo_arm_one(fd, 5, 300 * MS, 0, 0, &pid), 0);
	for (i = 0, got = 0; i < 2; i++) {
		ASSERT_EQ(read_one(fd, &ev), 0);
		got |= ev.cookie;
	}
	EXPECT_EQ(got, 5);
	close(fd);
	return TEST_PASS;
}

/*
 * REARM carries the flag as it does a clock: a precise timer becomes
 * deferrable and back; a REARM with a bad combination is refused and leaves
 * the timer as it was; close() with deferrable timers armed (release shuts
 * the deferrable timer down) leaves nothing behind.
 */
static int test_deferrable_rearm(void)
{
	struct tempo_timer_spec s = {};
	struct tempo_timer_query q = {};
	struct tempo_event ev;
	uint64_t id, pid, d;
	int fd = tempo_open(0);

	ASSERT_GE(fd, 0);
	ASSERT_ERRNO(tempo_arm_one(fd, 1, 10 * SEC, 0, 0, &id), 0);
	d = now_ns(CLOCK_MONOTONIC) + 20 * SEC;
	ASSERT_ERRNO(tempo_rearm(fd, id, 2, d, 0, TEMPO_ARM_ABS | TEMPO_ARM_DEFERRABLE), 0);
	EXPECT_EQ(fdinfo_value(fd, "timers_monotonic_deferrable"), 1);
	s.id = id;
	s.cookie = 3;
	s.value = SEC;
	s.flags = TEMPO_ARM_REARM | TEMPO_ARM_DEFERRABLE | TEMPO_ARM_BOOTTIME;
	EXPECT_ERRNO(tempo_arm(fd, &s, 1, NULL), -EINVAL);
	q.id = id;
	ASSERT_ERRNO(tempo_query(fd, &q, 1, NULL), 0);
	EXPECT_EQ(q.deadline, d);
	EXPECT_EQ(q.cookie, 2);
	/* Deferrable, 40 ms; then precise again, 60 ms: its record says so. */
	ASSERT_ERRNO(tempo_rearm(fd, id, 4, 40 * MS, 0, TEMPO_ARM_DEFERRABLE), 0);
	ASSERT_ERRNO(tempo_rearm(fd, id, 5, 60 * MS, 0, 0), 0);
	EXPECT_EQ(fdinfo_value(fd, "timers_monotonic_deferrable"), 0);
	ASSERT_EQ(read_one(fd, &ev), 0);
	EXPECT_EQ(ev.id, id);
	EXPECT_EQ(ev.cookie, 5);
	EXPECT_GE(ev.time, ev.deadline);
	/* A periodic deferrable one, and close() while armed. */
	ASSERT_ERRNO(tempo_arm_one(fd, 6, 20 * MS, 20 * MS, TEMPO_ARM_DEFERRABLE, &id), 0);
	ASSERT_ERRNO(tempo_arm_one(fd, 7, 200 * MS, 0, 0, &pid), 0);
	ASSERT_EQ(read_one(fd, &ev), 0);
	EXPECT_GE(ev.time, ev.deadline);
	close(fd);
	return TEST_PASS;
}

/* ---- the wall clock set ---- */

/* Step CLOCK_REALTIME by @delta ns (as root). */
static int step_realtime(int64_t delta)
{
	struct timespec ts;
	uint64_t t = now_ns(CLOCK_REALTIME) + delta;

	ts.tv_sec = t / SEC;
	ts.tv_nsec = t % SEC;
	return clock_settime(CLOCK_REALTIME, &ts) ? -errno : 0;
}

/*
 * The wall clock as it would read had nobody set it: taken at the start of
 * a case, put back at its end.
 */
struct wall {
	uint64_t real, mono;
};

static struct wall wall_keep(void)
{
	return (struct wall){ .mono = now_ns(CLOCK_MONOTONIC), .real = now_ns(CLOCK_REALTIME) };
}

static void wall_restore(const struct wall *w)
{
	uint64_t t = w->real + (now_ns(CLOCK_MONOTONIC) - w->mono);
	struct timespec ts = { .tv_sec = t / SEC, .tv_nsec = t % SEC };

	if (clock_settime(CLOCK_REALTIME, &ts))
		test_diag("cannot put the wall clock back: %s", strerror(errno));
}


static int test_settime_forward(void)
{
	struct armed a[6];
	struct tempo_timer_query q = {};
	struct tempo_event ev;
	struct wall w = wall_keep();
	uint64_t r = now_ns(CLOCK_REALTIME), id;
	int fd = tempo_open(0), i, seen = 0, n, ret = TEST_FAIL;
	uint32_t rt = TEMPO_ARM_ABS | TEMPO_ARM_REALTIME;

	ASSERT_GE(fd, 0);
	a[0] = (struct armed){ .value = r + 2 * HOUR, .flags = rt };
	a[1] = (struct armed){ .value = r + 3 * HOUR, .flags = rt | TEMPO_ARM_CANCEL_ON_SET };
	a[2] = (struct armed){ .value = r + 1 * HOUR, .flags = rt };	/* periodic, 1 h */
	a[3] = (struct armed){ .value = 5 * HOUR, .flags = TEMPO_ARM_REALTIME };	/* relative */
	a[4] = (struct armed){ .value = r + 5 * HOUR, .flags = rt };	/* beyond the step */
	a[5] = (struct armed){ .value = r + 4 * HOUR, .flags = rt | TEMPO_ARM_CANCEL_ON_SET };
	for (i = 0; i < 6; i++)
		ASSERT_ERRNO(tempo_arm_one(fd, i, a[i].value, i == 2 ? HOUR : 0, a[i].flags,
					   &a[i].id), 0);
	/* Nothing before the step. */
	ASSERT_EQ(read_within(fd, &ev, 200), 0);

	ASSERT_ERRNO(step_realtime(4 * HOUR + 30 * SEC), 0);
	/* 0, 1 (ended), 2 (three periods passed) and 5 (ended) come at once. */
	for (n = 0; n < 4; n++) {
		if (read_within(fd, &ev, 2000) != 1)
			break;
		seen |= 1 << ev.cookie;
		EXPECT_TRUE(ev.flags & TEMPO_EVF_REALTIME, "record %llu", (unsigned long long)ev.cookie);
		/* Every deadline here, CANCEL_ON_SET ones too, is behind the clock stepped. */
		EXPECT_GE(ev.time, ev.deadline, "record %llu", (unsigned long long)ev.cookie);
		EXPECT_LE(ev.time, now_ns(CLOCK_REALTIME));
		switch (ev.cookie) {
		case 0:
			EXPECT_EQ(ev.deadline, a[0].value);
			EXPECT_EQ(ev.flags & (TEMPO_EVF_FINAL | TEMPO_EVF_CLOCK_SET), TEMPO_EVF_FINAL);
			break;
		case 2:
			EXPECT_EQ(ev.deadline, a[2].value);
			EXPECT_EQ(ev.overrun, 3);
			EXPECT_FALSE(ev.flags & TEMPO_EVF_FINAL);
			break;
		case 1:
		case 5:
			EXPECT_EQ(ev.deadline, a[ev.cookie].value);
			EXPECT_EQ(ev.flags & (TEMPO_EVF_FINAL | TEMPO_EVF_CLOCK_SET),
				  TEMPO_EVF_FINAL | TEMPO_EVF_CLOCK_SET);
			break;
		default:
			test_diag("record %llu came", (unsigned long long)ev.cookie);
			goto out;
		}
	}
	EXPECT_EQ(seen, 0x27, "records seen");
	/* The relative one did not move; the one beyond the step waits. */
	q.id = a[3].id;
	EXPECT_ERRNO(tempo_query(fd, &q, 1, NULL), 0);
	EXPECT_EQ(q.state, TEMPO_TIMER_ARMED);
	EXPECT_GT(q.remaining, 4 * HOUR);
	q.id = a[4].id;
	EXPECT_ERRNO(tempo_query(fd, &q, 1, NULL), 0);
	EXPECT_EQ(q.state, TEMPO_TIMER_ARMED);
	EXPECT_LT(q.remaining, HOUR);
	/* The periodic one goes on from its schedule: next at r + 5 h. */
	q.id = a[2].id;
	EXPECT_ERRNO(tempo_query(fd, &q, 1, NULL), 0);
	EXPECT_EQ(q.deadline, r + 5 * HOUR);
	/* CANCEL_ON_SET timers begin anew once the ended ones are read. */
	EXPECT_ERRNO(tempo_arm_one(fd, 9, now_ns(CLOCK_REALTIME) + HOUR, 0,
				   rt | TEMPO_ARM_CANCEL_ON_SET, &id), 0);
	ret = TEST_PASS;
out:
	wall_restore(&w);
	close(fd);
	return ret;
}

static int test_settime_back(void)
{
	struct tempo_timer_query q = {};
	struct tempo_event ev;
	struct wall w = wall_keep();
	uint64_t r = now_ns(CLOCK_REALTIME), id[3], t;
	uint32_t rt = TEMPO_ARM_ABS | TEMPO_ARM_REALTIME;
	int fd = tempo_open(0), ret = TEST_FAIL;

	ASSERT_GE(fd, 0);
	ASSERT_ERRNO(tempo_arm_one(fd, 0, r + 2 * SEC, 0, rt, &id[0]), 0);
	ASSERT_ERRNO(tempo_arm_one(fd, 1, r + HOUR, 0, rt | TEMPO_ARM_CANCEL_ON_SET, &id[1]), 0);
	ASSERT_ERRNO(tempo_arm_one(fd, 2, 2 * SEC, 0, 0, &id[2]), 0);	/* MONOTONIC */
	ASSERT_ERRNO(step_realtime(-2 * (int64_t)HOUR), 0);
	/* The set ends the CANCEL_ON_SET one at once... */
	if (read_within(fd, &ev, 2000) != 1 || ev.cookie != 1) {
		test_diag("no CANCEL_ON_SET record");
		goto out;
	}
	EXPECT_EQ(ev.flags & (TEMPO_EVF_FINAL | TEMPO_EVF_CLOCK_SET),
		  TEMPO_EVF_FINAL | TEMPO_EVF_CLOCK_SET);
	/* ...and delays the REALTIME one by two hours: the MONOTONIC one comes first. */
	if (read_within(fd, &ev, 4000) != 1 || ev.cookie != 2) {
		test_diag("the MONOTONIC record did not come first (cookie %llu)",
			  (unsigned long long)ev.cookie);
		goto out;
	}
	q.id = id[0];
	EXPECT_ERRNO(tempo_query(fd, &q, 1, NULL), 0);
	EXPECT_EQ(q.state, TEMPO_TIMER_ARMED);
	EXPECT_GT(q.remaining, HOUR);
	/* A REALTIME timer armed now, after the step, fires by the clock as it is. */
	t = now_ns(CLOCK_REALTIME) + 300 * MS;
	EXPECT_ERRNO(tempo_arm_one(fd, 3, t, 0, rt, &id[2]), 0);
	if (read_within(fd, &ev, 3000) != 1 || ev.cookie != 3) {
		test_diag("the REALTIME timer armed after the step did not fire");
		goto out;
	}
	EXPECT_GE(ev.time, t);
	EXPECT_LE(ev.time, now_ns(CLOCK_REALTIME));
	/* Forward again: the two hours given back, the first one fires. */
	ASSERT_ERRNO(step_realtime(2 * HOUR), 0);
	if (read_within(fd, &ev, 2000) != 1 || ev.cookie != 0) {
		test_diag("the REALTIME timer did not fire when the clock came back");
		goto out;
	}
	EXPECT_EQ(ev.deadline, r + 2 * SEC);
	EXPECT_GE(ev.time, ev.deadline);
	ret = TEST_PASS;
out:
	wall_restore(&w);
	close(fd);
	return ret;
}

/*
 * A CANCEL_ON_SET timer a set ended is refused a re-arm (ECANCELED) while
 * its record waits; once its record is read, or the timer cancelled, its id
 * names nothing, as any timer's that is gone: query, cancel and re-arm (into
 * any clock) all say ENOENT. Fails if: a re-arm of the released id finds
 * the slot's old, ended generation and says ECANCELED.
 */
static int test_cos_released_id_enoent(void)
{
	uint32_t cos = TEMPO_ARM_ABS | TEMPO_ARM_REALTIME | TEMPO_ARM_CANCEL_ON_SET;
	struct tempo_timer_query q = {};
	struct wall w = wall_keep();
	struct tempo_event ev;
	uint64_t id[2], r = now_ns(CLOCK_REALTIME);
	int fd = tempo_open(0), ret = TEST_FAIL, i;

	ASSERT_GE(fd, 0);
	for (i = 0; i < 2; i++)
		ASSERT_ERRNO(tempo_arm_one(fd, i, r + HOUR, 0, cos, &id[i]), 0);
	if (step_realtime(SEC) || wait_ready(fd, 2, 3000)) {
		test_diag("the set did not end the CANCEL_ON_SET timers");
		goto out;
	}
	EXPECT_ERRNO(tempo_rearm(fd, id[0], 0, r + 2 * HOUR, 0, cos), -ECANCELED);
	EXPECT_ERRNO(tempo_cancel_one(fd, id[1]), 0);	/* its record withdrawn */
	if (read_one(fd, &ev)) {
		test_diag("no CLOCK_SET record");
		goto out;
	}
	EXPECT_EQ(ev.id, id[0]);
	EXPECT_EQ(ev.flags & (TEMPO_EVF_FINAL | TEMPO_EVF_CLOCK_SET),
		  TEMPO_EVF_FINAL | TEMPO_EVF_CLOCK_SET);
	for (i = 0; i < 2; i++) {
		q.id = id[i];
		EXPECT_ERRNO(tempo_query(fd, &q, 1, NULL), -ENOENT, "timer %d", i);
		EXPECT_ERRNO(tempo_rearm(fd, id[i], 0, now_ns(CLOCK_REALTIME) + HOUR, 0, cos),
			     -ENOENT, "timer %d, re-armed CANCEL_ON_SET", i);
		EXPECT_ERRNO(tempo_rearm(fd, id[i], 0, HOUR, 0, 0), -ENOENT,
			     "timer %d, re-armed MONOTONIC", i);
		EXPECT_ERRNO(tempo_cancel_one(fd, id[i]), -ENOENT, "timer %d", i);
	}
	EXPECT_EQ(ctx_stats(fd).timers, 0);
	/* The ended ones gone, CANCEL_ON_SET timers begin anew. */
	EXPECT_ERRNO(tempo_arm_one(fd, 9, now_ns(CLOCK_REALTIME) + HOUR, 0, cos, &id[0]), 0);
	ret = TEST_PASS;
out:
	wall_restore(&w);
	close(fd);
	return ret;
}

/*
 * poll() reports POLLIN only while read() would return a record: a
 * BOOTTIME timer cancelled before its deadline leaves the file unreadable
 * at that deadline (a later one's record then comes at its own), and so
 * does a CANCEL_ON_SET timer that a set ended and that was cancelled
 * before its record was read. Fails if: the clock queue's stand-in on the
 * event queue stays where the cancelled timer put it (poll() says POLLIN
 * at the old deadline, or at once for the ended timer, and a non-blocking
 * read() says EAGAIN: a blocking one would sleep).
 */
static int test_cancel_leaves_nothing_readable(void)
{
	uint32_t cos = TEMPO_ARM_ABS | TEMPO_ARM_REALTIME | TEMPO_ARM_CANCEL_ON_SET;
	struct pollfd p = { .events = POLLIN };
	struct wall w = wall_keep();
	struct tempo_event ev;
	uint64_t id, later;
	int fd = tempo_open(O_NONBLOCK), ret = TEST_FAIL, n;

	ASSERT_GE(fd, 0);
	p.fd = fd;
	ASSERT_ERRNO(tempo_arm_one(fd, 1, 50 * MS, 0, TEMPO_ARM_BOOTTIME, &id), 0);
	ASSERT_ERRNO(tempo_arm_one(fd, 2, 600 * MS, 0, TEMPO_ARM_BOOTTIME, &later), 0);
	ASSERT_ERRNO(tempo_cancel_one(fd, id), 0);
	n = poll(&p, 1, 300);
	EXPECT_EQ(n, 0, "BOOTTIME timer cancelled: poll() says %#x", p.revents);
	EXPECT_EQ(tempo_read_events(fd, &ev, 1), -EAGAIN);
	EXPECT_EQ(poll(&p, 1, 3000), 1, "the later BOOTTIME timer's record");
	EXPECT_EQ(tempo_read_events(fd, &ev, 1), 1);
	EXPECT_EQ(ev.id, later);

	ASSERT_ERRNO(tempo_arm_one(fd, 3, now_ns(CLOCK_REALTIME) + HOUR, 0, cos, &id), 0);
	if (step_realtime(SEC) || poll(&p, 1, 3000) != 1) {
		test_diag("the set did not end the CANCEL_ON_SET timer");
		goto out;
	}
	EXPECT_ERRNO(tempo_cancel_one(fd, id), 0);
	n = poll(&p, 1, 0);
	EXPECT_EQ(n, 0, "ended CANCEL_ON_SET timer cancelled: poll() says %#x", p.revents);
	EXPECT_EQ(tempo_read_events(fd, &ev, 1), -EAGAIN);
	EXPECT_EQ(fdinfo_value(fd, "ready"), 0);
	ret = TEST_PASS;
out:
	wall_restore(&w);
	close(fd);
	return ret;
}

/*
 * Cancel by cookie across clocks, past one critical section's worth of
 * timers: 70 timers with cookie 7, due in 200 ms, in turn MONOTONIC,
 * BOOTTIME, relative REALTIME and absolute REALTIME, among timers with
 * cookie 8 due later (one per clock, BOOTTIME's in 1 s). One cancel
 * takes every cookie-7 timer and none of the others; the counts per clock
 * follow; and nothing is readable before the BOOTTIME cookie-8 timer's
 * deadline, whose record then comes. Fails if: a chunk of the cancel after
 * the first misses timers, or a clock's stand-in on the event queue stays
 * where the cancelled timers put it (poll() says POLLIN at 200 ms and a
 * read() says EAGAIN), or the relative REALTIME count keeps them.
 */
static int test_cancel_cookie_across_clocks(void)
{
	static const uint32_t flags[] = {
		0, TEMPO_ARM_BOOTTIME, TEMPO_ARM_REALTIME, TEMPO_ARM_ABS | TEMPO_ARM_REALTIME,
	};
	struct pollfd p = { .events = POLLIN };
	uint64_t id, later, cookie = 7, v;
	struct tempo_batch b;
	struct tempo_event ev;
	int fd = tempo_open(O_NONBLOCK), i;

	ASSERT_GE(fd, 0);
	p.fd = fd;
	for (i = 0; i < 4; i++) {
		v = flags[i] & TEMPO_ARM_ABS ? now_ns(CLOCK_REALTIME) + HOUR : HOUR;
		ASSERT_ERRNO(tempo_arm_one(fd, 8, v, 0, flags[i], &id), 0);
	}
	ASSERT_ERRNO(tempo_arm_one(fd, 8, SEC, 0, TEMPO_ARM_BOOTTIME, &later), 0);
	for (i = 0; i < 70; i++) {
		v = flags[i % 4] & TEMPO_ARM_ABS ? now_ns(CLOCK_REALTIME) + 200 * MS : 200 * MS;
		ASSERT_ERRNO(tempo_arm_one(fd, 7, v, 0, flags[i % 4], &id), 0);
	}
	EXPECT_EQ(fdinfo_value(fd, "timers"), 75);
	EXPECT_EQ(fdinfo_value(fd, "timers_boottime"), 20);
	EXPECT_EQ(fdinfo_value(fd, "timers_realtime"), 36);
	ASSERT_ERRNO(tempo_cancel(fd, &cookie, 1, TEMPO_CANCEL_COOKIE, &b), 0);
	EXPECT_TRUE(b.done == 1 && b.affected == 70, "done %u affected %u", b.done,
		    b.affected);
	EXPECT_EQ(fdinfo_value(fd, "timers"), 5);
	EXPECT_EQ(fdinfo_value(fd, "timers_boottime"), 2);
	EXPECT_EQ(fdinfo_value(fd, "timers_realtime"), 2);
	EXPECT_EQ(poll(&p, 1, 500), 0, "all cancelled: poll() says %#x", p.revents);
	EXPECT_EQ(tempo_read_events(fd, &ev, 1), -EAGAIN);
	EXPECT_EQ(poll(&p, 1, 3000), 1, "the later BOOTTIME timer's record");
	EXPECT_EQ(tempo_read_events(fd, &ev, 1), 1);
	EXPECT_EQ(ev.id, later);
	close(fd);
	return TEST_PASS;
}

#define PR_SETS_US	2000	/* the setter's pause between sets of the wall clock */
#define PR_RUN_MS	2000	/* the case's loop */
#define PR_READ_S	1	/* the longest a read() after POLLIN may sleep */

static atomic_bool pr_stop;

/* Set CLOCK_REALTIME to its own reading, every PR_SETS_US, until told to stop. */
static void *pr_setter(void *unused)
{
	struct timespec ts;

	(void)unused;
	while (!atomic_load(&pr_stop)) {
		clock_gettime(CLOCK_REALTIME, &ts);
		clock_settime(CLOCK_REALTIME, &ts);
		usleep(PR_SETS_US);
	}
	return NULL;
}

static void pr_alarm(int sig)
{
	(void)sig;
}

/*
 * POLLIN, then a blocking read(), never sleeps, while sets of the wall clock
 * race the re-arms: a thread sets CLOCK_REALTIME to its own reading every
 * 2 ms (each set moves REALTIME's offset by the time the call takes, and
 * ends the file's CANCEL_ON_SET timers), while the case, for 2 s, arms a
 * CANCEL_ON_SET timer an hour ahead, re-arms it a few times (ECANCELED once
 * a set ended it), cancels it or keeps it, and polls: POLLIN must be
 * followed by a read() of the kept timer's CLOCK_SET record within 1 s
 * (SIGALRM ends a read that sleeps, and the case fails), and after a
 * cancel nothing may be readable. Fails if: a cancelled timer's record
 * leaves the file polling readable (a read() after POLLIN sleeps until
 * something else fires).
 */
static int test_poll_then_read_never_sleeps(void)
{
	uint32_t cos = TEMPO_ARM_ABS | TEMPO_ARM_REALTIME | TEMPO_ARM_CANCEL_ON_SET;
	struct sigaction sa = { .sa_handler = pr_alarm };	/* no SA_RESTART */
	struct pollfd p = { .events = POLLIN };
	unsigned int loops = 0, kept = 0, records = 0, empty = 0, refused = 0, seed = 1;
	struct wall w = wall_keep();
	struct tempo_event ev;
	uint64_t id, end;
	pthread_t setter;
	int fd = tempo_open(0), i, err, n;
	bool keep;

	ASSERT_GE(fd, 0);
	p.fd = fd;
	ASSERT_EQ(sigaction(SIGALRM, &sa, NULL), 0);
	atomic_store(&pr_stop, false);
	ASSERT_EQ(pthread_create(&setter, NULL, pr_setter, NULL), 0);
	end = now_ns(CLOCK_MONOTONIC) + PR_RUN_MS * MS;
	while (now_ns(CLOCK_MONOTONIC) < end) {
		loops++;
		err = tempo_arm_one(fd, loops, now_ns(CLOCK_REALTIME) + HOUR, 0, cos, &id);
		if (err) {
			test_diag("loop %u: arm: %s", loops, strerror(-err));
			empty++;
			break;
		}
		seed = seed * 1103515245 + 12345;
		for (i = 0; i < (int)(seed >> 16) % 4; i++) {
			err = tempo_rearm(fd, id, loops, now_ns(CLOCK_REALTIME) + HOUR, 0, cos);
			refused += err == -ECANCELED;
			EXPECT_TRUE(!err || err == -ECANCELED, "re-arm: %s", strerror(-err));
		}
		keep = (seed >> 20) & 1;
		if (!keep)
			EXPECT_ERRNO(tempo_cancel_one(fd, id), 0);
		kept += keep;
		n = poll(&p, 1, keep ? 50 : 0);
		if (n == 1) {
			alarm(PR_READ_S);
			n = tempo_read_events(fd, &ev, 1);
			alarm(0);
			if (n != 1 || !keep || ev.id != id) {
				test_diag("loop %u (timer %s): POLLIN, then read() gave %d%s", loops,
					  keep ? "kept" : "cancelled", n,
					  n == -EINTR ? " after sleeping 1 s" : "");
				empty++;
			} else {
				records++;
			}
		}
		/* A kept timer no set ended within the poll: cancelled now. */
		if (keep && n != 1) {
			err = tempo_cancel_one(fd, id);
			if (!err) {
				n = poll(&p, 1, 0);
				EXPECT_EQ(n, 0, "loop %u: cancelled, still POLLIN", loops);
			} else if (tempo_read_events(fd, &ev, 1) != 1) {
				empty++;
			}
		}
	}
	atomic_store(&pr_stop, true);
	pthread_join(setter, NULL);
	wall_restore(&w);
	test_diag("%u loops, %u timers kept, %u CLOCK_SET records read, %u re-arms refused, %u empty POLLINs",
		  loops, kept, records, refused, empty);
	close(fd);
	EXPECT_GT(records, 0);
	EXPECT_EQ(empty, 0);
	return TEST_PASS;
}

/* ---- suspend and resume ---- */

/*
 * Can this kernel come back from ACPI S3? Not a KCSAN one: the resume's
 * first C function, restore_processor_state() (arch/x86/power/cpu.c, which
 * its Makefile does not exempt from KCSAN, as of 6.1, 6.12 and 7.2), opens
 * with __tsan_func_entry(), which with KCSAN_WEAK_MEMORY reads current_task
 * through the GS base that function is about to restore, still 0: a page
 * fault at the per-CPU offset (CR2 0x1aec0 on 6.1) before any IDT, then a
 * triple fault, and QEMU resets the guest (seen with -d int,cpu_reset).
 * s2idle is no way out: under QEMU the RTC's alarm did not wake it (for
 * s2idle rtc-cmos arms ACPI's RTC event, which QEMU raises only to wake a
 * machine from S3).
 */
static bool s3_resumes(void)
{
	return access("/sys/kernel/debug/kcsan", F_OK) != 0;
}

/*
 * Suspend to RAM and come back @secs later. Returns the time slept as
 * MONOTONIC did not count it (BOOTTIME's gain over it), or -errno.
 *
 * Where S3 resumes: ACPI S3 ("deep"), woken by the RTC's alarm. Elsewhere
 * the closest real path, /sys/power/pm_test "core": tasks frozen, devices
 * suspended, the other CPUs taken down and the syscore suspend and resume,
 * timekeeping's among them, all for real, with the platform's sleep
 * replaced by a wait of pm_test_delay seconds with interrupts off; resume
 * then sets BOOTTIME and REALTIME forward by the RTC's time across it, as
 * after S3.
 */
static int64_t suspend_for(int secs)
{
	bool s3 = s3_resumes();
	uint64_t m0, b0, m1, b1;
	char s[16];
	int err;

	snprintf(s, sizeof(s), "%s%d", s3 ? "+" : "", secs);
	if (s3) {
		write_file("/sys/class/rtc/rtc0/wakealarm", "0");
		err = write_file("/sys/class/rtc/rtc0/wakealarm", s);
	} else {
		test_diag("KCSAN kernel, whose S3 resume cannot work: pm_test core instead");
		err = write_file("/sys/module/suspend/parameters/pm_test_delay", s);
		if (!err)
			err = write_file("/sys/power/pm_test", "core");
	}
	if (err)
		return err;
	write_file("/sys/power/mem_sleep", "deep");
	m0 = now_ns(CLOCK_MONOTONIC);
	b0 = now_ns(CLOCK_BOOTTIME);
	err = write_file("/sys/power/state", "mem");
	m1 = now_ns(CLOCK_MONOTONIC);
	b1 = now_ns(CLOCK_BOOTTIME);
	if (!s3)
		write_file("/sys/power/pm_test", "none");
	if (err)
		return err;
	return (int64_t)((b1 - b0) - (m1 - m0));
}

/*
 * The MONOTONIC timer's delay: longer than a loaded TCG host takes to suspend
 * and resume the VM (4.5 s seen), so that only a clock that counts the sleep
 * (about 8 s) reaches it before the others' records are read.
 */
#define MONO_AFTER	(10 * SEC)
#define SUSPEND_TRIES	3

static int test_suspend_resume(void)
{
	struct tempo_timer_query q = {};
	struct tempo_event ev;
	uint64_t id[4], b1, m0, r;
	uint32_t rt = TEMPO_ARM_ABS | TEMPO_ARM_REALTIME;
	int fd, i, try, seen = 0;
	int64_t slept;

	if (access("/sys/power/state", W_OK) ||
	    (s3_resumes() ? access("/sys/class/rtc/rtc0/wakealarm", W_OK) :
			    access("/sys/power/pm_test", W_OK)))
		SKIP(return TEST_SKIP, "no suspend, or no way to wake from it, in this kernel");
	/*
	 * Only if MONOTONIC did not reach the deadlines either can the
	 * contrast show: a resume slower than that (a TCG resume has taken
	 * 12 s, with "hpet: Lost 191 RTC interrupts") cannot judge the case,
	 * and it starts again, at most SUSPEND_TRIES times.
	 */
	for (try = 1;; try++) {
		fd = tempo_open(0);
		ASSERT_GE(fd, 0);
		r = now_ns(CLOCK_REALTIME);
		m0 = now_ns(CLOCK_MONOTONIC);
		ASSERT_ERRNO(tempo_arm_one(fd, 0, 4 * SEC, 0, TEMPO_ARM_BOOTTIME, &id[0]), 0);
		ASSERT_ERRNO(tempo_arm_one(fd, 1, MONO_AFTER, 0, 0, &id[1]), 0);
		ASSERT_ERRNO(tempo_arm_one(fd, 2, r + 4 * SEC, 0, rt, &id[2]), 0);
		ASSERT_ERRNO(tempo_arm_one(fd, 3, r + HOUR, 0, rt | TEMPO_ARM_CANCEL_ON_SET,
					   &id[3]), 0);

		slept = suspend_for(9);
		ASSERT_GE(slept, 0, "suspend: %s", slept < 0 ? strerror((int)-slept) : "");
		b1 = now_ns(CLOCK_BOOTTIME);
		test_diag("slept %lld ms; MONOTONIC %llu ms since the arms",
			  (long long)slept / 1000000,
			  (unsigned long long)(now_ns(CLOCK_MONOTONIC) - m0) / MS);
		ASSERT_GT(slept, 4 * SEC, "the machine did not sleep through the deadlines");
		if (now_ns(CLOCK_MONOTONIC) - m0 < MONO_AFTER - SEC)
			break;
		ASSERT_LT(try, SUSPEND_TRIES, "every resume outran the MONOTONIC deadline");
		close(fd);
	}

	/* BOOTTIME, REALTIME and CANCEL_ON_SET: right after resume. */
	for (i = 0; i < 3; i++) {
		if (read_within(fd, &ev, 3000) != 1)
			break;
		seen |= 1 << ev.cookie;
		if (!(ev.flags & TEMPO_EVF_CLOCK_SET))
			EXPECT_GE(ev.time, ev.deadline, "record %llu",
				  (unsigned long long)ev.cookie);
		if (ev.cookie == 0) {
			EXPECT_TRUE(ev.flags & TEMPO_EVF_BOOTTIME);
			EXPECT_LT(ev.time, b1 + 3000 * MS, "BOOTTIME fired late after resume");
		}
		if (ev.cookie == 3)
			EXPECT_TRUE(ev.flags & TEMPO_EVF_CLOCK_SET);
	}
	EXPECT_EQ(seen, 0xd, "records right after resume");
	/* MONOTONIC did not count the sleep: still armed, then on its own deadline. */
	q.id = id[1];
	EXPECT_ERRNO(tempo_query(fd, &q, 1, NULL), 0);
	EXPECT_EQ(q.state, TEMPO_TIMER_ARMED);
	EXPECT_GT(q.remaining, 0);
	ASSERT_EQ(read_within(fd, &ev, MONO_AFTER / MS + 2000), 1);
	EXPECT_EQ(ev.cookie, 1);
	EXPECT_GE(now_ns(CLOCK_MONOTONIC), m0 + MONO_AFTER);
	close(fd);
	return TEST_PASS;
}

/* ---- alarms ---- */

/* Does this kernel offer alarms (an RTC the kernel wakes the machine with)? */
static bool alarms_offered(void)
{
	struct tempo_info in;
	int fd = tempo_open(0), err;

	if (fd < 0)
		return false;
	err = tempo_info(fd, &in);
	close(fd);
	return !err && (in.features & TEMPO_FEAT_ALARM);
}

/*
 * How late an alarm's record may come while the machine runs, in these
 * tests: far above its bound ("tempo timer time bounds",
 * include/tempo/timer.h), which a loaded TCG host stretches to tens of
 * milliseconds, and far below a timer served late by a coarse slot or a
 * missed wake-up.
 */
#define ALARM_LATE_MAX	(100 * MS)

/*
 * Read one alarm's record, on time: never early, and read less than
 * ALARM_LATE_MAX after its deadline, or after the read began if that is
 * later (a slow kernel, KCSAN's, may still be arming when the deadline
 * passes). 0, or -1 without a record within 5 s.
 */
static int read_alarm_on_time(int fd, struct tempo_event *ev)
{
	uint64_t b0 = now_ns(CLOCK_BOOTTIME), r0 = now_ns(CLOCK_REALTIME), t, from;
	bool real;

	if (read_one(fd, ev))
		return -1;
	real = ev->flags & TEMPO_EVF_REALTIME;
	t = now_ns(real ? CLOCK_REALTIME : CLOCK_BOOTTIME);
	from = real ? r0 : b0;
	if (from < ev->deadline)
		from = ev->deadline;
	EXPECT_GE(ev->time, ev->deadline, "record %llu", (unsigned long long)ev->cookie);
	EXPECT_LT(t, from + ALARM_LATE_MAX, "record %llu read %lld ms late, %lld ms after the read began",
		  (unsigned long long)ev->cookie,
		  ((long long)t - (long long)ev->deadline) / (long long)MS,
		  ((long long)t - (long long)(real ? r0 : b0)) / (long long)MS);
	return 0;
}

/*
 * Alarm timers while the machine runs: BOOTTIME and REALTIME ones, absolute
 * and relative, arm, show in fdinfo under their clocks, and fire as their
 * clocks' timers do, on time (read_alarm_on_time()); a re-arm moves one to
 * a plain clock and back. Fails if: an alarm's record is not flagged in its clock, or reaches
 * its reader late, or fdinfo does not count the alarms apart.
 */
static int test_alarm_timers(void)
{
	const uint32_t boot = TEMPO_ARM_BOOTTIME | TEMPO_ARM_ALARM;
	const uint32_t real = TEMPO_ARM_REALTIME | TEMPO_ARM_ALARM;
	struct tempo_timer_query q = {};
	uint64_t id[4], r = now_ns(CLOCK_REALTIME);
	struct tempo_event ev;
	int fd, i, seen = 0;

	if (!alarms_offered())
		SKIP(return TEST_SKIP, "no alarms: no RTC the kernel wakes the machine with");
	fd = tempo_open(0);
	ASSERT_GE(fd, 0);
	ASSERT_ERRNO(tempo_arm_one(fd, 0, 30 * MS, 0, boot, &id[0]), 0);
	ASSERT_ERRNO(tempo_arm_one(fd, 1, now_ns(CLOCK_BOOTTIME) + 40 * MS, 0,
				   boot | TEMPO_ARM_ABS, &id[1]), 0);
	ASSERT_ERRNO(tempo_arm_one(fd, 2, 50 * MS, 0, real, &id[2]), 0);
	ASSERT_ERRNO(tempo_arm_one(fd, 3, r + 60 * MS, 0, real | TEMPO_ARM_ABS, &id[3]), 0);
	EXPECT_EQ(fdinfo_value(fd, "timers_boottime_alarm"), 2);
	EXPECT_EQ(fdinfo_value(fd, "timers_realtime_alarm"), 2);
	EXPECT_EQ(fdinfo_value(fd, "timers_boottime"), 0);
	/* The relative REALTIME alarm: a REALTIME deadline from the arm's reading. */
	q.id = id[2];
	ASSERT_ERRNO(tempo_query(fd, &q, 1, NULL), 0);
	EXPECT_GE(q.deadline, r + 50 * MS);
	EXPECT_LT(q.deadline, now_ns(CLOCK_REALTIME) + 50 * MS + 1);
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(read_alarm_on_time(fd, &ev), 0);
		seen |= 1 << ev.cookie;
		EXPECT_EQ(ev.flags, TEMPO_EVF_FINAL | (ev.cookie < 2 ? TEMPO_EVF_BOOTTIME :
							 TEMPO_EVF_REALTIME));
	}
	EXPECT_EQ(seen, 0xf);
	/* Across clocks by re-arm: an alarm, a plain BOOTTIME timer, an alarm again. */
	ASSERT_ERRNO(tempo_arm_one(fd, 5, HOUR, 0, boot, &id[0]), 0);
	ASSERT_ERRNO(tempo_rearm(fd, id[0], 6, HOUR, 0, TEMPO_ARM_BOOTTIME), 0);
	EXPECT_EQ(fdinfo_value(fd, "timers_boottime_alarm"), 0);
	EXPECT_EQ(fdinfo_value(fd, "timers_boottime"), 1);
	ASSERT_ERRNO(tempo_rearm(fd, id[0], 7, 20 * MS, 0, real), 0);
	EXPECT_EQ(fdinfo_value(fd, "timers_realtime_alarm"), 1);
	ASSERT_EQ(read_alarm_on_time(fd, &ev), 0);
	EXPECT_EQ(ev.cookie, 7);
	EXPECT_EQ(ev.flags, TEMPO_EVF_FINAL | TEMPO_EVF_REALTIME);
	EXPECT_EQ(ctx_stats(fd).timers, 0);
	close(fd);
	return TEST_PASS;
}

/*
 * A relative REALTIME alarm is an absolute one from the arm's reading, as
 * timerfd's CLOCK_REALTIME_ALARM: a set of the wall clock past it fires it,
 * where a relative REALTIME timer without the flag keeps its delay. Fails
 * if: the relative alarm is made a MONOTONIC timer (it does not fire).
 */
static int test_alarm_realtime_relative_follows_set(void)
{
	struct wall w = wall_keep();
	struct tempo_event ev;
	uint64_t id, plain;
	int fd, ret = TEST_PASS;

	if (!alarms_offered())
		SKIP(return TEST_SKIP, "no alarms: no RTC the kernel wakes the machine with");
	fd = tempo_open(0);
	ASSERT_GE(fd, 0);
	ASSERT_ERRNO(tempo_arm_one(fd, 1, HOUR, 0, TEMPO_ARM_REALTIME | TEMPO_ARM_ALARM, &id), 0);
	ASSERT_ERRNO(tempo_arm_one(fd, 2, HOUR, 0, TEMPO_ARM_REALTIME, &plain), 0);
	ASSERT_ERRNO(step_realtime(2 * HOUR), 0);
	if (read_within(fd, &ev, 5000) != 1 || ev.cookie != 1) {
		test_diag("the relative REALTIME alarm did not fire when the clock passed it");
		ret = TEST_FAIL;
	} else {
		EXPECT_GE(ev.time, ev.deadline);
		EXPECT_EQ(ev.flags, TEMPO_EVF_FINAL | TEMPO_EVF_REALTIME);
	}
	EXPECT_EQ(read_within(fd, &ev, 300), 0, "the plain relative one kept its delay");
	wall_restore(&w);
	close(fd);
	return ret;
}

/*
 * The last grain of a coarse slot (2^32 ns, a level-2 slot of the delay
 * queue's cascade) 6 s or more after @t, as a deadline: where an alarm aimed
 * at a bound would stand furthest early, 4.3 s.
 */
static uint64_t alarm_deadline(uint64_t t)
{
	return ((((t + 6 * SEC) >> 32) + 1) << 32) - (1ULL << 20);
}

#define ALARM_FALLBACK_S	45	/* the RTC's own alarm: the case fails if it is what woke */

/*
 * Suspend to RAM with one alarm armed in the clock of @flags (BOOTTIME or
 * REALTIME, with TEMPO_ARM_ALARM) at alarm_deadline() from now, and no
 * wake-up but tempo's: the RTC's own alarm (/sys/class/rtc/rtc0/wakealarm)
 * is set ALARM_FALLBACK_S seconds on, so that a broken alarm ends the case
 * there instead of sleeping forever, and counts as its failure. The machine
 * must come back no earlier than the deadline less the RTC's second and the
 * resume's clock reading's (the kernel aims at the deadline exactly before
 * it suspends, not at a bound below it) and long before the fallback; the
 * record is read right after, never early.
 *
 * What woke the machine is told by how long it slept, BOOTTIME's gain on
 * MONOTONIC, which the kernel adds at resume: not by BOOTTIME's whole
 * advance, which also holds the suspend and resume themselves. Under TCG a
 * resume has been seen to take 53 s with interrupts on (the clocksource
 * watchdog marked the TSC unstable meanwhile), after a sleep of 7.6 s that
 * tempo's alarm ended.
 */
static int alarm_suspend(uint32_t flags)
{
	clockid_t clock = flags & TEMPO_ARM_BOOTTIME ? CLOCK_BOOTTIME : CLOCK_REALTIME;
	uint64_t d, id, t0, b0, m0, b1, m1, t1, slept;
	struct tempo_event ev;
	char fallback[16];
	int fd, err;

	if (!alarms_offered())
		SKIP(return TEST_SKIP, "no alarms: no RTC the kernel wakes the machine with");
	if (!s3_resumes() || access("/sys/power/state", W_OK) ||
	    access("/sys/class/rtc/rtc0/wakealarm", W_OK))
		SKIP(return TEST_SKIP, "no S3 suspend and resume, or no RTC alarm, in this kernel");
	fd = tempo_open(0);
	ASSERT_GE(fd, 0);
	t0 = now_ns(clock);
	d = alarm_deadline(t0);
	ASSERT_ERRNO(tempo_arm_one(fd, 7, d, 0, flags | TEMPO_ARM_ABS, &id), 0);
	snprintf(fallback, sizeof(fallback), "+%d", ALARM_FALLBACK_S);
	write_file("/sys/class/rtc/rtc0/wakealarm", "0");
	ASSERT_ERRNO(write_file("/sys/class/rtc/rtc0/wakealarm", fallback), 0);
	write_file("/sys/power/mem_sleep", "deep");
	m0 = now_ns(CLOCK_MONOTONIC);
	b0 = now_ns(CLOCK_BOOTTIME);
	err = write_file("/sys/power/state", "mem");
	t1 = now_ns(clock);
	m1 = now_ns(CLOCK_MONOTONIC);
	b1 = now_ns(CLOCK_BOOTTIME);
	write_file("/sys/class/rtc/rtc0/wakealarm", "0");
	ASSERT_ERRNO(err, 0, "suspend");
	slept = (b1 - b0) - (m1 - m0);
	test_diag("slept %lld ms; back %+lld ms from the deadline, %lld s after the suspend began",
		  (long long)slept / 1000000, ((long long)t1 - (long long)d) / 1000000,
		  (long long)(b1 - b0) / (long long)SEC);
	ASSERT_GT(slept, 2 * SEC, "the machine did not sleep");
	EXPECT_LT(slept, (ALARM_FALLBACK_S - 10) * SEC, "woken by the RTC's fallback alarm, not tempo's");
	EXPECT_GE(t1 + 2500 * MS, d, "woken early: the alarm was not aimed at the deadline");
	ASSERT_EQ(read_within(fd, &ev, d > t1 ? (int)((d - t1) / MS) + 3000 : 3000), 1);
	EXPECT_EQ(ev.cookie, 7);
	EXPECT_EQ(ev.deadline, d);
	EXPECT_GE(ev.time, d);
	EXPECT_GE(now_ns(clock), d);
	close(fd);
	return TEST_PASS;
}

/* A BOOTTIME alarm, and nothing else, wakes the suspended machine. */
static int test_alarm_wakes_boottime(void)
{
	return alarm_suspend(TEMPO_ARM_BOOTTIME | TEMPO_ARM_ALARM);
}

/* A REALTIME alarm, and nothing else, wakes the suspended machine. */
static int test_alarm_wakes_realtime(void)
{
	return alarm_suspend(TEMPO_ARM_REALTIME | TEMPO_ARM_ALARM);
}

static const struct test_case cases[] = {
	TEST_CASE(test_info_clocks),
	TEST_CASE(test_info_ver0),
	TEST_CASE(test_clock_flags_refused),
	TEST_CASE(test_rearm_across_clocks),
	TEST_CASE(test_fdinfo),
	TEST_CASE(test_deferrable),
	TEST_CASE(test_deferrable_rearm),
	TEST_CASE(test_timens_own_clocks),
	TEST_CASE(test_timens_passed_files),
	TEST_CASE(test_timens_behind),
	TEST_CASE(test_settime_forward),
	TEST_CASE(test_settime_back),
	TEST_CASE(test_cos_released_id_enoent),
	TEST_CASE(test_cancel_leaves_nothing_readable),
	TEST_CASE(test_cancel_cookie_across_clocks),
	TEST_CASE(test_poll_then_read_never_sleeps),
	TEST_CASE(test_suspend_resume),
	TEST_CASE(test_alarm_timers),
	TEST_CASE(test_alarm_realtime_relative_follows_set),
	TEST_CASE(test_alarm_wakes_boottime),
	TEST_CASE(test_alarm_wakes_realtime),
	{}
};

int main(void)
{
	if (access(TEMPO_DEVICE, R_OK | W_OK))
		return test_skip_all("%s: %s", TEMPO_DEVICE, strerror(errno));
	if (geteuid())
		return test_skip_all("needs root (time namespaces, clock_settime, suspend)");
	return test_run("tempo_clocks", cases);
}
