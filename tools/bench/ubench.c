// SPDX-License-Identifier: GPL-2.0
/*
 * ubench: userspace timers in the bench VM, per timer: tempo's batched
 * ioctls on /dev/tempo against timerfd (one fd per timer), io_uring timeouts
 * (liburing) and POSIX timer_create().
 *
 *	ubench cancel SYS   arm BATCH timers 30 s ahead, then cancel them, for
 *			    SAMPLE_MS: ns per timer (arm + cancel)
 *	ubench expire SYS   arm BATCH timers 2 ms ahead, sleep until they are
 *			    due, collect every expiry: ns per timer of the two
 *			    active phases (the sleep is not counted), and the
 *			    collect phase alone as events per second
 *
 * SYS: tempo, timerfd, io_uring, posix. Each peer is used the way its own
 * documentation recommends: timerfd non-blocking behind epoll, io_uring with
 * a batch of SQEs per io_uring_submit() and IORING_OP_TIMEOUT_REMOVE by
 * user_data, POSIX timers with SIGEV_NONE for pure timeouts and a queued
 * real-time signal collected by sigtimedwait() for expiries.
 *
 * One result line per run on stdout, in tempo_bench's format:
 *	name=... system=... key=value ... value=V unit=U
 * Exit status 77 when SYS is not available in this kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
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

#define BATCH		256
#define SAMPLE_NS	(200ULL * 1000000)
#define FAR_NS		(30ULL * 1000000000)
#define NEAR_NS		(2ULL * 1000000)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "ubench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static struct timespec ts_of(uint64_t ns)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };

	return ts;
}

/* Per system: set up, arm BATCH with delay, cancel all, collect BATCH expiries. */
struct usys {
	const char *name;
	int (*setup)(void);
	void (*arm)(uint64_t delay);
	void (*cancel)(void);
	void (*collect)(void);
};

/* ---- tempo ---- */
static int tfd = -1;
static struct tempo_timer_spec specs[BATCH];
static uint64_t ids[BATCH];
static struct tempo_event evs[BATCH];

static int tempo_setup(void)
{
	tfd = open(TEMPO_DEVICE, O_RDWR | O_CLOEXEC);
	return tfd < 0 ? -1 : 0;
}

static void tempo_arm(uint64_t delay)
{
	struct tempo_batch b = { .ptr = (uintptr_t)specs, .count = BATCH };
	int i;

	for (i = 0; i < BATCH; i++) {
		memset(&specs[i], 0, sizeof(specs[i]));
		specs[i].cookie = i;
		specs[i].value = delay;
	}
	if (ioctl(tfd, TEMPO_IOC_TIMER_ARM, &b))
		die("TEMPO_IOC_TIMER_ARM");
	for (i = 0; i < BATCH; i++)
		ids[i] = specs[i].id;
}

static void tempo_cancel(void)
{
	struct tempo_batch b = { .ptr = (uintptr_t)ids, .count = BATCH };

	if (ioctl(tfd, TEMPO_IOC_TIMER_CANCEL, &b))
		die("TEMPO_IOC_TIMER_CANCEL");
}

static void tempo_collect(void)
{
	size_t got = 0;

	while (got < BATCH) {
		ssize_t n = read(tfd, evs, sizeof(evs));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("read /dev/tempo");
		}
		got += n / sizeof(struct tempo_event);
	}
}

/* ---- timerfd: one fd per timer, non-blocking, behind epoll ---- */
static int tfds[BATCH], ep = -1;

static int timerfd_setup(void)
{
	struct rlimit rl = { 4096, 4096 };
	int i;

	setrlimit(RLIMIT_NOFILE, &rl);
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		return -1;
	for (i = 0; i < BATCH; i++) {
		struct epoll_event e = { .events = EPOLLIN, .data.u32 = i };

		tfds[i] = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (tfds[i] < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, tfds[i], &e))
			return -1;
	}
	return 0;
}

static void timerfd_arm(uint64_t delay)
{
	struct itimerspec its = { .it_value = ts_of(delay) };
	int i;

	for (i = 0; i < BATCH; i++)
		if (timerfd_settime(tfds[i], 0, &its, NULL))
			die("timerfd_settime");
}

static void timerfd_cancel(void)
{
	struct itimerspec its = { 0 };
	int i;

	for (i = 0; i < BATCH; i++)
		if (timerfd_settime(tfds[i], 0, &its, NULL))
			die("timerfd_settime");
}

static void timerfd_collect(void)
{
	struct epoll_event e[BATCH];
	int got = 0;

	while (got < BATCH) {
		int n = epoll_wait(ep, e, BATCH, -1), i;

		for (i = 0; i < n; i++) {
			uint64_t ticks;

			if (read(tfds[e[i].data.u32], &ticks, sizeof(ticks)) == sizeof(ticks))
				got++;
		}
	}
}

/* ---- io_uring: IORING_OP_TIMEOUT, IORING_OP_TIMEOUT_REMOVE, batched ---- */
static struct io_uring ring;
static struct __kernel_timespec uts;

static int uring_setup(void)
{
	struct io_uring_params p = { .flags = IORING_SETUP_CQSIZE, .cq_entries = 4 * BATCH };
	int err = io_uring_queue_init_params(BATCH, &ring, &p);

	if (err) {
		errno = -err;
		return -1;
	}
	return 0;
}

static void uring_reap(unsigned int want)
{
	struct io_uring_cqe *cqe;
	unsigned int got = 0;

	while (got < want) {
		unsigned int head, n = 0;
		int err = io_uring_wait_cqe(&ring, &cqe);

		if (err) {
			errno = -err;
			die("io_uring_wait_cqe");
		}
		io_uring_for_each_cqe(&ring, head, cqe)
			n++;
		io_uring_cq_advance(&ring, n);
		got += n;
	}
}

static void uring_arm(uint64_t delay)
{
	int i, err;

	uts.tv_sec = delay / 1000000000;
	uts.tv_nsec = delay % 1000000000;
	for (i = 0; i < BATCH; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		io_uring_prep_timeout(sqe, &uts, 0, 0);
		sqe->user_data = i + 1;
	}
	err = io_uring_submit(&ring);
	if (err != BATCH) {
		errno = err < 0 ? -err : EIO;
		die("io_uring_submit timeouts");
	}
}

static void uring_cancel(void)
{
	int i, err;

	for (i = 0; i < BATCH; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		io_uring_prep_timeout_remove(sqe, i + 1, 0);
		sqe->user_data = 1ULL << 32 | i;
	}
	err = io_uring_submit_and_wait(&ring, 2 * BATCH);
	if (err < 0) {
		errno = -err;
		die("io_uring_submit removes");
	}
	/* BATCH -ECANCELED timeouts and BATCH removal results */
	uring_reap(2 * BATCH);
}

static void uring_collect(void)
{
	uring_reap(BATCH);
}

/* ---- POSIX timers ---- */
static timer_t ptn[BATCH], pts[BATCH];
static sigset_t rtset;

static int posix_setup(void)
{
	int i;

	sigemptyset(&rtset);
	sigaddset(&rtset, SIGRTMIN);
	sigprocmask(SIG_BLOCK, &rtset, NULL);
	for (i = 0; i < BATCH; i++) {
		struct sigevent none = { .sigev_notify = SIGEV_NONE };
		struct sigevent sig = { .sigev_notify = SIGEV_SIGNAL,
					.sigev_signo = SIGRTMIN,
					.sigev_value.sival_int = i };

		if (timer_create(CLOCK_MONOTONIC, &none, &ptn[i]) ||
		    timer_create(CLOCK_MONOTONIC, &sig, &pts[i]))
			return -1;
	}
	return 0;
}

static timer_t *posix_set = ptn;

static void posix_arm(uint64_t delay)
{
	struct itimerspec its = { .it_value = ts_of(delay) };
	int i;

	/* pure timeouts need no notification; expiries are collected by signal */
	posix_set = delay == FAR_NS ? ptn : pts;
	for (i = 0; i < BATCH; i++)
		if (timer_settime(posix_set[i], 0, &its, NULL))
			die("timer_settime");
}

static void posix_cancel(void)
{
	struct itimerspec its = { 0 };
	int i;

	for (i = 0; i < BATCH; i++)
		if (timer_settime(posix_set[i], 0, &its, NULL))
			die("timer_settime");
}

static void posix_collect(void)
{
	struct timespec tmo = { 5, 0 };
	int got = 0;

	while (got < BATCH) {
		siginfo_t si;

		if (sigtimedwait(&rtset, &si, &tmo) == SIGRTMIN)
			got++;
		else if (errno != EINTR)
			die("sigtimedwait");
	}
}

static const struct usys systems[] = {
	{ "tempo", tempo_setup, tempo_arm, tempo_cancel, tempo_collect },
	{ "timerfd", timerfd_setup, timerfd_arm, timerfd_cancel, timerfd_collect },
	{ "io_uring", uring_setup, uring_arm, uring_cancel, uring_collect },
	{ "posix", posix_setup, posix_arm, posix_cancel, posix_collect },
};

static void print_milli(const char *head, double v, const char *unit)
{
	printf("%s value=%.3f unit=%s\n", head, v, unit);
}

int main(int argc, char **argv)
{
	const struct usys *s = NULL;
	char head[160];
	size_t i;

	if (argc != 3) {
		fprintf(stderr, "usage: ubench cancel|expire tempo|timerfd|io_uring|posix\n");
		return 2;
	}
	for (i = 0; i < sizeof(systems) / sizeof(systems[0]); i++)
		if (!strcmp(argv[2], systems[i].name))
			s = &systems[i];
	if (!s)
		return 2;
	if (s->setup()) {
		fprintf(stderr, "ubench: %s unavailable: %s\n", s->name, strerror(errno));
		return 77;
	}

	if (!strcmp(argv[1], "cancel")) {
		uint64_t t0 = now_ns(), t, timers = 0;

		s->arm(FAR_NS);	/* warm up: fds, ids, ring */
		s->cancel();
		uint64_t arm_ns = 0, m;

		t0 = now_ns();
		do {
			m = now_ns();
			s->arm(FAR_NS);
			arm_ns += now_ns() - m;
			s->cancel();
			timers += BATCH;
			t = now_ns();
		} while (t - t0 < SAMPLE_NS);
		snprintf(head, sizeof(head), "name=u_arm_cancel system=%s batch=%d count=%llu",
			 s->name, BATCH, (unsigned long long)timers);
		print_milli(head, (double)(t - t0) / timers, "ns/timer");
		/* the two halves, to see where a pair's time goes */
		snprintf(head, sizeof(head), "name=u_arm_only system=%s batch=%d count=%llu",
			 s->name, BATCH, (unsigned long long)timers);
		print_milli(head, (double)arm_ns / timers, "ns/timer");
		snprintf(head, sizeof(head), "name=u_cancel_only system=%s batch=%d count=%llu",
			 s->name, BATCH, (unsigned long long)timers);
		print_milli(head, (double)(t - t0 - arm_ns) / timers, "ns/timer");
	} else if (!strcmp(argv[1], "expire")) {
		uint64_t active = 0, collect = 0, timers = 0, start = now_ns();

		while (now_ns() - start < SAMPLE_NS || timers < 4 * BATCH) {
			uint64_t a = now_ns(), b, c;

			s->arm(NEAR_NS);
			b = now_ns();
			sleep_ns(NEAR_NS + 3000000);	/* all due, most fired */
			c = now_ns();
			s->collect();
			collect += now_ns() - c;
			active += (b - a) + (now_ns() - c);
			timers += BATCH;
		}
		snprintf(head, sizeof(head), "name=u_arm_expire system=%s batch=%d count=%llu",
			 s->name, BATCH, (unsigned long long)timers);
		print_milli(head, (double)active / timers, "ns/timer");
		snprintf(head, sizeof(head), "name=u_events_read system=%s batch=%d count=%llu",
			 s->name, BATCH, (unsigned long long)timers);
		print_milli(head, timers * 1e9 / collect, "events/s");
	} else {
		return 2;
	}
	return 0;
}
