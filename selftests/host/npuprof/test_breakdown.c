// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_breakdown.c - the latency breakdown (npf_breakdown_run() and
 * npuprof_print_breakdown()) on the hand-computed trace of
 * analysis_gen.h: each part of each inference, their exact sum (the wall
 * time) with overlapping CPU operators, a device start before the end of
 * the submit span, an inference without an execution and one whose
 * EXEC record was lost; the totals, the NPU's idle time while the host
 * was busy, a late span left out; every output format.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "analysis_gen.h"

/* Expected parts per inference A..D (analysis_gen.h), NPF_BD_* order */
static const int64_t want[4][NPF_BD_NPARTS + 1] = {
	/* cpu, host, queue, run, iowait, delivery, wakeup, unexplained, wall */
	{ 700, 4100, 200, 3000, 1000, 500, 500, 0, 10000 },
	{ 400, 5600, 0, 1125, 375, 200, 300, 0, 8000 },
	{ 500, 2500, 0, 0, 0, 0, 0, 0, 3000 },
	{ 0, 2000, 0, 0, 0, 0, 0, 4000, 6000 },
};

struct seen {
	int n;
	bool got[4];
	int64_t sum_ok;
	struct __test_metadata *md;
};

static int check_row(void *ctx, const struct npf_bd_row *r)
{
	struct seen *s = ctx;
	unsigned int k = (unsigned int)r->span.trace_id[1] - 1, p;
	int64_t sum = 0;

	s->n++;
	if (k >= 4 || s->got[k]) {
		fprintf(stderr, "unexpected row k=%u\n", k);
		return -EINVAL;
	}
	s->got[k] = true;
	for (p = 0; p < NPF_BD_NPARTS; p++) {
		sum += r->part[p];
		if (r->part[p] != want[k][p]) {
			fprintf(stderr, "inference %u: %s %" PRId64 ", want %" PRId64 "\n",
				k, npf_bd_part_name(p), r->part[p], want[k][p]);
			return -EINVAL;
		}
	}
	if (sum != r->wall || r->wall != want[k][NPF_BD_NPARTS])
		return -EINVAL;
	s->sum_ok++;
	return 0;
}

FIXTURE(bd) {
	char *path;
	struct npuprof_trace *t;
};

FIXTURE_SETUP(bd)
{
	char err[256];

	self->path = ag_trace("bd", 2000, 500);
	ASSERT_EQ(0, npuprof_trace_open(self->path, &self->t, err, sizeof(err)));
}

FIXTURE_TEARDOWN(bd)
{
	npuprof_trace_close(self->t);
	unlink(self->path);
	free(self->path);
}

/* The clock fit maps ticks one to one: the numbers above rely on it */
TEST_F(bd, mapping_is_exact)
{
	struct npuprof_clock_map m;

	ASSERT_EQ(0, npuprof_trace_map(self->t, 0, ag_t(1) + 1500 - AG_OFF, &m));
	ASSERT_TRUE(m.valid);
	ASSERT_EQ((int64_t)(ag_t(1) + 1500), m.ns);
}

TEST_F(bd, parts_of_each_inference)
{
	struct npf_bd_totals tot;
	struct seen s = { 0 };
	unsigned int p;

	ASSERT_EQ(0, npf_breakdown_run(self->t, check_row, &s, &tot));
	ASSERT_EQ(4, s.n);
	ASSERT_EQ(4, s.sum_ok);
	ASSERT_EQ(4u, tot.inferences);
	ASSERT_EQ(27000, tot.wall);
	{
		static const int64_t tp[NPF_BD_NPARTS] = {
			1600, 14200, 200, 4125, 1375, 700, 800, 4000 };
		int64_t sum = 0;

		for (p = 0; p < NPF_BD_NPARTS; p++) {
			ASSERT_EQ(tp[p], tot.part[p]);
			sum += tot.part[p];
		}
		ASSERT_EQ(tot.wall, sum);
	}
	ASSERT_EQ(15800, tot.host_busy);
	ASSERT_EQ(6000, tot.npu_busy);
	ASSERT_EQ(15300, tot.npu_idle_host_busy);
	ASSERT_EQ(1u, tot.late);	/* the Lower span after A's inference */
	ASSERT_GE(tot.max_pending, 1u);
	/* a second run over the same reader gives the same */
	memset(&s, 0, sizeof(s));
	ASSERT_EQ(0, npf_breakdown_run(self->t, check_row, &s, &tot));
	ASSERT_EQ(4, s.sum_ok);
}

TEST_F(bd, csv_rows)
{
	char b[64], *out;
	int ret, k, p;

	out = AG_CAPTURE(ret, npuprof_print_breakdown(self->t,
						      NPUPROF_FORMAT_CSV, out));
	ASSERT_EQ(0, ret);
	ASSERT_EQ(5, ag_lines(out));
	ASSERT_STREQ("trace_id", ag_csv(out, 0, 0, b, sizeof(b)));
	ASSERT_STREQ("wall_ns", ag_csv(out, 0, 3, b, sizeof(b)));
	ASSERT_STREQ("unexplained_ns", ag_csv(out, 0, 11, b, sizeof(b)));
	/* rows in completion order: A, B, C, then D at the end (its job's
	 * record never came) */
	for (k = 0; k < 4; k++) {
		ASSERT_EQ(k + 1, (int)strtoll(ag_csv(out, k + 1, 0, b, sizeof(b)) + 16,
					      NULL, 16));
		ASSERT_EQ(want[k][NPF_BD_NPARTS],
			  strtoll(ag_csv(out, k + 1, 3, b, sizeof(b)), NULL, 10));
		for (p = 0; p < NPF_BD_NPARTS; p++)
			ASSERT_EQ(want[k][p], strtoll(ag_csv(out, k + 1, 4 + p, b,
							     sizeof(b)), NULL, 10));
	}
	ASSERT_STREQ("1", ag_csv(out, 1, 12, b, sizeof(b)));	/* executions */
	ASSERT_STREQ("0", ag_csv(out, 3, 12, b, sizeof(b)));
	free(out);
}

TEST_F(bd, table_and_json)
{
	char *out;
	int ret;

	out = AG_CAPTURE(ret, npuprof_print_breakdown(self->t,
						      NPUPROF_FORMAT_TABLE, out));
	ASSERT_EQ(0, ret);
	ASSERT_NE(NULL, strstr(out, "Latency Breakdown: 4 inferences"));
	ASSERT_NE(NULL, strstr(out, "CPU operators                      1600          400.0    5.93%"));
	ASSERT_NE(NULL, strstr(out, "NPU Run                            4125         1031.2   15.28%"));
	ASSERT_NE(NULL, strstr(out, "Wall time                         27000         6750.0  100.00%"));
	ASSERT_NE(NULL, strstr(out, "NPU idle while host busy (ns)   : 15300 (96.84% of host busy)"));
	free(out);
	out = AG_CAPTURE(ret, npuprof_print_breakdown(self->t,
						      NPUPROF_FORMAT_JSON, out));
	ASSERT_EQ(0, ret);
	ASSERT_NE(NULL, strstr(out, "{\"inferences\": 4, \"wall_ns\": 27000, \"cpu_ops_ns\": 1600, \"host_ns\": 14200, \"queue_ns\": 200, \"npu_run_ns\": 4125, \"npu_iowait_ns\": 1375, \"delivery_ns\": 700, \"wakeup_ns\": 800, \"unexplained_ns\": 4000,"));
	ASSERT_NE(NULL, strstr(out, "\"host_busy_ns\": 15800, \"npu_busy_ns\": 6000, \"npu_idle_host_busy_ns\": 15300, \"left_out\": 1}"));
	free(out);
	out = AG_CAPTURE(ret, npuprof_print_breakdown(self->t,
						      NPUPROF_FORMAT_JSONL, out));
	ASSERT_EQ(0, ret);
	ASSERT_EQ(4, ag_lines(out));
	ASSERT_NE(NULL, strstr(out, "\"wall_ns\": 8000, \"cpu_ops_ns\": 400, \"host_ns\": 5600, \"queue_ns\": 0, \"npu_run_ns\": 1125, \"npu_iowait_ns\": 375"));
	free(out);
	ASSERT_EQ(-EINVAL, npuprof_print_breakdown(self->t, NPUPROF_FORMAT_CHROME,
						   stdout));
}

/* No inference: zero everywhere, still valid output */
TEST(empty)
{
	struct npuprof_trace *t;
	struct npf_writer *w;
	struct npf_bd_totals tot;
	char path[] = "/tmp/npuprof-bd-empty-XXXXXX", err[256];
	int fd = mkstemp(path);

	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, npf_writer_open(path, 4096, &w));
	ASSERT_EQ(0, npf_writer_close(w));
	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err)));
	ASSERT_EQ(0, npf_breakdown_run(t, NULL, NULL, &tot));
	ASSERT_EQ(0u, tot.inferences);
	ASSERT_EQ(0, tot.wall);
	ASSERT_EQ(0, tot.host_busy);
	npuprof_trace_close(t);
	unlink(path);
}

TEST_HARNESS_MAIN
