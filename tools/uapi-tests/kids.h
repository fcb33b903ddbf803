/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Children of a VM test case, each running one side of a test (an attacker,
 * another user, a process in another namespace, the ioctl fuzzer's
 * unprivileged pass) under a uid of its own, or the case's. It talks to the
 * case through two pipes: it says ints up (say()) and waits for a go-ahead
 * down (await_go()); the case hears it (kid_hear()), lets it go on
 * (kid_go()) and takes its verdict within a bound (kid_finish()), else
 * kills it and says where it was stuck (/proc/PID/syscall and wchan). A
 * failed expectation in a kid fails its verdict, as in a case. A kid
 * stuck in the kernel is killed; one stuck writing to a full sink pipe is
 * released by draining that pipe (drain_fd); one that ends neither way is
 * left behind, and said so.
 *
 * Each case of the harness runs in a process of its own, so the table of
 * kids is the case's; kids_cleanup(), from the case's fixture teardown,
 * kills whatever the case left running.
 */
#ifndef TEMPO_TEST_KIDS_H
#define TEMPO_TEST_KIDS_H

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "harness.h"

#define KILL_MS		5000	/* SIGKILL must end a process within this */
#define KID_SAME_UID	((uid_t)-1)	/* kid_start(): keep the case's credentials */

/* A kid, in the case's table of them. */
struct kid {
	pid_t pid;
	uid_t uid;
	int up;		/* the parent reads what the kid says */
	int down;	/* the parent writes go-aheads */
	int status;
	bool live;
};

#define MAX_KIDS	8
static struct kid kids[MAX_KIDS];
static int kid_up = -1, kid_down = -1;	/* in a kid: its ends of the pipes */
static int drain_fd = -1;		/* a case's full sink pipe, to release stuck writers */
static int left_behind;			/* kids that SIGKILL and draining did not end */

typedef int (*kid_fn_t)(void *arg);

/* CLOCK_MONOTONIC in ms. */
static inline uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

static inline int drop_to(uid_t uid)
{
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		return -errno;
	if (geteuid() != uid || getegid() != uid)
		return -EPERM;
	/* Set after the change of credentials, which clears it. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	return 0;
}

static inline int kid_same_uid(void)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	return 0;
}

/*
 * Fork a kid that runs @fn(@arg) as @uid (its groups dropped), or as the
 * case (KID_SAME_UID), and ends with its verdict; it dies with the case.
 * NULL if the table is full or the fork fails.
 */
static inline struct kid *kid_start(uid_t uid, kid_fn_t fn, void *arg)
{
	struct kid *k = NULL;
	int up[2], down[2], i, err, rc;
	unsigned long fails;

	for (i = 0; i < MAX_KIDS && !k; i++)
		if (!kids[i].live)
			k = &kids[i];
	if (!k || pipe2(up, O_CLOEXEC))
		return NULL;
	if (pipe2(down, O_CLOEXEC)) {
		close(up[0]);
		close(up[1]);
		return NULL;
	}
	fflush(NULL);
	k->pid = fork();
	if (k->pid < 0) {
		close(up[0]);
		close(up[1]);
		close(down[0]);
		close(down[1]);
		return NULL;
	}
	if (!k->pid) {
		close(up[0]);
		close(down[1]);
		kid_up = up[1];
		kid_down = down[0];
		err = uid == KID_SAME_UID ? kid_same_uid() : drop_to(uid);
		if (err) {
			test_diag("uid %u: cannot drop privileges: %s", uid, strerror(-err));
			_exit(TEST_FAIL);
		}
		fails = test_failed();
		rc = fn(arg);
		/* A failed expectation fails the kid too: its exit status is all it says. */
		if (rc == TEST_PASS && test_failed() != fails)
			rc = TEST_FAIL;
		fflush(NULL);
		_exit(rc);
	}
	close(up[1]);
	close(down[0]);
	k->uid = uid == KID_SAME_UID ? geteuid() : uid;
	k->up = up[0];
	k->down = down[1];
	k->live = true;
	return k;
}

/* In a kid: tell the parent @v. */
static inline void say(int v)
{
	if (write(kid_up, &v, sizeof(v)) != sizeof(v))
		_exit(TEST_FAIL);
}

/* In a kid: wait for the parent's go-ahead. */
static inline int await_go(void)
{
	int v;

	return read(kid_down, &v, sizeof(v)) == sizeof(v) ? v : -1;
}

/* In a kid: has the parent said anything yet (a go-ahead to stop)? */
static inline bool kid_told_to_stop(void)
{
	struct pollfd p = { .fd = kid_down, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

/* The next int @k says, within @ms: -ETIMEDOUT, or -EPIPE once it is gone. */
static inline int kid_hear(struct kid *k, int ms)
{
	struct pollfd p = { .fd = k->up, .events = POLLIN };
	int v;

	if (poll(&p, 1, ms) <= 0)
		return -ETIMEDOUT;
	if (read(k->up, &v, sizeof(v)) != sizeof(v))
		return -EPIPE;
	return v;
}

static inline void kid_go(struct kid *k, int v)
{
	if (write(k->down, &v, sizeof(v)) != sizeof(v))
		test_diag("pid %d: go-ahead not delivered", k->pid);
}

static inline void kid_forget(struct kid *k)
{
	close(k->up);
	close(k->down);
	k->live = false;
}

/* Drain the case's sink pipe, if any: a blocked sink writer moves on. */
static inline void drain_sink(void)
{
	static char buf[65536];

	if (drain_fd >= 0)
		while (read(drain_fd, buf, sizeof(buf)) > 0)
			;
}

/* Reap @k within @ms (draining the sink pipe meanwhile if @drain): 0 or -ETIMEDOUT. */
static inline int kid_reap(struct kid *k, int ms, bool drain)
{
	uint64_t end = now_ms() + ms;
	pid_t r;

	for (;;) {
		r = waitpid(k->pid, &k->status, WNOHANG);
		if (r == k->pid || (r < 0 && errno == ECHILD)) {
			if (r < 0)
				k->status = TEST_FAIL << 8;
			kid_forget(k);
			return 0;
		}
		if (now_ms() >= end)
			return -ETIMEDOUT;
		if (drain)
			drain_sink();
		usleep(2000);
	}
}

/* First word of /proc/@pid/@file, in @buf; "" if unreadable. */
static inline char *proc_word(pid_t pid, const char *file, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	buf[0] = 0;
	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return buf;
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	buf[strcspn(buf, " \n")] = 0;
	return buf;
}

/* /proc/@pid/stat from the state field on, in @buf; NULL if it is gone. */
static inline const char *proc_stat(pid_t pid, char *buf, size_t len)
{
	char path[64], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p + 2 : NULL;
}

/* The process state letter of @pid, 0 if it is gone. */
static inline char proc_state(pid_t pid)
{
	char buf[512];
	const char *p = proc_stat(pid, buf, sizeof(buf));

	return p ? p[0] : 0;
}

/* Numeric field @n (3 and on) of /proc/@pid/stat; -1 if it is gone. */
static inline long long proc_field(pid_t pid, int n)
{
	char buf[512];
	const char *p = proc_stat(pid, buf, sizeof(buf));
	int field;

	for (field = 3; p && field < n; field++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	return p ? strtoll(p, NULL, 10) : -1;
}

/* System time of @pid in clock ticks (field 15 of its stat), -1 if it is gone. */
static inline long long proc_stime(pid_t pid)
{
	return proc_field(pid, 15);
}

/* Field 9 of /proc/@pid/stat, the task's flags; -1 if unreadable. */
static inline long long proc_flags(pid_t pid)
{
	return proc_field(pid, 9);
}

#define PF_EXITING	0x00000004	/* include/linux/sched.h */

/*
 * Wait until @pid has left its system call for exit (PF_EXITING, or gone):
 * 0, or -ETIMEDOUT after @ms. What follows, the exit's teardown of its
 * files, is the kernel's own work, as long as the files are big.
 */
static inline int wait_exiting(pid_t pid, int ms)
{
	uint64_t end = now_ms() + ms;
	long long flags;

	for (;;) {
		flags = proc_flags(pid);
		if (flags < 0 || (flags & PF_EXITING) || proc_state(pid) == 'Z')
			return 0;
		if (now_ms() >= end)
			return -ETIMEDOUT;
		usleep(2000);
	}
}

/* Where @pid is: "state D, syscall 3, wchan __flush_workqueue". */
static inline const char *proc_where(pid_t pid)
{
	static char out[160];
	char sc[64], wc[64];

	proc_word(pid, "syscall", sc, sizeof(sc));
	proc_word(pid, "wchan", wc, sizeof(wc));
	snprintf(out, sizeof(out), "state %c, syscall %s, wchan %s", proc_state(pid) ?: '-',
		 sc, wc);
	return out;
}

/*
 * Wait until @pid sleeps in system call @nr: 0, -ESRCH if it ended first,
 * -ETIMEDOUT after @ms.
 */
static inline int wait_in_syscall(pid_t pid, long nr, int ms)
{
	uint64_t end = now_ms() + ms;
	char buf[64], st;

	for (;;) {
		st = proc_state(pid);
		if (!st || st == 'Z' || st == 'X')
			return -ESRCH;
		if ((st == 'S' || st == 'D') &&
		    strtol(proc_word(pid, "syscall", buf, sizeof(buf)), NULL, 10) == nr &&
		    isdigit((unsigned char)buf[0]))
			return 0;
		if (now_ms() >= end)
			return -ETIMEDOUT;
		usleep(2000);
	}
}

/*
 * SIGKILL @k and reap it: within @ms on its own, else within 20 s more while
 * the case's sink pipe is drained. 0 if it ended within @ms.
 */
static inline int kid_kill(struct kid *k, int ms)
{
	char where[160];
	pid_t pid = k->pid;

	kill(pid, SIGKILL);
	if (!kid_reap(k, ms, false))
		return 0;
	snprintf(where, sizeof(where), "%s", proc_where(pid));
	test_diag("pid %d (uid %u): still there %d ms after SIGKILL (%s)", pid, k->uid, ms,
		  where);
	if (drain_fd >= 0 && !kid_reap(k, 20000, true)) {
		test_diag("pid %d: ended once its sink pipe was drained", pid);
		return -ETIMEDOUT;
	}
	if (k->live) {
		test_diag("pid %d: left behind, unkillable (%s)", pid, proc_where(pid));
		left_behind++;
		kid_forget(k);
	}
	return -ETIMEDOUT;
}

/* How @k ended, as a KTAP verdict. */
static inline int kid_verdict(const struct kid *k)
{
	if (WIFSIGNALED(k->status)) {
		test_diag("pid %d (uid %u): killed by signal %d", k->pid, k->uid,
			  WTERMSIG(k->status));
		return TEST_FAIL;
	}
	return WIFEXITED(k->status) ? WEXITSTATUS(k->status) : TEST_FAIL;
}

/* Let @k end within @ms and return its verdict; a kid still running fails. */
static inline int kid_finish(struct kid *k, int ms)
{
	if (kid_reap(k, ms, false)) {
		test_diag("pid %d (uid %u): still running after %d ms (%s)", k->pid, k->uid, ms,
			  proc_where(k->pid));
		kid_kill(k, KILL_MS);
		return TEST_FAIL;
	}
	return kid_verdict(k);
}

/* @fn(@arg) in a kid as @uid (kid_start()): its verdict within @ms (kid_finish()). */
static inline int kid_run(uid_t uid, kid_fn_t fn, void *arg, int ms)
{
	struct kid *k = kid_start(uid, fn, arg);

	ASSERT_TRUE(k);
	return kid_finish(k, ms);
}

/*
 * After a case: its kids still running killed (and released), its sink
 * pipe closed. 0, or -1 if a kid of the case could not be ended.
 */
static inline int kids_cleanup(void)
{
	int i;

	for (i = 0; i < MAX_KIDS; i++)
		if (kids[i].live)
			kid_kill(&kids[i], KILL_MS);
	if (drain_fd >= 0)
		close(drain_fd);
	drain_fd = -1;
	if (left_behind)
		test_diag("%d child processes could not be ended", left_behind);
	return left_behind ? -1 : 0;
}

#endif /* TEMPO_TEST_KIDS_H */
