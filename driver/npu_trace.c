// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_trace.c - hardware trace: trace fds and their rings, the device's
 * trace area, the job hooks and periodic clock records.
 * Documentation/npu/ring.rst is the contract with userspace.
 *
 * One spinlock per device (npu_trace_dev.lock) covers the list of rings,
 * every ring's producer side, the table of traced jobs and the device's
 * trace area, so records reach each ring in one order whatever context
 * produced them (interrupt threads, ioctls, the clock work). ctl_lock
 * serializes enable/disable and the device trace level; it may sleep.
 *
 * Lock order: npu_dev.jobs_lock -> npu_trace_dev.lock (the job hooks
 * and the drain run in the completion path with jobs_lock held);
 * ctl_lock -> npu_dev.mbox_lock (clock samples) and ctl_lock ->
 * npu_trace_dev.lock. Nothing is taken under npu_trace_dev.lock.
 *
 * Lifetime: the device holds a reference on its npu_trace_dev (dropped by
 * devres after the interrupts are freed) and every trace fd holds one,
 * plus a reference on the npu_dev. The ring memory belongs to the trace
 * fd and is freed when the last mapping and the file are gone (a mapping
 * holds the file).
 *
 * Scope: a ring holds a reference on its opener's struct pid (the thread
 * group) and on the opener's PID namespace; a traced job's entry holds
 * references on its submitter's struct pids (process and thread). Rings
 * compare struct pid pointers, never pid numbers: a number can be reused
 * once its process is reaped, a struct pid cannot.
 *
 * Memory: a ring's pages are charged to the memory cgroup of the opener
 * (__GFP_ACCOUNT) and to the opener's user as perf charges its buffers:
 * first a per-user allowance (trace_mlock_kb, npu_trace_mlock_lock), the
 * rest to user_struct.locked_vm against RLIMIT_MEMLOCK unless
 * CAP_IPC_LOCK. The charge is taken at TRACE_OPEN and given back when the
 * ring is freed.
 */

#include <linux/anon_inodes.h>
#include <linux/capability.h>
#include <linux/file.h>
#include <linux/hashtable.h>
#include <linux/io.h>
#include <linux/kref.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include <linux/npu.h>

#include "npu_clock.h"
#include "npu_compat.h"
#include "npu_drv.h"
#include "npu_hwif.h"
#include "npu_job.h"
#include "npu_trace.h"
#include "npu_trace_points.h"

static unsigned int trace_paranoid = 1;
module_param(trace_paranoid, uint, 0644);
MODULE_PARM_DESC(trace_paranoid,
		 "Who may open a trace fd with NPU_TRACE_ALL_PROCESSES: 0 anyone, 1 CAP_PERFMON or CAP_SYS_ADMIN (default 1)");

static unsigned int clock_period_ms = 100;
module_param(clock_period_ms, uint, 0644);
MODULE_PARM_DESC(clock_period_ms,
		 "Period of CLOCK records in enabled trace rings (ms, 0 = only at enable; default 100)");

static unsigned int clock_samples = 8;
module_param(clock_samples, uint, 0644);
MODULE_PARM_DESC(clock_samples,
		 "Bracketed samples per CLOCK record; the narrowest is kept (1..32, default 8)");

static unsigned int trace_mlock_kb = 516;
module_param(trace_mlock_kb, uint, 0644);
MODULE_PARM_DESC(trace_mlock_kb,
		 "Ring memory each user may hold before RLIMIT_MEMLOCK applies (KiB, default 516, as perf_event_mlock_kb)");

static atomic64_t npu_trace_ring_ids = ATOMIC64_INIT(0);

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

#define NPU_TRACE_JOB_BITS	8
#define NPU_TRACE_NR_REASONS	(NPU_TRACE_LOST_HOST + 1)

/*
 * Host context of a job submitted while a ring was enabled. @tgid and @tid
 * are the submitter's process and thread (references held).
 */
struct npu_trace_jobent {
	struct hlist_node node;
	u64 job_id;
	struct pid *tgid;
	struct pid *tid;
	bool started;
	bool have_exec;
	struct npu_hw_trec_exec exec;
};

/**
 * struct npu_trace_dev - trace state of one device
 * @ref: held by the device (until devres) and by every trace fd
 * @ndev: the device; valid while @ref is held by the device or a trace fd
 * @lock: rings, their producer side, @jobs, the trace area, @dead
 * @rings: every open ring of the device (struct npu_tring)
 * @nr_enabled: enabled rings; npu_dev.trace_rings mirrors it for the
 *	job path's lockless test
 * @dead: the device is gone: no more records, no hardware access
 * @ctl_lock: serializes enable/disable and @dev_level
 * @dev_level: trace level written to NPU_REG_CONTROL
 * @jobs: traced jobs in flight, by job id
 * @dev_lost_seen: npu_hw_trace_hdr.lost at the last drain
 * @area_size: bytes of the device trace area's data part (0: no trace)
 * @clock_work: periodic CLOCK records
 */
struct npu_trace_dev {
	struct kref ref;
	struct npu_dev *ndev;
	spinlock_t lock;	/* see above */
	struct list_head rings;
	unsigned int nr_enabled;
	bool dead;
	struct mutex ctl_lock;	/* enable/disable, device level */
	u32 dev_level;
	DECLARE_HASHTABLE(jobs, NPU_TRACE_JOB_BITS);
	u64 dev_lost_seen;
	u32 area_size;
	struct delayed_work clock_work;
};

/**
 * struct npu_tring - one trace fd
 * @node: entry in npu_trace_dev.rings
 * @tdev: the device's trace state (a reference is held)
 * @ndev: the device (a reference is held)
 * @hdr: header page, followed by the data pages (@pages mapped with vmap)
 * @data: first data page
 * @data_size: bytes of data, a power of two
 * @pages: the header page and the data pages, charged to the opener's
 *	memory cgroup
 * @nr_pages: pages allocated in @pages
 * @user: the opener's user (a reference is held), charged for the ring
 * @allow_pages: pages charged to the user's trace_mlock_kb allowance
 * @locked_pages: pages charged to @user's locked_vm
 * @prod: producer position; the copy in @hdr is only ever written
 * @seq: next record sequence number
 * @watermark: poll() threshold in bytes
 * @owner: the opener's thread group (a reference is held): the process
 *	whose jobs the ring receives, unless @all
 * @pid_ns: the opener's PID namespace (a reference is held): pids in the
 *	ring's records are numbers in it
 * @all: NPU_TRACE_ALL_PROCESSES
 * @enabled: receiving records
 * @dead: the device is gone
 * @level: level of the last ENABLE
 * @id: ring id for the npu_trace_lost tracepoint and fdinfo
 * @pend: dropped records not yet reported, by NPU_TRACE_LOST_* reason
 * @n_records: records written (not PAD)
 * @n_lost: records dropped because the ring was full
 * @n_dev_lost: device losses reported to the ring
 * @n_host_lost: host losses reported to the ring
 * @n_clock: CLOCK records written
 * @wq: poll() waiters
 */
struct npu_tring {
	struct list_head node;
	struct npu_trace_dev *tdev;
	struct npu_dev *ndev;
	struct npu_trace_ring *hdr;
	u8 *data;
	u64 data_size;
	struct page **pages;
	unsigned int nr_pages;
	struct user_struct *user;
	unsigned long allow_pages;
	unsigned long locked_pages;
	u64 prod;
	u32 seq;
	u32 watermark;
	struct pid *owner;
	struct pid_namespace *pid_ns;
	bool all;
	bool enabled;
	bool dead;
	u32 level;
	u64 id;
	u64 pend[NPU_TRACE_NR_REASONS];
	u64 n_records;
	u64 n_lost;
	u64 n_dev_lost;
	u64 n_host_lost;
	u64 n_clock;
	wait_queue_head_t wq;
};

/* The record sizes are ABI (Documentation/npu/ring.rst). */
static_assert(sizeof(struct npu_trace_ring) == 256);
static_assert(sizeof(struct npu_trace_rec_hdr) == 8);
static_assert(sizeof(struct npu_trace_rec_exec) == 112);
static_assert(sizeof(struct npu_trace_rec_op) == 80);
static_assert(sizeof(struct npu_trace_rec_clock) == 56);
static_assert(sizeof(struct npu_trace_rec_lost) == 24);

/* Zero a record (no stack bytes reach the ring) and fill its header. */
static void npu_trace_rec_init(void *rec, u16 type, u16 size)
{
	struct npu_trace_rec_hdr *h = rec;

	memset(rec, 0, size);
	h->type = type;
	h->size = size;
}

static void npu_trace_dev_release(struct kref *ref)
{
	struct npu_trace_dev *tdev = container_of(ref, struct npu_trace_dev,
						  ref);

	mutex_destroy(&tdev->ctl_lock);
	kfree(tdev);
}

static void npu_trace_dev_put(struct npu_trace_dev *tdev)
{
	kref_put(&tdev->ref, npu_trace_dev_release);
}

/* ------------------------------------------------------------------------
 * Ring producer side; all with tdev->lock held.
 */

/* Unread bytes, or U64_MAX when the consumer position is inconsistent. */
static u64 tring_used(struct npu_tring *r)
{
	/*
	 * Acquire: pairs with the reader's release store of the consumer
	 * position, so its reads of the records are done before we reuse
	 * the space.
	 */
	u64 used = r->prod - smp_load_acquire(&r->hdr->consumer);

	return used > r->data_size ? U64_MAX : used;
}

/* Copy one record in, with a PAD record first if it would wrap. */
static bool tring_write(struct npu_tring *r, const void *rec, u32 size)
{
	u64 used = tring_used(r);
	u64 off = r->prod & (r->data_size - 1);
	u64 tail = r->data_size - off;
	u64 need = tail < size ? tail + size : size;

	if (used == U64_MAX || r->data_size - used < need)
		return false;
	if (tail < size) {
		struct npu_trace_rec_hdr pad = {
			.type = NPU_TRACE_REC_PAD,
			.size = tail,
		};

		memcpy(r->data + off, &pad, sizeof(pad));
		r->prod += tail;
		off = 0;
	}
	memcpy(r->data + off, rec, size);
	r->prod += size;
	/* The records are visible before the position that covers them. */
	smp_store_release(&r->hdr->producer, r->prod);
	return true;
}

static bool tring_lost_pending(struct npu_tring *r)
{
	u32 reason;

	for (reason = NPU_TRACE_LOST_RING_FULL; reason < NPU_TRACE_NR_REASONS;
	     reason++)
		if (r->pend[reason])
			return true;
	return false;
}

/*
 * poll() readability: a record is unread and the watermark is reached, or
 * records are being dropped. The second case matters when the watermark
 * is above what the ring can hold before its next record does not fit:
 * the reader would otherwise sleep while everything is lost.
 */
static bool tring_readable(struct npu_tring *r)
{
	u64 used = tring_used(r);

	if (!used || used == U64_MAX)
		return false;
	return used >= r->watermark || tring_lost_pending(r);
}

static void tring_wake(struct npu_tring *r)
{
	if (wq_has_sleeper(&r->wq) && tring_readable(r))
		wake_up_interruptible_poll(&r->wq, EPOLLIN | EPOLLRDNORM);
}

/* Write the pending LOST records; false when one does not fit yet. */
static bool tring_flush_lost(struct npu_tring *r)
{
	struct npu_trace_rec_lost rec;
	u32 reason;

	for (reason = NPU_TRACE_LOST_RING_FULL; reason < NPU_TRACE_NR_REASONS;
	     reason++) {
		if (!r->pend[reason])
			continue;
		npu_trace_rec_init(&rec, NPU_TRACE_REC_LOST, sizeof(rec));
		rec.hdr.seq = r->seq;
		rec.reason = reason;
		rec.count = r->pend[reason];
		if (!tring_write(r, &rec, sizeof(rec)))
			return false;
		r->seq++;
		r->n_records++;
		trace_npu_trace_lost(r->ndev->id, r->id, reason, rec.count);
		r->pend[reason] = 0;
	}
	return true;
}

/*
 * Offer one record to a ring. Pending LOST records go first; if they do
 * not fit, neither does this record. A dropped record takes its sequence
 * number, so the gap a reader sees equals the LOST count it reads.
 */
static void tring_emit(struct npu_tring *r, void *rec, u32 size)
{
	struct npu_trace_rec_hdr *h = rec;

	if (tring_flush_lost(r)) {
		h->seq = r->seq;
		if (tring_write(r, rec, size)) {
			r->seq++;
			r->n_records++;
			if (h->type == NPU_TRACE_REC_CLOCK)
				r->n_clock++;
			tring_wake(r);
			return;
		}
	}
	r->seq++;
	r->pend[NPU_TRACE_LOST_RING_FULL]++;
	r->n_lost++;
	/* Records are being lost: a reader below its watermark must run. */
	tring_wake(r);
}

/*
 * May @r receive the records of a job of process @tgid? Its own process's
 * (the same struct pid: a reused pid number is another struct pid) or,
 * with NPU_TRACE_ALL_PROCESSES, everyone's. A ring whose opener exited
 * receives the jobs submitted before, and no other: a dead process submits
 * nothing and its struct pid is never reused.
 */
static bool tring_sees(const struct npu_tring *r, const struct pid *tgid)
{
	return r->all || r->owner == tgid;
}

/*
 * Device or host losses: no sequence numbers. Device losses (@tgid NULL)
 * cannot be attributed and go to every enabled ring; a host loss goes to
 * the rings that would have received the job's records.
 */
static void npu_trace_report_lost(struct npu_trace_dev *tdev, u32 reason,
				  u64 count, const struct pid *tgid)
{
	struct npu_tring *r;

	lockdep_assert_held(&tdev->lock);
	list_for_each_entry(r, &tdev->rings, node) {
		if (!r->enabled || (tgid && !tring_sees(r, tgid)))
			continue;
		r->pend[reason] += count;
		if (reason == NPU_TRACE_LOST_DEVICE)
			r->n_dev_lost += count;
		else
			r->n_host_lost += count;
		tring_flush_lost(r);
		tring_wake(r);
	}
}

/*
 * A job's record to every enabled ring that may see it. @pid and @tid
 * point into @rec: each ring gets the submitter's numbers in its opener's
 * PID namespace, 0 where the submitter is not visible (as perf does).
 */
static void npu_trace_deliver(struct npu_trace_dev *tdev,
			      const struct npu_trace_jobent *ent, u32 min_level,
			      void *rec, u32 size, s32 *pid, s32 *tid)
{
	struct npu_tring *r;

	lockdep_assert_held(&tdev->lock);
	list_for_each_entry(r, &tdev->rings, node) {
		if (!r->enabled || r->level < min_level ||
		    !tring_sees(r, ent->tgid))
			continue;
		*pid = pid_nr_ns(ent->tgid, r->pid_ns);
		*tid = pid_nr_ns(ent->tid, r->pid_ns);
		tring_emit(r, rec, size);
	}
}

/* ------------------------------------------------------------------------
 * Jobs
 */

static struct npu_trace_jobent *npu_trace_job_find(struct npu_trace_dev *tdev,
						   u64 job_id)
{
	struct npu_trace_jobent *ent;

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

static void npu_trace_jobs_flush(struct npu_trace_dev *tdev)
{
	struct npu_trace_jobent *ent;
	struct hlist_node *tmp;
	int bkt;

	lockdep_assert_held(&tdev->lock);
	hash_for_each_safe(tdev->jobs, bkt, tmp, ent, node) {
		hash_del(&ent->node);
		npu_trace_jobent_free(ent);
	}
}

/**
 * __npu_trace_job_submitted() - npu_trace_job_submitted() with a ring on
 * @ndev: the device
 * @job: the job (id, its submitter, pe and submit_ns set)
 *
 * Remembers the submitter so the device's records of the job can be
 * attributed. jobs_lock is held: the entry is allocated without sleeping,
 * and a failure is reported to the rings as an NPU_TRACE_LOST_HOST.
 */
void __npu_trace_job_submitted(struct npu_dev *ndev,
			       const struct npu_job *job)
{
	struct npu_trace_dev *tdev = ndev->trace;
	struct npu_trace_jobent *ent;
	unsigned long flags;

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
		npu_trace_report_lost(tdev, NPU_TRACE_LOST_HOST, 1,
				      job->tgid_ref);
		spin_unlock_irqrestore(&tdev->lock, flags);
		return;
	}
	ent->job_id = job->id;
	ent->tgid = get_pid(job->tgid_ref);
	ent->tid = get_pid(job->tid_ref);
	hash_add(tdev->jobs, &ent->node, ent->job_id);
	spin_unlock_irqrestore(&tdev->lock, flags);
}

/**
 * __npu_trace_job_completed() - npu_trace_job_completed() with a ring on
 * @ndev: the device
 * @job: the job, with its result (status, complete_ns, ticks)
 *
 * Writes the job's EXEC record to the rings that may see it, then fires
 * npu_job_start (unless the trace area already showed the start) and
 * npu_job_complete.
 */
void __npu_trace_job_completed(struct npu_dev *ndev,
			       const struct npu_job *job)
{
	struct npu_trace_dev *tdev = ndev->trace;
	struct npu_trace_jobent *ent = NULL;
	struct npu_trace_rec_exec rec;
	unsigned long flags;
	bool started = false;

	if (tdev) {
		spin_lock_irqsave(&tdev->lock, flags);
		ent = npu_trace_job_find(tdev, job->id);
		if (ent) {
			hash_del(&ent->node);
			started = ent->started;
			npu_trace_rec_init(&rec, NPU_TRACE_REC_EXEC,
					   sizeof(rec));
			rec.status = job->status;
			rec.job_id = job->id;
			rec.submit_ns = job->submit_ns;
			rec.complete_ns = job->complete_ns;
			if (ent->have_exec) {
				rec.flags = NPU_TRACE_EXEC_F_DEVICE;
				rec.pe = ent->exec.pe;
				rec.dev_status = ent->exec.status;
				rec.exec_index = ent->exec.exec_index;
				rec.n_ops = ent->exec.n_ops;
				rec.dev_seq = ent->exec.hdr.seq;
				rec.start_tick = ent->exec.start_tick;
				rec.end_tick = ent->exec.end_tick;
				rec.run_ticks = ent->exec.run_ticks;
				rec.iowait_ticks = ent->exec.iowait_ticks;
				rec.dma_bytes = ent->exec.dma_bytes;
				rec.macs = ent->exec.macs;
			}
			if (!tdev->dead)
				npu_trace_deliver(tdev, ent, 0, &rec,
						  sizeof(rec), &rec.pid,
						  &rec.tid);
		}
		spin_unlock_irqrestore(&tdev->lock, flags);
		if (ent)
			npu_trace_jobent_free(ent);
	}
	if (!started)
		trace_npu_job_start(ndev->id, job->id, job->pe,
				    job->start_tick);
	trace_npu_job_complete(ndev->id, job->id, job->pe, job->status,
			       job->tgid, job->submit_ns, job->complete_ns,
			       job->start_tick, job->end_tick);
}

/* ------------------------------------------------------------------------
 * Device trace area
 */

/* Device address of a field of the trace area's header. */
#define NPU_TAREA(ndev, field) \
	((ndev)->hw.trace_base + offsetof(struct npu_hw_trace_hdr, field))

static void npu_trace_area_op(struct npu_trace_dev *tdev,
			      const struct npu_hw_trec_op *op)
{
	struct npu_trace_jobent *ent = npu_trace_job_find(tdev, op->job_id);
	struct npu_trace_rec_op rec;

	if (!ent)
		return;	/* a job submitted while no ring was enabled */
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
	npu_trace_deliver(tdev, ent, NPU_TRACE_OPS, &rec, sizeof(rec),
			  &rec.pid, &rec.tid);
}

static void npu_trace_area_exec(struct npu_trace_dev *tdev,
				const struct npu_hw_trec_exec *ex)
{
	struct npu_trace_jobent *ent = npu_trace_job_find(tdev, ex->job_id);

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

/*
 * Move every record of the device's trace area into the rings, then tell
 * the device how far we got. @deliver false discards them (resync).
 */
static void npu_trace_area_drain(struct npu_trace_dev *tdev, bool deliver)
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

	if (!size)
		return;
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
			cons = prod;
			break;
		}
		if (deliver && rec.hdr.type == NPU_HW_TREC_EXEC &&
		    rsize >= sizeof(rec.exec)) {
			memcpy_fromio(&rec.exec, data + off, sizeof(rec.exec));
			npu_trace_area_exec(tdev, &rec.exec);
		} else if (deliver && rec.hdr.type == NPU_HW_TREC_OP &&
			   rsize >= sizeof(rec.op)) {
			memcpy_fromio(&rec.op, data + off, sizeof(rec.op));
			npu_trace_area_op(tdev, &rec.op);
		}
		cons += rsize;
	}
	/* Our reads of the records complete before the device reuses them. */
	mb();
	npu_wr64(ndev, NPU_TAREA(ndev, cons), cons);

	/* The device restarts its counter at a reset. */
	delta = lost >= tdev->dev_lost_seen ? lost - tdev->dev_lost_seen : lost;
	tdev->dev_lost_seen = lost;
	if (delta && deliver)
		npu_trace_report_lost(tdev, NPU_TRACE_LOST_DEVICE, delta, NULL);
}

/**
 * __npu_trace_drain() - npu_trace_drain() with a ring on
 * @ndev: the device, present
 *
 * Moves the device's trace records into the enabled rings.
 */
void __npu_trace_drain(struct npu_dev *ndev)
{
	struct npu_trace_dev *tdev = ndev->trace;
	unsigned long flags;

	if (!tdev)
		return;
	spin_lock_irqsave(&tdev->lock, flags);
	if (tdev->nr_enabled && !tdev->dead)
		npu_trace_area_drain(tdev, true);
	spin_unlock_irqrestore(&tdev->lock, flags);
}

/**
 * npu_trace_irq() - NPU_MSIX_TRACE handler (threaded)
 * @irq: the interrupt
 * @arg: the struct npu_dev
 *
 * Return: IRQ_HANDLED.
 */
irqreturn_t npu_trace_irq(int irq, void *arg)
{
	struct npu_dev *ndev = arg;
	int idx;

	if (!npu_dev_enter(ndev, &idx))
		return IRQ_HANDLED;
	npu_hw_ack_intr(ndev, NPU_INTR_TRACE);
	npu_trace_drain(ndev);
	npu_dev_exit(ndev, idx);
	return IRQ_HANDLED;
}

/* ------------------------------------------------------------------------
 * Clock records and the device trace level
 */

static int npu_trace_clock_rec(struct npu_trace_dev *tdev,
			       struct npu_trace_rec_clock *rec)
{
	struct npu_clock_pair s[NPU_CLOCK_MAX_SAMPLES];
	u32 n = clamp_t(u32, READ_ONCE(clock_samples), 1,
			NPU_CLOCK_MAX_SAMPLES);
	u32 best;
	int ret;

	ret = npu_clock_sample(tdev->ndev, CLOCK_MONOTONIC, n, s, &best);
	if (ret)
		return ret;
	npu_trace_rec_init(rec, NPU_TRACE_REC_CLOCK, sizeof(*rec));
	rec->samples = n;
	rec->host_before_ns = s[best].host_before_ns;
	rec->device_tick = s[best].device_tick;
	rec->host_after_ns = s[best].host_after_ns;
	rec->width_ns = s[best].host_after_ns - s[best].host_before_ns;
	rec->clock_hz = tdev->ndev->hw.clock_hz;
	return 0;
}

static void npu_trace_clock_work(struct work_struct *work)
{
	struct npu_trace_dev *tdev = container_of(to_delayed_work(work),
						  struct npu_trace_dev,
						  clock_work);
	struct npu_dev *ndev = tdev->ndev;
	struct npu_trace_rec_clock rec;
	unsigned int period = READ_ONCE(clock_period_ms);
	struct npu_tring *r;
	unsigned long flags;
	int idx, ret;

	if (!READ_ONCE(tdev->nr_enabled) || !npu_dev_enter(ndev, &idx))
		return;
	ret = npu_trace_clock_rec(tdev, &rec);
	npu_dev_exit(ndev, idx);

	spin_lock_irqsave(&tdev->lock, flags);
	if (!ret && !tdev->dead) {
		list_for_each_entry(r, &tdev->rings, node)
			if (r->enabled)
				tring_emit(r, &rec, sizeof(rec));
	}
	if (tdev->nr_enabled && !tdev->dead && period)
		schedule_delayed_work(&tdev->clock_work,
				      msecs_to_jiffies(period));
	spin_unlock_irqrestore(&tdev->lock, flags);
}

static u32 npu_trace_max_level(struct npu_trace_dev *tdev)
{
	struct npu_tring *r;
	unsigned long flags;
	u32 level = 0;

	spin_lock_irqsave(&tdev->lock, flags);
	list_for_each_entry(r, &tdev->rings, node)
		if (r->enabled)
			level = max(level, r->level);
	spin_unlock_irqrestore(&tdev->lock, flags);
	return level;
}

/* Set the device's trace level to the highest enabled ring's. */
static void npu_trace_update_level(struct npu_trace_dev *tdev)
{
	struct npu_dev *ndev = tdev->ndev;
	u32 level = npu_trace_max_level(tdev);

	lockdep_assert_held(&tdev->ctl_lock);
	if (level == tdev->dev_level || !(ndev->hw.caps & NPU_CAP_TRACE))
		return;
	npu_hw_set_trace_level(ndev, level);
	tdev->dev_level = level;
}

/* ------------------------------------------------------------------------
 * Trace fd
 */

/* NPU_TRACE_RING_F_* of a ring, from the kernel's state (tdev->lock). */
static u32 tring_flags(struct npu_tring *r)
{
	u32 flags = 0;

	if (r->enabled)
		flags |= NPU_TRACE_RING_F_ENABLED;
	if (r->dead)
		flags |= NPU_TRACE_RING_F_DEAD;
	return flags;
}

/* Publish the flags in the header page; the kernel never reads them back. */
static void tring_set_flags(struct npu_tring *r)
{
	WRITE_ONCE(r->hdr->flags, tring_flags(r));
}

static long tring_enable(struct npu_tring *r, void __user *uarg)
{
	struct npu_trace_dev *tdev = r->tdev;
	struct npu_dev *ndev = r->ndev;
	struct npu_trace_rec_clock clk;
	struct npu_trace_enable en;
	bool have_clk = false, first = false;
	unsigned long flags;
	int ret;

	ret = npu_copy_args(&en, uarg);
	if (ret)
		return ret;
	if (en.flags || en.level > NPU_TRACE_OPS)
		return -EINVAL;
	if (en.level && (!(ndev->hw.caps & NPU_CAP_TRACE) ||
			 !(ndev->hw.trace_levels & BIT(en.level))))
		return -EOPNOTSUPP;

	mutex_lock(&tdev->ctl_lock);
	if (ndev->hw.caps & NPU_CAP_CLOCK_LATCH) {
		ret = npu_trace_clock_rec(tdev, &clk);
		if (ret)
			goto out;
		have_clk = true;
	}

	spin_lock_irqsave(&tdev->lock, flags);
	if (tdev->dead) {
		spin_unlock_irqrestore(&tdev->lock, flags);
		ret = -ENODEV;
		goto out;
	}
	if (!r->enabled) {
		if (!tdev->nr_enabled) {
			/* Leftovers from an earlier trace: not ours. */
			npu_trace_area_drain(tdev, false);
			first = true;
		}
		r->enabled = true;
		tdev->nr_enabled++;
		atomic_inc(&ndev->trace_rings);
	}
	r->level = en.level;
	tring_set_flags(r);
	if (have_clk)
		tring_emit(r, &clk, sizeof(clk));
	spin_unlock_irqrestore(&tdev->lock, flags);

	if (first && tdev->area_size)
		npu_wr32(ndev, NPU_REG_TRACE_WMARK, tdev->area_size / 2);
	npu_trace_update_level(tdev);
	if (first && have_clk && READ_ONCE(clock_period_ms))
		mod_delayed_work(system_wq, &tdev->clock_work,
				 msecs_to_jiffies(READ_ONCE(clock_period_ms)));
	ret = 0;
out:
	mutex_unlock(&tdev->ctl_lock);
	return ret;
}

/* Stop a ring receiving records; ctl_lock held. Returns true if it was on. */
static bool tring_disable_locked(struct npu_tring *r)
{
	struct npu_trace_dev *tdev = r->tdev;
	unsigned long flags;
	bool was;

	spin_lock_irqsave(&tdev->lock, flags);
	was = r->enabled;
	if (was) {
		r->enabled = false;
		tdev->nr_enabled--;
		atomic_dec(&r->ndev->trace_rings);
		if (!tdev->nr_enabled)
			npu_trace_jobs_flush(tdev);
		tring_flush_lost(r);
		tring_set_flags(r);
	}
	spin_unlock_irqrestore(&tdev->lock, flags);
	return was;
}

static long tring_disable(struct npu_tring *r)
{
	struct npu_trace_dev *tdev = r->tdev;
	struct npu_trace_rec_clock clk;
	unsigned long flags;

	mutex_lock(&tdev->ctl_lock);
	/* A closing CLOCK record bounds the clock fit at the end too. */
	if (r->enabled && (r->ndev->hw.caps & NPU_CAP_CLOCK_LATCH) &&
	    !npu_trace_clock_rec(tdev, &clk)) {
		spin_lock_irqsave(&tdev->lock, flags);
		if (r->enabled)
			tring_emit(r, &clk, sizeof(clk));
		spin_unlock_irqrestore(&tdev->lock, flags);
	}
	if (tring_disable_locked(r)) {
		npu_trace_update_level(tdev);
		if (!tdev->nr_enabled)
			cancel_delayed_work(&tdev->clock_work);
	}
	mutex_unlock(&tdev->ctl_lock);
	return 0;
}

static long tring_status(struct npu_tring *r, void __user *uarg)
{
	struct npu_trace_dev *tdev = r->tdev;
	struct npu_trace_status st;
	unsigned long flags;

	memset(&st, 0, sizeof(st));
	spin_lock_irqsave(&tdev->lock, flags);
	if (tring_flush_lost(r))
		tring_wake(r);
	/* Not from the header page: the reader may write anything there. */
	st.flags = tring_flags(r);
	st.level = r->level;
	st.records = r->n_records;
	st.lost = r->n_lost;
	st.device_lost = r->n_dev_lost;
	st.host_lost = r->n_host_lost;
	st.clock_samples = r->n_clock;
	st.producer = r->prod;
	st.consumer = READ_ONCE(r->hdr->consumer);
	spin_unlock_irqrestore(&tdev->lock, flags);

	if (copy_to_user(uarg, &st, sizeof(st)))
		return -EFAULT;
	return 0;
}

static long tring_ioctl(struct file *filp, unsigned int cmd,
			unsigned long arg)
{
	struct npu_tring *r = filp->private_data;
	void __user *uarg = (void __user *)arg;
	long ret;
	int idx;

	if (!npu_dev_enter(r->ndev, &idx))
		return -ENODEV;
	switch (cmd) {
	case NPU_TRACE_IOCTL_ENABLE:
		ret = tring_enable(r, uarg);
		break;
	case NPU_TRACE_IOCTL_DISABLE:
		ret = tring_disable(r);
		break;
	case NPU_TRACE_IOCTL_STATUS:
		ret = tring_status(r, uarg);
		break;
	default:
		ret = -ENOTTY;
		break;
	}
	npu_dev_exit(r->ndev, idx);
	return ret;
}

static __poll_t tring_poll(struct file *filp, poll_table *wait)
{
	struct npu_tring *r = filp->private_data;
	struct npu_trace_dev *tdev = r->tdev;
	unsigned long flags;
	__poll_t mask = 0;

	poll_wait(filp, &r->wq, wait);
	spin_lock_irqsave(&tdev->lock, flags);
	/* A reader that polls has consumed: make room for pending LOSTs. */
	tring_flush_lost(r);
	if (tring_readable(r))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (r->dead)
		mask |= EPOLLHUP | EPOLLERR;
	spin_unlock_irqrestore(&tdev->lock, flags);
	return mask;
}

static int tring_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct npu_tring *r = filp->private_data;
	unsigned long pages = vma_pages(vma);
	unsigned long total = 1 + (r->data_size >> PAGE_SHIFT);

	if (vma->vm_pgoff >= total || pages > total - vma->vm_pgoff)
		return -EINVAL;
	/*
	 * Only a shared mapping of the header page may be written: it holds
	 * the consumer position. A private one would be copied on write and
	 * the kernel would never see the consumer move; like the data pages,
	 * it may be mapped read-only, and can never become writable.
	 */
	if (vma->vm_pgoff + pages > 1 || !(vma->vm_flags & VM_SHARED)) {
		if (vma->vm_flags & VM_WRITE)
			return -EPERM;
		npu_compat_vm_flags_clear(vma, VM_MAYWRITE);
	}
	return remap_vmalloc_range(vma, r->hdr, vma->vm_pgoff);
}

/* ------------------------------------------------------------------------
 * Ring memory and its charge
 */

static struct npu_trace_mlock *npu_trace_mlock_find(struct user_struct *user)
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
static int tring_charge(struct npu_tring *r, unsigned long pages)
{
	unsigned long allow = READ_ONCE(trace_mlock_kb) >> (PAGE_SHIFT - 10);
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	struct user_struct *user = get_current_user();
	struct npu_trace_mlock *m, *new_m = NULL;
	unsigned long used, mine, extra, cur;
	bool exempt = false;
	int ret = 0;

	mutex_lock(&npu_trace_mlock_lock);
	m = npu_trace_mlock_find(user);
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

/* Give back what tring_charge() took. */
static void tring_uncharge(struct npu_tring *r)
{
	struct npu_trace_mlock *m;

	if (!r->user)
		return;
	mutex_lock(&npu_trace_mlock_lock);
	m = r->allow_pages ? npu_trace_mlock_find(r->user) : NULL;
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

/*
 * The header page and @data_pages data pages, zeroed, charged to the
 * current memory cgroup (vmalloc_user() memory is not), mapped with
 * VM_USERMAP for remap_vmalloc_range(), as the BPF ring buffer does. A
 * cgroup at its limit fails the allocation rather than invoking its OOM
 * killer. Return: 0 or -ENOMEM.
 */
static int tring_alloc_mem(struct npu_tring *r, u32 data_pages)
{
	const gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL |
			  __GFP_NOWARN;
	unsigned int n = 1 + data_pages;

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

static void tring_free_mem(struct npu_tring *r)
{
	if (r->hdr)
		vunmap(r->hdr);
	while (r->nr_pages)
		__free_page(r->pages[--r->nr_pages]);
	kvfree(r->pages);
}

/* Free a ring that is on no list and holds no device reference. */
static void tring_destroy(struct npu_tring *r)
{
	tring_free_mem(r);
	tring_uncharge(r);
	put_pid(r->owner);
	if (r->pid_ns)
		put_pid_ns(r->pid_ns);
	kfree(r);
}

/* Undo npu_trace_open_ioctl(): the ring is disabled. */
static void tring_free(struct npu_tring *r)
{
	struct npu_trace_dev *tdev = r->tdev;
	struct npu_dev *ndev = r->ndev;
	unsigned long flags;

	spin_lock_irqsave(&tdev->lock, flags);
	list_del(&r->node);
	spin_unlock_irqrestore(&tdev->lock, flags);
	tring_destroy(r);
	npu_trace_dev_put(tdev);
	npu_dev_put(ndev);
}

static int tring_release(struct inode *inode, struct file *filp)
{
	struct npu_tring *r = filp->private_data;
	struct npu_trace_dev *tdev = r->tdev;
	int idx;

	mutex_lock(&tdev->ctl_lock);
	if (tring_disable_locked(r) && npu_dev_enter(r->ndev, &idx)) {
		npu_trace_update_level(tdev);
		npu_dev_exit(r->ndev, idx);
	}
	if (!tdev->nr_enabled)
		cancel_delayed_work(&tdev->clock_work);
	mutex_unlock(&tdev->ctl_lock);
	tring_free(r);
	return 0;
}

static void tring_show_fdinfo(struct seq_file *m, struct file *filp)
{
	struct npu_tring *r = filp->private_data;
	unsigned long flags;

	spin_lock_irqsave(&r->tdev->lock, flags);
	seq_printf(m, "npu:\t%s\n", r->ndev->name);
	seq_printf(m, "ring_id:\t%llu\n", r->id);
	seq_printf(m, "scope:\t%s\n", r->all ? "all" : "process");
	seq_printf(m, "enabled:\t%d\n", r->enabled);
	seq_printf(m, "level:\t%u\n", r->level);
	seq_printf(m, "data_size:\t%llu\n", r->data_size);
	seq_printf(m, "producer:\t%llu\n", r->prod);
	seq_printf(m, "records:\t%llu\n", r->n_records);
	seq_printf(m, "lost:\t%llu\n", r->n_lost);
	spin_unlock_irqrestore(&r->tdev->lock, flags);
	/* Constant from open to release. */
	seq_printf(m, "mlock_kb:\t%lu\n", r->allow_pages << (PAGE_SHIFT - 10));
	seq_printf(m, "locked_vm_kb:\t%lu\n",
		   r->locked_pages << (PAGE_SHIFT - 10));
}

static const struct file_operations npu_tring_fops = {
	.owner = THIS_MODULE,
	.release = tring_release,
	.unlocked_ioctl = tring_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.poll = tring_poll,
	.mmap = tring_mmap,
	.show_fdinfo = tring_show_fdinfo,
	.llseek = noop_llseek,
};

/**
 * npu_trace_open_ioctl() - NPU_IOCTL_TRACE_OPEN
 * @ndev: the device, inside npu_dev_enter()
 * @uarg: struct npu_trace_open in user memory
 *
 * Return: 0 or a negative errno (see struct npu_trace_open).
 */
long npu_trace_open_ioctl(struct npu_dev *ndev, void __user *uarg)
{
	struct npu_trace_dev *tdev = ndev->trace;
	struct npu_trace_open op;
	struct npu_tring *r;
	struct file *file;
	unsigned long flags;
	int fd, ret;

	ret = npu_copy_args(&op, uarg);
	if (ret)
		return ret;
	if ((op.flags & ~NPU_TRACE_ALL_PROCESSES) || op.fd ||
	    op.data_offset || op.data_size)
		return -EINVAL;
	if (op.data_pages < NPU_TRACE_MIN_DATA_PAGES ||
	    op.data_pages > NPU_TRACE_MAX_DATA_PAGES ||
	    !is_power_of_2(op.data_pages) ||
	    (u64)op.watermark >= (u64)op.data_pages << PAGE_SHIFT)
		return -EINVAL;
	if ((op.flags & NPU_TRACE_ALL_PROCESSES) &&
	    READ_ONCE(trace_paranoid) && !perfmon_capable())
		return -EACCES;
	if (!tdev)
		return -ENODEV;

	r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	if (!r)
		return -ENOMEM;
	r->owner = get_pid(task_tgid(current));
	r->pid_ns = get_pid_ns(task_active_pid_ns(current));
	ret = tring_charge(r, 1 + op.data_pages);
	if (!ret)
		ret = tring_alloc_mem(r, op.data_pages);
	if (ret) {
		tring_destroy(r);
		return ret;
	}
	r->data_size = (u64)op.data_pages << PAGE_SHIFT;
	r->watermark = op.watermark;
	r->all = op.flags & NPU_TRACE_ALL_PROCESSES;
	r->id = atomic64_inc_return(&npu_trace_ring_ids);
	init_waitqueue_head(&r->wq);
	r->hdr->version = NPU_TRACE_RING_VERSION;
	r->hdr->data_offset = PAGE_SIZE;
	r->hdr->data_size = r->data_size;
	r->hdr->hdr_size = sizeof(*r->hdr);
	r->hdr->watermark = op.watermark;

	r->tdev = tdev;
	kref_get(&tdev->ref);
	r->ndev = ndev;
	npu_dev_get(ndev);
	spin_lock_irqsave(&tdev->lock, flags);
	list_add_tail(&r->node, &tdev->rings);
	spin_unlock_irqrestore(&tdev->lock, flags);

	fd = get_unused_fd_flags(O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		tring_free(r);
		return fd;
	}
	file = anon_inode_getfile("[npu_trace]", &npu_tring_fops, r, O_RDWR);
	if (IS_ERR(file)) {
		put_unused_fd(fd);
		tring_free(r);
		return PTR_ERR(file);
	}

	op.fd = fd;
	op.data_offset = PAGE_SIZE;
	op.data_size = r->data_size;
	if (copy_to_user(uarg, &op, sizeof(op))) {
		put_unused_fd(fd);
		fput(file);	/* tring_release() undoes the rest */
		return -EFAULT;
	}
	fd_install(fd, file);
	return 0;
}

/* ------------------------------------------------------------------------
 * Device lifetime
 */

static void npu_trace_devm_put(void *data)
{
	struct npu_dev *ndev = data;
	struct npu_trace_dev *tdev = ndev->trace;

	ndev->trace = NULL;
	npu_trace_dev_put(tdev);
}

/**
 * npu_trace_init() - set up the trace state of a device
 * @ndev: the device, after npu_hw_init(), before its interrupts exist
 *
 * Return: 0 or a negative errno.
 */
int npu_trace_init(struct npu_dev *ndev)
{
	struct npu_trace_dev *tdev;

	tdev = kzalloc(sizeof(*tdev), GFP_KERNEL);
	if (!tdev)
		return -ENOMEM;
	kref_init(&tdev->ref);
	tdev->ndev = ndev;
	spin_lock_init(&tdev->lock);
	INIT_LIST_HEAD(&tdev->rings);
	mutex_init(&tdev->ctl_lock);
	hash_init(tdev->jobs);
	INIT_DELAYED_WORK(&tdev->clock_work, npu_trace_clock_work);
	/* npu_hw_init() checked the trace area against BAR2. */
	if (ndev->hw.caps & NPU_CAP_TRACE)
		tdev->area_size = ndev->hw.trace_size;
	ndev->trace = tdev;
	/* Released after the interrupts, which devres frees first. */
	return devm_add_action_or_reset(&ndev->pdev->dev, npu_trace_devm_put,
					ndev);
}

/**
 * npu_trace_fini() - the device is going away
 * @ndev: the device, already marked unplugged
 *
 * Every ring is disabled and marked dead (poll() reports POLLHUP |
 * POLLERR, ioctls fail with -ENODEV); their memory stays mapped until the
 * trace fds are closed.
 */
void npu_trace_fini(struct npu_dev *ndev)
{
	struct npu_trace_dev *tdev = ndev->trace;
	struct npu_tring *r;
	unsigned long flags;

	if (!tdev)
		return;
	mutex_lock(&tdev->ctl_lock);
	spin_lock_irqsave(&tdev->lock, flags);
	tdev->dead = true;
	list_for_each_entry(r, &tdev->rings, node) {
		r->enabled = false;
		r->dead = true;
		tring_set_flags(r);
		wake_up_interruptible_poll(&r->wq, EPOLLHUP | EPOLLERR);
	}
	tdev->nr_enabled = 0;
	atomic_set(&ndev->trace_rings, 0);
	npu_trace_jobs_flush(tdev);
	spin_unlock_irqrestore(&tdev->lock, flags);
	cancel_delayed_work_sync(&tdev->clock_work);
	if (tdev->dev_level) {
		npu_hw_set_trace_level(ndev, NPU_TRACE_OFF);
		tdev->dev_level = 0;
	}
	mutex_unlock(&tdev->ctl_lock);
}
