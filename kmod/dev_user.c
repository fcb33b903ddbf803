// SPDX-License-Identifier: GPL-2.0
/*
 * tempo: /dev/tempo's per-user limits and accounting.
 *
 * Any local user may open /dev/tempo (mode 0666, as inotify and timerfd are
 * available to all), so what a user can make the module hold is bounded per
 * user as well as per file: open files, timer slots, queued ordered
 * submission bytes, and the batch copies of calls in flight, each against a
 * module parameter (enum dev_user_count). This file owns those parameters,
 * the table of users (struct tempo_user) and the charge and uncharge of a
 * count; the other dev files charge what they hold and uncharge it when they
 * let go.
 *
 * Locks. The table is read under RCU and changed under dev_users_lock (a
 * mutex, taken only to add an entry and, by the last reference, to delete
 * one); an entry is held by each context of its user, and by the entries of
 * the namespaces below it, until their release. Counts move with atomics
 * only, in any context that holds a reference.
 */

#include <linux/atomic.h>
#include <linux/cred.h>
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/user_namespace.h>

#include "dev.h"

/*
 * Per-user limits, counted per user namespace and effective uid of the
 * opener over all of that user's open files, and for a namespace's users
 * together at its creator's level too (as the kernel's ucounts count
 * inotify's and epoll's): what keeps a machine's memory safe when every
 * local user may open /dev/tempo (struct tempo_user).
 */
static unsigned int max_user_contexts = 128;
module_param(max_user_contexts, uint, 0644);
MODULE_PARM_DESC(max_user_contexts, "open files of /dev/tempo per user; open() fails with EMFILE beyond (default 128)");

static unsigned int max_user_timers = 1 << 16;
module_param(max_user_timers, uint, 0644);
MODULE_PARM_DESC(max_user_timers, "timer slots per user, over all files (a file keeps the slots of the most timers it held until close); arming fails with ENOSPC beyond (default 65536)");

static unsigned int max_user_bytes = 32 << 20;
module_param(max_user_bytes, uint, 0644);
MODULE_PARM_DESC(max_user_bytes, "bytes of ordered submissions queued per user (data and records); submit fails with ENOSPC beyond (default 32 MiB)");

static unsigned int max_user_copy_bytes = 64 << 20;
module_param(max_user_copy_bytes, uint, 0644);
MODULE_PARM_DESC(max_user_copy_bytes, "bytes of batch arrays a user's calls in flight hold in the kernel (arm, cancel and query copies; cancel by cookie's table); such a call fails with ENOSPC beyond (default 64 MiB)");

/* The limit of count @c at every level: its module parameter, read once. */
unsigned long dev_user_limit(enum dev_user_count c)
{
	switch (c) {
	case DU_CONTEXTS:
		return READ_ONCE(max_user_contexts);
	case DU_TIMERS:
		return READ_ONCE(max_user_timers);
	case DU_BYTES:
		return READ_ONCE(max_user_bytes);
	default:
		return READ_ONCE(max_user_copy_bytes);
	}
}

/*
 * What one user holds over all of its files, keyed as the kernel's ucounts
 * are (kernel/ucount.c): by user namespace and effective uid of the opener.
 * The users of a user namespace are charged as well, all together, to the
 * user that created it, in the parent namespace, and so on up to the
 * initial one; every level is held to the same limits. So a user who
 * delegates a range of uids to a namespace (or nests namespaces) gets each
 * limit once, not once per uid. Looked up at open(), held by each context
 * until release(); counts move with atomics only.
 */
struct tempo_user {
	refcount_t		refs;		/* contexts, and the entries below it */
	struct hlist_node	node;		/* in dev_users */
	struct user_namespace	*ns;		/* a reference */
	kuid_t			uid;
	struct tempo_user	*parent;	/* ns's creator in ns->parent; NULL at the top */
	atomic_long_t		count[DU_NR];
	struct rcu_head		rcu;
};

static DEFINE_HASHTABLE(dev_users, 6);	/* by (ns, uid); read under RCU */
static DEFINE_MUTEX(dev_users_lock);	/* adds and deletes entries */

static unsigned long dev_user_key(const struct user_namespace *ns, kuid_t uid)
{
	return hash_ptr(ns, 32) ^ __kuid_val(uid);
}

/* Under rcu_read_lock(): the entry of (@ns, @uid), or NULL. */
static struct tempo_user *dev_user_lookup(const struct user_namespace *ns, kuid_t uid)
{
	struct tempo_user *u;

	hash_for_each_possible_rcu(dev_users, u, node, dev_user_key(ns, uid))
		if (u->ns == ns && uid_eq(u->uid, uid))
			return u;
	return NULL;
}

/* Drop a reference dev_user_get() took; the last one deletes the entry. */
void dev_user_put(struct tempo_user *u)
{
	struct tempo_user *parent;
	int i;

	while (u && refcount_dec_and_mutex_lock(&u->refs, &dev_users_lock)) {
		for (i = 0; i < DU_NR; i++)
			WARN_ON_ONCE(atomic_long_read(&u->count[i]));
		hash_del_rcu(&u->node);
		mutex_unlock(&dev_users_lock);
		parent = u->parent;
		put_user_ns(u->ns);
		kfree_rcu(u, rcu);
		u = parent;	/* the reference this entry held */
	}
}

/*
 * The entry of (@ns, @uid), a reference taken; created with those of the
 * levels above it when missing (one per level: at most 33, the nesting
 * limit of user namespaces). Process context.
 */
struct tempo_user *dev_user_get(struct user_namespace *ns, kuid_t uid)
{
	struct tempo_user *u, *parent = NULL, *fresh;

	rcu_read_lock();
	u = dev_user_lookup(ns, uid);
	if (u && !refcount_inc_not_zero(&u->refs))
		u = NULL;	/* being deleted: add a fresh one below */
	rcu_read_unlock();
	if (u)
		return u;

	if (ns->parent) {
		parent = dev_user_get(ns->parent, ns->owner);
		if (IS_ERR(parent))
			return parent;
	}
	/* Allocated outside the mutex: no user's reclaim holds up another's open(). */
	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL_ACCOUNT);
	if (!fresh) {
		dev_user_put(parent);
		return ERR_PTR(-ENOMEM);
	}
	refcount_set(&fresh->refs, 1);
	fresh->ns = get_user_ns(ns);
	fresh->uid = uid;
	fresh->parent = parent;

	mutex_lock(&dev_users_lock);
	rcu_read_lock();
	u = dev_user_lookup(ns, uid);
	rcu_read_unlock();
	/* Under the mutex, an entry in the table still has references. */
	if (u)
		refcount_inc(&u->refs);
	else
		hash_add_rcu(dev_users, &fresh->node, dev_user_key(ns, uid));
	mutex_unlock(&dev_users_lock);
	if (!u)
		return fresh;
	put_user_ns(fresh->ns);
	kfree(fresh);
	dev_user_put(parent);	/* @u holds its own */
	return u;
}

/* Take @n units of @c if that keeps it at most @limit; all or nothing. */
static bool dev_charge(atomic_long_t *c, long n, unsigned long limit)
{
	long v = atomic_long_read(c);

	do {
		if (n > 0 && (unsigned long)v + n > limit)
			return false;
	} while (!atomic_long_try_cmpxchg(c, &v, v + n));
	return true;
}

static void dev_uncharge(atomic_long_t *c, long n)
{
	WARN_ON_ONCE(atomic_long_sub_return(n, c) < 0);
}

/* Take @n of @u's count @c at every level up, each within @limit; all or nothing. */
bool dev_user_charge(struct tempo_user *u, enum dev_user_count c, long n,
		     unsigned long limit)
{
	struct tempo_user *it, *undo;

	for (it = u; it; it = it->parent)
		if (!dev_charge(&it->count[c], n, limit))
			break;
	if (!it)
		return true;
	for (undo = u; undo != it; undo = undo->parent)
		dev_uncharge(&undo->count[c], n);
	return false;
}

void dev_user_uncharge(struct tempo_user *u, enum dev_user_count c, long n)
{
	for (; u; u = u->parent)
		dev_uncharge(&u->count[c], n);
}

/**
 * dev_user_counts() - what the calling task's user holds, for TEMPO_IOC_STATS
 * @opener: the entry of the file's opener
 * @counts: receives each count (enum dev_user_count) at that user's own
 *	level; 0 where the caller's user holds nothing
 *
 * The caller's user is its user namespace and effective uid, as the limits
 * count them: the opener's entry if the caller is that user, else its own,
 * found without being made. So a file passed to another user shows it its
 * own holdings, never the opener's other files.
 *
 * Context: process context (the caller's credentials).
 */
void dev_user_counts(struct tempo_user *opener, unsigned long *counts)
{
	struct user_namespace *ns = current_user_ns();
	kuid_t uid = current_euid();
	struct tempo_user *u;
	int i;

	/* Entries are freed after a grace period: read under RCU, no reference. */
	rcu_read_lock();
	u = opener->ns == ns && uid_eq(opener->uid, uid) ? opener : dev_user_lookup(ns, uid);
	for (i = 0; i < DU_NR; i++)
		counts[i] = u ? max(atomic_long_read(&u->count[i]), 0L) : 0;
	rcu_read_unlock();
}
