/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the module face (main.c) needs from the cores beyond their public
 * headers: each core's init, exit and debugfs. The cores include this for
 * their own prototypes; between cores, only the include/tempo/ header of the
 * core one builds on crosses. Below those, the module-wide totals that only
 * the tests read (exported with EXPORT_SYMBOL_IF_KUNIT; the userspace build
 * of the cores calls them directly). Nothing here is about files: the file
 * interface's own entry points are in dev.h.
 */
#ifndef _TEMPO_INTERNAL_H
#define _TEMPO_INTERNAL_H

#include <linux/types.h>

struct dentry;

/* kmod/wheel_cpu.c; the debugfs view in kmod/wheel_debugfs.c */
int tempo_wheel_init(u32 tick_ns, unsigned int levels);
void tempo_wheel_exit(void);
void tempo_wheel_debugfs(struct dentry *dir);

/* kmod/order.c */
int tempo_order_init(void);
void tempo_order_exit(void);
void tempo_order_debugfs(struct dentry *dir);

/* kmod/clock.c (its interface to the other cores: clock.h) */
int tempo_clock_init(void);
void tempo_clock_exit(void);
void tempo_clock_debugfs(struct dentry *dir);

/* kmod/delayq_clock.c (init, exit) and kmod/delayq_life.c (debugfs) */
int tempo_delayq_init(void);
void tempo_delayq_exit(void);
void tempo_delayq_debugfs(struct dentry *dir);

/* For the tests: kmod/wheel_debugfs.c, kmod/order.c, kmod/delayq_clock.c */
struct tempo_order_stats;
void tempo_wheel_totals(u64 *taken, u64 *fired, u64 *released);
u64 tempo_order_stats_all(struct tempo_order_stats *stats);
void tempo_delayq_alarm_pass(void);

#endif /* _TEMPO_INTERNAL_H */
