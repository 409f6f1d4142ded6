/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npu_trace.h - hardware trace rings (trace fds) and clock correlation.
 *
 * OWNED BY THE TRACE ENGINEER (issue "Hardware trace"). Driver engineer: do
 * not implement the trace path yourself; call these hooks from the driver at
 * the points named below. The trace engineer adds the calls with minimal
 * edits once your paths exist, and implements everything behind them in
 * npu_trace.c / npu_clock.c.
 */
#ifndef _NPU_TRACE_H
#define _NPU_TRACE_H

#include <linux/types.h>

struct npu_device;
struct file;

/**
 * struct npu_trace_job - host context of one job, as the trace sees it
 * @job_id: job id (npu_hw_cmd.job_id)
 * @tgid: submitting process
 * @pid: submitting thread
 * @pe: PE the job ran on
 * @status: NPU_JOB_* status
 * @submit_ns: ktime_get_ns() at submission
 * @complete_ns: ktime_get_ns() when the completion was seen
 */
struct npu_trace_job {
	u64 job_id;
	pid_t tgid;
	pid_t pid;
	u32 pe;
	u32 status;
	u64 submit_ns;
	u64 complete_ns;
};

/* at probe, after the hardware is up; at remove, before the hardware goes */
int npu_trace_init(struct npu_device *ndev);
void npu_trace_fini(struct npu_device *ndev);

/* ioctls on /dev/npuN */
long npu_trace_open_ioctl(struct npu_device *ndev, void __user *arg);
long npu_clock_sample_ioctl(struct npu_device *ndev, void __user *arg);

/* NPU_MSIX_TRACE handler; also called before completions are drained */
void npu_trace_drain(struct npu_device *ndev);

/* job path: after the command is queued; after its completion is seen */
void npu_trace_job_submitted(struct npu_device *ndev,
			     const struct npu_trace_job *job);
void npu_trace_job_completed(struct npu_device *ndev,
			     const struct npu_trace_job *job);

#endif /* _NPU_TRACE_H */
