// SPDX-License-Identifier: GPL-2.0
/*
 * tempoctl: look at and drive /dev/tempo from the command line.
 *
 *	tempoctl [-j|-p] COMMAND [ARGS]
 *
 * Commands are matched by prefix (bpftool style): `tempoctl st` is stats.
 * Each run opens its own context, which close() tears down: the commands
 * that arm timers therefore also wait for them.
 *
 * Exit status: 0 success; 1 a call failed; 2 usage; 3 a check failed (a timer
 * early, a completion out of order, an event lost).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libtempo.h"
#include "print.h"

#define EXIT_CALL	1
#define EXIT_USAGE	2
#define EXIT_CHECK	3

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *args;
	const char *help;
};

static const struct cmd *cmds;

static bool is_prefix(const char *pfx, const char *str)
{
	return *pfx && !strncmp(str, pfx, strlen(pfx));
}

/* "10ms", "1.5s", "250us", "100" (ns) -> ns; false if malformed. */
static bool parse_ns(const char *s, uint64_t *ns)
{
	static const struct { const char *sfx; double mul; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "", 1 },
	};
	char *end;
	double v = strtod(s, &end);
	size_t i;

	if (end == s || v < 0)
		return false;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(end, units[i].sfx)) {
			*ns = (uint64_t)(v * units[i].mul);
			return true;
		}
	}
	return false;
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return *s && !*end && !errno;
}

/* Keyword arguments: "count 10 delay 5ms ...". */
struct kw {
	const char *name;
	bool is_time;		/* else a plain number; flags have no value */
	bool is_flag;
	uint64_t *val;
};

static int parse_kw(int argc, char **argv, struct kw *kws)
{
	struct kw *k;
	int i;

	for (i = 0; i < argc; i++) {
		for (k = kws; k->name; k++)
			if (is_prefix(argv[i], k->name))
				break;
		if (!k->name) {
			p_err("unknown argument '%s'", argv[i]);
			return -1;
		}
		if (k->is_flag) {
			*k->val = 1;
			continue;
		}
		if (++i == argc || !(k->is_time ? parse_ns(argv[i], k->val) :
				     parse_u64(argv[i], k->val))) {
			p_err("'%s' needs a %s", k->name, k->is_time ? "time (10ms, 1s)" : "number");
			return -1;
		}
	}
	return 0;
}

static int open_or_fail(int flags)
{
	int fd = tempo_open(flags);

	if (fd < 0)
		p_err("cannot open %s: %s", TEMPO_DEVICE, strerror(-fd));
	return fd;
}

/* ---- info, stats ---- */

static int do_info(int argc, char **argv)
{
	struct tempo_info in;
	int fd, err;

	(void)argv;
	if (argc)
		return p_err("info takes no arguments"), EXIT_USAGE;
	fd = open_or_fail(0);
	if (fd < 0)
		return EXIT_CALL;
	err = tempo_info(fd, &in);
	close(fd);
	if (err)
		return p_err("TEMPO_IOC_INFO: %s", strerror(-err)), EXIT_CALL;
	open_object(NULL);
	print_u64("version", "abi version    %" PRIu64 "\n", in.version);
	print_u64("features", "features       0x%" PRIx64, in.features);
	print_text(" (%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s)\n", in.features & TEMPO_FEAT_TIMERS ? "timers " : "",
		   in.features & TEMPO_FEAT_PERIODIC ? "periodic " : "",
		   in.features & TEMPO_FEAT_ORDER ? "order " : "",
		   in.features & TEMPO_FEAT_SINK ? "sink " : "",
		   in.features & TEMPO_FEAT_STATS ? "stats " : "",
		   in.features & TEMPO_FEAT_USER_LIMITS ? "user-limits " : "",
		   in.features & TEMPO_FEAT_ORDER_SKIP ? "order-skip " : "",
		   in.features & TEMPO_FEAT_QUERY ? "query " : "",
		   in.features & TEMPO_FEAT_URING ? "uring " : "",
		   in.features & TEMPO_FEAT_CLOCKS ? "clocks " : "",
		   in.features & TEMPO_FEAT_DEFERRABLE ? "deferrable " : "",
		   in.features & TEMPO_FEAT_SLACK ? "slack " : "",
		   in.features & TEMPO_FEAT_HOUSEKEEPING ? "housekeeping " : "",
		   in.features & TEMPO_FEAT_FINE ? "fine " : "",
		   in.features & TEMPO_FEAT_ALARM ? "alarm " : "",
		   in.features & TEMPO_FEAT_TICKET_MANY ? "ticket-many" : "");
	print_u64("record_size", "record size    %" PRIu64 " bytes\n", in.record_size);
	print_u64("tick_ns", "tick           %" PRIu64 " ns\n", in.tick_ns);
	print_u64("max_delay_ns", "max delay      %" PRIu64 " ns\n", in.max_delay_ns);
	print_u64("min_period_ns", "min period     %" PRIu64 " ns\n", in.min_period_ns);
	print_u64("max_timers", "max timers     %" PRIu64 " per file\n", in.max_timers);
	print_u64("max_events", "max events     %" PRIu64 " ordered records per file\n",
		  in.max_events);
	print_u64("order_window", "order window   %" PRIu64 " tickets\n", in.order_window);
	print_u64("max_data", "max data       %" PRIu64 " bytes per submission\n", in.max_data);
	print_u64("max_user_contexts", "per user       %" PRIu64 " files,", in.max_user_contexts);
	print_u64("max_user_timers", " %" PRIu64 " timers,", in.max_user_timers);
	print_u64("max_user_bytes", " %" PRIu64 " bytes of submissions\n", in.max_user_bytes);
	if (in.features & TEMPO_FEAT_CLOCKS) {
		print_u64("now_monotonic", "clocks now     monotonic %" PRIu64, in.now_monotonic);
		print_u64("now_boottime", " boottime %" PRIu64, in.now_boottime);
		print_u64("now_realtime", " realtime %" PRIu64 " ns\n", in.now_realtime);
	}
	close_object();
	return 0;
}

static void print_ctx_stats(const struct tempo_ctx_stats *c)
{
	open_object("context");
	print_text("context:\n");
	print_u64("timers", "  timers %" PRIu64, c->timers);
	print_u64("armed", "  armed %" PRIu64, c->armed);
	print_u64("rearmed", "  rearmed %" PRIu64, c->rearmed);
	print_u64("fired", "  fired %" PRIu64, c->fired);
	print_u64("cancelled", "  cancelled %" PRIu64 "\n", c->cancelled);
	print_u64("events_read", "  events read %" PRIu64, c->events_read);
	print_u64("events_ready", "  ready %" PRIu64, c->events_ready);
	print_u64("overruns", "  overruns %" PRIu64, c->overruns);
	print_u64("events_lost", "  lost %" PRIu64 "\n", c->events_lost);
	print_u64("tickets", "  tickets %" PRIu64, c->tickets);
	print_u64("submitted", "  submitted %" PRIu64, c->submitted);
	print_u64("trashed", "  trashed %" PRIu64, c->trashed);
	print_u64("completed", "  completed %" PRIu64 "\n", c->completed);
	print_u64("sink_bytes", "  sink bytes %" PRIu64, c->sink_bytes);
	print_u64("sink_errors", "  sink errors %" PRIu64, c->sink_errors);
	print_s64("sink_last_error", "  last error %" PRId64, c->sink_last_error);
	print_u64("sink_pending", "  pending %" PRIu64 "\n", c->sink_pending);
	close_object();
}

/*
 * The module's figures for a file opened with CAP_PERFMON or CAP_SYS_ADMIN;
 * for anyone else, the caller's user's own (struct tempo_mod_stats .scope).
 */
static void print_mod_stats(const struct tempo_mod_stats *m)
{
	if (m->scope == TEMPO_STATS_USER) {
		open_object("user");
		print_text("user (module figures need CAP_PERFMON):\n");
		print_u64("contexts", "  open files %" PRIu64, m->contexts);
		print_u64("timer_slots", "  timer slots %" PRIu64, m->timers);
		print_u64("bytes", "  bytes %" PRIu64 "\n", m->bytes);
		close_object();
		return;
	}
	open_object("module");
	print_text("module:\n");
	print_u64("contexts", "  open files %" PRIu64, m->contexts);
	print_u64("timers", "  live timers %" PRIu64, m->timers);
	print_u64("submissions", "  submissions %" PRIu64, m->submissions);
	print_u64("bytes", "  bytes %" PRIu64 "\n", m->bytes);
	print_u64("opens", "  opens %" PRIu64, m->opens);
	print_u64("armed", "  armed %" PRIu64, m->armed);
	print_u64("fired", "  fired %" PRIu64, m->fired);
	print_u64("completed", "  completed %" PRIu64 "\n", m->completed);
	print_u64("sink_dropped", "  sink data dropped at close %" PRIu64 "\n", m->sink_dropped);
	close_object();
}

static int do_stats(int argc, char **argv)
{
	struct tempo_stats st;
	int fd, err;

	(void)argv;
	if (argc)
		return p_err("stats takes no arguments"), EXIT_USAGE;
	fd = open_or_fail(0);
	if (fd < 0)
		return EXIT_CALL;
	err = tempo_stats(fd, &st);
	close(fd);
	if (err)
		return p_err("TEMPO_IOC_STATS: %s", strerror(-err)), EXIT_CALL;
	open_object(NULL);
	print_mod_stats(&st.mod);
	print_ctx_stats(&st.ctx);	/* this run's own, fresh context */
	close_object();
	return 0;
}

/* ---- arm, watch: timers and their events ---- */

/*
 * Lateness buckets, powers of 4 of a 64th of a tick, the granule a record's
 * lateness is bounded by (TEMPO_FEAT_FINE): < 1/64, 1/16, 1/4, 1, 4, 16 and
 * 64 ticks, and more.
 */
#define LATE_BUCKETS	8

static uint64_t late_upto(uint64_t tick, int b)
{
	return (tick << (2 * b)) / 64;
}

struct lateness {
	uint64_t n, sum, max, min, early, overruns;
	uint64_t hist[LATE_BUCKETS];
};

static void late_add(struct lateness *l, const struct tempo_event *ev, uint64_t tick)
{
	uint64_t late = ev->time >= ev->deadline ? ev->time - ev->deadline : 0;
	unsigned int b = 0;

	/* A timer a set of the wall clock ended may end before its deadline. */
	if (ev->time < ev->deadline && !(ev->flags & TEMPO_EVF_CLOCK_SET))
		l->early++;
	l->min = l->n ? (late < l->min ? late : l->min) : late;
	l->n++;
	l->sum += late;
	l->max = late > l->max ? late : l->max;
	l->overruns += ev->overrun;
	while (b < LATE_BUCKETS - 1 && late >= late_upto(tick, b))
		b++;
	l->hist[b]++;
}

static void late_print(const struct lateness *l, uint64_t tick)
{
	static const char *const names[LATE_BUCKETS] = {
		"< 1/64 tick", "< 1/16 tick", "< 1/4 tick", "< 1 tick",
		"< 4 ticks", "< 16 ticks", "< 64 ticks", ">= 64 ticks",
	};
	int i;

	open_object("lateness");
	print_u64("events", "%" PRIu64 " events", l->n);
	print_u64("early", ", %" PRIu64 " early", l->early);
	print_float("mean_us", ", lateness mean %.1f us", l->n ? l->sum / 1e3 / l->n : 0);
	print_float("min_us", ", min %.1f us", l->min / 1e3);
	print_float("max_us", ", max %.1f us", l->max / 1e3);
	print_u64("overruns", ", overruns %" PRIu64 "\n", l->overruns);
	open_array("histogram");
	for (i = 0; i < LATE_BUCKETS; i++) {
		if (!l->hist[i])
			continue;
		open_object(NULL);
		print_string("bucket", "  %-12s", names[i]);
		print_u64("upto_ns", NULL, i < LATE_BUCKETS - 1 ? late_upto(tick, i) : 0);
		print_u64("count", " %8" PRIu64 "\n", l->hist[i]);
		close_object();
	}
	close_array();
	close_object();
	print_text("(tick %" PRIu64 " us)\n", tick / 1000);
}

/* The name of the clock a record's times are in. */
static const char *event_clock(const struct tempo_event *ev)
{
	switch (tempo_event_clock(ev)) {
	case CLOCK_BOOTTIME:
		return "boottime";
	case CLOCK_REALTIME:
		return "realtime";
	default:
		return "monotonic";
	}
}

static void print_event(const struct tempo_event *ev)
{
	open_object(NULL);
	print_string("type", "%-6s", ev->type == TEMPO_EV_TIMER ? "timer" :
		     ev->type == TEMPO_EV_ORDER ? "order" : "lost");
	print_u64("id", " id %-6" PRIu64, ev->id);
	print_u64("cookie", " cookie %-6" PRIu64, ev->cookie);
	print_string("clock", " %s", event_clock(ev));
	print_u64("deadline", " deadline %" PRIu64, ev->deadline);
	print_s64("late_ns", " %+" PRId64 " ns", (int64_t)(ev->time - ev->deadline));
	print_u64("overrun", " overrun %" PRIu64, ev->overrun);
	print_bool("clock_set", NULL, ev->flags & TEMPO_EVF_CLOCK_SET);
	print_text("%s", ev->flags & TEMPO_EVF_CLOCK_SET ? " ended by a clock set" : "");
	print_bool("final", " final %s\n", ev->flags & TEMPO_EVF_FINAL);
	close_object();
}

/*
 * The clock keywords of arm, watch and query: boottime, realtime (neither:
 * monotonic), cancel-on-set, deferrable and alarm, as TEMPO_ARM_* flags.
 */
struct clock_kw {
	uint64_t boottime, realtime, cancel_on_set, deferrable, alarm;
};

#define CLOCK_KWS(c) \
	{ "boottime", false, true, &(c).boottime }, { "realtime", false, true, &(c).realtime }, \
	{ "cancel-on-set", false, true, &(c).cancel_on_set }, \
	{ "deferrable", false, true, &(c).deferrable }, { "alarm", false, true, &(c).alarm }

static uint32_t clock_flags(const struct clock_kw *c)
{
	/* cancel-on-set is of absolute REALTIME timers only: it says both. */
	return (c->boottime ? TEMPO_ARM_BOOTTIME : 0) | (c->realtime ? TEMPO_ARM_REALTIME : 0) |
	       (c->cancel_on_set ? TEMPO_ARM_CANCEL_ON_SET | TEMPO_ARM_ABS |
				   TEMPO_ARM_REALTIME : 0) |
	       (c->deferrable ? TEMPO_ARM_DEFERRABLE : 0) | (c->alarm ? TEMPO_ARM_ALARM : 0);
}

/*
 * Arm @count timers @delay apart (spread), in the clock of TEMPO_ARM_*
 * @flags, read @want events, summarise.
 */
static int arm_and_watch(uint64_t count, uint64_t delay, uint64_t spread, uint64_t period,
			 uint64_t slack, uint64_t want, uint32_t flags, bool quiet)
{
	bool abs = flags & TEMPO_ARM_ABS;
	struct tempo_timer_spec *s = calloc(count, sizeof(*s));
	struct tempo_event ev[256];
	struct lateness l = { 0 };
	struct tempo_batch b;
	struct tempo_info in;
	uint64_t now, i;
	int fd, err, n, j;

	if (!s)
		return p_err("out of memory"), EXIT_CALL;
	fd = open_or_fail(0);
	if (fd < 0)
		return free(s), EXIT_CALL;
	tempo_info(fd, &in);
	now = tempo_now(flags);
	for (i = 0; i < count; i++) {
		s[i].cookie = i;
		s[i].value = delay + (count > 1 ? spread * i / (count - 1) : 0) + (abs ? now : 0);
		s[i].period = period;
		s[i].flags = flags;
		s[i].slack_us = slack / 1000;
	}
	err = tempo_arm(fd, s, count, &b);
	if (err) {
		p_err("TEMPO_IOC_TIMER_ARM: %s at element %u of %" PRIu64 " (%u armed)",
		      strerror(-b.error ? -b.error : -err), b.error_index, count, b.done);
		close(fd);
		free(s);
		return EXIT_CALL;
	}
	open_object(NULL);
	print_u64("armed", "armed %" PRIu64 " timers", count);
	print_u64("delay_ns", ", delay %" PRIu64 " ns", delay);
	print_u64("spread_ns", ", spread %" PRIu64 " ns", spread);
	print_u64("period_ns", ", period %" PRIu64 " ns", period);
	print_u64("slack_ns", ", slack %" PRIu64 " ns\n", slack / 1000 * 1000);
	if (!quiet)
		open_array("events");
	while (l.n < want) {
		n = tempo_read_events(fd, ev, want - l.n < 256 ? want - l.n : 256);
		if (n < 0) {
			p_err("read: %s", strerror(-n));
			break;
		}
		for (j = 0; j < n; j++) {
			if (!quiet)
				print_event(&ev[j]);
			late_add(&l, &ev[j], in.tick_ns);
		}
	}
	if (!quiet)
		close_array();
	late_print(&l, in.tick_ns);
	close_object();
	close(fd);
	free(s);
	return l.early ? EXIT_CHECK : l.n < want ? EXIT_CALL : 0;
}

static int do_arm(int argc, char **argv)
{
	uint64_t count = 1, delay = 1000000, spread = 0, period = 0, abs = 0, quiet = 0;
	uint64_t slack = 0;
	struct clock_kw c = { 0 };
	struct kw kws[] = {
		{ "count", false, false, &count }, { "delay", true, false, &delay },
		{ "spread", true, false, &spread }, { "period", true, false, &period },
		{ "slack", true, false, &slack },
		{ "abs", false, true, &abs }, { "quiet", false, true, &quiet }, CLOCK_KWS(c),
		{ NULL },
	};

	if (parse_kw(argc, argv, kws))
		return EXIT_USAGE;
	if (!count || period)
		return p_err("arm: count >= 1, and no period (use watch)"), EXIT_USAGE;
	if (slack / 1000 > TEMPO_SLACK_MAX_US)
		return p_err("arm: slack at most %u us", TEMPO_SLACK_MAX_US), EXIT_USAGE;
	return arm_and_watch(count, delay, spread, 0, slack, count,
			     clock_flags(&c) | (abs ? TEMPO_ARM_ABS : 0), quiet || count > 20);
}

static int do_watch(int argc, char **argv)
{
	uint64_t period = 100000000, count = 10, delay = 0;
	struct clock_kw c = { 0 };
	struct kw kws[] = {
		{ "period", true, false, &period }, { "count", false, false, &count },
		{ "delay", true, false, &delay }, CLOCK_KWS(c), { NULL },
	};

	if (parse_kw(argc, argv, kws))
		return EXIT_USAGE;
	return arm_and_watch(1, delay ? delay : period, 0, period, 0, count, clock_flags(&c),
			     false);
}

static int do_cancel(int argc, char **argv)
{
	uint64_t count = 1000, delay = 1000000000, by_cookie = 0, cookie = 7;
	struct kw kws[] = {
		{ "count", false, false, &count }, { "delay", true, false, &delay },
		{ "cookie", false, true, &by_cookie }, { NULL },
	};
	struct tempo_timer_spec *s;
	struct tempo_ctx_stats st;
	struct tempo_stats all;
	struct tempo_batch b;
	uint64_t *ids, i, t0, t1, t2;
	int fd, err;

	if (parse_kw(argc, argv, kws))
		return EXIT_USAGE;
	s = calloc(count, sizeof(*s));
	ids = calloc(count, sizeof(*ids));
	fd = open_or_fail(O_NONBLOCK);
	if (!s || !ids || fd < 0)
		return EXIT_CALL;
	for (i = 0; i < count; i++) {
		s[i].value = delay;
		s[i].cookie = cookie;
	}
	t0 = tempo_now_ns();
	err = tempo_arm(fd, s, count, NULL);
	t1 = tempo_now_ns();
	if (err)
		return p_err("arm: %s", strerror(-err)), EXIT_CALL;
	for (i = 0; i < count; i++)
		ids[i] = s[i].id;
	err = by_cookie ? tempo_cancel(fd, &cookie, 1, TEMPO_CANCEL_COOKIE, &b) :
			  tempo_cancel(fd, ids, count, 0, &b);
	t2 = tempo_now_ns();
	tempo_stats(fd, &all);
	st = all.ctx;
	open_object(NULL);
	print_u64("armed", "armed %" PRIu64 " timers", count);
	print_float("arm_ns_per_timer", " (%.0f ns each)", (double)(t1 - t0) / count);
	print_string("by", ", cancelled by %s:", by_cookie ? "cookie" : "id");
	print_u64("done", " %" PRIu64 " ok", b.done);
	print_u64("affected", ", %" PRIu64 " timers", b.affected);
	print_float("cancel_ns_per_timer", " (%.0f ns each)", (double)(t2 - t1) / count);
	print_s64("error", ", first error %" PRId64, b.error);
	print_u64("error_index", " at %" PRIu64 "\n", b.error_index);
	print_u64("left", "timers left %" PRIu64 "\n", st.timers);
	close_object();
	close(fd);
	free(s);
	free(ids);
	if (err)
		return EXIT_CALL;
	return st.timers ? EXIT_CHECK : 0;
}

/*
 * query: arm @count timers @delay apart (periodic with @period), let @wait
 * pass, and show what TEMPO_IOC_TIMER_QUERY says of each: armed with the
 * time left, or fired with its record unread.
 */
static int do_query(int argc, char **argv)
{
	uint64_t count = 4, delay = 100000000, period = 0, wait = 150000000, i;
	struct clock_kw c = { 0 };
	struct kw kws[] = {
		{ "count", false, false, &count }, { "delay", true, false, &delay },
		{ "period", true, false, &period }, { "wait", true, false, &wait }, CLOCK_KWS(c),
		{ NULL },
	};
	uint32_t flags;
	struct tempo_timer_spec *s;
	struct tempo_timer_query *q;
	struct tempo_batch b;
	int fd, err, ret = 0;

	if (parse_kw(argc, argv, kws))
		return EXIT_USAGE;
	if (!count || count > 1000000)
		return p_err("query: count 1..1000000"), EXIT_USAGE;
	s = calloc(count, sizeof(*s));
	q = calloc(count, sizeof(*q));
	fd = open_or_fail(O_NONBLOCK);
	if (!s || !q || fd < 0) {
		free(s);
		free(q);
		return EXIT_CALL;
	}
	flags = clock_flags(&c);
	for (i = 0; i < count; i++) {
		s[i].cookie = i;
		s[i].value = delay * (i + 1) + (flags & TEMPO_ARM_ABS ? tempo_now(flags) : 0);
		s[i].period = period;
		s[i].flags = flags;
	}
	err = tempo_arm(fd, s, count, NULL);
	if (err) {
		p_err("TEMPO_IOC_TIMER_ARM: %s", strerror(-err));
		ret = EXIT_CALL;
		goto out;
	}
	usleep(wait / 1000);
	for (i = 0; i < count; i++)
		q[i].id = s[i].id;
	err = tempo_query(fd, q, count, &b);
	if (err && err != -ENOENT) {
		p_err("TEMPO_IOC_TIMER_QUERY: %s", strerror(-err));
		ret = EXIT_CALL;
		goto out;
	}
	open_object(NULL);
	print_u64("found", "%" PRIu64 " timers found", b.done);
	print_u64("wait_ns", " after %" PRIu64 " ns\n", wait);
	open_array("timers");
	for (i = 0; i < count; i++) {
		open_object(NULL);
		print_u64("id", "id %#" PRIx64, q[i].id);
		print_u64("cookie", " cookie %" PRIu64, q[i].cookie);
		if (q[i].error) {
			print_s64("error", " error %" PRId64 "\n", q[i].error);
		} else {
			print_string("state", " %s", q[i].state == TEMPO_TIMER_ARMED ? "armed" :
				     q[i].state == TEMPO_TIMER_FIRED ? "fired" : "clock-set");
			print_u64("deadline", " deadline %" PRIu64, q[i].deadline);
			print_u64("period", " period %" PRIu64, q[i].period);
			print_u64("remaining", " remaining %" PRIu64 " ns\n", q[i].remaining);
		}
		close_object();
	}
	close_array();
	close_object();
	if (err)
		ret = EXIT_CHECK;
out:
	close(fd);
	free(s);
	free(q);
	return ret;
}

/* ---- order-demo: a parallel pipeline with ordered output ---- */

struct demo {
	int fd;
	uint64_t items, next;
	pthread_mutex_t lock;
	uint64_t *finish_order;	/* tickets in the order the workers finished */
	uint64_t finished;
	bool sink;
};

static void *demo_worker(void *arg)
{
	struct demo *d = arg;
	unsigned int seed = (unsigned int)(uintptr_t)&seed;
	char line[64];
	uint64_t t;
	int len;

	for (;;) {
		/* "read(input)": the ticket fixes this item's place in the output */
		pthread_mutex_lock(&d->lock);
		if (d->next == d->items) {
			pthread_mutex_unlock(&d->lock);
			return NULL;
		}
		d->next++;
		if (tempo_ticket(d->fd, 0, &t)) {
			pthread_mutex_unlock(&d->lock);
			return NULL;
		}
		pthread_mutex_unlock(&d->lock);

		usleep(rand_r(&seed) % 20000);		/* "process": uneven work */
		len = snprintf(line, sizeof(line), "item %3" PRIu64 " (ticket %" PRIu64 ")\n",
			       t, t);
		pthread_mutex_lock(&d->lock);
		d->finish_order[d->finished++] = t;
		pthread_mutex_unlock(&d->lock);
		/* "write(output)": in ticket order, by whoever completes the run */
		if (tempo_submit(d->fd, t, t, line, len))
			return NULL;
	}
}

static int do_order_demo(int argc, char **argv)
{
	uint64_t workers = 4, items = 16, sink = 0, i, last = 0, got = 0, inversions = 0;
	struct kw kws[] = {
		{ "workers", false, false, &workers }, { "items", false, false, &items },
		{ "sink", false, true, &sink }, { NULL },
	};
	struct demo d = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct tempo_event ev[64];
	pthread_t th[64];
	bool bad = false;
	int n, j;

	if (parse_kw(argc, argv, kws))
		return EXIT_USAGE;
	if (!workers || workers > 64 || !items)
		return p_err("order-demo: 1..64 workers, items >= 1"), EXIT_USAGE;
	d.items = items;
	d.finish_order = calloc(items, sizeof(uint64_t));
	d.fd = open_or_fail(O_NONBLOCK);
	if (d.fd < 0 || !d.finish_order)
		return EXIT_CALL;
	if (sink && !json) {
		fflush(stdout);
		if (tempo_set_sink(d.fd, STDOUT_FILENO))
			return p_err("sink: stdout is not a pipe or file kernel_write() accepts"),
			       EXIT_CALL;
		d.sink = true;
		print_text("output (written by the kernel to stdout, in ticket order):\n");
		fflush(stdout);
	}
	for (i = 0; i < workers; i++)
		pthread_create(&th[i], NULL, demo_worker, &d);
	for (i = 0; i < workers; i++)
		pthread_join(th[i], NULL);
	/* The scheduler may finish a long run of completions on its workqueue. */
	for (j = 0; j < 10000; j++) {
		struct tempo_stats st;

		if (tempo_stats(d.fd, &st) || st.ctx.completed >= d.finished)
			break;
		usleep(1000);
	}
	/* Those wait for the sink until a flush: close() would drop them. */
	if (d.sink && tempo_flush(d.fd))
		return p_err("TEMPO_IOC_ORDER_FLUSH failed"), EXIT_CALL;

	open_object(NULL);
	open_array("finished");
	print_text("workers finished:  ");
	for (i = 0; i < d.finished; i++) {
		print_u64(NULL, " %" PRIu64, d.finish_order[i]);
		inversions += i && d.finish_order[i] < d.finish_order[i - 1];
	}
	close_array();
	print_text("\n");
	if (!d.sink) {
		open_array("delivered");
		print_text("records delivered: ");
		while ((n = tempo_read_events(d.fd, ev, 64)) > 0) {
			for (j = 0; j < n; j++) {
				print_u64(NULL, " %" PRIu64, ev[j].id);
				bad |= got && ev[j].id <= last;
				last = ev[j].id;
				got++;
			}
		}
		close_array();
		print_text("\n");
	} else {
		got = d.finished;
	}
	print_u64("workers", "%" PRIu64 " workers", workers);
	print_u64("items", ", %" PRIu64 " items", items);
	print_u64("finished_out_of_order", ", %" PRIu64 " finished out of order", inversions);
	print_bool("delivered_in_order", ", delivered in order: %s\n", !bad && got == items);
	close_object();
	close(d.fd);
	free(d.finish_order);
	return bad || got != items ? EXIT_CHECK : 0;
}

/* ---- bench ---- */

static int do_bench(int argc, char **argv)
{
	uint64_t timers = 100000, batch = 1000, delay = 10000000, i, got = 0;
	struct kw kws[] = {
		{ "timers", false, false, &timers }, { "batch", false, false, &batch },
		{ "delay", true, false, &delay }, { NULL },
	};
	struct tempo_timer_spec *s;
	struct tempo_event *ev;
	struct lateness l = { 0 };
	struct tempo_info in;
	uint64_t t0, t1, t2, t3, *ids;
	int fd, n, j;

	if (parse_kw(argc, argv, kws))
		return EXIT_USAGE;
	if (!timers || !batch)
		return p_err("bench: timers, batch >= 1"), EXIT_USAGE;
	s = calloc(timers, sizeof(*s));
	ids = calloc(timers, sizeof(*ids));
	ev = calloc(1024, sizeof(*ev));
	fd = open_or_fail(0);
	if (!s || !ids || !ev || fd < 0)
		return EXIT_CALL;
	tempo_info(fd, &in);

	/* 1: arm and cancel, far away: the cost of the calls alone */
	for (i = 0; i < timers; i++)
		s[i].value = 3600ULL * 1000000000ULL;
	t0 = tempo_now_ns();
	for (i = 0; i < timers; i += batch)
		if (tempo_arm(fd, s + i, timers - i < batch ? timers - i : batch, NULL))
			return p_err("arm failed"), EXIT_CALL;
	t1 = tempo_now_ns();
	for (i = 0; i < timers; i++)
		ids[i] = s[i].id;
	for (i = 0; i < timers; i += batch)
		tempo_cancel(fd, ids + i, timers - i < batch ? timers - i : batch, 0, NULL);
	t2 = tempo_now_ns();

	/* 2: arm to fire within @delay, read them all */
	for (i = 0; i < timers; i++)
		s[i].value = delay * i / timers;
	for (i = 0; i < timers; i += batch)
		tempo_arm(fd, s + i, timers - i < batch ? timers - i : batch, NULL);
	while (got < timers) {
		n = tempo_read_events(fd, ev, 1024);
		if (n < 0)
			break;
		for (j = 0; j < n; j++)
			late_add(&l, &ev[j], in.tick_ns);
		got += n;
	}
	t3 = tempo_now_ns();

	open_object(NULL);
	print_u64("timers", "timers %" PRIu64, timers);
	print_u64("batch", ", batch %" PRIu64 "\n", batch);
	print_float("arm_ns", "arm     %8.1f ns/timer\n", (double)(t1 - t0) / timers);
	print_float("cancel_ns", "cancel  %8.1f ns/timer\n", (double)(t2 - t1) / timers);
	print_float("fire_read_per_s", "fire+read %8.0f timers/s\n",
		    got * 1e9 / (double)(t3 - t2));
	late_print(&l, in.tick_ns);
	close_object();
	print_text("SUMMARY bench timers=%" PRIu64 " arm_ns=%.1f cancel_ns=%.1f "
		   "lateness_mean_us=%.1f lateness_max_us=%.1f early=%" PRIu64 "\n",
		   timers, (double)(t1 - t0) / timers, (double)(t2 - t1) / timers,
		   l.n ? l.sum / 1e3 / l.n : 0, l.max / 1e3, l.early);
	close(fd);
	free(s);
	free(ids);
	free(ev);
	return l.early ? EXIT_CHECK : got < timers ? EXIT_CALL : 0;
}

static int do_help(int argc, char **argv)
{
	const struct cmd *c;

	(void)argc;
	(void)argv;
	if (json) {
		printf("null\n");
		return 0;
	}
	printf("Usage: tempoctl [-j|--json] [-p|--pretty] COMMAND [ARGS]\n\nCommands:\n");
	for (c = cmds; c->name; c++)
		printf("  %-11s %-44s %s\n", c->name, c->args, c->help);
	printf("\nTimes take ns, us, ms or s (default ns). Commands match by prefix.\n"
	       "CLOCK: boottime or realtime (default monotonic), and cancel-on-set\n"
	       "(an absolute realtime timer that ends when the wall clock is set) or\n"
	       "alarm (it wakes the machine from suspend; needs CAP_WAKE_ALARM), or\n"
	       "deferrable (monotonic; never wakes an idle CPU).\n"
	       "Exit status: 0 ok, 1 a call failed, 2 usage, 3 a check failed.\n");
	return 0;
}

static const struct cmd cmd_table[] = {
	{ "info", do_info, "", "ABI version, features and limits" },
	{ "stats", do_stats, "", "module counters" },
	{ "arm", do_arm, "[count N] [delay T] [spread T] [slack T] [abs] [quiet] [CLOCK]",
	  "arm timers, wait for them, summarise lateness" },
	{ "watch", do_watch, "[period T] [count N] [delay T] [CLOCK]",
	  "a periodic timer's events as they come" },
	{ "cancel", do_cancel, "[count N] [delay T] [cookie]",
	  "arm then cancel a batch, by id or by cookie" },
	{ "query", do_query, "[count N] [delay T] [period T] [wait T] [CLOCK]",
	  "arm timers, wait, and show what is left of each" },
	{ "order-demo", do_order_demo, "[workers N] [items N] [sink]",
	  "workers finish out of order, output comes in order" },
	{ "bench", do_bench, "[timers N] [batch N] [delay T]",
	  "arm/cancel cost and delivery of many timers" },
	{ "help", do_help, "", "this text" },
	{ NULL, NULL, NULL, NULL },
};

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct cmd *c, *match = NULL;
	int opt, rc;

	cmds = cmd_table;
	while ((opt = getopt_long(argc, argv, "+jpVh", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			pretty = true;
			/* fall through */
		case 'j':
			json = true;
			break;
		case 'V':
			printf("tempoctl for tempo ABI %d\n", TEMPO_ABI_VERSION);
			return 0;
		case 'h':
			return do_help(0, NULL);
		default:
			return EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;
	if (!argc)
		return do_help(0, NULL), EXIT_USAGE;
	for (c = cmds; c->name; c++) {
		if (!is_prefix(argv[0], c->name))
			continue;
		if (match) {
			p_err("'%s' is ambiguous", argv[0]);
			return EXIT_USAGE;
		}
		match = c;
	}
	if (!match) {
		p_err("unknown command '%s'; try 'tempoctl help'", argv[0]);
		return EXIT_USAGE;
	}
	rc = match->fn(argc - 1, argv + 1);
	print_end();
	return rc;
}
