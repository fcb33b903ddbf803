// SPDX-License-Identifier: GPL-2.0
/*
 * isoarm: the isolation lane's load (tools/bench/README.md, "isolation").
 *
 *   isoarm CPU N sleep|poll
 *
 * Pins itself to CPU, then for about a second arms N unpinned timers through
 * /dev/tempo, one batch of N/100 every 10 ms, each batch's deadlines 1 to 11 ms
 * ahead, 100 us apart, and reads their event records. "sleep" waits for them
 * in poll(2) (the CPU idles between records), "poll" spins on non-blocking
 * read(2) (the CPU never idles). N = 0 arms nothing and keeps the same
 * schedule of waits: the baseline of the CPU's interrupts.
 *
 * Checks, at the end: N records, each cookie exactly once (armed = read),
 * none before its deadline, and the process never left CPU. Prints one line,
 * "isoarm cpu=C timers=N mode=M records=R late_max_us=L migrated=0", and
 * exits 0, or 1 with the reason on stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "uapi/tempo.h"

#define BATCHES		100
#define PERIOD_NS	(10ULL * 1000000)
#define FIRST_NS	(1ULL * 1000000)
#define MAX_TIMERS	100000
#define DRAIN_NS	(5ULL * 1000000000)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "isoarm: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void fail(const char *what)
{
	fprintf(stderr, "isoarm: %s\n", what);
	exit(1);
}

static int fd, cpu;
static unsigned long n, records, migrated;
static unsigned char *seen;
static uint64_t late_max;
static struct tempo_event evs[256];

/* Read what is there (the file is O_NONBLOCK); check each record. */
static void collect(void)
{
	for (;;) {
		ssize_t got = read(fd, evs, sizeof(evs));
		size_t i;

		if (got < 0) {
			if (errno == EAGAIN)
				return;
			if (errno == EINTR)
				continue;
			die("read /dev/tempo");
		}
		for (i = 0; i < got / sizeof(evs[0]); i++) {
			struct tempo_event *e = &evs[i];

			if (e->type != TEMPO_EV_TIMER || e->cookie >= n || seen[e->cookie])
				fail("a record that was not armed, or twice");
			if (e->time < e->deadline)
				fail("a record before its deadline");
			seen[e->cookie] = 1;
			records++;
			if (e->time - e->deadline > late_max)
				late_max = e->time - e->deadline;
		}
	}
}

/* Until @until: poll(2) for records ("sleep"), or spin on read(2) ("poll"). */
static void wait_until(uint64_t until, int sleep)
{
	uint64_t t;

	while ((t = now_ns()) < until) {
		if (sched_getcpu() != cpu)
			migrated++;
		if (sleep) {
			struct pollfd p = { .fd = fd, .events = POLLIN };
			int ms = (until - t + 999999) / 1000000;

			if (poll(&p, 1, ms) < 0 && errno != EINTR)
				die("poll");
		}
		collect();
	}
}

int main(int argc, char **argv)
{
	static struct tempo_timer_spec specs[MAX_TIMERS / BATCHES];
	unsigned long per, b, i;
	uint64_t t0;
	cpu_set_t set;
	int sleep;

	if (argc != 4 || (strcmp(argv[3], "sleep") && strcmp(argv[3], "poll")))
		fail("usage: isoarm CPU N sleep|poll");
	cpu = atoi(argv[1]);
	n = strtoul(argv[2], NULL, 0);
	sleep = !strcmp(argv[3], "sleep");
	per = n / BATCHES;
	if (n % BATCHES || n > MAX_TIMERS)
		fail("N must be a multiple of 100, at most 100000");
	seen = calloc(n + 1, 1);
	if (!seen)
		die("calloc");

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
	if (sched_getcpu() != cpu)
		fail("not on the CPU it was pinned to");
	fd = open(TEMPO_DEVICE, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		die("open " TEMPO_DEVICE);

	t0 = now_ns();
	for (b = 0; b < BATCHES; b++) {
		struct tempo_batch tb = { .ptr = (uintptr_t)specs, .count = per };

		wait_until(t0 + b * PERIOD_NS, sleep);
		for (i = 0; i < per; i++) {
			memset(&specs[i], 0, sizeof(specs[i]));
			specs[i].cookie = b * per + i;
			specs[i].value = FIRST_NS + i * (PERIOD_NS / per);
		}
		if (per && ioctl(fd, TEMPO_IOC_TIMER_ARM, &tb))
			die("TEMPO_IOC_TIMER_ARM");
	}
	/* The last deadline is 11 ms after the last batch; then every record. */
	wait_until(t0 + BATCHES * PERIOD_NS + FIRST_NS + PERIOD_NS, sleep);
	t0 = now_ns();
	while (records < n && now_ns() - t0 < DRAIN_NS)
		wait_until(now_ns() + PERIOD_NS, sleep);
	if (records != n)
		fail("records missing: fewer read than armed");
	if (migrated)
		fail("the process left its CPU");
	printf("isoarm cpu=%d timers=%lu mode=%s records=%lu late_max_us=%llu migrated=%lu\n",
	       cpu, n, argv[3], records, (unsigned long long)(late_max / 1000), migrated);
	return 0;
}
