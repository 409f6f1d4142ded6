// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_mempeak.c - npuprof_memory()'s peak buffers in time linear in the
 * BO records: a trace where every allocation raises the device's peak
 * and a free follows it (a process that grows while it frees) once made
 * the report copy and sort every live buffer at each peak, quadratic:
 * 60 001 records took 25 s. The report must take well under a second
 * per 10 000 records here, with the figures computed by hand.
 *
 * Locking: single-threaded. Lifetime: the trace file is removed by the
 * fixture's teardown.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "memory_gen.h"
#include "npuprof_analysis.h"

#define PK_N	20000	/* rounds: alloc 4 KiB, alloc 8 KiB (a peak), free */

/*
 * Buffer 1 (4 KiB), then round k allocates 2k + 2 (4 KiB) and 2k + 3
 * (8 KiB, the new peak) and frees the 4 KiB buffer before (1, then
 * 2k): allocated grows by 8 KiB a round, and the peak is after the last
 * round's second allocation: 4096 + PK_N * 8192 + 4096 bytes.
 */
static void pk_write(const char *path)
{
	struct npf_writer *w;
	uint64_t used = 4096, id, k;
	uint32_t q = 0;

	if (npf_writer_open(path, 1 << 20, &w))
		abort();
	mem_gen_device(w, 0, 2, 1ull << 40);
	mem_gen_bo(w, 0, MEM_A, q++, 1, 1, 0x1000, 4096, NPU_BO_KIND_OTHER,
		   0, 0, 1000, used);
	for (k = 0; k < PK_N; k++) {
		id = 2 * k + 2;
		used += 4096;
		mem_gen_bo(w, 0, MEM_A, q++, 1, id, 0x1000 + id * 8192, 4096,
			   NPU_BO_KIND_OTHER, 0, 0, 2000 + 3 * k, used);
		used += 8192;
		mem_gen_bo(w, 0, MEM_A, q++, 1, id + 1,
			   0x1000 + (id + 1) * 8192, 8192, NPU_BO_KIND_OTHER,
			   0, 0, 2001 + 3 * k, used);
		used -= 4096;
		mem_gen_bo(w, 0, MEM_F, q++, 1, k ? id - 2 : 1,
			   0x1000 + (k ? id - 2 : 0) * 8192, 4096,
			   NPU_BO_KIND_OTHER, 0, NPU_TRACE_BO_FREE_HANDLE,
			   2002 + 3 * k, used);
	}
	if (npf_writer_close(w))
		abort();
}

FIXTURE(pk) {
	char path[128];
	struct npuprof_trace *t;
};

FIXTURE_SETUP(pk)
{
	char err[256];

	snprintf(self->path, sizeof(self->path),
		 "/tmp/npuprof-mempeak-%d", (int)getpid());
	pk_write(self->path);
	ASSERT_EQ(0, npuprof_trace_open(self->path, &self->t, err,
					sizeof(err))) TH_LOG("%s", err);
}

FIXTURE_TEARDOWN(pk)
{
	npuprof_trace_close(self->t);
	unlink(self->path);
}

static double pk_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The devices and the peak's buffers as CSV, in bounded time */
TEST_F(pk, linear)
{
	char *buf = NULL, line[64];
	size_t len = 0;
	double t0, dt;
	FILE *f = open_memstream(&buf, &len);

	ASSERT_NE(NULL, f);
	t0 = pk_now();
	ASSERT_EQ(0, npuprof_memory(self->t, f, NPUPROF_MEMORY_OPTS(
		.format = NPUPROF_FORMAT_CSV,
		.tables = NPUPROF_MEM_BIT(NPUPROF_MEM_DEVICES) |
			  NPUPROF_MEM_BIT(NPUPROF_MEM_BUFFERS))));
	dt = pk_now() - t0;
	fclose(f);
	TH_LOG("%u records in %.3f s", 3 * PK_N + 1, dt);
	EXPECT_GT(2.0 * PK_N / 10000, dt);
	/* the peak: 4096 + PK_N * 8192 + 4096 bytes, at 2001 + 3 (PK_N - 1) */
	snprintf(line, sizeof(line), ",%llu,%llu,",
		 4096ull + PK_N * 8192ull + 4096, 2001ull + 3 * (PK_N - 1));
	EXPECT_NE(NULL, strstr(buf, line)) TH_LOG("%.300s", buf);
	/* its largest buffer: the first round's 8 KiB, buffer 3 */
	EXPECT_NE(NULL, strstr(buf, "\n0,2,1,3,0x7000,8192,other,1,2,2001"))
		TH_LOG("%s", strstr(buf, "rank") ? strstr(buf, "rank") : buf);
	free(buf);
}

TEST_HARNESS_MAIN
