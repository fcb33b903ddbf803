/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * libtempo_uring: liburing helpers for /dev/tempo (include/uapi/tempo.h,
 * "io_uring"). Header only: include it after <liburing.h> and link with
 * -luring; liburing stays the only io_uring dependency, and nothing here
 * allocates or starts a thread.
 *
 *	struct tempo_batch b;
 *	struct tempo_uring_cmd uc;
 *
 *	sqe = io_uring_get_sqe(&ring);
 *	tempo_uring_prep_arm(sqe, fd, &uc, &b, specs, n);
 *	io_uring_submit(&ring);
 *	...			// cqe->res: timers armed, or -errno
 *
 * @uc and @b (and the array) must stay valid until the CQE arrives: the
 * kernel may read them from an io_uring worker after the submit returned.
 */
#ifndef LIBTEMPO_URING_H
#define LIBTEMPO_URING_H

#include <stdint.h>
#include <string.h>
#include <liburing.h>

#include "libtempo.h"

/* An IORING_OP_URING_CMD SQE for command @op (TEMPO_URING_CMD_*) on batch @b. */
static inline void tempo_uring_prep_cmd(struct io_uring_sqe *sqe, int fd, uint32_t op,
					struct tempo_uring_cmd *uc, struct tempo_batch *b)
{
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, NULL, 0, 0);
	sqe->cmd_op = op;
	memset(uc, 0, sizeof(*uc));
	uc->batch = (uintptr_t)b;
	memcpy(sqe->cmd, uc, sizeof(*uc));
}

/* Arm @n timers (ids written to @specs); the CQE's res: timers armed, or -errno. */
static inline void tempo_uring_prep_arm(struct io_uring_sqe *sqe, int fd,
					struct tempo_uring_cmd *uc, struct tempo_batch *b,
					struct tempo_timer_spec *specs, uint32_t n)
{
	memset(b, 0, sizeof(*b));
	b->ptr = (uintptr_t)specs;
	b->count = n;
	tempo_uring_prep_cmd(sqe, fd, TEMPO_URING_CMD_ARM, uc, b);
}

/* Cancel @n timers by id, or by cookie (@flags TEMPO_CANCEL_COOKIE). */
static inline void tempo_uring_prep_cancel(struct io_uring_sqe *sqe, int fd,
					   struct tempo_uring_cmd *uc, struct tempo_batch *b,
					   const uint64_t *keys, uint32_t n, uint32_t flags)
{
	memset(b, 0, sizeof(*b));
	b->ptr = (uintptr_t)keys;
	b->count = n;
	b->flags = flags;
	tempo_uring_prep_cmd(sqe, fd, TEMPO_URING_CMD_CANCEL, uc, b);
}

/* Read up to @max records: as read(2), the CQE's res is bytes read or -errno. */
static inline void tempo_uring_prep_read(struct io_uring_sqe *sqe, int fd,
					 struct tempo_event *ev, unsigned int max)
{
	io_uring_prep_read(sqe, fd, ev, max * sizeof(*ev), 0);
}

#endif /* LIBTEMPO_URING_H */
