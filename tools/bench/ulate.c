// SPDX-License-Identifier: GPL-2.0
/*
 * ulate: how late a userspace timer wakes its reader, tempo through
 * /dev/tempo against timerfd, io_uring timeouts and clock_nanosleep, in the
 * bench VM (make bench, section "late"; tools/bench/README.md).
 *
 *	ulate SYSTEMS one DELAY_US random|rearm N
 *	ulate SYSTEMS spread N SPAN_MS
 *	ulate SYSTEMS periodic PERIOD_US N
 *	ulate SYSTEMS wakeups N SPAN_MS SLACK_US
 *
 * SYSTEMS is a comma-separated list, in the order they take turns: tempo
 * (blocking read() of /dev/tempo), tempo_poll (poll() then read()),
 * timerfd, io_uring (IORING_OP_TIMEOUT, liburing), nanosleep
 * (clock_nanosleep()). Every deadline is absolute CLOCK_MONOTONIC, so the
 * program knows it exactly: lateness = the reader's wake-up (a clock reading
 * as the blocking call returns) - the deadline, and a wake-up before its
 * deadline is counted as early, sample by sample, exactly.
 *
 * one: one timer at a time, DELAY_US ahead of the arm, N samples per system,
 *	in blocks of BLOCK consecutive samples of one system (the systems take
 *	turns block by block). random: a sleep of a random fraction of a
 *	millisecond before each arm, so that deadlines fall at random points
 *	of a 1 ms tick; rearm: armed right after the previous wake-up, as an
 *	event loop re-arms.
 * spread: N timers with deadlines at random over SPAN_MS (from 5 ms ahead),
 *	armed together (tempo: one file; timerfd: one fd each behind epoll;
 *	io_uring: one SQE each; nanosleep: one thread sleeping until the
 *	earliest, then taking every one due), every expiry read.
 * periodic: one timer of period PERIOD_US, N periods read; overruns (periods
 *	that passed unread: tempo's record overrun, timerfd's count - 1, a
 *	missed period of the re-armed io_uring timeout and of clock_nanosleep)
 *	are counted, and each read's lateness is against the first period it
 *	reports.
 * wakeups: N timers at random over SPAN_MS (from 20 ms ahead), SLACK_US of
 *	slack for tempo (tempo_timer_spec.slack_us; timerfd and io_uring have
 *	none), all read: the local timer interrupts of all CPUs
 *	(/proc/interrupts LOC) and the process's voluntary context switches
 *	(its wake-ups) per second of the span, and tempo's wheel expiries
 *	(debugfs) when readable.
 *
 * One line per system and statistic on stdout, in tempo_bench's format:
 *	name=u_late case=... system=... count=SAMPLES stat=p50 value=V unit=us
 * with stat p50, p99 and max (us), early (samples before their deadline,
 * unit count: must be 0) and, for periodic, overruns. Exit status 77 when
 * a system is not available in this kernel, 1 on any other failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <liburing.h>

#include "uapi/tempo.h"

#define NSEC_PER_USEC	1000ULL
#define NSEC_PER_MSEC	1000000ULL
#define NSEC_PER_SEC	1000000000ULL
#define BLOCK		10
#define MAX_TIMERS	20000

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "ulate: %s: %s\n", what, strerror(errno));
	exit(1);
}

static struct timespec ts_of(uint64_t ns)
{
	struct timespec ts = { ns / NSEC_PER_SEC, ns % NSEC_PER_SEC };

	return ts;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = ts_of(t);

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static uint32_t rnd_state = 2463534242u;

static uint32_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

/* A random point of [0, span) ns. */
static uint64_t rnd_ns(uint64_t span)
{
	return ((uint64_t)rnd() << 32 | rnd()) % span;
}

/* Per system: what one, spread and periodic need. */
struct lsys {
	const char *name;
	int (*setup)(void);
	/* Wait for one timer at @deadline: the wake-up time. */
	uint64_t (*one)(uint64_t deadline);
	/* Arm @n timers at @dl (slack @slack_us where it applies); late[i] per timer. */
	void (*spread)(const uint64_t *dl, int n, uint32_t slack_us, int64_t *late);
	/*
	 * @n reads of a timer of @period from @first: late[k] per read,
	 * *overruns the periods that passed unread.
	 */
	void (*periodic)(uint64_t first, uint64_t period, int n, int64_t *late,
			 uint64_t *overruns);
};

/* Periods wholly passed between @d (a deadline just read) and @wake. */
static uint64_t missed(uint64_t d, uint64_t wake, uint64_t period)
{
	return wake > d ? (wake - d) / period : 0;
}

/* ---- tempo: one file each (tempo, tempo_poll), absolute deadlines ---- */
struct tempo_file {
	int	fd;
	int	polls;		/* poll() before each read(); the file is O_NONBLOCK */
};

static struct tempo_file tf_read = { -1, 0 }, tf_poll = { -1, 1 };
static struct tempo_timer_spec tspecs[MAX_TIMERS];
static struct tempo_event tevs[MAX_TIMERS];

static int tempo_open(struct tempo_file *f)
{
	f->fd = open(TEMPO_DEVICE, O_RDWR | O_CLOEXEC | (f->polls ? O_NONBLOCK : 0));
	return f->fd < 0 ? -1 : 0;
}

static void tempo_arm(struct tempo_file *f, struct tempo_timer_spec *s, uint32_t n)
{
	struct tempo_batch b = { .ptr = (uintptr_t)s, .count = n };

	if (ioctl(f->fd, TEMPO_IOC_TIMER_ARM, &b))
		die("TEMPO_IOC_TIMER_ARM");
}

/* Wait for records (poll() first for tempo_poll), read them: how many, and the wake-up time. */
static int tempo_read(struct tempo_file *f, struct tempo_event *ev, int max, uint64_t *wake)
{
	ssize_t n;

	for (;;) {
		if (f->polls) {
			struct pollfd p = { .fd = f->fd, .events = POLLIN };

			if (poll(&p, 1, -1) < 0 && errno != EINTR)
				die("poll /dev/tempo");
		}
		n = read(f->fd, ev, (size_t)max * sizeof(*ev));
		*wake = now_ns();
		if (n > 0)
			return n / sizeof(*ev);
		if (n < 0 && errno != EINTR && errno != EAGAIN)
			die("read /dev/tempo");
	}
}

static uint64_t tempo_one(struct tempo_file *f, uint64_t deadline)
{
	struct tempo_timer_spec s = { .cookie = 1, .value = deadline, .flags = TEMPO_ARM_ABS };
	uint64_t wake;

	tempo_arm(f, &s, 1);
	if (tempo_read(f, tevs, 1, &wake) != 1 || tevs[0].deadline != deadline) {
		errno = EPROTO;
		die("tempo one: wrong record");
	}
	return wake;
}

static void tempo_spread(struct tempo_file *f, const uint64_t *dl, int n, uint32_t slack_us,
			 int64_t *late)
{
	int i, got = 0;

	for (i = 0; i < n; i++) {
		memset(&tspecs[i], 0, sizeof(tspecs[i]));
		tspecs[i].cookie = i;
		tspecs[i].value = dl[i];
		tspecs[i].flags = TEMPO_ARM_ABS;
		tspecs[i].slack_us = slack_us;
	}
	tempo_arm(f, tspecs, n);
	while (got < n) {
		uint64_t wake;
		int k = tempo_read(f, tevs, n - got, &wake), j;

		for (j = 0; j < k; j++) {
			if (tevs[j].cookie >= (uint64_t)n) {
				errno = EPROTO;
				die("tempo spread: wrong cookie");
			}
			late[tevs[j].cookie] = (int64_t)(wake - dl[tevs[j].cookie]);
		}
		got += k;
	}
}

static void tempo_periodic(struct tempo_file *f, uint64_t first, uint64_t period, int n,
			   int64_t *late, uint64_t *overruns)
{
	struct tempo_timer_spec s = { .cookie = 1, .value = first, .period = period,
				      .flags = TEMPO_ARM_ABS };
	struct tempo_batch b = { .ptr = (uintptr_t)&s.id, .count = 1 };
	int i = 0, fl;

	tempo_arm(f, &s, 1);
	while (i < n) {
		uint64_t wake;

		if (tempo_read(f, tevs, 1, &wake) != 1) {
			errno = EPROTO;
			die("tempo periodic: wrong read");
		}
		late[i++] = (int64_t)(wake - tevs[0].deadline);
		*overruns += tevs[0].overrun;
	}
	if (ioctl(f->fd, TEMPO_IOC_TIMER_CANCEL, &b))
		die("TEMPO_IOC_TIMER_CANCEL");
	/* a record of the last period may be ready: drop it */
	fl = fcntl(f->fd, F_GETFL);
	fcntl(f->fd, F_SETFL, fl | O_NONBLOCK);
	while (read(f->fd, tevs, sizeof(tevs[0])) > 0)
		;
	fcntl(f->fd, F_SETFL, fl);
}

#define TEMPO_FILE_OPS(f)								\
static int f##_setup(void) { return tempo_open(&f); }					\
static uint64_t f##_one(uint64_t d) { return tempo_one(&f, d); }			\
static void f##_spread(const uint64_t *dl, int n, uint32_t slack_us, int64_t *late)	\
{											\
	tempo_spread(&f, dl, n, slack_us, late);					\
}											\
static void f##_periodic(uint64_t first, uint64_t period, int n, int64_t *late,	\
			 uint64_t *overruns)						\
{											\
	tempo_periodic(&f, first, period, n, late, overruns);				\
}
TEMPO_FILE_OPS(tf_read)
TEMPO_FILE_OPS(tf_poll)

/* ---- timerfd: blocking read of one; epoll for many ---- */
static int tfds[MAX_TIMERS], ntfds, ep = -1;

static int timerfd_setup(void)
{
	struct rlimit rl = { MAX_TIMERS + 64, MAX_TIMERS + 64 };

	setrlimit(RLIMIT_NOFILE, &rl);
	ep = epoll_create1(EPOLL_CLOEXEC);
	tfds[0] = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	ntfds = 1;
	return ep < 0 || tfds[0] < 0 ? -1 : 0;
}

static void timerfd_set(int fd, uint64_t deadline, uint64_t period)
{
	struct itimerspec its = { .it_value = ts_of(deadline), .it_interval = ts_of(period) };

	if (timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL))
		die("timerfd_settime");
}

static uint64_t timerfd_one(uint64_t deadline)
{
	uint64_t ticks;

	timerfd_set(tfds[0], deadline, 0);
	if (read(tfds[0], &ticks, sizeof(ticks)) != sizeof(ticks))
		die("read timerfd");
	return now_ns();
}

/* fds 1..n, non-blocking, in the epoll set */
static void timerfd_grow(int n)
{
	for (; ntfds <= n; ntfds++) {
		struct epoll_event e = { .events = EPOLLIN, .data.u32 = ntfds };

		tfds[ntfds] = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (tfds[ntfds] < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, tfds[ntfds], &e))
			die("timerfd_create");
	}
}

static void timerfd_spread(const uint64_t *dl, int n, uint32_t slack_us, int64_t *late)
{
	static struct epoll_event e[MAX_TIMERS];
	int i, got = 0;

	(void)slack_us;
	timerfd_grow(n);
	for (i = 0; i < n; i++)
		timerfd_set(tfds[i + 1], dl[i], 0);
	while (got < n) {
		int k = epoll_wait(ep, e, n, -1);
		uint64_t wake = now_ns(), ticks;

		if (k < 0 && errno != EINTR)
			die("epoll_wait");
		for (i = 0; i < k; i++) {
			int t = e[i].data.u32;

			if (read(tfds[t], &ticks, sizeof(ticks)) == sizeof(ticks)) {
				late[t - 1] = (int64_t)(wake - dl[t - 1]);
				got++;
			}
		}
	}
}

static void timerfd_periodic(uint64_t first, uint64_t period, int n, int64_t *late,
			     uint64_t *overruns)
{
	uint64_t d = first, ticks;
	int i;

	timerfd_set(tfds[0], first, period);
	for (i = 0; i < n; i++) {
		if (read(tfds[0], &ticks, sizeof(ticks)) != sizeof(ticks))
			die("read timerfd");
		late[i] = (int64_t)(now_ns() - d);
		*overruns += ticks - 1;
		d += ticks * period;
	}
	timerfd_set(tfds[0], 0, 0);
}

/* ---- io_uring: IORING_OP_TIMEOUT with IORING_TIMEOUT_ABS ---- */
static struct io_uring ring;
static struct __kernel_timespec uts[MAX_TIMERS];

static int uring_setup(void)
{
	struct io_uring_params p = { .flags = IORING_SETUP_CQSIZE, .cq_entries = 2 * MAX_TIMERS };
	int err = io_uring_queue_init_params(1024, &ring, &p);

	if (err) {
		errno = -err;
		return -1;
	}
	return 0;
}

static void uring_prep(uint64_t deadline, uint64_t data, struct __kernel_timespec *ts)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

	if (!sqe) {
		io_uring_submit(&ring);
		sqe = io_uring_get_sqe(&ring);
	}
	ts->tv_sec = deadline / NSEC_PER_SEC;
	ts->tv_nsec = deadline % NSEC_PER_SEC;
	io_uring_prep_timeout(sqe, ts, 0, IORING_TIMEOUT_ABS);
	sqe->user_data = data;
}

/*
 * Wait for at least one CQE; hand each to @fn with the wake-up time. Only
 * the CQEs posted before that time: a later one would look early.
 */
static int uring_reap(void (*fn)(uint64_t data, int res, uint64_t wake, void *arg), void *arg)
{
	static struct io_uring_cqe *cqes[256];
	struct io_uring_cqe *cqe;
	unsigned int k, i;
	int err = io_uring_wait_cqe(&ring, &cqe);
	uint64_t wake;

	if (err) {
		errno = -err;
		die("io_uring_wait_cqe");
	}
	k = io_uring_cq_ready(&ring);
	wake = now_ns();
	if (k > 256)
		k = 256;
	k = io_uring_peek_batch_cqe(&ring, cqes, k);
	for (i = 0; i < k; i++)
		fn(cqes[i]->user_data, cqes[i]->res, wake, arg);
	io_uring_cq_advance(&ring, k);
	return k;
}

static void uring_check(int res)
{
	if (res != -ETIME) {
		errno = res < 0 ? -res : EPROTO;
		die("io_uring timeout");
	}
}

static void uring_one_cqe(uint64_t data, int res, uint64_t wake, void *arg)
{
	(void)data;
	uring_check(res);
	*(uint64_t *)arg = wake;
}

static uint64_t uring_one(uint64_t deadline)
{
	uint64_t wake = 0;

	uring_prep(deadline, 0, &uts[0]);
	io_uring_submit(&ring);
	while (!uring_reap(uring_one_cqe, &wake))
		;
	return wake;
}

struct uring_spread_ctx {
	const uint64_t	*dl;
	int64_t		*late;
};

static void uring_spread_cqe(uint64_t data, int res, uint64_t wake, void *arg)
{
	struct uring_spread_ctx *c = arg;

	uring_check(res);
	c->late[data] = (int64_t)(wake - c->dl[data]);
}

static void uring_spread(const uint64_t *dl, int n, uint32_t slack_us, int64_t *late)
{
	struct uring_spread_ctx c = { dl, late };
	int i, got = 0;

	(void)slack_us;
	for (i = 0; i < n; i++)
		uring_prep(dl[i], i, &uts[i]);
	io_uring_submit(&ring);
	while (got < n)
		got += uring_reap(uring_spread_cqe, &c);
}

/* Re-armed per period, as on kernels without IORING_TIMEOUT_MULTISHOT (6.4). */
static void uring_periodic(uint64_t first, uint64_t period, int n, int64_t *late,
			   uint64_t *overruns)
{
	uint64_t d = first;
	int i;

	for (i = 0; i < n; i++) {
		uint64_t wake = uring_one(d), m = missed(d, wake, period);

		late[i] = (int64_t)(wake - d);
		*overruns += m;
		d += (m + 1) * period;
	}
}

/* ---- clock_nanosleep(TIMER_ABSTIME) ---- */
static int nanosleep_setup(void)
{
	return 0;
}

static uint64_t nanosleep_one(uint64_t deadline)
{
	sleep_until(deadline);
	return now_ns();
}

static int cmp_u64_idx(const void *a, const void *b, void *arg)
{
	const uint64_t *dl = arg;
	uint64_t x = dl[*(const int *)a], y = dl[*(const int *)b];

	return x < y ? -1 : x > y;
}

static void nanosleep_spread(const uint64_t *dl, int n, uint32_t slack_us, int64_t *late)
{
	static int order[MAX_TIMERS];
	int i;

	(void)slack_us;
	for (i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(order[0]), cmp_u64_idx, (void *)dl);
	/* An event loop: sleep until the earliest, then take all that are due. */
	for (i = 0; i < n;) {
		uint64_t wake = nanosleep_one(dl[order[i]]);

		while (i < n && dl[order[i]] <= wake) {
			late[order[i]] = (int64_t)(wake - dl[order[i]]);
			i++;
		}
	}
}

static void nanosleep_periodic(uint64_t first, uint64_t period, int n, int64_t *late,
			       uint64_t *overruns)
{
	uint64_t d = first;
	int i;

	for (i = 0; i < n; i++) {
		uint64_t wake = nanosleep_one(d), m = missed(d, wake, period);

		late[i] = (int64_t)(wake - d);
		*overruns += m;
		d += (m + 1) * period;
	}
}

static const struct lsys systems[] = {
	{ "tempo", tf_read_setup, tf_read_one, tf_read_spread, tf_read_periodic },
	{ "tempo_poll", tf_poll_setup, tf_poll_one, tf_poll_spread, tf_poll_periodic },
	{ "timerfd", timerfd_setup, timerfd_one, timerfd_spread, timerfd_periodic },
	{ "io_uring", uring_setup, uring_one, uring_spread, uring_periodic },
	{ "nanosleep", nanosleep_setup, nanosleep_one, nanosleep_spread, nanosleep_periodic },
};
#define NSYS	(sizeof(systems) / sizeof(systems[0]))

/* ---- statistics ---- */
static int cmp_s64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static void emit_us(const char *head, const char *stat, int64_t ns)
{
	printf("%s stat=%s value=%.1f unit=us\n", head, stat, (double)ns / NSEC_PER_USEC);
}

/* Sort @late[0..@n) and print p50, p99, max and the early count. */
static void report(const char *head, int64_t *late, int n)
{
	int i, early = 0;

	for (i = 0; i < n; i++)
		early += late[i] < 0;
	qsort(late, n, sizeof(late[0]), cmp_s64);
	emit_us(head, "p50", late[n / 2]);
	emit_us(head, "p99", late[(int64_t)n * 99 / 100]);
	emit_us(head, "max", late[n - 1]);
	printf("%s stat=early value=%d unit=count\n", head, early);
}

/* ---- main ---- */
static const struct lsys *sys[NSYS];
static int nsys;

/* The systems named in @list, each set up (at most one tempo file). */
static void parse_systems(char *list)
{
	char *s;
	size_t i;

	for (s = strtok(list, ","); s; s = strtok(NULL, ",")) {
		for (i = 0; i < NSYS; i++)
			if (!strcmp(s, systems[i].name))
				break;
		if (i == NSYS || nsys == NSYS) {
			fprintf(stderr, "ulate: unknown system %s\n", s);
			exit(2);
		}
		sys[nsys++] = &systems[i];
	}
}

static void setup_one(const struct lsys *s)
{
	if (s->setup()) {
		fprintf(stderr, "ulate: %s unavailable: %s\n", s->name, strerror(errno));
		exit(77);
	}
}

static int64_t *samples(int n)
{
	int64_t *p = calloc(n, sizeof(*p));

	if (!p)
		die("calloc");
	return p;
}

static void run_one(uint64_t delay, int rearm, int n)
{
	int64_t *late[NSYS];
	int done = 0, i, k;

	for (i = 0; i < nsys; i++)
		late[i] = samples(n);
	/* Blocks of BLOCK samples per system; the systems take turns. */
	while (done < n) {
		int m = n - done < BLOCK ? n - done : BLOCK;

		for (i = 0; i < nsys; i++) {
			const struct lsys *s = sys[(i + done / BLOCK) % nsys];
			int64_t *l = late[(i + done / BLOCK) % nsys];

			for (k = 0; k < m; k++) {
				uint64_t d;

				if (!rearm)
					sleep_until(now_ns() + rnd_ns(NSEC_PER_MSEC));
				d = now_ns() + delay;
				l[done + k] = (int64_t)(s->one(d) - d);
			}
		}
		done += m;
	}
	for (i = 0; i < nsys; i++) {
		char head[192];

		snprintf(head, sizeof(head),
			 "name=u_late case=one delay_us=%llu mode=%s system=%s count=%d",
			 (unsigned long long)(delay / NSEC_PER_USEC), rearm ? "rearm" : "random",
			 sys[i]->name, n);
		report(head, late[i], n);
	}
}

static void run_spread(int n, uint64_t span)
{
	static uint64_t dl[MAX_TIMERS];
	int64_t *late = samples(n);
	int i, j;

	for (i = 0; i < nsys; i++) {
		uint64_t t0 = now_ns() + 5 * NSEC_PER_MSEC;
		char head[192];

		for (j = 0; j < n; j++)
			dl[j] = t0 + rnd_ns(span);
		sys[i]->spread(dl, n, 0, late);
		snprintf(head, sizeof(head),
			 "name=u_late case=spread timers=%d span_ms=%llu system=%s count=%d", n,
			 (unsigned long long)(span / NSEC_PER_MSEC), sys[i]->name, n);
		report(head, late, n);
	}
	free(late);
}

static void run_periodic(uint64_t period, int n)
{
	int64_t *late = samples(n);
	int i;

	for (i = 0; i < nsys; i++) {
		uint64_t overruns = 0;
		char head[192];

		sys[i]->periodic(now_ns() + period + rnd_ns(NSEC_PER_MSEC), period, n, late,
				 &overruns);
		snprintf(head, sizeof(head),
			 "name=u_late case=periodic period_us=%llu system=%s count=%d",
			 (unsigned long long)(period / NSEC_PER_USEC), sys[i]->name, n);
		report(head, late, n);
		printf("%s stat=overruns value=%llu unit=count\n", head,
		       (unsigned long long)overruns);
	}
	free(late);
}

/* Local timer interrupts of all CPUs (/proc/interrupts LOC). */
static uint64_t loc_irqs(void)
{
	char line[4096];
	uint64_t sum = 0;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end;

		while (*p == ' ')
			p++;
		if (strncmp(p, "LOC:", 4))
			continue;
		p += 4;
		for (;;) {
			uint64_t v = strtoull(p, &end, 10);

			if (end == p)
				break;
			sum += v;
			p = end;
		}
	}
	fclose(f);
	return sum;
}

/* tempo's wheel expiries over all CPUs (debugfs), or 0 if unreadable. */
static uint64_t wheel_expiries(void)
{
	char line[512];
	uint64_t sum = 0;
	FILE *f = fopen("/sys/kernel/debug/tempo/wheel/stats", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v[9];

		/* "cpu online taken fired released sent kicks forwarded expiries ..." */
		if (sscanf(line, "%llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
			   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8]) == 9)
			sum += v[8];
	}
	fclose(f);
	return sum;
}

static long nvcsw(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_nvcsw;
}

static void run_wakeups(int n, uint64_t span, uint32_t slack_us)
{
	static uint64_t dl[MAX_TIMERS];
	int64_t *late = samples(n);
	int i, j;

	for (i = 0; i < nsys; i++) {
		uint64_t t0 = now_ns() + 20 * NSEC_PER_MSEC, loc, exp;
		double secs = (double)span / NSEC_PER_SEC;
		long cs;
		char head[192];

		for (j = 0; j < n; j++)
			dl[j] = t0 + rnd_ns(span);
		loc = loc_irqs();
		exp = wheel_expiries();
		cs = nvcsw();
		sys[i]->spread(dl, n, slack_us, late);
		loc = loc_irqs() - loc;
		exp = wheel_expiries() - exp;
		cs = nvcsw() - cs;
		snprintf(head, sizeof(head),
			 "name=u_wakeups timers=%d span_ms=%llu slack_us=%u system=%s", n,
			 (unsigned long long)(span / NSEC_PER_MSEC), slack_us, sys[i]->name);
		printf("%s stat=loc value=%.1f unit=irqs/s\n", head, loc / secs);
		printf("%s stat=wakeups value=%.1f unit=wakeups/s\n", head, cs / secs);
		if (!strncmp(sys[i]->name, "tempo", 5))
			printf("%s stat=wheel_expiries value=%.1f unit=irqs/s\n", head, exp / secs);
		report(head, late, n);
	}
	free(late);
}

static int arg_int(const char *s, int lo, int hi)
{
	long v = strtol(s, NULL, 10);

	if (v < lo || v > hi) {
		fprintf(stderr, "ulate: %s out of range %d..%d\n", s, lo, hi);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	int i;

	if (argc < 4) {
		fprintf(stderr, "usage: ulate SYSTEMS one DELAY_US random|rearm N\n"
				"       ulate SYSTEMS spread N SPAN_MS\n"
				"       ulate SYSTEMS periodic PERIOD_US N\n"
				"       ulate SYSTEMS wakeups N SPAN_MS SLACK_US\n");
		return 2;
	}
	rnd_state ^= (uint32_t)now_ns() | 1;
	parse_systems(argv[1]);
	for (i = 0; i < nsys; i++)
		setup_one(sys[i]);
	/* A process that waits for timers is woken as soon as it can be. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[2], "one") && argc == 6) {
		run_one(arg_int(argv[3], 1, 10000000) * NSEC_PER_USEC, !strcmp(argv[4], "rearm"),
			arg_int(argv[5], 1, MAX_TIMERS));
	} else if (!strcmp(argv[2], "spread") && argc == 5) {
		run_spread(arg_int(argv[3], 1, MAX_TIMERS),
			   arg_int(argv[4], 1, 100000) * NSEC_PER_MSEC);
	} else if (!strcmp(argv[2], "periodic") && argc == 5) {
		run_periodic(arg_int(argv[3], 100, 10000000) * NSEC_PER_USEC,
			     arg_int(argv[4], 1, MAX_TIMERS));
	} else if (!strcmp(argv[2], "wakeups") && argc == 6) {
		run_wakeups(arg_int(argv[3], 1, MAX_TIMERS),
			     arg_int(argv[4], 1, 100000) * NSEC_PER_MSEC,
			     arg_int(argv[5], 0, 1000000));
	} else {
		return 2;
	}
	return 0;
}
