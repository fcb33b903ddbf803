/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the /dev/tempo userspace tests. */
#ifndef TEMPO_TEST_COMMON_H
#define TEMPO_TEST_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "libtempo.h"
#include "harness.h"

#define MS	1000000ULL	/* ns */

static inline struct tempo_ctx_stats ctx_stats(int fd)
{
	struct tempo_stats st;

	memset(&st, 0xff, sizeof(st));
	if (tempo_stats(fd, &st))
		test_diag("TEMPO_IOC_STATS failed");
	return st.ctx;
}

static inline struct tempo_mod_stats mod_stats(int fd)
{
	struct tempo_stats st;

	memset(&st, 0xff, sizeof(st));
	if (tempo_stats(fd, &st))
		test_diag("TEMPO_IOC_STATS failed");
	return st.mod;
}

/* Wait (up to @ms) until @fd has at least @n records ready. */
static inline int wait_ready(int fd, unsigned long n, int ms)
{
	while (ctx_stats(fd).events_ready < n) {
		if (ms-- <= 0)
			return -ETIMEDOUT;
		usleep(1000);
	}
	return 0;
}

/* Read a module parameter; -1 if it cannot. */
static inline long param_get(const char *name)
{
	char path[128], buf[32] = "";
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/tempo/parameters/%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f))
		v = strtol(buf, NULL, 0);
	fclose(f);
	return v;
}

static inline int param_set(const char *name, long v)
{
	char path[128];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/sys/module/tempo/parameters/%s", name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	ok = fprintf(f, "%ld\n", v) > 0;
	return fclose(f) == 0 && ok ? 0 : -EIO;
}

/* The number on line "@key:" of /proc/self/fdinfo/@fd, or -1. */
static inline long fdinfo_value(int fd, const char *key)
{
	char path[64], line[128];
	size_t klen = strlen(key);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ':')
			v = strtol(line + klen + 1, NULL, 10);
	fclose(f);
	return v;
}

/* Write @s to the file at @path (sysfs, procfs, cgroupfs): 0 or -errno. */
static inline int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * What a case changed outside its process, kept where the harness can undo
 * it if the case dies (test_shared, harness.h): the parameters it set
 * (param_push()) with their old values, and whether it holds a test point.
 */
struct case_changes {
	int nsaved;
	struct {
		const char *name;	/* a literal: the same address in every process */
		long old;
	} saved[8];
	int hold_armed;
};

static struct case_changes case_changes_here;

static inline struct case_changes *case_changes(void)
{
	_Static_assert(sizeof(struct case_changes) <= TEST_SHARED_SIZE, "test_shared too small");
	return test_shared ? test_shared : &case_changes_here;
}

/*
 * Set a parameter for this case, to be put back by params_restore() in its
 * teardown (or by the harness if it dies): 0, -ENOENT if it does not exist,
 * -EIO.
 */
static inline int param_push(const char *name, long v)
{
	struct case_changes *cc = case_changes();
	long old = param_get(name);

	if (old < 0)
		return -ENOENT;
	if (cc->nsaved == (int)(sizeof(cc->saved) / sizeof(cc->saved[0])))
		return -EIO;
	/* Recorded first: a case killed mid-write is still undone. */
	cc->saved[cc->nsaved].name = name;
	cc->saved[cc->nsaved].old = old;
	cc->nsaved++;
	if (param_set(name, v)) {
		cc->nsaved--;
		return -EIO;
	}
	return 0;
}

/* A per-user limit this case needs: param_push(), and a diagnostic if it fails. */
static inline int param_need(const char *name, long v)
{
	int err = param_push(name, v);

	if (err == -ENOENT)
		test_diag("module parameter %s: does not exist (no such per-user bound)", name);
	else if (err)
		test_diag("module parameter %s: cannot be set", name);
	return err;
}

/* Every parameter param_push() set back to its old value, last first: 0 or -EIO. */
static inline int params_restore(void)
{
	struct case_changes *cc = case_changes();
	int ret = 0;

	while (cc->nsaved) {
		cc->nsaved--;
		if (param_set(cc->saved[cc->nsaved].name, cc->saved[cc->nsaved].old)) {
			test_diag("cannot restore %s to %ld", cc->saved[cc->nsaved].name,
				  cc->saved[cc->nsaved].old);
			ret = -EIO;
		}
	}
	return ret;
}

/*
 * Name the test point @point in tempo.test_hold ("none" releases it): 0 or
 * -errno. The test points (kmod/testing.h) exist only in a module built with
 * TEMPO_TESTING (make check).
 */
static inline int hold_set(const char *point)
{
	int ret;

	if (strcmp(point, "none"))
		case_changes()->hold_armed = 1;
	ret = write_file("/sys/module/tempo/parameters/test_hold", point);
	if (!ret && !strcmp(point, "none"))
		case_changes()->hold_armed = 0;
	return ret;
}

/*
 * The harness's rescue of a case that died (harness.h): its parameters put
 * back and its test point released, from the harness's process.
 */
static int case_rescue(void)
{
	int ret = TEST_PASS;

	if (case_changes()->nsaved || case_changes()->hold_armed)
		test_diag("undoing what the case left: %d parameter(s)%s",
			  case_changes()->nsaved,
			  case_changes()->hold_armed ? ", a held test point" : "");
	if (params_restore())
		ret = TEST_FAIL;
	if (case_changes()->hold_armed && hold_set("none")) {
		test_diag("cannot release tempo.test_hold");
		ret = TEST_FAIL;
	}
	return ret;
}

__attribute__((constructor)) static void case_rescue_register(void)
{
	test_rescue = case_rescue;
}

/* Pass @fd over the unix socket @sock (SCM_RIGHTS): 0 or -errno. */
static inline int send_fd(int sock, int fd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	char c = 'f';
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);

	memset(&u, 0, sizeof(u));
	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(h), &fd, sizeof(int));
	return sendmsg(sock, &m, 0) == 1 ? 0 : -errno;
}

/* Receive a fd passed over @sock: the fd, or -errno. */
static inline int recv_fd(int sock)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	char c;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *h;
	int fd;

	if (recvmsg(sock, &m, MSG_CMSG_CLOEXEC) != 1)
		return -errno;
	h = CMSG_FIRSTHDR(&m);
	if (!h || h->cmsg_type != SCM_RIGHTS)
		return -EPROTO;
	memcpy(&fd, CMSG_DATA(h), sizeof(fd));
	return fd;
}

#endif /* TEMPO_TEST_COMMON_H */
