/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the module face (main.c) and the file interface (dev.c) need from the
 * cores beyond their public headers: each core's init, exit and debugfs, and
 * the wheel's entry point for callers that bring their own clock reading
 * (the delay queue's far timers, armed inside its lock on the reading it
 * just took). The cores include this for their own prototypes; between
 * cores, only the include/tempo/ header of the core one builds on crosses,
 * and that arm. Nothing here is about files: the file interface's own entry
 * points are in dev.h.
 */
#ifndef _TEMPO_INTERNAL_H
#define _TEMPO_INTERNAL_H

#include <linux/types.h>

struct dentry;

/* kmod/wheel.c */
int tempo_wheel_init(u32 tick_ns, unsigned int levels);
void tempo_wheel_exit(void);
void tempo_wheel_debugfs(struct dentry *dir);
void tempo_wheel_totals(u64 *armed, u64 *fired, u64 *cancelled);

/* kmod/order.c */
int tempo_order_init(void);
void tempo_order_exit(void);
void tempo_order_debugfs(struct dentry *dir);

/* kmod/delayq.c */
int tempo_delayq_init(void);
void tempo_delayq_exit(void);
void tempo_delayq_debugfs(struct dentry *dir);

#endif /* _TEMPO_INTERNAL_H */
