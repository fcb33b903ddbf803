// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "tempo_module": the module face as a user sees it.
 *
 * Needs tempo.ko loaded and devtmpfs on /dev, as the test VM's init arranges.
 */

#include <kunit/test.h>
#include <linux/dcache.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/module.h>

#include "compat.h"

#define TEMPO_DEV_PATH		"/dev/tempo"

static struct file *tempo_test_open_dev(struct kunit *test)
{
	struct file *file = filp_open(TEMPO_DEV_PATH, O_RDWR, 0);

	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(file), "open %s: %ld",
			       TEMPO_DEV_PATH, PTR_ERR(file));
	return file;
}

/*
 * Close @file and release it before returning, so the module_put() of its
 * release has happened. The final fput() of a kthread (KUnit cases run in one)
 * is deferred to a delayed work item, and flush_delayed_fput() does not wait
 * for it: on 6.1 it only runs the files still queued, so a work item that has
 * already taken the queue (after one jiffy, which a starved TCG vCPU easily
 * lets pass) may still be releasing ours. Drop the last reference ourselves.
 */
static void tempo_test_close(struct file *file)
{
	get_file(file);
	filp_close(file, NULL);		/* flush, then drops the open's reference */
	__fput_sync(file);		/* the last one: ->release() runs here */
}

/* /dev/tempo opens read-write and its file operations belong to tempo. */
static void tempo_module_dev_opens_rdwr(struct kunit *test)
{
	struct file *file = tempo_test_open_dev(test);
	struct module *owner = file->f_op->owner;

	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, owner);
	if (owner)
		KUNIT_EXPECT_STREQ(test, owner->name, "tempo");
	tempo_test_close(file);
}

/* Each open file pins the module; closing it drops exactly that reference. */
static void tempo_module_open_file_pins_module(struct kunit *test)
{
	struct file *first = tempo_test_open_dev(test);
	struct module *owner = first->f_op->owner;
	struct file *second;
	int base;

	if (!owner) {
		tempo_test_close(first);
		KUNIT_FAIL(test, "%s has no owning module", TEMPO_DEV_PATH);
		return;
	}
	base = module_refcount(owner);
	KUNIT_EXPECT_GE(test, base, 1);

	second = filp_open(TEMPO_DEV_PATH, O_RDWR, 0);
	if (IS_ERR(second)) {
		tempo_test_close(first);
		KUNIT_FAIL(test, "second open: %ld", PTR_ERR(second));
		return;
	}
	KUNIT_EXPECT_EQ(test, module_refcount(owner), base + 1);

	tempo_test_close(second);
	KUNIT_EXPECT_EQ(test, module_refcount(owner), base);

	tempo_test_close(first);
}

/*
 * debugfs has tempo/version, a read-only regular file. (Its contents cannot be
 * read from here: kernel_read() needs ->read_iter, which debugfs lacks on 6.1.)
 */
static void tempo_module_debugfs_version(struct kunit *test)
{
	struct dentry *dir, *version;
	umode_t mode;

	dir = debugfs_lookup("tempo", NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dir);
	version = debugfs_lookup("version", dir);
	dput(dir);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, version);
	mode = d_inode(version)->i_mode;
	dput(version);

	KUNIT_EXPECT_TRUE(test, S_ISREG(mode));
	KUNIT_EXPECT_EQ(test, mode & 0777, 0444);
}

static struct kunit_case tempo_module_cases[] = {
	KUNIT_CASE(tempo_module_dev_opens_rdwr),
	KUNIT_CASE(tempo_module_open_file_pins_module),
	KUNIT_CASE(tempo_module_debugfs_version),
	{}
};

static struct kunit_suite tempo_module_suite = {
	.name = "tempo_module",
	.test_cases = tempo_module_cases,
};

kunit_test_suite(tempo_module_suite);

/*
 * tempo_test.ko as a whole: the suites use tempo's API (namespace TEMPO) and
 * what tempo exports for KUnit only (EXPORT_SYMBOL_IF_KUNIT).
 */
MODULE_IMPORT_NS("TEMPO");
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit suites for tempo");
