/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The userspace cores run without CPU isolation: every simulated CPU keeps
 * time (a kernel booted without nohz_full= or isolcpus=nohz).
 */
#ifndef _TEMPO_USER_SCHED_ISOLATION_H
#define _TEMPO_USER_SCHED_ISOLATION_H

enum hk_type { HK_TYPE_TIMER };

static inline bool housekeeping_cpu(int cpu, enum hk_type type)
{
	return true;
}

static inline int housekeeping_any_cpu(enum hk_type type)
{
	return 0;
}

#endif
