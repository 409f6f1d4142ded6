/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npu_uring.h - job submission through io_uring (IORING_OP_URING_CMD).
 */
#ifndef _NPU_URING_H
#define _NPU_URING_H

struct io_uring_cmd;
struct npu_job;

int npu_uring_cmd(struct io_uring_cmd *cmd, unsigned int issue_flags);
void npu_uring_job_queued_locked(struct npu_job *job);
void npu_uring_job_done_locked(struct npu_job *job);
void npu_uring_job_cancel_locked(struct npu_job *job);

#endif /* _NPU_URING_H */
