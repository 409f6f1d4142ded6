/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npu_bo.h - buffer objects: device DRAM allocations, per-file handles and
 * mmap.
 */
#ifndef _NPU_BO_H
#define _NPU_BO_H

#include <linux/atomic.h>
#include <linux/refcount.h>
#include <linux/mm_types.h>
#include <linux/types.h>

#include <linux/npu.h>

struct npu_dev;
struct npu_file;
struct npu_trace_dev;
struct pid;

/**
 * struct npu_bo_quota - device memory charged to one open file
 * @ref: held by the file and by each of its buffers, which may outlive it
 *	(jobs and mappings keep a buffer after its handle and file are gone)
 * @used: bytes of the file's buffers whose memory is not freed yet
 */
struct npu_bo_quota {
	refcount_t ref;
	atomic64_t used;
};

/**
 * struct npu_mem_stats - device memory counters of a device, for netlink
 *	and sysfs (Documentation/npu/netlink.rst, ABI sysfs-class-misc-npu);
 *	under npu_dev.mem_lock
 * @used: bytes of device memory held by buffers now
 * @peak: highest @used since probe or since the last reset (sysfs)
 * @allocs: buffers allocated since probe
 * @frees: buffers whose memory was freed since probe
 * @fail_nomem: BO_CREATE calls that failed with -ENOMEM since probe
 * @fail_quota: BO_CREATE calls that failed with -EDQUOT since probe
 * @free: out of npu_bo_get_stats() only: bytes the allocator has free
 * @largest_free: likewise: bytes of its largest free extent
 */
struct npu_mem_stats {
	u64 used;
	u64 peak;
	u64 allocs;
	u64 frees;
	u64 fail_nomem;
	u64 fail_quota;
	u64 free;
	u64 largest_free;
};

/**
 * struct npu_bo - a buffer in device DRAM
 * @ref: references: the owner's handle, each job using it, each mapping
 * @ndev: the device (a reference is held: the allocator lives there)
 * @tdev: the device's trace state, for the free's trace record (a
 *	reference is held: the buffer may outlive the device)
 * @owner: the creating process (thread group; a reference is held), whose
 *	trace rings see the buffer's records
 * @id: unique on the device since probe, from 1 (npu_trace_rec_bo.bo_id)
 * @dev_addr: device address (BAR2 offset), page aligned
 * @size: bytes, a multiple of the page size
 * @flags: NPU_BO_* given at creation
 * @kind: NPU_BO_KIND_* (from @flags; NPU_BO_PROGRAM alone gives PROGRAM)
 * @quota: the creating file's charge, which @size counts in until the
 *	buffer's memory is freed (a reference is held)
 * @dummy: after hot-unplug, the zeroed page of RAM the buffer's mappings
 *	show instead of device memory (allocated at the first fault, set
 *	once with cmpxchg(), freed with the buffer)
 */
struct npu_bo {
	refcount_t ref;
	struct npu_dev *ndev;
	struct npu_trace_dev *tdev;
	struct pid *owner;
	u64 id;
	u32 dev_addr;
	u32 size;
	u32 flags;
	u32 kind;
	struct npu_bo_quota *quota;
	struct page *dummy;
};

int npu_bo_pool_init(struct npu_dev *ndev);
void npu_bo_pool_fini(struct npu_dev *ndev);

void npu_bo_get(struct npu_bo *bo);
void npu_bo_put_for(struct npu_bo *bo, u32 why);

/**
 * npu_bo_put() - drop a reference on a buffer for no particular reason
 * @bo: the buffer
 *
 * As npu_bo_put_for() with NPU_TRACE_BO_FREE_OTHER: for the references
 * that are not the handle's, a file's, a mapping's or a job's.
 */
static inline void npu_bo_put(struct npu_bo *bo)
{
	npu_bo_put_for(bo, NPU_TRACE_BO_FREE_OTHER);
}

void npu_bo_get_stats(struct npu_dev *ndev, struct npu_mem_stats *st);
void npu_bo_reset_peak(struct npu_dev *ndev);

struct npu_bo *npu_bo_lookup(struct npu_file *nf, u32 handle);
int npu_bo_file_init(struct npu_file *nf);
void npu_bo_file_fini(struct npu_file *nf);

int npu_bo_create_ioctl(struct npu_file *nf, void __user *uarg);
int npu_bo_free_ioctl(struct npu_file *nf, void __user *uarg);
int npu_bo_mmap(struct npu_file *nf, struct vm_area_struct *vma);

#endif /* _NPU_BO_H */
