/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npu_job.h - jobs: submission to the PE command queues, completion,
 * waiting, timeout and reset.
 */
#ifndef _NPU_JOB_H
#define _NPU_JOB_H

#include <linux/fs.h>
#include <linux/interrupt.h>
#include <linux/list.h>
#include <linux/poll.h>
#include <linux/types.h>

#include <linux/npu.h>

struct io_uring_cmd;
struct npu_bo;
struct npu_dev;
struct pid;
struct npu_file;
struct task_struct;
struct work_struct;

/**
 * struct npu_job - one submitted job
 * @id: job id (npu_hw_cmd.job_id and npu_submit.job_id), unique per device
 * @nf: owning file; NULL once the file is closed or the io_uring command
 *	cancelled (the result is dropped)
 * @ucmd: the io_uring command that posts this job's completion
 *	(npu_uring.c), or NULL: an NPU_IOCTL_SUBMIT job, whose result
 *	NPU_IOCTL_WAIT collects
 * @owner: files of the submitter of an io_uring job: a close() there
 *	cancels the command (npu_job_uring_cancel())
 * @pe: PE whose queue holds the job
 * @nbufs: entries in @bos
 * @bos: buffers, referenced until completion
 * @tgid: submitting process, as seen from the initial PID namespace (for
 *	the tracepoints and the log)
 * @pid: submitting thread, likewise
 * @tgid_ref: submitting process (a reference is held until the job is
 *	freed): the identity trace rings compare, never reused as @tgid is
 * @tid_ref: submitting thread (a reference is held until the job is freed)
 * @submit_ns: CLOCK_MONOTONIC just before the job was made visible to the
 *	device
 * @head_ns: CLOCK_MONOTONIC when the job became the oldest of its PE (the
 *	job timeout runs from here)
 * @complete_ns: CLOCK_MONOTONIC when the driver saw the completion
 * @status: NPU_JOB_*
 * @op_index: failing operator, from the device
 * @start_tick: device clock at start
 * @end_tick: device clock at end
 * @expired: the job timed out; a device reset is failing it
 * @done: the result is in; the job is on its file's done list
 * @pe_node: entry in the PE's list of outstanding jobs (oldest first)
 * @done_node: entry in npu_file.done
 *
 * All fields after @submit_ns are protected by npu_dev.jobs_lock, and so
 * are @nf and @ucmd once the job is queued.
 */
struct npu_job {
	u64 id;
	struct npu_file *nf;
	struct io_uring_cmd *ucmd;
	fl_owner_t owner;
	u32 pe;
	u32 nbufs;
	struct npu_bo *bos[NPU_MAX_JOB_BUFS];
	pid_t tgid;
	pid_t pid;
	struct pid *tgid_ref;
	struct pid *tid_ref;
	u64 submit_ns;
	u64 head_ns;
	u64 complete_ns;
	u32 status;
	u32 op_index;
	u64 start_tick;
	u64 end_tick;
	bool expired;
	bool done;
	struct list_head pe_node;
	struct list_head done_node;
};

/**
 * struct npu_pe_queue - host state of one PE's command queue
 * @prod: producer index the host wrote last
 * @outstanding: jobs submitted to this PE and not yet completed; written
 *	with WRITE_ONCE() under jobs_lock, read locklessly by
 *	npu_job_pick_pe() (wait conditions, poll)
 * @jobs: those jobs, oldest first
 *
 * Protected by npu_dev.jobs_lock.
 */
struct npu_pe_queue {
	u32 prod;
	u32 outstanding;
	struct list_head jobs;
};

void npu_job_dev_init(struct npu_dev *ndev);
void npu_job_dev_start(struct npu_dev *ndev);
void npu_job_dev_unplug(struct npu_dev *ndev);

void npu_job_file_init(struct npu_file *nf);
void npu_job_file_fini(struct npu_file *nf);

void npu_job_result(const struct npu_job *job, struct npu_job_result *res);
void npu_job_free(struct npu_job *job);
int npu_job_submit(struct npu_file *nf, const struct npu_job_desc *desc,
		   struct task_struct *task, struct io_uring_cmd *ucmd,
		   bool nonblock, u64 *id);
int npu_job_submit_ioctl(struct npu_file *nf, void __user *uarg);
void npu_job_uring_cancel(struct npu_file *nf, fl_owner_t owner);
void npu_job_uring_detach_locked(struct npu_job *job);
int npu_job_wait_ioctl(struct npu_file *nf, void __user *uarg);
__poll_t npu_job_poll(struct npu_file *nf, struct file *filp,
		      poll_table *wait);

void npu_job_cpl_work(struct work_struct *work);
void npu_job_device_error(struct npu_dev *ndev);

#endif /* _NPU_JOB_H */
