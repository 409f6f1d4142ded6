// SPDX-License-Identifier: GPL-2.0-only
/*
 * device.c - memory map, register page, interrupts, mailbox and control.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "emu_int.h"

_Static_assert(sizeof(struct npu_hw_cmd) == 128, "command entry size");
_Static_assert(sizeof(struct npu_hw_cpl) == 32, "completion entry size");
_Static_assert(NPU_HW_CMDQ_ENTRIES_OFFSET + NPU_EMU_CMDQ_ENTRIES *
	       sizeof(struct npu_hw_cmd) <= NPU_EMU_CMDQ_STRIDE,
	       "command queue fits its stride");
_Static_assert(NPU_EMU_CMDQ_BASE + NPU_HW_MAX_PES * NPU_EMU_CMDQ_STRIDE <=
	       NPU_EMU_CPLQ_BASE, "command queues below the completion queue");
_Static_assert(NPU_EMU_CPLQ_BASE + NPU_HW_CPLQ_ENTRIES_OFFSET +
	       NPU_EMU_CPLQ_ENTRIES * sizeof(struct npu_hw_cpl) <=
	       NPU_EMU_TRACE_BASE, "completion queue below the trace area");
_Static_assert(sizeof(struct npu_hw_trace_hdr) <= NPU_HW_TRACE_DATA_OFFSET,
	       "trace header fits its page");

int npu_emu_compute_layout(const struct npu_emu_opts *o,
			   struct npu_emu_layout *l)
{
	uint64_t end, bar;

	memset(l, 0, sizeof(*l));
	l->cmdq_base = NPU_EMU_CMDQ_BASE;
	l->cmdq_stride = NPU_EMU_CMDQ_STRIDE;
	l->cmdq_entries = NPU_EMU_CMDQ_ENTRIES;
	l->cplq_base = NPU_EMU_CPLQ_BASE;
	l->cplq_entries = NPU_EMU_CPLQ_ENTRIES;
	l->trace_base = NPU_EMU_TRACE_BASE;
	l->trace_size = o->trace_size;
	if (o->trace_size < NPU_EMU_MIN_TRACE ||
	    o->trace_size > NPU_EMU_MAX_TRACE ||
	    (o->trace_size & (o->trace_size - 1)))
		return -EINVAL;
	if (!o->dram_size || (o->dram_size & 4095))
		return -EINVAL;

	/* DRAM follows the trace area, at 4 MiB unless a large trace area
	 * pushes it to the next MiB boundary.
	 */
	end = l->trace_base + NPU_HW_TRACE_DATA_OFFSET + l->trace_size;
	l->dram_base = NPU_EMU_DRAM_BASE;
	if (end > l->dram_base)
		l->dram_base = (end + (1u << 20) - 1) & ~((uint64_t)(1u << 20) - 1);
	l->dram_size = o->dram_size;
	if (l->dram_size > NPU_EMU_MAX_BAR - l->dram_base)
		return -EINVAL;
	end = l->dram_base + l->dram_size;
	for (bar = 4096; bar < end; bar <<= 1)
		;
	l->bar_size = bar;
	return 0;
}

int emu_dev_init_shm(struct npu_emu *e)
{
	void *p;
	int ret;

	e->shm_fd = memfd_create("npu-emu-bar2", MFD_CLOEXEC);
	if (e->shm_fd < 0) {
		ret = -errno;
		emu_err("memfd_create: %s", strerror(errno));
		return ret;
	}
	if (ftruncate(e->shm_fd, (off_t)e->lay.bar_size)) {
		ret = -errno;
		emu_err("cannot size shared memory to %" PRIu64 " bytes: %s",
			e->lay.bar_size, strerror(errno));
		return ret;
	}
	p = mmap(NULL, e->lay.bar_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 e->shm_fd, 0);
	if (p == MAP_FAILED) {
		ret = -errno;
		emu_err("cannot map %" PRIu64 " bytes of shared memory: %s",
			e->lay.bar_size, strerror(errno));
		return ret;
	}
	e->shm = p;
	return 0;
}

void emu_dev_init_regs(struct npu_emu *e)
{
	const struct npu_emu_layout *l = &e->lay;
	const struct npu_emu_opts *o = &e->opts;

	emu_reg_write(e, NPU_REG_MAGIC, NPU_HW_MAGIC);
	emu_reg_write(e, NPU_REG_VERSION, o->hw_version);
	emu_reg_write(e, NPU_REG_CAPS, NPU_CAP_TRACE | NPU_CAP_CLOCK_LATCH |
		      (o->pes > 1 ? NPU_CAP_MULTI_PE : 0));
	emu_reg_write(e, NPU_REG_PE_COUNT, o->pes);
	emu_reg_write(e, NPU_REG_CLOCK_HZ, (uint32_t)o->clock_hz);
	emu_reg_write(e, NPU_REG_TRACE_LEVELS, (1u << NPU_TRACE_OFF) |
		      (1u << NPU_TRACE_EXEC) | (1u << NPU_TRACE_OPS));
	emu_reg_write(e, NPU_REG_DB_TARGET, NPU_EMU_DEV_PEER);
	emu_reg_write(e, NPU_REG_DB_COUNT, NPU_DB_COUNT);
	emu_reg_write(e, NPU_REG_DRAM_BASE, (uint32_t)l->dram_base);
	emu_reg_write(e, NPU_REG_DRAM_SIZE, (uint32_t)l->dram_size);
	emu_reg_write(e, NPU_REG_CMDQ_BASE, (uint32_t)l->cmdq_base);
	emu_reg_write(e, NPU_REG_CMDQ_STRIDE, (uint32_t)l->cmdq_stride);
	emu_reg_write(e, NPU_REG_CMDQ_ENTRIES, (uint32_t)l->cmdq_entries);
	emu_reg_write(e, NPU_REG_CPLQ_BASE, (uint32_t)l->cplq_base);
	emu_reg_write(e, NPU_REG_CPLQ_ENTRIES, (uint32_t)l->cplq_entries);
	emu_reg_write(e, NPU_REG_TRACE_BASE, (uint32_t)l->trace_base);
	emu_reg_write(e, NPU_REG_TRACE_SIZE, (uint32_t)l->trace_size);
	emu_reg_write(e, NPU_REG_SRAM_SIZE, o->sram_size);
	emu_reg_write(e, NPU_REG_DMA_BW, o->dma_bw);
	emu_reg_write(e, NPU_REG_MACS_PER_CYCLE, o->macs_per_cycle);
	/* 4 GiB does not fit the register: it reads 0 */
	emu_reg_write(e, NPU_REG_BAR_SIZE, (uint32_t)l->bar_size);

	emu_reg_write(e, NPU_REG_CONTROL, 0);
	emu_reg_write(e, NPU_REG_INTR_CAUSE, 0);
	emu_reg_write(e, NPU_REG_INTR_MASK, 0);
	emu_reg_write(e, NPU_REG_ERROR, NPU_ERR_NONE);
	emu_reg_write(e, NPU_REG_MBOX_ACK, 0);
	emu_reg_write(e, NPU_REG_TRACE_WMARK, 0);
	/* last, with release ordering: everything above is visible first */
	emu_reg_write(e, NPU_REG_STATUS, NPU_STATUS_READY);
}

static const char *const vec_name[NPU_EMU_VECTORS] = {
	[NPU_MSIX_CPL] = "cpl",
	[NPU_MSIX_MBOX] = "mbox",
	[NPU_MSIX_TRACE] = "trace",
	[NPU_MSIX_ERROR] = "error",
};

static void signal_vector(struct npu_emu *e, unsigned int vector)
{
	uint64_t one = 1;
	ssize_t n;

	n = write(e->irq_fd[vector], &one, sizeof(one));
	if (n != sizeof(one))
		emu_err("cannot raise MSI-X vector %u: %s", vector,
			n < 0 ? strerror(errno) : "short write");
	else
		emu_log(&e->log, "irq %s (vector %u)", vec_name[vector], vector);
}

void emu_dev_raise(struct npu_emu *e, uint32_t cause, unsigned int vector)
{
	__atomic_fetch_or(emu_reg(e, NPU_REG_INTR_CAUSE), cause,
			  __ATOMIC_SEQ_CST);
	if (emu_reg_read(e, NPU_REG_INTR_MASK) & cause) {
		emu_log(&e->log, "irq %s masked", vec_name[vector]);
		return;
	}
	signal_vector(e, vector);
}

void emu_dev_error(struct npu_emu *e, uint32_t err, bool fatal)
{
	emu_reg_write(e, NPU_REG_ERROR, err);
	if (fatal)
		__atomic_fetch_or(emu_reg(e, NPU_REG_STATUS), NPU_STATUS_FAULT,
				  __ATOMIC_SEQ_CST);
	emu_err("device error %u (%s)%s", err,
		err == NPU_ERR_CMDQ ? "malformed command queue pointers" :
		err == NPU_ERR_CPLQ_FULL ? "completion queue overflow" : "?",
		fatal ? ": queues stopped until a reset" : "");
	emu_dev_raise(e, NPU_INTR_ERROR, NPU_MSIX_ERROR);
}

static const char *mbox_name(uint32_t op)
{
	switch (op) {
	case NPU_MBOX_PING:
		return "ping";
	case NPU_MBOX_CLOCK_LATCH:
		return "clock-latch";
	case NPU_MBOX_RESET:
		return "reset";
	default:
		return "unknown";
	}
}

void emu_dev_mbox(struct npu_emu *e)
{
	uint32_t seq, word, op, flags, arg, result = NPU_MBOX_OK;
	uint64_t data = 0;

	/* SEQ is written last by the host: acquire it, then OP and ARG */
	seq = emu_reg_read(e, NPU_REG_MBOX_SEQ);
	word = emu_reg_read(e, NPU_REG_MBOX_OP);
	arg = emu_reg_read(e, NPU_REG_MBOX_ARG);
	op = word & NPU_MBOX_OP_MASK;
	flags = word & ~(uint32_t)NPU_MBOX_OP_MASK;

	if (flags & ~NPU_MBOX_F_NOIRQ) {
		result = NPU_MBOX_EINVAL;
	} else {
		switch (op) {
		case NPU_MBOX_PING:
			data = arg;
			break;
		case NPU_MBOX_CLOCK_LATCH:
			data = emu_clock_now(&e->clock);
			break;
		case NPU_MBOX_RESET:
			emu_reg_write(e, NPU_REG_ERROR, NPU_ERR_NONE);
			__atomic_fetch_and(emu_reg(e, NPU_REG_STATUS),
					   ~NPU_STATUS_FAULT, __ATOMIC_SEQ_CST);
			/* the trace first: aborted executions are recorded */
			emu_trace_reset(e);
			emu_pe_reset(e);
			break;
		default:
			result = NPU_MBOX_EINVAL;
			break;
		}
	}
	emu_log(&e->log, "mbox %s (op 0x%x arg 0x%x seq %u): result %u data 0x%" PRIx64,
		mbox_name(op), word, arg, seq, result, data);
	if (result != NPU_MBOX_OK)
		emu_err("mailbox request 0x%x (seq %u) rejected: %s", word, seq,
			flags & ~NPU_MBOX_F_NOIRQ ? "unknown flags" :
			"unknown operation");

	emu_reg_write(e, NPU_REG_MBOX_RESULT, result);
	emu_reg_write(e, NPU_REG_MBOX_DATA_LO, (uint32_t)data);
	emu_reg_write(e, NPU_REG_MBOX_DATA_HI, (uint32_t)(data >> 32));
	emu_reg_write(e, NPU_REG_MBOX_ACK, seq);	/* release */
	if (flags & NPU_MBOX_F_NOIRQ)
		__atomic_fetch_or(emu_reg(e, NPU_REG_INTR_CAUSE), NPU_INTR_MBOX,
				  __ATOMIC_SEQ_CST);
	else
		emu_dev_raise(e, NPU_INTR_MBOX, NPU_MSIX_MBOX);
}

void emu_dev_control(struct npu_emu *e)
{
	uint32_t ctrl, level;
	bool enable;

	ctrl = emu_reg_read(e, NPU_REG_CONTROL);
	enable = ctrl & NPU_CTRL_ENABLE;
	level = (ctrl & NPU_CTRL_TRACE_MASK) >> NPU_CTRL_TRACE_SHIFT;
	emu_log(&e->log, "control 0x%x: %s, trace level %u", ctrl,
		enable ? "enabled" : "disabled", level);
	if (level > NPU_TRACE_OPS) {
		emu_err("control: unsupported trace level %u, tracing off",
			level);
		level = NPU_TRACE_OFF;
	}
	emu_trace_set_level(e, level);
	emu_pe_set_enabled(e, enable);
	if (enable)
		__atomic_fetch_or(emu_reg(e, NPU_REG_STATUS),
				  NPU_STATUS_ENABLED, __ATOMIC_SEQ_CST);
	else
		__atomic_fetch_and(emu_reg(e, NPU_REG_STATUS),
				   ~NPU_STATUS_ENABLED, __ATOMIC_SEQ_CST);
}

void emu_dev_doorbell(struct npu_emu *e, unsigned int db, uint64_t count)
{
	static const char *const name[] = {
		[NPU_DB_QUEUE] = "queue",
		[NPU_DB_MBOX] = "mbox",
		[NPU_DB_CONTROL] = "control",
	};

	if (db >= NPU_DB_COUNT) {
		emu_err("doorbell %u does not exist, ignored", db);
		return;
	}
	emu_log(&e->log, "doorbell %s x%" PRIu64, name[db], count);
	switch (db) {
	case NPU_DB_QUEUE:
		emu_pe_kick(e);
		break;
	case NPU_DB_MBOX:
		emu_dev_mbox(e);
		break;
	case NPU_DB_CONTROL:
		emu_dev_control(e);
		break;
	}
}

/*
 * The device is plugged in again (--replug): as at power-up, whatever the
 * previous host left. Running jobs are aborted and queued ones completed
 * as ABORTED (the next driver resynchronizes its queues at probe), the
 * trace area is emptied and the register page rewritten.
 */
void emu_dev_power_on(struct npu_emu *e)
{
	emu_pe_set_enabled(e, false);
	emu_trace_set_level(e, NPU_TRACE_OFF);
	emu_trace_reset(e);
	emu_pe_reset(e);
	emu_dev_init_regs(e);
}
