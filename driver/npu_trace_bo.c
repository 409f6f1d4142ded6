// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_trace_bo.c - the trace records of buffers: NPU_TRACE_REC_BO_ALLOC
 * when a buffer's device memory is allocated (or could not be), and
 * NPU_TRACE_REC_BO_FREE when it returns to the allocator, which may be
 * long after NPU_IOCTL_BO_FREE (a job or a mapping holds the buffer).
 *
 * A ring receives the records of the buffers its process created, or
 * everyone's with NPU_TRACE_ALL_PROCESSES, at every level, with the pids
 * in its opener's PID namespace: the scope of the job records. Each
 * record's device time is estimated from the last CLOCK record the
 * device's rings received, at the nominal frequency, without touching
 * the device (a free may come long after it is gone).
 *
 * Locking: npu_bo.c calls the hook with npu_dev.mem_lock held, so the
 * records follow the allocator's changes; the rings are under
 * npu_trace_dev.lock, taken inside (order mem_lock -> trace lock).
 *
 * Lifetime: a buffer holds a reference on the device's npu_trace_dev, so
 * the free of a buffer that outlived its device finds the trace state
 * (dead then: nothing is written).
 */

#include <linux/lockdep.h>
#include <linux/math64.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/spinlock.h>

#include <linux/npu.h>

#include "npu_bo.h"
#include "npu_trace.h"
#include "npu_trace_int.h"

/**
 * npu_trace_keep_clock_locked() - remember a CLOCK record for BO records
 * @tdev: the device's trace state; npu_trace_dev.lock held
 * @clk: the record, about to be written to a ring
 */
void npu_trace_keep_clock_locked(struct npu_trace_dev *tdev,
				 const struct npu_trace_rec_clock *clk)
{
	lockdep_assert_held(&tdev->lock);
	tdev->clk = *clk;
	tdev->have_clk = true;
}

/*
 * The device clock at @host_ns, from the last clock sample (the device
 * latched it at the middle of its bracket, within half its width) at the
 * nominal frequency. False without a sample or a frequency.
 */
static bool npu_trace_tick_at_locked(struct npu_trace_dev *tdev, u64 host_ns,
				     u64 *tick)
{
	const struct npu_trace_rec_clock *c = &tdev->clk;
	u64 mid, d;

	lockdep_assert_held(&tdev->lock);
	if (!tdev->have_clk || !c->clock_hz || c->clock_hz > U32_MAX)
		return false;
	mid = c->host_before_ns + c->width_ns / 2;
	if (host_ns >= mid) {
		d = mul_u64_u32_div(host_ns - mid, c->clock_hz, NSEC_PER_SEC);
		*tick = c->device_tick + d;
		return true;
	}
	d = mul_u64_u32_div(mid - host_ns, c->clock_hz, NSEC_PER_SEC);
	if (d > c->device_tick)
		return false;
	*tick = c->device_tick - d;
	return true;
}

/**
 * __npu_trace_bo_locked() - the hook's slow path, with a ring on
 * @ndev: the device; npu_dev.mem_lock held
 * @tdev: its trace state (a reference is held by the caller)
 * @ev: the allocation, failed allocation or free
 *
 * Writes the record to every enabled ring that sees @ev->owner. A full
 * ring drops it and counts it, as any record: the reader's LOST record
 * and sequence numbers account for it exactly.
 */
void __npu_trace_bo_locked(struct npu_dev *ndev, struct npu_trace_dev *tdev,
			   const struct npu_trace_bo_ev *ev)
{
	struct npu_trace_rec_bo rec;
	struct npu_tring *r;
	unsigned long flags;

	lockdep_assert_held(&ndev->mem_lock);
	npu_trace_rec_init(&rec, ev->type, sizeof(rec));
	rec.bo_id = ev->bo_id;
	rec.dev_addr = ev->dev_addr;
	rec.size = ev->size;
	rec.kind = ev->kind;
	rec.error = ev->error;
	rec.reason = ev->reason;
	rec.host_ns = ev->host_ns;
	rec.dev_used = ev->used;

	spin_lock_irqsave(&tdev->lock, flags);
	if (tdev->dead || !tdev->nr_enabled)
		goto out;
	if (npu_trace_tick_at_locked(tdev, ev->host_ns, &rec.dev_tick))
		rec.flags |= NPU_TRACE_BO_F_TICK;
	list_for_each_entry(r, &tdev->rings, node) {
		if (!r->enabled || !npu_tring_sees(r, ev->owner))
			continue;
		rec.pid = pid_nr_ns(ev->owner, r->pid_ns);
		rec.tid = ev->tid ? pid_nr_ns(ev->tid, r->pid_ns) : 0;
		npu_tring_emit_locked(r, &rec, sizeof(rec));
	}
out:
	spin_unlock_irqrestore(&tdev->lock, flags);
}
