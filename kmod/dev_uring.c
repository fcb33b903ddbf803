// SPDX-License-Identifier: GPL-2.0
/*
 * tempo: /dev/tempo's io_uring commands.
 *
 * IORING_OP_URING_CMD with TEMPO_URING_CMD_ARM or _CANCEL runs the batch of
 * the matching ioctl (include/uapi/tempo.h) through dev_batch_call()
 * (dev_timer.c): the same checks, limits and accounting, charged to the
 * opener's memory cgroup. On io_uring's non-blocking issue it takes no lock
 * that is held and allocates nothing that may block; -EAGAIN, with nothing
 * done, makes io_uring issue it again from a worker. Like those ioctls, a
 * command writes nothing to the ordered stream's sink (it may run in an
 * io_uring worker). Reads through io_uring (READ, READV, READ_FIXED) are
 * dev.c's read_iter. Kernel-version differences of the command interface
 * are in compat.h.
 *
 * Locks: none of its own; those of dev_batch_call().
 */

#include <linux/fs.h>
#include <linux/memcontrol.h>
#include <linux/sched/mm.h>
#include <linux/string.h>
#include <linux/types.h>

#include <uapi/tempo.h>

#define TEMPO_COMPAT_URING_CMD	/* compat.h: the io_uring command entries */
#include "compat.h"
#include "dev.h"

/*
 * ->uring_cmd(). The CQE's result is the number of elements done when all
 * succeeded, else the ioctl's error. The SQE's command area is shared with
 * userspace: it is read once.
 */
int tempo_dev_uring_cmd(struct io_uring_cmd *ioucmd, unsigned int issue_flags)
{
	struct tempo_ctx *ctx = ioucmd->file->private_data;
	bool nowait = issue_flags & IO_URING_F_NONBLOCK;
	struct tempo_uring_cmd uc;
	struct mem_cgroup *old;
	enum dev_batch_op op;
	u32 done;
	int ret;

	memcpy(&uc, tempo_uring_cmd_payload(ioucmd), sizeof(uc));
	switch (READ_ONCE(ioucmd->cmd_op)) {
	case TEMPO_URING_CMD_ARM:
		op = DEV_BATCH_ARM;
		break;
	case TEMPO_URING_CMD_CANCEL:
		op = DEV_BATCH_CANCEL;
		break;
	default:
		return tempo_uring_cmd_result(ioucmd, -ENOTTY, issue_flags);
	}
	if (uc.flags || uc.reserved)
		return tempo_uring_cmd_result(ioucmd, -EINVAL, issue_flags);
	old = set_active_memcg(ctx->memcg);
	ret = dev_batch_call(ctx, op, u64_to_user_ptr(uc.batch), nowait, &done);
	set_active_memcg(old);
	return tempo_uring_cmd_result(ioucmd, ret ?: done, issue_flags);
}
