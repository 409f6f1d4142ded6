/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * timing.h - the PE timing model (timing.c; hw.rst, "Timing model").
 */
#ifndef NPU_EMU_TIMING_H
#define NPU_EMU_TIMING_H

#include <stdint.h>

/**
 * struct emu_timing - parameters of the PE timing model
 * @clock_hz: device clock, ticks per second
 * @dma_bw: DMA bandwidth per PE in 10^6 bytes per second, >= 1
 * @macs_per_cycle: MACs per tick, >= 1
 */
struct emu_timing {
	uint64_t clock_hz;
	uint32_t dma_bw;
	uint32_t macs_per_cycle;
};

/* Modelled durations stay far from 2^63, so that signed compares work */
#define EMU_MAX_MODEL_TICKS	(UINT64_MAX >> 3)

struct emu_op_cost;

/* a + b, saturating at UINT64_MAX */
uint64_t emu_timing_add(uint64_t a, uint64_t b);
/* ceil(macs / macs_per_cycle) */
uint64_t emu_timing_compute_ticks(const struct emu_timing *m, uint64_t macs);
/* ceil(bytes * clock_hz / (dma_bw * 10^6)), saturating */
uint64_t emu_timing_dma_ticks(const struct emu_timing *m, uint64_t bytes);
/* max(0, dma_ticks - overlap_ticks) */
uint64_t emu_timing_iowait(uint64_t dma_ticks, uint64_t overlap_ticks);
/* in_bytes + w_bytes + out_bytes, saturating */
uint64_t emu_timing_op_bytes(const struct emu_op_cost *c);

#endif /* NPU_EMU_TIMING_H */
