/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The file interface (dev.c) as the module face (main.c) sees it: /dev/tempo
 * is registered after the cores are up and removed before they go down.
 */
#ifndef _TEMPO_DEV_H
#define _TEMPO_DEV_H

struct dentry;

int tempo_dev_init(void);
void tempo_dev_exit(void);
void tempo_dev_debugfs(struct dentry *dir);

#endif /* _TEMPO_DEV_H */
