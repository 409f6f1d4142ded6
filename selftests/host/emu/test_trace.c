// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_trace.c - npu-emu hardware trace: records per level, exact timing
 * identities, the DMA model's iowait, PAD at the wrap, exact loss counts on
 * a full buffer, the watermark interrupt, reset and aborted executions,
 * and the level a command runs at: the one in force at its doorbell.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fakeqemu.h"
#include "npu/npu_program.h"

#define DRAM		0x400000u
#define PROG_BUF	DRAM
#define PROG_SIZE	0x20000u
#define DATA_BUF	(DRAM + PROG_SIZE)
#define DATA_SIZE	0x100000u
#define TRACE_BASE	0x100000u

struct bench {
	struct fq_emu t;
	struct fakeqemu q;
};

static int bench_start(struct bench *b, struct npu_emu_opts *o,
		       unsigned int level)
{
	int ret = fq_emu_start(&b->t, o);

	if (!ret)
		ret = fq_connect(&b->q, b->t.path, NPU_MSIX_COUNT);
	if (!ret)
		ret = fq_control(&b->q, true, level);
	return ret;
}

static int bench_stop(struct bench *b)
{
	fq_close(&b->q);
	return fq_emu_stop(&b->t);
}

static void clip_cmd(struct bench *b, struct npu_hw_cmd *c, uint64_t job_id,
		     uint32_t n_ops, uint32_t elems)
{
	uint32_t size = build_clip_prog(fq_ptr(&b->q, PROG_BUF), n_ops, elems,
					1, 0, 255);

	memset(c, 0, sizeof(*c));
	c->job_id = job_id;
	c->nbufs = 2;
	c->prog_size = size;
	c->exec_index = 1000 + (uint32_t)job_id;
	c->bufs[0].addr = PROG_BUF;
	c->bufs[0].size = PROG_SIZE;
	c->bufs[1].addr = DATA_BUF;
	c->bufs[1].size = DATA_SIZE;
}

/* Submit on PE 0 and wait for the completion */
static int run1(struct bench *b, uint64_t job_id, uint32_t n_ops,
		uint32_t elems, struct npu_hw_cpl *cpl)
{
	struct npu_hw_cmd c;

	clip_cmd(b, &c, job_id, n_ops, elems);
	fq_submit(&b->q, 0, &c);
	return fq_wait_cpl(&b->q, cpl, 30000);
}

static struct npu_hw_trace_hdr *thdr(struct bench *b)
{
	return fq_ptr(&b->q, TRACE_BASE);
}

static uint64_t tprod(struct bench *b)
{
	return __atomic_load_n(&thdr(b)->prod, __ATOMIC_ACQUIRE);
}

/* Record at position @pos */
static void *trec(struct bench *b, uint64_t pos)
{
	uint64_t dsize = fq_rd(&b->q, NPU_REG_TRACE_SIZE);

	return fq_ptr(&b->q, TRACE_BASE + NPU_HW_TRACE_DATA_OFFSET +
		      (pos & (dsize - 1)));
}

/* PE @pe's consumer position in its command queue */
static uint32_t cmd_cons(struct bench *b, unsigned int pe)
{
	const struct npu_hw_ring_ptrs *ptrs =
		fq_ptr(&b->q, fq_rd(&b->q, NPU_REG_CMDQ_BASE) +
			      pe * fq_rd(&b->q, NPU_REG_CMDQ_STRIDE));

	return __atomic_load_n(&ptrs->cons, __ATOMIC_ACQUIRE);
}

/*
 * A PE takes only a command that NPU_DB_QUEUE announced, even when another
 * ring wakes it (hw.rst, "Command queues"): a command written before the
 * trace level went up, and rung after, runs at the new level and writes
 * its EXEC record before its completion. The 500 ms wait for a completion
 * that must not come bounds the check; the ring that follows must bring
 * it.
 */
TEST(command_taken_at_its_doorbell)
{
	struct npu_hw_trec_exec *r;
	struct npu_emu_opts o;
	struct npu_hw_cpl cpl;
	struct npu_hw_cmd c;
	struct bench b;

	npu_emu_opts_init(&o);
	ASSERT_EQ(0, bench_start(&b, &o, NPU_TRACE_OFF));
	clip_cmd(&b, &c, 7, 2, 64);
	fq_put_cmd(&b.q, 0, &c);
	/* NPU_DB_CONTROL wakes every PE: none may take the command */
	ASSERT_EQ(0, fq_control(&b.q, true, NPU_TRACE_EXEC));
	EXPECT_EQ(-ETIMEDOUT, fq_wait_cpl(&b.q, &cpl, 500));
	EXPECT_EQ(0, cmd_cons(&b, 0));
	EXPECT_EQ(0, tprod(&b));

	fq_ring(&b.q, NPU_DB_QUEUE);
	ASSERT_EQ(0, fq_wait_cpl(&b.q, &cpl, 30000));
	EXPECT_EQ(7, cpl.job_id);
	EXPECT_EQ(NPU_HW_STATUS_OK, cpl.status);
	EXPECT_EQ(1, cmd_cons(&b, 0));
	/* the level rung before the command's doorbell: one EXEC record */
	ASSERT_EQ(80, tprod(&b));
	r = trec(&b, 0);
	EXPECT_EQ(NPU_HW_TREC_EXEC, r->hdr.type);
	EXPECT_EQ(7, r->job_id);
	EXPECT_EQ(cpl.start_tick, r->start_tick);
	EXPECT_EQ(cpl.end_tick, r->end_tick);
	EXPECT_EQ(0, bench_stop(&b));
}

TEST(record_layout)
{
	EXPECT_EQ(8, sizeof(struct npu_hw_trec_hdr));
	EXPECT_EQ(80, sizeof(struct npu_hw_trec_exec));
	EXPECT_EQ(72, sizeof(struct npu_hw_trec_op));
	EXPECT_EQ(192, sizeof(struct npu_hw_trace_hdr));
}

TEST(level_off_writes_nothing)
{
	struct npu_emu_opts o;
	struct npu_hw_cpl cpl;
	struct bench b;

	npu_emu_opts_init(&o);
	ASSERT_EQ(0, bench_start(&b, &o, NPU_TRACE_OFF));
	ASSERT_EQ(0, run1(&b, 1, 2, 64, &cpl));
	EXPECT_EQ(0, tprod(&b));
	EXPECT_EQ(0, fq_irq_count(&b.q, NPU_MSIX_TRACE));
	EXPECT_EQ(0, bench_stop(&b));
}

/*
 * DMA-bound: E elements, 2E bytes per CLIP at 1 MB/s and 1 GHz = 2000E
 * ticks of DMA against ceil(E/256) of compute; the first operator waits for
 * all of its DMA, the next ones for DMA minus the previous compute.
 */
TEST(exec_record_level1)
{
	const uint64_t E = 1024, N = 3;
	const uint64_t compute = (E + 255) / 256, dma = 2 * E * 1000;
	struct npu_hw_trec_exec *r;
	struct npu_emu_opts o;
	struct npu_hw_cpl cpl;
	struct bench b;
	int k;

	npu_emu_opts_init(&o);
	o.dma_bw = 1;
	ASSERT_EQ(0, bench_start(&b, &o, NPU_TRACE_EXEC));
	for (k = 0; k < 3; k++) {
		ASSERT_EQ(0, run1(&b, 10 + k, N, E, &cpl));
		ASSERT_EQ(NPU_HW_STATUS_OK, cpl.status);
		/* written before the completion */
		ASSERT_EQ(80 * (k + 1), tprod(&b));
		r = trec(&b, 80 * k);
		EXPECT_EQ(NPU_HW_TREC_EXEC, r->hdr.type);
		EXPECT_EQ(80, r->hdr.size);
		EXPECT_EQ(k, r->hdr.seq);
		EXPECT_EQ(0, r->pe);
		EXPECT_EQ(NPU_HW_STATUS_OK, r->status);
		EXPECT_EQ(1010 + k, r->exec_index);
		EXPECT_EQ(N, r->n_ops);
		EXPECT_EQ(10 + k, r->job_id);
		EXPECT_EQ(cpl.start_tick, r->start_tick);
		EXPECT_EQ(cpl.end_tick, r->end_tick);
		EXPECT_EQ(r->end_tick - r->start_tick,
			  r->run_ticks + r->iowait_ticks);
		EXPECT_EQ(dma + (N - 1) * (dma - compute), r->iowait_ticks);
		EXPECT_LE(N * compute, r->run_ticks);
		EXPECT_EQ(N * 2 * E, r->dma_bytes);
		EXPECT_EQ(N * E, r->macs);
		/* watermark 0: every record interrupts */
		EXPECT_EQ(1, fq_wait_irq(&b.q, NPU_MSIX_TRACE, 10000));
		EXPECT_TRUE(fq_rd(&b.q, NPU_REG_INTR_CAUSE) & NPU_INTR_TRACE);
	}
	EXPECT_EQ(0, thdr(&b)->lost);
	EXPECT_EQ(0, bench_stop(&b));
}

TEST(op_records_level2)
{
	const uint64_t E = 512, N = 4;
	const uint64_t compute = (E + 255) / 256, dma = 2 * E * 1000;
	struct npu_hw_trec_exec *x;
	struct npu_hw_trec_op *r;
	struct npu_emu_opts o;
	struct npu_hw_cpl cpl;
	struct bench b;
	uint64_t k, prev_end, sum_iow = 0;

	npu_emu_opts_init(&o);
	o.dma_bw = 1;
	ASSERT_EQ(0, bench_start(&b, &o, NPU_TRACE_OPS));
	ASSERT_EQ(0, run1(&b, 77, N, E, &cpl));
	ASSERT_EQ(NPU_HW_STATUS_OK, cpl.status);
	ASSERT_EQ(N * 72 + 80, tprod(&b));
	prev_end = cpl.start_tick;
	for (k = 0; k < N; k++) {
		r = trec(&b, k * 72);
		EXPECT_EQ(NPU_HW_TREC_OP, r->hdr.type);
		EXPECT_EQ(72, r->hdr.size);
		EXPECT_EQ(k, r->hdr.seq);
		EXPECT_EQ(0, r->pe);
		EXPECT_EQ(NPU_OP_CLIP, r->opcode);
		EXPECT_EQ(k, r->op_index);
		EXPECT_EQ(1077, r->exec_index);
		EXPECT_EQ(77, r->job_id);
		/* operators tile the execution */
		EXPECT_EQ(prev_end, r->start_tick);
		EXPECT_EQ(k ? dma - compute : dma, r->iowait_ticks);
		EXPECT_LE(r->iowait_ticks + compute, r->end_tick - r->start_tick);
		EXPECT_EQ(2 * E, r->dma_bytes);
		EXPECT_EQ(E, r->macs);
		prev_end = r->end_tick;
		sum_iow += r->iowait_ticks;
	}
	x = trec(&b, N * 72);
	EXPECT_EQ(NPU_HW_TREC_EXEC, x->hdr.type);
	EXPECT_EQ(N, x->hdr.seq);
	EXPECT_EQ(prev_end, x->end_tick);
	EXPECT_EQ(cpl.end_tick, x->end_tick);
	EXPECT_EQ(sum_iow, x->iowait_ticks);
	EXPECT_EQ(x->end_tick - x->start_tick, x->run_ticks + x->iowait_ticks);
	EXPECT_EQ(0, bench_stop(&b));
}

/*
 * 4 KiB data area, 80-byte EXEC records, nothing consumed: 51 records fit
 * (4080 bytes); the 16-byte tail cannot hold a PAD and a record, so the
 * rest are lost, each taking a sequence number. After the host consumes
 * everything, the next record needs a PAD over the tail.
 */
TEST(full_buffer_exact_loss_and_pad)
{
	struct npu_hw_trace_hdr *h;
	struct npu_hw_trec_exec *r;
	struct npu_hw_trec_hdr *pad;
	struct npu_emu_opts o;
	struct npu_hw_cpl cpl;
	struct bench b;
	int k;

	npu_emu_opts_init(&o);
	o.trace_size = 4096;
	ASSERT_EQ(0, bench_start(&b, &o, NPU_TRACE_EXEC));
	h = thdr(&b);
	for (k = 0; k < 60; k++) {
		ASSERT_EQ(0, run1(&b, k, 1, 64, &cpl));
		ASSERT_EQ(NPU_HW_STATUS_OK, cpl.status);
	}
	EXPECT_EQ(51 * 80, tprod(&b));
	EXPECT_EQ(9, __atomic_load_n(&h->lost, __ATOMIC_ACQUIRE));
	for (k = 0; k < 51; k++) {
		r = trec(&b, 80 * k);
		ASSERT_EQ(NPU_HW_TREC_EXEC, r->hdr.type);
		EXPECT_EQ(k, r->hdr.seq);
		EXPECT_EQ(k, r->job_id);
	}
	/* the host consumes it all: three more records, the first after a PAD */
	__atomic_store_n(&h->cons, 51 * 80, __ATOMIC_RELEASE);
	for (k = 0; k < 3; k++)
		ASSERT_EQ(0, run1(&b, 100 + k, 1, 64, &cpl));
	EXPECT_EQ(51 * 80 + 16 + 3 * 80, tprod(&b));
	EXPECT_EQ(9, h->lost);
	pad = trec(&b, 51 * 80);
	EXPECT_EQ(NPU_HW_TREC_PAD, pad->type);
	EXPECT_EQ(16, pad->size);
	for (k = 0; k < 3; k++) {
		r = trec(&b, 51 * 80 + 16 + 80 * k);
		EXPECT_EQ(NPU_HW_TREC_EXEC, r->hdr.type);
		EXPECT_EQ(60 + k, r->hdr.seq);
		EXPECT_EQ(100 + k, r->job_id);
	}
	/* never overwrites: only 80 * 3 + 16 bytes pending, the rest is free */
	EXPECT_EQ(0, bench_stop(&b));
}

TEST(loss_counts_operator_records)
{
	struct npu_hw_trace_hdr *h;
	struct npu_emu_opts o;
	struct npu_hw_cpl cpl;
	struct bench b;
	struct npu_hw_trec_exec *r;

	/* 60 OP records (72 bytes) and an EXEC: 56 OPs fit in 4096 bytes */
	npu_emu_opts_init(&o);
	o.trace_size = 4096;
	ASSERT_EQ(0, bench_start(&b, &o, NPU_TRACE_OPS));
	h = thdr(&b);
	ASSERT_EQ(0, run1(&b, 1, 60, 64, &cpl));
	EXPECT_EQ(56 * 72, tprod(&b));
	EXPECT_EQ(5, h->lost);
	EXPECT_EQ(1, fq_wait_irq(&b.q, NPU_MSIX_TRACE, 10000));
	/* consume: the next job's records continue the sequence at 61 */
	__atomic_store_n(&h->cons, 56 * 72, __ATOMIC_RELEASE);
	ASSERT_EQ(0, run1(&b, 2, 1, 64, &cpl));
	/* 4032 + 72 would pass 4096: PAD of 64, then OP at 0, EXEC at 72 */
	EXPECT_EQ(NPU_HW_TREC_PAD, ((struct npu_hw_trec_hdr *)trec(&b, 56 * 72))->type);
	EXPECT_EQ(64, ((struct npu_hw_trec_hdr *)trec(&b, 56 * 72))->size);
	EXPECT_EQ(61, ((struct npu_hw_trec_hdr *)trec(&b, 0))->seq);
	r = trec(&b, 72);
	EXPECT_EQ(NPU_HW_TREC_EXEC, r->hdr.type);
	EXPECT_EQ(62, r->hdr.seq);
	EXPECT_EQ(4096 + 72 + 80, tprod(&b));
	EXPECT_EQ(0, bench_stop(&b));
}

/*
 * Four PEs tracing operators at once: the records of all PEs interleave,
 * but the sequence is gapless, every record is intact, each execution's
 * operators tile it, and its EXEC record splits exactly into run + iowait.
 */
TEST(concurrent_pes)
{
	const uint32_t PES = 4, JOBS = 6, N = 3;
	uint32_t seen_ops[4] = { 0 }, execs = 0, seq = 0, k;
	uint64_t pos, prod, next_start[4] = { 0 };
	struct npu_hw_trec_hdr *h;
	struct npu_emu_opts o;
	struct npu_hw_cmd c;
	struct npu_hw_cpl cpl;
	struct bench b;

	npu_emu_opts_init(&o);
	o.pes = PES;
	o.dma_bw = 100;
	ASSERT_EQ(0, bench_start(&b, &o, NPU_TRACE_OPS));
	for (k = 0; k < PES * JOBS; k++) {
		clip_cmd(&b, &c, k, N, 4096);
		fq_submit(&b.q, k % PES, &c);
	}
	for (k = 0; k < PES * JOBS; k++) {
		ASSERT_EQ(0, fq_wait_cpl(&b.q, &cpl, 30000));
		EXPECT_EQ(NPU_HW_STATUS_OK, cpl.status);
	}
	prod = tprod(&b);
	ASSERT_EQ(PES * JOBS * (N * 72 + 80), prod);
	for (pos = 0; pos < prod; pos += h->size, seq++) {
		h = trec(&b, pos);
		ASSERT_EQ(seq, h->seq);
		if (h->type == NPU_HW_TREC_OP) {
			struct npu_hw_trec_op *r = (void *)h;

			ASSERT_GT(PES, r->pe);
			EXPECT_EQ(seen_ops[r->pe] % N, r->op_index);
			if (r->op_index)
				EXPECT_EQ(next_start[r->pe], r->start_tick);
			EXPECT_LE(r->iowait_ticks, r->end_tick - r->start_tick);
			next_start[r->pe] = r->end_tick;
			seen_ops[r->pe]++;
		} else {
			struct npu_hw_trec_exec *x = (void *)h;

			ASSERT_EQ(NPU_HW_TREC_EXEC, h->type);
			ASSERT_GT(PES, x->pe);
			EXPECT_EQ(x->pe, x->job_id % PES);
			EXPECT_EQ(N, x->n_ops);
			EXPECT_EQ(next_start[x->pe], x->end_tick);
			EXPECT_EQ(x->end_tick - x->start_tick,
				  x->run_ticks + x->iowait_ticks);
			execs++;
		}
	}
	EXPECT_EQ(PES * JOBS, execs);
	EXPECT_EQ(0, thdr(&b)->lost);
	EXPECT_EQ(0, bench_stop(&b));
}

TEST(bogus_consumer_position)
{
	struct npu_hw_trace_hdr *h;
	struct npu_hw_trec_exec *r;
	struct npu_emu_opts o;
	struct npu_hw_cpl cpl;
	struct bench b;

	npu_emu_opts_init(&o);
	ASSERT_EQ(0, bench_start(&b, &o, NPU_TRACE_EXEC));
	h = thdr(&b);
	ASSERT_EQ(0, run1(&b, 1, 1, 64, &cpl));
	/* ahead of the producer, then misaligned: records are lost, counted */
	__atomic_store_n(&h->cons, 88, __ATOMIC_RELEASE);
	ASSERT_EQ(0, run1(&b, 2, 1, 64, &cpl));
	__atomic_store_n(&h->cons, 4, __ATOMIC_RELEASE);
	ASSERT_EQ(0, run1(&b, 3, 1, 64, &cpl));
	EXPECT_EQ(NPU_HW_STATUS_OK, cpl.status);
	EXPECT_EQ(80, tprod(&b));
	EXPECT_EQ(2, h->lost);
	/* fixed: the next record carries seq 3 (1 written, 2 lost) */
	__atomic_store_n(&h->cons, 80, __ATOMIC_RELEASE);
	ASSERT_EQ(0, run1(&b, 4, 1, 64, &cpl));
	r = trec(&b, 80);
	EXPECT_EQ(4, r->job_id);
	EXPECT_EQ(3, r->hdr.seq);
	EXPECT_EQ(160, tprod(&b));
	EXPECT_EQ(0, bench_stop(&b));
}

TEST(watermark)
{
	struct npu_emu_opts o;
	struct npu_hw_cpl cpl;
	struct bench b;

	npu_emu_opts_init(&o);
	ASSERT_EQ(0, bench_start(&b, &o, NPU_TRACE_EXEC));
	fq_wr(&b.q, NPU_REG_TRACE_WMARK, 200);
	ASSERT_EQ(0, run1(&b, 1, 1, 64, &cpl));		/* 80 pending */
	EXPECT_EQ(0, fq_irq_count(&b.q, NPU_MSIX_TRACE));
	ASSERT_EQ(0, run1(&b, 2, 1, 64, &cpl));		/* 160 */
	EXPECT_EQ(0, fq_irq_count(&b.q, NPU_MSIX_TRACE));
	EXPECT_FALSE(fq_rd(&b.q, NPU_REG_INTR_CAUSE) & NPU_INTR_TRACE);
	ASSERT_EQ(0, run1(&b, 3, 1, 64, &cpl));		/* 240 >= 200 */
	EXPECT_EQ(1, fq_irq_count(&b.q, NPU_MSIX_TRACE));
	EXPECT_TRUE(fq_rd(&b.q, NPU_REG_INTR_CAUSE) & NPU_INTR_TRACE);
	/* the host consumes: below the mark again */
	__atomic_store_n(&thdr(&b)->cons, 240, __ATOMIC_RELEASE);
	ASSERT_EQ(0, run1(&b, 4, 1, 64, &cpl));		/* 80 */
	EXPECT_EQ(0, fq_irq_count(&b.q, NPU_MSIX_TRACE));
	EXPECT_EQ(0, bench_stop(&b));
}

TEST(reset_clears_trace)
{
	struct npu_hw_trace_hdr *h;
	struct npu_hw_trec_exec *r;
	struct npu_emu_opts o;
	struct npu_hw_cpl cpl;
	struct bench b;
	uint32_t res;
	int k;

	npu_emu_opts_init(&o);
	o.trace_size = 4096;
	ASSERT_EQ(0, bench_start(&b, &o, NPU_TRACE_EXEC));
	h = thdr(&b);
	for (k = 0; k < 55; k++)
		ASSERT_EQ(0, run1(&b, k, 1, 64, &cpl));
	EXPECT_EQ(4, h->lost);
	__atomic_store_n(&h->cons, 160, __ATOMIC_RELEASE);
	ASSERT_EQ(0, fq_mbox(&b.q, NPU_MBOX_RESET, 0, 100, &res, NULL));
	EXPECT_EQ(NPU_MBOX_OK, res);
	EXPECT_EQ(0, h->prod);
	EXPECT_EQ(0, h->cons);
	EXPECT_EQ(0, h->lost);
	/* the trace level survives a reset; numbering restarts */
	b.q.cmd_prod[0] = 0;
	ASSERT_EQ(0, run1(&b, 500, 1, 64, &cpl));
	r = trec(&b, 0);
	EXPECT_EQ(500, r->job_id);
	EXPECT_EQ(0, r->hdr.seq);
	EXPECT_EQ(80, tprod(&b));
	EXPECT_EQ(0, bench_stop(&b));
}

/*
 * A long DMA-bound job (100 ops of 128 KiB at 1 MB/s: about 13 s of device
 * time) aborted by RESET soon after it started: it completes ABORTED, with
 * only the operators that ended before the abort, and its records (written
 * after the reset cleared the area) still split exactly into run + iowait.
 */
TEST(reset_aborts_running_job)
{
	const uint32_t N = 100, E = 65536;
	struct npu_hw_trec_exec *x;
	struct npu_hw_trec_op *r;
	struct npu_hw_ring_ptrs *cq;
	struct npu_emu_opts o;
	struct npu_hw_cmd c;
	struct npu_hw_cpl cpl;
	struct bench b;
	uint64_t k, prev_end, iow = 0;
	uint32_t res;
	int i;

	npu_emu_opts_init(&o);
	o.dma_bw = 1;
	o.pes = 1;
	ASSERT_EQ(0, bench_start(&b, &o, NPU_TRACE_OPS));
	cq = fq_ptr(&b.q, 0x10000);
	clip_cmd(&b, &c, 9, N, E);
	fq_submit(&b.q, 0, &c);
	for (i = 0; i < 100000 && !__atomic_load_n(&cq->cons, __ATOMIC_ACQUIRE); i++)
		usleep(100);
	usleep(300000);
	ASSERT_EQ(0, fq_mbox(&b.q, NPU_MBOX_RESET, 0, 100, &res, NULL));
	ASSERT_EQ(0, fq_wait_cpl(&b.q, &cpl, 0));
	EXPECT_EQ(9, cpl.job_id);
	EXPECT_EQ(NPU_HW_STATUS_ABORTED, cpl.status);
	ASSERT_GT(N, cpl.op_index);
	/* op_index operators completed: their records, then the EXEC */
	ASSERT_EQ(cpl.op_index * 72ull + 80, tprod(&b));
	prev_end = cpl.start_tick;
	for (k = 0; k < cpl.op_index; k++) {
		r = trec(&b, 72 * k);
		ASSERT_EQ(NPU_HW_TREC_OP, r->hdr.type);
		EXPECT_EQ(k, r->op_index);
		EXPECT_EQ(prev_end, r->start_tick);
		prev_end = r->end_tick;
		iow += r->iowait_ticks;
	}
	x = trec(&b, 72 * k);
	ASSERT_EQ(NPU_HW_TREC_EXEC, x->hdr.type);
	EXPECT_EQ(NPU_HW_STATUS_ABORTED, x->status);
	EXPECT_EQ(cpl.op_index, x->n_ops);
	EXPECT_EQ(cpl.start_tick, x->start_tick);
	EXPECT_EQ(cpl.end_tick, x->end_tick);
	EXPECT_LE(prev_end, x->end_tick);
	EXPECT_EQ(iow, x->iowait_ticks);
	EXPECT_EQ(x->end_tick - x->start_tick, x->run_ticks + x->iowait_ticks);
	/* far less than the modelled 13 s of device time went by */
	EXPECT_GT(N * 2ull * E * 1000, x->end_tick - x->start_tick);
	EXPECT_EQ(0, bench_stop(&b));
}

TEST_HARNESS_MAIN
