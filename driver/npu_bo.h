/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npu_bo.h - buffer objects: device DRAM allocations, per-file handles and
 * mmap.
 */
#ifndef _NPU_BO_H
#define _NPU_BO_H

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/refcount.h>
#include <linux/mm_types.h>
#include <linux/types.h>

struct npu_dev;
struct npu_file;

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
 * struct npu_bo - a buffer in device DRAM
 * @ref: references: the owner's handle, each job using it, each mapping
 * @ndev: the device (a reference is held: the allocator lives there)
 * @dev_addr: device address (BAR2 offset), page aligned
 * @size: bytes, a multiple of the page size
 * @flags: NPU_BO_* given at creation
 * @quota: the creating file's charge, which @size counts in until the
 *	buffer's memory is freed (a reference is held)
 * @dummy: after hot-unplug, the zeroed page of RAM the buffer's mappings
 *	show instead of device memory (allocated at the first fault, set
 *	once with cmpxchg(), freed with the buffer)
 */
struct npu_bo {
	struct kref ref;
	struct npu_dev *ndev;
	u32 dev_addr;
	u32 size;
	u32 flags;
	struct npu_bo_quota *quota;
	struct page *dummy;
};

int npu_bo_pool_init(struct npu_dev *ndev);
void npu_bo_pool_fini(struct npu_dev *ndev);

void npu_bo_get(struct npu_bo *bo);
void npu_bo_put(struct npu_bo *bo);

struct npu_bo *npu_bo_lookup(struct npu_file *nf, u32 handle);
int npu_bo_file_init(struct npu_file *nf);
void npu_bo_file_fini(struct npu_file *nf);

int npu_bo_create_ioctl(struct npu_file *nf, void __user *uarg);
int npu_bo_free_ioctl(struct npu_file *nf, void __user *uarg);
int npu_bo_mmap(struct npu_file *nf, struct vm_area_struct *vma);

#endif /* _NPU_BO_H */
