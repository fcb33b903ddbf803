/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - the one place for kernel-version differences.
 *
 * tempo is written against the API of the newest kernel it supports; this header
 * supplies that API on the older ones, under the name the newer kernel uses, so that
 * no LINUX_VERSION_CODE test appears anywhere else. Each entry names the kernel
 * release that changed the API. When the oldest supported kernel moves past a
 * release, delete its entry.
 *
 * Supported and tested (README.md, "Supported kernels"):
 *
 *	6.1	Debian 12 (bookworm): built against the distribution headers
 *		(linux-headers-amd64) and tested in the VM (linux-source-6.1)
 *	6.12	Debian 13 (trixie), LTS: built and tested (linux-source-6.12)
 *	7.2	Debian sid: built and tested (linux-source-7.2)
 *
 * Include it after the kernel headers, from the .c files that use an entry.
 */
#ifndef _TEMPO_COMPAT_H
#define _TEMPO_COMPAT_H

#include <linux/alarmtimer.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/timer.h>
#include <linux/version.h>
#include <linux/workqueue.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 6, 0)

/*
 * 6.6, "kunit: Add speed attribute": KUNIT_CASE_SLOW() marks a case that takes
 * more than a second, for kunit.filter to leave out on request. Before, cases
 * have no attributes: a slow case is a case. (Used by kunit/ only; expands to
 * nothing until used.)
 */
#define KUNIT_CASE_SLOW(test_name)	KUNIT_CASE(test_name)

#endif /* < 6.6 */

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)

/*
 * 6.13, "module: Convert symbol namespace to string literal": namespaces are
 * string literals, MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING"). Before, the
 * macro stringified an identifier; MODULE_INFO() with the literal is what it
 * expanded to.
 */
#undef MODULE_IMPORT_NS
#define MODULE_IMPORT_NS(ns)	MODULE_INFO(import_ns, ns)

/*
 * The same commit, on the exporting side: EXPORT_SYMBOL_NS_GPL(sym, "TEMPO").
 * Before, it stringified an identifier; this passes the literal to what it
 * expanded to, whose license argument 6.5 ("kbuild: generate KSYMTAB entries
 * by modpost") spells "GPL" and earlier kernels "_gpl".
 */
#undef EXPORT_SYMBOL_NS_GPL
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0)
#define EXPORT_SYMBOL_NS_GPL(sym, ns)	__EXPORT_SYMBOL(sym, "_gpl", ns)
#else
#define EXPORT_SYMBOL_NS_GPL(sym, ns)	__EXPORT_SYMBOL(sym, "GPL", ns)
#endif

/*
 * 6.13, "hrtimers: Introduce hrtimer_setup() to replace hrtimer_init()"; 6.16
 * removed hrtimer_init(). The callback is set together with the clock and mode.
 */
static inline void hrtimer_setup(struct hrtimer *timer,
				 enum hrtimer_restart (*function)(struct hrtimer *),
				 clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}

#endif /* < 6.13 */

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 17, 0)

/*
 * 6.17, "workqueue: Add new WQ_PERCPU flag": a per-CPU workqueue says so, as the
 * complement of WQ_UNBOUND (on the way to unbound by default); 7.x warns at
 * alloc_workqueue() when a caller names neither. Before 6.17 per-CPU is what no flag
 * means, so the flag is 0. Some stable kernels (6.12.y) backported the enum value, which
 * they ignore; this macro, defined after <linux/workqueue.h>, shadows it harmlessly.
 */
#undef WQ_PERCPU
#define WQ_PERCPU	0

#endif /* < 6.17 */

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 16, 0)

/*
 * 6.16, "timers: Rename from_timer() to timer_container_of()"; from_timer()
 * is gone after it.
 */
#define timer_container_of(var, callback_timer, timer_fieldname) \
	from_timer(var, callback_timer, timer_fieldname)

#endif /* < 6.16 */

/*
 * 6.13, "alarmtimers: Remove return value from alarm functions": an alarm's
 * callback returns nothing. Before, it returned enum alarmtimer_restart, and
 * ALARMTIMER_NORESTART left the alarm stopped. A callback is declared
 * returning TEMPO_ALARM_RET and ends with "return TEMPO_ALARM_DONE;".
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
#define TEMPO_ALARM_RET		enum alarmtimer_restart
#define TEMPO_ALARM_DONE	ALARMTIMER_NORESTART
#else
#define TEMPO_ALARM_RET		void
#define TEMPO_ALARM_DONE
#endif

#if LINUX_VERSION_CODE < KERNEL_VERSION(7, 1, 0)

/*
 * 7.1, "alarmtimer: Provide alarm_start_timer()" (with the hrtimer change that
 * makes hrtimer_start_range_ns_user() refuse a user timer already expired):
 * it replaced alarm_start() and alarm_start_relative(), and returns false,
 * the alarm not queued and its callback not run, when @expires has passed.
 * Before, an alarm started for a time past fires at once, from the hrtimer
 * interrupt: it is always queued.
 */
static inline bool alarm_start_timer(struct alarm *alarm, ktime_t expires, bool relative)
{
	if (relative)
		alarm_start_relative(alarm, expires);
	else
		alarm_start(alarm, expires);
	return true;
}

#endif /* < 7.1 */

#ifdef TEMPO_COMPAT_URING_CMD	/* defined by the file that implements ->uring_cmd */

/*
 * 6.6, "io_uring: Pass whole sqe to commands" (fd9b8547bc5c): struct
 * io_uring_cmd carries the SQE (->sqe) and a driver reads its command area,
 * sqe->cmd; before, ->cmd pointed at that area. 6.7, "io_uring/cmd: move
 * io_uring_cmd related code to its own file" (b66509b8497f): the struct is
 * declared in <linux/io_uring/cmd.h>; before, in <linux/io_uring.h>. Later
 * kernels turned io_uring_sqe_cmd() into a macro taking the type (7.x);
 * tempo reads sqe->cmd itself, the one spelling every release since 6.6
 * shares. The area is 16 bytes in a 64-byte SQE on all of them.
 */
/*
 * 6.8 moved the freeze protection of a write into vfs_iter_write() ("fs: move
 * file_start_write() into vfs_iter_write()"), which before took none: its
 * caller took file_start_write(). Taken twice, it is a recursive read of the
 * superblock's freeze rwsem, which a freeze waiting between the two
 * deadlocks (lockdep: "possible recursive locking"). Before 6.8,
 * vfs_iter_write() is the 6.8 one.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 8, 0)
#include <linux/fs.h>

static inline ssize_t tempo_vfs_iter_write(struct file *file, struct iov_iter *iter,
					   loff_t *ppos, rwf_t flags)
{
	ssize_t ret;

	file_start_write(file);
	ret = (vfs_iter_write)(file, iter, ppos, flags);
	file_end_write(file);
	return ret;
}

#define vfs_iter_write(file, iter, ppos, flags) tempo_vfs_iter_write(file, iter, ppos, flags)
#endif

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 7, 0)
#include <linux/io_uring.h>
#else
#include <linux/io_uring/cmd.h>
#endif

static inline const void *tempo_uring_cmd_payload(const struct io_uring_cmd *ioucmd)
{
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 6, 0)
	return ioucmd->cmd;
#else
	return ioucmd->sqe->cmd;
#endif
}

/*
 * 6.1 (and 6.2): io_uring_cmd() returns a positive ->uring_cmd() result as
 * its own, and io_wq_submit_work() completes only errors: a command issued
 * from an io_uring worker with a positive result never gets its CQE. So
 * there a command completes through io_uring_cmd_done() and returns
 * -EIOCBQUEUED, as ublk does. (Its issue_flags argument came in 6.3,
 * "io_uring: add issue_flags to io_uring_cmd_done()"; the 6.1.y stable
 * kernels tempo supports, Debian 12's, carry the backport.) Later io_uring_cmd() sets the
 * result itself and returns IOU_OK (IOU_COMPLETE in 7.x): a positive result
 * is returned as it is. -EAGAIN is always returned: io_uring issues again.
 */
static inline int tempo_uring_cmd_result(struct io_uring_cmd *ioucmd, int ret,
					 unsigned int issue_flags)
{
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
	if (ret == -EAGAIN)
		return ret;
	io_uring_cmd_done(ioucmd, ret, 0, issue_flags);
	return -EIOCBQUEUED;
#else
	return ret;
#endif
}

#endif /* TEMPO_COMPAT_URING_CMD */

#endif /* _TEMPO_COMPAT_H */
