// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * uring.c - job submission and completion through io_uring (liburing):
 * NPU_URING_CMD_SUBMIT commands on the device fd, their CQEs on the same
 * ring (Documentation/npu/uapi.rst, "Job submission through io_uring").
 *
 * A ring per runner context: a context runs one job at a time from one
 * thread at a time, so its ring needs no lock, and the thread that waits
 * for the CQE is the one whose task work posts it (the driver completes a
 * command in its submitter's context): one wakeup per job.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <liburing.h>

#include "npu_internal.h"

struct npu_uring {
	struct io_uring ring;
	int fd;
	bool queued;			/* a command was submitted ... */
	bool done;			/* ... and its CQE reaped */
	int cqe_res;			/* NPU_JOB_* or -errno */
	__u64 cqe_id;			/* the job id (CQE32) */
	struct npu_job_result res;	/* written by the driver */
};

/* Fill an SQE128 slot by hand: liburing 2.3 has no io_uring_prep_cmd(). */
static void npu_uring_prep(struct io_uring_sqe *sqe, int fd,
			   const struct npu_uring_submit *req)
{
	memset((char *)sqe, 0, 2 * sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->cmd_op = NPU_URING_CMD_SUBMIT;
	memcpy(sqe->cmd, req, sizeof(*req));
}

int npu_uring_probe(int fd)
{
	struct npu_uring_submit req = { .job.flags = ~0u };
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	int ret;

	ret = io_uring_queue_init(1, &ring, IORING_SETUP_SQE128);
	if (ret < 0)
		return 0;	/* no io_uring here (or not allowed) */
	sqe = io_uring_get_sqe(&ring);
	if (!sqe) {
		io_uring_queue_exit(&ring);
		return 0;
	}
	/* Bad flags: -EINVAL from the driver, -EOPNOTSUPP without one. */
	npu_uring_prep(sqe, fd, &req);
	ret = io_uring_submit(&ring);
	if (ret == 1)
		ret = io_uring_wait_cqe(&ring, &cqe);
	if (ret >= 0) {
		ret = cqe->res == -EINVAL;
		io_uring_cqe_seen(&ring, cqe);
	} else {
		ret = 0;
	}
	io_uring_queue_exit(&ring);
	return ret;
}

int npu_uring_create(int fd, struct npu_uring **up)
{
	struct npu_uring *u;
	int ret;

	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	ret = io_uring_queue_init(2, &u->ring,
				  IORING_SETUP_SQE128 | IORING_SETUP_CQE32);
	if (ret < 0) {
		free(u);
		return ret;
	}
	u->fd = fd;
	*up = u;
	return 0;
}

void npu_uring_free(struct npu_uring *u)
{
	if (!u)
		return;
	/* A command still queued is cancelled or waited for by the kernel. */
	io_uring_queue_exit(&u->ring);
	free(u);
}

static int64_t npu_uring_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/*
 * Reap the CQE of the queued command: < 0 waits for ever, 0 only checks.
 * A signal does not stretch a timed wait: the time left is recomputed.
 * The CQE of a job the driver completed is posted by task work, which
 * runs when the thread next enters the kernel: a check that finds no CQE
 * enters it once (io_uring_get_events()) and looks again, so that it
 * reports what NPU_IOCTL_WAIT would.
 */
static int npu_uring_reap(struct npu_uring *u, int64_t timeout_ns)
{
	int64_t deadline = timeout_ns > 0 ? npu_uring_now() + timeout_ns : 0;
	struct __kernel_timespec kts;
	struct io_uring_cqe *cqe;
	int64_t left;
	int ret;

	for (;;) {
		if (timeout_ns < 0) {
			ret = io_uring_wait_cqe(&u->ring, &cqe);
		} else if (!timeout_ns) {
			ret = io_uring_peek_cqe(&u->ring, &cqe);
			if (ret == -EAGAIN && io_uring_get_events(&u->ring) >= 0)
				ret = io_uring_peek_cqe(&u->ring, &cqe);
		} else {
			left = deadline - npu_uring_now();
			if (left < 0)
				left = 0;
			kts.tv_sec = left / 1000000000;
			kts.tv_nsec = left % 1000000000;
			ret = io_uring_wait_cqe_timeout(&u->ring, &cqe, &kts);
		}
		if (!ret)
			break;
		if (ret == -EAGAIN || ret == -ETIME)
			return -ETIMEDOUT;
		if (ret != -EINTR)
			return ret;
		if (timeout_ns > 0 && npu_uring_now() >= deadline)
			return -ETIMEDOUT;
	}
	u->cqe_res = cqe->res;
	u->cqe_id = cqe->big_cqe[0];
	u->done = true;
	io_uring_cqe_seen(&u->ring, cqe);
	return 0;
}

int npu_uring_submit(struct npu_uring *u, const struct npu_job_desc *job,
		     __u64 *job_id)
{
	struct npu_uring_submit cmd = {
		.job = *job,
		.result = (uintptr_t)&u->res,
	};
	struct io_uring_sqe *sqe;
	int ret;

	if (u->queued)
		return -EBUSY;
	sqe = io_uring_get_sqe(&u->ring);
	if (!sqe)
		return -EBUSY;
	memset(&u->res, 0, sizeof(u->res));
	u->done = false;
	npu_uring_prep(sqe, u->fd, &cmd);
	ret = io_uring_submit(&u->ring);
	if (ret < 0)
		return ret;
	u->queued = true;
	/*
	 * The driver wrote the id when it queued the job in this call.
	 * Otherwise the command failed (its CQE is there) or waits for queue
	 * room in io_uring's worker, as a blocking NPU_IOCTL_SUBMIT would:
	 * the id then comes with the completion.
	 */
	*job_id = u->res.job_id;
	if (*job_id)
		return 0;
	ret = npu_uring_reap(u, -1);
	if (ret < 0)
		return ret;
	if (u->cqe_res < 0 && !u->cqe_id) {
		u->queued = false;
		return u->cqe_res;	/* no job was queued */
	}
	*job_id = u->cqe_id;
	return 0;
}

int npu_uring_wait(struct npu_uring *u, int64_t timeout_ns,
		   struct npu_job_result *res)
{
	int ret;

	if (!u->queued)
		return -EINVAL;
	if (!u->done) {
		ret = npu_uring_reap(u, timeout_ns);
		if (ret < 0)
			return ret;
	}
	u->queued = false;
	if (u->cqe_res < 0)
		return u->cqe_res;
	/* the CQE's copies: the driver writes them whatever @res holds */
	*res = u->res;
	res->job_id = u->cqe_id;
	res->status = (__u32)u->cqe_res;
	return 0;
}
