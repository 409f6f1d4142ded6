// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_hw.c - register page bring-up, doorbells and the mailbox.
 */

#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/sched/signal.h>

#include "npu_hwif.h"

static unsigned int ready_timeout_ms = 5000;
module_param(ready_timeout_ms, uint, 0444);
MODULE_PARM_DESC(ready_timeout_ms,
		 "Time to wait at probe for the device to become ready (ms, default 5000)");

static unsigned int mbox_timeout_ms = 2000;
module_param(mbox_timeout_ms, uint, 0644);
MODULE_PARM_DESC(mbox_timeout_ms,
		 "Time to wait for a mailbox acknowledgment (ms, default 2000)");

/* Is [off, off + len) inside BAR2? */
static bool npu_hw_range_ok(struct npu_dev *ndev, u64 off, u64 len)
{
	u64 end;

	if (check_add_overflow(off, len, &end))
		return false;
	return end <= ndev->mem_len;
}

/* Do [a, a + alen) and [b, b + blen) overlap? Both are inside BAR2. */
static bool npu_hw_overlap(u64 a, u64 alen, u64 b, u64 blen)
{
	return a < b + blen && b < a + alen;
}

static int npu_hw_wait_ready(struct npu_dev *ndev)
{
	unsigned long timeout = jiffies + msecs_to_jiffies(ready_timeout_ms);

	for (;;) {
		if (npu_rd32(ndev, NPU_REG_STATUS) & NPU_STATUS_READY)
			break;
		if (time_after(jiffies, timeout))
			return -ETIMEDOUT;
		msleep(20);
	}
	/* The register page is valid once READY is seen. */
	rmb();
	return 0;
}

static void npu_hw_read_desc(struct npu_dev *ndev)
{
	struct npu_hw_desc *hw = &ndev->hw;

	hw->version = npu_rd32(ndev, NPU_REG_VERSION);
	hw->caps = npu_rd32(ndev, NPU_REG_CAPS);
	hw->pe_count = npu_rd32(ndev, NPU_REG_PE_COUNT);
	hw->clock_hz = npu_rd32(ndev, NPU_REG_CLOCK_HZ);
	hw->trace_levels = npu_rd32(ndev, NPU_REG_TRACE_LEVELS);
	hw->db_target = npu_rd32(ndev, NPU_REG_DB_TARGET);
	hw->db_count = npu_rd32(ndev, NPU_REG_DB_COUNT);
	hw->dram_base = npu_rd32(ndev, NPU_REG_DRAM_BASE);
	hw->dram_size = npu_rd32(ndev, NPU_REG_DRAM_SIZE);
	hw->cmdq_base = npu_rd32(ndev, NPU_REG_CMDQ_BASE);
	hw->cmdq_stride = npu_rd32(ndev, NPU_REG_CMDQ_STRIDE);
	hw->cmdq_entries = npu_rd32(ndev, NPU_REG_CMDQ_ENTRIES);
	hw->cplq_base = npu_rd32(ndev, NPU_REG_CPLQ_BASE);
	hw->cplq_entries = npu_rd32(ndev, NPU_REG_CPLQ_ENTRIES);
	hw->trace_base = npu_rd32(ndev, NPU_REG_TRACE_BASE);
	hw->trace_size = npu_rd32(ndev, NPU_REG_TRACE_SIZE);
	hw->sram_size = npu_rd32(ndev, NPU_REG_SRAM_SIZE);
	hw->dma_bw = npu_rd32(ndev, NPU_REG_DMA_BW);
	hw->macs_per_cycle = npu_rd32(ndev, NPU_REG_MACS_PER_CYCLE);
}

/* Reject a register page whose geometry the driver cannot use safely. */
static int npu_hw_check_desc(struct npu_dev *ndev)
{
	struct npu_hw_desc *hw = &ndev->hw;
	u64 bar_size = npu_rd32(ndev, NPU_REG_BAR_SIZE);
	u64 cmdq_need, cplq_need;

	if (!bar_size)
		bar_size = SZ_4G;
	if (bar_size != ndev->mem_len) {
		ndev_err(ndev, "register page: BAR size %#llx, BAR2 is %#llx\n",
			 bar_size, (u64)ndev->mem_len);
		return -EINVAL;
	}
	if (hw->pe_count < 1 || hw->pe_count > NPU_HW_MAX_PES) {
		ndev_err(ndev, "register page: bad PE count %u\n", hw->pe_count);
		return -EINVAL;
	}
	if (!hw->clock_hz) {
		ndev_err(ndev, "register page: clock frequency is 0\n");
		return -EINVAL;
	}
	if (hw->db_count < NPU_DB_COUNT) {
		ndev_err(ndev, "register page: %u doorbells, need %u\n",
			 hw->db_count, NPU_DB_COUNT);
		return -EINVAL;
	}
	if (hw->cmdq_entries < 2 || !is_power_of_2(hw->cmdq_entries) ||
	    hw->cplq_entries < 2 || !is_power_of_2(hw->cplq_entries)) {
		ndev_err(ndev, "register page: queue sizes %u/%u not powers of two\n",
			 hw->cmdq_entries, hw->cplq_entries);
		return -EINVAL;
	}
	cmdq_need = NPU_HW_CMDQ_ENTRIES_OFFSET +
		    (u64)hw->cmdq_entries * sizeof(struct npu_hw_cmd);
	cplq_need = NPU_HW_CPLQ_ENTRIES_OFFSET +
		    (u64)hw->cplq_entries * sizeof(struct npu_hw_cpl);
	if (hw->cmdq_stride < cmdq_need ||
	    !npu_hw_range_ok(ndev, hw->cmdq_base,
			     (u64)hw->cmdq_stride * hw->pe_count) ||
	    !npu_hw_range_ok(ndev, hw->cplq_base, cplq_need) ||
	    !IS_ALIGNED(hw->cmdq_base | hw->cmdq_stride | hw->cplq_base, 64)) {
		ndev_err(ndev, "register page: queues outside BAR2 or misaligned\n");
		return -EINVAL;
	}
	if (!hw->dram_size || !PAGE_ALIGNED(hw->dram_base) ||
	    !npu_hw_range_ok(ndev, hw->dram_base, hw->dram_size)) {
		ndev_err(ndev, "register page: DRAM %#x+%#x outside BAR2 or not page aligned\n",
			 hw->dram_base, hw->dram_size);
		return -EINVAL;
	}
	/*
	 * Buffers are mapped into user space: DRAM must not share a byte with
	 * the register page, the queues or the trace area.
	 */
	if (npu_hw_overlap(hw->dram_base, hw->dram_size, 0, NPU_REG_PAGE_SIZE) ||
	    npu_hw_overlap(hw->dram_base, hw->dram_size, hw->cmdq_base,
			   (u64)hw->cmdq_stride * hw->pe_count) ||
	    npu_hw_overlap(hw->dram_base, hw->dram_size, hw->cplq_base,
			   cplq_need) ||
	    ((hw->caps & NPU_CAP_TRACE) &&
	     npu_hw_overlap(hw->dram_base, hw->dram_size, hw->trace_base,
			    NPU_HW_TRACE_DATA_OFFSET + (u64)hw->trace_size))) {
		ndev_err(ndev, "register page: DRAM %#x+%#x overlaps registers, queues or trace area\n",
			 hw->dram_base, hw->dram_size);
		return -EINVAL;
	}
	/* TRACE_SIZE is the data area, after the header page. */
	if ((hw->caps & NPU_CAP_TRACE) &&
	    (!is_power_of_2(hw->trace_size) ||
	     !IS_ALIGNED(hw->trace_base, 64) ||
	     !npu_hw_range_ok(ndev, hw->trace_base,
			      NPU_HW_TRACE_DATA_OFFSET + (u64)hw->trace_size))) {
		ndev_err(ndev, "register page: bad trace area %#x+%#x\n",
			 hw->trace_base, hw->trace_size);
		return -EINVAL;
	}
	return 0;
}

/**
 * npu_hw_init() - check the device and read its geometry
 * @ndev: the device, with BAR0 and BAR2 mapped
 *
 * Waits (bounded) for NPU_STATUS_READY, checks the magic and the major
 * version and validates the geometry against BAR2. Each failure logs one
 * line.
 *
 * Return: 0 or a negative errno.
 */
int npu_hw_init(struct npu_dev *ndev)
{
	u32 magic, version;
	int ret;

	if (ndev->mem_len < NPU_REG_PAGE_SIZE) {
		ndev_err(ndev, "BAR2 is %llu bytes, too small for the register page\n",
			 (u64)ndev->mem_len);
		return -ENODEV;
	}
	ret = npu_hw_wait_ready(ndev);
	if (ret) {
		ndev_err(ndev, "device not ready after %u ms (magic %#x, status %#x)\n",
			 ready_timeout_ms, npu_rd32(ndev, NPU_REG_MAGIC),
			npu_rd32(ndev, NPU_REG_STATUS));
		return -ENODEV;
	}
	magic = npu_rd32(ndev, NPU_REG_MAGIC);
	if (magic != NPU_HW_MAGIC) {
		ndev_err(ndev, "not an NPU: magic %#010x, expected %#010x\n",
			 magic, NPU_HW_MAGIC);
		return -ENODEV;
	}
	version = npu_rd32(ndev, NPU_REG_VERSION);
	if (NPU_HW_VERSION_GET_MAJOR(version) != NPU_HW_VERSION_MAJOR) {
		ndev_err(ndev, "unsupported hardware interface version %u.%u (driver supports %u.x)\n",
			 NPU_HW_VERSION_GET_MAJOR(version), NPU_HW_VERSION_GET_MINOR(version),
			NPU_HW_VERSION_MAJOR);
		return -ENODEV;
	}
	npu_hw_read_desc(ndev);
	ret = npu_hw_check_desc(ndev);
	if (ret)
		return ret;

	/* Start after whatever sequence a previous driver instance used. */
	ndev->mbox_seq = npu_rd32(ndev, NPU_REG_MBOX_ACK);
	WRITE_ONCE(ndev->mbox_irq_ack, ndev->mbox_seq);
	return 0;
}

/**
 * npu_hw_enable() - let the device process its command queues
 * @ndev: the device
 *
 * Return: 0, or -ETIMEDOUT when the device does not mirror the enable bit.
 */
int npu_hw_enable(struct npu_dev *ndev)
{
	unsigned long timeout;
	u32 ctrl;

	/*
	 * A completion cause that a previous driver left set would make the
	 * device merge every completion into a raise nobody will handle
	 * (hw.rst, "Interrupts"): start with it clear. No job is queued yet.
	 */
	npu_hw_ack_intr(ndev, NPU_INTR_CPL);
	npu_wr32(ndev, NPU_REG_INTR_MASK, 0);
	ctrl = npu_rd32(ndev, NPU_REG_CONTROL) & ~NPU_CTRL_TRACE_MASK;
	npu_wr32(ndev, NPU_REG_CONTROL, ctrl | NPU_CTRL_ENABLE);
	npu_doorbell(ndev, NPU_DB_CONTROL);

	timeout = jiffies + msecs_to_jiffies(READ_ONCE(mbox_timeout_ms));
	while (!(npu_rd32(ndev, NPU_REG_STATUS) & NPU_STATUS_ENABLED)) {
		if (time_after(jiffies, timeout)) {
			ndev_err(ndev, "device did not acknowledge enable (status %#x)\n",
				 npu_rd32(ndev, NPU_REG_STATUS));
			return -ETIMEDOUT;
		}
		usleep_range(100, 200);
	}
	return 0;
}

/**
 * npu_hw_disable() - stop the device processing queues and interrupting
 * @ndev: the device
 */
void npu_hw_disable(struct npu_dev *ndev)
{
	npu_wr32(ndev, NPU_REG_CONTROL, 0);
	npu_doorbell(ndev, NPU_DB_CONTROL);
	npu_wr32(ndev, NPU_REG_INTR_MASK, NPU_INTR_CPL | NPU_INTR_MBOX |
		 NPU_INTR_TRACE | NPU_INTR_ERROR);
}

/**
 * npu_hw_set_trace_level() - set the device's trace level
 * @ndev: the device, present
 * @level: NPU_TRACE_OFF, NPU_TRACE_EXEC or NPU_TRACE_OPS
 *
 * Rewrites the trace field of NPU_REG_CONTROL, keeping the other bits, and
 * rings NPU_DB_CONTROL. Callers serialize (npu_trace_ctl.c's ctl_lock); the
 * only other writers of the register are probe and remove, when no trace
 * ring can change the level.
 */
void npu_hw_set_trace_level(struct npu_dev *ndev, u32 level)
{
	u32 ctrl = npu_rd32(ndev, NPU_REG_CONTROL) & ~NPU_CTRL_TRACE_MASK;

	npu_wr32(ndev, NPU_REG_CONTROL,
		 ctrl | ((level << NPU_CTRL_TRACE_SHIFT) & NPU_CTRL_TRACE_MASK));
	npu_doorbell(ndev, NPU_DB_CONTROL);
}

/**
 * npu_hw_mbox_irq() - NPU_MSIX_MBOX handler
 * @irq: the interrupt
 * @arg: the struct npu_dev
 *
 * Records which request was acknowledged and when, and wakes the requester.
 *
 * Return: IRQ_HANDLED.
 */
irqreturn_t npu_hw_mbox_irq(int irq, void *arg)
{
	struct npu_dev *ndev = arg;
	u64 now = ktime_get_ns();
	u32 ack = npu_rd32(ndev, NPU_REG_MBOX_ACK);

	npu_hw_ack_intr(ndev, NPU_INTR_MBOX);
	spin_lock(&ndev->mbox_irq_lock);
	WRITE_ONCE(ndev->mbox_irq_ack, ack);
	ndev->mbox_irq_ns = now;
	spin_unlock(&ndev->mbox_irq_lock);
	wake_up(&ndev->mbox_wq);
	return IRQ_HANDLED;
}

/* Poll for the acknowledgment of request @seq; mbox_lock held. */
static int npu_mbox_poll_locked(struct npu_dev *ndev, u32 seq, u64 *t_done)
{
	u64 start = ktime_get_ns();
	u64 deadline = start + (u64)READ_ONCE(mbox_timeout_ms) * NSEC_PER_MSEC;
	u32 ack;
	u64 now;

	lockdep_assert_held(&ndev->mbox_lock);
	for (;;) {
		ack = npu_rd32(ndev, NPU_REG_MBOX_ACK);
		now = ktime_get_ns();
		if (ack == seq) {
			*t_done = now;
			return 0;
		}
		if (now > deadline)
			return -ETIMEDOUT;
		/* Spin for the first millisecond, then sleep between polls. */
		if (now - start > NSEC_PER_MSEC)
			usleep_range(50, 100);
		else
			cpu_relax();
	}
}

/* Sleep until the interrupt acknowledges request @seq; mbox_lock held. */
static int npu_mbox_wait_irq_locked(struct npu_dev *ndev, u32 seq, u64 *t_done)
{
	unsigned long flags;
	long left;

	lockdep_assert_held(&ndev->mbox_lock);
	left = wait_event_timeout(ndev->mbox_wq,
				  READ_ONCE(ndev->mbox_irq_ack) == seq ||
				  npu_dev_unplugged(ndev),
				  msecs_to_jiffies(READ_ONCE(mbox_timeout_ms)));
	spin_lock_irqsave(&ndev->mbox_irq_lock, flags);
	if (ndev->mbox_irq_ack == seq) {
		*t_done = ndev->mbox_irq_ns;
		spin_unlock_irqrestore(&ndev->mbox_irq_lock, flags);
		return 0;
	}
	spin_unlock_irqrestore(&ndev->mbox_irq_lock, flags);
	if (npu_dev_unplugged(ndev))
		return -ENODEV;
	if (npu_rd32(ndev, NPU_REG_MBOX_ACK) == seq) {
		/* Acknowledged, but the interrupt never arrived. */
		dev_warn_once(&ndev->pdev->dev,
			      "mailbox acknowledged without an interrupt\n");
		*t_done = ktime_get_ns();
		return 0;
	}
	return left ? -EIO : -ETIMEDOUT;
}

/**
 * npu_mbox_call() - post a mailbox request and wait for its acknowledgment
 * @ndev: the device; the caller is inside npu_dev_enter() or is the remove
 *	path (which uses NPU_MBOX_F_NOIRQ)
 * @op: NPU_MBOX_* with optional NPU_MBOX_F_NOIRQ; without it the caller
 *	sleeps until the NPU_MSIX_MBOX interrupt, with it the caller polls
 * @arg: NPU_REG_MBOX_ARG
 * @res: out: result, data and timestamps
 *
 * Return: 0 when acknowledged (check @res->result), -ETIMEDOUT when the
 * device did not answer within mbox_timeout_ms, -ENODEV after unplug, -EIO
 * at once when the device is dead (npu_dev_dead()).
 */
int npu_mbox_call(struct npu_dev *ndev, u32 op, u32 arg,
		  struct npu_mbox_result *res)
{
	u32 seq;
	int ret;

	if (npu_dev_dead(ndev))
		return -EIO;
	mutex_lock(&ndev->mbox_lock);
	seq = ndev->mbox_seq + 1;
	if (seq == npu_rd32(ndev, NPU_REG_MBOX_ACK))
		seq++;
	ndev->mbox_seq = seq;

	npu_wr32(ndev, NPU_REG_MBOX_OP, op);
	npu_wr32(ndev, NPU_REG_MBOX_ARG, arg);
	npu_wr32(ndev, NPU_REG_MBOX_SEQ, seq);
	res->t_post_ns = ktime_get_ns();
	npu_doorbell(ndev, NPU_DB_MBOX);

	if (op & NPU_MBOX_F_NOIRQ)
		ret = npu_mbox_poll_locked(ndev, seq, &res->t_done_ns);
	else
		ret = npu_mbox_wait_irq_locked(ndev, seq, &res->t_done_ns);
	if (!ret) {
		/* RESULT and DATA were written before ACK. */
		rmb();
		res->result = npu_rd32(ndev, NPU_REG_MBOX_RESULT);
		res->data = npu_rd32(ndev, NPU_REG_MBOX_DATA_LO) |
			    (u64)npu_rd32(ndev, NPU_REG_MBOX_DATA_HI) << 32;
	} else if (ret == -ETIMEDOUT) {
		ndev_err(ndev, "mailbox op %#x seq %u: no acknowledgment in %u ms\n",
			 op, seq, READ_ONCE(mbox_timeout_ms));
	}
	mutex_unlock(&ndev->mbox_lock);
	return ret;
}
