/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * libtempo: thin wrappers around the /dev/tempo ioctls (include/uapi/tempo.h).
 *
 * Every function returns 0 (or a count) on success and a negative errno on
 * failure; errno itself is left as the system call set it. There are no
 * hidden threads, no allocations and no global state: a struct tempo_batch
 * or struct tempo_event array belongs to the caller.
 */
#ifndef LIBTEMPO_H
#define LIBTEMPO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "uapi/tempo.h"

#ifdef __cplusplus
extern "C" {
#endif

/* open(TEMPO_DEVICE, O_RDWR | O_CLOEXEC | @flags): a new context, or -errno. */
int tempo_open(int flags);
int tempo_close(int fd);

int tempo_info(int fd, struct tempo_info *info);
int tempo_stats(int fd, struct tempo_stats *stats);

/*
 * Arm @n timers; each spec's id is filled in. @b (optional) receives the
 * batch outcome. Returns 0 when all were armed, else the first failure.
 */
int tempo_arm(int fd, struct tempo_timer_spec *specs, uint32_t n, struct tempo_batch *b);
/* One timer: @flags TEMPO_ARM_*; *@id receives the id. */
int tempo_arm_one(int fd, uint64_t cookie, uint64_t value, uint64_t period,
		  uint32_t flags, uint64_t *id);
/*
 * tempo_arm_one() with a slack: the timer may fire up to @slack_us after each
 * deadline (struct tempo_timer_spec.slack_us; EINVAL on a kernel without
 * TEMPO_FEAT_SLACK unless @slack_us is 0).
 */
int tempo_arm_slack(int fd, uint64_t cookie, uint64_t value, uint64_t period,
		    uint32_t flags, uint32_t slack_us, uint64_t *id);
/* Move timer @id to a new @value (and @period). */
int tempo_rearm(int fd, uint64_t id, uint64_t cookie, uint64_t value, uint64_t period,
		uint32_t flags);

/* Cancel @n timers by id, or by cookie with TEMPO_CANCEL_COOKIE. */
int tempo_cancel(int fd, const uint64_t *keys, uint32_t n, uint32_t flags,
		 struct tempo_batch *b);
int tempo_cancel_one(int fd, uint64_t id);

/*
 * Ask @n timers by id (q[i].id) how long they have left: state, deadline,
 * period, remaining ns and cookie are filled in; an unknown id gets
 * q[i].error -ENOENT. Returns 0 when every id was found, else the first
 * failure (-ENOENT, with every entry still answered).
 */
int tempo_query(int fd, struct tempo_timer_query *q, uint32_t n, struct tempo_batch *b);

/*
 * Read up to @max records. Returns how many, 0 never (it blocks unless the
 * file is O_NONBLOCK, then -EAGAIN), or -errno.
 */
ssize_t tempo_read_events(int fd, struct tempo_event *ev, size_t max);

/* Ordered stream. @flags TEMPO_TICKET_NONBLOCK. */
int tempo_ticket(int fd, uint32_t flags, uint64_t *ticket);
/* Up to @want consecutive tickets from *@first: how many (>= 1), or -errno. */
int tempo_tickets(int fd, uint32_t flags, uint32_t want, uint64_t *first);
int tempo_submit(int fd, uint64_t ticket, uint64_t cookie, const void *data, uint32_t len);
int tempo_trash(int fd, uint64_t ticket);
/*
 * Trash every open ticket below @end at once (TEMPO_IOC_ORDER_SKIP); *@trashed
 * (optional) receives how many. -EINVAL for @end beyond the tickets issued.
 */
int tempo_skip(int fd, uint64_t end, uint32_t *trashed);
/* Write completions to @sink_fd in ticket order; -1 for records again. */
int tempo_set_sink(int fd, int sink_fd);
/*
 * Write every completion still waiting for the sink, from this thread: -EINTR
 * or -EAGAIN (see TEMPO_IOC_ORDER_FLUSH) leave the rest queued. Call it
 * before closing a file with a sink: close() drops what still waits.
 */
int tempo_flush(int fd);

/* CLOCK_MONOTONIC now, in ns (in the caller's time namespace, as the kernel reads it). */
uint64_t tempo_now_ns(void);

/*
 * The clock a timer armed with TEMPO_ARM_* @flags keeps, now, in ns:
 * CLOCK_BOOTTIME for TEMPO_ARM_BOOTTIME, CLOCK_REALTIME for
 * TEMPO_ARM_REALTIME, else CLOCK_MONOTONIC (TEMPO_ARM_DEFERRABLE too). The
 * base of an absolute deadline: tempo_arm_one(fd, c, tempo_now(f) + delay, 0, f | TEMPO_ARM_ABS, &id).
 */
uint64_t tempo_now(uint32_t flags);

/* The clock of a record's deadline and time (TEMPO_EVF_BOOTTIME, _REALTIME). */
int tempo_event_clock(const struct tempo_event *ev);

/*
 * The TEMPO_ARM_* clock flags of a timerfd clock: 0 for CLOCK_MONOTONIC,
 * TEMPO_ARM_BOOTTIME, TEMPO_ARM_REALTIME, and with TEMPO_ARM_ALARM for
 * CLOCK_BOOTTIME_ALARM and CLOCK_REALTIME_ALARM (the arm then needs
 * CAP_WAKE_ALARM, and TEMPO_FEAT_ALARM). Returns 0 and sets *@flags, or
 * -EINVAL for another clock.
 */
int tempo_clock_flags(clockid_t clock, uint32_t *flags);

#ifdef __cplusplus
}
#endif

#endif /* LIBTEMPO_H */
