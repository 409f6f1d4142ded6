// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_job.c - jobs: submission, completion, wait/poll, timeout and reset.
 *
 * Each PE has a command queue in BAR2; the host produces struct npu_hw_cmd
 * entries and rings NPU_DB_QUEUE. The device posts struct npu_hw_cpl
 * entries to the single completion queue and raises NPU_MSIX_CPL, whose
 * threaded handler drains it. All job state is protected by
 * npu_dev.jobs_lock (a mutex: completion runs in a thread).
 *
 * A job holds references to its buffers until it completes, and to its
 * submitter's struct pid (process and thread) until it is freed. It
 * belongs to the file that submitted it until NPU_IOCTL_WAIT collects its
 * result; a file holds at most max_file_jobs jobs, outstanding or
 * uncollected. A job of a closed file is detached and freed at completion.
 *
 * The job timeout runs from the moment a job becomes the oldest job of its
 * PE. On expiry the device is reset through the mailbox: completions that
 * arrived are delivered, the expired job fails with NPU_JOB_TIMEOUT, every
 * other outstanding job with NPU_JOB_ABORTED, and the queues restart empty.
 * A device that does not acknowledge the reset (it died) is marked dead:
 * its jobs fail the same way, and from then on SUBMIT and every mailbox
 * request fail with -EIO at once instead of timing out one by one.
 *
 * A completion for a job id the driver never handed out (a device bug) is
 * ignored with a rate-limited warning and counted in npu_dev.spurious.
 *
 * A batch of io_uring commands rings NPU_DB_QUEUE once: io_uring holds a
 * block plug around a submission batch (URING_CMD is a plugging opcode), so
 * npu_job_push_locked() defers the doorbell of a command's job to the plug's
 * callback, as blk-mq rings an NVMe doorbell once per batch. Each job's
 * producer write still happens at once; only the doorbell waits, and never
 * past the end of the io_uring_enter() call that submitted the job, or the
 * submitter sleeping. The ioctl path, and a command issued without a plug
 * (io_uring's worker, a single command), ring at once.
 *
 * A job submitted through io_uring (npu_uring.c) goes through the same
 * checks, queue and trace hooks; it is in its file's @jobs (marked
 * NPU_JOB_XA_URING) while queued, never on the done list, and its completion
 * is handed to the command's task work. A close() in the submitting process
 * cancels such commands: the job stays on the device, detached, and is
 * freed at completion like a job of a closed file.
 */

#include <linux/blkdev.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "npu_bo.h"
#include "npu_drv.h"
#include "npu_hwif.h"
#include "npu_job.h"
#include "npu_netlink.h"
#include "npu_trace.h"
#include "npu_uring.h"

/* npu_file.jobs: the job belongs to an io_uring command */
#define NPU_JOB_XA_URING	XA_MARK_1

static unsigned int job_timeout_ms = 5000;
module_param(job_timeout_ms, uint, 0644);
MODULE_PARM_DESC(job_timeout_ms,
		 "Reset the device when a job runs longer than this (ms, 0 = never, default 5000)");

static unsigned int max_file_jobs = 4096;
module_param(max_file_jobs, uint, 0644);
MODULE_PARM_DESC(max_file_jobs,
		 "Jobs one open file may hold, outstanding or awaiting NPU_IOCTL_WAIT; beyond it SUBMIT fails with EBUSY (0 = no limit, default 4096)");

/* ------------------------------------------------------------------------
 * queue geometry
 */

static void __iomem *npu_cmdq_ptrs(struct npu_dev *ndev, u32 pe)
{
	return ndev->mem + ndev->hw.cmdq_base + pe * ndev->hw.cmdq_stride;
}

static void __iomem *npu_cmdq_entry(struct npu_dev *ndev, u32 pe, u32 idx)
{
	return npu_cmdq_ptrs(ndev, pe) + NPU_HW_CMDQ_ENTRIES_OFFSET +
	       (idx & (ndev->hw.cmdq_entries - 1)) * sizeof(struct npu_hw_cmd);
}

static void __iomem *npu_cplq_ptrs(struct npu_dev *ndev)
{
	return ndev->mem + ndev->hw.cplq_base;
}

static void __iomem *npu_cplq_entry(struct npu_dev *ndev, u32 idx)
{
	return npu_cplq_ptrs(ndev) + NPU_HW_CPLQ_ENTRIES_OFFSET +
	       (idx & (ndev->hw.cplq_entries - 1)) * sizeof(struct npu_hw_cpl);
}

#define NPU_PTR_PROD	offsetof(struct npu_hw_ring_ptrs, prod)
#define NPU_PTR_CONS	offsetof(struct npu_hw_ring_ptrs, cons)

/*
 * Start every queue empty at the device's current position: host producer
 * = device consumer for the command queues, host consumer = device producer
 * for the completion queue. Used at probe (after a reset) and after reset,
 * with jobs_lock held.
 */
static void npu_job_resync_locked(struct npu_dev *ndev)
{
	void __iomem *p;
	u32 pe, pos;

	lockdep_assert_held(&ndev->jobs_lock);
	for (pe = 0; pe < ndev->hw.pe_count; pe++) {
		p = npu_cmdq_ptrs(ndev, pe);
		pos = readl(p + NPU_PTR_CONS);
		writel(pos, p + NPU_PTR_PROD);
		ndev->pe[pe].prod = pos;
	}
	p = npu_cplq_ptrs(ndev);
	pos = readl(p + NPU_PTR_PROD);
	writel(pos, p + NPU_PTR_CONS);
	ndev->cpl_cons = pos;
}

/* ------------------------------------------------------------------------
 * completion
 */

/**
 * npu_job_result() - a completed job's result, as the uapi gives it
 * @job: the job, completed
 * @res: out: its result (NPU_IOCTL_WAIT's, or an io_uring command's)
 */
void npu_job_result(const struct npu_job *job, struct npu_job_result *res)
{
	*res = (struct npu_job_result) {
		.job_id = job->id,
		.status = job->status,
		.pe = job->pe,
		.op_index = job->op_index,
		.start_tick = job->start_tick,
		.end_tick = job->end_tick,
		.submit_ns = job->submit_ns,
		.complete_ns = job->complete_ns,
	};
}

/**
 * npu_job_free() - free a job that nobody can reach any more
 * @job: the job, completed (or never queued) and off every list
 */
void npu_job_free(struct npu_job *job)
{
	u32 i;

	for (i = 0; i < job->nbufs; i++)
		npu_bo_put_for(job->bos[i], NPU_TRACE_BO_FREE_JOB);
	put_pid(job->tgid_ref);
	put_pid(job->tid_ref);
	kfree(job);
}

/* The PE's counters (npu_pe_stats) of a completed job. jobs_lock held. */
static void npu_job_count_locked(struct npu_dev *ndev,
				 const struct npu_job *job)
{
	struct npu_pe_stats *ps = &ndev->pe_stats[job->pe];

	lockdep_assert_held(&ndev->jobs_lock);
	if (job->status == NPU_JOB_OK)
		ps->jobs_completed++;
	else
		ps->jobs_failed++;
	if (job->end_tick > job->start_tick)
		ps->busy_ticks += job->end_tick - job->start_tick;
}

/* Deliver a job's result and drop its buffers. jobs_lock held. */
static void npu_job_complete_locked(struct npu_dev *ndev, struct npu_job *job,
				    u32 status, u32 op_index, u64 start_tick,
				    u64 end_tick)
{
	struct npu_pe_queue *q = &ndev->pe[job->pe];
	struct npu_file *nf = job->nf;
	u64 now = ktime_get_ns();
	struct npu_job *next;
	bool was_head;
	u32 i;

	lockdep_assert_held(&ndev->jobs_lock);
	/* A timed-out job keeps its status whatever the reset reports. */
	if (job->expired)
		status = NPU_JOB_TIMEOUT;
	was_head = list_first_entry(&q->jobs, struct npu_job, pe_node) == job;
	list_del(&job->pe_node);
	/* Read locklessly by npu_job_pick_pe(). */
	WRITE_ONCE(q->outstanding, q->outstanding - 1);
	WRITE_ONCE(ndev->outstanding, ndev->outstanding - 1);
	/*
	 * The timeout of the next job runs from now, but only if this job was
	 * ahead of it: a job completing out of order must not restart the
	 * clock of a head that may be stuck.
	 */
	next = list_first_entry_or_null(&q->jobs, struct npu_job, pe_node);
	if (next && was_head)
		next->head_ns = now;

	job->complete_ns = now;
	job->status = status;
	job->op_index = op_index;
	job->start_tick = start_tick;
	job->end_tick = end_tick;
	npu_job_count_locked(ndev, job);
	npu_trace_job_completed_locked(ndev, job);
	npu_nl_job_event(ndev, job);
	for (i = 0; i < job->nbufs; i++)
		npu_bo_put_for(job->bos[i], NPU_TRACE_BO_FREE_JOB);
	job->nbufs = 0;

	if (job->ucmd) {
		xa_erase(&nf->jobs, job->id);
		nf->njobs--;
		npu_uring_job_done_locked(job);
		return;
	}
	if (!nf) {
		/* The file was closed: nobody will collect the result. */
		npu_job_free(job);
		return;
	}
	job->done = true;
	list_add_tail(&job->done_node, &nf->done);
	nf->outstanding--;
	/* Read locklessly by npu_job_wait_ioctl()'s wait condition. */
	WRITE_ONCE(nf->done_seq, nf->done_seq + 1);
}

/* The outstanding job @id, on PE @pe or any other; jobs_lock held. */
static struct npu_job *npu_job_find_locked(struct npu_dev *ndev, u32 pe, u64 id)
{
	struct npu_job *job;
	u32 p;

	lockdep_assert_held(&ndev->jobs_lock);
	if (pe < ndev->hw.pe_count) {
		list_for_each_entry(job, &ndev->pe[pe].jobs, pe_node)
			if (job->id == id)
				return job;
	}
	/* The device named the wrong PE: look everywhere. */
	for (p = 0; p < ndev->hw.pe_count; p++) {
		list_for_each_entry(job, &ndev->pe[p].jobs, pe_node)
			if (job->id == id)
				return job;
	}
	return NULL;
}

/* Process every posted completion. jobs_lock held, inside npu_dev_enter. */
static unsigned int npu_job_drain_locked(struct npu_dev *ndev, bool reset)
{
	void __iomem *ptrs = npu_cplq_ptrs(ndev);
	struct npu_hw_cpl cpl;
	struct npu_job *job;
	unsigned int n = 0;
	u32 prod;

	lockdep_assert_held(&ndev->jobs_lock);
	prod = readl(ptrs + NPU_PTR_PROD);
	/*
	 * The device wrote these jobs' trace records before them. A reset
	 * may restart the trace area, and a flood may fill it: then its
	 * records are moved now; otherwise they are delivered a jiffy later
	 * (npu_trace_deliver_work()), off the path that wakes the waiters.
	 */
	if (reset || (npu_trace_on(ndev) && npu_tarea_filling(ndev)))
		npu_trace_drain(ndev);
	if (prod - ndev->cpl_cons > ndev->hw.cplq_entries) {
		/* After a reset the device may restart at 0: not an error. */
		if (!reset)
			ndev_err(ndev, "completion queue: producer %u, consumer %u: ignored\n",
				 prod, ndev->cpl_cons);
		return 0;
	}
	/* Entries are valid once the producer covers them. */
	rmb();
	while (ndev->cpl_cons != prod) {
		memcpy_fromio(&cpl, npu_cplq_entry(ndev, ndev->cpl_cons),
			      sizeof(cpl));
		ndev->cpl_cons++;
		job = npu_job_find_locked(ndev, cpl.pe, cpl.job_id);
		if (!job && (!cpl.job_id || cpl.job_id > ndev->next_job_id)) {
			ndev->spurious++;
			trace_npu_device_fault(ndev->id, NPU_FAULT_SPURIOUS_CPL,
					       cpl.job_id);
			dev_warn_ratelimited(&ndev->pdev->dev,
					     "completion for job %llu, which was never submitted, ignored (%llu so far)\n",
					     cpl.job_id, ndev->spurious);
			continue;
		}
		if (!job) {
			/* E.g. a job the host already failed at reset. */
			ndev_dbg(ndev, "completion of unknown job %llu ignored\n",
				 cpl.job_id);
			continue;
		}
		npu_job_complete_locked(ndev, job, cpl.status, cpl.op_index,
					cpl.start_tick, cpl.end_tick);
		n++;
	}
	writel(ndev->cpl_cons, ptrs + NPU_PTR_CONS);
	return n;
}

static void npu_job_wake(struct npu_dev *ndev)
{
	wake_up_all(&ndev->done_wq);
	wake_up_all(&ndev->space_wq);
}

/**
 * npu_job_cpl_work() - drain the completion queue (NPU_MSIX_CPL's work)
 * @work: npu_dev.cpl_work
 *
 * Queued by the vector's hard handler (npu_drv.c says why not a threaded
 * one); a raise while it runs queues it once more.
 */
void npu_job_cpl_work(struct work_struct *work)
{
	struct npu_dev *ndev = container_of(work, struct npu_dev, cpl_work);
	int idx;

	if (!npu_dev_enter(ndev, &idx))
		return;
	npu_hw_ack_intr(ndev, NPU_INTR_CPL);
	/*
	 * The clear before the producer read: the device merges completions
	 * into a raise whose cause bit is still set (hw.rst, "Interrupts").
	 */
	mb();
	mutex_lock(&ndev->jobs_lock);
	if (npu_job_drain_locked(ndev, false))
		npu_job_wake(ndev);
	mutex_unlock(&ndev->jobs_lock);
	npu_dev_exit(ndev, idx);
}

/* ------------------------------------------------------------------------
 * timeout and reset
 */

/*
 * Fail every outstanding job; one marked expired gets NPU_JOB_TIMEOUT.
 * jobs_lock held.
 */
static void npu_job_fail_all_locked(struct npu_dev *ndev)
{
	struct npu_job *job, *tmp;
	u32 pe;

	lockdep_assert_held(&ndev->jobs_lock);
	for (pe = 0; pe < ndev->hw.pe_count; pe++) {
		list_for_each_entry_safe(job, tmp, &ndev->pe[pe].jobs, pe_node)
			npu_job_complete_locked(ndev, job, NPU_JOB_ABORTED,
						NPU_HW_NO_OP_INDEX, 0, 0);
	}
}

/*
 * Reset the device and restart its queues. jobs_lock held, inside
 * npu_dev_enter. @expired is the job that timed out, or NULL.
 */
static void npu_job_reset_locked(struct npu_dev *ndev,
				 struct npu_job *expired, const char *why)
{
	struct npu_mbox_result res;
	int ret;

	lockdep_assert_held(&ndev->jobs_lock);
	ndev->resets++;
	npu_nl_reset_event(ndev);
	if (expired) {
		expired->expired = true;
		ndev_warn(ndev, "reset: %s: job %llu on PE %u (pid %d)\n", why,
			  expired->id, expired->pe, expired->tgid);
	} else {
		ndev_warn(ndev, "reset: %s\n", why);
	}

	ret = npu_mbox_call(ndev, NPU_MBOX_RESET, 0, &res);
	if (ret || res.result != NPU_MBOX_OK)
		ndev_err(ndev, "reset request failed (%d, result %u)\n", ret,
			 ret ? 0 : res.result);
	if (ret == -ENODEV)
		return;	/* unplugged: npu_job_dev_unplug() fails the jobs */
	if (ret == -ETIMEDOUT && !ndev->dead) {
		WRITE_ONCE(ndev->dead, true);
		trace_npu_device_fault(ndev->id, NPU_FAULT_DEAD, 0);
		ndev_err(ndev, "device does not answer: marked dead, jobs and mailbox requests fail with EIO until it is bound again\n");
	}

	/*
	 * Completions posted before the reset took effect are real results,
	 * aborted ones included; deliver them. The device may also have
	 * restarted its pointers, which the drain detects and skips. Jobs
	 * still outstanding after that will never complete: fail them.
	 * @expired may be freed by the drain (a job of a closed file, or of a
	 * cancelled or completed io_uring command): it is marked above.
	 */
	npu_job_drain_locked(ndev, true);
	npu_job_fail_all_locked(ndev);
	npu_job_resync_locked(ndev);
	npu_job_wake(ndev);
}

/*
 * The oldest job of a PE that has run past job_timeout_ms, or NULL and the
 * next deadline in *@next_deadline (U64_MAX: none). jobs_lock held.
 */
static struct npu_job *npu_job_find_expired_locked(struct npu_dev *ndev,
						   u64 now, u64 *next_deadline)
{
	u64 timeout_ns = (u64)READ_ONCE(job_timeout_ms) * NSEC_PER_MSEC;
	struct npu_job *head;
	u32 pe;

	lockdep_assert_held(&ndev->jobs_lock);
	*next_deadline = U64_MAX;
	if (!timeout_ns)
		return NULL;
	for (pe = 0; pe < ndev->hw.pe_count; pe++) {
		head = list_first_entry_or_null(&ndev->pe[pe].jobs,
						struct npu_job, pe_node);
		if (!head)
			continue;
		if (now - head->head_ns >= timeout_ns)
			return head;
		*next_deadline = min(*next_deadline, head->head_ns + timeout_ns);
	}
	return NULL;
}

static void npu_job_arm_timeout(struct npu_dev *ndev, u64 deadline,
				u64 now)
{
	unsigned long delay;

	if (deadline == U64_MAX)
		return;
	delay = nsecs_to_jiffies(deadline > now ? deadline - now : 0) + 1;
	queue_delayed_work(system_wq, &ndev->timeout_work, delay);
}

static void npu_job_timeout_work(struct work_struct *work)
{
	struct npu_dev *ndev = container_of(to_delayed_work(work),
					       struct npu_dev, timeout_work);
	struct npu_job *expired;
	u64 now, next;
	int idx;

	if (!npu_dev_enter(ndev, &idx))
		return;
	mutex_lock(&ndev->jobs_lock);
	/* Results that arrived are not timeouts. */
	if (npu_job_drain_locked(ndev, false))
		npu_job_wake(ndev);
	now = ktime_get_ns();
	expired = npu_job_find_expired_locked(ndev, now, &next);
	if (expired) {
		npu_job_reset_locked(ndev, expired, "job timeout");
		now = ktime_get_ns();
		npu_job_find_expired_locked(ndev, now, &next);
	}
	npu_job_arm_timeout(ndev, next, now);
	mutex_unlock(&ndev->jobs_lock);
	npu_dev_exit(ndev, idx);
}

/**
 * npu_job_device_error() - the device reported a fatal error: reset it
 * @ndev: the device, inside npu_dev_enter()
 */
void npu_job_device_error(struct npu_dev *ndev)
{
	mutex_lock(&ndev->jobs_lock);
	npu_job_drain_locked(ndev, false);
	npu_job_reset_locked(ndev, NULL, "device fault");
	mutex_unlock(&ndev->jobs_lock);
}

/* ------------------------------------------------------------------------
 * device and file setup
 */

/**
 * npu_job_dev_init() - initialize the job state of a device
 * @ndev: the device
 *
 * Touches no hardware. Called before the interrupts are requested: the
 * completion and error handlers take jobs_lock and walk the PE lists.
 */
void npu_job_dev_init(struct npu_dev *ndev)
{
	u32 pe;

	mutex_init(&ndev->jobs_lock);
	init_waitqueue_head(&ndev->done_wq);
	init_waitqueue_head(&ndev->space_wq);
	INIT_DELAYED_WORK(&ndev->timeout_work, npu_job_timeout_work);
	for (pe = 0; pe < NPU_HW_MAX_PES; pe++)
		INIT_LIST_HEAD(&ndev->pe[pe].jobs);
}

/**
 * npu_job_dev_start() - start every queue empty at the device's position
 * @ndev: the device, just reset, not yet enabled
 */
void npu_job_dev_start(struct npu_dev *ndev)
{
	mutex_lock(&ndev->jobs_lock);
	npu_job_resync_locked(ndev);
	mutex_unlock(&ndev->jobs_lock);
}

/**
 * npu_job_dev_unplug() - fail every job of a removed device
 * @ndev: the device, already marked unplugged, with no file operation
 *	inside npu_dev_enter() any more
 */
void npu_job_dev_unplug(struct npu_dev *ndev)
{
	cancel_delayed_work_sync(&ndev->timeout_work);
	mutex_lock(&ndev->jobs_lock);
	npu_job_fail_all_locked(ndev);
	mutex_unlock(&ndev->jobs_lock);
	npu_job_wake(ndev);
}

/**
 * npu_job_file_init() - initialize the job state of a file being opened
 * @nf: the file
 */
void npu_job_file_init(struct npu_file *nf)
{
	xa_init(&nf->jobs);
	INIT_LIST_HEAD(&nf->done);
}

/**
 * npu_job_file_fini() - detach the jobs of a file being closed
 * @nf: the file
 *
 * Collected results are freed; outstanding jobs stay queued with their
 * buffers and are freed when they complete.
 */
void npu_job_file_fini(struct npu_file *nf)
{
	struct npu_dev *ndev = nf->ndev;
	struct npu_job *job;
	unsigned long id;

	/*
	 * An io_uring command holds a reference to the file until its CQE is
	 * posted, so none should be left; whatever is, completes here.
	 */
	npu_job_uring_cancel(nf, NULL);
	mutex_lock(&ndev->jobs_lock);
	xa_for_each(&nf->jobs, id, job) {
		xa_erase(&nf->jobs, id);
		if (job->done) {
			list_del(&job->done_node);
			npu_job_free(job);
		} else {
			job->nf = NULL;
		}
	}
	mutex_unlock(&ndev->jobs_lock);
	xa_destroy(&nf->jobs);
}

/* ------------------------------------------------------------------------
 * submit
 */

static bool npu_pe_has_room(struct npu_dev *ndev, u32 pe)
{
	return READ_ONCE(ndev->pe[pe].outstanding) < ndev->hw.cmdq_entries;
}

/* A PE that can take a job now, or -1. jobs_lock held or lockless hint. */
static int npu_job_pick_pe(struct npu_dev *ndev, u32 want)
{
	u32 i, pe, best = U32_MAX, best_load = U32_MAX, load;

	if (READ_ONCE(ndev->outstanding) >= ndev->hw.cplq_entries)
		return -1;
	if (want != NPU_PE_ANY)
		return npu_pe_has_room(ndev, want) ? want : -1;
	/* Least loaded; ties go round robin. */
	for (i = 0; i < ndev->hw.pe_count; i++) {
		pe = (READ_ONCE(ndev->pe_rr) + i) % ndev->hw.pe_count;
		load = READ_ONCE(ndev->pe[pe].outstanding);
		if (load < ndev->hw.cmdq_entries && load < best_load) {
			best = pe;
			best_load = load;
		}
	}
	return best == U32_MAX ? -1 : best;
}

#ifdef CONFIG_BLOCK
/*
 * The plug callback of a batch of io_uring commands: ring the doorbell
 * that npu_job_push_locked() deferred. Runs in the submitting task, at the
 * end of the batch or before it sleeps (@from_schedule: inside schedule(),
 * so no sleeping). The batch's commands hold their files, and the files
 * hold the device, so @cb->data is valid; the hardware may be gone
 * (unplug).
 */
static void npu_job_plug_flush(struct blk_plug_cb *cb, bool from_schedule)
{
	struct npu_dev *ndev = cb->data;
	int idx;

	if (npu_dev_enter(ndev, &idx)) {
		npu_doorbell(ndev, NPU_DB_QUEUE);
		npu_dev_exit(ndev, idx);
	}
	kfree(cb);
}

/* Leave the doorbell to the plug the submitter holds, if it holds one. */
static bool npu_job_defer_doorbell(struct npu_dev *ndev)
{
	return blk_check_plugged(npu_job_plug_flush, ndev,
				 sizeof(struct blk_plug_cb));
}
#else
/* Without CONFIG_BLOCK there is no plug: every job rings at once. */
static bool npu_job_defer_doorbell(struct npu_dev *ndev)
{
	return false;
}
#endif

/*
 * Ring NPU_DB_QUEUE for a job just made visible, or leave it to the plug
 * callback of the io_uring submission batch the job is part of.
 */
static void npu_job_ring(struct npu_dev *ndev, const struct npu_job *job)
{
	if (job->ucmd && npu_job_defer_doorbell(ndev))
		return;
	npu_doorbell(ndev, NPU_DB_QUEUE);
}

/* Make @job visible to the device on a PE. jobs_lock held. */
static void npu_job_push_locked(struct npu_dev *ndev, struct npu_job *job,
				struct npu_hw_cmd *cmd)
{
	struct npu_pe_queue *q = &ndev->pe[job->pe];
	void __iomem *ptrs = npu_cmdq_ptrs(ndev, job->pe);
	u64 next;

	lockdep_assert_held(&ndev->jobs_lock);
	memcpy_toio(npu_cmdq_entry(ndev, job->pe, q->prod), cmd, sizeof(*cmd));
	job->submit_ns = ktime_get_ns();
	if (list_empty(&q->jobs))
		job->head_ns = job->submit_ns;
	list_add_tail(&job->pe_node, &q->jobs);
	/* Read locklessly by npu_job_pick_pe(). */
	WRITE_ONCE(q->outstanding, q->outstanding + 1);
	WRITE_ONCE(ndev->outstanding, ndev->outstanding + 1);
	/* NPU_WAIT_ANY waits for these; an io_uring job posts a CQE instead. */
	if (!job->ucmd)
		job->nf->outstanding++;
	npu_trace_job_submitted_locked(ndev, job);
	q->prod++;
	/* writel() orders the entry before the producer, and both before
	 * the doorbell.
	 */
	writel(q->prod, ptrs + NPU_PTR_PROD);
	npu_job_ring(ndev, job);

	if (!delayed_work_pending(&ndev->timeout_work)) {
		/*
		 * A head may have expired already, e.g. while job_timeout_ms
		 * was 0: check at once.
		 */
		if (npu_job_find_expired_locked(ndev, job->submit_ns, &next))
			next = job->submit_ns;
		npu_job_arm_timeout(ndev, next, job->submit_ns);
	}
}

static int npu_job_queue(struct npu_file *nf, struct npu_job *job,
			 struct npu_hw_cmd *cmd, u32 want, bool nonblock,
			 u64 *id)
{
	struct npu_dev *ndev = nf->ndev;
	unsigned int limit;
	int pe, ret;

	mutex_lock(&ndev->jobs_lock);
	for (;;) {
		if (ndev->dead) {
			mutex_unlock(&ndev->jobs_lock);
			return -EIO;
		}
		limit = READ_ONCE(max_file_jobs);
		if (limit && nf->njobs >= limit) {
			/* Sleeping would not help: only this file's WAIT does. */
			mutex_unlock(&ndev->jobs_lock);
			return -EBUSY;
		}
		pe = npu_job_pick_pe(ndev, want);
		if (pe >= 0)
			break;
		mutex_unlock(&ndev->jobs_lock);
		if (nonblock)
			return -EAGAIN;
		ret = wait_event_interruptible(ndev->space_wq,
					       npu_job_pick_pe(ndev, want) >= 0 ||
					       npu_dev_unplugged(ndev) ||
					       npu_dev_dead(ndev));
		if (ret)
			return ret;
		if (npu_dev_unplugged(ndev))
			return -ENODEV;
		mutex_lock(&ndev->jobs_lock);
	}

	job->id = ++ndev->next_job_id;
	ret = xa_insert(&nf->jobs, job->id, job, GFP_KERNEL);
	if (ret) {
		mutex_unlock(&ndev->jobs_lock);
		return ret;
	}
	if (job->ucmd) {
		xa_set_mark(&nf->jobs, job->id, NPU_JOB_XA_URING);
		npu_uring_job_queued_locked(job);
	}
	nf->njobs++;
	job->pe = pe;
	WRITE_ONCE(ndev->pe_rr, (pe + 1) % ndev->hw.pe_count);
	cmd->job_id = job->id;
	cmd->exec_index = (u32)job->id;
	*id = job->id;
	npu_job_push_locked(ndev, job, cmd);
	mutex_unlock(&ndev->jobs_lock);
	return 0;
}

/**
 * npu_job_submit() - check and queue a job: NPU_IOCTL_SUBMIT and io_uring's
 *	NPU_URING_CMD_SUBMIT
 * @nf: the file, inside npu_dev_enter()
 * @desc: the job, in kernel memory (the reserved fields of the struct
 *	holding it already checked); @desc->bufs still points to user memory
 * @task: the submitting thread (current, or an io_uring command's task)
 * @ucmd: the io_uring command that completes with the job, or NULL
 * @nonblock: fail with -EAGAIN instead of sleeping for queue room
 * @id: out: the job id
 *
 * The one submission path: both interfaces get the same checks, job ids,
 * trace records and tracepoints.
 *
 * Return: 0 or a negative errno (see struct npu_job_desc).
 */
int npu_job_submit(struct npu_file *nf, const struct npu_job_desc *desc,
		   struct task_struct *task, struct io_uring_cmd *ucmd,
		   bool nonblock, u64 *id)
{
	struct npu_dev *ndev = nf->ndev;
	u32 handles[NPU_MAX_JOB_BUFS];
	struct npu_hw_cmd cmd;
	struct npu_job *job;
	u32 i, j;
	int ret;

	/* the ABI's limit, which the command's buffer table can hold */
	static_assert(NPU_MAX_JOB_BUFS <= NPU_HW_MAX_BUFS);
	if (desc->flags)
		return -EINVAL;
	if (!desc->nbufs || desc->nbufs > NPU_MAX_JOB_BUFS ||
	    desc->prog_slot >= desc->nbufs)
		return -EINVAL;
	if (!desc->prog_size || !IS_ALIGNED(desc->prog_offset, 64))
		return -EINVAL;
	if (desc->pe != NPU_PE_ANY && desc->pe >= ndev->hw.pe_count)
		return -EINVAL;
	if (copy_from_user(handles, u64_to_user_ptr(desc->bufs),
			   desc->nbufs * sizeof(handles[0])))
		return -EFAULT;
	for (i = 0; i < desc->nbufs; i++)
		for (j = i + 1; j < desc->nbufs; j++)
			if (handles[i] == handles[j])
				return -EINVAL;

	/* Charged to the submitter's memory cgroup: it may wait uncollected. */
	job = kzalloc(sizeof(*job), GFP_KERNEL_ACCOUNT);
	if (!job)
		return -ENOMEM;
	memset(&cmd, 0, sizeof(cmd));
	for (i = 0; i < desc->nbufs; i++) {
		job->bos[i] = npu_bo_lookup(nf, handles[i]);
		if (!job->bos[i]) {
			ret = -ENOENT;
			goto err;
		}
		job->nbufs++;
		cmd.bufs[i].addr = job->bos[i]->dev_addr;
		cmd.bufs[i].size = job->bos[i]->size;
	}
	if ((u64)desc->prog_offset + desc->prog_size >
	    job->bos[desc->prog_slot]->size) {
		ret = -EINVAL;
		goto err;
	}
	cmd.nbufs = desc->nbufs;
	cmd.prog_buf = desc->prog_slot;
	cmd.prog_offset = desc->prog_offset;
	cmd.prog_size = desc->prog_size;
	job->nf = nf;
	job->ucmd = ucmd;
	/* files of the thread that closes: npu_job_uring_cancel() */
	job->owner = current->files;
	job->tgid = task_tgid_nr(task);
	job->pid = task_pid_nr(task);
	job->tgid_ref = get_pid(task_tgid(task));
	job->tid_ref = get_pid(task_pid(task));

	ret = npu_job_queue(nf, job, &cmd, desc->pe, nonblock, id);
	if (ret)
		goto err;
	/* From here the job may already be complete and collected. */
	return 0;

err:
	npu_job_free(job);
	return ret;
}

/**
 * npu_job_submit_ioctl() - NPU_IOCTL_SUBMIT
 * @nf: the file, inside npu_dev_enter()
 * @uarg: struct npu_submit in user memory
 *
 * Return: 0 or a negative errno (see struct npu_submit).
 */
int npu_job_submit_ioctl(struct npu_file *nf, void __user *uarg)
{
	struct npu_submit args;
	u64 id;
	int ret;

	ret = npu_copy_args(&args, uarg);
	if (ret)
		return ret;
	ret = npu_job_submit(nf, &args.job, current, NULL,
			     nf->filp->f_flags & O_NONBLOCK, &id);
	if (ret)
		return ret;
	args.job_id = id;
	if (copy_to_user(uarg, &args, sizeof(args)))
		return -EFAULT;
	return 0;
}

/**
 * npu_job_uring_cancel() - cancel the io_uring commands of a file
 * @nf: the file
 * @owner: cancel the commands submitted by threads with these files (the
 *	closer's, as close() drops its POSIX locks), or NULL for all
 *
 * Each command completes with -ECANCELED; its job stays on the device,
 * detached from the file, and is freed at completion with its buffers.
 */
void npu_job_uring_cancel(struct npu_file *nf, fl_owner_t owner)
{
	struct npu_dev *ndev = nf->ndev;
	struct npu_job *job;
	unsigned long id;

	mutex_lock(&ndev->jobs_lock);
	xa_for_each_marked(&nf->jobs, id, job, NPU_JOB_XA_URING) {
		if (owner && job->owner != owner)
			continue;
		npu_uring_job_cancel_locked(job);
		npu_job_uring_detach_locked(job);
	}
	mutex_unlock(&ndev->jobs_lock);
}

/**
 * npu_job_uring_detach_locked() - detach a job from its cancelled command
 * @job: the job, outstanding, with its command; jobs_lock held
 *
 * The job stays on the device with its buffers and is freed at completion,
 * as a job of a closed file is.
 */
void npu_job_uring_detach_locked(struct npu_job *job)
{
	struct npu_file *nf = job->nf;

	lockdep_assert_held(&nf->ndev->jobs_lock);
	xa_erase(&nf->jobs, job->id);
	nf->njobs--;
	job->ucmd = NULL;
	job->nf = NULL;
}

/* ------------------------------------------------------------------------
 * wait and poll
 */

/*
 * The collectable job @args asks for, or NULL; *err when there is none.
 * jobs_lock held.
 */
static struct npu_job *npu_job_take_locked(struct npu_file *nf,
					   const struct npu_wait *args,
					   int *err)
{
	struct npu_job *job;

	lockdep_assert_held(&nf->ndev->jobs_lock);
	*err = 0;
	if (args->flags & NPU_WAIT_ANY) {
		job = list_first_entry_or_null(&nf->done, struct npu_job,
					       done_node);
		if (!job && !nf->outstanding)
			*err = -ENOENT;
	} else {
		job = xa_load(&nf->jobs, args->job_id);
		/* io_uring jobs complete in the ring, never here */
		if (!job || job->ucmd) {
			*err = -ENOENT;
			job = NULL;
		} else if (!job->done) {
			job = NULL;
		}
	}
	if (job) {
		list_del(&job->done_node);
		xa_erase(&nf->jobs, job->id);
		nf->njobs--;
	}
	return job;
}

/*
 * A wait interrupted by a signal: write the time left back into the
 * caller's timeout_ns, as select() updates its timeval, and let the signal
 * code restart the call (no handler, or SA_RESTART) or return -EINTR. A
 * plain retry of the same struct then continues where the wait stopped,
 * so a storm of signals cannot stretch a timed wait for ever. When the
 * time left cannot be written back, the call must not be restarted with
 * the full timeout: it fails with -EINTR, as select() does then.
 */
static int npu_job_wait_interrupted(struct npu_wait __user *uarg,
				    s64 timeout_ns, u64 deadline_ns)
{
	u64 now = ktime_get_ns();
	s64 left;

	if (timeout_ns < 0)
		return -ERESTARTSYS;	/* no timeout to update */
	left = deadline_ns > now ? deadline_ns - now : 0;
	if (put_user(left, &uarg->timeout_ns))
		return -EINTR;
	return -ERESTARTSYS;
}

/**
 * npu_job_wait_ioctl() - NPU_IOCTL_WAIT
 * @nf: the file, inside npu_dev_enter()
 * @uarg: struct npu_wait in user memory
 *
 * A signal ends the wait with -ERESTARTSYS (restarted, or -EINTR for a
 * handler without SA_RESTART) after the time left was written back to
 * @uarg->timeout_ns; see npu_job_wait_interrupted().
 *
 * Return: 0 or a negative errno (see struct npu_wait).
 */
int npu_job_wait_ioctl(struct npu_file *nf, void __user *uarg)
{
	struct npu_dev *ndev = nf->ndev;
	struct npu_job *job = NULL;
	struct npu_wait args;
	u64 deadline = 0;
	long left;
	u64 seq;
	int ret;

	ret = npu_copy_args(&args, uarg);
	if (ret)
		return ret;
	if (args.flags & ~NPU_WAIT_ANY)
		return -EINVAL;
	if (args.timeout_ns < 0) {
		left = MAX_SCHEDULE_TIMEOUT;
	} else {
		deadline = ktime_get_ns() + args.timeout_ns;
		left = min_t(u64, nsecs_to_jiffies64(args.timeout_ns),
			     MAX_SCHEDULE_TIMEOUT - 1);
		if (args.timeout_ns && !left)
			left = 1;
	}

	for (;;) {
		mutex_lock(&ndev->jobs_lock);
		job = npu_job_take_locked(nf, &args, &ret);
		seq = nf->done_seq;
		mutex_unlock(&ndev->jobs_lock);
		if (job || ret)
			break;
		if (!left) {
			ret = -ETIMEDOUT;
			break;
		}
		left = wait_event_interruptible_timeout(ndev->done_wq,
							READ_ONCE(nf->done_seq) != seq ||
							npu_dev_unplugged(ndev),
							left);
		if (left < 0) {
			ret = npu_job_wait_interrupted(uarg, args.timeout_ns,
						       deadline);
			break;
		}
		if (npu_dev_unplugged(ndev)) {
			ret = -ENODEV;
			break;
		}
	}
	if (!job)
		return ret;

	npu_job_result(job, &args.result);
	npu_job_free(job);
	if (copy_to_user(uarg, &args, sizeof(args)))
		return -EFAULT;
	return 0;
}

/**
 * npu_job_poll() - poll() of /dev/npuN
 * @nf: the file
 * @filp: the struct file
 * @wait: poll table
 *
 * Return: EPOLLIN when a result of this file awaits NPU_IOCTL_WAIT,
 * EPOLLOUT when a job could be queued without blocking, EPOLLERR (and no
 * EPOLLOUT) when the device is dead.
 */
__poll_t npu_job_poll(struct npu_file *nf, struct file *filp,
		      poll_table *wait)
{
	struct npu_dev *ndev = nf->ndev;
	__poll_t mask = 0;

	poll_wait(filp, &ndev->done_wq, wait);
	poll_wait(filp, &ndev->space_wq, wait);
	if (npu_dev_unplugged(ndev))
		return EPOLLERR | EPOLLHUP;
	if (!list_empty_careful(&nf->done))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (npu_dev_dead(ndev))
		return mask | EPOLLERR;
	if (npu_job_pick_pe(ndev, NPU_PE_ANY) >= 0)
		mask |= EPOLLOUT | EPOLLWRNORM;
	return mask;
}
