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

#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/version.h>
#include <linux/workqueue.h>

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

#endif /* _TEMPO_COMPAT_H */
