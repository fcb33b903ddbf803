// SPDX-License-Identifier: GPL-2.0
/*
 * hostile.h: /dev/tempo against a hostile local user, what the
 * tempo_hostile_* programs share.
 *
 * /dev/tempo may be opened by every user, so nothing one user does through
 * it may borrow the kernel's privileges, harm another user, or escape a
 * per-user bound. Run as root, each program forks each attack into a child
 * that drops to uid 65534 ("nobody"); a second user, uid 65533, checks that
 * it does not notice. Root only sets module parameters (restored after each
 * case, even one that dies: harness.h), creates files and cgroups, and
 * watches the children with a bound on wall-clock time: a child stuck in
 * the kernel is reported, then released (its full sink pipe drained, its
 * cookie array truncated) or left behind, and the next case runs.
 *
 * The programs, one per kind of attack:
 *  - hostile_sink_test.c: ordered streams and their sinks, tickets;
 *  - hostile_limits_test.c: per-user bounds, loops and arrays a user sizes;
 *  - hostile_abi_test.c: deadlines, reads into faulting buffers, the ABI's
 *    smaller points;
 *  - hostile_share_test.c: what one user's timers cost another (wake-ups,
 *    critical sections, sorting on a shared CPU), and what it sees of
 *    another's activity;
 *  - hostile_clock_test.c: root setting the wall clock under a user's
 *    watchers and flipping clocks.
 */
#ifndef TEMPO_HOSTILE_H
#define TEMPO_HOSTILE_H

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

/* ---- test points and the fixture --------------------------------- */

/*
 * The test points a VM test may hold (hold_set(), common.h): the first
 * thread to reach the one named sleeps there until it is released;
 * tempo.test_held says 1 meanwhile.
 */

/* Wait until tempo.test_held reads @want: 0, or -ETIMEDOUT after @ms. */
static inline int hold_wait(long want, int ms)
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
static inline int case_cleanup(void)
{
	int ret = TEST_PASS;

	if (kids_cleanup())
		ret = TEST_FAIL;
	if (params_restore())
		ret = TEST_FAIL;
	if (case_changes()->hold_armed && hold_set("none")) {
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

/* ---- shared helpers ---------------------------------------------- */

/* A kernel without AF_UNIX (CONFIG_UNIX) has no such sink to refuse. */
static inline bool no_unix_sockets(int err)
{
	if (err != EAFNOSUPPORT)
		return false;
	test_diag("no AF_UNIX sockets in this kernel (CONFIG_UNIX): not tried");
	return true;
}

/* Pin the calling thread to @cpu: 0 or -errno. */
static inline int pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

static inline int pin_cpu0(void)
{
	return pin_cpu(0);
}

/* Wait until thread @tid sleeps (state S or D): 0, or -ETIMEDOUT after @ms. */
static inline int wait_asleep(pid_t tid, int ms)
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

/*
 * A program's main(): root and /dev/tempo or a skip, then its cases. A
 * program runs at most 480 s, within the VM runner's 600 s.
 */
static inline int hostile_main(const char *suite, const struct test_case *cases)
{
	int fd;

	fd = tempo_open(0);
	if (fd < 0 || geteuid())
		return test_skip_all("%s", fd < 0 ? "no " TEMPO_DEVICE :
				     "needs root (to drop to other uids)");
	close(fd);
	/* A kid gone before the parent writes to it is not the parent's death. */
	signal(SIGPIPE, SIG_IGN);
	alarm(480);
	/* A case waits up to 120 s for a kid; a case process up to this long. */
	test_timeout = 300;
	return test_run(suite, cases);
}

#endif /* TEMPO_HOSTILE_H */
