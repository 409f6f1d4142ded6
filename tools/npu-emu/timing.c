// SPDX-License-Identifier: GPL-2.0-only
/*
 * timing.c - the PE timing model (hw.rst, "Timing model").
 *
 * Compute takes ceil(macs / macs_per_cycle) cycles of the device clock. DMA
 * moves an operator's inputs, weights and output at dma_bw MB/s, and is
 * double-buffered: an operator's transfers overlap the compute of the
 * operator before it, so the PE waits only for what does not fit:
 * iowait = max(0, dma - previous compute). All arithmetic saturates instead
 * of wrapping. These are the figures of one PE alone; dram.c times the
 * transfers of PEs that share the DRAM.
 */
#include "program.h"
#include "timing.h"

uint64_t emu_timing_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

uint64_t emu_timing_compute_ticks(const struct emu_timing *m, uint64_t macs)
{
	uint64_t c = macs / m->macs_per_cycle;

	return c + (macs % m->macs_per_cycle ? 1 : 0);
}

uint64_t emu_timing_dma_ticks(const struct emu_timing *m, uint64_t bytes)
{
	unsigned __int128 num, den, t;

	/* ticks = ceil(bytes * clock_hz / (dma_bw * 10^6)) */
	num = (unsigned __int128)bytes * m->clock_hz;
	den = (unsigned __int128)m->dma_bw * 1000000u;
	t = num / den + (num % den ? 1 : 0);
	return t > UINT64_MAX ? UINT64_MAX : (uint64_t)t;
}

uint64_t emu_timing_iowait(uint64_t dma_ticks, uint64_t overlap_ticks)
{
	return dma_ticks > overlap_ticks ? dma_ticks - overlap_ticks : 0;
}

uint64_t emu_timing_op_bytes(const struct emu_op_cost *c)
{
	return emu_timing_add(emu_timing_add(c->in_bytes, c->w_bytes),
			     c->out_bytes);
}
