// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_dram - the PEs' DMA contends for the DRAM (Documentation/npu/hw.rst,
 * "Shared DRAM bandwidth"), seen where a profiler sees it: the iowait of
 * the device's EXEC trace records.
 *
 * Each job is one CLIP in place over N bytes: one transfer of B = 2N bytes
 * (input and output), issued when the PE takes the command; its iowait is
 * the transfer's duration.
 * One PE alone moves r1 = min(DMA_BW, DRAM_BW) bytes per second, and
 * waits D = ceil(B / r1) ticks. Two PEs whose jobs start d ticks apart
 * (d < D) share the DRAM: the first moves r1 * d bytes alone, then both
 * move r2 = min(DMA_BW, DRAM_BW / 2) each, until the first is done; the
 * second has r1 * d left then, which it moves alone in d. So both wait
 *
 *   W = d + (B - r1 * d) / r2          (2D - d when DRAM_BW = DMA_BW)
 *
 * ticks, give or take the rounding of each phase to a tick. The test
 * asserts D exactly for jobs alone (also one PE after the other), W for
 * jobs at once, and W - D > 0, the amount concurrency adds. DRAM_BW is
 * the emulator's --dram-bw (NPU_EMU_DRAM_BW from npu-vm), else DMA_BW.
 */
#include <math.h>

#include "kselftest_harness.h"
#include "npu_test.h"
#include "npu_trace_reader.h"

/*
 * A CLIP in place over 24 MiB moves 48 MiB: 25.2 ms at 2000 MB/s, far over
 * the time between two back-to-back submits even in a loaded TCG guest.
 * Each PE's job has its own buffer and its own open file, so that each
 * (24 MiB and a program) stays within the driver's default quota of half
 * the default 64 MiB DRAM per open file; both take 48 MiB of the 64.
 */
#define JOB_BYTES	(24u << 20)
#define MAX_EXEC	8
/* ticks the model's rounding (a ceil per phase) may add or take */
#define ROUNDING	3

struct execs {
	struct npu_trace_rec_exec ex[MAX_EXEC];
	unsigned int n;
};

static void collect(const struct npu_trace_rec_hdr *h, void *arg)
{
	struct execs *e = arg;

	if (h->type == NPU_TRACE_REC_EXEC && e->n < MAX_EXEC)
		memcpy(&e->ex[e->n++], h, sizeof(e->ex[0]));
}

/* One PE's job: a one-CLIP program and the buffer it clips in place */
struct clip_job {
	int fd;
	struct npu_bo_create prog, data;
	uint8_t *prog_map;
	unsigned int h[2];
};

static int clip_job_init(struct clip_job *j, int fd)
{
	int ret;

	memset(j, 0, sizeof(*j));
	j->fd = fd;
	ret = npu_bo_new(fd, TRACE_PROG_BO_SIZE, &j->prog);
	if (!ret)
		ret = npu_bo_new(fd, JOB_BYTES, &j->data);
	if (ret)
		return ret;
	j->prog_map = npu_bo_map(fd, &j->prog);
	if (!j->prog_map)
		return -errno;
	trace_chain_prog(j->prog_map, JOB_BYTES, 1, 1, 1, 10, 200);
	j->h[0] = j->prog.handle;
	j->h[1] = j->data.handle;
	return 0;
}

static int clip_job_submit(struct clip_job *j, unsigned int pe,
			   unsigned long long *id)
{
	return npu_submit_job(j->fd, pe, j->h, 2, 0, 0, trace_chain_size(1),
			      id);
}

FIXTURE(dram)
{
	int fd, fd1;	/* PE 0's job and the trace ring; PE 1's job */
	struct npu_info info;
	struct clip_job j[2];
	struct trace_ring t;
	long double r1, r2;	/* bytes per tick: alone, two at once */
	unsigned long long bytes, alone;
};

FIXTURE_SETUP(dram)
{
	unsigned long long dram_bw;
	unsigned int i;

	self->fd1 = -1;
	self->fd = npu_open();
	ASSERT_LE(0, self->fd);
	memset(&self->info, 0, sizeof(self->info));
	ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_GET_INFO, &self->info));
	if (self->info.pe_count < 2)
		SKIP(return, "one PE: nothing to contend with");
	dram_bw = npu_env_u64("NPU_EMU_DRAM_BW", self->info.dma_bw);
	ASSERT_LT(0, dram_bw);
	self->fd1 = npu_open();
	ASSERT_LE(0, self->fd1);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, clip_job_init(&self->j[i],
					   i ? self->fd1 : self->fd));
	ASSERT_EQ(0, trace_open(self->fd, 0, 16, 0, &self->t));
	ASSERT_EQ(0, trace_enable(&self->t, 1));
	self->r1 = fminl(self->info.dma_bw, dram_bw) * 1e6L /
		   self->info.clock_hz;
	self->r2 = fminl(self->info.dma_bw, dram_bw / 2.0L) * 1e6L /
		   self->info.clock_hz;
	/* the CLIP reads its input and writes its output */
	self->bytes = 2ull * JOB_BYTES;
	self->alone = (unsigned long long)ceill(self->bytes / self->r1);
	TH_LOG("DMA_BW %u MB/s, DRAM_BW %llu MB/s, clock %llu Hz: %llu bytes take %llu ticks alone",
	       self->info.dma_bw, dram_bw,
	       (unsigned long long)self->info.clock_hz, self->bytes,
	       self->alone);
}

FIXTURE_TEARDOWN(dram)
{
	if (self->info.pe_count >= 2)
		trace_close(&self->t);
	if (self->fd1 >= 0)
		close(self->fd1);
	close(self->fd);
}

/* Wait for job @id; 0 when it ended OK */
static int wait_ok(struct clip_job *j, unsigned long long id)
{
	struct npu_wait w;
	int ret = npu_wait_job(j->fd, id, 0, 60000000000ll, &w);

	if (ret)
		return ret;
	return w.result.status == NPU_JOB_OK ? 0 : -EIO;
}

/* Consume the EXEC records so far into @e; -EIO when some were lost */
static int read_execs(struct trace_ring *t, struct execs *e)
{
	struct trace_stats st = { 0 };

	memset(e, 0, sizeof(*e));
	if (trace_consume(t, &st, collect, e) < 0 ||
	    st.by_type[NPU_TRACE_REC_LOST])
		return -EIO;
	return 0;
}

static const struct npu_trace_rec_exec *exec_of(const struct execs *e,
						unsigned long long id)
{
	unsigned int i;

	for (i = 0; i < e->n; i++)
		if (e->ex[i].job_id == id)
			return &e->ex[i];
	return NULL;
}

/* One PE at a time, on each PE in turn: exactly D, no contention */
TEST_F(dram, one_pe_at_a_time_waits_d)
{
	unsigned long long id[2];
	struct execs e;
	unsigned int p;

	for (p = 0; p < 2; p++) {
		ASSERT_EQ(0, clip_job_submit(&self->j[p], p, &id[p]));
		ASSERT_EQ(0, wait_ok(&self->j[p], id[p]));
	}
	ASSERT_EQ(0, read_execs(&self->t, &e));
	for (p = 0; p < 2; p++) {
		const struct npu_trace_rec_exec *x = exec_of(&e, id[p]);

		ASSERT_NE(NULL, x);
		EXPECT_EQ(p, x->pe);
		EXPECT_EQ(self->bytes, x->dma_bytes);
		EXPECT_EQ(self->alone, x->iowait_ticks);
		EXPECT_EQ(x->end_tick - x->start_tick,
			  x->run_ticks + x->iowait_ticks);
	}
	/* one after the other: the second started after the first ended */
	EXPECT_LE((long long)(exec_of(&e, id[0])->end_tick -
			      exec_of(&e, id[1])->start_tick), 0);
}

/*
 * Both PEs at once: each waits W = d + (B - r1 d) / r2, more than D alone
 * by the modelled amount. d is the guest's doing (two submits back to
 * back under TCG, each its own doorbell: usually well under D, but not
 * always): a pair that does not overlap
 * (d >= D) waits D each, as the model says, and is tried again, up to
 * five pairs, for one that overlaps.
 */
TEST_F(dram, two_pes_at_once_wait_longer)
{
	const struct npu_trace_rec_exec *x[2];
	unsigned long long id[2], d;
	unsigned int p, pair;
	bool overlapped = false;
	long double want;
	struct execs e;

	for (pair = 0; pair < 5 && !overlapped; pair++) {
		for (p = 0; p < 2; p++)
			ASSERT_EQ(0, clip_job_submit(&self->j[p], p, &id[p]));
		for (p = 0; p < 2; p++)
			ASSERT_EQ(0, wait_ok(&self->j[p], id[p]));
		ASSERT_EQ(0, read_execs(&self->t, &e));
		for (p = 0; p < 2; p++) {
			x[p] = exec_of(&e, id[p]);
			ASSERT_NE(NULL, x[p]);
			EXPECT_EQ(p, x[p]->pe);
			EXPECT_EQ(self->bytes, x[p]->dma_bytes);
			EXPECT_EQ(x[p]->end_tick - x[p]->start_tick,
				  x[p]->run_ticks + x[p]->iowait_ticks);
		}
		d = x[1]->start_tick > x[0]->start_tick ?
		    x[1]->start_tick - x[0]->start_tick :
		    x[0]->start_tick - x[1]->start_tick;
		overlapped = d < self->alone;
		want = overlapped ? d + (self->bytes - self->r1 * d) / self->r2 :
				    self->alone;
		TH_LOG("pair %u started %llu ticks apart: iowait %llu and %llu, modelled %.0Lf, alone %llu",
		       pair, d, (unsigned long long)x[0]->iowait_ticks,
		       (unsigned long long)x[1]->iowait_ticks, want,
		       self->alone);
		for (p = 0; p < 2; p++) {
			EXPECT_GE(x[p]->iowait_ticks + ROUNDING, want);
			EXPECT_LE(x[p]->iowait_ticks, want + ROUNDING);
		}
	}
	ASSERT_TRUE(overlapped);
	/* what concurrency added: (B - r1 d) / r2 - (B / r1 - d) > 0 */
	if (self->r2 < self->r1) {
		EXPECT_GT(x[0]->iowait_ticks, self->alone);
		EXPECT_GT(x[1]->iowait_ticks, self->alone);
	} else {
		EXPECT_EQ(self->alone, x[0]->iowait_ticks);
		EXPECT_EQ(self->alone, x[1]->iowait_ticks);
	}
}

TEST_HARNESS_MAIN
