// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_clock.c - device clock sampling (NPU_IOCTL_CLOCK_SAMPLE and the CLOCK
 * records of the trace rings).
 *
 * A sample brackets one NPU_MBOX_CLOCK_LATCH request between two reads of
 * CLOCK_MONOTONIC, like PTP_SYS_OFFSET_EXTENDED: the request is posted and
 * polled (NPU_MBOX_F_NOIRQ) through the driver's mailbox helper, which
 * serializes it against every other mailbox user.
 */

#include <linux/ktime.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#include <linux/npu.h>

#include "npu_clock.h"
#include "npu_drv.h"
#include "npu_hwif.h"
#include "npu_trace.h"

/*
 * MONOTONIC_RAW is not an offset of MONOTONIC: NTP slews one and not the
 * other. Read RAW between two MONOTONIC reads; raw - mono then lies in
 * [raw - m2, raw - m1]. Over the short distance between this pair and the
 * sample, the two clocks' rates differ by less than 1000 ppm, which the
 * caller adds as a margin.
 */
struct npu_raw_pair {
	u64 mono;	/* m1 */
	u64 span;	/* m2 - m1 */
	u64 raw;
};

static void npu_raw_pair_read(struct npu_raw_pair *p)
{
	struct npu_raw_pair t;
	int i;

	/* The narrowest of three reads, in case one was interrupted. */
	p->span = U64_MAX;
	for (i = 0; i < 3; i++) {
		t.mono = ktime_get_ns();
		t.raw = ktime_get_raw_ns();
		t.span = ktime_get_ns() - t.mono;
		if (t.span < p->span)
			*p = t;
	}
}

/* Map a MONOTONIC instant to RAW; @up selects the upper bound. */
static u64 npu_mono_to_raw(const struct npu_raw_pair *p, u64 t, bool up)
{
	u64 dist = t > p->mono ? t - p->mono : p->mono - t;
	u64 margin = (dist >> 10) + 1;
	/* raw(t) = t + (raw - mono_at_raw), mono_at_raw in [m1, m1 + span] */
	s64 lo = (s64)(p->raw - p->mono - p->span);
	s64 hi = (s64)(p->raw - p->mono);

	return up ? t + hi + margin : t + lo - margin;
}

static u64 npu_mono_to(clockid_t clockid, u64 t)
{
	switch (clockid) {
	case CLOCK_REALTIME:
		return ktime_to_ns(ktime_mono_to_any(ns_to_ktime(t),
						     TK_OFFS_REAL));
	case CLOCK_BOOTTIME:
		return ktime_to_ns(ktime_mono_to_any(ns_to_ktime(t),
						     TK_OFFS_BOOT));
	default:
		return t;
	}
}

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
int npu_clock_sample(struct npu_dev *ndev, clockid_t clockid, u32 count,
		     struct npu_clock_pair *samples, u32 *best)
{
	struct npu_mbox_result res;
	struct npu_raw_pair rp;
	u64 width, best_width = U64_MAX;
	u32 i;
	int ret;

	if (clockid != CLOCK_MONOTONIC && clockid != CLOCK_MONOTONIC_RAW &&
	    clockid != CLOCK_REALTIME && clockid != CLOCK_BOOTTIME)
		return -EINVAL;
	if (!count || count > NPU_CLOCK_MAX_SAMPLES)
		return -EINVAL;
	if (!(ndev->hw.caps & NPU_CAP_CLOCK_LATCH))
		return -EOPNOTSUPP;

	*best = 0;
	for (i = 0; i < count; i++) {
		struct npu_clock_pair *s = &samples[i];

		if (fatal_signal_pending(current))
			return -EINTR;
		ret = npu_mbox_call(ndev, NPU_MBOX_CLOCK_LATCH | NPU_MBOX_F_NOIRQ,
				    0, &res);
		if (ret)
			return ret;
		if (res.result != NPU_MBOX_OK)
			return -EIO;

		if (clockid == CLOCK_MONOTONIC_RAW) {
			npu_raw_pair_read(&rp);
			s->host_before_ns = npu_mono_to_raw(&rp, res.t_post_ns,
							    false);
			s->host_after_ns = npu_mono_to_raw(&rp, res.t_done_ns,
							   true);
		} else {
			s->host_before_ns = npu_mono_to(clockid, res.t_post_ns);
			s->host_after_ns = npu_mono_to(clockid, res.t_done_ns);
		}
		s->device_tick = res.data;

		width = s->host_after_ns - s->host_before_ns;
		if (width < best_width) {
			best_width = width;
			*best = i;
		}
	}
	return 0;
}

/**
 * npu_clock_sample_ioctl() - NPU_IOCTL_CLOCK_SAMPLE
 * @nf: the file, inside npu_dev_enter()
 * @uarg: struct npu_clock_sample in user memory
 *
 * Return: 0 or a negative errno (see struct npu_clock_sample).
 */
int npu_clock_sample_ioctl(struct npu_file *nf, void __user *uarg)
{
	struct npu_dev *ndev = nf->ndev;
	struct npu_clock_sample *cs;
	int ret;

	cs = kmalloc(sizeof(*cs), GFP_KERNEL);
	if (!cs)
		return -ENOMEM;
	ret = npu_copy_args(cs, uarg);
	if (ret)
		goto out;
	if (cs->flags || !cs->count || cs->count > NPU_CLOCK_MAX_SAMPLES) {
		ret = -EINVAL;
		goto out;
	}
	memset(cs->samples, 0, sizeof(cs->samples));
	ret = npu_clock_sample(ndev, cs->clockid, cs->count, cs->samples,
			       &cs->best);
	if (ret)
		goto out;
	cs->clock_hz = ndev->hw.clock_hz;
	if (copy_to_user(uarg, cs, sizeof(*cs)))
		ret = -EFAULT;
out:
	kfree(cs);
	return ret;
}
