// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_contend.c - the running emulator's PEs contend for the DRAM
 * (hw.rst, "Shared DRAM bandwidth"), seen in their completions: a job of
 * one CLIP over E bytes in place moves B = 2E bytes. At DMA_BW 1 MB/s and
 * 1 GHz that is 1000 ticks a byte: D = 1000 B alone, far longer than the
 * host's arithmetic, so a job lasts exactly D + compute, compute being
 * ceil(E / 256). Two PEs starting d ticks apart, with DRAM_BW = DMA_BW,
 * each move 1 byte per 2000 ticks while both move: each waits 2D - d.
 */
#include <errno.h>
#include <string.h>

#include "kselftest_harness.h"
#include "fakeqemu.h"

#define DRAM		0x400000u
#define PROG_BUF	DRAM
#define PROG_SIZE	0x10000u
#define DATA_BUF	(DRAM + PROG_SIZE)	/* PE p's tensor at + p * 64K */
#define DATA_SIZE	0x10000u
#define ELEMS		16384u
#define BYTES		(2ull * ELEMS)
#define ALONE		(1000ull * BYTES)
#define COMPUTE		((ELEMS + 255) / 256)
/* ticks the model's rounding (one ceil per phase) may add or take */
#define ROUNDING	3

struct bench {
	struct fq_emu t;
	struct fakeqemu q;
	struct npu_hw_cmd c;
};

static int bench_start(struct bench *b, uint32_t dram_bw)
{
	struct npu_emu_opts o;
	int ret;

	npu_emu_opts_init(&o);
	o.pes = 2;
	o.dma_bw = 1;
	o.dram_bw = dram_bw;
	ret = fq_emu_start(&b->t, &o);
	if (!ret)
		ret = fq_connect(&b->q, b->t.path, NPU_MSIX_COUNT);
	if (!ret)
		ret = fq_control(&b->q, true, NPU_TRACE_OFF);
	memset(&b->c, 0, sizeof(b->c));
	b->c.nbufs = 2;
	b->c.prog_size = build_clip_prog(fq_ptr(&b->q, PROG_BUF), 1, ELEMS, 1,
					 0, 255);
	b->c.bufs[0].addr = PROG_BUF;
	b->c.bufs[0].size = PROG_SIZE;
	b->c.bufs[1].size = DATA_SIZE;
	return ret;
}

static int bench_stop(struct bench *b)
{
	fq_close(&b->q);
	return fq_emu_stop(&b->t);
}

static void put(struct bench *b, unsigned int pe, uint64_t job_id)
{
	b->c.job_id = job_id;
	b->c.bufs[1].addr = DATA_BUF + pe * DATA_SIZE;
	fq_put_cmd(&b->q, pe, &b->c);
}

static void submit(struct bench *b, unsigned int pe, uint64_t job_id)
{
	put(b, pe, job_id);
	fq_ring(&b->q, NPU_DB_QUEUE);
}

/*
 * Job 1 on PE 0 and job 2 on PE 1, announced by one doorbell: neither PE
 * may take its command before the ring (pe.c, dequeue()), so both PEs'
 * threads are woken by the same broadcast and only their wake-ups, not
 * the test's writes between them, set the start ticks apart.
 */
static void submit_both(struct bench *b)
{
	put(b, 0, 1);
	put(b, 1, 2);
	fq_ring(&b->q, NPU_DB_QUEUE);
}

/* Both completions, in job id order (1, 2) */
static int wait_two(struct bench *b, struct npu_hw_cpl *cpl)
{
	struct npu_hw_cpl x;
	int i, ret;

	for (i = 0; i < 2; i++) {
		ret = fq_wait_cpl(&b->q, &x, 20000);
		if (ret)
			return ret;
		if (x.job_id < 1 || x.job_id > 2 || x.status != NPU_HW_STATUS_OK)
			return -EIO;
		cpl[x.job_id - 1] = x;
	}
	return 0;
}

/* One PE at a time: D + compute each, on either PE */
TEST(one_at_a_time)
{
	struct npu_hw_cpl cpl[2];
	struct bench b;
	unsigned int p;

	ASSERT_EQ(0, bench_start(&b, 0));
	for (p = 0; p < 2; p++) {
		submit(&b, p, p + 1);
		ASSERT_EQ(0, fq_wait_cpl(&b.q, &cpl[p], 20000));
		ASSERT_EQ(NPU_HW_STATUS_OK, cpl[p].status);
		EXPECT_EQ(p, cpl[p].pe);
		EXPECT_EQ(ALONE + COMPUTE, cpl[p].end_tick - cpl[p].start_tick);
	}
	EXPECT_EQ(0, bench_stop(&b));
}

/*
 * Both at once: 2D - d + compute each, against D + compute alone. d is the
 * host's doing: the two PE threads' wake-ups on one doorbell
 * (submit_both()), which on a loaded machine can still differ by more
 * than D. A pair that does not overlap takes D + compute each, as the
 * model says, and is tried again, up to five pairs, for one that overlaps.
 */
TEST(both_at_once)
{
	struct npu_hw_cpl cpl[2];
	uint64_t d = ALONE, want;
	unsigned int p, pair;
	struct bench b;

	ASSERT_EQ(0, bench_start(&b, 0));
	for (pair = 0; pair < 5 && d >= ALONE; pair++) {
		submit_both(&b);
		ASSERT_EQ(0, wait_two(&b, cpl));
		/* either PE's thread may wake first */
		d = cpl[1].start_tick > cpl[0].start_tick ?
		    cpl[1].start_tick - cpl[0].start_tick :
		    cpl[0].start_tick - cpl[1].start_tick;
		want = d < ALONE ? 2 * ALONE - d + COMPUTE : ALONE + COMPUTE;
		TH_LOG("pair %u, %llu ticks apart: %llu and %llu ticks, modelled %llu, alone %llu",
		       pair, (unsigned long long)d,
		       (unsigned long long)(cpl[0].end_tick - cpl[0].start_tick),
		       (unsigned long long)(cpl[1].end_tick - cpl[1].start_tick),
		       (unsigned long long)want, ALONE + COMPUTE);
		for (p = 0; p < 2; p++) {
			EXPECT_EQ(p, cpl[p].pe);
			EXPECT_GE(cpl[p].end_tick - cpl[p].start_tick + ROUNDING,
				  want);
			EXPECT_LE(cpl[p].end_tick - cpl[p].start_tick,
				  want + ROUNDING);
		}
	}
	ASSERT_GT(ALONE, d);
	EXPECT_EQ(0, bench_stop(&b));
}

/* DRAM for both (--dram-bw 2): no contention, D + compute each */
TEST(enough_dram)
{
	struct npu_hw_cpl cpl[2];
	struct bench b;
	unsigned int p;

	ASSERT_EQ(0, bench_start(&b, 2));
	submit_both(&b);
	ASSERT_EQ(0, wait_two(&b, cpl));
	for (p = 0; p < 2; p++)
		EXPECT_EQ(ALONE + COMPUTE, cpl[p].end_tick - cpl[p].start_tick);
	EXPECT_EQ(0, bench_stop(&b));
}

TEST_HARNESS_MAIN
