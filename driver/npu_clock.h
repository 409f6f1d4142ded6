/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npu_clock.h - bracketed samples of the device clock against a host clock.
 *
 * OWNED BY THE TRACE ENGINEER.
 */
#ifndef _NPU_CLOCK_H
#define _NPU_CLOCK_H

#include <linux/time.h>
#include <linux/types.h>

struct npu_device;
struct npu_clock_pair;

/**
 * npu_clock_sample() - take bracketed samples of the device clock
 * @ndev: the device; the caller is inside npu_dev_enter() and may sleep
 * @clockid: host clock: CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW,
 *	CLOCK_REALTIME or CLOCK_BOOTTIME
 * @count: samples to take, 1..NPU_CLOCK_MAX_SAMPLES
 * @samples: out: @count samples in the order taken
 * @best: out: index of the narrowest sample
 *
 * Each sample is one NPU_MBOX_CLOCK_LATCH request with NPU_MBOX_F_NOIRQ,
 * polled, between two CLOCK_MONOTONIC reads: the device latched
 * @samples[i].device_tick inside [host_before_ns, host_after_ns]. For the
 * other host clocks the bracket is converted with the kernel's offsets
 * (REALTIME, BOOTTIME) or widened by the uncertainty of a MONOTONIC/RAW
 * pair read (MONOTONIC_RAW), so the guarantee holds for them too.
 *
 * Return: 0; -EINVAL for a bad @clockid or @count; -EOPNOTSUPP when the
 * device cannot latch its clock; -EIO when it refuses; -ETIMEDOUT or
 * -ENODEV from the mailbox; -EINTR on a fatal signal.
 */
int npu_clock_sample(struct npu_device *ndev, clockid_t clockid, u32 count,
		     struct npu_clock_pair *samples, u32 *best);

#endif /* _NPU_CLOCK_H */
