/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npu_hwif.h - the driver's side of the hardware interface (npu_hw.c):
 * register access, doorbells, bring-up and the mailbox. The interface
 * itself (register offsets, structures) is npu_hw.h, shared with the device.
 */
#ifndef _NPU_HWIF_H
#define _NPU_HWIF_H

#include <linux/interrupt.h>
#include <linux/io.h>

#include "npu_drv.h"

/*
 * Accessors of BAR2 (register page, queues, trace area), by device
 * address. The 64-bit ones are for values the device stores atomically
 * (the trace area's positions), which needs a 64-bit architecture.
 */
static inline u32 npu_rd32(struct npu_dev *ndev, u32 off)
{
	return readl(ndev->mem + off);
}

static inline void npu_wr32(struct npu_dev *ndev, u32 off, u32 val)
{
	writel(val, ndev->mem + off);
}

static inline u64 npu_rd64(struct npu_dev *ndev, u32 off)
{
	return readq(ndev->mem + off);
}

static inline void npu_wr64(struct npu_dev *ndev, u32 off, u64 val)
{
	writeq(val, ndev->mem + off);
}

/**
 * npu_doorbell() - ring one of the device's doorbells
 * @ndev: the device
 * @doorbell: NPU_DB_*
 *
 * Every write to shared memory issued before the call is visible to the
 * device before the doorbell (writel() orders them).
 */
static inline void npu_doorbell(struct npu_dev *ndev, u32 doorbell)
{
	writel((ndev->hw.db_target << 16) | doorbell,
	       ndev->db + NPU_BAR0_DOORBELL);
}

/**
 * npu_hw_ack_intr() - clear cause bits in NPU_REG_INTR_CAUSE
 * @ndev: the device
 * @cause: NPU_INTR_* bits to clear
 *
 * The device sets cause bits atomically and raises the vector each time, so
 * a bit the device sets while the host rewrites the register costs nothing
 * but an informational bit; host writers are serialized by intr_lock.
 */
static inline void npu_hw_ack_intr(struct npu_dev *ndev, u32 cause)
{
	unsigned long flags;
	u32 v;

	spin_lock_irqsave(&ndev->intr_lock, flags);
	v = npu_rd32(ndev, NPU_REG_INTR_CAUSE);
	if (v & cause)
		npu_wr32(ndev, NPU_REG_INTR_CAUSE, v & ~cause);
	spin_unlock_irqrestore(&ndev->intr_lock, flags);
}

int npu_hw_init(struct npu_dev *ndev);
int npu_hw_enable(struct npu_dev *ndev);
void npu_hw_disable(struct npu_dev *ndev);
void npu_hw_set_trace_level(struct npu_dev *ndev, u32 level);

irqreturn_t npu_hw_mbox_irq(int irq, void *arg);

/**
 * struct npu_mbox_result - outcome of one mailbox request
 * @result: NPU_REG_MBOX_RESULT
 * @data: NPU_REG_MBOX_DATA_HI:LO
 * @t_post_ns: CLOCK_MONOTONIC just before the doorbell was rung
 * @t_done_ns: CLOCK_MONOTONIC when the acknowledgment was seen (by the
 *	interrupt handler, or by the poll loop for NPU_MBOX_F_NOIRQ)
 */
struct npu_mbox_result {
	u32 result;
	u64 data;
	u64 t_post_ns;
	u64 t_done_ns;
};

int npu_mbox_call(struct npu_dev *ndev, u32 op, u32 arg,
		  struct npu_mbox_result *res);

#endif /* _NPU_HWIF_H */
