// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * libtempo: see libtempo.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "libtempo.h"

/* The ABI's layout, as the kernel checks it: a mismatch fails the build, not a call. */
#define TEMPO_ABI_SIZE(name, size) _Static_assert(sizeof(struct name) == (size), #name)
#define TEMPO_ABI_FIELD(name, field, off) \
	_Static_assert(offsetof(struct name, field) == (off), #name "." #field)
#include "uapi/tempo_layout.h"
#undef TEMPO_ABI_FIELD
#undef TEMPO_ABI_SIZE

static int ret_errno(int ret)
{
	return ret < 0 ? -errno : ret;
}

int tempo_open(int flags)
{
	return ret_errno(open(TEMPO_DEVICE, O_RDWR | O_CLOEXEC | flags));
}

int tempo_close(int fd)
{
	return ret_errno(close(fd));
}

int tempo_info(int fd, struct tempo_info *info)
{
	int ret = ioctl(fd, TEMPO_IOC_INFO, info);

	/* A kernel before TEMPO_FEAT_CLOCKS knows the struct's first part only. */
	if (ret < 0 && errno == ENOTTY) {
		memset(info, 0, sizeof(*info));
		ret = ioctl(fd, _IOC(_IOC_READ, TEMPO_IOC_MAGIC, 0x00, TEMPO_INFO_SIZE_VER0), info);
	}
	return ret_errno(ret);
}

int tempo_stats(int fd, struct tempo_stats *stats)
{
	return ret_errno(ioctl(fd, TEMPO_IOC_STATS, stats));
}

int tempo_arm(int fd, struct tempo_timer_spec *specs, uint32_t n, struct tempo_batch *b)
{
	struct tempo_batch local;

	if (!b)
		b = &local;
	memset(b, 0, sizeof(*b));
	b->ptr = (uintptr_t)specs;
	b->count = n;
	return ret_errno(ioctl(fd, TEMPO_IOC_TIMER_ARM, b));
}

int tempo_arm_one(int fd, uint64_t cookie, uint64_t value, uint64_t period,
		  uint32_t flags, uint64_t *id)
{
	return tempo_arm_slack(fd, cookie, value, period, flags, 0, id);
}

int tempo_arm_slack(int fd, uint64_t cookie, uint64_t value, uint64_t period,
		    uint32_t flags, uint32_t slack_us, uint64_t *id)
{
	struct tempo_timer_spec s = {
		.cookie = cookie, .value = value, .period = period, .flags = flags,
		.slack_us = slack_us,
	};
	int err;

	if (flags & TEMPO_ARM_REARM && id)
		s.id = *id;
	err = tempo_arm(fd, &s, 1, NULL);
	if (!err && id)
		*id = s.id;
	return err;
}

int tempo_rearm(int fd, uint64_t id, uint64_t cookie, uint64_t value, uint64_t period,
		uint32_t flags)
{
	return tempo_arm_one(fd, cookie, value, period, flags | TEMPO_ARM_REARM, &id);
}

int tempo_cancel(int fd, const uint64_t *keys, uint32_t n, uint32_t flags,
		 struct tempo_batch *b)
{
	struct tempo_batch local;

	if (!b)
		b = &local;
	memset(b, 0, sizeof(*b));
	b->ptr = (uintptr_t)keys;
	b->count = n;
	b->flags = flags;
	return ret_errno(ioctl(fd, TEMPO_IOC_TIMER_CANCEL, b));
}

int tempo_cancel_one(int fd, uint64_t id)
{
	return tempo_cancel(fd, &id, 1, 0, NULL);
}

int tempo_query(int fd, struct tempo_timer_query *q, uint32_t n, struct tempo_batch *b)
{
	struct tempo_batch local;

	if (!b)
		b = &local;
	memset(b, 0, sizeof(*b));
	b->ptr = (uintptr_t)q;
	b->count = n;
	return ret_errno(ioctl(fd, TEMPO_IOC_TIMER_QUERY, b));
}

ssize_t tempo_read_events(int fd, struct tempo_event *ev, size_t max)
{
	ssize_t n = read(fd, ev, max * sizeof(*ev));

	return n < 0 ? -errno : n / (ssize_t)sizeof(*ev);
}

int tempo_ticket(int fd, uint32_t flags, uint64_t *ticket)
{
	struct tempo_ticket t = { .flags = flags };
	int err = ret_errno(ioctl(fd, TEMPO_IOC_ORDER_TICKET, &t));

	if (!err)
		*ticket = t.ticket;
	return err;
}

int tempo_tickets(int fd, uint32_t flags, uint32_t want, uint64_t *first)
{
	struct tempo_ticket t = { .flags = flags | TEMPO_TICKET_MANY, .count = want };
	int err = ret_errno(ioctl(fd, TEMPO_IOC_ORDER_TICKET, &t));

	if (err)
		return err;
	*first = t.ticket;
	return t.count;
}

int tempo_submit(int fd, uint64_t ticket, uint64_t cookie, const void *data, uint32_t len)
{
	struct tempo_submit s = {
		.ticket = ticket, .cookie = cookie, .data = (uintptr_t)data, .len = len,
	};

	return ret_errno(ioctl(fd, TEMPO_IOC_ORDER_SUBMIT, &s));
}

int tempo_trash(int fd, uint64_t ticket)
{
	struct tempo_ticket t = { .ticket = ticket };

	return ret_errno(ioctl(fd, TEMPO_IOC_ORDER_TRASH, &t));
}

int tempo_skip(int fd, uint64_t end, uint32_t *trashed)
{
	struct tempo_skip s = { .end = end };
	int err = ret_errno(ioctl(fd, TEMPO_IOC_ORDER_SKIP, &s));

	if (!err && trashed)
		*trashed = s.trashed;
	return err;
}

int tempo_set_sink(int fd, int sink_fd)
{
	struct tempo_sink s = { .fd = sink_fd };

	return ret_errno(ioctl(fd, TEMPO_IOC_ORDER_SINK, &s));
}

int tempo_flush(int fd)
{
	return ret_errno(ioctl(fd, TEMPO_IOC_ORDER_FLUSH));
}

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

uint64_t tempo_now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t tempo_now(uint32_t flags)
{
	if (flags & TEMPO_ARM_BOOTTIME)
		return clock_ns(CLOCK_BOOTTIME);
	return clock_ns(flags & TEMPO_ARM_REALTIME ? CLOCK_REALTIME : CLOCK_MONOTONIC);
}

int tempo_event_clock(const struct tempo_event *ev)
{
	if (ev->flags & TEMPO_EVF_BOOTTIME)
		return CLOCK_BOOTTIME;
	return ev->flags & TEMPO_EVF_REALTIME ? CLOCK_REALTIME : CLOCK_MONOTONIC;
}

int tempo_clock_flags(clockid_t clock, uint32_t *flags)
{
	switch (clock) {
	case CLOCK_MONOTONIC:
		*flags = 0;
		return 0;
	case CLOCK_BOOTTIME:
		*flags = TEMPO_ARM_BOOTTIME;
		return 0;
	case CLOCK_REALTIME:
		*flags = TEMPO_ARM_REALTIME;
		return 0;
	case CLOCK_BOOTTIME_ALARM:
		*flags = TEMPO_ARM_BOOTTIME | TEMPO_ARM_ALARM;
		return 0;
	case CLOCK_REALTIME_ALARM:
		*flags = TEMPO_ARM_REALTIME | TEMPO_ARM_ALARM;
		return 0;
	default:
		return -EINVAL;
	}
}
