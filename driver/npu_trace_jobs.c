// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_trace_jobs.c - traced jobs: who submitted each job, which rings may
 * see its records, and the records built from a job (EXEC at completion,
 * OP records and the device's EXEC record from the trace area).
 *
 * While a ring is enabled, the submission hook remembers each job's
 * submitter (struct npu_trace_jobent, a table by job id); the drain of the
 * trace area (npu_tarea.c) attributes the device's records through it. The
 * completion hook only keeps the job's result in its entry: the job's EXEC
 * record is written when the records are delivered, off the completion
 * path (a jiffy later, or at once when a reader asks, see npu_tarea.c),
 * after the drain that moved the job's OP records, in completion order;
 * then the entry goes.
 *
 * Scope: a traced job's entry holds references on its submitter's struct
 * pids (process and thread); a ring holds its opener's struct pid and PID
 * namespace. Rings compare struct pid pointers, never pid numbers: a number
 * can be reused once its process is reaped, a struct pid cannot.
 *
 * Locking: the table and the rings are under npu_trace_dev.lock; the hooks
 * run with npu_dev.jobs_lock held (lock order jobs_lock -> trace lock), so
 * they allocate without sleeping. Every function here asserts what it
 * needs.
 *
 * Lifetime: an entry lives from submission until its EXEC record is
 * written, or until the last ring is disabled or the device goes
 * (npu_trace_jobs_flush_locked()).
 */

#include <linux/hashtable.h>
#include <linux/lockdep.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/slab.h>

#include <linux/npu.h>

#include "npu_job.h"
#include "npu_trace.h"
#include "npu_trace_int.h"
#include "npu_trace_points.h"

/*
 * Host context of a job submitted while a ring was enabled. @tgid and @tid
 * are the submitter's process and thread (references held); @exec is the
 * device's EXEC record once drained (@have_exec), @started once the
 * npu_job_start tracepoint fired for it. Once the job completed (on
 * npu_trace_dev.done by @done_node, empty before) the entry holds its
 * result.
 */
struct npu_trace_jobent {
	struct hlist_node node;
	u64 job_id;
	struct pid *tgid;
	struct pid *tid;
	bool started;
	bool have_exec;
	struct npu_hw_trec_exec exec;
	struct list_head done_node;
	u32 status;
	u64 submit_ns;
	u64 complete_ns;
};

static struct npu_trace_jobent *
npu_trace_job_find_locked(struct npu_trace_dev *tdev, u64 job_id)
{
	struct npu_trace_jobent *ent;

	lockdep_assert_held(&tdev->lock);
	hash_for_each_possible(tdev->jobs, ent, node, job_id)
		if (ent->job_id == job_id)
			return ent;
	return NULL;
}

/*
 * Free an entry, removed from the table. put_pid() may run under the
 * trace lock (it is atomic-safe), and the job holds references too.
 */
static void npu_trace_jobent_free(struct npu_trace_jobent *ent)
{
	put_pid(ent->tgid);
	put_pid(ent->tid);
	kfree(ent);
}

/**
 * npu_trace_jobs_flush_locked() - forget every traced job
 * @tdev: the device's trace state; npu_trace_dev.lock held
 *
 * When the last ring is disabled and when the device goes: their records
 * have nowhere to go.
 */
void npu_trace_jobs_flush_locked(struct npu_trace_dev *tdev)
{
	struct npu_trace_jobent *ent;
	struct hlist_node *tmp;
	int bkt;

	lockdep_assert_held(&tdev->lock);
	hash_for_each_safe(tdev->jobs, bkt, tmp, ent, node) {
		hash_del(&ent->node);
		list_del(&ent->done_node);
		npu_trace_jobent_free(ent);
	}
}

/**
 * npu_trace_report_lost_locked() - count lost records in the rings that
 *	wanted them
 * @tdev: the device's trace state; npu_trace_dev.lock held
 * @reason: NPU_TRACE_LOST_DEVICE or NPU_TRACE_LOST_HOST
 * @count: records lost
 * @tgid: the job's process for a host loss, NULL for a device loss
 *
 * Device or host losses take no sequence numbers. Device losses cannot be
 * attributed and go to every enabled ring; a host loss goes to the rings
 * that would have received the job's records.
 */
void npu_trace_report_lost_locked(struct npu_trace_dev *tdev, u32 reason,
				  u64 count, const struct pid *tgid)
{
	struct npu_tring *r;

	lockdep_assert_held(&tdev->lock);
	list_for_each_entry(r, &tdev->rings, node) {
		if (!r->enabled || (tgid && !npu_tring_sees(r, tgid)))
			continue;
		r->pend[reason] += count;
		if (reason == NPU_TRACE_LOST_DEVICE)
			r->n_dev_lost += count;
		else
			r->n_host_lost += count;
		npu_tring_lost_locked(r, count);
		npu_tring_flush_lost_locked(r);
		npu_tring_wake_locked(r);
	}
}

/*
 * A job's record to every enabled ring that may see it. @pid and @tid
 * point into @rec: each ring gets the submitter's numbers in its opener's
 * PID namespace, 0 where the submitter is not visible (as perf does).
 */
static void npu_trace_deliver_locked(struct npu_trace_dev *tdev,
				     const struct npu_trace_jobent *ent,
				     u32 min_level, void *rec, u32 size,
				     s32 *pid, s32 *tid)
{
	struct npu_tring *r;

	lockdep_assert_held(&tdev->lock);
	list_for_each_entry(r, &tdev->rings, node) {
		if (!r->enabled || r->level < min_level ||
		    !npu_tring_sees(r, ent->tgid))
			continue;
		*pid = pid_nr_ns(ent->tgid, r->pid_ns);
		*tid = pid_nr_ns(ent->tid, r->pid_ns);
		npu_tring_emit_locked(r, rec, size);
	}
}

/* The job's EXEC record, with the device's part if it was drained. */
static void npu_trace_rec_exec(struct npu_trace_rec_exec *rec,
			       const struct npu_trace_jobent *ent)
{
	npu_trace_rec_init(rec, NPU_TRACE_REC_EXEC, sizeof(*rec));
	rec->status = ent->status;
	rec->job_id = ent->job_id;
	rec->submit_ns = ent->submit_ns;
	rec->complete_ns = ent->complete_ns;
	if (!ent->have_exec)
		return;
	rec->flags = NPU_TRACE_EXEC_F_DEVICE;
	rec->pe = ent->exec.pe;
	rec->dev_status = ent->exec.status;
	rec->exec_index = ent->exec.exec_index;
	rec->n_ops = ent->exec.n_ops;
	rec->dev_seq = ent->exec.hdr.seq;
	rec->start_tick = ent->exec.start_tick;
	rec->end_tick = ent->exec.end_tick;
	rec->run_ticks = ent->exec.run_ticks;
	rec->iowait_ticks = ent->exec.iowait_ticks;
	rec->dma_bytes = ent->exec.dma_bytes;
	rec->macs = ent->exec.macs;
}

/* Write a completed job's EXEC record and forget the job. */
static void npu_trace_job_emit_locked(struct npu_trace_dev *tdev,
				      struct npu_trace_jobent *ent)
{
	struct npu_trace_rec_exec rec;

	lockdep_assert_held(&tdev->lock);
	hash_del(&ent->node);
	list_del(&ent->done_node);
	npu_trace_rec_exec(&rec, ent);
	if (!tdev->dead)
		npu_trace_deliver_locked(tdev, ent, 0, &rec, sizeof(rec),
					 &rec.pid, &rec.tid);
	npu_trace_jobent_free(ent);
}

/**
 * npu_trace_job_op_locked() - an OP record drained from the trace area
 * @tdev: the device's trace state; npu_trace_dev.lock held
 * @op: the device's record
 *
 * Delivered to the level-2 rings that may see the job; dropped for a job
 * submitted while no ring was enabled.
 */
void npu_trace_job_op_locked(struct npu_trace_dev *tdev,
			     const struct npu_hw_trec_op *op)
{
	struct npu_trace_jobent *ent;
	struct npu_trace_rec_op rec;

	lockdep_assert_held(&tdev->lock);
	ent = npu_trace_job_find_locked(tdev, op->job_id);
	if (!ent)
		return;
	npu_trace_rec_init(&rec, NPU_TRACE_REC_OP, sizeof(rec));
	rec.job_id = op->job_id;
	rec.pe = op->pe;
	rec.opcode = op->opcode;
	rec.op_index = op->op_index;
	rec.exec_index = op->exec_index;
	rec.dev_seq = op->hdr.seq;
	rec.start_tick = op->start_tick;
	rec.end_tick = op->end_tick;
	rec.iowait_ticks = op->iowait_ticks;
	rec.dma_bytes = op->dma_bytes;
	rec.macs = op->macs;
	npu_trace_deliver_locked(tdev, ent, NPU_TRACE_OPS, &rec, sizeof(rec),
				 &rec.pid, &rec.tid);
}

/**
 * npu_trace_job_exec_locked() - the device's EXEC record, from the area
 * @tdev: the device's trace state; npu_trace_dev.lock held
 * @ex: the device's record
 *
 * Counted in the PE's DMA and MAC statistics, every job's; kept for the
 * job's EXEC record at completion; the first one fires npu_job_start.
 */
void npu_trace_job_exec_locked(struct npu_trace_dev *tdev,
			       const struct npu_hw_trec_exec *ex)
{
	struct npu_trace_jobent *ent;

	lockdep_assert_held(&tdev->lock);
	ent = npu_trace_job_find_locked(tdev, ex->job_id);
	if (ex->pe < NPU_HW_MAX_PES) {
		tdev->stats.dma_bytes[ex->pe] += ex->dma_bytes;
		tdev->stats.macs[ex->pe] += ex->macs;
	}
	if (!ent)
		return;
	ent->exec = *ex;
	ent->have_exec = true;
	if (!ent->started) {
		ent->started = true;
		trace_npu_job_start(tdev->ndev->id, ex->job_id, ex->pe,
				    ex->start_tick);
	}
}

/**
 * __npu_trace_job_submitted_locked() - the hook's slow path, with a ring on
 * @ndev: the device
 * @job: the job (id, its submitter, pe and submit_ns set)
 *
 * Remembers the submitter so the device's records of the job can be
 * attributed. jobs_lock is held: the entry is allocated without sleeping,
 * and a failure is reported to the rings as an NPU_TRACE_LOST_HOST.
 */
void __npu_trace_job_submitted_locked(struct npu_dev *ndev,
				      const struct npu_job *job)
{
	struct npu_trace_dev *tdev = ndev->trace;
	struct npu_trace_jobent *ent;
	unsigned long flags;

	lockdep_assert_held(&ndev->jobs_lock);
	if (!tdev)
		return;
	ent = kzalloc(sizeof(*ent), GFP_NOWAIT | __GFP_NOWARN);
	spin_lock_irqsave(&tdev->lock, flags);
	if (!tdev->nr_enabled || tdev->dead) {
		spin_unlock_irqrestore(&tdev->lock, flags);
		kfree(ent);
		return;
	}
	if (!ent) {
		/* Its EXEC record and OP records will be missing. */
		npu_trace_report_lost_locked(tdev, NPU_TRACE_LOST_HOST, 1,
					     job->tgid_ref);
		spin_unlock_irqrestore(&tdev->lock, flags);
		return;
	}
	INIT_LIST_HEAD(&ent->done_node);
	ent->job_id = job->id;
	ent->tgid = get_pid(job->tgid_ref);
	ent->tid = get_pid(job->tid_ref);
	hash_add(tdev->jobs, &ent->node, ent->job_id);
	spin_unlock_irqrestore(&tdev->lock, flags);
}

/**
 * npu_trace_jobs_deliver_locked() - write the EXEC records still pending
 * @tdev: the device's trace state; npu_trace_dev.lock held
 *
 * After a drain of the trace area, which moved their OP records and the
 * device's part of their EXEC record: the completed jobs, in completion
 * order.
 */
void npu_trace_jobs_deliver_locked(struct npu_trace_dev *tdev)
{
	struct npu_trace_jobent *ent, *tmp;

	lockdep_assert_held(&tdev->lock);
	list_for_each_entry_safe(ent, tmp, &tdev->done, done_node)
		npu_trace_job_emit_locked(tdev, ent);
}

/**
 * __npu_trace_job_completed_locked() - the hook's slow path, with a ring on
 * @ndev: the device
 * @job: the job, with its result (status, complete_ns, ticks)
 *
 * With jobs_lock held. Keeps the job's result for its EXEC record, which
 * npu_trace_deliver_work() writes a jiffy later (off the path that wakes
 * the job's waiter), then fires npu_job_start (unless the trace area
 * already showed the start) and npu_job_complete.
 */
void __npu_trace_job_completed_locked(struct npu_dev *ndev,
				      const struct npu_job *job)
{
	struct npu_trace_dev *tdev = ndev->trace;
	struct npu_trace_jobent *ent = NULL;
	unsigned long flags;
	bool started = false;

	lockdep_assert_held(&ndev->jobs_lock);
	if (tdev) {
		spin_lock_irqsave(&tdev->lock, flags);
		ent = npu_trace_job_find_locked(tdev, job->id);
		if (ent && list_empty(&ent->done_node)) {
			started = ent->started;
			ent->started = true;
			ent->status = job->status;
			ent->submit_ns = job->submit_ns;
			ent->complete_ns = job->complete_ns;
			list_add_tail(&ent->done_node, &tdev->done);
			if (!tdev->dead)
				queue_delayed_work(system_unbound_wq,
						   &tdev->deliver_work, 1);
		}
		spin_unlock_irqrestore(&tdev->lock, flags);
	}
	if (!started)
		trace_npu_job_start(ndev->id, job->id, job->pe,
				    job->start_tick);
	trace_npu_job_complete(ndev->id, job->id, job->pe, job->status,
			       job->tgid, job->submit_ns, job->complete_ns,
			       job->start_tick, job->end_tick);
}
