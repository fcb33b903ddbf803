/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny KTAP producer for the userspace tests run in the test VM.
 *
 *	static int test_foo(void) { CHECK(x == 1); return KTAP_PASS; }
 *	static const struct ktap_case cases[] = { KTAP_CASE(test_foo), {} };
 *	int main(void) { return ktap_run("tempo_uapi", cases); }
 *
 * Output: "KTAP version 1", "1..N", one "ok N name" / "not ok N name" per case,
 * diagnostics as "# ..." lines. Exit status: 0 all passed, 1 otherwise, 77 all
 * skipped.
 */
#ifndef TEMPO_KTAP_H
#define TEMPO_KTAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { KTAP_PASS = 0, KTAP_FAIL = 1, KTAP_SKIP = 77 };

struct ktap_case {
	const char *name;
	int (*fn)(void);
};

#define KTAP_CASE(fn) { #fn, fn }

static inline void ktap_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

/* Fail the current case with the expression and where it is. */
#define CHECK(cond) do {						\
	if (!(cond)) {							\
		ktap_diag("%s:%d: CHECK(%s) failed", __FILE__, __LINE__, #cond); \
		return KTAP_FAIL;					\
	}								\
} while (0)

/* Expect a libtempo call (or anything returning -errno) to give @want. */
#define CHECK_ERR(expr, want) do {					\
	long __r = (long)(expr);					\
	if (__r != (long)(want)) {					\
		ktap_diag("%s:%d: %s = %ld (%s), want %ld (%s)", __FILE__, __LINE__, \
			  #expr, __r, __r < 0 ? strerror((int)-__r) : "-",	\
			  (long)(want), (want) < 0 ? strerror(-(want)) : "-"); \
		return KTAP_FAIL;					\
	}								\
} while (0)

static inline int ktap_run(const char *suite, const struct ktap_case *cases)
{
	int n = 0, i, rc, failed = 0, skipped = 0;

	while (cases[n].name)
		n++;
	printf("KTAP version 1\n# Subtest: %s\n1..%d\n", suite, n);
	fflush(stdout);
	for (i = 0; i < n; i++) {
		rc = cases[i].fn();
		if (rc == KTAP_SKIP) {
			printf("ok %d %s # SKIP\n", i + 1, cases[i].name);
			skipped++;
		} else if (rc == KTAP_PASS) {
			printf("ok %d %s\n", i + 1, cases[i].name);
		} else {
			printf("not ok %d %s\n", i + 1, cases[i].name);
			failed++;
		}
		fflush(stdout);
	}
	ktap_diag("%s: pass:%d fail:%d skip:%d total:%d", suite,
		  n - failed - skipped, failed, skipped, n);
	if (failed)
		return 1;
	return skipped == n ? 77 : 0;
}

#endif /* TEMPO_KTAP_H */
