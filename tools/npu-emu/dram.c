// SPDX-License-Identifier: GPL-2.0-only
/*
 * dram.c - DRAM bandwidth shared by the PEs (hw.rst, "Timing model").
 *
 * Each PE has one DMA queue: it issues operator k's transfer when operator
 * k - 1 starts computing (double buffering), and its transfers never
 * overlap each other. The DRAM serves the transfers in flight by processor
 * sharing: with n of them in flight, each moves
 *
 *   min(dma_bw, dram_bw / n) * 10^6 bytes per second,
 *
 * and the shares change whenever a transfer starts or ends. This is a
 * discrete-event model in device time. It advances only as far as every PE
 * has told it what it transfers (conservatively, as a parallel simulation
 * does), and, while some PE has no job, no further than the device clock
 * (that PE may take a command at any later tick). Its results therefore
 * depend on the ticks at which jobs start and on the programs only, never
 * on the order in which host threads ran.
 *
 * Work is counted in bytes * clock_hz * EMU_DRAM_SHARES, and a transfer in
 * flight progresses min(dma_bw * n, dram_bw) * 10^6 * EMU_DRAM_SHARES / n
 * of it per tick: integer for every n <= 16. One transfer alone, with
 * dram_bw >= dma_bw, thus takes exactly ceil(bytes * clock_hz / (dma_bw *
 * 10^6)) ticks, emu_timing_dma_ticks(): one PE alone is timed as before the
 * DRAM was shared.
 *
 * Locking: none here; the caller serializes every call (pe.c: e->lock).
 */
#include <errno.h>
#include <stdlib.h>

#include <npu/npu_program.h>

#include "dram.h"
#include "timing.h"

#define NO_EVENT	UINT64_MAX

int emu_dram_init(struct emu_dram *d, uint64_t clock_hz, uint32_t dma_bw,
		  uint32_t dram_bw, unsigned int pes, uint64_t now)
{
	unsigned int p;

	d->clock_hz = clock_hz;
	d->dma_bw = dma_bw;
	d->dram_bw = dram_bw;
	d->pes = pes;
	d->now = now;
	d->events = 0;
	for (p = 0; p < pes; p++) {
		d->pe[p].ops = calloc(NPU_PROG_MAX_OPS, sizeof(*d->pe[p].ops));
		if (!d->pe[p].ops)
			return -ENOMEM;
	}
	return 0;
}

void emu_dram_free(struct emu_dram *d)
{
	unsigned int p;

	for (p = 0; p < NPU_HW_MAX_PES; p++) {
		free(d->pe[p].ops);
		d->pe[p].ops = NULL;
	}
}

/* Work each of @n transfers in flight does per tick */
static unsigned __int128 progress(const struct emu_dram *d, unsigned int n)
{
	unsigned __int128 bw = (unsigned __int128)d->dma_bw * n;

	if (bw > d->dram_bw)
		bw = d->dram_bw;
	return bw * 1000000u * (EMU_DRAM_SHARES / n);
}

static unsigned __int128 work(const struct emu_dram *d, uint64_t bytes)
{
	return (unsigned __int128)bytes * d->clock_hz * EMU_DRAM_SHARES;
}

/* ceil(rem / per_tick), at most EMU_MAX_MODEL_TICKS */
static uint64_t ticks_for(unsigned __int128 rem, unsigned __int128 per_tick)
{
	unsigned __int128 t = rem / per_tick + (rem % per_tick ? 1 : 0);

	return t > EMU_MAX_MODEL_TICKS ? EMU_MAX_MODEL_TICKS : (uint64_t)t;
}

uint64_t emu_dram_xfer_ticks(const struct emu_dram *d, uint64_t bytes,
			     unsigned int n)
{
	return ticks_for(work(d, bytes), progress(d, n));
}

void emu_dram_job_start(struct emu_dram *d, unsigned int pe, uint64_t start)
{
	struct emu_dram_pe *p = &d->pe[pe];
	unsigned int i;
	bool busy = false;

	for (i = 0; i < d->pes; i++)
		busy |= d->pe[i].active;
	/* nothing in flight: the frontier may move back (after an abort) */
	if (!busy)
		d->now = start;
	else if ((int64_t)(start - d->now) < 0)
		start = d->now;
	p->n_ops = p->n_ended = p->n_resolved = 0;
	p->active = true;
	p->done = p->resolved = false;
	p->job_start = p->job_end = start;
	p->k = 0;
	p->xfer = false;
	p->issue_at = start;
	p->rem = 0;
}

void emu_dram_op_begin(struct emu_dram *d, unsigned int pe, uint64_t bytes,
		       uint64_t compute)
{
	struct emu_dram_pe *p = &d->pe[pe];
	struct emu_dram_op *o;

	if (!p->active || p->done || p->n_ops >= NPU_PROG_MAX_OPS)
		return;
	o = &p->ops[p->n_ops++];
	o->bytes = bytes;
	o->compute = compute > EMU_MAX_MODEL_TICKS ? EMU_MAX_MODEL_TICKS : compute;
	o->now_end = 0;
}

void emu_dram_op_end(struct emu_dram *d, unsigned int pe, uint64_t now_end)
{
	struct emu_dram_pe *p = &d->pe[pe];

	if (!p->active || p->n_ended >= p->n_ops)
		return;
	p->ops[p->n_ended++].now_end = now_end;
}

void emu_dram_job_done(struct emu_dram *d, unsigned int pe)
{
	struct emu_dram_pe *p = &d->pe[pe];

	/* an operator that began and failed ends when the model says */
	while (p->n_ended < p->n_ops)
		p->ops[p->n_ended++].now_end = p->job_start;
	p->done = true;
}

void emu_dram_job_abort(struct emu_dram *d, unsigned int pe)
{
	struct emu_dram_pe *p = &d->pe[pe];

	p->active = false;
	p->xfer = false;
	p->done = true;
}

/*
 * Transfer k of @p is issued at issue_at, the compute start of operator
 * k - 1, whose end is then known: max(compute start + compute, the end of
 * its arithmetic).
 */
static void resolve_prev_end(struct emu_dram_pe *p)
{
	struct emu_dram_op *o;
	uint64_t model_end;

	if (!p->k)
		return;
	o = &p->ops[p->k - 1];
	model_end = p->issue_at + o->compute;
	o->end = (int64_t)(o->now_end - model_end) > 0 ? o->now_end : model_end;
	p->n_resolved = p->k;
}

/*
 * Transfer k of @p ended at @t: operator k waits for what of it did not
 * hide behind operator k - 1's compute, and computes from then on; the
 * next transfer is issued at that instant.
 */
static void complete(struct emu_dram_pe *p, uint64_t t)
{
	struct emu_dram_op *o = &p->ops[p->k];
	uint64_t prev_compute = p->k ? p->ops[p->k - 1].compute : 0;

	o->start = p->k ? p->ops[p->k - 1].end : p->job_start;
	o->iowait = emu_timing_iowait(t - p->issue_at, prev_compute);
	if (o->iowait > EMU_MAX_MODEL_TICKS)
		o->iowait = EMU_MAX_MODEL_TICKS;
	p->xfer = false;
	p->issue_at = o->start + o->iowait;
	p->k++;
}

/* Everything that happens on @p at the frontier */
static void events_now(struct emu_dram *d, struct emu_dram_pe *p)
{
	while (p->active) {
		if (p->xfer) {
			if (p->rem)
				return;
			complete(p, d->now);
			d->events++;
			continue;
		}
		if (p->issue_at != d->now)
			return;
		if (p->k && p->n_ended < p->k)
			return;		/* stalled: op k - 1 still computes */
		if (p->k < p->n_ops) {
			resolve_prev_end(p);
			p->rem = work(d, p->ops[p->k].bytes);
			p->xfer = true;
			d->events++;
			continue;
		}
		if (!p->done)
			return;		/* stalled: the PE has not told yet */
		resolve_prev_end(p);
		p->job_end = p->k ? p->ops[p->k - 1].end : p->job_start;
		p->resolved = true;
		p->active = false;
		d->events++;
	}
}

uint64_t emu_dram_advance(struct emu_dram *d, uint64_t limit)
{
	for (;;) {
		unsigned __int128 per_tick = 0, step;
		uint64_t dt = NO_EVENT;
		unsigned int i, n = 0;
		bool idle = false;

		for (i = 0; i < d->pes; i++)
			events_now(d, &d->pe[i]);
		for (i = 0; i < d->pes; i++) {
			const struct emu_dram_pe *p = &d->pe[i];

			if (!p->active)
				idle = true;
			else if (p->xfer)
				n++;
			else if ((int64_t)(p->issue_at - d->now) <= 0)
				return NO_EVENT;	/* stalled at the frontier */
			else if (p->issue_at - d->now < dt)
				dt = p->issue_at - d->now;
		}
		if (n) {
			per_tick = progress(d, n);
			for (i = 0; i < d->pes; i++) {
				const struct emu_dram_pe *p = &d->pe[i];
				uint64_t t;

				if (!p->active || !p->xfer)
					continue;
				t = ticks_for(p->rem, per_tick);
				if (t < dt)
					dt = t;
			}
		}
		if (dt == NO_EVENT)
			return NO_EVENT;
		/* a PE without a job may take one at any tick after the clock */
		if (idle && (int64_t)(limit - d->now) < (int64_t)dt)
			return d->now + dt;
		step = per_tick * dt;
		for (i = 0; i < d->pes; i++) {
			struct emu_dram_pe *p = &d->pe[i];

			if (p->active && p->xfer)
				p->rem = p->rem > step ? p->rem - step : 0;
		}
		d->now += dt;
	}
}
