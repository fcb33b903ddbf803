// SPDX-License-Identifier: GPL-2.0
/*
 * tempo: module face.
 *
 * Loading tempo initialises the timer wheel, the ordered scheduler, the
 * clocks and the delay queue, in that order, then fills the debugfs
 * directory "tempo/" and registers the misc device /dev/tempo (dynamic
 * minor); unloading undoes it all in reverse. debugfs holds "version" (this
 * file's), and what each part adds: "wheel/" (per-CPU "stats", the level
 * "geometry"), "order", "clock" and "delayq" (module-wide figures), and
 * "dev" (the file interface's counters).
 *
 * TEMPO_VERSION is dkms.conf's PACKAGE_VERSION; change both together.
 *
 * An open file on /dev/tempo (kmod/dev.c) holds a reference on this module
 * (the misc core takes it through tempo_dev_fops.owner), so the module cannot
 * be unloaded while userspace holds the device open.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/seq_file.h>

#include "dev.h"
#include "internal.h"

#define TEMPO_VERSION "0.1"

static struct dentry *tempo_debugfs_dir;

static uint tick_ns = 1000000;
module_param(tick_ns, uint, 0444);
MODULE_PARM_DESC(tick_ns, "timer wheel tick in ns (10000..1000000000, default 1 ms)");

static uint wheel_levels = 10;
module_param(wheel_levels, uint, 0444);
MODULE_PARM_DESC(wheel_levels,
		 "timer wheel levels of 64 slots, each 8x coarser (4..11, default 10: delays up to 2^32.9 ticks)");

static int tempo_version_show(struct seq_file *m, void *unused)
{
	seq_puts(m, TEMPO_VERSION "\n");
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tempo_version);

static void tempo_debugfs_init(void)
{
	/* debugfs is best effort: its failures are not errors (debugfs.h). */
	tempo_debugfs_dir = debugfs_create_dir("tempo", NULL);
	debugfs_create_file("version", 0444, tempo_debugfs_dir, NULL,
			    &tempo_version_fops);
}

static int __init tempo_init(void)
{
	int err;

	if (tick_ns < 10000 || tick_ns > NSEC_PER_SEC || wheel_levels < 4 || wheel_levels > 11) {
		pr_err("tick_ns %u or wheel_levels %u out of range\n", tick_ns, wheel_levels);
		return -EINVAL;
	}

	err = tempo_wheel_init(tick_ns, wheel_levels);
	if (err == -ERANGE)
		pr_err("tick_ns %u with wheel_levels %u: the longest delay overflows; use fewer levels\n",
		       tick_ns, wheel_levels);
	if (err)
		return err;
	err = tempo_order_init();
	if (err)
		goto err_wheel_exit;
	err = tempo_clock_init();
	if (err)
		goto err_order_exit;
	err = tempo_delayq_init();
	if (err)
		goto err_clock_exit;

	tempo_debugfs_init();
	tempo_wheel_debugfs(tempo_debugfs_dir);
	tempo_order_debugfs(tempo_debugfs_dir);
	tempo_clock_debugfs(tempo_debugfs_dir);
	tempo_delayq_debugfs(tempo_debugfs_dir);
	tempo_dev_debugfs(tempo_debugfs_dir);

	err = tempo_dev_init();
	if (err) {
		pr_err("cannot register /dev/tempo: %d\n", err);
		goto err_remove_debugfs;
	}

	pr_info("version " TEMPO_VERSION " loaded\n");
	return 0;

err_remove_debugfs:
	debugfs_remove(tempo_debugfs_dir);
	tempo_delayq_exit();
err_clock_exit:
	tempo_clock_exit();
err_order_exit:
	tempo_order_exit();
err_wheel_exit:
	tempo_wheel_exit();
	return err;
}
module_init(tempo_init);

static void __exit tempo_exit(void)
{
	tempo_dev_exit();
	debugfs_remove(tempo_debugfs_dir);
	tempo_delayq_exit();
	tempo_clock_exit();
	tempo_order_exit();
	tempo_wheel_exit();
	pr_info("unloaded\n");
}
module_exit(tempo_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tempo: per-CPU lock-free timer wheel, ordered scheduler and delay queue");
MODULE_VERSION(TEMPO_VERSION);
