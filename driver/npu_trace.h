/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npu_trace.h - hardware trace rings (trace fds) and clock correlation.
 *
 * OWNED BY THE TRACE ENGINEER (issue "Hardware trace"). Driver engineer: do
 * not implement the trace path yourself; call these hooks from the driver at
 * the points named below. The trace engineer adds the calls with minimal
 * edits once your paths exist, and implements everything behind them in
 * npu_trace.c / npu_clock.c. Documentation/npu/ring.rst describes the
 * result.
 */
#ifndef _NPU_TRACE_H
#define _NPU_TRACE_H

#include <linux/irqreturn.h>
#include <linux/types.h>

struct npu_device;
struct npu_job;
struct npu_trace_dev;

/*
 * At probe, after npu_hw_init() and BEFORE the interrupts are requested
 * (the trace state is released by devres after the interrupts are freed);
 * at remove, after the device is marked unplugged, before the hardware
 * goes.
 */
int npu_trace_init(struct npu_device *ndev);
void npu_trace_fini(struct npu_device *ndev);

/* ioctls on /dev/npuN, inside npu_dev_enter() */
long npu_trace_open_ioctl(struct npu_device *ndev, void __user *arg);
long npu_clock_sample_ioctl(struct npu_device *ndev, void __user *arg);

/*
 * Drain the device's trace area into the rings: the NPU_MSIX_TRACE handler
 * (threaded), and the completion path after it read the completion
 * queue's producer and before it processes the entries. Any context.
 */
void npu_trace_drain(struct npu_device *ndev);
irqreturn_t npu_trace_irq(int irq, void *arg);

/*
 * Job path (struct npu_job, npu_job.c), with npu_device.jobs_lock held.
 * npu_trace_job_submitted(): once id, tgid, pid, pe and submit_ns are set,
 * BEFORE the device can see the job (before the queue's producer moves).
 * npu_trace_job_completed(): once complete_ns, status and the ticks are
 * set, for every job, failed and aborted ones included.
 */
void npu_trace_job_submitted(struct npu_device *ndev,
			     const struct npu_job *job);
void npu_trace_job_completed(struct npu_device *ndev,
			     const struct npu_job *job);

#endif /* _NPU_TRACE_H */
