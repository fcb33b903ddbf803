/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A hierarchical wheel's occupancy masks: per level, 64 slots and a bit each,
 * set while the slot holds something. Shared by the timer wheel
 * (kmod/wheel_levels.c) and the delay queue's cascade (kmod/delayq.c); each
 * keeps its own geometry.
 */
#ifndef _TEMPO_OCCUPANCY_H
#define _TEMPO_OCCUPANCY_H

#include <linux/bitops.h>
#include <linux/types.h>

/*
 * Distance from slot @start to the next occupied slot of a level, going round
 * (@start itself is distance 0), or -1 if the level is empty.
 */
static inline int tempo_occupancy_next(u64 occupied, unsigned int start)
{
	if (!occupied)
		return -1;
	return __ffs64(ror64(occupied, start));
}

#endif /* _TEMPO_OCCUPANCY_H */
