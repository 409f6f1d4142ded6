/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npu_trace_int.h - what the trace files of the driver share, and nothing
 * the rest of the driver needs (that is npu_trace.h). Documentation/npu/
 * ring.rst is the contract with userspace; driver.rst maps the files:
 *
 *   npu_trace.c       the device's trace state: creation, removal, lifetime
 *   npu_tring.c       a trace ring's producer: records, PAD, LOST, seq, poll
 *   npu_tring_mem.c   a trace ring's pages and their charge to the opener
 *   npu_tring_fops.c  NPU_IOCTL_TRACE_OPEN and the trace fd's operations
 *   npu_trace_ctl.c   enable, disable, the device trace level, CLOCK records
 *   npu_tarea.c       the drain of the device's trace area, its interrupt
 *   npu_trace_jobs.c  traced jobs: attribution of device records to
 *                     submitters, EXEC records, delivery to the rings
 *   npu_trace_bo.c    BO_ALLOC and BO_FREE records of buffers
 *
 * Locking. One spinlock per device (npu_trace_dev.lock) covers the list of
 * rings, every ring's producer side, the table of traced jobs and the
 * device's trace area, so records reach each ring in one order whatever
 * context produced them (interrupt threads, ioctls, the clock work).
 * npu_trace_dev.ctl_lock serializes enable/disable and the device trace
 * level; it may sleep. Order: npu_dev.jobs_lock -> npu_trace_dev.lock (the
 * job hooks and the drain run in the completion path with jobs_lock held);
 * ctl_lock -> npu_dev.mbox_lock (clock samples); ctl_lock ->
 * npu_trace_dev.lock; npu_dev.mem_lock -> npu_trace_dev.lock (the BO
 * records). Nothing is taken under npu_trace_dev.lock. Every
 * function below that says "lock held" asserts it with lockdep.
 *
 * Lifetime. The device holds a reference on its npu_trace_dev (dropped by
 * devres after the interrupts are freed); every trace fd holds one, plus a
 * reference on the npu_dev. A ring's memory belongs to its trace fd and is
 * freed when the last mapping and the file are gone (a mapping holds the
 * file).
 */
#ifndef _NPU_TRACE_INT_H
#define _NPU_TRACE_INT_H

#include <linux/hashtable.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <linux/npu.h>

#include "npu_drv.h"
#include "npu_trace.h"

#define NPU_TRACE_JOB_BITS	8
#define NPU_TRACE_NR_REASONS	(NPU_TRACE_LOST_HOST + 1)

/**
 * struct npu_trace_dev - trace state of one device
 * @ref: held by the device (until devres) and by every trace fd
 * @ndev: the device; valid while @ref is held by the device or a trace fd
 * @lock: rings, their producer side, @jobs, the trace area, @dead
 * @rings: every open ring of the device (struct npu_tring)
 * @nr_enabled: enabled rings, written under @lock and @ctl_lock; read
 *	locklessly by the clock work; npu_dev.trace_rings mirrors it for the
 *	job path's lockless test
 * @dead: the device is gone: no more records, no hardware access
 * @ctl_lock: serializes enable/disable and @dev_level
 * @dev_level: trace level written to NPU_REG_CONTROL
 * @jobs: traced jobs in flight, by job id (npu_trace_jobs.c); a completed
 *	job stays until its EXEC record is delivered
 * @done: completed traced jobs whose EXEC record is not delivered yet, in
 *	completion order (npu_trace_jobs.c)
 * @deliver_work: delivers the records of completed jobs, a jiffy after a
 *	completion (npu_tarea.c)
 * @dev_lost_seen: npu_hw_trace_hdr.lost at the last drain (npu_tarea.c)
 * @dev_seq_next: device sequence number expected of the next record
 *	(npu_hw_trec_hdr.seq of the last good one + 1), if @dev_seq_valid
 * @dev_seq_valid: @dev_seq_next is known
 * @dev_skipped: the drain skipped a corrupted span of the trace area and
 *	waits for the next good record to count what the span held
 * @dev_lost_skip: device overflow losses counted since that skip
 * @area_size: bytes of the device trace area's data part (0: no trace)
 * @clock_work: periodic CLOCK records (npu_trace_ctl.c)
 * @clk: the last CLOCK record written to a ring, if @have_clk: the device
 *	time of BO records is estimated from it (npu_trace_bo.c)
 * @have_clk: @clk is set
 * @stats: counters for netlink (struct npu_trace_stats), under @lock
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
	struct list_head done;
	struct delayed_work deliver_work;
	u64 dev_lost_seen;
	u32 dev_seq_next;
	bool dev_seq_valid;
	bool dev_skipped;
	u64 dev_lost_skip;
	u32 area_size;
	struct delayed_work clock_work;
	struct npu_trace_rec_clock clk;
	bool have_clk;
	struct npu_trace_stats stats;
};

/**
 * struct npu_tring - the kernel's side of one trace fd: a trace ring
 * @node: entry in npu_trace_dev.rings
 * @tdev: the device's trace state (a reference is held)
 * @ndev: the device (a reference is held)
 * @hdr: header page (struct npu_trace_ring of the uapi), followed by the
 *	data pages (@pages mapped with vmap)
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
 * @ovf_next: jiffies before which no overflow event is sent for this
 *	ring (netlink's NPU_CMD_TRACE_OVERFLOW_NTF, one per second)
 * @wq: poll() waiters
 *
 * Every field from @prod on, except @id and @wq, is under
 * npu_trace_dev.lock; the memory fields are constant from open to release.
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
	unsigned long ovf_next;
	wait_queue_head_t wq;
};

/*
 * May @r receive the records of process @tgid (a job's submitter, a
 * buffer's creator)? Its own process's (the same struct pid: a reused pid
 * number is another struct pid) or, with NPU_TRACE_ALL_PROCESSES,
 * everyone's. A ring whose opener exited receives the records of what the
 * opener did before, and nothing new: a dead process submits and creates
 * nothing and its struct pid is never reused.
 */
static inline bool npu_tring_sees(const struct npu_tring *r,
				  const struct pid *tgid)
{
	return r->all || r->owner == tgid;
}

/* npu_tring.c: the producer, tdev->lock held */
void npu_trace_rec_init(void *rec, u16 type, u16 size);
void npu_tring_emit_locked(struct npu_tring *r, void *rec, u32 size);
bool npu_tring_flush_lost_locked(struct npu_tring *r);
void npu_tring_lost_locked(struct npu_tring *r, u64 count);
bool npu_tring_readable_locked(struct npu_tring *r);
void npu_tring_wake_locked(struct npu_tring *r);
u32 npu_tring_flags_locked(struct npu_tring *r);
void npu_tring_set_flags_locked(struct npu_tring *r);

/* npu_tring_mem.c */
int npu_tring_mem_alloc(struct npu_tring *r, u32 data_pages);
void npu_tring_mem_free(struct npu_tring *r);

/* npu_trace_bo.c */
void npu_trace_keep_clock_locked(struct npu_trace_dev *tdev,
				 const struct npu_trace_rec_clock *clk);

/* npu_trace_ctl.c */
void npu_trace_ctl_init(struct npu_trace_dev *tdev);
void npu_trace_ctl_fini(struct npu_trace_dev *tdev);
int npu_trace_ctl_enable(struct npu_tring *r, u32 level);
void npu_trace_ctl_disable(struct npu_tring *r);
void npu_trace_ctl_release(struct npu_tring *r);

/* npu_tarea.c */
void npu_tarea_drain_locked(struct npu_trace_dev *tdev, bool deliver);
void npu_trace_deliver_work(struct work_struct *work);

/* npu_trace_jobs.c */
void npu_trace_jobs_flush_locked(struct npu_trace_dev *tdev);
void npu_trace_jobs_deliver_locked(struct npu_trace_dev *tdev);
void npu_trace_job_exec_locked(struct npu_trace_dev *tdev,
			       const struct npu_hw_trec_exec *ex);
void npu_trace_job_op_locked(struct npu_trace_dev *tdev,
			     const struct npu_hw_trec_op *op);
void npu_trace_report_lost_locked(struct npu_trace_dev *tdev, u32 reason,
				  u64 count, const struct pid *tgid);

#endif /* _NPU_TRACE_INT_H */
