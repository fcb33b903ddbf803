// SPDX-License-Identifier: GPL-2.0
/*
 * tempo_hostile_share: /dev/tempo against a hostile local user: what one
 * user's timers cost another: CPU, wake-ups and what it sees.
 * How the attacks run (uids, root, kids): hostile.h. Here:
 *
 *  - a reader blocked beside an EPOLLEXCLUSIVE poller of the same file;
 *  - a worst-case insertion into a long queue beside another user's timer;
 *  - one user's big slots sorted on the CPU that runs another's timers;
 *  - the module-wide counters, and a file passed to another user, which
 *    must show no user another's activity.
 *
 * KTAP on stdout; each child's diagnostics go there too.
 */
#define _GNU_SOURCE
#include "hostile.h"

/* ---- the event queue: wake-ups and critical sections ------------- */

/* An EPOLLEXCLUSIVE poller and a blocked reader of one file. */
struct epx {
	int fd, ep;
	atomic_int poller, reader;	/* their thread ids, once running */
	atomic_int polled, got;		/* what epoll_wait()/read() returned; -2 before */
};

static void *epx_poll_thread(void *p)
{
	struct epx *x = p;
	struct epoll_event ev;

	atomic_store(&x->poller, (int)syscall(SYS_gettid));
	atomic_store(&x->polled, epoll_wait(x->ep, &ev, 1, 20000));
	return NULL;
}

static void *epx_read_thread(void *p)
{
	struct epx *x = p;
	struct tempo_event ev;

	atomic_store(&x->reader, (int)syscall(SYS_gettid));
	atomic_store(&x->got, (int)tempo_read_events(x->fd, &ev, 1));
	return NULL;
}

/* uid 65534: epoll_wait() on an EPOLLEXCLUSIVE registration, read() blocked, a record. */
static int epoll_exclusive_kid(void *unused)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLEXCLUSIVE };
	struct epx x = { .polled = -2, .got = -2 };
	pthread_t pt, rt;
	uint64_t id, t0;

	(void)unused;
	x.fd = tempo_open(0);
	ASSERT_GE(x.fd, 0);
	x.ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_GE(x.ep, 0);
	ASSERT_EQ(epoll_ctl(x.ep, EPOLL_CTL_ADD, x.fd, &ev), 0);
	ASSERT_EQ(pthread_create(&pt, NULL, epx_poll_thread, &x), 0);
	while (!atomic_load(&x.poller))
		usleep(1000);
	ASSERT_ERRNO(wait_asleep(atomic_load(&x.poller), 5000), 0);
	ASSERT_EQ(pthread_create(&rt, NULL, epx_read_thread, &x), 0);
	while (!atomic_load(&x.reader))
		usleep(1000);
	ASSERT_ERRNO(wait_asleep(atomic_load(&x.reader), 5000), 0);
	t0 = now_ms();
	ASSERT_ERRNO(tempo_arm_one(x.fd, 1, 20 * MS, 0, 0, &id), 0);
	while (atomic_load(&x.got) == -2 && now_ms() - t0 < 5000)
		usleep(1000);
	test_diag("uid %u: one record due in 20 ms: the blocked read() %s after %llu ms; epoll_wait() returned %d",
		  getuid(), atomic_load(&x.got) == -2 ? "still sleeps" : "returned",
		  (unsigned long long)(now_ms() - t0), atomic_load(&x.polled));
	/* A reader still asleep ends with the process. */
	return atomic_load(&x.got) == 1 ? TEST_PASS : TEST_FAIL;
}

/*
 * A ready record reaches a blocked reader whatever pollers wait: one thread
 * waits in epoll_wait() on an EPOLLEXCLUSIVE registration of the file (made
 * first), another is blocked in read(); a record due in 20 ms must end the
 * read() within 5 s. Fails if: the registration is an exclusive waiter on
 * the readers' wait queue, ahead of the reader (it takes the one wake-up the
 * record gets, and the read() sleeps on).
 */
TEST_F(hostile, test_epoll_exclusive_spares_blocked_reader)
{
	return kid_run(UID_A, epoll_exclusive_kid, NULL, 30000);
}

#define WI_DUE		(262144 - 256)	/* unread records, past their deadlines */
#define WI_ARMS		256		/* then timers due before all of them, one call */
#define WI_LATE_MS	100		/* the most another user's timer may be late */

static struct tempo_timer_spec wi_specs[WI_DUE];

/* uid 65534, on CPU 0: WI_DUE unread records, then, on the go-ahead, WI_ARMS arms before them. */
static int worst_insert_kid(void *unused)
{
	unsigned int i, n;
	uint64_t t0;
	int fd;

	(void)unused;
	ASSERT_ERRNO(pin_cpu0(), 0);
	fd = tempo_open(0);
	ASSERT_GE(fd, 0);
	for (i = 0; i < WI_DUE; i++) {
		wi_specs[i].value = 1000000 + i;	/* long past, in deadline order */
		wi_specs[i].flags = TEMPO_ARM_ABS;
	}
	for (i = 0; i < WI_DUE; i += n) {
		n = WI_DUE - i < 65536 ? WI_DUE - i : 65536;
		ASSERT_ERRNO(tempo_arm(fd, wi_specs + i, n, NULL), 0);
	}
	ASSERT_EQ(ctx_stats(fd).events_ready, WI_DUE);
	say(1);
	await_go();
	for (i = 0; i < WI_ARMS; i++)
		wi_specs[i].value = 1 + i;		/* before every record queued */
	t0 = tempo_now_ns();
	ASSERT_ERRNO(tempo_arm(fd, wi_specs, WI_ARMS, NULL), 0);
	say((int)((tempo_now_ns() - t0) / MS));
	close(fd);
	return TEST_PASS;
}

/* uid 65533, on CPU 0: read() blocked for a timer 50 ms ahead; say how late it returned, in ms. */
static int late_bystander_kid(void *unused)
{
	struct tempo_event ev;
	uint64_t id;
	int fd;

	(void)unused;
	ASSERT_ERRNO(pin_cpu0(), 0);
	fd = tempo_open(0);
	ASSERT_GE(fd, 0);
	ASSERT_ERRNO(tempo_arm_one(fd, 1, 50 * MS, 0, 0, &id), 0);
	ASSERT_EQ(tempo_read_events(fd, &ev, 1), 1);
	say((int)((tempo_now_ns() - ev.deadline) / MS));
	close(fd);
	return TEST_PASS;
}

/*
 * No length a user controls decides how long interrupts or preemption stay
 * off. uid 65534 holds 261,888 unread records, past their deadlines, and
 * arms 256 timers due before every one of them in one TEMPO_IOC_TIMER_ARM,
 * on CPU 0, while uid 65533, on CPU 0 too, sleeps in read() for a timer
 * 50 ms ahead: that read() must return less than WI_LATE_MS after the
 * deadline. Fails if: a put does work in the length of the queue with
 * interrupts or preemption off (a sorted ready list walked from its tail:
 * the call took 2.5 s and the other timer was 148 ms late), or the arm
 * batch holds preemption off across its puts.
 */
TEST_F(hostile, test_worst_insert_spares_other_users)
{
	int late, took, rc = TEST_PASS;
	struct kid *a, *b;

	ASSERT_EQ(param_push("max_user_timers", WI_DUE + WI_ARMS), 0);
	a = kid_start(UID_A, worst_insert_kid, NULL);
	ASSERT_TRUE(a);
	ASSERT_ERRNO(kid_hear(a, 120000), 1);
	b = kid_start(UID_B, late_bystander_kid, NULL);
	ASSERT_TRUE(b);
	ASSERT_ERRNO(wait_in_syscall(b->pid, SYS_read, 10000), 0);
	kid_go(a, 1);
	late = kid_hear(b, 60000);
	took = kid_hear(a, 60000);
	test_diag("uid %u: %u arms before %u unread records took %d ms; uid %u's timer was %d ms late",
		  UID_A, WI_ARMS, WI_DUE, took, UID_B, late);
	if (late < 0 || late >= WI_LATE_MS)
		rc = TEST_FAIL;
	if (kid_finish(b, 10000) != TEST_PASS || kid_finish(a, 120000) != TEST_PASS)
		rc = TEST_FAIL;
	return rc;
}

/* ---- sorting on a shared CPU ------------------------------------- */
/*
 * One user's sorting: uid 65534 (the attacker) holds SU_FILES files, each a
 * delay queue with its own waker, armed from CPU 1 and watched by an epoll
 * set it never waits on, and arms in each, in random order, timers due
 * within one of the queue's ticks (2^20 ns) at t0; uid 65533 (the victim),
 * also on CPU 1, has SU_VICTIM timers due 2-62 ms after t0, read() blocked
 * for them, and a thread spinning on CPU 1 that notes the longest gap in
 * its run. Rounds of SU_SMALL and SU_BIG timers per attacker file
 * alternate: the bigger slots may not delay the victim's records, or take
 * its CPU, by more than SU_MARGIN_MS over the small ones, in the better of
 * the two big rounds against the worse of the two small ones (what the
 * slots cost comes back every round; a host that does not run the VM's CPU
 * for a while does not). That is the bound
 * the queue keeps: a waker's expiry moves at most 16 items, whatever its
 * slots hold; a file's own readers and pollers sort the rest, in their own
 * time.
 */
#define SU_FILES	64
#define SU_SMALL	10
#define SU_BIG		1000
#define SU_VICTIM	16
#define SU_MARGIN_MS	20
#define SU_AHEAD_MS	2000	/* t0, from the go-ahead: room to arm 64,000 timers, */
#define SU_AHEAD_MAX_MS	32000	/* doubled up to this while the attacker needs more */

struct su_shared {
	uint64_t	t0;		/* a tick boundary of the delay queue */
	unsigned int	per_file;	/* the attacker's timers per file this round */
};

static struct su_shared *su;

/* uid 65534, on CPU 1: each round, SU_FILES files, su->per_file timers each. */
static int sorting_attacker_kid(void *unused)
{
	static struct tempo_timer_spec specs[SU_BIG];
	struct epoll_event ev = { .events = EPOLLIN };
	int fd[SU_FILES], ep, f, round;
	unsigned int i, n, seed = 12345;

	(void)unused;
	ASSERT_ERRNO(pin_cpu(1), 0);
	for (round = 0; await_go() > 0; round++) {
		ep = epoll_create1(EPOLL_CLOEXEC);
		ASSERT_GE(ep, 0);
		n = su->per_file;
		for (f = 0; f < SU_FILES; f++) {
			fd[f] = tempo_open(O_NONBLOCK);
			ASSERT_GE(fd[f], 0);
			ASSERT_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, fd[f], &ev), 0);
			for (i = 0; i < n; i++) {
				seed = seed * 1103515245 + 12345;
				specs[i].value = su->t0 + (seed >> 8) % (1U << 20);
				specs[i].flags = TEMPO_ARM_ABS;
			}
			ASSERT_ERRNO(tempo_arm(fd[f], specs, n, NULL), 0);
		}
		say(tempo_now_ns() < su->t0 - 200 * MS ? 1 : -1);
		await_go();			/* the victim has reported */
		for (f = 0; f < SU_FILES; f++)
			close(fd[f]);
		close(ep);
		say(2);
	}
	return TEST_PASS;
}

struct su_spin {
	uint64_t from, to, gap;
};

/* The longest time CPU 1 did not run this thread, within [from, to]. */
static void *su_spin_thread(void *arg)
{
	struct su_spin *sp = arg;
	uint64_t last, now;

	struct timespec ts = { .tv_sec = sp->from / SEC, .tv_nsec = sp->from % SEC };

	if (pin_cpu(1))
		return NULL;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	last = tempo_now_ns();
	while ((now = tempo_now_ns()) < sp->to) {
		if (now - last > sp->gap)
			sp->gap = now - last;
		last = now;
	}
	return NULL;
}

/* uid 65533, on CPU 1: each round, its timers after t0; says its latest record's lateness, then its CPU gap, in ms. */
static int sorting_victim_kid(void *unused)
{
	struct tempo_timer_spec specs[SU_VICTIM];
	struct tempo_event ev;
	struct su_spin sp;
	uint64_t late, worst;
	pthread_t spin;
	int fd, i;

	(void)unused;
	ASSERT_ERRNO(pin_cpu(1), 0);
	fd = tempo_open(0);
	ASSERT_GE(fd, 0);
	while (await_go() > 0) {
		memset(specs, 0, sizeof(specs));
		for (i = 0; i < SU_VICTIM; i++) {
			specs[i].value = su->t0 + 2 * MS + i * 4 * MS;
			specs[i].flags = TEMPO_ARM_ABS;
		}
		ASSERT_ERRNO(tempo_arm(fd, specs, SU_VICTIM, NULL), 0);
		sp.from = su->t0 - 100 * MS;
		sp.to = su->t0 + 100 * MS;
		sp.gap = 0;
		ASSERT_EQ(pthread_create(&spin, NULL, su_spin_thread, &sp), 0);
		worst = 0;
		for (i = 0; i < SU_VICTIM; i++) {
			ASSERT_EQ(tempo_read_events(fd, &ev, 1), 1);
			ASSERT_GE(ev.time, ev.deadline);
			late = tempo_now_ns() - ev.deadline;
			if (late > worst)
				worst = late;
		}
		pthread_join(spin, NULL);
		say((int)(worst / MS));
		say((int)(sp.gap / MS));
	}
	return TEST_PASS;
}

TEST_F(hostile, test_sorting_spares_other_users)
{
	static const unsigned int rounds[] = { SU_SMALL, SU_BIG, SU_BIG, SU_SMALL };
	int late[4], gap[4], worst_small_late = 0, best_big_late = INT32_MAX;
	int worst_small_gap = 0, best_big_gap = INT32_MAX, rc = TEST_PASS, r, said;
	int ahead_ms = SU_AHEAD_MS;
	struct kid *a, *b;

	su = mmap(NULL, sizeof(*su), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(su != MAP_FAILED);
	a = kid_start(UID_A, sorting_attacker_kid, NULL);
	b = kid_start(UID_B, sorting_victim_kid, NULL);
	ASSERT_TRUE(a && b);
	for (r = 0; r < 4 && rc == TEST_PASS; r++) {
		su->t0 = ((tempo_now_ns() + ahead_ms * MS) >> 20) << 20;
		su->per_file = rounds[r];
		kid_go(a, 1);
		said = kid_hear(a, 2 * SU_AHEAD_MAX_MS);
		if (said == -1 && ahead_ms < SU_AHEAD_MAX_MS) {
			/* Armed too late for t0 (a slow kernel): again, with more room. */
			test_diag("round %d: %u timers took over %d ms to arm; again", r,
				  SU_FILES * rounds[r], ahead_ms - 200);
			ahead_ms *= 2;
			kid_go(a, 1);
			if (kid_hear(a, 120000) != 2) {
				rc = TEST_FAIL;
				break;
			}
			r--;
			continue;
		}
		if (said != 1) {
			test_diag("round %d: the attacker did not arm %u timers in time", r,
				  SU_FILES * rounds[r]);
			rc = TEST_FAIL;
			break;
		}
		kid_go(b, 1);
		late[r] = kid_hear(b, 60000);
		gap[r] = kid_hear(b, 60000);
		kid_go(a, 1);
		if (late[r] < 0 || gap[r] < 0 || kid_hear(a, 120000) != 2) {
			rc = TEST_FAIL;
			break;
		}
		test_diag("round %d: uid %u, %u timers in each of %u files due in one tick; uid %u's latest record %d ms late, its CPU gap %d ms",
			  r, UID_A, rounds[r], SU_FILES, UID_B, late[r], gap[r]);
		if (rounds[r] == SU_BIG) {
			best_big_late = late[r] < best_big_late ? late[r] : best_big_late;
			best_big_gap = gap[r] < best_big_gap ? gap[r] : best_big_gap;
		} else {
			worst_small_late = late[r] > worst_small_late ? late[r] : worst_small_late;
			worst_small_gap = gap[r] > worst_small_gap ? gap[r] : worst_small_gap;
		}
	}
	kid_go(a, 0);
	kid_go(b, 0);
	if (kid_finish(a, 60000) != TEST_PASS || kid_finish(b, 60000) != TEST_PASS)
		rc = TEST_FAIL;
	munmap(su, sizeof(*su));
	if (rc != TEST_PASS)
		return rc;
	EXPECT_LE(best_big_late, worst_small_late + SU_MARGIN_MS);
	EXPECT_LE(best_big_gap, worst_small_gap + SU_MARGIN_MS);
	return TEST_PASS;
}

/* ---- what a user sees of another --------------------------------- */
/* uid 65533: its own figures, before and after uid 65534's activity, which it must not see. */
static int stats_bystander_kid(void *unused)
{
	struct tempo_mod_stats m0, m1;
	int fd;

	(void)unused;
	fd = tempo_open(0);
	ASSERT_GE(fd, 0);
	m0 = mod_stats(fd);
	ASSERT_EQ(m0.scope, TEMPO_STATS_USER);
	ASSERT_EQ(m0.contexts, 1);
	ASSERT_EQ(m0.opens, 0);
	say(1);
	await_go();			/* uid 65534 opened, armed and read */
	m1 = mod_stats(fd);
	test_diag("uid %u sees contexts %llu -> %llu, opens %llu -> %llu, armed %llu -> %llu",
		  getuid(), (unsigned long long)m0.contexts, (unsigned long long)m1.contexts,
		  (unsigned long long)m0.opens, (unsigned long long)m1.opens,
		  (unsigned long long)m0.armed, (unsigned long long)m1.armed);
	ASSERT_EQ(memcmp(&m0, &m1, sizeof(m0)), 0);
	/* Its own timers: its figures move. */
	ASSERT_ERRNO(tempo_arm_one(fd, 1, 100 * SEC, 0, 0, NULL), 0);
	m1 = mod_stats(fd);
	ASSERT_EQ(m1.timers, 1);
	ASSERT_GT(m1.bytes, 0);
	return TEST_PASS;
}

/* uid 65534: open a file, arm 5 timers and read their records. */
static int stats_actor_kid(void *unused)
{
	struct tempo_event ev[5];
	int fd, i, n = 0;

	(void)unused;
	fd = tempo_open(0);
	ASSERT_GE(fd, 0);
	for (i = 0; i < 5; i++)
		ASSERT_ERRNO(tempo_arm_one(fd, i, MS, 0, 0, NULL), 0);
	while (n < 5) {
		i = tempo_read_events(fd, ev, 5 - n);
		ASSERT_GT(i, 0);
		n += i;
	}
	close(fd);
	return TEST_PASS;
}

/*
 * TEMPO_IOC_STATS shows no user another's activity: uid 65533's view is the
 * same before and after uid 65534 opens a file, arms 5 timers and reads
 * them; root (CAP_SYS_ADMIN) sees the module's figures move. Fails if: every
 * caller gets the module-wide counters (uid 65533 then sees exactly when
 * uid 65534 opens, arms and reads).
 */
TEST_F(hostile, test_stats_hide_other_users)
{
	struct tempo_mod_stats m0, m1;
	struct kid *a, *b;
	int probe = tempo_open(0), rc;

	ASSERT_GE(probe, 0);
	m0 = mod_stats(probe);
	ASSERT_EQ(m0.scope, TEMPO_STATS_MODULE);
	b = kid_start(UID_B, stats_bystander_kid, NULL);
	ASSERT_TRUE(b);
	ASSERT_ERRNO(kid_hear(b, 30000), 1);
	a = kid_start(UID_A, stats_actor_kid, NULL);
	ASSERT_TRUE(a);
	rc = kid_finish(a, 30000);
	m1 = mod_stats(probe);
	kid_go(b, 1);
	if (kid_finish(b, 30000) != TEST_PASS)
		rc = TEST_FAIL;
	close(probe);
	ASSERT_GE(m1.opens, m0.opens + 2);
	ASSERT_GE(m1.armed, m0.armed + 5);
	return rc;
}

/* uid 65534: open a file and pass it to uid 65533; then, on the go-ahead, another file and 5 timers. */
static int stats_passer_kid(void *arg)
{
	int sock = *(int *)arg, fd, fd2, i;

	fd = tempo_open(0);
	ASSERT_GE(fd, 0);
	ASSERT_ERRNO(send_fd(sock, fd), 0);
	say(1);
	await_go();
	fd2 = tempo_open(0);
	ASSERT_GE(fd2, 0);
	for (i = 0; i < 5; i++)
		ASSERT_ERRNO(tempo_arm_one(fd2, i, 100 * SEC, 0, 0, NULL), 0);
	say(2);
	await_go();
	close(fd2);
	close(fd);
	return TEST_PASS;
}

/* uid 65533: the file uid 65534 passed it; its STATS before and after uid 65534's other file. */
static int stats_receiver_kid(void *arg)
{
	struct tempo_mod_stats m0, m1;
	int sock = *(int *)arg, fd;

	fd = recv_fd(sock);
	ASSERT_GE(fd, 0);
	m0 = mod_stats(fd);
	ASSERT_EQ(m0.scope, TEMPO_STATS_USER);
	say(1);
	await_go();			/* uid 65534 opened another file, armed 5 timers */
	m1 = mod_stats(fd);
	test_diag("uid %u, through uid %u's file: contexts %llu -> %llu, timers %llu -> %llu, bytes %llu -> %llu",
		  getuid(), UID_A, (unsigned long long)m0.contexts,
		  (unsigned long long)m1.contexts, (unsigned long long)m0.timers,
		  (unsigned long long)m1.timers, (unsigned long long)m0.bytes,
		  (unsigned long long)m1.bytes);
	ASSERT_EQ(memcmp(&m0, &m1, sizeof(m0)), 0);
	/* Its own figures: uid 65533 opened nothing. */
	EXPECT_EQ(m1.contexts, 0);
	EXPECT_EQ(m1.timers, 0);
	close(fd);
	return TEST_PASS;
}

/*
 * TEMPO_IOC_STATS of a passed file shows the caller's own user: uid 65534
 * opens a file and passes it to uid 65533 over a unix socket, then opens a
 * second file and arms 5 timers in it; uid 65533's STATS through the passed
 * file do not change, and show its own holdings (none). Fails if: the
 * figures are the opener's user's whoever asks (uid 65533 then sees uid
 * 65534's contexts go 1 -> 2, its timers 0 -> 5).
 */
TEST_F(hostile, test_stats_of_passed_file_hide_opener)
{
	struct kid *a, *b;
	int sv[2], rc;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		ASSERT_TRUE(no_unix_sockets(errno));
		return TEST_SKIP;
	}
	a = kid_start(UID_A, stats_passer_kid, &sv[0]);
	ASSERT_TRUE(a);
	ASSERT_ERRNO(kid_hear(a, 30000), 1);
	b = kid_start(UID_B, stats_receiver_kid, &sv[1]);
	ASSERT_TRUE(b);
	ASSERT_ERRNO(kid_hear(b, 30000), 1);
	kid_go(a, 1);
	ASSERT_ERRNO(kid_hear(a, 30000), 2);
	kid_go(b, 1);
	rc = kid_finish(b, 30000);
	kid_go(a, 1);
	if (kid_finish(a, 30000) != TEST_PASS)
		rc = TEST_FAIL;
	close(sv[0]);
	close(sv[1]);
	return rc;
}

static const struct test_case cases[] = {
	TEST_CASE_F(hostile, test_epoll_exclusive_spares_blocked_reader),
	TEST_CASE_F(hostile, test_worst_insert_spares_other_users),
	TEST_CASE_F(hostile, test_sorting_spares_other_users),
	TEST_CASE_F(hostile, test_stats_hide_other_users),
	TEST_CASE_F(hostile, test_stats_of_passed_file_hide_opener),
	{}
};

int main(void)
{
	return hostile_main("tempo_hostile_share", cases);
}
