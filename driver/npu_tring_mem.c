// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_tring_mem.c - a trace ring's memory and its charge.
 *
 * The header page and the data pages are allocated page by page, zeroed,
 * charged to the opener's memory cgroup (__GFP_ACCOUNT) and mapped with
 * vmap(VM_USERMAP) for remap_vmalloc_range(), as the BPF ring buffer does.
 * They are also charged to the opener's user as perf charges its buffers:
 * first a per-user allowance (trace_mlock_kb), the rest to
 * user_struct.locked_vm against RLIMIT_MEMLOCK unless CAP_IPC_LOCK.
 *
 * Locking: npu_trace_mlock_lock (a global mutex, taken alone) serializes
 * the allowance charges and protects the table of users; locked_vm is
 * shared with other subsystems and changed with atomics.
 *
 * Lifetime: the charge is taken at NPU_IOCTL_TRACE_OPEN and given back
 * when the ring is freed, with the pages; the ring holds a reference on
 * the user until then.
 */

#include <linux/capability.h>
#include <linux/gfp.h>
#include <linux/hashtable.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "npu_trace_int.h"

static unsigned int trace_mlock_kb = 516;
module_param(trace_mlock_kb, uint, 0644);
MODULE_PARM_DESC(trace_mlock_kb,
		 "Ring memory each user may hold before RLIMIT_MEMLOCK applies (KiB, default 516, as perf_event_mlock_kb)");

/**
 * struct npu_trace_mlock - ring memory of one user within trace_mlock_kb
 * @node: entry in npu_trace_mlock_users
 * @user: the user; its rings hold the references
 * @pages: pages of the user's rings charged to the allowance (never 0:
 *	the entry goes with its last page)
 */
struct npu_trace_mlock {
	struct hlist_node node;
	struct user_struct *user;
	unsigned long pages;
};

/* Serializes the allowance charges; protects npu_trace_mlock_users. */
static DEFINE_MUTEX(npu_trace_mlock_lock);
static DEFINE_HASHTABLE(npu_trace_mlock_users, 4);

/* The allowance entry of @user; npu_trace_mlock_lock held. */
static struct npu_trace_mlock *
npu_trace_mlock_find_locked(struct user_struct *user)
{
	struct npu_trace_mlock *m;

	lockdep_assert_held(&npu_trace_mlock_lock);
	hash_for_each_possible(npu_trace_mlock_users, m, node,
			       (unsigned long)user)
		if (m->user == user)
			return m;
	return NULL;
}

/*
 * Charge @pages of ring memory to the current user, as perf_mmap() charges
 * its buffers: the user's allowance of trace_mlock_kb first, the rest to
 * user_struct.locked_vm (which 6.1 and 6.12 both have, shared with
 * io_uring and the network stack) against RLIMIT_MEMLOCK. CAP_IPC_LOCK
 * lifts the limit, not the charge. Return: 0 or -EPERM (limit), -ENOMEM.
 */
static int npu_tring_charge(struct npu_tring *r, unsigned long pages)
{
	unsigned long allow = READ_ONCE(trace_mlock_kb) >> (PAGE_SHIFT - 10);
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	struct user_struct *user = get_current_user();
	struct npu_trace_mlock *m, *new_m = NULL;
	unsigned long used, mine, extra, cur;
	bool exempt = false;
	int ret = 0;

	mutex_lock(&npu_trace_mlock_lock);
	m = npu_trace_mlock_find_locked(user);
	used = m ? m->pages : 0;
	mine = used < allow ? min(allow - used, pages) : 0;
	extra = pages - mine;
	if (mine && !m) {
		new_m = kzalloc(sizeof(*new_m), GFP_KERNEL_ACCOUNT);
		if (!new_m) {
			ret = -ENOMEM;
			goto out;
		}
	}
	/* Other subsystems charge locked_vm concurrently: compare-exchange. */
	cur = extra ? atomic_long_read(&user->locked_vm) : 0;
	while (extra) {
		/* Asked only when needed, as perf does: it may audit. */
		if (cur + extra > limit && !exempt) {
			exempt = capable(CAP_IPC_LOCK);
			if (!exempt) {
				kfree(new_m);
				ret = -EPERM;
				goto out;
			}
		}
		if (atomic_long_try_cmpxchg(&user->locked_vm, &cur, cur + extra))
			break;
	}
	if (new_m) {
		m = new_m;
		m->user = user;
		hash_add(npu_trace_mlock_users, &m->node, (unsigned long)user);
	}
	if (m)
		m->pages += mine;
	r->user = user;
	r->allow_pages = mine;
	r->locked_pages = extra;
out:
	mutex_unlock(&npu_trace_mlock_lock);
	if (ret)
		free_uid(user);
	return ret;
}

/* Give back what npu_tring_charge() took, if anything. */
static void npu_tring_uncharge(struct npu_tring *r)
{
	struct npu_trace_mlock *m;

	if (!r->user)
		return;
	mutex_lock(&npu_trace_mlock_lock);
	m = r->allow_pages ? npu_trace_mlock_find_locked(r->user) : NULL;
	if (m) {
		m->pages -= min(m->pages, r->allow_pages);
		if (!m->pages) {
			hash_del(&m->node);
			kfree(m);
		}
	}
	atomic_long_sub(r->locked_pages, &r->user->locked_vm);
	mutex_unlock(&npu_trace_mlock_lock);
	free_uid(r->user);
	r->user = NULL;
}

/**
 * npu_tring_mem_alloc() - charge and allocate a ring's pages
 * @r: the ring, not yet visible to anyone
 * @data_pages: data pages, after the header page
 *
 * The pages are zeroed and mapped at @r->hdr, the data at @r->data. A
 * cgroup at its limit fails the allocation rather than invoking its OOM
 * killer. On failure, npu_tring_mem_free() undoes what was done.
 *
 * Return: 0, -EPERM (over RLIMIT_MEMLOCK) or -ENOMEM.
 */
int npu_tring_mem_alloc(struct npu_tring *r, u32 data_pages)
{
	const gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL |
			  __GFP_NOWARN;
	unsigned int n = 1 + data_pages;
	int ret;

	ret = npu_tring_charge(r, n);
	if (ret)
		return ret;
	r->pages = kvcalloc(n, sizeof(*r->pages), gfp);
	if (!r->pages)
		return -ENOMEM;
	for (; r->nr_pages < n; r->nr_pages++) {
		r->pages[r->nr_pages] = alloc_page(gfp | __GFP_ZERO);
		if (!r->pages[r->nr_pages])
			return -ENOMEM;
	}
	r->hdr = vmap(r->pages, n, VM_MAP | VM_USERMAP, PAGE_KERNEL);
	if (!r->hdr)
		return -ENOMEM;
	r->data = (u8 *)r->hdr + PAGE_SIZE;
	return 0;
}

/**
 * npu_tring_mem_free() - free a ring's pages and give back their charge
 * @r: the ring, unmapped (its file is being released) or never mapped
 */
void npu_tring_mem_free(struct npu_tring *r)
{
	if (r->hdr)
		vunmap(r->hdr);
	while (r->nr_pages)
		__free_page(r->pages[--r->nr_pages]);
	kvfree(r->pages);
	npu_tring_uncharge(r);
}
