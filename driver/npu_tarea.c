// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_tarea.c - the device's trace area: the records the device writes
 * into BAR2 (struct npu_hw_trec_*, Documentation/npu/hw.rst) are drained
 * into the enabled trace rings, attributed to their jobs by
 * npu_trace_jobs.c, and the device's count of lost records is reported.
 *
 * A corrupted area (positions or a record size that make no sense) is
 * skipped up to the producer, with a rate-limited warning, and reported to
 * the enabled rings as NPU_TRACE_LOST_DEVICE: one record at once, and the
 * rest of the span when the next good record shows, by its device sequence
 * number, how many numbers the span took (less the overflow losses the
 * device counted meanwhile, which are reported as such).
 *
 * The drain delivers: it moves the area's records into the rings and then
 * writes the EXEC records of the completed jobs still pending
 * (npu_trace_jobs_deliver_locked()). It runs a jiffy after a completion
 * (npu_trace_deliver_work(), off the path that wakes the job's waiter, so
 * that a small job's latency does not carry its records), in the
 * NPU_MSIX_TRACE work (npu_trace_work()), in the completion path (with
 * npu_dev.jobs_lock held) when the area is filling (npu_tarea_filling())
 * and before a device reset fails the jobs, for
 * NPU_TRACE_IOCTL_STATUS and DISABLE, and at the first enable to discard
 * leftovers.
 *
 * Locking: npu_trace_dev.lock held across a drain: it owns the area's
 * consumer position and the table of traced jobs. Hardware access inside
 * npu_dev_enter() (every caller is).
 *
 * Lifetime: nothing of its own; the area is the device's, the state the
 * npu_trace_dev's.
 */

#include <linux/bits.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/lockdep.h>

#include "npu_hwif.h"
#include "npu_trace.h"
#include "npu_trace_int.h"

/* Device address of a field of the trace area's header. */
#define NPU_TAREA(ndev, field) \
	((ndev)->hw.trace_base + offsetof(struct npu_hw_trace_hdr, field))

/* Sequence gaps beyond this are a device reset, not a skipped span. */
#define NPU_TAREA_MAX_GAP	BIT(20)

/*
 * A corrupted span of @bytes was skipped: one record is known lost at
 * once. Trace lock held.
 */
static void npu_tarea_skipped_locked(struct npu_trace_dev *tdev, u64 bytes,
				     bool deliver)
{
	lockdep_assert_held(&tdev->lock);
	trace_npu_device_fault(tdev->ndev->id, NPU_FAULT_TRACE_CORRUPT, bytes);
	tdev->dev_skipped = true;
	tdev->dev_lost_skip = 0;
	if (deliver)
		npu_trace_report_lost_locked(tdev, NPU_TRACE_LOST_DEVICE, 1,
					     NULL);
}

/*
 * A good record with device sequence number @seq: after a skipped span,
 * report what the span held beyond the one record reported already.
 * Trace lock held.
 */
static void npu_tarea_seq_locked(struct npu_trace_dev *tdev, u32 seq,
				 bool deliver)
{
	u32 gap = seq - tdev->dev_seq_next;

	lockdep_assert_held(&tdev->lock);
	if (tdev->dev_skipped && tdev->dev_seq_valid && deliver &&
	    gap < NPU_TAREA_MAX_GAP && gap > 1 + tdev->dev_lost_skip)
		npu_trace_report_lost_locked(tdev, NPU_TRACE_LOST_DEVICE,
					     gap - 1 - tdev->dev_lost_skip,
					     NULL);
	tdev->dev_skipped = false;
	tdev->dev_seq_next = seq + 1;
	tdev->dev_seq_valid = true;
}

/**
 * npu_tarea_drain_locked() - move the device's trace records into the rings
 * @tdev: the device's trace state; npu_trace_dev.lock held, device present
 * @deliver: false discards the records (resync at the first enable)
 *
 * Reads every record between the area's consumer and producer, then tells
 * the device how far it got. A position or record size that makes no
 * sense skips to the producer, with a rate-limited warning and a device
 * loss reported (see above). Without @deliver, the sequence is forgotten.
 */
void npu_tarea_drain_locked(struct npu_trace_dev *tdev, bool deliver)
{
	struct npu_dev *ndev = tdev->ndev;
	void __iomem *data = ndev->mem + ndev->hw.trace_base +
			     NPU_HW_TRACE_DATA_OFFSET;
	u64 size = tdev->area_size;
	u64 prod, cons, lost, delta;
	union {
		struct npu_hw_trec_hdr hdr;
		struct npu_hw_trec_exec exec;
		struct npu_hw_trec_op op;
	} rec;

	lockdep_assert_held(&tdev->lock);
	if (!size)
		return;
	if (!deliver) {
		tdev->dev_seq_valid = false;
		tdev->dev_skipped = false;
	}
	/*
	 * The caller may have read the completion queue's producer: the
	 * device wrote the trace records of those jobs before it.
	 */
	rmb();
	prod = npu_rd64(ndev, NPU_TAREA(ndev, prod));
	cons = npu_rd64(ndev, NPU_TAREA(ndev, cons));
	lost = npu_rd64(ndev, NPU_TAREA(ndev, lost));
	/* Records are read after the position that covers them. */
	rmb();

	if (prod - cons > size || (prod | cons) & 7) {
		dev_warn_ratelimited(&ndev->pdev->dev,
				     "trace area: bad positions prod %llu cons %llu, skipping\n",
				     prod, cons);
		npu_tarea_skipped_locked(tdev, prod - cons, deliver);
		cons = prod;
	}
	while (cons != prod) {
		u64 off = cons & (size - 1);
		u32 rsize;

		memcpy_fromio(&rec.hdr, data + off, sizeof(rec.hdr));
		rsize = rec.hdr.size;
		if (rsize < sizeof(rec.hdr) || rsize & 7 ||
		    rsize > size - off || rsize > prod - cons) {
			dev_warn_ratelimited(&ndev->pdev->dev,
					     "trace area: bad record size %u at %llu, skipping %llu bytes\n",
					     rsize, cons, prod - cons);
			npu_tarea_skipped_locked(tdev, prod - cons, deliver);
			cons = prod;
			break;
		}
		if (rec.hdr.type != NPU_HW_TREC_PAD)
			npu_tarea_seq_locked(tdev, rec.hdr.seq, deliver);
		if (deliver && rec.hdr.type == NPU_HW_TREC_EXEC &&
		    rsize >= sizeof(rec.exec)) {
			memcpy_fromio(&rec.exec, data + off, sizeof(rec.exec));
			npu_trace_job_exec_locked(tdev, &rec.exec);
		} else if (deliver && rec.hdr.type == NPU_HW_TREC_OP &&
			   rsize >= sizeof(rec.op)) {
			memcpy_fromio(&rec.op, data + off, sizeof(rec.op));
			npu_trace_job_op_locked(tdev, &rec.op);
		}
		cons += rsize;
	}
	/* Our reads of the records complete before the device reuses them. */
	mb();
	npu_wr64(ndev, NPU_TAREA(ndev, cons), cons);

	/* The device restarts its counter at a reset. */
	delta = lost >= tdev->dev_lost_seen ? lost - tdev->dev_lost_seen : lost;
	tdev->dev_lost_seen = lost;
	if (tdev->dev_skipped)
		tdev->dev_lost_skip += delta;
	if (delta && deliver)
		npu_trace_report_lost_locked(tdev, NPU_TRACE_LOST_DEVICE, delta,
					     NULL);
}

/**
 * __npu_trace_drain() - npu_trace_drain() with a ring on
 * @ndev: the device, present
 *
 * Moves the device's trace records into the enabled rings, then the EXEC
 * records of the completed jobs that are still pending.
 */
void __npu_trace_drain(struct npu_dev *ndev)
{
	struct npu_trace_dev *tdev = ndev->trace;
	unsigned long flags;

	if (!tdev)
		return;
	spin_lock_irqsave(&tdev->lock, flags);
	if (tdev->nr_enabled && !tdev->dead)
		npu_tarea_drain_locked(tdev, true);
	npu_trace_jobs_deliver_locked(tdev);
	spin_unlock_irqrestore(&tdev->lock, flags);
}

/**
 * npu_tarea_filling() - does the trace area hold more than an eighth?
 * @ndev: the device, present, with a ring enabled
 *
 * The completion path then drains it at once rather than a jiffy later: a
 * flood of records (a job of a thousand operators writes 80 KB) must not
 * fill the area before the delivery work runs. A small job's few records
 * never do. The device's own watermark interrupt is not enough: under a
 * flood its work runs too late (Documentation/npu/overhead.rst). Reads
 * the area's positions, without the trace lock.
 *
 * Return: true when the area is more than an eighth full.
 */
bool npu_tarea_filling(struct npu_dev *ndev)
{
	struct npu_trace_dev *tdev = ndev->trace;
	u64 prod, cons;

	if (!tdev || !tdev->area_size)
		return false;
	prod = npu_rd64(ndev, NPU_TAREA(ndev, prod));
	cons = npu_rd64(ndev, NPU_TAREA(ndev, cons));
	return prod - cons > tdev->area_size / 8;
}

/**
 * npu_trace_deliver_work() - deliver the records of completed jobs
 * @work: npu_trace_dev.deliver_work, queued a jiffy after a completion
 *
 * Batches the records of the jobs completed meanwhile. Cancelled when the
 * device goes (npu_trace_ctl_fini()).
 */
void npu_trace_deliver_work(struct work_struct *work)
{
	struct npu_trace_dev *tdev = container_of(to_delayed_work(work),
						  struct npu_trace_dev,
						  deliver_work);
	struct npu_dev *ndev = tdev->ndev;
	int idx;

	if (!npu_dev_enter(ndev, &idx))
		return;
	__npu_trace_drain(ndev);
	npu_dev_exit(ndev, idx);
}

/**
 * npu_trace_work() - drain the trace area (NPU_MSIX_TRACE's work)
 * @work: npu_dev.trace_work
 *
 * Queued by the vector's hard handler, as npu_job_cpl_work() is.
 */
void npu_trace_work(struct work_struct *work)
{
	struct npu_dev *ndev = container_of(work, struct npu_dev, trace_work);
	int idx;

	if (!npu_dev_enter(ndev, &idx))
		return;
	npu_hw_ack_intr(ndev, NPU_INTR_TRACE);
	npu_trace_drain(ndev);
	npu_dev_exit(ndev, idx);
}
