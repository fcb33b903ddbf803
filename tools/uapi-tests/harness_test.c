// SPDX-License-Identifier: GPL-2.0
/*
 * harness_test: the test harness (harness.h) undoes what a dying case left.
 *
 * An inner suite runs four cases through test_run(), its KTAP into a file:
 * a case that records a change in test_shared and dies of SIGKILL in its
 * body; one that records a change and ends normally (trusted to have undone
 * it); one that checks it starts with test_shared zeroed; one whose
 * fixture's teardown records a change and dies. Its test_rescue() hook keeps,
 * in the harness's process, what each call found. The outer cases, forked
 * after the inner suite ended, check that the rescue ran exactly for the two
 * cases that died, with their records, and that the inner verdicts are what
 * each case earned.
 * Fails if: the harness does not call test_rescue() after a case's process
 * dies (seen failing: no rescue, 0 of 2), calls it after a case that ended
 * (seen failing: 4 rescues), or does not zero test_shared between cases
 * (seen failing: case 3 found 7).
 */
#define _GNU_SOURCE
#include "harness.h"

#define MAX_RESCUES 8

static int rescued[MAX_RESCUES];	/* in the harness's process */
static int nrescued;
static int inner_rc = -1;
static char inner_ktap[4096];

static int record_rescue(void)
{
	int *rec = test_shared;

	if (nrescued < MAX_RESCUES)
		rescued[nrescued] = *rec;
	nrescued++;
	*rec = 0;
	return TEST_PASS;
}

static int inner_dies_in_body(void)
{
	*(int *)test_shared = 42;
	raise(SIGKILL);
	return TEST_PASS;
}

static int inner_starts_clean(void)
{
	ASSERT_EQ(*(int *)test_shared, 0);
	return TEST_PASS;
}

static int inner_ends(void)
{
	*(int *)test_shared = 7;
	return TEST_PASS;
}

FIXTURE(dies) {
	int unused;
};

FIXTURE_SETUP(dies)
{
	return TEST_PASS;
}

FIXTURE_TEARDOWN(dies)
{
	*(int *)test_shared = 9;
	raise(SIGKILL);
	return TEST_PASS;
}

TEST_F(dies, inner_dies_in_teardown)
{
	return TEST_PASS;
}

static const struct test_case inner_cases[] = {
	TEST_CASE(inner_dies_in_body),
	TEST_CASE(inner_ends),
	TEST_CASE(inner_starts_clean),
	TEST_CASE_F(dies, inner_dies_in_teardown),
	{}
};

static int test_rescue_after_each_death(void)
{
	ASSERT_EQ(nrescued, 2);
	ASSERT_EQ(rescued[0], 42);
	ASSERT_EQ(rescued[1], 9);
	return TEST_PASS;
}

static int test_inner_verdicts(void)
{
	ASSERT_EQ(inner_rc, TEST_FAIL);
	ASSERT_TRUE(strstr(inner_ktap, "not ok 1 inner_dies_in_body\n") != NULL);
	ASSERT_TRUE(strstr(inner_ktap, "\nok 3 inner_starts_clean\n") != NULL);
	ASSERT_TRUE(strstr(inner_ktap, "\nok 2 inner_ends\n") != NULL);
	ASSERT_TRUE(strstr(inner_ktap, "not ok 4 inner_dies_in_teardown\n") != NULL);
	return TEST_PASS;
}

static const struct test_case cases[] = {
	TEST_CASE(test_rescue_after_each_death),
	TEST_CASE(test_inner_verdicts),
	{}
};

int main(void)
{
	FILE *f = tmpfile();
	size_t n;

	if (!f)
		return test_skip_all("no temporary file: %s", strerror(errno));
	test_out = f;
	test_rescue = record_rescue;
	inner_rc = test_run("inner", inner_cases);
	test_rescue = NULL;
	test_out = NULL;
	rewind(f);
	n = fread(inner_ktap, 1, sizeof(inner_ktap) - 1, f);
	inner_ktap[n] = '\0';
	fclose(f);
	return test_run("harness", cases);
}
