/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one harness of tempo's userspace tests: the /dev/tempo programs run in
 * the test VM (tools/uapi-tests/), the ioctl fuzzer (tools/fuzz/) and the
 * deterministic tests of the cores built in userspace (tools/user-cores/). Its
 * shape is the kernel's tools/testing/selftests/kselftest_harness.h: KTAP
 * out, ASSERT_*() and EXPECT_*() that print the failing expression and its
 * values, a "# Totals:" line and an exit status that says whether anything
 * failed. Cases sit in a table, as KUnit's do:
 *
 *	static int test_foo(void)
 *	{
 *		ASSERT_ERRNO(tempo_cancel_one(fd, id), -ENOENT);
 *		EXPECT_EQ(st.timers, 0, "after %u rounds", n);
 *		return TEST_PASS;
 *	}
 *
 *	static const struct test_case cases[] = { TEST_CASE(test_foo), {} };
 *
 *	int main(void) { return test_run("tempo_uapi", cases); }
 *
 * A case returns TEST_PASS, TEST_FAIL or TEST_SKIP (SKIP() gives a reason).
 * A case that returns void (TEST_CASE_VOID()) passes unless an expectation
 * fails. Either fails if any EXPECT_*() or ASSERT_*() failed while it ran.
 * ASSERT_*() ends the function it is in with "return TEST_FAIL"; EXPECT_*()
 * records the failure and goes on, so one run reports every broken
 * expectation. Each takes an optional printf-style message after its
 * operands. They may be used from any thread of the process; a forked child
 * reports through its exit status.
 *
 * Output (the VM indents it under the program's own result line and
 * kunit.py parses it; tools/user-cores/run.sh reads the exit status):
 *
 *	KTAP version 1
 *	# Subtest: tempo_uapi
 *	1..3
 *	# uapi_test.c:42: Expected st.timers (2) == 0 (0): after 5 rounds
 *	not ok 1 test_foo
 *	ok 2 test_bar
 *	ok 3 test_baz # SKIP no AF_UNIX sockets
 *	# Totals: pass:1 fail:1 skip:1
 *
 * Exit status: 0 if no case failed and one passed, TEST_SKIP (77, what the
 * VM runner and automake read as "skipped") if every case skipped, 1 if any
 * failed.
 *
 * Isolation, as kselftest_harness.h gives it: each case runs in a child
 * process of its own, in a process group of its own, forked from the
 * program as main() left it. What a case does to its process (memory it
 * corrupts, fds it leaks by an ASSERT, a signal it dies of, threads it
 * leaves running) ends with it; whatever it started in its process group is
 * killed when it ends. A case that dies of a signal, or exits other than
 * through the harness (a sanitizer's report at its exit, say), fails with a
 * diagnostic line saying so, and the next case runs. A case still running
 * after its timeout (test_case.timeout seconds, else test_timeout, 120
 * unless the program or TEST_TIMEOUT in the environment says otherwise) is
 * killed, with its group, and fails.
 *
 * A fixture is what several cases set up the same way and must undo however
 * they end, as kselftest_harness.h's FIXTURE is: its data, a setup and a
 * teardown, then cases that take the data as @self:
 *
 *	FIXTURE(ctx) { int fd; };
 *	FIXTURE_SETUP(ctx) { self->fd = tempo_open(0); ASSERT_GE(self->fd, 0); return TEST_PASS; }
 *	FIXTURE_TEARDOWN(ctx) { ASSERT_EQ(close(self->fd), 0); return TEST_PASS; }
 *
 *	TEST_F(ctx, test_foo) { ASSERT_ERRNO(tempo_info(self->fd, &in), 0); return TEST_PASS; }
 *
 *	static const struct test_case cases[] = { TEST_CASE_F(ctx, test_foo), {} };
 *
 * The case's process zeroes the data, runs the setup, then the case, then
 * the teardown, whatever the case returned: an ASSERT_*() that ends the
 * case does not skip the teardown. A setup that fails (or skips) fails (or
 * skips) the case, which does not run, nor does the teardown: a setup undoes
 * what it did before it fails. A teardown that returns TEST_FAIL, or during
 * which an expectation fails, fails the case, with a diagnostic line that
 * says so. A case's process that dies (a signal, its timeout) runs no
 * teardown; the kernel closes its files and the harness kills its process
 * group, and the diagnostic line says which stage it died in.
 *
 * What a case changes outside its process (a module parameter, a test point
 * it holds, the wall clock) does not end with it. A case records each such
 * change in test_shared, a page its process shares with the harness, zeroed
 * before each case; when a case's process dies before it ends (a signal, its
 * timeout, an exit in its setup, body or teardown), the harness calls
 * test_rescue(), in its own process, to undo what the record says, and the
 * next case starts from the state the suite expects. A case that ends, its
 * teardown run, is trusted to have undone its changes itself.
 *
 * The userspace build of the cores counts its WARN()s (tools/user-cores/sim.c);
 * it defines TEST_WARN_COUNT as that counter (tools/user-cores/user.mk), and a
 * case during which the counter grows fails.
 */
#ifndef TEMPO_TEST_HARNESS_H
#define TEMPO_TEST_HARNESS_H

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

enum { TEST_PASS = 0, TEST_FAIL = 1, TEST_SKIP = 77 };

/* A fixture's data (@size bytes, zeroed), its setup and its teardown; FIXTURE(). */
struct test_fixture {
	const char *name;
	size_t size;
	int (*setup)(void *self);	/* TEST_PASS, TEST_FAIL or TEST_SKIP */
	int (*teardown)(void *self);	/* TEST_PASS or TEST_FAIL */
};

struct test_case {
	const char *name;
	int (*fn)(void);	/* returns TEST_PASS, TEST_FAIL or TEST_SKIP */
	void (*run)(void);	/* or this: passes unless an expectation fails */
	int (*fn_f)(void *self);		/* or this, with @fixture's data */
	const struct test_fixture *fixture;
	unsigned int timeout;	/* seconds, 0: test_timeout */
};

#define TEST_CASE(f)		{ .name = #f, .fn = f }
#define TEST_CASE_VOID(f)	{ .name = #f, .run = f }
/* A case that may take longer than test_timeout: @secs. */
#define TEST_CASE_TIMEOUT(f, secs)	{ .name = #f, .fn = f, .timeout = (secs) }
/* A case of fixture @fx (TEST_F()). */
#define TEST_CASE_F(fx, f)	{ .name = #f, .fn_f = f, .fixture = &fx##_fixture }
/* A case of fixture @fx that may take longer than test_timeout: @secs. */
#define TEST_CASE_F_TIMEOUT(fx, f, secs)	\
	{ .name = #f, .fn_f = f, .fixture = &fx##_fixture, .timeout = (secs) }

/*
 * FIXTURE(fx) { members; }; then FIXTURE_SETUP(fx) { ... } and
 * FIXTURE_TEARDOWN(fx) { ... }, in this order, each returning a verdict;
 * then TEST_F(fx, name) { ... } for each case. Each body sees the data as
 * @self.
 */
#define FIXTURE_DATA(fx)	struct fx##_fixture_data
#define FIXTURE(fx)		FIXTURE_DATA(fx)

#define FIXTURE_SETUP(fx)						\
	static int fx##_setup(FIXTURE_DATA(fx) *self);			\
	static int fx##_setup_thunk(void *self)				\
	{								\
		return fx##_setup(self);				\
	}								\
	static int fx##_setup(__attribute__((unused)) FIXTURE_DATA(fx) *self)

#define FIXTURE_TEARDOWN(fx)						\
	static int fx##_teardown(FIXTURE_DATA(fx) *self);		\
	static int fx##_teardown_thunk(void *self)			\
	{								\
		return fx##_teardown(self);				\
	}								\
	static const struct test_fixture fx##_fixture = {		\
		.name = #fx,						\
		.size = sizeof(FIXTURE_DATA(fx)),			\
		.setup = fx##_setup_thunk,				\
		.teardown = fx##_teardown_thunk,			\
	};								\
	static int fx##_teardown(__attribute__((unused)) FIXTURE_DATA(fx) *self)

#define TEST_F(fx, f)							\
	static int f##_body(FIXTURE_DATA(fx) *self);			\
	static int f(void *self)					\
	{								\
		return f##_body(self);					\
	}								\
	static int f##_body(__attribute__((unused)) FIXTURE_DATA(fx) *self)

/* Seconds a case may run before it is killed; TEST_TIMEOUT in the environment wins. */
static unsigned int test_timeout = 120;

/* Where KTAP goes: stdout unless the program points it elsewhere. */
static FILE *test_out;
static unsigned long test_failures;	/* failed expectations, all cases */
static char test_skip_reason[128];

/* A case's record of what it changed outside its process; NULL if unshared. */
#define TEST_SHARED_SIZE 4096
static void *test_shared;
/* Undo what test_shared records; called in the harness's process. */
static int (*test_rescue)(void);

#ifdef TEST_WARN_COUNT
extern unsigned long TEST_WARN_COUNT;
#endif

static inline FILE *test_file(void)
{
	return test_out ? test_out : stdout;
}

/* A "# ..." diagnostic line. */
static inline __attribute__((format(printf, 1, 2))) void test_diag(const char *fmt, ...)
{
	FILE *f = test_file();
	va_list ap;

	flockfile(f);
	fputs("# ", f);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fflush(f);
	funlockfile(f);
}

/*
 * A failed expectation: "# file:line: Expected ...", then the caller's
 * message, if any (test_fail_msg()), then test_fail_end() ends the line.
 * The stream stays locked in between, so threads do not interleave.
 */
static inline __attribute__((format(printf, 3, 4)))
void test_fail_begin(const char *file, int line, const char *fmt, ...)
{
	const char *base = strrchr(file, '/');
	FILE *f = test_file();
	va_list ap;

	__atomic_fetch_add(&test_failures, 1, __ATOMIC_RELAXED);
	flockfile(f);
	fprintf(f, "# %s:%d: ", base ? base + 1 : file, line);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
}

static inline __attribute__((format(printf, 1, 2))) void test_fail_msg(const char *fmt, ...)
{
	FILE *f = test_file();
	va_list ap;

	fputs(": ", f);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
}

static inline void test_fail_end(void)
{
	FILE *f = test_file();

	fputc('\n', f);
	fflush(f);
	funlockfile(f);
}

static inline void test_fail_cmp(const char *file, int line, const char *a, const char *op,
				 const char *b, int a_signed, unsigned long long va,
				 int b_signed, unsigned long long vb)
{
	char sa[24], sb[24];

	snprintf(sa, sizeof(sa), a_signed ? "%lld" : "%llu", va);
	snprintf(sb, sizeof(sb), b_signed ? "%lld" : "%llu", vb);
	test_fail_begin(file, line, "Expected %s (%s) %s %s (%s)", a, sa, op, b, sb);
}

static inline void test_fail_errno(const char *file, int line, const char *expr, long got,
				   const char *wexpr, long want)
{
	test_fail_begin(file, line, "Expected %s (%ld%s%s) == %s (%ld%s%s)", expr, got,
			got < 0 ? " " : "", got < 0 ? strerror((int)-got) : "", wexpr, want,
			want < 0 ? " " : "", want < 0 ? strerror((int)-want) : "");
}

#define __TEST_SIGNED(x)						\
	_Generic((x), signed char: 1, short: 1, int: 1, long: 1, long long: 1, default: 0)

/* What a failed check does after its report: ASSERT ends the function. */
#define __TEST_ON_FAIL_ASSERT	return TEST_FAIL
#define __TEST_ON_FAIL_EXPECT	do { } while (0)

#define __TEST_BOOL(cond, text, expected, on_fail, ...) do {		\
	if (!(cond) != !(expected)) {					\
		test_fail_begin(__FILE__, __LINE__, (expected) ?	\
				"Expected %s" : "Expected !(%s)", text); \
		__VA_OPT__(test_fail_msg(__VA_ARGS__);)			\
		test_fail_end();					\
		on_fail;						\
	}								\
} while (0)

/*
 * Each operand is evaluated once; the comparison is the one the operands'
 * own types give, as if written out (an int constant against an unsigned
 * value raises no sign warning there, hence the pragma).
 */
#define __TEST_CMP(a, op, b, text_a, text_b, on_fail, ...) do {		\
	__typeof__(a) __a = (a);					\
	__typeof__(b) __b = (b);					\
	int __ok;							\
	_Pragma("GCC diagnostic push")					\
	_Pragma("GCC diagnostic ignored \"-Wsign-compare\"")		\
	__ok = __a op __b;						\
	_Pragma("GCC diagnostic pop")					\
	if (!__ok) {							\
		test_fail_cmp(__FILE__, __LINE__, text_a, #op, text_b,	\
			      __TEST_SIGNED(__a), (unsigned long long)__a, \
			      __TEST_SIGNED(__b), (unsigned long long)__b); \
		__VA_OPT__(test_fail_msg(__VA_ARGS__);)			\
		test_fail_end();					\
		on_fail;						\
	}								\
} while (0)

/* A call that returns 0 or -errno (libtempo) gives @want; both printed with strerror(). */
#define __TEST_ERRNO(expr, want, text_e, text_w, on_fail, ...) do {	\
	long __r = (long)(expr), __w = (long)(want);			\
	if (__r != __w) {						\
		test_fail_errno(__FILE__, __LINE__, text_e, __r, text_w, __w); \
		__VA_OPT__(test_fail_msg(__VA_ARGS__);)			\
		test_fail_end();					\
		on_fail;						\
	}								\
} while (0)

#define ASSERT_TRUE(c, ...)	__TEST_BOOL(c, #c, 1, __TEST_ON_FAIL_ASSERT, ##__VA_ARGS__)
#define ASSERT_FALSE(c, ...)	__TEST_BOOL(c, #c, 0, __TEST_ON_FAIL_ASSERT, ##__VA_ARGS__)
#define ASSERT_EQ(a, b, ...)	__TEST_CMP(a, ==, b, #a, #b, __TEST_ON_FAIL_ASSERT, ##__VA_ARGS__)
#define ASSERT_NE(a, b, ...)	__TEST_CMP(a, !=, b, #a, #b, __TEST_ON_FAIL_ASSERT, ##__VA_ARGS__)
#define ASSERT_LT(a, b, ...)	__TEST_CMP(a, <, b, #a, #b, __TEST_ON_FAIL_ASSERT, ##__VA_ARGS__)
#define ASSERT_LE(a, b, ...)	__TEST_CMP(a, <=, b, #a, #b, __TEST_ON_FAIL_ASSERT, ##__VA_ARGS__)
#define ASSERT_GT(a, b, ...)	__TEST_CMP(a, >, b, #a, #b, __TEST_ON_FAIL_ASSERT, ##__VA_ARGS__)
#define ASSERT_GE(a, b, ...)	__TEST_CMP(a, >=, b, #a, #b, __TEST_ON_FAIL_ASSERT, ##__VA_ARGS__)
#define ASSERT_ERRNO(e, w, ...)	__TEST_ERRNO(e, w, #e, #w, __TEST_ON_FAIL_ASSERT, ##__VA_ARGS__)

#define EXPECT_TRUE(c, ...)	__TEST_BOOL(c, #c, 1, __TEST_ON_FAIL_EXPECT, ##__VA_ARGS__)
#define EXPECT_FALSE(c, ...)	__TEST_BOOL(c, #c, 0, __TEST_ON_FAIL_EXPECT, ##__VA_ARGS__)
#define EXPECT_EQ(a, b, ...)	__TEST_CMP(a, ==, b, #a, #b, __TEST_ON_FAIL_EXPECT, ##__VA_ARGS__)
#define EXPECT_NE(a, b, ...)	__TEST_CMP(a, !=, b, #a, #b, __TEST_ON_FAIL_EXPECT, ##__VA_ARGS__)
#define EXPECT_LT(a, b, ...)	__TEST_CMP(a, <, b, #a, #b, __TEST_ON_FAIL_EXPECT, ##__VA_ARGS__)
#define EXPECT_LE(a, b, ...)	__TEST_CMP(a, <=, b, #a, #b, __TEST_ON_FAIL_EXPECT, ##__VA_ARGS__)
#define EXPECT_GT(a, b, ...)	__TEST_CMP(a, >, b, #a, #b, __TEST_ON_FAIL_EXPECT, ##__VA_ARGS__)
#define EXPECT_GE(a, b, ...)	__TEST_CMP(a, >=, b, #a, #b, __TEST_ON_FAIL_EXPECT, ##__VA_ARGS__)
#define EXPECT_ERRNO(e, w, ...)	__TEST_ERRNO(e, w, #e, #w, __TEST_ON_FAIL_EXPECT, ##__VA_ARGS__)

/* Skip the current case, with a reason for its result line: SKIP(return TEST_SKIP, "no %s", x). */
#define SKIP(statement, fmt, ...) do {					\
	snprintf(test_skip_reason, sizeof(test_skip_reason), fmt, ##__VA_ARGS__); \
	statement;							\
} while (0)

/* The whole program skips (no device, not root): KTAP that says so, and TEST_SKIP. */
static inline __attribute__((format(printf, 1, 2))) int test_skip_all(const char *fmt, ...)
{
	FILE *f = test_file();
	va_list ap;

	fputs("KTAP version 1\n1..0 # SKIP ", f);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fflush(f);
	return TEST_SKIP;
}

/* Where a case's process is: the parent names the stage it died in. */
enum test_stage { TEST_IN_SETUP, TEST_IN_BODY, TEST_IN_TEARDOWN, TEST_DONE };

static const char *const test_stage_name[] = {
	[TEST_IN_SETUP] = "its fixture's setup",
	[TEST_IN_BODY] = "its body",
	[TEST_IN_TEARDOWN] = "its fixture's teardown",
	[TEST_DONE] = "its exit",
};

/* What a case's process hands back: its verdict, a reason to skip, its stage. */
struct test_outcome {
	int rc;
	char skip_reason[sizeof(test_skip_reason)];
	enum test_stage stage;
};

static inline unsigned long test_failed(void)
{
	return __atomic_load_n(&test_failures, __ATOMIC_RELAXED);
}

/*
 * Case @c with its fixture: setup, body, then teardown whatever the body
 * returned. @out->stage follows it, for a parent that outlives it.
 */
static inline int test_run_fixture(const struct test_case *c, struct test_outcome *out)
{
	const struct test_fixture *fx = c->fixture;
	unsigned long fails = test_failed();
	void *self = calloc(1, fx->size ? fx->size : 1);
	int rc, td;

	if (!self) {
		test_diag("%s: no memory for fixture %s", c->name, fx->name);
		return TEST_FAIL;
	}
	out->stage = TEST_IN_SETUP;
	rc = fx->setup(self);
	if (rc == TEST_PASS && test_failed() != fails)
		rc = TEST_FAIL;
	if (rc != TEST_PASS) {
		if (rc != TEST_SKIP)
			test_diag("%s: fixture %s: setup failed", c->name, fx->name);
		free(self);
		return rc;
	}
	out->stage = TEST_IN_BODY;
	rc = c->fn_f(self);
	out->stage = TEST_IN_TEARDOWN;
	fails = test_failed();
	td = fx->teardown(self);
	if (td != TEST_PASS || test_failed() != fails) {
		test_diag("%s: fixture %s: teardown failed", c->name, fx->name);
		rc = TEST_FAIL;
	}
	free(self);
	return rc;
}

/* Run case @c here, in its own process: its verdict, expectations and WARN()s counted. */
static inline int test_run_here(const struct test_case *c, struct test_outcome *out)
{
	unsigned long fails = test_failed();
#ifdef TEST_WARN_COUNT
	unsigned long warns = TEST_WARN_COUNT;
#endif
	int rc;

	test_skip_reason[0] = '\0';
	out->stage = TEST_IN_BODY;
	if (c->fixture) {
		rc = test_run_fixture(c, out);
	} else if (c->fn) {
		rc = c->fn();
	} else {
		c->run();
		rc = TEST_PASS;
	}
	out->stage = TEST_DONE;
#ifdef TEST_WARN_COUNT
	if (warns != TEST_WARN_COUNT) {
		test_diag("%lu WARN(s) from the core", TEST_WARN_COUNT - warns);
		rc = TEST_FAIL;
	}
#endif
	if (test_failed() != fails)
		rc = TEST_FAIL;
	return rc;
}

static inline unsigned long long test_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/* For the diagnostic of a case that died: whether its fixture's teardown was cut short. */
static inline const char *test_no_teardown(const struct test_case *c,
					   const struct test_outcome *out)
{
	return c->fixture && out->stage != TEST_DONE && out->stage != TEST_IN_SETUP ?
	       "; its fixture's teardown did not finish" : "";
}

/*
 * Fork case @c, wait for it at most @secs, and kill what is left of its
 * process group. Return: its verdict; @out->skip_reason for a skip.
 */
static inline int test_run_forked(const struct test_case *c, struct test_outcome *out,
				  unsigned int secs)
{
	unsigned long long end = test_mono_ms() + secs * 1000ULL;
	const struct timespec nap = { .tv_nsec = 5 * 1000 * 1000 };
	int status = 0, rc;
	pid_t pid, r;

	out->rc = -1;
	out->skip_reason[0] = '\0';
	out->stage = TEST_IN_BODY;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		test_diag("%s: fork: %s; run in the harness's process", c->name, strerror(errno));
		rc = test_run_here(c, out);
		memcpy(out->skip_reason, test_skip_reason, sizeof(out->skip_reason));
		return rc;
	}
	if (!pid) {
		setpgid(0, 0);
		rc = test_run_here(c, out);
		memcpy(out->skip_reason, test_skip_reason, sizeof(out->skip_reason));
		out->rc = rc;
		fflush(NULL);
		/* exit(), not _exit(): a sanitizer's exit-time checks still run. */
		exit(rc);
	}
	setpgid(pid, pid);
	while ((r = waitpid(pid, &status, WNOHANG)) == 0 && test_mono_ms() < end)
		nanosleep(&nap, NULL);
	if (r == 0) {
		kill(-pid, SIGKILL);
		waitpid(pid, &status, 0);
		test_diag("%s: still running after %u s, in %s: killed%s", c->name, secs,
			  test_stage_name[out->stage], test_no_teardown(c, out));
		rc = TEST_FAIL;
	} else if (WIFSIGNALED(status)) {
		test_diag("%s: killed by signal %d (%s) in %s%s", c->name, WTERMSIG(status),
			  strsignal(WTERMSIG(status)), test_stage_name[out->stage],
			  test_no_teardown(c, out));
		rc = TEST_FAIL;
	} else if (out->rc < 0 || WEXITSTATUS(status) != out->rc) {
		test_diag("%s: exited with status %d %s its verdict, in %s%s", c->name,
			  WEXITSTATUS(status), out->rc < 0 ? "before" : "after",
			  test_stage_name[out->stage], test_no_teardown(c, out));
		rc = TEST_FAIL;
	} else {
		rc = out->rc;
	}
	/* Whatever the case left running in its group goes with it. */
	kill(-pid, SIGKILL);
	if (out->stage != TEST_DONE && test_rescue && test_rescue() != TEST_PASS) {
		test_diag("%s: what it changed outside its process could not be undone",
			  c->name);
		rc = TEST_FAIL;
	}
	return rc;
}

static inline int test_run(const char *suite, const struct test_case *cases)
{
	unsigned int n = 0, i, failed = 0, skipped = 0, secs;
	const char *env = getenv("TEST_TIMEOUT");
	struct test_outcome *out;
	FILE *f = test_file();
	struct test_outcome here;
	int rc;

	while (cases[n].name)
		n++;
	out = mmap(NULL, sizeof(*out), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!test_shared && out != MAP_FAILED) {
		test_shared = mmap(NULL, TEST_SHARED_SIZE, PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (test_shared == MAP_FAILED) {
			/* No rescue: run the cases in this process. */
			test_shared = NULL;
			munmap(out, sizeof(*out));
			out = MAP_FAILED;
		}
	}
	fprintf(f, "KTAP version 1\n# Subtest: %s\n1..%u\n", suite, n);
	fflush(f);
	for (i = 0; i < n; i++) {
		secs = cases[i].timeout ? cases[i].timeout : test_timeout;
		if (env && atoi(env) > 0)
			secs = atoi(env);
		if (test_shared)
			memset(test_shared, 0, TEST_SHARED_SIZE);
		if (out != MAP_FAILED) {
			rc = test_run_forked(&cases[i], out, secs);
		} else {
			rc = test_run_here(&cases[i], &here);
		}
		if (rc == TEST_SKIP) {
			const char *why = out != MAP_FAILED ? out->skip_reason : test_skip_reason;

			fprintf(f, "ok %u %s # SKIP%s%s\n", i + 1, cases[i].name,
				why[0] ? " " : "", why);
			skipped++;
		} else if (rc == TEST_PASS) {
			fprintf(f, "ok %u %s\n", i + 1, cases[i].name);
		} else {
			fprintf(f, "not ok %u %s\n", i + 1, cases[i].name);
			failed++;
		}
		fflush(f);
	}
	if (out != MAP_FAILED)
		munmap(out, sizeof(*out));
	fprintf(f, "# Totals: pass:%u fail:%u skip:%u\n", n - failed - skipped, failed, skipped);
	fflush(f);
	if (failed)
		return TEST_FAIL;
	return skipped == n ? TEST_SKIP : TEST_PASS;
}

#endif /* TEMPO_TEST_HARNESS_H */
