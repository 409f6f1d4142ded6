/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dram.h - the shared DRAM bandwidth model (dram.c; hw.rst, "Timing model").
 *
 * A pure model with no locks and no threads: pe.c calls it under the
 * device lock (e->lock) from every PE thread; the host tests drive it
 * directly. Lifetime: emu_dram_init() allocates the per-PE operator tables,
 * emu_dram_free() releases them.
 */
#ifndef NPU_EMU_DRAM_H
#define NPU_EMU_DRAM_H

#include <stdbool.h>
#include <stdint.h>

#include <npu/npu_hw.h>

/**
 * struct emu_dram_op - one operator of a job, as the model sees it
 * @bytes: DMA bytes (in + weights + out), from the PE
 * @compute: modelled compute ticks, from the PE
 * @now_end: device clock when the PE's arithmetic ended, from the PE
 * @start: modelled start (the previous operator's end, or the job's start)
 * @iowait: ticks the PE waited for this operator's transfer
 * @end: max(start + iowait + compute, now_end)
 */
struct emu_dram_op {
	uint64_t bytes;
	uint64_t compute;
	uint64_t now_end;
	uint64_t start;
	uint64_t iowait;
	uint64_t end;
};

/**
 * struct emu_dram_pe - one PE's DMA queue and its job
 * @ops: the job's operators, NPU_PROG_MAX_OPS of them
 * @n_ops: operators that began: their @bytes and @compute are known
 * @n_ended: operators whose arithmetic ended: their @now_end is known
 * @n_resolved: operators whose @start, @iowait and @end are known
 * @active: a job is registered and its end is not resolved yet
 * @done: the job runs no operator after the @n_ops-th
 * @resolved: @job_end is known
 * @job_start: device clock when the PE took the command
 * @job_end: the last operator's end (@job_start without operators)
 * @k: index of the transfer in flight, or of the next to issue
 * @xfer: transfer @k is in flight
 * @issue_at: tick transfer @k is (or was) issued: compute start of op k-1
 * @rem: work left of transfer @k, in bytes * clock_hz * EMU_DRAM_SHARES
 */
struct emu_dram_pe {
	struct emu_dram_op *ops;
	uint32_t n_ops;
	uint32_t n_ended;
	uint32_t n_resolved;
	bool active;
	bool done;
	bool resolved;
	uint64_t job_start;
	uint64_t job_end;
	uint32_t k;
	bool xfer;
	uint64_t issue_at;
	unsigned __int128 rem;
};

/**
 * struct emu_dram - DRAM shared by the PEs' DMA engines
 * @clock_hz: device clock, ticks per second
 * @dma_bw: what one PE's DMA engine moves alone, 10^6 bytes/s, >= 1
 * @dram_bw: what the DRAM moves for all PEs together, 10^6 bytes/s, >= 1
 * @pes: PEs, 1..NPU_HW_MAX_PES
 * @now: the model's frontier: every transfer is known up to this tick
 * @events: bumped by every transfer issued or ended and every job resolved
 * @pe: the PEs
 */
struct emu_dram {
	uint64_t clock_hz;
	uint32_t dma_bw;
	uint32_t dram_bw;
	unsigned int pes;
	uint64_t now;
	uint64_t events;
	struct emu_dram_pe pe[NPU_HW_MAX_PES];
};

/* lcm(1..16): a share of 1/n of the bandwidth is an integer for n <= 16 */
#define EMU_DRAM_SHARES	720720u

/*
 * Allocate the tables, with the frontier at @now (the device clock: no job
 * starts before it). Return: 0 or -ENOMEM (then emu_dram_free() cleans up).
 */
int emu_dram_init(struct emu_dram *d, uint64_t clock_hz, uint32_t dma_bw,
		  uint32_t dram_bw, unsigned int pes, uint64_t now);
void emu_dram_free(struct emu_dram *d);

/*
 * A job starts on @pe at @start; its first transfer is issued then. The
 * frontier moves there when no PE has a job; a later @start than the
 * frontier cannot be behind it, except after an abort while other PEs'
 * jobs were timed ahead of the device clock: the job then starts at the
 * frontier (read it back from @job_start).
 */
void emu_dram_job_start(struct emu_dram *d, unsigned int pe, uint64_t start);
/*
 * The job's next operator begins: its DMA bytes and compute ticks. Its
 * transfer may be issued from then on; the model waits for it there.
 */
void emu_dram_op_begin(struct emu_dram *d, unsigned int pe, uint64_t bytes,
		       uint64_t compute);
/*
 * The operator that began last ended its arithmetic at @now_end (a PE ends
 * an operator before it begins the next)
 */
void emu_dram_op_end(struct emu_dram *d, unsigned int pe, uint64_t now_end);
/*
 * No further operator begins in this job. One that began and did not end
 * (it failed) keeps its transfer and its modelled time in the model: its
 * DMA was issued.
 */
void emu_dram_job_done(struct emu_dram *d, unsigned int pe);
/* The job was cut short by an abort: it leaves the model at the frontier */
void emu_dram_job_abort(struct emu_dram *d, unsigned int pe);

/*
 * Run the model as far as what the PEs told it allows, and no further than
 * @limit while some PE has no job (it may take one at any later tick).
 * Return: the next tick at which the model has something to do when only
 * @limit stopped it, UINT64_MAX when it waits for a PE to tell it more.
 */
uint64_t emu_dram_advance(struct emu_dram *d, uint64_t limit);

/*
 * ceil(bytes * clock_hz * EMU_DRAM_SHARES / progress) ticks a transfer
 * takes at the per-PE progress of @n concurrent transfers; for the tests.
 */
uint64_t emu_dram_xfer_ticks(const struct emu_dram *d, uint64_t bytes,
			     unsigned int n);

#endif /* NPU_EMU_DRAM_H */
