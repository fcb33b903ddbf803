// SPDX-License-Identifier: GPL-2.0
/*
 * tempo_hostile_abi: /dev/tempo against a hostile local user: deadlines,
 * reads and the ABI's smaller points.
 * How the attacks run (uids, root, kids): hostile.h. Here:
 *
 *  - deadlines beyond the wheel (2^63, U64_MAX: ERANGE, never early);
 *  - read() into a buffer that faults: no record lost;
 *  - the ABI's smaller points: overrun saturation, struct tempo_batch's out
 *    fields on early errors, no -ERESTARTSYS in sink_last_error.
 *
 * KTAP on stdout; each child's diagnostics go there too.
 */
#define _GNU_SOURCE
#include "hostile.h"

/* ---- never early ------------------------------------------------- */

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

/* ---- read() into a faulting buffer ------------------------------- */

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

/* ---- smaller ABI points ------------------------------------------ */

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

static const struct test_case cases[] = {
	TEST_CASE_F(hostile, test_arm_abs_beyond_range_erange),
	TEST_CASE_F(hostile, test_arm_delay_beyond_max_erange),
	TEST_CASE_F(hostile, test_read_fault_midway_loses_nothing),
	TEST_CASE_F(hostile, test_read_unmapped_efault_keeps_record),
	TEST_CASE_F(hostile, test_periodic_overrun_saturates),
	TEST_CASE_F(hostile, test_batch_out_fields_on_early_errors),
	{}
};

int main(void)
{
	return hostile_main("tempo_hostile_abi", cases);
}
