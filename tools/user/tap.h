/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal KTAP output for the userspace tests: one "ok N name" per case and
 * a nonzero exit status if any case failed. CHECK() records a failure and
 * goes on, so that one run reports every broken expectation of a case.
 */
#ifndef _TEMPO_TAP_H
#define _TEMPO_TAP_H

#include <stdio.h>
#include <stdlib.h>

extern unsigned long tempo_user_warnings;
static unsigned int tap_case_failed, tap_failed, tap_n;

#define CHECK(cond, fmt, ...) do {						\
	if (!(cond)) {								\
		tap_case_failed++;						\
		printf("    # %s:%d: CHECK(%s) failed: " fmt "\n",		\
		       __FILE__, __LINE__, #cond, ##__VA_ARGS__);		\
		fflush(stdout);							\
	}									\
} while (0)

static inline void tap_begin(const char *suite, unsigned int ncases)
{
	printf("KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: %s\n    1..%u\n",
	       suite, ncases);
	fflush(stdout);
}

static inline void tap_run(const char *name, void (*fn)(void))
{
	unsigned long warns = tempo_user_warnings;

	tap_case_failed = 0;
	fn();
	if (tempo_user_warnings != warns) {
		printf("    # %lu WARN(s) from the core\n", tempo_user_warnings - warns);
		tap_case_failed++;
	}
	tap_n++;
	if (tap_case_failed)
		tap_failed++;
	printf("    %s %u %s\n", tap_case_failed ? "not ok" : "ok", tap_n, name);
	fflush(stdout);
}

static inline int tap_end(const char *suite)
{
	printf("%s 1 %s\n", tap_failed ? "not ok" : "ok", suite);
	printf("# %s: %u passed, %u failed\n", suite, tap_n - tap_failed, tap_failed);
	return tap_failed ? 1 : 0;
}

#endif
