// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_dram.c - the shared DRAM model of npu-emu (tools/npu-emu/dram.c;
 * hw.rst, "Timing model"): one PE alone is timed as the per-PE formula
 * says, PEs whose transfers overlap share the DRAM bandwidth, and the model
 * never runs past what a PE has not told it yet. Each test drives the pure
 * model directly, in device ticks, and checks the figures worked out in
 * its comment.
 */
#include <stdint.h>

#include "kselftest_harness.h"
#include "dram.h"
#include "timing.h"

/* far enough: no PE without a job holds the model back */
#define FAR	(1ull << 62)

/* An operator that began and ended no later than the model says */
static void op(struct emu_dram *d, unsigned int pe, uint64_t bytes,
	       uint64_t compute)
{
	emu_dram_op_begin(d, pe, bytes, compute);
	emu_dram_op_end(d, pe, 0);
}

/* One job of one operator of @bytes on @pe at @start, done */
static void one_op_job(struct emu_dram *d, unsigned int pe, uint64_t start,
		       uint64_t bytes)
{
	emu_dram_job_start(d, pe, start);
	op(d, pe, bytes, 0);
	emu_dram_job_done(d, pe);
}

/*
 * One PE, 2000 MB/s at 1 GHz (2 bytes a tick), the other PE idle: exactly
 * the per-PE model. Op 0: dma 2000, iowait 2000, end 1000 + 2000 + 500.
 * Op 1: dma 500 hides behind op 0's compute of 500: iowait 0, end 6500.
 * Op 2: dma 5000 against 3000: iowait 2000, end 6500 + 2000 + 100; its
 * arithmetic ended at 9000, later: the excess is run and the end is 9000.
 */
TEST(alone_is_the_per_pe_model)
{
	struct emu_timing m = { .clock_hz = 1000000000, .dma_bw = 2000,
				.macs_per_cycle = 1 };
	static struct emu_dram d;
	const struct emu_dram_pe *p = &d.pe[0];

	ASSERT_EQ(0, emu_dram_init(&d, 1000000000, 2000, 2000, 2, 0));
	emu_dram_job_start(&d, 0, 1000);
	op(&d, 0, 4000, 500);
	op(&d, 0, 1000, 3000);
	emu_dram_op_begin(&d, 0, 10000, 100);
	emu_dram_op_end(&d, 0, 9000);
	emu_dram_job_done(&d, 0);
	emu_dram_advance(&d, FAR);
	ASSERT_TRUE(p->resolved);
	EXPECT_EQ(3, p->n_resolved);
	EXPECT_EQ(1000, p->ops[0].start);
	EXPECT_EQ(2000, p->ops[0].iowait);
	EXPECT_EQ(3500, p->ops[0].end);
	EXPECT_EQ(3500, p->ops[1].start);
	EXPECT_EQ(0, p->ops[1].iowait);
	EXPECT_EQ(6500, p->ops[1].end);
	EXPECT_EQ(2000, p->ops[2].iowait);
	EXPECT_EQ(9000, p->ops[2].end);
	EXPECT_EQ(9000, p->job_end);
	/* the same figures as the per-PE formula, for any size */
	EXPECT_EQ(emu_timing_dma_ticks(&m, 1001), emu_dram_xfer_ticks(&d, 1001, 1));
	EXPECT_EQ(emu_timing_dma_ticks(&m, 12345678),
		  emu_dram_xfer_ticks(&d, 12345678, 1));
	emu_dram_free(&d);
}

/*
 * Two PEs, one operator of 20000 bytes each (10000 ticks alone), PE 1
 * starting 3000 ticks after PE 0, DRAM = one PE's bandwidth. PE 0 moves
 * 6000 bytes alone, then both move 1 byte a tick: PE 0 ends at 17000
 * (iowait 17000), PE 1 has 6000 bytes left and ends alone at 17000 + 3000
 * = 20000 (iowait 17000 too): 2 * 10000 - 3000 each, against 10000 alone.
 */
TEST(two_pes_share_the_dram)
{
	static struct emu_dram d;

	ASSERT_EQ(0, emu_dram_init(&d, 1000000000, 2000, 2000, 2, 0));
	one_op_job(&d, 0, 0, 20000);
	emu_dram_job_start(&d, 1, 3000);
	/* PE 1 has not told its transfer: PE 0 cannot be timed yet */
	EXPECT_EQ(UINT64_MAX, emu_dram_advance(&d, FAR));
	EXPECT_FALSE(d.pe[0].resolved);
	EXPECT_EQ(3000, d.now);
	op(&d, 1, 20000, 0);
	emu_dram_job_done(&d, 1);
	emu_dram_advance(&d, FAR);
	ASSERT_TRUE(d.pe[0].resolved);
	ASSERT_TRUE(d.pe[1].resolved);
	EXPECT_EQ(17000, d.pe[0].ops[0].iowait);
	EXPECT_EQ(17000, d.pe[0].job_end);
	EXPECT_EQ(17000, d.pe[1].ops[0].iowait);
	EXPECT_EQ(20000, d.pe[1].job_end);
	emu_dram_free(&d);
}

/* DRAM for two full PEs: nobody waits longer than alone (10000 ticks) */
TEST(enough_dram_no_contention)
{
	static struct emu_dram d;

	ASSERT_EQ(0, emu_dram_init(&d, 1000000000, 2000, 4000, 2, 0));
	one_op_job(&d, 0, 0, 20000);
	one_op_job(&d, 1, 0, 20000);
	emu_dram_advance(&d, FAR);
	EXPECT_EQ(10000, d.pe[0].ops[0].iowait);
	EXPECT_EQ(10000, d.pe[1].ops[0].iowait);
	emu_dram_free(&d);
}

/*
 * Shares that are not whole: DRAM 3000 MB/s, three PEs of 2000 MB/s, all
 * starting at 0 with 30000 bytes. Three at once move 1 byte a tick each;
 * 30000 ticks. With two of them, 1.5 bytes a tick: 20000 ticks; PE 2
 * there starts at 20000, alone, 2 bytes a tick: 15000 ticks.
 */
TEST(fractional_shares)
{
	static struct emu_dram d;
	unsigned int i;

	ASSERT_EQ(0, emu_dram_init(&d, 1000000000, 2000, 3000, 3, 0));
	for (i = 0; i < 3; i++)
		one_op_job(&d, i, 0, 30000);
	emu_dram_advance(&d, FAR);
	for (i = 0; i < 3; i++)
		EXPECT_EQ(30000, d.pe[i].ops[0].iowait);
	EXPECT_EQ(20000, emu_dram_xfer_ticks(&d, 30000, 2));

	one_op_job(&d, 0, 40000, 30000);
	one_op_job(&d, 1, 40000, 30000);
	emu_dram_advance(&d, d.now + 19999);
	EXPECT_FALSE(d.pe[0].resolved);
	emu_dram_job_start(&d, 2, 60000);
	op(&d, 2, 30000, 0);
	emu_dram_job_done(&d, 2);
	emu_dram_advance(&d, FAR);
	EXPECT_EQ(20000, d.pe[0].ops[0].iowait);
	EXPECT_EQ(20000, d.pe[1].ops[0].iowait);
	EXPECT_EQ(15000, d.pe[2].ops[0].iowait);
	emu_dram_free(&d);
}

/*
 * Contention stretches a transfer only by what compute does not hide:
 * PE 0 computes 12000 ticks in op 0 (4000 bytes first: 2000 ticks alone,
 * 4000 shared), op 1's 20000 bytes start with op 0's compute. PE 1 moves
 * 40000 bytes from tick 0. Shared 1 byte a tick each: PE 0's op 0 takes
 * 4000 ticks (iowait 4000), op 1's transfer starts at 4000 with 36000
 * left on PE 1: 20000 ticks shared, done at 24000: 20000 - 12000 = 8000
 * iowait. PE 1 has 16000 left at 24000, alone: 8000 more, ends at 32000.
 */
TEST(compute_hides_part_of_the_contention)
{
	static struct emu_dram d;

	ASSERT_EQ(0, emu_dram_init(&d, 1000000000, 2000, 2000, 2, 0));
	emu_dram_job_start(&d, 0, 0);
	op(&d, 0, 4000, 12000);
	op(&d, 0, 20000, 10);
	emu_dram_job_done(&d, 0);
	one_op_job(&d, 1, 0, 40000);
	emu_dram_advance(&d, FAR);
	EXPECT_EQ(4000, d.pe[0].ops[0].iowait);
	EXPECT_EQ(16000, d.pe[0].ops[0].end);
	EXPECT_EQ(8000, d.pe[0].ops[1].iowait);
	EXPECT_EQ(16000 + 8000 + 10, d.pe[0].job_end);
	EXPECT_EQ(32000, d.pe[1].job_end);
	emu_dram_free(&d);
}

/*
 * A PE without a job may take one at any tick after the device clock: the
 * model does not time past @limit, and says when it next has to act.
 */
TEST(idle_pe_holds_the_model_at_the_clock)
{
	static struct emu_dram d;

	ASSERT_EQ(0, emu_dram_init(&d, 1000000000, 2000, 2000, 2, 100));
	one_op_job(&d, 0, 100, 20000);
	EXPECT_EQ(100 + 10000, emu_dram_advance(&d, 5000));
	EXPECT_FALSE(d.pe[0].resolved);
	/* PE 1 takes a job at 5000: both share from there */
	one_op_job(&d, 1, 5000, 20000);
	emu_dram_advance(&d, FAR);
	/* PE 0: 9800 bytes alone, 10200 shared: 4900 + 10200 ticks */
	EXPECT_EQ(4900 + 10200, d.pe[0].ops[0].iowait);
	/* PE 1: 10200 shared, then 9800 alone: 10200 + 4900 */
	EXPECT_EQ(10200 + 4900, d.pe[1].ops[0].iowait);
	/* the device clock may start anywhere: ticks compare modulo 2^64 */
	emu_dram_free(&d);
	ASSERT_EQ(0, emu_dram_init(&d, 1000000000, 2000, 2000, 2, UINT64_MAX - 10));
	one_op_job(&d, 0, UINT64_MAX - 5, 200);
	emu_dram_advance(&d, UINT64_MAX - 5 + 200);
	ASSERT_TRUE(d.pe[0].resolved);
	EXPECT_EQ(100, d.pe[0].ops[0].iowait);
	EXPECT_EQ(94, d.pe[0].job_end);
	emu_dram_free(&d);
}

/*
 * An aborted job leaves the model; the other PE is timed alone from then.
 * With no job in flight the frontier follows the next job's start.
 */
TEST(abort_leaves_the_model)
{
	static struct emu_dram d;

	ASSERT_EQ(0, emu_dram_init(&d, 1000000000, 2000, 2000, 2, 0));
	one_op_job(&d, 0, 0, 20000);
	emu_dram_job_start(&d, 1, 0);
	op(&d, 1, 20000, 0);
	emu_dram_advance(&d, FAR);
	/* both done at 20000 but PE 1 is not done telling: stalled there */
	EXPECT_EQ(20000, d.now);
	EXPECT_TRUE(d.pe[0].resolved);
	EXPECT_FALSE(d.pe[1].resolved);
	emu_dram_job_abort(&d, 1);
	EXPECT_EQ(1, d.pe[1].k);
	EXPECT_EQ(20000, d.pe[1].ops[0].iowait);
	one_op_job(&d, 0, 25000, 2000);
	emu_dram_advance(&d, FAR);
	EXPECT_EQ(1000, d.pe[0].ops[0].iowait);
	/* nothing in flight: a job may start behind the frontier (26000) */
	EXPECT_EQ(26000, d.now);
	one_op_job(&d, 1, 21000, 2000);
	EXPECT_EQ(21000, d.pe[1].job_start);
	/* but not behind a job in flight: it starts at the frontier */
	one_op_job(&d, 0, 20000, 2000);
	EXPECT_EQ(21000, d.pe[0].job_start);
	emu_dram_advance(&d, FAR);
	EXPECT_EQ(2000, d.pe[0].ops[0].iowait);
	EXPECT_EQ(2000, d.pe[1].ops[0].iowait);
	emu_dram_free(&d);
}

/*
 * A transfer is issued when its operator begins: PE 1's operator still
 * computes, yet PE 0, sharing the DRAM with its transfer, is timed (20000
 * ticks each at once); PE 1's next transfer waits for that operator's end.
 */
TEST(transfer_known_when_the_operator_begins)
{
	static struct emu_dram d;

	ASSERT_EQ(0, emu_dram_init(&d, 1000000000, 2000, 2000, 2, 0));
	emu_dram_job_start(&d, 1, 0);
	emu_dram_op_begin(&d, 1, 20000, 5);
	one_op_job(&d, 0, 0, 20000);
	EXPECT_EQ(UINT64_MAX, emu_dram_advance(&d, FAR));
	ASSERT_TRUE(d.pe[0].resolved);
	EXPECT_EQ(20000, d.pe[0].ops[0].iowait);
	EXPECT_EQ(20000, d.pe[1].ops[0].iowait);
	/* op 0 of PE 1 began, op 1 too, op 0 never ended: still waiting */
	EXPECT_FALSE(d.pe[1].resolved);
	emu_dram_op_begin(&d, 1, 0, 5);
	emu_dram_advance(&d, FAR);
	EXPECT_EQ(0, d.pe[1].n_resolved);
	/* the arithmetic of op 0 ended late, at 30000: its end */
	emu_dram_op_end(&d, 1, 30000);
	emu_dram_op_end(&d, 1, 0);
	emu_dram_job_done(&d, 1);
	emu_dram_advance(&d, FAR);
	ASSERT_TRUE(d.pe[1].resolved);
	EXPECT_EQ(30000, d.pe[1].ops[0].end);
	EXPECT_EQ(30005, d.pe[1].job_end);
	emu_dram_free(&d);
}

/*
 * An operator that began and failed (the PE ran out of memory for it)
 * keeps its transfer and its modelled time: its DMA was issued.
 */
TEST(failed_operator_keeps_its_transfer)
{
	static struct emu_dram d;

	ASSERT_EQ(0, emu_dram_init(&d, 1000000000, 2000, 2000, 1, 0));
	emu_dram_job_start(&d, 0, 0);
	op(&d, 0, 2000, 100);
	emu_dram_op_begin(&d, 0, 4000, 7);
	emu_dram_job_done(&d, 0);
	emu_dram_advance(&d, FAR);
	ASSERT_TRUE(d.pe[0].resolved);
	EXPECT_EQ(2, d.pe[0].n_resolved);
	EXPECT_EQ(1100, d.pe[0].ops[0].end);
	EXPECT_EQ(2000 - 100, d.pe[0].ops[1].iowait);
	EXPECT_EQ(1100 + 1900 + 7, d.pe[0].job_end);
	emu_dram_free(&d);
}

TEST_HARNESS_MAIN
