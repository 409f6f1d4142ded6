// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_trace.c - the trace state of a device (struct npu_trace_dev): its
 * creation at probe, its end at remove and its reference count. The trace
 * itself is spread over files by concern, listed in npu_trace_int.h, whose
 * header also gives the locking of them all; Documentation/npu/ring.rst is
 * the contract with userspace.
 *
 * Locking: nothing of its own; npu_trace_fini() takes ctl_lock and the
 * trace lock through npu_trace_ctl_fini().
 *
 * Lifetime: the device holds a reference on its npu_trace_dev from
 * npu_trace_init() until devres runs after the interrupts are freed (so
 * that no handler sees it go); every trace fd holds one until it is
 * released, which may be long after the device is gone.
 */

#include <linux/device.h>
#include <linux/hashtable.h>
#include <linux/kref.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "npu_trace.h"
#include "npu_trace_int.h"

static void npu_trace_dev_release(struct kref *ref)
{
	struct npu_trace_dev *tdev = container_of(ref, struct npu_trace_dev,
						  ref);

	mutex_destroy(&tdev->ctl_lock);
	kfree(tdev);
}

/**
 * npu_trace_dev_get() - take a reference on a device's trace state
 * @ndev: the device, bound (inside npu_dev_enter() or probe)
 *
 * For what may outlive the device and still write trace records until it
 * is gone, as a buffer does.
 *
 * Return: the trace state, or NULL when the device has none.
 */
struct npu_trace_dev *npu_trace_dev_get(struct npu_dev *ndev)
{
	struct npu_trace_dev *tdev = ndev->trace;

	if (tdev)
		kref_get(&tdev->ref);
	return tdev;
}

/**
 * npu_trace_dev_put() - drop a reference on a device's trace state
 * @tdev: the trace state
 */
void npu_trace_dev_put(struct npu_trace_dev *tdev)
{
	kref_put(&tdev->ref, npu_trace_dev_release);
}

static void npu_trace_devm_put(void *data)
{
	struct npu_dev *ndev = data;
	struct npu_trace_dev *tdev = ndev->trace;

	ndev->trace = NULL;
	npu_trace_dev_put(tdev);
}

/**
 * npu_trace_init() - set up the trace state of a device
 * @ndev: the device, after npu_hw_init(), before its interrupts exist
 *
 * Return: 0 or a negative errno.
 */
int npu_trace_init(struct npu_dev *ndev)
{
	struct npu_trace_dev *tdev;

	tdev = kzalloc(sizeof(*tdev), GFP_KERNEL);
	if (!tdev)
		return -ENOMEM;
	kref_init(&tdev->ref);
	tdev->ndev = ndev;
	spin_lock_init(&tdev->lock);
	INIT_LIST_HEAD(&tdev->rings);
	hash_init(tdev->jobs);
	INIT_LIST_HEAD(&tdev->done);
	INIT_DELAYED_WORK(&tdev->deliver_work, npu_trace_deliver_work);
	npu_trace_ctl_init(tdev);
	/* npu_hw_init() checked the trace area against BAR2. */
	if (ndev->hw.caps & NPU_CAP_TRACE)
		tdev->area_size = ndev->hw.trace_size;
	ndev->trace = tdev;
	/* Released after the interrupts, which devres frees first. */
	return devm_add_action_or_reset(&ndev->pdev->dev, npu_trace_devm_put,
					ndev);
}

/**
 * npu_trace_fini() - the device is going away
 * @ndev: the device, already marked unplugged
 *
 * Every ring is disabled and marked dead (poll() reports POLLHUP |
 * POLLERR, ioctls fail with -ENODEV); their memory stays mapped until the
 * trace fds are closed.
 */
void npu_trace_fini(struct npu_dev *ndev)
{
	if (ndev->trace)
		npu_trace_ctl_fini(ndev->trace);
}

/**
 * npu_trace_get_stats() - the device's trace counters
 * @ndev: the device, bound (before npu_trace_fini()'s devres release)
 * @st: out: the counters, zero when the device has no trace state
 */
void npu_trace_get_stats(struct npu_dev *ndev, struct npu_trace_stats *st)
{
	struct npu_trace_dev *tdev = ndev->trace;
	unsigned long flags;

	memset(st, 0, sizeof(*st));
	if (!tdev)
		return;
	spin_lock_irqsave(&tdev->lock, flags);
	*st = tdev->stats;
	spin_unlock_irqrestore(&tdev->lock, flags);
}
