/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npu_drv.h - core objects of the NPU driver: the device and the open file.
 */
#ifndef _NPU_DRV_H
#define _NPU_DRV_H

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/spinlock.h>
#include <linux/srcu.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <linux/npu.h>

#include "npu/npu_hw.h"
#include "npu_bo.h"
#include "npu_job.h"

#define NPU_DRV_NAME	"npu"

/**
 * struct npu_hw_desc - geometry read from the register page at probe
 * @version: NPU_REG_VERSION
 * @caps: NPU_REG_CAPS
 * @pe_count: NPU_REG_PE_COUNT
 * @clock_hz: NPU_REG_CLOCK_HZ
 * @trace_levels: NPU_REG_TRACE_LEVELS
 * @db_target: NPU_REG_DB_TARGET, peer id for the doorbell register
 * @db_count: NPU_REG_DB_COUNT
 * @dram_base: NPU_REG_DRAM_BASE
 * @dram_size: NPU_REG_DRAM_SIZE
 * @cmdq_base: NPU_REG_CMDQ_BASE
 * @cmdq_stride: NPU_REG_CMDQ_STRIDE
 * @cmdq_entries: NPU_REG_CMDQ_ENTRIES
 * @cplq_base: NPU_REG_CPLQ_BASE
 * @cplq_entries: NPU_REG_CPLQ_ENTRIES
 * @trace_base: NPU_REG_TRACE_BASE
 * @trace_size: NPU_REG_TRACE_SIZE
 * @sram_size: NPU_REG_SRAM_SIZE
 * @dma_bw: NPU_REG_DMA_BW
 * @macs_per_cycle: NPU_REG_MACS_PER_CYCLE
 */
struct npu_hw_desc {
	u32 version;
	u32 caps;
	u32 pe_count;
	u32 clock_hz;
	u32 trace_levels;
	u32 db_target;
	u32 db_count;
	u32 dram_base;
	u32 dram_size;
	u32 cmdq_base;
	u32 cmdq_stride;
	u32 cmdq_entries;
	u32 cplq_base;
	u32 cplq_entries;
	u32 trace_base;
	u32 trace_size;
	u32 sram_size;
	u32 dma_bw;
	u32 macs_per_cycle;
};

/**
 * struct npu_pe_stats - job counters of one PE, for netlink's
 * NPU_CMD_STATS_GET (Documentation/npu/driver.rst); under npu_dev.jobs_lock
 * @jobs_completed: jobs completed with NPU_JOB_OK
 * @jobs_failed: jobs completed with any other status
 * @busy_ticks: sum of end_tick - start_tick of those jobs
 */
struct npu_pe_stats {
	u64 jobs_completed;
	u64 jobs_failed;
	u64 busy_ticks;
};

/**
 * struct npu_dev - one NPU
 * @ref: lifetime; held by the bound PCI device and by every open file
 * @pdev: the PCI function (a reference is held until release)
 * @db: BAR0 mapping (doorbell registers); valid until unplug
 * @mem: BAR2 mapping (register page, queues, trace, DRAM); valid until unplug
 * @mem_phys: bus address of BAR2, for mmap
 * @mem_len: length of BAR2
 * @id: N of /dev/npuN
 * @name: "npuN"
 * @misc: the character device
 * @srcu: readers of the hardware: every file operation runs inside
 *	npu_dev_enter()/npu_dev_exit()
 * @unplugged: set once at removal; afterwards file operations fail with
 *	-ENODEV and sleepers are woken
 * @dead: set once when the device stopped answering (a reset request got
 *	no acknowledgment): submissions and mailbox requests fail with -EIO
 *	until the function is bound again; written under jobs_lock, read
 *	locklessly
 * @hw: geometry read at probe
 * @files_lock: protects @files
 * @files: open files (struct npu_file), to zap their mappings at unplug
 * @mbox_lock: serializes mailbox requests (one outstanding at a time)
 * @mbox_seq: last mailbox sequence number used
 * @mbox_wq: woken by the mailbox interrupt and at unplug
 * @mbox_irq_lock: protects @mbox_irq_ack and @mbox_irq_ns
 * @mbox_irq_ack: NPU_REG_MBOX_ACK seen by the last mailbox interrupt
 * @mbox_irq_ns: CLOCK_MONOTONIC time of the last mailbox interrupt
 * @intr_lock: serializes the host's clearing of NPU_REG_INTR_CAUSE bits
 * @pool: DRAM allocator (npu_bo.c); lives until release
 * @mem_lock: protects @pool's changes, @mem_stats and @next_bo_id, so
 *	that the counters, the buffer ids and the BO trace records follow
 *	the allocator's changes in one order (npu_bo.c)
 * @mem_stats: device memory counters
 * @next_bo_id: last buffer id handed out
 * @jobs_lock: protects every job, the queues' host state and the fields
 *	below up to @pe_stats
 * @pe: host state of each PE's command queue
 * @pe_rr: next PE to try first for NPU_PE_ANY
 * @outstanding: jobs submitted and not completed, all PEs
 *	(@pe_rr and @outstanding are written with WRITE_ONCE() and read
 *	locklessly by npu_job_pick_pe())
 * @cpl_cons: completion queue consumer index
 * @next_job_id: last job id handed out
 * @resets: device resets done by the driver (timeouts, faults)
 * @spurious: completions for job ids the driver never handed out
 * @pe_stats: job counters per PE (npu_job.c, read by npu_netlink.c)
 * @done_wq: woken when jobs complete and at unplug
 * @space_wq: woken when queue space frees up and at unplug
 * @timeout_work: job timeout check
 * @cpl_work: drains the completion queue; queued by NPU_MSIX_CPL
 * @trace_work: drains the trace area; queued by NPU_MSIX_TRACE
 * @trace: trace state (npu_trace.c), set by npu_trace_init()
 * @trace_rings: enabled trace rings, maintained by npu_trace_ctl.c; the job
 *	path's only test when tracing is off (npu_trace_on())
 */
struct npu_dev {
	struct kref ref;
	struct pci_dev *pdev;
	void __iomem *db;
	void __iomem *mem;
	resource_size_t mem_phys;
	resource_size_t mem_len;
	int id;
	char name[16];
	struct miscdevice misc;
	struct srcu_struct srcu;
	bool unplugged;
	bool dead;
	struct npu_hw_desc hw;

	struct mutex files_lock;	/* protects files */
	struct list_head files;

	struct mutex mbox_lock;		/* one mailbox request at a time */
	u32 mbox_seq;
	wait_queue_head_t mbox_wq;
	spinlock_t mbox_irq_lock;	/* protects mbox_irq_ack, mbox_irq_ns */
	u32 mbox_irq_ack;
	u64 mbox_irq_ns;

	spinlock_t intr_lock;		/* host side of INTR_CAUSE */
	struct gen_pool *pool;
	spinlock_t mem_lock;		/* pool changes, mem_stats, next_bo_id */
	struct npu_mem_stats mem_stats;
	u64 next_bo_id;

	struct mutex jobs_lock;		/* all job state */
	struct npu_pe_queue pe[NPU_HW_MAX_PES];
	u32 pe_rr;
	u32 outstanding;
	u32 cpl_cons;
	u64 next_job_id;
	u64 resets;
	u64 spurious;
	struct npu_pe_stats pe_stats[NPU_HW_MAX_PES];
	wait_queue_head_t done_wq;
	wait_queue_head_t space_wq;
	struct delayed_work timeout_work;
	struct work_struct cpl_work;
	struct work_struct trace_work;

	struct npu_trace_dev *trace;
	atomic_t trace_rings;
};

/**
 * struct npu_file - one open file of /dev/npuN
 * @ndev: the device (a reference is held)
 * @filp: the file
 * @node: entry in npu_dev.files
 * @bo_lock: protects @bos and @bo_offsets
 * @bos: buffer handles of this file (struct npu_bo), from 1; each holds a
 *	reference on its buffer
 * @bo_offsets: the same buffers by mmap offset in pages, for mmap()
 * @bo_quota: device memory charged to this file (npu_bo.c)
 * @jobs: jobs of this file by id, outstanding or awaiting collection
 *	(npu_dev.jobs_lock)
 * @done: completed jobs awaiting NPU_IOCTL_WAIT, oldest first (jobs_lock)
 * @outstanding: jobs of this file not yet completed (jobs_lock)
 * @njobs: jobs in @jobs, bounded by the module parameter max_file_jobs
 *	(jobs_lock)
 * @done_seq: incremented at every completion of a job of this file
 *	(jobs_lock; read locklessly by waiters)
 */
struct npu_file {
	struct npu_dev *ndev;
	struct file *filp;
	struct list_head node;
	struct mutex bo_lock;		/* protects bos, bo_offsets */
	struct xarray bos;
	struct xarray bo_offsets;
	struct npu_bo_quota *bo_quota;
	struct xarray jobs;
	struct list_head done;
	u32 outstanding;
	u32 njobs;
	u64 done_seq;
};

#define ndev_dbg(ndev, fmt, ...)  dev_dbg(&(ndev)->pdev->dev, fmt, ##__VA_ARGS__)
#define ndev_info(ndev, fmt, ...) dev_info(&(ndev)->pdev->dev, fmt, ##__VA_ARGS__)
#define ndev_warn(ndev, fmt, ...) dev_warn(&(ndev)->pdev->dev, fmt, ##__VA_ARGS__)
#define ndev_err(ndev, fmt, ...)  dev_err(&(ndev)->pdev->dev, fmt, ##__VA_ARGS__)

void npu_dev_get(struct npu_dev *ndev);
void npu_dev_put(struct npu_dev *ndev);

/**
 * npu_dev_enter() - enter a section that may touch the hardware
 * @ndev: the device
 * @idx: out: SRCU index to pass to npu_dev_exit()
 *
 * Return: true when the device is present; false after unplug, in which
 * case the section must not be entered (and npu_dev_exit() not called).
 */
static inline bool npu_dev_enter(struct npu_dev *ndev, int *idx)
{
	*idx = srcu_read_lock(&ndev->srcu);
	if (READ_ONCE(ndev->unplugged)) {
		srcu_read_unlock(&ndev->srcu, *idx);
		return false;
	}
	return true;
}

/**
 * npu_dev_exit() - leave a section entered with npu_dev_enter()
 * @ndev: the device
 * @idx: SRCU index from npu_dev_enter()
 */
static inline void npu_dev_exit(struct npu_dev *ndev, int idx)
{
	srcu_read_unlock(&ndev->srcu, idx);
}

/**
 * npu_dev_unplugged() - has the device been removed?
 * @ndev: the device
 *
 * For wait conditions; code that touches the hardware uses npu_dev_enter().
 *
 * Return: true once remove() has started.
 */
static inline bool npu_dev_unplugged(struct npu_dev *ndev)
{
	return READ_ONCE(ndev->unplugged);
}

/**
 * npu_dev_dead() - has the device stopped answering?
 * @ndev: the device
 *
 * Return: true once a reset request went unacknowledged (npu_job.c).
 */
static inline bool npu_dev_dead(struct npu_dev *ndev)
{
	return READ_ONCE(ndev->dead);
}

/* The NPU_INFO_CAP_* bits this driver reports (GET_INFO and sysfs). */
#define NPU_INFO_CAPS	(NPU_INFO_CAP_TRACE | NPU_INFO_CAP_CLOCK_LATCH | \
			 NPU_INFO_CAP_MULTI_PE)

static inline int __npu_copy_args(void *karg, const void __user *uarg,
				  size_t size, size_t rsvd_off, size_t rsvd_len)
{
	if (copy_from_user(karg, uarg, size))
		return -EFAULT;
	if (memchr_inv((u8 *)karg + rsvd_off, 0, rsvd_len))
		return -EINVAL;
	return 0;
}

/**
 * npu_copy_args() - copy an ioctl argument in and check its reserved field
 * @karg: pointer to the kernel copy, a uapi struct with a member "reserved"
 * @uarg: the user pointer
 *
 * Every ioctl structure of the uapi has a reserved array that must be zero
 * on input; this is the one place that checks it. Flags are checked by
 * each ioctl, as their valid bits differ.
 *
 * Return: 0, -EFAULT, or -EINVAL when a reserved byte is not zero.
 */
#define npu_copy_args(karg, uarg) ({					\
	typeof(karg) __karg = (karg);					\
									\
	__npu_copy_args(__karg, (uarg), sizeof(*__karg),		\
			offsetof(typeof(*__karg), reserved),		\
			sizeof(__karg->reserved));			\
})

#endif /* _NPU_DRV_H */
