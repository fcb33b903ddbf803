// SPDX-License-Identifier: GPL-2.0
/*
 * tempo_mt: /dev/tempo with many threads. Readers that must never see a
 * record twice and must account for every timer (armed = read + cancelled),
 * submitters whose completions must come out in ticket order (as records and
 * through a sink), exclusive wake-ups, epoll, and never-early deadlines.
 * KTAP on stdout.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "common.h"

#define NREADERS	4
#define NTIMERS		4000
#define NSUBMITTERS	4
#define NSUBMITS	2000

static int gfd;
static atomic_int stop;
static atomic_uint_fast64_t seen[NTIMERS];	/* by cookie: times received */
static atomic_uint_fast64_t received, early, dup_ids, bad_ids;

static void on_signal(int sig)
{
	(void)sig;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void *reader(void *arg)
{
	struct tempo_event ev[8];
	uint64_t seed = (uintptr_t)arg * 7919 + 1;
	ssize_t n, i;

	while (!atomic_load(&stop)) {
		n = tempo_read_events(gfd, ev, 1 + rnd(&seed) % 8);
		if (n == -EINTR)
			continue;
		if (n < 0)
			break;
		for (i = 0; i < n; i++) {
			if (ev[i].type != TEMPO_EV_TIMER || ev[i].cookie >= NTIMERS) {
				atomic_fetch_add(&bad_ids, 1);
				continue;
			}
			if (atomic_fetch_add(&seen[ev[i].cookie], 1))
				atomic_fetch_add(&dup_ids, 1);
			if (ev[i].time < ev[i].deadline)
				atomic_fetch_add(&early, 1);
		}
		atomic_fetch_add(&received, n);
	}
	return NULL;
}

static void stop_threads(pthread_t *th, int n)
{
	int i;

	atomic_store(&stop, 1);
	for (i = 0; i < n; i++) {
		while (pthread_tryjoin_np(th[i], NULL)) {
			pthread_kill(th[i], SIGUSR1);
			usleep(1000);
		}
	}
	atomic_store(&stop, 0);
}

static int test_readers_no_duplicates_conservation(void)
{
	struct tempo_timer_spec *s = calloc(NTIMERS, sizeof(*s));
	uint64_t ids[NTIMERS / 4], cancelled, seed = 42;
	struct tempo_ctx_stats st;
	struct tempo_batch b;
	pthread_t th[NREADERS];
	int i, waited = 0;

	ASSERT_TRUE(s);
	gfd = tempo_open(0);
	ASSERT_GE(gfd, 0);
	for (i = 0; i < NREADERS; i++)
		ASSERT_FALSE(pthread_create(&th[i], NULL, reader, (void *)(uintptr_t)i));
	for (i = 0; i < NTIMERS; i++) {
		s[i].value = rnd(&seed) % (400 * MS);
		s[i].cookie = i;
	}
	/* arm in batches of 500 while the readers run */
	for (i = 0; i < NTIMERS; i += 500)
		ASSERT_ERRNO(tempo_arm(gfd, s + i, 500, NULL), 0);
	for (i = 0; i < NTIMERS / 4; i++)
		ids[i] = s[(rnd(&seed) % (NTIMERS / 4)) * 4 + i % 4].id;
	tempo_cancel(gfd, ids, NTIMERS / 4, 0, &b);	/* racing the expiries */
	cancelled = b.affected;
	while (atomic_load(&received) + cancelled < NTIMERS && waited++ < 10000)
		usleep(1000);
	usleep(20000);			/* anything extra would show up now */
	stop_threads(th, NREADERS);
	st = ctx_stats(gfd);
	test_diag("armed %d = read %llu + cancelled %llu; dups %llu early %llu bad %llu",
		  NTIMERS, (unsigned long long)atomic_load(&received),
		  (unsigned long long)cancelled, (unsigned long long)atomic_load(&dup_ids),
		  (unsigned long long)atomic_load(&early),
		  (unsigned long long)atomic_load(&bad_ids));
	ASSERT_EQ(atomic_load(&dup_ids), 0);
	ASSERT_EQ(atomic_load(&bad_ids), 0);
	ASSERT_EQ(atomic_load(&early), 0);
	ASSERT_EQ(atomic_load(&received) + cancelled, NTIMERS);
	ASSERT_TRUE(st.events_read == atomic_load(&received) && st.cancelled == cancelled);
	ASSERT_TRUE(st.timers == 0 && st.events_ready == 0);
	for (i = 0; i < NTIMERS; i++)
		ASSERT_LE(atomic_load(&seen[i]), 1);
	close(gfd);
	free(s);
	return TEST_PASS;
}

static long voluntary_switches(pid_t tid)
{
	char path[64], line[128];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

static atomic_int tids[NREADERS];

static void *counting_reader(void *arg)
{
	struct tempo_event ev;

	atomic_store(&tids[(uintptr_t)arg], (int)syscall(SYS_gettid));
	while (!atomic_load(&stop))
		if (tempo_read_events(gfd, &ev, 1) == 1)
			atomic_fetch_add(&received, 1);
	return NULL;
}

/*
 * Is every counting reader asleep in read() on gfd? /proc's per-task syscall
 * file gives a task's syscall number and arguments only once the task has
 * switched out in a sleeping state (task_current_syscall() waits for it to be
 * inactive), and says "running" otherwise: a reader woken but not yet back to
 * sleep, or not yet asleep at all. Its voluntary switch count is then final.
 * Waiting on that rather than for a fixed time keeps the test exact on a
 * guest that is slow (KCSAN, a loaded host).
 */
static int readers_asleep_in_read(void)
{
	char path[64], line[128];
	unsigned long nr, fd;
	int i, asleep = 0;
	FILE *f;

	for (i = 0; i < NREADERS; i++) {
		snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", atomic_load(&tids[i]));
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(line, sizeof(line), f) &&
		    sscanf(line, "%lu 0x%lx", &nr, &fd) == 2 &&
		    nr == SYS_read && fd == (unsigned long)gfd)
			asleep++;
		fclose(f);
	}
	return asleep == NREADERS;
}

static int wait_readers_asleep(void)
{
	uint64_t give_up = tempo_now_ns() + 30000 * MS;

	while (!readers_asleep_in_read()) {
		if (tempo_now_ns() > give_up)
			return -ETIMEDOUT;
		usleep(1000);
	}
	return 0;
}

/* One ready record wakes one of the blocked readers, not all of them. */
static int test_one_record_wakes_one_reader(void)
{
	long before[NREADERS], woken = 0, v;
	pthread_t th[NREADERS];
	uint64_t id, give_up;
	int i;

	gfd = tempo_open(0);
	ASSERT_GE(gfd, 0);
	atomic_store(&received, 0);
	for (i = 0; i < NREADERS; i++)
		atomic_store(&tids[i], 0);
	for (i = 0; i < NREADERS; i++)
		ASSERT_FALSE(pthread_create(&th[i], NULL, counting_reader, (void *)(uintptr_t)i));
	ASSERT_ERRNO(wait_readers_asleep(), 0);
	for (i = 0; i < NREADERS; i++)
		before[i] = voluntary_switches(atomic_load(&tids[i]));
	ASSERT_ERRNO(tempo_arm_one(gfd, 1, 1 * MS, 0, 0, &id), 0);
	give_up = tempo_now_ns() + 30000 * MS;
	while (atomic_load(&received) == 0 && tempo_now_ns() < give_up)
		usleep(1000);
	/*
	 * Every reader woken by that record, whether it got it or not, shows
	 * "running" until it has slept in read() again, which counts.
	 */
	ASSERT_ERRNO(wait_readers_asleep(), 0);
	for (i = 0; i < NREADERS; i++) {
		v = voluntary_switches(atomic_load(&tids[i]));
		ASSERT_TRUE(v >= 0 && before[i] >= 0);
		woken += v != before[i];
	}
	ASSERT_EQ(atomic_load(&received), 1);
	stop_threads(th, NREADERS);
	test_diag("readers woken by one record: %ld of %d", woken, NREADERS);
	ASSERT_EQ(woken, 1);
	close(gfd);
	return TEST_PASS;
}

struct order_check {
	uint64_t next;		/* expected ticket */
	uint64_t got;
	int bad;
};

static atomic_uint_fast64_t submitted, trashed;

static void *submitter(void *arg)
{
	uint64_t seed = (uintptr_t)arg * 104729 + 3, t;
	int i;

	for (i = 0; i < NSUBMITS; i++) {
		if (tempo_ticket(gfd, 0, &t))
			return (void *)1;
		usleep(rnd(&seed) % 200);	/* workers finish out of order */
		if (rnd(&seed) % 10 == 0) {
			if (tempo_trash(gfd, t))
				return (void *)1;
			atomic_fetch_add(&trashed, 1);
			continue;
		}
		if (tempo_submit(gfd, t, t * 3, &t, sizeof(t)))
			return (void *)1;
		atomic_fetch_add(&submitted, 1);
	}
	return NULL;
}

/*
 * Completions beyond a drainer's streak finish on the ordered scheduler's
 * workqueue, after the submitting ioctl returned: wait for all of them.
 */
static int wait_completed(uint64_t n)
{
	int ms = 20000;

	while (ctx_stats(gfd).completed < n) {
		if (ms-- <= 0)
			return -ETIMEDOUT;
		usleep(1000);
	}
	return 0;
}

static int run_submitters(void)
{
	pthread_t th[NSUBMITTERS];
	void *ret;
	int i, bad = 0;

	atomic_store(&submitted, 0);
	atomic_store(&trashed, 0);
	for (i = 0; i < NSUBMITTERS; i++)
		ASSERT_FALSE(pthread_create(&th[i], NULL, submitter, (void *)(uintptr_t)i));
	for (i = 0; i < NSUBMITTERS; i++) {
		pthread_join(th[i], &ret);
		bad += ret != NULL;
	}
	ASSERT_EQ(bad, 0);
	return TEST_PASS;
}

static int test_submitters_records_in_ticket_order(void)
{
	struct tempo_event ev[64];
	uint64_t last = 0, got = 0;
	int n, i, first = 1, bad = 0;

	gfd = tempo_open(O_NONBLOCK);
	ASSERT_GE(gfd, 0);
	ASSERT_EQ(run_submitters(), TEST_PASS);
	ASSERT_ERRNO(wait_completed(atomic_load(&submitted)), 0);
	while ((n = tempo_read_events(gfd, ev, 64)) > 0) {
		for (i = 0; i < n; i++) {
			if (ev[i].type != TEMPO_EV_ORDER || ev[i].cookie != ev[i].id * 3 ||
			    (!first && ev[i].id <= last))
				bad++;
			last = ev[i].id;
			first = 0;
		}
		got += n;
	}
	test_diag("%d threads: %llu submitted, %llu trashed, %llu records in order, %d bad",
		  NSUBMITTERS, (unsigned long long)atomic_load(&submitted),
		  (unsigned long long)atomic_load(&trashed), (unsigned long long)got, bad);
	ASSERT_EQ(bad, 0);
	ASSERT_EQ(got, atomic_load(&submitted));
	ASSERT_EQ(ctx_stats(gfd).tickets, (uint64_t)NSUBMITTERS * NSUBMITS);
	close(gfd);
	return TEST_PASS;
}

static int test_submitters_sink_in_ticket_order(void)
{
	uint64_t v, last = 0, got = 0;
	int p[2], first = 1, bad = 0;
	struct tempo_ctx_stats st;
	FILE *in;

	gfd = tempo_open(O_NONBLOCK);
	ASSERT_GE(gfd, 0);
	ASSERT_EQ(pipe(p), 0);
	ASSERT_ERRNO(tempo_set_sink(gfd, p[1]), 0);
	close(p[1]);		/* the sink holds its own reference */
	if (fork() == 0) {	/* drain the pipe so that the sink never blocks for long */
		char buf[4096];
		ssize_t r;

		close(gfd);
		in = fopen("/tmp/tempo_sink.out", "w");
		while ((r = read(p[0], buf, sizeof(buf))) > 0)
			fwrite(buf, 1, r, in);
		fclose(in);
		_exit(0);
	}
	close(p[0]);
	ASSERT_EQ(run_submitters(), TEST_PASS);
	ASSERT_ERRNO(wait_completed(atomic_load(&submitted)), 0);
	/* What the scheduler's workqueue completed waits for a flush. */
	ASSERT_ERRNO(tempo_flush(gfd), 0);
	st = ctx_stats(gfd);
	close(gfd);		/* drops the sink: the child sees EOF */
	while (wait(NULL) > 0)
		;
	in = fopen("/tmp/tempo_sink.out", "r");
	ASSERT_TRUE(in);
	while (fread(&v, sizeof(v), 1, in) == 1) {
		if (!first && v <= last)
			bad++;
		last = v;
		first = 0;
		got++;
	}
	fclose(in);
	test_diag("sink: %llu values, %llu bytes, %d out of order, %llu errors",
		  (unsigned long long)got, (unsigned long long)st.sink_bytes, bad,
		  (unsigned long long)st.sink_errors);
	ASSERT_EQ(bad, 0);
	ASSERT_EQ(got, atomic_load(&submitted));
	ASSERT_TRUE(st.sink_bytes == got * sizeof(v) && st.sink_errors == 0);
	return TEST_PASS;
}

static int test_epoll(void)
{
	struct epoll_event e = { .events = EPOLLIN }, out;
	struct tempo_event ev;
	int ep = epoll_create1(EPOLL_CLOEXEC);
	uint64_t id;

	gfd = tempo_open(O_NONBLOCK);
	ASSERT_TRUE(ep >= 0 && gfd >= 0);
	ASSERT_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, gfd, &e), 0);
	ASSERT_EQ(epoll_wait(ep, &out, 1, 0), 0);
	ASSERT_ERRNO(tempo_arm_one(gfd, 1, 3 * MS, 0, 0, &id), 0);
	ASSERT_TRUE(epoll_wait(ep, &out, 1, 5000) == 1 && (out.events & EPOLLIN));
	ASSERT_EQ(tempo_read_events(gfd, &ev, 1), 1);
	ASSERT_EQ(epoll_wait(ep, &out, 1, 0), 0);	/* level: drained */
	close(gfd);
	close(ep);
	return TEST_PASS;
}

static int test_never_early_lateness(void)
{
	struct tempo_timer_spec s[500];
	struct tempo_event ev[64];
	uint64_t seed = 7, now = tempo_now_ns(), late, max = 0, sum = 0;
	int i, n, got = 0, bad = 0;

	gfd = tempo_open(0);
	ASSERT_GE(gfd, 0);
	memset(s, 0, sizeof(s));
	for (i = 0; i < 500; i++) {
		s[i].value = rnd(&seed) % (100 * MS);
		if (i % 2) {
			s[i].flags = TEMPO_ARM_ABS;
			s[i].value += now;
		}
	}
	ASSERT_ERRNO(tempo_arm(gfd, s, 500, NULL), 0);
	while (got < 500) {
		n = tempo_read_events(gfd, ev, 64);
		ASSERT_GT(n, 0);
		now = tempo_now_ns();
		for (i = 0; i < n; i++) {
			if (ev[i].time < ev[i].deadline || now < ev[i].deadline)
				bad++;
			late = ev[i].time - ev[i].deadline;
			sum += late;
			max = late > max ? late : max;
		}
		got += n;
	}
	test_diag("500 timers: lateness mean %llu us, max %llu us, early %d",
		  (unsigned long long)(sum / 500 / 1000), (unsigned long long)(max / 1000), bad);
	ASSERT_EQ(bad, 0);
	close(gfd);
	return TEST_PASS;
}

/*
 * One reader sees records in deadline order, to the tick, whichever CPUs
 * armed the timers: two threads, one pinned to each CPU, arm timers with
 * shuffled delays; the reader checks that no record's deadline lies in an
 * earlier tick than the record before it (within a tick, any order), as
 * the uapi header promises: among records that were ready together. So an
 * inversion counts against tempo only if the earlier record's arm batch
 * had returned before its deadline (it was queued, and became ready at its
 * tick, before the later one); one whose batch was still being applied
 * when its deadline passed (a slow kernel: KCSAN, injected delays) may
 * come after records already taken, and is counted apart.
 */
#define ORD_ARMERS	2
#define ORD_TIMERS	1024	/* per armer */

/* When the arm batch of each timer returned (CLOCK_MONOTONIC ns), or 0. */
static uint64_t ord_armed_at[ORD_ARMERS][ORD_TIMERS];

static void *order_armer(void *arg)
{
	uintptr_t cpu = (uintptr_t)arg;
	struct tempo_timer_spec s[64];
	uint64_t seed = cpu * 104729 + 17, t;
	cpu_set_t set;
	int i, j;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);	/* best effort: one CPU has both */
	for (i = 0; i < ORD_TIMERS; i += 64) {
		memset(s, 0, sizeof(s));
		for (j = 0; j < 64; j++) {
			s[j].cookie = cpu << 32 | (i + j);
			s[j].value = (1 + rnd(&seed) % 40) * MS;
		}
		if (tempo_arm(gfd, s, 64, NULL))
			return (void *)1;
		t = tempo_now_ns();
		for (j = 0; j < 64; j++)
			__atomic_store_n(&ord_armed_at[cpu][i + j], t, __ATOMIC_RELEASE);
		usleep(500);
	}
	return NULL;
}

static int test_one_reader_deadline_order(void)
{
	struct tempo_event ev[32];
	struct tempo_info in;
	pthread_t th[ORD_ARMERS];
	uint64_t got = 0, prev_tick = 0, worst = 0, inversions = 0, late_armed = 0, tick, at;
	uintptr_t i;
	void *ret;
	ssize_t n, k;

	gfd = tempo_open(0);
	ASSERT_GE(gfd, 0);
	ASSERT_ERRNO(tempo_info(gfd, &in), 0);
	for (i = 0; i < ORD_ARMERS; i++)
		ASSERT_EQ(pthread_create(&th[i], NULL, order_armer, (void *)i), 0);
	while (got < ORD_ARMERS * ORD_TIMERS) {
		n = tempo_read_events(gfd, ev, 1 + got % 32);
		ASSERT_GT(n, 0);
		for (k = 0; k < n; k++) {
			tick = ev[k].deadline / in.tick_ns;
			if (got + k && tick < prev_tick) {
				at = __atomic_load_n(&ord_armed_at[ev[k].cookie >> 32]
						     [(uint32_t)ev[k].cookie], __ATOMIC_ACQUIRE);
				if (!at || at > ev[k].deadline) {
					late_armed++;	/* its batch outlived its deadline */
				} else {
					inversions++;
					if ((prev_tick - tick) * in.tick_ns > worst)
						worst = (prev_tick - tick) * in.tick_ns;
				}
			}
			if (tick > prev_tick || !(got + k))
				prev_tick = tick;
		}
		got += n;
	}
	for (i = 0; i < ORD_ARMERS; i++) {
		pthread_join(th[i], &ret);
		ASSERT_FALSE(ret);
	}
	test_diag("%llu records from %d CPUs: %llu out of deadline order (to the tick), worst by %llu us; %llu more whose arm batch outlived their deadline",
		  (unsigned long long)got, ORD_ARMERS, (unsigned long long)inversions,
		  (unsigned long long)(worst / 1000), (unsigned long long)late_armed);
	ASSERT_FALSE(inversions);
	close(gfd);
	return TEST_PASS;
}

/*
 * TEMPO_IOC_ORDER_TRASH of each ticket racing TEMPO_IOC_ORDER_SKIP over all of
 * them: every ticket is trashed exactly once, by one side or the other, and
 * the context counts each once. Conservation: the trash calls that returned
 * 0 plus the skips' counts equal the tickets taken, and so does the
 * context's trashed counter; a losing trash fails with EINVAL.
 */
#define RACE_ROUNDS	300
#define RACE_TICKETS	64

static uint64_t race_t[RACE_TICKETS];
static pthread_barrier_t race_go;
static atomic_uint_fast64_t race_won, race_lost, race_bad;

static void *race_trasher(void *arg)
{
	int i, r;

	(void)arg;
	pthread_barrier_wait(&race_go);
	for (i = 0; i < RACE_TICKETS; i++) {
		r = tempo_trash(gfd, race_t[i]);
		if (!r)
			atomic_fetch_add(&race_won, 1);
		else if (r == -EINVAL)
			atomic_fetch_add(&race_lost, 1);
		else
			atomic_fetch_add(&race_bad, 1);
	}
	return NULL;
}

static int test_trash_races_skip_conservation(void)
{
	uint64_t skipped = 0, taken = 0;
	pthread_t th;
	uint32_t n;
	int round, i;

	gfd = tempo_open(O_NONBLOCK);
	ASSERT_GE(gfd, 0);
	atomic_store(&race_won, 0);
	atomic_store(&race_lost, 0);
	atomic_store(&race_bad, 0);
	for (round = 0; round < RACE_ROUNDS; round++) {
		for (i = 0; i < RACE_TICKETS; i++)
			ASSERT_ERRNO(tempo_ticket(gfd, 0, &race_t[i]), 0);
		taken += RACE_TICKETS;
		ASSERT_FALSE(pthread_barrier_init(&race_go, NULL, 2));
		ASSERT_FALSE(pthread_create(&th, NULL, race_trasher, NULL));
		pthread_barrier_wait(&race_go);
		/* Some rounds from the far end, some after a head start. */
		if (round & 1)
			sched_yield();
		ASSERT_ERRNO(tempo_skip(gfd, race_t[RACE_TICKETS - 1] + 1, &n), 0);
		skipped += n;
		pthread_join(th, NULL);
		pthread_barrier_destroy(&race_go);
	}
	test_diag("%llu tickets: %llu trashed by trash, %llu by skip, %llu trash calls lost",
		  (unsigned long long)taken, (unsigned long long)atomic_load(&race_won),
		  (unsigned long long)skipped, (unsigned long long)atomic_load(&race_lost));
	ASSERT_EQ(atomic_load(&race_bad), 0);
	ASSERT_EQ(atomic_load(&race_won) + skipped, taken);
	ASSERT_EQ(atomic_load(&race_won) + atomic_load(&race_lost), taken);
	ASSERT_EQ(ctx_stats(gfd).trashed, taken);
	close(gfd);
	return TEST_PASS;
}

static const struct test_case cases[] = {
	TEST_CASE(test_readers_no_duplicates_conservation),
	TEST_CASE(test_one_record_wakes_one_reader),
	TEST_CASE(test_submitters_records_in_ticket_order),
	TEST_CASE(test_submitters_sink_in_ticket_order),
	TEST_CASE(test_epoll),
	TEST_CASE(test_never_early_lateness),
	TEST_CASE(test_one_reader_deadline_order),
	TEST_CASE(test_trash_races_skip_conservation),
	{}
};

int main(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	int fd = tempo_open(0);

	if (fd < 0)
		return test_skip_all("no %s: %s", TEMPO_DEVICE, strerror(-fd));
	close(fd);
	sigaction(SIGUSR1, &sa, NULL);	/* no SA_RESTART: read() returns EINTR */
	return test_run("tempo_mt", cases);
}
