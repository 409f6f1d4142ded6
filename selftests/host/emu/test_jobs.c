// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_jobs.c - npu-emu jobs: command queues, validation, completions,
 * several PEs, enable, reset, fault injection and the timing model.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fakeqemu.h"
#include "program.h"
#include "timing.h"

#define DRAM		0x400000u
#define PROG_BUF	DRAM			/* slot 0: program */
#define PROG_SIZE	0x20000u
#define DATA_BUF	(DRAM + PROG_SIZE)	/* slot 1: tensors */
#define DATA_SIZE	0x100000u
#define NONE		0xffff

struct bench {
	struct fq_emu t;
	struct fakeqemu q;
};

static int bench_start(struct bench *b, struct npu_emu_opts *o)
{
	int ret = fq_emu_start(&b->t, o);

	if (ret)
		return ret;
	return fq_connect(&b->q, b->t.path, NPU_MSIX_COUNT);
}

static int bench_stop(struct bench *b)
{
	fq_close(&b->q);
	return fq_emu_stop(&b->t);
}

/* A command running a CLIP chain from slot 0 over tensors in slot 1 */
static void clip_cmd(struct bench *b, struct npu_hw_cmd *c, uint64_t job_id,
		     uint32_t n_ops, uint32_t elems, int32_t lo, int32_t hi)
{
	uint32_t size = build_clip_prog(fq_ptr(&b->q, PROG_BUF), n_ops, elems,
					1, lo, hi);

	memset(c, 0, sizeof(*c));
	c->job_id = job_id;
	c->nbufs = 2;
	c->prog_buf = 0;
	c->prog_offset = 0;
	c->prog_size = size;
	c->exec_index = (uint32_t)job_id;
	c->bufs[0].addr = PROG_BUF;
	c->bufs[0].size = PROG_SIZE;
	c->bufs[1].addr = DATA_BUF;
	c->bufs[1].size = DATA_SIZE;
}

FIXTURE(jobs)
{
	struct bench b;
	struct npu_emu_opts o;
};

FIXTURE_SETUP(jobs)
{
	npu_emu_opts_init(&self->o);
	self->o.pes = 4;
	ASSERT_EQ(0, bench_start(&self->b, &self->o));
	ASSERT_EQ(0, fq_control(&self->b.q, true, NPU_TRACE_OFF));
}

FIXTURE_TEARDOWN(jobs)
{
	bench_stop(&self->b);
}

TEST_F(jobs, clip_runs_and_completes)
{
	struct fakeqemu *q = &self->b.q;
	uint8_t *x = fq_ptr(q, DATA_BUF), *y = fq_ptr(q, DATA_BUF + 1024);
	struct npu_hw_ring_ptrs *cq = fq_ptr(q, 0x10000);
	struct npu_hw_cmd c;
	struct npu_hw_cpl cpl;
	int i;

	for (i = 0; i < 1000; i++)
		x[i] = (uint8_t)(i * 7);
	clip_cmd(&self->b, &c, 0x1234567890abcdefull, 1, 1000, 20, 200);
	fq_submit(q, 0, &c);
	ASSERT_EQ(0, fq_wait_cpl(q, &cpl, 10000));
	EXPECT_EQ(0x1234567890abcdefull, cpl.job_id);
	EXPECT_EQ(NPU_HW_STATUS_OK, cpl.status);
	EXPECT_EQ(0, cpl.pe);
	EXPECT_EQ(NONE, cpl.op_index);
	EXPECT_LE(cpl.start_tick, cpl.end_tick);
	/* the device consumed the command */
	EXPECT_EQ(1, __atomic_load_n(&cq->cons, __ATOMIC_ACQUIRE));
	EXPECT_TRUE(fq_rd(q, NPU_REG_INTR_CAUSE) & NPU_INTR_CPL);
	for (i = 0; i < 1000; i++) {
		uint8_t want = (uint8_t)(i * 7);

		want = want < 20 ? 20 : want > 200 ? 200 : want;
		ASSERT_EQ(want, y[i]) TH_LOG("element %d", i);
	}
	/* the device clock at completion is past the job's end */
	{
		uint32_t res;
		uint64_t now;

		ASSERT_EQ(0, fq_mbox(q, NPU_MBOX_CLOCK_LATCH, 0, 77, &res, &now));
		EXPECT_LE(cpl.end_tick, now);
	}
}

TEST_F(jobs, every_pe_runs_its_queue)
{
	struct fakeqemu *q = &self->b.q;
	struct npu_hw_cmd c;
	struct npu_hw_cpl cpl;
	unsigned int seen[4] = { 0 };
	int pe, k, i;

	for (k = 0; k < 5; k++)
		for (pe = 0; pe < 4; pe++) {
			clip_cmd(&self->b, &c, 100 * pe + k, 2, 64, 0, 255);
			fq_submit(q, pe, &c);
		}
	for (i = 0; i < 20; i++) {
		ASSERT_EQ(0, fq_wait_cpl(q, &cpl, 10000));
		EXPECT_EQ(NPU_HW_STATUS_OK, cpl.status);
		ASSERT_GT(4, cpl.pe);
		/* job ids name their queue, and a queue runs in order */
		EXPECT_EQ(cpl.pe, cpl.job_id / 100);
		EXPECT_EQ(seen[cpl.pe], cpl.job_id % 100);
		seen[cpl.pe]++;
	}
	for (pe = 0; pe < 4; pe++)
		EXPECT_EQ(5, seen[pe]);
	EXPECT_EQ(0, fq_cpl_pending(q));
}

struct bad_cmd_case {
	const char *name;
	void (*mutate)(struct npu_hw_cmd *c);
	uint32_t status;
};

static void m_flags(struct npu_hw_cmd *c) { c->flags = 1; }
static void m_nbufs0(struct npu_hw_cmd *c) { c->nbufs = 0; }
static void m_nbufs13(struct npu_hw_cmd *c) { c->nbufs = 13; }
static void m_progbuf(struct npu_hw_cmd *c) { c->prog_buf = 2; }
static void m_misaligned(struct npu_hw_cmd *c) { c->bufs[1].addr += 32; }
static void m_below(struct npu_hw_cmd *c) { c->bufs[1].addr = DRAM - 64; }
static void m_beyond(struct npu_hw_cmd *c)
{
	c->bufs[1].addr = DRAM + (64u << 20) - 64;
	c->bufs[1].size = 128;
}
static void m_wrap(struct npu_hw_cmd *c)
{
	c->bufs[1].addr = 0xffffffc0;
	c->bufs[1].size = 0x80;
}
static void m_progoff(struct npu_hw_cmd *c) { c->prog_offset = 8; }
static void m_progbig(struct npu_hw_cmd *c) { c->prog_offset = PROG_SIZE - 64; }
static void m_magic(struct npu_hw_cmd *c) { c->prog_offset = 0x1000; }

TEST_F(jobs, bad_commands)
{
	static const struct bad_cmd_case cases[] = {
		{ "flags", m_flags, NPU_HW_STATUS_BAD_CMD },
		{ "nbufs 0", m_nbufs0, NPU_HW_STATUS_BAD_CMD },
		{ "nbufs 13", m_nbufs13, NPU_HW_STATUS_BAD_CMD },
		{ "prog_buf", m_progbuf, NPU_HW_STATUS_BAD_CMD },
		{ "misaligned", m_misaligned, NPU_HW_STATUS_MISALIGNED },
		{ "below DRAM", m_below, NPU_HW_STATUS_BAD_ADDRESS },
		{ "beyond DRAM", m_beyond, NPU_HW_STATUS_BAD_ADDRESS },
		{ "32-bit wrap", m_wrap, NPU_HW_STATUS_BAD_ADDRESS },
		{ "prog_offset", m_progoff, NPU_HW_STATUS_MISALIGNED },
		{ "program past buffer", m_progbig, NPU_HW_STATUS_BAD_ADDRESS },
		{ "no program there", m_magic, NPU_HW_STATUS_BAD_PROGRAM },
	};
	struct fakeqemu *q = &self->b.q;
	uint8_t *y = fq_ptr(q, DATA_BUF + 1024);
	struct npu_hw_cmd c;
	struct npu_hw_cpl cpl;
	size_t i;

	memset(fq_ptr(q, PROG_BUF + 0x1000), 0x5a, 256);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		clip_cmd(&self->b, &c, i, 1, 1000, 0, 255);
		memset(y, 0xee, 1000);
		cases[i].mutate(&c);
		fq_submit(q, 1, &c);
		ASSERT_EQ(0, fq_wait_cpl(q, &cpl, 10000));
		EXPECT_EQ(i, cpl.job_id);
		EXPECT_EQ(cases[i].status, cpl.status)
			TH_LOG("case '%s'", cases[i].name);
		EXPECT_EQ(NONE, cpl.op_index) TH_LOG("case '%s'", cases[i].name);
		EXPECT_EQ(1, cpl.pe);
		/* nothing was written */
		EXPECT_EQ(0xee, y[0]);
		EXPECT_EQ(0xee, y[999]);
	}
	/* and a good one still runs */
	clip_cmd(&self->b, &c, 99, 1, 1000, 0, 255);
	fq_submit(q, 1, &c);
	ASSERT_EQ(0, fq_wait_cpl(q, &cpl, 10000));
	EXPECT_EQ(NPU_HW_STATUS_OK, cpl.status);
	EXPECT_EQ(0, fq_rd(q, NPU_REG_STATUS) & NPU_STATUS_FAULT);
}

TEST_F(jobs, disabled_device_holds_jobs)
{
	struct fakeqemu *q = &self->b.q;
	struct npu_hw_cmd c;
	struct npu_hw_cpl cpl;

	ASSERT_EQ(0, fq_control(q, false, 0));
	clip_cmd(&self->b, &c, 5, 1, 64, 0, 255);
	fq_submit(q, 2, &c);
	EXPECT_EQ(-ETIMEDOUT, fq_wait_cpl(q, &cpl, 200));
	ASSERT_EQ(0, fq_control(q, true, 0));
	ASSERT_EQ(0, fq_wait_cpl(q, &cpl, 10000));
	EXPECT_EQ(5, cpl.job_id);
	EXPECT_EQ(NPU_HW_STATUS_OK, cpl.status);
	EXPECT_EQ(2, cpl.pe);
}

TEST_F(jobs, reset_aborts_queued_jobs)
{
	struct fakeqemu *q = &self->b.q;
	struct npu_hw_ring_ptrs *cq = fq_ptr(q, 0x10000 + 3 * 0x4000);
	struct npu_hw_cmd c;
	struct npu_hw_cpl cpl;
	uint32_t res;
	int i;

	ASSERT_EQ(0, fq_control(q, false, 0));
	for (i = 0; i < 3; i++) {
		clip_cmd(&self->b, &c, 40 + i, 1, 64, 0, 255);
		fq_submit(q, 3, &c);
	}
	ASSERT_EQ(0, fq_mbox(q, NPU_MBOX_RESET, 0, 1, &res, NULL));
	EXPECT_EQ(NPU_MBOX_OK, res);
	/* all three completed ABORTED before the acknowledgement */
	EXPECT_EQ(3, fq_cpl_pending(q));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, fq_wait_cpl(q, &cpl, 0));
		EXPECT_EQ(40 + i, cpl.job_id);
		EXPECT_EQ(NPU_HW_STATUS_ABORTED, cpl.status);
		EXPECT_EQ(3, cpl.pe);
		EXPECT_EQ(NONE, cpl.op_index);
	}
	EXPECT_EQ(0, cq->prod);
	EXPECT_EQ(0, cq->cons);
	/* the queue works again from 0 */
	q->cmd_prod[3] = 0;
	ASSERT_EQ(0, fq_control(q, true, 0));
	clip_cmd(&self->b, &c, 50, 1, 64, 0, 255);
	fq_submit(q, 3, &c);
	ASSERT_EQ(0, fq_wait_cpl(q, &cpl, 10000));
	EXPECT_EQ(50, cpl.job_id);
	EXPECT_EQ(NPU_HW_STATUS_OK, cpl.status);
	EXPECT_EQ(1, cq->cons);
}

TEST_F(jobs, corrupt_queue_pointers_fault)
{
	struct fakeqemu *q = &self->b.q;
	struct npu_hw_ring_ptrs *cq = fq_ptr(q, 0x10000);
	struct npu_hw_cpl cpl;
	uint32_t res;

	__atomic_store_n(&cq->prod, 65, __ATOMIC_RELEASE);
	fq_ring(q, NPU_DB_QUEUE);
	ASSERT_EQ(1, fq_wait_irq(q, NPU_MSIX_ERROR, 10000));
	EXPECT_EQ(NPU_ERR_CMDQ, fq_rd(q, NPU_REG_ERROR));
	EXPECT_TRUE(fq_rd(q, NPU_REG_STATUS) & NPU_STATUS_FAULT);
	EXPECT_TRUE(fq_rd(q, NPU_REG_INTR_CAUSE) & NPU_INTR_ERROR);
	EXPECT_EQ(-ETIMEDOUT, fq_wait_cpl(q, &cpl, 100));
	/* reset recovers, and garbage is not completed */
	ASSERT_EQ(0, fq_mbox(q, NPU_MBOX_RESET, 0, 1, &res, NULL));
	EXPECT_EQ(0, fq_rd(q, NPU_REG_STATUS) & NPU_STATUS_FAULT);
	EXPECT_EQ(NPU_ERR_NONE, fq_rd(q, NPU_REG_ERROR));
	EXPECT_EQ(0, fq_cpl_pending(q));
	EXPECT_EQ(0, cq->prod);
}

TEST_F(jobs, completion_queue_overflow_faults)
{
	struct fakeqemu *q = &self->b.q;
	struct npu_hw_ring_ptrs *cpq = fq_ptr(q, 0x50000);
	struct npu_hw_cmd c;

	/* the host claims to have consumed 1024 fewer than produced */
	__atomic_store_n(&cpq->cons, (uint32_t)-1024, __ATOMIC_RELEASE);
	clip_cmd(&self->b, &c, 1, 1, 64, 0, 255);
	fq_submit(q, 0, &c);
	ASSERT_EQ(1, fq_wait_irq(q, NPU_MSIX_ERROR, 10000));
	EXPECT_EQ(NPU_ERR_CPLQ_FULL, fq_rd(q, NPU_REG_ERROR));
	EXPECT_TRUE(fq_rd(q, NPU_REG_STATUS) & NPU_STATUS_FAULT);
	EXPECT_EQ(0, __atomic_load_n(&cpq->prod, __ATOMIC_ACQUIRE));
}

TEST(stalled_pe_until_reset)
{
	struct npu_emu_opts o;
	struct bench b;
	struct npu_hw_cmd c;
	struct npu_hw_cpl cpl;
	uint32_t res;

	npu_emu_opts_init(&o);
	o.pes = 2;
	o.stall_pe = 1;
	ASSERT_EQ(0, bench_start(&b, &o));
	ASSERT_EQ(0, fq_control(&b.q, true, 0));
	clip_cmd(&b, &c, 7, 1, 64, 0, 255);
	fq_submit(&b.q, 1, &c);
	/* PE 0 still works */
	clip_cmd(&b, &c, 8, 1, 64, 0, 255);
	fq_submit(&b.q, 0, &c);
	ASSERT_EQ(0, fq_wait_cpl(&b.q, &cpl, 10000));
	EXPECT_EQ(8, cpl.job_id);
	EXPECT_EQ(-ETIMEDOUT, fq_wait_cpl(&b.q, &cpl, 300));
	ASSERT_EQ(0, fq_mbox(&b.q, NPU_MBOX_RESET, 0, 1, &res, NULL));
	ASSERT_EQ(0, fq_wait_cpl(&b.q, &cpl, 0));
	EXPECT_EQ(7, cpl.job_id);
	EXPECT_EQ(NPU_HW_STATUS_ABORTED, cpl.status);
	EXPECT_EQ(1, cpl.pe);
	EXPECT_LE(cpl.start_tick, cpl.end_tick);
	EXPECT_EQ(0, bench_stop(&b));
}

TEST(fail_after)
{
	struct npu_emu_opts o;
	struct bench b;
	struct npu_hw_cmd c;
	struct npu_hw_cpl cpl;
	int i;

	npu_emu_opts_init(&o);
	o.pes = 1;
	o.fail_after = 2;
	ASSERT_EQ(0, bench_start(&b, &o));
	ASSERT_EQ(0, fq_control(&b.q, true, 0));
	for (i = 0; i < 4; i++) {
		clip_cmd(&b, &c, i, 1, 64, 0, 255);
		fq_submit(&b.q, 0, &c);
	}
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, fq_wait_cpl(&b.q, &cpl, 10000));
		EXPECT_EQ(i, cpl.job_id);
		EXPECT_EQ(i < 2 ? NPU_HW_STATUS_OK : NPU_HW_STATUS_BAD_PROGRAM,
			  cpl.status);
	}
	EXPECT_EQ(0, bench_stop(&b));
}

TEST(model_arithmetic)
{
	struct emu_timing m = { .clock_hz = 1000000000, .dma_bw = 2000,
			       .macs_per_cycle = 256 };
	struct emu_op_cost cost = { .macs = 1, .in_bytes = UINT64_MAX,
				    .w_bytes = 5, .out_bytes = 1 };

	EXPECT_EQ(0, emu_timing_compute_ticks(&m, 0));
	EXPECT_EQ(1, emu_timing_compute_ticks(&m, 1));
	EXPECT_EQ(1, emu_timing_compute_ticks(&m, 256));
	EXPECT_EQ(2, emu_timing_compute_ticks(&m, 257));
	/* 2000 MB/s at 1 GHz: 2 bytes per tick, rounded up */
	EXPECT_EQ(0, emu_timing_dma_ticks(&m, 0));
	EXPECT_EQ(1, emu_timing_dma_ticks(&m, 1));
	EXPECT_EQ(500, emu_timing_dma_ticks(&m, 1000));
	EXPECT_EQ(501, emu_timing_dma_ticks(&m, 1001));
	/* 1 MB/s at 4 GHz, 4 GiB: no overflow, 2^32 * 4000 ticks */
	m.clock_hz = 4000000000u;
	m.dma_bw = 1;
	EXPECT_EQ((1ull << 32) * 4000, emu_timing_dma_ticks(&m, 1ull << 32));
	EXPECT_EQ(UINT64_MAX, emu_timing_dma_ticks(&m, UINT64_MAX));
	EXPECT_EQ(7, emu_timing_iowait(10, 3));
	EXPECT_EQ(0, emu_timing_iowait(3, 10));
	EXPECT_EQ(UINT64_MAX, emu_timing_op_bytes(&cost));
	EXPECT_EQ(UINT64_MAX, emu_timing_add(UINT64_MAX - 1, 2));
}

/*
 * DMA-bound chain: each CLIP of E elements moves 2E bytes, at 1 MB/s and
 * 1 GHz that is 2000E ticks, against ceil(E / 256) ticks of compute. The
 * job lasts at least the modelled time, and no less than the real time.
 */
TEST(timing_model_job_duration)
{
	struct npu_emu_opts o;
	struct bench b;
	struct npu_hw_cmd c;
	struct npu_hw_cpl cpl;
	const uint64_t E = 4096, N = 3;
	uint64_t compute, dma, model, b0, a1, t0, t1;
	uint32_t res;

	npu_emu_opts_init(&o);
	o.pes = 1;
	o.dma_bw = 1;
	ASSERT_EQ(0, bench_start(&b, &o));
	ASSERT_EQ(0, fq_control(&b.q, true, 0));
	clip_cmd(&b, &c, 1, N, E, 0, 255);
	b0 = now_ns();
	ASSERT_EQ(0, fq_mbox(&b.q, NPU_MBOX_CLOCK_LATCH, 0, 10, &res, &t0));
	fq_submit(&b.q, 0, &c);
	ASSERT_EQ(0, fq_wait_cpl(&b.q, &cpl, 20000));
	ASSERT_EQ(0, fq_mbox(&b.q, NPU_MBOX_CLOCK_LATCH, 0, 11, &res, &t1));
	a1 = now_ns();
	ASSERT_EQ(NPU_HW_STATUS_OK, cpl.status);
	compute = (E + 255) / 256;
	dma = 2 * E * 1000;
	model = dma + (N - 1) * (dma - compute) + N * compute;
	EXPECT_LE(model, cpl.end_tick - cpl.start_tick);
	/* inside the host's view, and never ahead of the device clock */
	EXPECT_LE(t0, cpl.start_tick);
	EXPECT_LE(cpl.end_tick, t1);
	EXPECT_LE(t1 - t0, a1 - b0);
	EXPECT_EQ(0, bench_stop(&b));
}

TEST_HARNESS_MAIN
