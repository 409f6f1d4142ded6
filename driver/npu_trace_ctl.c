// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_trace_ctl.c - turning trace rings on and off: NPU_TRACE_IOCTL_ENABLE
 * and DISABLE, the device's trace level (the highest of the enabled
 * rings'), and the CLOCK records that bound the clock fit: one at enable,
 * one every clock_period_ms, a closing one at disable.
 *
 * Locking: npu_trace_dev.ctl_lock (a mutex) serializes enable, disable,
 * release and removal, and owns the device trace level; a ring's enabled
 * state and the count of enabled rings change under ctl_lock and
 * npu_trace_dev.lock both, so that the record paths (trace lock only) and
 * the clock work (lockless hint) see them. Order: ctl_lock -> mbox_lock
 * (clock samples), ctl_lock -> trace lock.
 *
 * Lifetime: the clock work belongs to the npu_trace_dev; it is cancelled
 * when the last ring is disabled and, synchronously, at removal. It enters
 * the device with npu_dev_enter() and stops rearming once the device is
 * dead.
 */

#include <linux/jiffies.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/poll.h>
#include <linux/workqueue.h>

#include <linux/npu.h>

#include "npu_clock.h"
#include "npu_hwif.h"
#include "npu_trace.h"
#include "npu_trace_int.h"

static unsigned int clock_period_ms = 100;
module_param(clock_period_ms, uint, 0644);
MODULE_PARM_DESC(clock_period_ms,
		 "Period of CLOCK records in enabled trace rings (ms, 0 = only at enable; default 100)");

static unsigned int clock_samples = 8;
module_param(clock_samples, uint, 0644);
MODULE_PARM_DESC(clock_samples,
		 "Bracketed samples per CLOCK record; the narrowest is kept (1..32, default 8)");

/* A CLOCK record: the narrowest of clock_samples bracketed samples. */
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

/*
 * Delay of the next periodic CLOCK record: a timer of N jiffies may fire
 * after N - 1 (the current jiffy is partly over), so one more keeps the
 * records at least @period_ms apart, as ring.rst promises.
 */
static unsigned long npu_trace_clock_delay(unsigned int period_ms)
{
	return msecs_to_jiffies(period_ms) + 1;
}

static void npu_trace_clock_work(struct work_struct *work)
{
	struct npu_trace_dev *tdev = container_of(to_delayed_work(work),
						  struct npu_trace_dev,
						  clock_work);
	struct npu_dev *ndev = tdev->ndev;
	struct npu_trace_rec_clock rec;
	unsigned int period;
	struct npu_tring *r;
	unsigned long flags;
	int idx, ret;

	if (!READ_ONCE(tdev->nr_enabled) || !npu_dev_enter(ndev, &idx))
		return;
	ret = npu_trace_clock_rec(tdev, &rec);
	npu_dev_exit(ndev, idx);

	period = READ_ONCE(clock_period_ms);
	spin_lock_irqsave(&tdev->lock, flags);
	if (!ret && !tdev->dead) {
		npu_trace_keep_clock_locked(tdev, &rec);
		list_for_each_entry(r, &tdev->rings, node)
			if (r->enabled)
				npu_tring_emit_locked(r, &rec, sizeof(rec));
	}
	if (tdev->nr_enabled && !tdev->dead && period)
		schedule_delayed_work(&tdev->clock_work,
				      npu_trace_clock_delay(period));
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

/* Set the device's trace level to the highest enabled ring's; ctl_lock. */
static void npu_trace_update_level_locked(struct npu_trace_dev *tdev)
{
	struct npu_dev *ndev = tdev->ndev;
	u32 level = npu_trace_max_level(tdev);

	lockdep_assert_held(&tdev->ctl_lock);
	if (level == tdev->dev_level || !(ndev->hw.caps & NPU_CAP_TRACE))
		return;
	npu_hw_set_trace_level(ndev, level);
	tdev->dev_level = level;
}

/**
 * npu_trace_ctl_enable() - NPU_TRACE_IOCTL_ENABLE
 * @r: the ring, inside npu_dev_enter()
 * @level: NPU_TRACE_OFF, NPU_TRACE_EXEC or NPU_TRACE_OPS
 *
 * Takes a CLOCK record first (when the device can latch its clock). The
 * first ring enabled discards the trace area's leftovers, sets the area's
 * watermark and starts the clock work.
 *
 * Return: 0, -EINVAL, -EOPNOTSUPP (level), -ENODEV, or the clock
 * sample's errors.
 */
int npu_trace_ctl_enable(struct npu_tring *r, u32 level)
{
	struct npu_trace_dev *tdev = r->tdev;
	struct npu_dev *ndev = r->ndev;
	struct npu_trace_rec_clock clk;
	bool have_clk = false, first = false;
	unsigned long flags;
	int ret;

	if (level > NPU_TRACE_OPS)
		return -EINVAL;
	if (level && (!(ndev->hw.caps & NPU_CAP_TRACE) ||
		      !(ndev->hw.trace_levels & BIT(level))))
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
			npu_tarea_drain_locked(tdev, false);
			first = true;
		}
		r->enabled = true;
		WRITE_ONCE(tdev->nr_enabled, tdev->nr_enabled + 1);
		atomic_inc(&ndev->trace_rings);
	}
	r->level = level;
	npu_tring_set_flags_locked(r);
	if (have_clk) {
		npu_trace_keep_clock_locked(tdev, &clk);
		npu_tring_emit_locked(r, &clk, sizeof(clk));
	}
	spin_unlock_irqrestore(&tdev->lock, flags);

	if (first && tdev->area_size)
		npu_wr32(ndev, NPU_REG_TRACE_WMARK, tdev->area_size / 2);
	npu_trace_update_level_locked(tdev);
	if (first && have_clk && READ_ONCE(clock_period_ms))
		mod_delayed_work(system_wq, &tdev->clock_work,
				 npu_trace_clock_delay(READ_ONCE(clock_period_ms)));
	ret = 0;
out:
	mutex_unlock(&tdev->ctl_lock);
	return ret;
}

/*
 * The last ring was disabled: stop the periodic CLOCK records, waiting for
 * a run in progress, so that none of this trace's records (nor its period)
 * reaches a ring enabled later. The work does not take ctl_lock; ctl_lock
 * held.
 */
static void npu_trace_clock_stop_locked(struct npu_trace_dev *tdev)
{
	lockdep_assert_held(&tdev->ctl_lock);
	cancel_delayed_work_sync(&tdev->clock_work);
}

/* Stop a ring receiving records; ctl_lock held. True if it was on. */
static bool npu_trace_ctl_off_locked(struct npu_tring *r)
{
	struct npu_trace_dev *tdev = r->tdev;
	unsigned long flags;
	bool was;

	lockdep_assert_held(&tdev->ctl_lock);
	spin_lock_irqsave(&tdev->lock, flags);
	was = r->enabled;
	if (was) {
		r->enabled = false;
		WRITE_ONCE(tdev->nr_enabled, tdev->nr_enabled - 1);
		atomic_dec(&r->ndev->trace_rings);
		if (!tdev->nr_enabled)
			npu_trace_jobs_flush_locked(tdev);
		npu_tring_flush_lost_locked(r);
		npu_tring_set_flags_locked(r);
	}
	spin_unlock_irqrestore(&tdev->lock, flags);
	return was;
}

/**
 * npu_trace_ctl_disable() - NPU_TRACE_IOCTL_DISABLE
 * @r: the ring, inside npu_dev_enter()
 *
 * A closing CLOCK record bounds the clock fit at the end too.
 */
void npu_trace_ctl_disable(struct npu_tring *r)
{
	struct npu_trace_dev *tdev = r->tdev;
	struct npu_trace_rec_clock clk;
	unsigned long flags;

	mutex_lock(&tdev->ctl_lock);
	/* The records of the jobs completed so far, before the ring stops. */
	if (r->enabled)
		__npu_trace_drain(r->ndev);
	if (r->enabled && (r->ndev->hw.caps & NPU_CAP_CLOCK_LATCH) &&
	    !npu_trace_clock_rec(tdev, &clk)) {
		spin_lock_irqsave(&tdev->lock, flags);
		if (r->enabled) {
			npu_trace_keep_clock_locked(tdev, &clk);
			npu_tring_emit_locked(r, &clk, sizeof(clk));
		}
		spin_unlock_irqrestore(&tdev->lock, flags);
	}
	if (npu_trace_ctl_off_locked(r)) {
		npu_trace_update_level_locked(tdev);
		if (!tdev->nr_enabled)
			npu_trace_clock_stop_locked(tdev);
	}
	mutex_unlock(&tdev->ctl_lock);
}

/**
 * npu_trace_ctl_release() - a trace fd is closed
 * @r: the ring, maybe enabled, maybe of a removed device
 *
 * Delivers the pending records and disables the ring (no closing CLOCK
 * record: nobody reads it any more), and lowers the device level, if the
 * device is still there.
 */
void npu_trace_ctl_release(struct npu_tring *r)
{
	struct npu_trace_dev *tdev = r->tdev;
	bool present;
	int idx;

	mutex_lock(&tdev->ctl_lock);
	present = npu_dev_enter(r->ndev, &idx);
	/* Other rings may be waiting for the pending records too. */
	if (present && r->enabled)
		__npu_trace_drain(r->ndev);
	if (npu_trace_ctl_off_locked(r) && present)
		npu_trace_update_level_locked(tdev);
	if (present)
		npu_dev_exit(r->ndev, idx);
	if (!tdev->nr_enabled)
		npu_trace_clock_stop_locked(tdev);
	mutex_unlock(&tdev->ctl_lock);
}

/**
 * npu_trace_ctl_init() - set up the control state of a device's trace
 * @tdev: the device's trace state, being created
 */
void npu_trace_ctl_init(struct npu_trace_dev *tdev)
{
	mutex_init(&tdev->ctl_lock);
	INIT_DELAYED_WORK(&tdev->clock_work, npu_trace_clock_work);
}

/**
 * npu_trace_ctl_fini() - the device is going away: every ring off and dead
 * @tdev: the device's trace state; the device is marked unplugged
 *
 * poll() of every ring reports POLLHUP | POLLERR from now on and its
 * ioctls fail with -ENODEV; the clock work is stopped and the device's
 * trace level set to off.
 */
void npu_trace_ctl_fini(struct npu_trace_dev *tdev)
{
	struct npu_dev *ndev = tdev->ndev;
	struct npu_tring *r;
	unsigned long flags;

	mutex_lock(&tdev->ctl_lock);
	spin_lock_irqsave(&tdev->lock, flags);
	/* The jobs failed at the removal: their EXEC records, area aside. */
	npu_trace_jobs_deliver_locked(tdev);
	tdev->dead = true;
	list_for_each_entry(r, &tdev->rings, node) {
		r->enabled = false;
		r->dead = true;
		npu_tring_set_flags_locked(r);
		wake_up_interruptible_poll(&r->wq, EPOLLHUP | EPOLLERR);
	}
	WRITE_ONCE(tdev->nr_enabled, 0);
	atomic_set(&ndev->trace_rings, 0);
	npu_trace_jobs_flush_locked(tdev);
	spin_unlock_irqrestore(&tdev->lock, flags);
	cancel_delayed_work_sync(&tdev->clock_work);
	cancel_delayed_work_sync(&tdev->deliver_work);
	if (tdev->dev_level) {
		npu_hw_set_trace_level(ndev, NPU_TRACE_OFF);
		tdev->dev_level = 0;
	}
	mutex_unlock(&tdev->ctl_lock);
}
