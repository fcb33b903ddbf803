// SPDX-License-Identifier: GPL-2.0
/*
 * tempo_fuzz: a bounded /dev/tempo ioctl fuzzer for the test VM.
 *
 * Several threads share a small table of /dev/tempo descriptors and, until
 * the time is up, open, close, read (random sizes, blocking or not), poll and
 * issue ioctls: the commands of include/uapi/tempo.h with well-formed,
 * mutated (bit flips, reserved fields, unknown flags, huge counts, bad or
 * unmapped pointers) or random arguments, plus random command numbers.
 * Every 100 ms a signal interrupts whatever sleeps in the kernel (a blocking
 * read() or ticket would otherwise hold its worker for the rest of the run);
 * at the end it does so until the threads are joined. The program prints
 * KTAP through the test harness (tools/uapi-tests/harness.h); it fails if a thread
 * is still stuck in the kernel a few seconds after the end, or if the process
 * dies. The VM runner fails the run on any kernel report (KASAN, lockdep,
 * WARN) besides. A random sink descriptor must not reach the KTAP output: it
 * is written to a descriptor above any the fuzzer picks, and 0-2 are
 * /dev/null.
 *
 * Where the kernel has fault injection (the KCSAN kernel of `make check-kcsan`,
 * whose VM init arms failslab and fail_page_alloc for fail-nth), a quarter of
 * the operations run with /proc/thread-self/fail-nth set to a small N, so the
 * Nth allocation (or other injection point) of that one call fails: the
 * allocation-failure paths of open, ioctl and read. The kernel must answer
 * with an error and lose nothing; the VM's kmemleak scan after the programs
 * fails the run on a leak from tempo code. TEMPO_FUZZ_FAILNTH=0 turns it off.
 *
 * Run as root (the VM runs it so), the program makes a second pass as an
 * unprivileged user (/dev/tempo is mode 0666): a forked child
 * drops to uid 65534 with no supplementary groups and fuzzes the same way,
 * for the same time, as KTAP test 2 "fuzz_unprivileged".
 *
 *   tempo_fuzz [-t SECONDS] [-j THREADS] [-s SEED] [-u UID|-1]
 *
 * Defaults: TEMPO_FUZZ_SECS (20) seconds per pass, 4 threads, seed from the
 * clock (printed, so a run can be repeated), second pass as uid 65534 (-u -1:
 * none; there is none when not started as root).
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <uapi/tempo.h>

#include "harness.h"
#include "kids.h"

#define NFD	8
#define MAXT	16

static _Atomic int fds[NFD];
static atomic_bool stop;
static unsigned long counts[MAXT][10];
static bool failnth = true;	/* TEMPO_FUZZ_FAILNTH */
static char *unmapped;	/* a page that is mapped PROT_NONE */
/* The options of both passes. */
static unsigned int opt_secs = 20, opt_threads = 4;
static uint64_t opt_seed;
static long opt_uid = 65534;

enum { OP_IOCTL, OP_RANDIOCTL, OP_READ, OP_POLL, OP_OPEN, OP_CLOSE, OP_SINK, OP_N };

static uint64_t xrand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static const unsigned long cmds[] = {
	TEMPO_IOC_INFO, TEMPO_IOC_STATS, TEMPO_IOC_TIMER_ARM, TEMPO_IOC_TIMER_CANCEL,
	TEMPO_IOC_ORDER_TICKET, TEMPO_IOC_ORDER_SUBMIT, TEMPO_IOC_ORDER_TRASH,
	TEMPO_IOC_ORDER_SINK,
};

/* A pointer argument: mostly good, sometimes NULL, unmapped, kernel, odd. */
static uint64_t some_ptr(uint64_t *s, void *good)
{
	switch (xrand(s) % 16) {
	case 0: return 0;
	case 1: return (uint64_t)(uintptr_t)unmapped;
	case 2: return 0xffff888000000000ULL;
	case 3: return (uint64_t)(uintptr_t)good + 1;
	case 4: return xrand(s);
	default: return (uint64_t)(uintptr_t)good;
	}
}

/* Flip a few bits of @len bytes at @p. */
static void mutate(uint64_t *s, void *p, size_t len)
{
	unsigned char *b = p;
	int n = xrand(s) % 4;

	while (n-- > 0 && len)
		b[xrand(s) % len] ^= 1u << (xrand(s) % 8);
}

static uint64_t small(uint64_t *s)
{
	static const uint64_t v[] = { 0, 1, 2, 7, 64, 1000, 1000000, 5000000, 1ULL << 32,
				      ~0ULL, 1ULL << 63 };
	return xrand(s) & 1 ? xrand(s) % 64 : v[xrand(s) % (sizeof(v) / sizeof(v[0]))];
}

static void fill_specs(uint64_t *s, struct tempo_timer_spec *sp, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		sp[i].cookie = xrand(s);
		sp[i].value = xrand(s) % 4 ? (xrand(s) % 20) * 1000000ULL : small(s);
		sp[i].period = xrand(s) % 4 ? 0 : small(s) * 100000ULL;
		sp[i].id = xrand(s) % 3 ? xrand(s) % 64 : small(s);
		sp[i].flags = xrand(s) % 8 ? (uint32_t)(xrand(s) % 4) & TEMPO_ARM_FLAGS
					   : (uint32_t)xrand(s);
		sp[i].slack_us = xrand(s) % 16 ? 0 : (uint32_t)xrand(s);
	}
}

static void do_ioctl(uint64_t *s, int fd, unsigned long cmd)
{
	union {
		struct tempo_info info;
		struct tempo_stats stats;
		struct tempo_batch batch;
		struct tempo_ticket ticket;
		struct tempo_submit submit;
		struct tempo_sink sink;
		unsigned char raw[512];
	} a;
	struct tempo_timer_spec specs[16];
	uint64_t ids[16];
	char data[256];
	void *arg = &a;

	memset(&a, 0, sizeof(a));
	switch (cmd) {
	case TEMPO_IOC_TIMER_ARM:
		fill_specs(s, specs, 16);
		a.batch.count = xrand(s) % 8 ? xrand(s) % 17 : (uint32_t)small(s);
		a.batch.ptr = some_ptr(s, specs);
		break;
	case TEMPO_IOC_TIMER_CANCEL:
		for (int i = 0; i < 16; i++)
			ids[i] = xrand(s) % 64;
		a.batch.count = xrand(s) % 8 ? xrand(s) % 17 : (uint32_t)small(s);
		a.batch.flags = xrand(s) % 4 ? 0 : (xrand(s) % 2 ? TEMPO_CANCEL_COOKIE
								   : (uint32_t)xrand(s));
		a.batch.ptr = some_ptr(s, ids);
		break;
	case TEMPO_IOC_ORDER_TICKET:
		/* Blocking only now and then: the end-of-run signal interrupts it. */
		a.ticket.flags = xrand(s) % 8 ? TEMPO_TICKET_NONBLOCK : (uint32_t)small(s);
		break;
	case TEMPO_IOC_ORDER_SUBMIT:
		memset(data, 'x', sizeof(data));
		a.submit.ticket = xrand(s) % 4 ? xrand(s) % 16 : small(s);
		a.submit.cookie = xrand(s);
		a.submit.data = some_ptr(s, data);
		a.submit.len = xrand(s) % 4 ? xrand(s) % sizeof(data) : (uint32_t)small(s);
		a.submit.flags = xrand(s) % 8 ? 0 : (uint32_t)xrand(s);
		break;
	case TEMPO_IOC_ORDER_TRASH:
		a.ticket.ticket = xrand(s) % 4 ? xrand(s) % 16 : small(s);
		break;
	case TEMPO_IOC_ORDER_SINK:
		a.sink.fd = xrand(s) % 4 ? (int)(xrand(s) % 32) - 1 : (int)xrand(s);
		a.sink.flags = xrand(s) % 8 ? 0 : (uint32_t)xrand(s);
		break;
	default:
		for (size_t i = 0; i < sizeof(a.raw); i++)
			a.raw[i] = xrand(s) % 4 ? 0 : (unsigned char)xrand(s);
		break;
	}
	if (xrand(s) % 4 == 0)
		mutate(s, &a, 64);
	if (xrand(s) % 32 == 0)
		arg = xrand(s) % 2 ? NULL : unmapped;
	ioctl(fd, cmd, arg);
}

static int pick_fd(uint64_t *s)
{
	return atomic_load(&fds[xrand(s) % NFD]);
}

static void open_into(uint64_t *s)
{
	int flags = O_RDWR | O_CLOEXEC | (xrand(s) % 2 ? O_NONBLOCK : 0);
	int fd = open(TEMPO_DEVICE, flags);
	int old;

	if (fd < 0)
		return;
	old = atomic_exchange(&fds[xrand(s) % NFD], fd);
	if (old >= 0)
		close(old);
}

struct worker {
	pthread_t th;
	unsigned int idx;
	uint64_t seed;
};

static void *worker_fn(void *p)
{
	struct worker *w = p;
	uint64_t s = w->seed;
	char buf[4096];
	int pfd[2];
	/* This thread's fail-nth (fault-injection kernels only), or -1. */
	int nth_fd = failnth ? open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC) : -1;

	while (!atomic_load(&stop)) {
		unsigned int op = xrand(&s) % OP_N;
		int fd = pick_fd(&s);
		bool armed = false;

		counts[w->idx][op]++;
		if (nth_fd >= 0 && xrand(&s) % 4 == 0) {
			char n[8];
			int len = snprintf(n, sizeof(n), "%u", 1 + (unsigned int)(xrand(&s) % 12));

			armed = pwrite(nth_fd, n, len, 0) == len;
			counts[w->idx][8] += armed;
		}
		switch (op) {
		case OP_IOCTL:
			if (fd >= 0)
				do_ioctl(&s, fd, cmds[xrand(&s) % (sizeof(cmds) / sizeof(cmds[0]))]);
			break;
		case OP_RANDIOCTL: {
			/* A known command with its size, direction or number bent. */
			unsigned long cmd = cmds[xrand(&s) % (sizeof(cmds) / sizeof(cmds[0]))];

			cmd ^= 1UL << (xrand(&s) % 32);
			if (fd >= 0)
				do_ioctl(&s, fd, xrand(&s) % 4 ? cmd : (unsigned long)xrand(&s));
			break;
		}
		case OP_READ:
			if (fd >= 0) {
				size_t len = xrand(&s) % 4 ? xrand(&s) % sizeof(buf)
							   : sizeof(struct tempo_event) * (xrand(&s) % 8);
				void *dst = xrand(&s) % 32 ? (void *)buf : (void *)unmapped;

				if (read(fd, dst, len) < 0 && errno == EFAULT)
					counts[w->idx][7]++;
			}
			break;
		case OP_POLL:
			if (fd >= 0) {
				struct pollfd pf = { .fd = fd, .events = POLLIN | POLLOUT };

				poll(&pf, 1, xrand(&s) % 3);
			}
			break;
		case OP_OPEN:
			open_into(&s);
			break;
		case OP_CLOSE: {
			int old = atomic_exchange(&fds[xrand(&s) % NFD], -1);

			if (old >= 0)
				close(old);
			break;
		}
		case OP_SINK:
			/* A real pipe as the sink, non-blocking, closed soon after. */
			if (fd >= 0 && pipe2(pfd, O_NONBLOCK | O_CLOEXEC) == 0) {
				struct tempo_sink sk = { .fd = pfd[1] };

				ioctl(fd, TEMPO_IOC_ORDER_SINK, &sk);
				if (xrand(&s) % 2)
					(void)!read(pfd[0], buf, sizeof(buf));
				close(pfd[0]);
				close(pfd[1]);
			}
			break;
		}
		if (armed) {
			char n[16] = "";

			/* Reads 0 once the Nth point was reached: a failure was injected. */
			if (pread(nth_fd, n, sizeof(n) - 1, 0) > 0 && atoi(n) == 0)
				counts[w->idx][9]++;
			(void)!pwrite(nth_fd, "0", 1, 0);
		}
	}
	if (nth_fd >= 0)
		close(nth_fd);
	return NULL;
}

static void on_signal(int sig)
{
	(void)sig;
}

/*
 * One pass: @nthreads workers for @secs seconds. Returns TEST_PASS if every
 * thread came back; if one is stuck in the kernel the process cannot join it
 * and must exit: returns TEST_FAIL with fds and threads left.
 */
static int fuzz_pass(unsigned int secs, unsigned int nthreads, uint64_t seed, const char *name)
{
	struct worker w[MAXT];
	unsigned long total[10] = { 0 };
	uint64_t end;
	int stuck = 0;

	atomic_store(&stop, false);
	memset(counts, 0, sizeof(counts));
	for (int i = 0; i < NFD; i++)
		atomic_store(&fds[i], -1);
	test_diag("%s: uid %u, %u s, %u threads, seed %#llx, fail-nth %s", name, getuid(),
		  secs, nthreads, (unsigned long long)seed, failnth ? "on" : "off");
	/* A hard stop, should the kernel never let go of a thread. */
	alarm(secs + 60);

	for (unsigned int i = 0; i < nthreads; i++) {
		w[i].idx = i;
		w[i].seed = seed * (2 * i + 3) | 1;
		pthread_create(&w[i].th, NULL, worker_fn, &w[i]);
	}
	end = now_ns() + secs * 1000000000ULL;
	while (now_ns() < end) {
		usleep(100000);
		for (unsigned int i = 0; i < nthreads; i++)
			pthread_kill(w[i].th, SIGUSR1);
	}
	atomic_store(&stop, true);

	/* Interrupt sleepers until everybody is out, for up to 10 s. */
	for (unsigned int i = 0; i < nthreads; i++) {
		struct timespec ts;
		int ret;

		for (int tries = 0; tries < 100; tries++) {
			pthread_kill(w[i].th, SIGUSR1);
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 100000000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			ret = pthread_timedjoin_np(w[i].th, NULL, &ts);
			if (ret != ETIMEDOUT)
				break;
		}
		if (ret == ETIMEDOUT) {
			test_diag("thread %u is still in the kernel 10 s after the end", i);
			stuck++;
		}
		for (int k = 0; k < 10; k++)
			total[k] += counts[i][k];
	}
	alarm(0);
	if (!stuck)
		for (int i = 0; i < NFD; i++)
			if (atomic_load(&fds[i]) >= 0)
				close(atomic_exchange(&fds[i], -1));

	test_diag("ioctls %lu, mutated/random %lu, reads %lu (EFAULT %lu), polls %lu, "
		  "opens %lu, closes %lu, sinks %lu", total[OP_IOCTL], total[OP_RANDIOCTL],
		  total[OP_READ], total[7], total[OP_POLL], total[OP_OPEN], total[OP_CLOSE],
		  total[OP_SINK]);
	if (failnth)
		test_diag("fail-nth armed for %lu operations, a failure injected in %lu",
			  total[8], total[9]);
	return stuck ? TEST_FAIL : TEST_PASS;
}

/* fail-nth is used where the kernel has it, it is writable, and not turned off. */
static bool failnth_usable(void)
{
	const char *env = getenv("TEMPO_FUZZ_FAILNTH");

	return !(env && !strcmp(env, "0")) && !access("/proc/self/fail-nth", W_OK);
}

/* The first pass, as the caller (root in the VM). */
static int fuzz(void)
{
	return fuzz_pass(opt_secs, opt_threads, opt_seed, "fuzz");
}

/* The second pass's kid, as opt_uid with no supplementary groups. */
static int unprivileged_kid(void *unused)
{
	(void)unused;
	/* It says nothing: no pipe of its own among the fds the fuzzer names. */
	close(kid_up);
	close(kid_down);
	/* Its /proc files (fail-nth) belong to it again. */
	prctl(PR_SET_DUMPABLE, 1);
	failnth = failnth && failnth_usable();
	return fuzz_pass(opt_secs, opt_threads, opt_seed * 3 | 1, "fuzz_unprivileged");
}

/*
 * The second pass, in a kid that dropped to opt_uid (tools/uapi-tests/kids.h):
 * what every local user can do to /dev/tempo (mode 0666). The kid's own
 * alarm (secs + 60) ends it; kid_finish()'s bound is the backstop.
 */
static int fuzz_unprivileged(void)
{
	struct kid *k = kid_start(opt_uid, unprivileged_kid, NULL);

	if (!k) {
		test_diag("cannot start the unprivileged pass: %s", strerror(errno));
		return TEST_FAIL;
	}
	return kid_finish(k, (opt_secs + 90) * 1000);
}

static struct test_case cases[] = {
	TEST_CASE(fuzz),
	TEST_CASE(fuzz_unprivileged),
	{}
};

int main(int argc, char **argv)
{
	const char *env = getenv("TEMPO_FUZZ_SECS");
	struct sigaction sa = { .sa_handler = on_signal };
	int opt;

	if (env)
		opt_secs = (unsigned int)atoi(env);
	opt_seed = now_ns() | 1;
	while ((opt = getopt(argc, argv, "t:j:s:u:")) != -1) {
		switch (opt) {
		case 't': opt_secs = atoi(optarg); break;
		case 'j': opt_threads = atoi(optarg); break;
		case 's': opt_seed = strtoull(optarg, NULL, 0) | 1; break;
		case 'u': opt_uid = strtol(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: %s [-t SECONDS] [-j THREADS] [-s SEED] [-u UID|-1]\n",
				argv[0]);
			return 2;
		}
	}
	if (opt_threads < 1 || opt_threads > MAXT)
		opt_threads = 4;
	/* The unprivileged pass needs root to drop from; -u -1 turns it off. */
	if (geteuid() || opt_uid == (long)geteuid())
		opt_uid = -1;
	if (opt_uid < 0)
		cases[1] = (struct test_case){};
	failnth = failnth_usable();

	/* KTAP above every fd the fuzzer may name (a sink of random fd 1 would write into it). */
	opt = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 100);
	test_out = opt >= 0 ? fdopen(opt, "w") : NULL;
	if (!test_out)
		return 2;
	opt = open("/dev/null", O_RDWR | O_CLOEXEC);
	for (int i = 0; opt >= 0 && i < 3; i++)
		dup2(opt, i);
	if (opt > 2)
		close(opt);

	if (access(TEMPO_DEVICE, F_OK))
		return test_skip_all("no %s", TEMPO_DEVICE);
	unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (unmapped == MAP_FAILED)
		unmapped = NULL;
	sigaction(SIGUSR1, &sa, NULL);	/* no SA_RESTART: blocked calls return EINTR */
	/*
	 * Sink writes are made by the calling thread, as its write(2) would be:
	 * a pipe sink with no reader sends it SIGPIPE, and a file past
	 * RLIMIT_FSIZE SIGXFSZ. Like any program writing to pipes, ignore them.
	 */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);

	return test_run("tempo_fuzz", cases);
}
