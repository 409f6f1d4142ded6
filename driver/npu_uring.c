// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_uring.c - job submission through io_uring: IORING_OP_URING_CMD with
 * cmd_op NPU_URING_CMD_SUBMIT on /dev/npuN (Documentation/npu/uapi.rst).
 *
 * The command queues its job through npu_job_submit(), the path of
 * NPU_IOCTL_SUBMIT, and returns -EIOCBQUEUED. When the job completes,
 * npu_job_complete_locked() (jobs_lock held, in the completion thread) hands it
 * to the command's task work, which runs in the submitting task: it writes
 * struct npu_job_result into the submitter's memory, frees the job and
 * posts the CQE (res: the job's status, res2: its id). One ring carries the
 * submission and the completion, with no ioctl and no poll.
 *
 * The command's state (struct npu_uring_pdu, under jobs_lock) decides who
 * posts the CQE:
 *
 *  ISSUING: the issue call owns the command; an error completes it there.
 *  QUEUED:  the job is on the device and in its file's @jobs. Its
 *           completion, a close() in the submitting process
 *           (npu_job_uring_cancel()) or io_uring's cancellation (a ring or
 *           task exiting, on kernels that have it) moves it to DONE.
 *  DONE:    task work posts the CQE (a completion or a close()), or the
 *           cancel call did; nothing else touches the command.
 *
 * A cancelled command completes with -ECANCELED; its job stays on the
 * device, detached, and is freed at completion like a job of a closed
 * file. 6.1 cannot cancel a command when its ring exits: the ring waits
 * for the job's completion (or its timeout) instead.
 */

#include <linux/build_bug.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <linux/npu.h>

#include "npu_compat.h"
#include "npu_drv.h"
#include "npu_job.h"
#include "npu_uring.h"

enum npu_uring_state {
	NPU_URING_ISSUING,
	NPU_URING_QUEUED,
	NPU_URING_DONE,
};

/**
 * struct npu_uring_pdu - state of one command, in io_uring_cmd.pdu
 * @job: QUEUED: the job; DONE: the completed job for the task work, or
 *	NULL when the command was cancelled
 * @result: the submitter's struct npu_job_result, or NULL
 * @job_id: the job id, 0 until the job is queued (the CQE's res2)
 * @res: DONE without a job: the CQE's res
 * @state: enum npu_uring_state; under npu_dev.jobs_lock from QUEUED on
 */
struct npu_uring_pdu {
	struct npu_job *job;
	struct npu_job_result __user *result;
	u64 job_id;
	s32 res;
	u32 state;
};

static struct npu_uring_pdu *npu_uring_pdu(struct io_uring_cmd *cmd)
{
	BUILD_BUG_ON(sizeof(struct npu_uring_pdu) > sizeof(cmd->pdu));
	return (struct npu_uring_pdu *)cmd->pdu;
}

static int npu_uring_put_result(struct npu_job_result __user *ures,
				const struct npu_job *job)
{
	struct npu_job_result res;

	npu_job_result(job, &res);
	return copy_to_user(ures, &res, sizeof(res)) ? -EFAULT : 0;
}

/* Task work of a DONE command: write the result and post the CQE. */
static void npu_uring_task_done(struct io_uring_cmd *cmd,
				unsigned int issue_flags)
{
	struct npu_uring_pdu *pdu = npu_uring_pdu(cmd);
	struct npu_job *job = pdu->job;
	int res = pdu->res;

	if (job) {
		res = job->status;
		/*
		 * io_uring runs the work from a kernel thread when the
		 * submitter is exiting: its memory is out of reach then.
		 */
		if (pdu->result && !(current->flags & (PF_EXITING | PF_KTHREAD)) &&
		    npu_uring_put_result(pdu->result, job))
			res = -EFAULT;
		npu_job_free(job);
	}
	npu_compat_uring_cmd_done(cmd, res, pdu->job_id, issue_flags);
}

/**
 * npu_uring_job_queued_locked() - a command's job was queued
 * @job: the job, just made visible to the device; jobs_lock held
 */
void npu_uring_job_queued_locked(struct npu_job *job)
{
	struct npu_uring_pdu *pdu = npu_uring_pdu(job->ucmd);

	lockdep_assert_held(&job->nf->ndev->jobs_lock);
	pdu->job = job;
	pdu->job_id = job->id;
	pdu->state = NPU_URING_QUEUED;
}

/**
 * npu_uring_job_done_locked() - a command's job completed: post its CQE
 * @job: the job, off the device and its file; jobs_lock held
 *
 * The command's task work takes the job over and frees it.
 */
void npu_uring_job_done_locked(struct npu_job *job)
{
	struct io_uring_cmd *cmd = job->ucmd;
	struct npu_uring_pdu *pdu = npu_uring_pdu(cmd);

	lockdep_assert_held(&job->nf->ndev->jobs_lock);
	pdu->state = NPU_URING_DONE;
	job->ucmd = NULL;
	io_uring_cmd_complete_in_task(cmd, npu_uring_task_done);
}

/**
 * npu_uring_job_cancel_locked() - complete a queued job's command with
 *	-ECANCELED
 * @job: the job, still queued with its command; jobs_lock held
 *
 * The caller detaches the job (npu_job_uring_detach_locked()).
 */
void npu_uring_job_cancel_locked(struct npu_job *job)
{
	struct io_uring_cmd *cmd = job->ucmd;
	struct npu_uring_pdu *pdu = npu_uring_pdu(cmd);

	lockdep_assert_held(&job->nf->ndev->jobs_lock);
	pdu->state = NPU_URING_DONE;
	pdu->job = NULL;
	pdu->res = -ECANCELED;
	io_uring_cmd_complete_in_task(cmd, npu_uring_task_done);
}

/* io_uring's IO_URING_F_CANCEL call: its ring or task is exiting. */
static void npu_uring_cancel(struct npu_file *nf, struct io_uring_cmd *cmd,
			     unsigned int issue_flags)
{
	struct npu_uring_pdu *pdu = npu_uring_pdu(cmd);
	struct npu_dev *ndev = nf->ndev;

	mutex_lock(&ndev->jobs_lock);
	if (pdu->state != NPU_URING_QUEUED) {
		/* Still being issued, or its task work posts the CQE. */
		mutex_unlock(&ndev->jobs_lock);
		return;
	}
	npu_job_uring_detach_locked(pdu->job);
	pdu->job = NULL;
	pdu->state = NPU_URING_DONE;
	mutex_unlock(&ndev->jobs_lock);
	npu_compat_uring_cmd_done(cmd, -ECANCELED, pdu->job_id, issue_flags);
}

/* NPU_URING_CMD_SUBMIT, payload checked. */
static int npu_uring_submit(struct npu_file *nf, struct io_uring_cmd *cmd,
			    const struct npu_uring_submit *req,
			    unsigned int issue_flags)
{
	struct task_struct *task = npu_compat_uring_cmd_task(cmd);
	struct npu_uring_pdu *pdu = npu_uring_pdu(cmd);
	/* Issued by the submitter: its task work cannot run meanwhile. */
	bool in_task = current == task;
	u64 id;
	int ret, idx;

	if (!npu_dev_enter(nf->ndev, &idx))
		return -ENODEV;
	memset(pdu, 0, sizeof(*pdu));
	pdu->state = NPU_URING_ISSUING;
	pdu->result = u64_to_user_ptr(req->result);
	/*
	 * Cancelable before the job is queued when io_uring's worker issues
	 * the command: the submitter's task work may complete it at once.
	 * Issued by the submitter, only once it is queued: a command marked
	 * and then handed to the worker (-EAGAIN) could be cancelled there
	 * without us.
	 */
	if (!in_task)
		npu_compat_uring_cmd_cancelable(cmd, issue_flags);
	ret = npu_job_submit(nf, &req->job, task, cmd,
			     issue_flags & IO_URING_F_NONBLOCK, &id);
	npu_dev_exit(nf->ndev, idx);
	if (ret == -EAGAIN && (issue_flags & IO_URING_F_NONBLOCK))
		return -EAGAIN;	/* io_uring's worker issues it again */
	if (ret) {
		/* A signal to io_uring's worker: the ring is going away. */
		if (ret == -ERESTARTSYS)
			ret = -EINTR;
		npu_compat_uring_cmd_done(cmd, ret, 0, issue_flags);
		return -EIOCBQUEUED;
	}
	/*
	 * The id, for the submitter to read when io_uring_enter() returns.
	 * Only from the submitting task, which also runs the task work: from
	 * io_uring's worker the result may be posted and reused already, and
	 * the task work writes the id with the result anyway.
	 */
	if (in_task) {
		npu_compat_uring_cmd_cancelable(cmd, issue_flags);
		if (pdu->result)
			put_user(id, &pdu->result->job_id);
	}
	return -EIOCBQUEUED;
}

/**
 * npu_uring_cmd() - file_operations.uring_cmd of /dev/npuN
 * @cmd: the command
 * @issue_flags: io_uring's IO_URING_F_* flags
 *
 * Return: -EIOCBQUEUED (the CQE is posted later), -EAGAIN (io_uring
 * issues the command again from its worker), or a negative errno for the
 * CQE: -ENOTTY for an unknown cmd_op, -EINVAL for a ring without
 * IORING_SETUP_SQE128 or a bad payload, -ENODEV after unplug.
 */
int npu_uring_cmd(struct io_uring_cmd *cmd, unsigned int issue_flags)
{
	struct npu_file *nf = cmd->file->private_data;
	struct npu_uring_submit req;

	if (npu_compat_uring_cmd_cancel(issue_flags)) {
		npu_uring_cancel(nf, cmd, issue_flags);
		return 0;
	}
	if (cmd->cmd_op != NPU_URING_CMD_SUBMIT)
		return -ENOTTY;
	/* A 64-byte SQE holds 16 bytes of payload. */
	BUILD_BUG_ON(sizeof(req) > 80);
	if (!(issue_flags & IO_URING_F_SQE128))
		return -EINVAL;
	/* Once: the SQE may be in memory that userspace still writes. */
	memcpy(&req, npu_compat_uring_cmd_payload(cmd), sizeof(req));
	if (memchr_inv(req.reserved, 0, sizeof(req.reserved)))
		return -EINVAL;
	return npu_uring_submit(nf, cmd, &req, issue_flags);
}
