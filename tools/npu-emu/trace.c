// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace.c - the hardware trace area (hw.rst, "Trace area").
 *
 * A single-producer ring of variable-size records. The device owns
 * hdr.prod and hdr.lost, the host owns hdr.cons; positions are free-running
 * 64-bit byte counts and the data area is a power of two. A record never
 * wraps: when it does not fit in the tail, a PAD record fills the tail
 * first. A record that does not fit in the free space is dropped and counted
 * in hdr.lost; unconsumed data is never overwritten. Every record written
 * or lost takes the next sequence number; PAD records take none (their seq
 * is that of the record that follows).
 */
#include <inttypes.h>
#include <string.h>

#include "emu_int.h"

static struct npu_hw_trace_hdr *trace_hdr(struct npu_emu *e)
{
	return (struct npu_hw_trace_hdr *)(e->shm + e->lay.trace_base);
}

static uint8_t *trace_data(struct npu_emu *e)
{
	return e->shm + e->lay.trace_base + NPU_HW_TRACE_DATA_OFFSET;
}

void emu_trace_reset(struct npu_emu *e)
{
	struct npu_hw_trace_hdr *h = trace_hdr(e);

	pthread_mutex_lock(&e->trace_lock);
	e->trace_prod = 0;
	e->trace_seq = 0;
	e->trace_bad_warned = false;
	__atomic_store_n(&h->lost, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&h->cons, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&h->prod, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&e->trace_lock);
}

void emu_trace_set_level(struct npu_emu *e, unsigned int level)
{
	pthread_mutex_lock(&e->lock);
	e->trace_level = level;
	pthread_mutex_unlock(&e->lock);
}

/*
 * Put one record (its hdr.type and hdr.size set) at the producer position,
 * or count it lost. trace_lock held; hdr.prod is published by the caller.
 * Return: true when written.
 */
static bool trace_put(struct npu_emu *e, void *rec, uint32_t size,
		      uint64_t cons)
{
	struct npu_hw_trace_hdr *h = trace_hdr(e);
	uint64_t dsize = e->lay.trace_size, prod = e->trace_prod;
	uint64_t used = prod - cons, off, tail, need;
	struct npu_hw_trec_hdr *rh = rec, pad;
	uint8_t *data = trace_data(e);

	off = prod & (dsize - 1);
	tail = dsize - off;
	need = size + (tail < size ? tail : 0);
	if (used > dsize || (cons & 7) || dsize - used < need) {
		if ((used > dsize || (cons & 7)) && !e->trace_bad_warned) {
			emu_err("trace: host consumer position %" PRIu64
				" is invalid (producer %" PRIu64 "): dropping records",
				cons, prod);
			e->trace_bad_warned = true;
		}
		e->trace_seq++;
		__atomic_store_n(&h->lost, __atomic_load_n(&h->lost,
							   __ATOMIC_RELAXED) + 1,
				 __ATOMIC_RELEASE);
		return false;
	}
	if (tail < size) {
		pad.type = NPU_HW_TREC_PAD;
		pad.size = (uint16_t)tail;	/* tail < size < 64 KiB */
		pad.seq = e->trace_seq;
		memcpy(data + off, &pad, sizeof(pad));
		prod += tail;
		off = 0;
	}
	rh->seq = e->trace_seq++;
	memcpy(data + off, rec, size);
	e->trace_prod = prod + size;
	return true;
}

/*
 * --fault corrupt-trace-record: the record of @size bytes just written
 * (not yet published) gets a size field of 3. trace_lock held.
 */
static void trace_corrupt_last(struct npu_emu *e, uint32_t size)
{
	uint64_t pos = (e->trace_prod - size) & (e->lay.trace_size - 1);
	struct npu_hw_trec_hdr *rh = (void *)(trace_data(e) + pos);

	emu_err("--fault corrupt-trace-record: record seq %u at %" PRIu64
		" written with size 3", rh->seq, e->trace_prod - size);
	rh->size = 3;
}

void emu_trace_exec(struct npu_emu *e, const struct emu_pe *pe,
		    uint32_t status)
{
	const struct emu_exec *x = &pe->x;
	struct npu_hw_trace_hdr *h = trace_hdr(e);
	struct npu_hw_trec_exec rec;
	uint32_t i, n_ops, written = 0, lost = 0;
	uint64_t cons, pending, wmark;

	memset(&rec, 0, sizeof(rec));
	rec.hdr.type = NPU_HW_TREC_EXEC;
	rec.hdr.size = sizeof(rec);
	rec.pe = (uint16_t)pe->idx;
	rec.status = (uint16_t)status;
	rec.exec_index = x->cmd.exec_index;
	rec.n_ops = x->n_ops;
	rec.job_id = x->cmd.job_id;
	rec.start_tick = x->start;
	rec.end_tick = x->cursor;
	rec.run_ticks = x->run;
	rec.iowait_ticks = x->iowait;
	rec.dma_bytes = x->bytes;
	rec.macs = x->macs;

	n_ops = x->level >= NPU_TRACE_OPS ? x->n_ops : 0;
	if (n_ops > NPU_PROG_MAX_OPS)
		n_ops = NPU_PROG_MAX_OPS;

	pthread_mutex_lock(&e->trace_lock);
	cons = __atomic_load_n(&h->cons, __ATOMIC_ACQUIRE);
	for (i = 0; i < n_ops; i++) {
		if (trace_put(e, &x->ops[i], sizeof(x->ops[i]), cons))
			written++;
		else
			lost++;
	}
	if (trace_put(e, &rec, sizeof(rec), cons)) {
		written++;
		if (e->opts.fault == NPU_EMU_FAULT_CORRUPT_TREC &&
		    x->nth == e->opts.fault_job)
			trace_corrupt_last(e, sizeof(rec));
	} else {
		lost++;
	}
	/* the records are visible before the position that covers them */
	__atomic_store_n(&h->prod, e->trace_prod, __ATOMIC_RELEASE);
	pending = e->trace_prod - cons;
	pthread_mutex_unlock(&e->trace_lock);

	wmark = emu_reg_read(e, NPU_REG_TRACE_WMARK);
	emu_log(&e->log, "pe%u: trace %u records written, %u lost, %" PRIu64
		" bytes pending", pe->idx, written, lost, pending);
	if (lost || (written && pending >= wmark))
		emu_dev_raise(e, NPU_INTR_TRACE, NPU_MSIX_TRACE);
}
