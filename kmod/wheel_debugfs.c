// SPDX-License-Identifier: GPL-2.0
/*
 * tempo timer wheel: what it shows of itself. The module-wide totals the
 * KUnit suites check (tempo_wheel_totals()), and debugfs tempo/wheel/:
 * stats (each CPU's counters and the lateness histogram) and geometry (the
 * levels of the loaded tick_ns and wheel_levels). It reads kmod/wheel_cpu.c's
 * bases through tempo_wheel_cpu_stats() and tempo_wheel_geometry() only: a
 * racy snapshot of counters each written by its own CPU.
 */

#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/jiffies.h>
#include <linux/seq_file.h>

#include <tempo/timer.h>

#include "internal.h"
#include "wheel.h"

/**
 * tempo_wheel_totals - sum of the per-CPU counters
 * @taken: timers linked or queued by a base while no list or inbox held them
 * @fired: callbacks claimed
 * @released: timers let go of without a callback
 *
 * taken - fired - released is the number of timers a list or an inbox holds:
 * the pending ones and the cancelled ones not yet let go of. It is 0 once
 * every timer has fired or been stopped by tempo_timer_cancel_sync().
 */
void tempo_wheel_totals(u64 *taken, u64 *fired, u64 *released)
{
	struct tempo_wheel_stats s;
	unsigned int cpu;
	bool online;

	/* Counters are written by their CPU only; a sum is a snapshot. */
	*taken = 0;
	*fired = 0;
	*released = 0;
	for_each_possible_cpu(cpu) {
		tempo_wheel_cpu_stats(cpu, &s, &online);
		*taken += s.taken;
		*fired += s.fired;
		*released += s.released;
	}
}
EXPORT_SYMBOL_IF_KUNIT(tempo_wheel_totals);

static int stats_show(struct seq_file *m, void *v)
{
	u64 late[TEMPO_LATE_BUCKETS] = {};
	struct tempo_wheel_stats s;
	unsigned int cpu, i;
	bool online;

	seq_puts(m, "cpu online taken fired released sent kicks forwarded expiries dispatches swept replaced dexpiries\n");
	for_each_possible_cpu(cpu) {
		tempo_wheel_cpu_stats(cpu, &s, &online);
		seq_printf(m, "%u %d %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu\n",
			   cpu, online, s.taken, s.fired, s.released, s.sent, s.kicks,
			   s.forwarded, s.expiries, s.dispatches, s.swept, s.replaced,
			   s.dexpiries);
		for (i = 0; i < TEMPO_LATE_BUCKETS; i++)
			late[i] += s.late[i];
	}
	seq_puts(m, "late_us_below count\n");
	for (i = 0; i < TEMPO_LATE_BUCKETS; i++) {
		if (i == TEMPO_LATE_BUCKETS - 1)
			seq_printf(m, "inf %llu\n", late[i]);
		else
			seq_printf(m, "%llu %llu\n", 1ULL << i, late[i]);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static int geometry_show(struct seq_file *m, void *v)
{
	unsigned int lvl, depth, lazy_level;
	s64 jiffies_base;
	u32 tick;

	tempo_wheel_geometry(&tick, &depth, &lazy_level, &jiffies_base);
	seq_printf(m, "tick_ns %u levels %u slots_per_level %u max_delay_ns %llu\n",
		   tick, depth, (unsigned int)TEMPO_LVL_SIZE, tempo_timer_max_delay_ns());
	seq_printf(m, "lazy_from_level %u\n", lazy_level);
	/* The near level of TEMPO_TIMER_FINE timers (kmod/wheel_levels.c, NEAR). */
	seq_printf(m, "near_slots %u near_granularity_ns %u\n", (unsigned int)TEMPO_NEAR_SLOTS,
		   (unsigned int)DIV_ROUND_UP(tick, TEMPO_NEAR_PER_TICK));
	/*
	 * Where the kernel starts its jiffies on multiples of TICK_NSEC (with
	 * NO_HZ or high-resolution timers) this is the calibration's excess.
	 */
	seq_printf(m, "jiffy_ns %llu jiffies_base_mod_jiffy_ns %lld\n", (u64)TICK_NSEC,
		   (jiffies_base % (s64)TICK_NSEC + (s64)TICK_NSEC) % (s64)TICK_NSEC);
	seq_puts(m, "level granularity_ns from_ns to_ns\n");
	for (lvl = 0; lvl < depth; lvl++) {
		u64 from = lvl ? TEMPO_LVL_START(lvl) : 0;
		u64 to = lvl == depth - 1 ? tempo_wheel_max_ticks(depth) :
					    TEMPO_LVL_START(lvl + 1) - 1;

		seq_printf(m, "%u %llu %llu %llu\n", lvl, TEMPO_LVL_GRAN(lvl) * tick,
			   from * tick, to * tick);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(geometry);

void tempo_wheel_debugfs(struct dentry *dir)
{
	struct dentry *d = debugfs_create_dir("wheel", dir);

	debugfs_create_file("stats", 0444, d, NULL, &stats_fops);
	debugfs_create_file("geometry", 0444, d, NULL, &geometry_fops);
}
