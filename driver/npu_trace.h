/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npu_trace.h - hardware trace rings (trace fds) and clock correlation, as
 * seen by the rest of the driver. The npu_trace*.c, npu_tring*.c and
 * npu_tarea.c files implement them (npu_trace_int.h maps them), with
 * npu_clock.c; Documentation/npu/ring.rst describes the result.
 *
 * The job path calls the hooks below. While no trace ring of the device is
 * enabled each costs one unlikely branch on npu_dev.trace_rings (and
 * the tracepoints, which are static keys); everything else is out of line.
 */
#ifndef _NPU_TRACE_H
#define _NPU_TRACE_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/lockdep.h>
#include <linux/pid.h>
#include <linux/types.h>

#include "npu_drv.h"
#include "npu_job.h"
#include "npu_trace_points.h"

/**
 * struct npu_trace_stats - trace counters of a device, for netlink
 * @records: records written to the device's rings, all rings summed
 * @lost: records the rings lost (ring full, device, host), summed
 * @dma_bytes: per PE, bytes of DMA from the device's EXEC records
 * @macs: per PE, multiply-accumulates from the same records
 *
 * EXEC records are drained only while a ring of the device is enabled,
 * so @dma_bytes and @macs count the jobs that ran while tracing was on.
 */
struct npu_trace_stats {
	u64 records;
	u64 lost;
	u64 dma_bytes[NPU_HW_MAX_PES];
	u64 macs[NPU_HW_MAX_PES];
};

void npu_trace_get_stats(struct npu_dev *ndev, struct npu_trace_stats *st);

/**
 * struct npu_trace_bo_ev - a buffer's memory taken or given back
 * @type: NPU_TRACE_REC_BO_ALLOC or NPU_TRACE_REC_BO_FREE
 * @kind: NPU_BO_KIND_*
 * @error: BO_ALLOC: 0, -ENOMEM or -EDQUOT
 * @reason: BO_FREE: NPU_TRACE_BO_FREE_*
 * @owner: the creating process, whose rings see the record
 * @tid: BO_ALLOC: the creating thread; BO_FREE: NULL
 * @bo_id: npu_bo.id, 0 for a failed allocation
 * @dev_addr: device address, 0 for a failed allocation
 * @size: bytes
 * @host_ns: CLOCK_MONOTONIC of the event
 * @used: npu_mem_stats.used after the event
 *
 * npu_bo.c fills one under npu_dev.mem_lock, so that the records reach
 * the rings in the order of the allocator's changes.
 */
struct npu_trace_bo_ev {
	u16 type;
	u32 kind;
	s32 error;
	u32 reason;
	struct pid *owner;
	struct pid *tid;
	u64 bo_id;
	u64 dev_addr;
	u64 size;
	u64 host_ns;
	u64 used;
};

struct npu_trace_dev *npu_trace_dev_get(struct npu_dev *ndev);
void npu_trace_dev_put(struct npu_trace_dev *tdev);

/*
 * At probe, after npu_hw_init() and BEFORE the interrupts are requested
 * (the trace state is released by devres after the interrupts are freed);
 * at remove, after the jobs were failed, before the hardware goes.
 */
int npu_trace_init(struct npu_dev *ndev);
void npu_trace_fini(struct npu_dev *ndev);

/* ioctls on /dev/npuN, inside npu_dev_enter() */
int npu_trace_open_ioctl(struct npu_file *nf, void __user *uarg);
int npu_clock_sample_ioctl(struct npu_file *nf, void __user *uarg);

void npu_trace_work(struct work_struct *work);

/* Slow paths of the hooks below, for enabled rings only. */
void __npu_trace_drain(struct npu_dev *ndev);
bool npu_tarea_filling(struct npu_dev *ndev);
void __npu_trace_job_submitted_locked(struct npu_dev *ndev,
				      const struct npu_job *job);
void __npu_trace_job_completed_locked(struct npu_dev *ndev,
				      const struct npu_job *job);
void __npu_trace_bo_locked(struct npu_dev *ndev, struct npu_trace_dev *tdev,
			   const struct npu_trace_bo_ev *ev);

/**
 * npu_trace_on() - is any trace ring of the device enabled?
 * @ndev: the device
 *
 * A hint for the hooks: the slow paths check again under the trace lock.
 *
 * Return: true when at least one ring is enabled.
 */
static inline bool npu_trace_on(struct npu_dev *ndev)
{
	return atomic_read(&ndev->trace_rings);
}

/**
 * npu_trace_drain() - move the device's trace records into the rings
 * @ndev: the device, present
 *
 * Also delivers the EXEC records of the completed jobs still pending. A
 * reset calls it before it fails the jobs; otherwise the completion path
 * leaves it to npu_trace_deliver_work(), a jiffy later. Process context.
 */
static inline void npu_trace_drain(struct npu_dev *ndev)
{
	if (unlikely(npu_trace_on(ndev)))
		__npu_trace_drain(ndev);
}

/**
 * npu_trace_job_submitted_locked() - a job is about to be handed to the device
 * @ndev: the device
 * @job: the job, with id, tgid, pid, pe and submit_ns set
 *
 * With npu_dev.jobs_lock held, before the queue's producer moves.
 * Fires npu_job_submit; while a ring is enabled, remembers the submitter
 * so that the device's records of the job can be attributed.
 */
static inline void npu_trace_job_submitted_locked(struct npu_dev *ndev,
						  const struct npu_job *job)
{
	lockdep_assert_held(&ndev->jobs_lock);
	trace_npu_job_submit(ndev->id, job->id, job->pe, job->tgid, job->pid,
			     job->submit_ns);
	if (unlikely(npu_trace_on(ndev)))
		__npu_trace_job_submitted_locked(ndev, job);
}

/**
 * npu_trace_job_completed_locked() - a job's completion was seen
 * @ndev: the device
 * @job: the job, with status, complete_ns and the ticks set
 *
 * With npu_dev.jobs_lock held, for every job, failed and aborted ones
 * included. While a ring is enabled, writes the job's EXEC record. Fires
 * npu_job_start (unless the device's trace record already did) and
 * npu_job_complete.
 */
static inline void npu_trace_job_completed_locked(struct npu_dev *ndev,
						  const struct npu_job *job)
{
	lockdep_assert_held(&ndev->jobs_lock);
	if (unlikely(npu_trace_on(ndev))) {
		__npu_trace_job_completed_locked(ndev, job);
		return;
	}
	trace_npu_job_start(ndev->id, job->id, job->pe, job->start_tick);
	trace_npu_job_complete(ndev->id, job->id, job->pe, job->status,
			       job->tgid, job->submit_ns, job->complete_ns,
			       job->start_tick, job->end_tick);
}

/**
 * npu_trace_bo_locked() - a buffer's device memory was taken or given back
 * @ndev: the device
 * @tdev: the device's trace state, held by the caller (a buffer's
 *	reference, or the device's inside npu_dev_enter()); may be NULL
 * @ev: what happened
 *
 * With npu_dev.mem_lock held, for every allocation, failed allocation
 * and free, whether or not the device is still there. Fires npu_bo_alloc
 * or npu_bo_free; while a ring is enabled, writes the BO_ALLOC or BO_FREE
 * record to the rings that see @ev->owner.
 */
static inline void npu_trace_bo_locked(struct npu_dev *ndev,
				       struct npu_trace_dev *tdev,
				       const struct npu_trace_bo_ev *ev)
{
	lockdep_assert_held(&ndev->mem_lock);
	if (ev->type == NPU_TRACE_REC_BO_ALLOC)
		trace_npu_bo_alloc(ndev->id, ev->bo_id, ev->dev_addr, ev->size,
				   ev->kind, pid_nr(ev->owner), ev->error,
				   ev->used);
	else
		trace_npu_bo_free(ndev->id, ev->bo_id, ev->dev_addr, ev->size,
				  ev->kind, pid_nr(ev->owner), ev->reason,
				  ev->used);
	if (unlikely(npu_trace_on(ndev)) && tdev)
		__npu_trace_bo_locked(ndev, tdev, ev);
}

#endif /* _NPU_TRACE_H */
