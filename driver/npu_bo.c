// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_bo.c - buffer objects in device DRAM.
 *
 * DRAM is managed by a genalloc pool with page granularity, so every buffer
 * is page aligned (the device needs 64 bytes) and can be mapped on its own.
 * A buffer is reachable from userspace through a handle, valid on the file
 * that created it only, and through mmap() of that file at the buffer's
 * mmap offset (its device address). Jobs and mappings hold references, so
 * a buffer freed by its owner lives until its last job completes and its
 * last mapping goes away.
 *
 * A file finds its buffers in two xarrays under npu_file.bo_lock: by
 * handle (npu_file.bos, which holds the file's reference) and by mmap
 * offset in pages (npu_file.bo_offsets, the same buffers, no reference of
 * its own), so that mmap() looks a buffer up in O(log n) as DRM's
 * drm_vma_offset_manager does. A buffer is in both or in neither.
 *
 * Quota: the buffers of one open file may hold at most max_file_dram_pct
 * percent of the device's DRAM (default 50, 0: no limit); beyond it
 * BO_CREATE fails with -EDQUOT, while -ENOMEM still means that the device
 * itself is full. A buffer is charged to the file that created it until
 * its memory is freed, which may be after BO_FREE and after the file is
 * closed (jobs and mappings hold it), so a freed handle cannot be used to
 * take more than the quota. The charge is an atomic counter in a small
 * reference-counted struct npu_bo_quota shared by the file and its buffers.
 *
 * Accounting: the allocator's changes happen under npu_dev.mem_lock,
 * together with the device's memory counters (struct npu_mem_stats) and
 * the trace hook of each allocation, failed allocation and free
 * (npu_trace_bo_locked(): the tracepoints npu_bo_alloc and npu_bo_free,
 * and the BO_ALLOC and BO_FREE records of the trace rings), so that the
 * records reach a ring in the order in which the device memory changed.
 * genalloc never sleeps, so the lock is a spinlock. A buffer's memory is
 * freed when its last reference goes; npu_bo_put_for() says whose it was
 * (the handle, the file, a mapping, a job), for the BO_FREE record.
 *
 * Hot-unplug: remove() zaps every mapping of device memory. A later access
 * faults in a zeroed page of RAM owned by the buffer (npu_bo.dummy,
 * allocated at the first such fault, freed with the buffer) at every page
 * of the mapping, as amdgpu's dummy page after drm_dev_unplug(): reads see
 * zeros, writes land in that page and reach nothing.
 */

#include <linux/bitmap.h>
#include <linux/genalloc.h>
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include <linux/npu.h>

#include "npu_bo.h"
#include "npu_drv.h"
#include "npu_trace.h"

static unsigned int max_file_dram_pct = 50;
module_param(max_file_dram_pct, uint, 0644);
MODULE_PARM_DESC(max_file_dram_pct,
		 "Device DRAM the buffers of one open file may hold, in percent of the device's (0 = no limit, default 50); beyond it BO_CREATE fails with EDQUOT");

/* genalloc treats address 0 as failure: pool addresses are biased. */
#define NPU_POOL_BIAS	PAGE_SIZE

/**
 * npu_bo_pool_init() - create the DRAM allocator of a device
 * @ndev: the device, with its geometry read
 *
 * Return: 0 or -ENOMEM.
 */
int npu_bo_pool_init(struct npu_dev *ndev)
{
	struct gen_pool *pool;
	size_t size = ndev->hw.dram_size & PAGE_MASK;

	pool = gen_pool_create(PAGE_SHIFT, -1);
	if (!pool)
		return -ENOMEM;
	if (gen_pool_add(pool, NPU_POOL_BIAS + ndev->hw.dram_base, size, -1)) {
		gen_pool_destroy(pool);
		return -ENOMEM;
	}
	ndev->pool = pool;
	spin_lock_init(&ndev->mem_lock);
	memset(&ndev->mem_stats, 0, sizeof(ndev->mem_stats));
	ndev->next_bo_id = 0;
	return 0;
}

/* Largest run of free pages of one chunk, into *(u64 *)@data. */
static void npu_bo_chunk_extent(struct gen_pool *pool,
				struct gen_pool_chunk *chunk, void *data)
{
	unsigned long nbits = (chunk->end_addr - chunk->start_addr + 1) >>
			      pool->min_alloc_order;
	unsigned long start = 0, end;
	u64 *largest = data;

	for (;;) {
		start = find_next_zero_bit(chunk->bits, nbits, start);
		if (start >= nbits)
			break;
		end = find_next_bit(chunk->bits, nbits, start);
		*largest = max_t(u64, *largest,
				 (u64)(end - start) << pool->min_alloc_order);
		start = end;
	}
}

/**
 * npu_bo_get_stats() - the device's memory counters
 * @ndev: the device, its allocator created
 * @st: out: the counters, with the allocator's free bytes and its largest
 *	free extent, all taken at one instant
 *
 * Scans the allocator's bitmap (a bit a page) under npu_dev.mem_lock.
 */
void npu_bo_get_stats(struct npu_dev *ndev, struct npu_mem_stats *st)
{
	u64 largest = 0;

	spin_lock(&ndev->mem_lock);
	*st = ndev->mem_stats;
	if (ndev->pool) {
		st->free = gen_pool_avail(ndev->pool);
		gen_pool_for_each_chunk(ndev->pool, npu_bo_chunk_extent,
					&largest);
	}
	spin_unlock(&ndev->mem_lock);
	st->largest_free = largest;
}

/**
 * npu_bo_reset_peak() - start the peak of device memory use again
 * @ndev: the device
 *
 * The peak becomes the bytes held now.
 */
void npu_bo_reset_peak(struct npu_dev *ndev)
{
	spin_lock(&ndev->mem_lock);
	ndev->mem_stats.peak = ndev->mem_stats.used;
	spin_unlock(&ndev->mem_lock);
}

/**
 * npu_bo_pool_fini() - destroy the allocator; every buffer must be freed
 * @ndev: the device
 */
void npu_bo_pool_fini(struct npu_dev *ndev)
{
	if (ndev->pool)
		gen_pool_destroy(ndev->pool);
	ndev->pool = NULL;
}

static void npu_bo_quota_put(struct npu_bo_quota *q)
{
	if (refcount_dec_and_test(&q->ref))
		kfree(q);
}

/* Bytes the buffers of one file may hold on @ndev; U64_MAX: no limit. */
static u64 npu_bo_quota_limit(struct npu_dev *ndev)
{
	u32 pct = READ_ONCE(max_file_dram_pct);

	if (!pct || pct >= 100)
		return U64_MAX;
	return ((u64)ndev->hw.dram_size * pct / 100) & PAGE_MASK;
}

/* Charge @size bytes to @q. Return: 0 or -EDQUOT. */
static int npu_bo_quota_charge(struct npu_dev *ndev, struct npu_bo_quota *q,
			       u64 size)
{
	if (atomic64_add_return(size, &q->used) > npu_bo_quota_limit(ndev)) {
		atomic64_sub(size, &q->used);
		return -EDQUOT;
	}
	return 0;
}

/* The buffer's memory back to the allocator: @why let it go. */
static void npu_bo_release(struct npu_bo *bo, u32 why)
{
	struct npu_dev *ndev = bo->ndev;
	struct npu_trace_bo_ev ev = {
		.type = NPU_TRACE_REC_BO_FREE,
		.kind = bo->kind,
		.reason = why,
		.owner = bo->owner,
		.bo_id = bo->id,
		.dev_addr = bo->dev_addr,
		.size = bo->size,
	};

	spin_lock(&ndev->mem_lock);
	gen_pool_free(ndev->pool, NPU_POOL_BIAS + bo->dev_addr, bo->size);
	ndev->mem_stats.used -= bo->size;
	ndev->mem_stats.frees++;
	ev.host_ns = ktime_get_ns();
	ev.used = ndev->mem_stats.used;
	npu_trace_bo_locked(ndev, bo->tdev, &ev);
	spin_unlock(&ndev->mem_lock);

	atomic64_sub(bo->size, &bo->quota->used);
	npu_bo_quota_put(bo->quota);
	if (bo->dummy)
		__free_page(bo->dummy);
	put_pid(bo->owner);
	if (bo->tdev)
		npu_trace_dev_put(bo->tdev);
	kfree(bo);
	npu_dev_put(ndev);
}

/**
 * npu_bo_get() - take a reference on a buffer
 * @bo: the buffer; the caller holds a reference or the lock of a table
 *	that holds one
 */
void npu_bo_get(struct npu_bo *bo)
{
	refcount_inc(&bo->ref);
}

/**
 * npu_bo_put_for() - drop a reference on a buffer
 * @bo: the buffer
 * @why: whose reference it is, NPU_TRACE_BO_FREE_*: the handle's, the
 *	file's (its handle at close), a mapping's, a job's, or another
 *
 * The last reference returns its memory to the device's allocator, with
 * @why in the BO_FREE trace record, and drops the buffer's device
 * reference. Any context that may sleep.
 */
void npu_bo_put_for(struct npu_bo *bo, u32 why)
{
	if (refcount_dec_and_test(&bo->ref))
		npu_bo_release(bo, why);
}

/* Key of a buffer in npu_file.bo_offsets: its mmap offset in pages. */
static unsigned long npu_bo_pgoff(const struct npu_bo *bo)
{
	return bo->dev_addr >> PAGE_SHIFT;
}

/*
 * Give @bo a handle on @nf and enter it at its mmap offset; bo_lock held.
 * Return: 0, -ENOSPC (no handle left) or -ENOMEM.
 */
static int npu_bo_insert_locked(struct npu_file *nf, struct npu_bo *bo,
				u32 *handle)
{
	int ret;

	lockdep_assert_held(&nf->bo_lock);
	ret = xa_alloc(&nf->bos, handle, bo, xa_limit_31b, GFP_KERNEL);
	if (ret)
		return ret == -EBUSY ? -ENOSPC : ret;
	/* Device addresses are unique while the buffer lives: no -EBUSY. */
	ret = xa_insert(&nf->bo_offsets, npu_bo_pgoff(bo), bo, GFP_KERNEL);
	if (ret)
		xa_erase(&nf->bos, *handle);
	return ret;
}

/*
 * Take @handle off @nf, and its buffer off the offsets, if it still names
 * @expect (any buffer when @expect is NULL); bo_lock held.
 * Return: the buffer, whose table reference the caller now owns, or NULL.
 */
static struct npu_bo *npu_bo_remove_locked(struct npu_file *nf, u32 handle,
					   struct npu_bo *expect)
{
	struct npu_bo *bo;

	lockdep_assert_held(&nf->bo_lock);
	if (expect)
		bo = xa_cmpxchg(&nf->bos, handle, expect, NULL, 0) == expect ?
		     expect : NULL;
	else
		bo = xa_erase(&nf->bos, handle);
	if (bo)
		xa_erase(&nf->bo_offsets, npu_bo_pgoff(bo));
	return bo;
}

/**
 * npu_bo_lookup() - find a buffer by handle on a file
 * @nf: the file
 * @handle: handle from NPU_IOCTL_BO_CREATE on @nf
 *
 * Return: the buffer with a reference taken, or NULL.
 */
struct npu_bo *npu_bo_lookup(struct npu_file *nf, u32 handle)
{
	struct npu_bo *bo;

	mutex_lock(&nf->bo_lock);
	bo = xa_load(&nf->bos, handle);
	if (bo)
		npu_bo_get(bo);
	mutex_unlock(&nf->bo_lock);
	return bo;
}

/* NPU_BO_KIND_* of creation flags, checked by the ioctl. */
static u32 npu_bo_kind(u32 flags)
{
	u32 kind = NPU_BO_KIND_OF(flags);

	if (kind == NPU_BO_KIND_OTHER && (flags & NPU_BO_PROGRAM))
		kind = NPU_BO_KIND_PROGRAM;
	return kind;
}

/*
 * Count a failed allocation of @size bytes (-ENOMEM or -EDQUOT) and
 * trace it; inside npu_dev_enter() (npu_dev.trace is there).
 */
static void npu_bo_alloc_failed(struct npu_dev *ndev, u64 size, u32 kind,
				int err)
{
	struct npu_trace_bo_ev ev = {
		.type = NPU_TRACE_REC_BO_ALLOC,
		.kind = kind,
		.error = err,
		.owner = task_tgid(current),
		.tid = task_pid(current),
		.size = size,
	};

	spin_lock(&ndev->mem_lock);
	if (err == -EDQUOT)
		ndev->mem_stats.fail_quota++;
	else
		ndev->mem_stats.fail_nomem++;
	ev.host_ns = ktime_get_ns();
	ev.used = ndev->mem_stats.used;
	npu_trace_bo_locked(ndev, ndev->trace, &ev);
	spin_unlock(&ndev->mem_lock);
}

/*
 * Take @size bytes of device memory for @bo, give it its id and count it;
 * the current task creates it. Return: true, or false when the device has
 * no free range that large.
 */
static bool npu_bo_take(struct npu_dev *ndev, struct npu_bo *bo, u64 size)
{
	struct npu_trace_bo_ev ev = {
		.type = NPU_TRACE_REC_BO_ALLOC,
		.kind = bo->kind,
		.owner = task_tgid(current),
		.tid = task_pid(current),
		.size = size,
	};
	struct npu_mem_stats *st = &ndev->mem_stats;
	unsigned long addr;

	spin_lock(&ndev->mem_lock);
	addr = gen_pool_alloc(ndev->pool, size);
	if (!addr) {
		spin_unlock(&ndev->mem_lock);
		return false;
	}
	bo->dev_addr = addr - NPU_POOL_BIAS;
	bo->size = size;
	bo->id = ++ndev->next_bo_id;
	st->used += size;
	st->peak = max(st->peak, st->used);
	st->allocs++;
	ev.bo_id = bo->id;
	ev.dev_addr = bo->dev_addr;
	ev.host_ns = ktime_get_ns();
	ev.used = st->used;
	npu_trace_bo_locked(ndev, ndev->trace, &ev);
	spin_unlock(&ndev->mem_lock);
	return true;
}

/*
 * A buffer of @size bytes charged to @nf's quota. Called inside
 * npu_dev_enter(): the hardware is there.
 */
static struct npu_bo *npu_bo_alloc(struct npu_file *nf, u64 size, u32 flags)
{
	struct npu_dev *ndev = nf->ndev;
	u32 kind = npu_bo_kind(flags);
	struct npu_bo *bo;
	u64 off, n;
	int ret;

	if (size > ndev->hw.dram_size) {
		ret = -ENOMEM;
		goto fail;
	}
	ret = npu_bo_quota_charge(ndev, nf->bo_quota, size);
	if (ret)
		goto fail;
	ret = -ENOMEM;
	bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	if (!bo)
		goto uncharge;
	bo->kind = kind;
	if (!npu_bo_take(ndev, bo, size)) {
		kfree(bo);
		goto uncharge;
	}
	refcount_set(&bo->ref, 1);
	bo->quota = nf->bo_quota;
	refcount_inc(&bo->quota->ref);
	bo->ndev = ndev;
	bo->tdev = npu_trace_dev_get(ndev);
	bo->owner = get_pid(task_tgid(current));
	bo->flags = flags;
	npu_dev_get(ndev);
	/*
	 * Zeroed: no data of a previous owner leaks. A buffer may be as large
	 * as device memory: give the scheduler a chance between chunks.
	 */
	for (off = 0; off < size; off += n) {
		n = min_t(u64, size - off, SZ_1M);
		memset_io(ndev->mem + bo->dev_addr + off, 0, n);
		cond_resched();
	}
	return bo;

uncharge:
	atomic64_sub(size, &nf->bo_quota->used);
fail:
	npu_bo_alloc_failed(ndev, size, kind, ret);
	return ERR_PTR(ret);
}

/**
 * npu_bo_create_ioctl() - NPU_IOCTL_BO_CREATE
 * @nf: the file, inside npu_dev_enter()
 * @uarg: struct npu_bo_create in user memory
 *
 * Return: 0 or a negative errno (see struct npu_bo_create).
 */
int npu_bo_create_ioctl(struct npu_file *nf, void __user *uarg)
{
	struct npu_bo_create args;
	struct npu_bo *bo;
	u32 handle;
	u64 size;
	int ret;

	ret = npu_copy_args(&args, uarg);
	if (ret)
		return ret;
	if (args.flags & ~(NPU_BO_PROGRAM | NPU_BO_KIND_MASK) ||
	    NPU_BO_KIND_OF(args.flags) > NPU_BO_KIND_MAX)
		return -EINVAL;
	if (!args.size || args.size > U32_MAX)
		return -EINVAL;
	size = PAGE_ALIGN(args.size);

	bo = npu_bo_alloc(nf, size, args.flags);
	if (IS_ERR(bo))
		return PTR_ERR(bo);

	/*
	 * Once the handle is visible, another thread may free it, dropping
	 * the table's reference: hold one of our own until the reply is
	 * written, so that @bo is neither freed under us nor reused for a
	 * new buffer at the same handle before npu_bo_remove_locked()
	 * compares it.
	 */
	mutex_lock(&nf->bo_lock);
	ret = npu_bo_insert_locked(nf, bo, &handle);
	if (!ret)
		npu_bo_get(bo);
	mutex_unlock(&nf->bo_lock);
	if (ret) {
		npu_bo_put(bo);
		return ret;
	}

	args.handle = handle;
	args.size = size;
	args.dev_addr = bo->dev_addr;
	args.mmap_offset = bo->dev_addr;
	ret = 0;
	if (copy_to_user(uarg, &args, sizeof(args))) {
		struct npu_bo *gone;

		/* only the reference still in the table is ours to drop */
		mutex_lock(&nf->bo_lock);
		gone = npu_bo_remove_locked(nf, handle, bo);
		mutex_unlock(&nf->bo_lock);
		if (gone)
			npu_bo_put(gone);
		ret = -EFAULT;
	}
	npu_bo_put(bo);
	return ret;
}

/**
 * npu_bo_free_ioctl() - NPU_IOCTL_BO_FREE
 * @nf: the file, inside npu_dev_enter()
 * @uarg: struct npu_bo_free in user memory
 *
 * Return: 0, -EFAULT, -EINVAL (flags, reserved) or -ENOENT (not a handle
 * of @nf).
 */
int npu_bo_free_ioctl(struct npu_file *nf, void __user *uarg)
{
	struct npu_bo_free args;
	struct npu_bo *bo;
	int ret;

	ret = npu_copy_args(&args, uarg);
	if (ret)
		return ret;
	if (args.flags)
		return -EINVAL;
	mutex_lock(&nf->bo_lock);
	bo = npu_bo_remove_locked(nf, args.handle, NULL);
	mutex_unlock(&nf->bo_lock);
	if (!bo)
		return -ENOENT;
	npu_bo_put_for(bo, NPU_TRACE_BO_FREE_HANDLE);
	return 0;
}

/**
 * npu_bo_file_init() - initialize the buffer tables of a file being opened
 * @nf: the file
 *
 * Return: 0 or -ENOMEM.
 */
int npu_bo_file_init(struct npu_file *nf)
{
	/* Charged to the opener's memory cgroup: buffers may keep it. */
	nf->bo_quota = kzalloc(sizeof(*nf->bo_quota), GFP_KERNEL_ACCOUNT);
	if (!nf->bo_quota)
		return -ENOMEM;
	refcount_set(&nf->bo_quota->ref, 1);
	atomic64_set(&nf->bo_quota->used, 0);
	mutex_init(&nf->bo_lock);
	xa_init_flags(&nf->bos, XA_FLAGS_ALLOC1);
	xa_init(&nf->bo_offsets);
	return 0;
}

/**
 * npu_bo_file_fini() - drop every handle of a file being closed
 * @nf: the file, with no file operation left
 */
void npu_bo_file_fini(struct npu_file *nf)
{
	struct npu_bo *bo;
	unsigned long handle;

	xa_for_each(&nf->bos, handle, bo) {
		xa_erase(&nf->bos, handle);
		npu_bo_put_for(bo, NPU_TRACE_BO_FREE_CLOSE);
	}
	xa_destroy(&nf->bos);
	xa_destroy(&nf->bo_offsets);
	mutex_destroy(&nf->bo_lock);
	npu_bo_quota_put(nf->bo_quota);
}

static void npu_bo_vm_open(struct vm_area_struct *vma)
{
	npu_bo_get(vma->vm_private_data);
}

static void npu_bo_vm_close(struct vm_area_struct *vma)
{
	npu_bo_put_for(vma->vm_private_data, NPU_TRACE_BO_FREE_UNMAP);
}

/* The buffer's page of RAM for mappings of a removed device, or NULL. */
static struct page *npu_bo_dummy_page(struct npu_bo *bo)
{
	struct page *page = READ_ONCE(bo->dummy);

	if (page)
		return page;
	page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!page)
		return NULL;
	/* Faults of several threads may race: the first page installed wins. */
	if (cmpxchg(&bo->dummy, NULL, page)) {
		__free_page(page);
		page = READ_ONCE(bo->dummy);
	}
	return page;
}

/*
 * The whole range is mapped at mmap() time, so a fault means the mapping
 * was zapped by remove(): map the buffer's zeroed page of RAM there. The
 * vma is VM_PFNMAP and shared (npu_bo_mmap()), so no copy-on-write ever
 * applies, and the page is freed with the buffer, after the last mapping.
 */
static vm_fault_t npu_bo_vm_fault(struct vm_fault *vmf)
{
	struct npu_bo *bo = vmf->vma->vm_private_data;
	struct page *page;

	if (!npu_dev_unplugged(bo->ndev))
		return VM_FAULT_SIGBUS;
	page = npu_bo_dummy_page(bo);
	if (!page)
		return VM_FAULT_OOM;
	return vmf_insert_pfn(vmf->vma, vmf->address, page_to_pfn(page));
}

static const struct vm_operations_struct npu_bo_vm_ops = {
	.open = npu_bo_vm_open,
	.close = npu_bo_vm_close,
	.fault = npu_bo_vm_fault,
};

/**
 * npu_bo_mmap() - map a buffer of this file, write-combined
 * @nf: the file
 * @vma: the mapping: shared, at the buffer's mmap offset, at most its size
 *
 * Called inside npu_dev_enter().
 *
 * Return: 0 or a negative errno.
 */
int npu_bo_mmap(struct npu_file *nf, struct vm_area_struct *vma)
{
	struct npu_dev *ndev = nf->ndev;
	unsigned long len = vma->vm_end - vma->vm_start;
	struct npu_bo *bo;
	int ret;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	/* Device addresses are 32-bit: no larger offset can match one. */
	if (vma->vm_pgoff > (U32_MAX >> PAGE_SHIFT))
		return -EINVAL;

	mutex_lock(&nf->bo_lock);
	bo = xa_load(&nf->bo_offsets, vma->vm_pgoff);
	if (bo)
		npu_bo_get(bo);
	mutex_unlock(&nf->bo_lock);
	if (!bo)
		return -EINVAL;
	if (len > bo->size) {
		npu_bo_put(bo);
		return -EINVAL;
	}

	vma->vm_page_prot = pgprot_writecombine(vma->vm_page_prot);
	ret = io_remap_pfn_range(vma, vma->vm_start,
				 (ndev->mem_phys + bo->dev_addr) >> PAGE_SHIFT,
				 len, vma->vm_page_prot);
	if (ret) {
		npu_bo_put(bo);
		return ret;
	}
	vma->vm_private_data = bo;
	vma->vm_ops = &npu_bo_vm_ops;
	return 0;
}
