// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_diff.c - npuprof_diff() between two hand-computed traces of
 * analysis_gen.h: B's second CONV2D takes 4000 ns instead of 2000 and C's
 * Quantize 1100 instead of 500 (in the same wall time). Means: CONV2D
 * 1500 -> 2500 (+1000, +66.67%), Quantize 267 -> 467 (+200, +74.91%),
 * CPU operators per inference 412.5 -> 562.5 (+150), other host work
 * 3537.5 -> 3387.5 (-150), inference self time 3200 -> 3050 (-150),
 * latency 6750 -> 6750 (means rounded to the ns). Largest absolute change first; the largest relative increase for
 * --fail-above, with and without a minimum delta.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "analysis_gen.h"
#include "npuprof_analysis.h"
#include "writer.h"

enum { C_KIND, C_NAME, C_A, C_B, C_DELTA, C_PCT, C_NA, C_NB };

FIXTURE(df) {
	char *pa, *pb;
	struct npuprof_trace *a, *b;
	char buf[64];
};

FIXTURE_SETUP(df)
{
	char err[256];

	self->pa = ag_trace("dfa", 2000, 500);
	self->pb = ag_trace("dfb", 4000, 1100);
	ASSERT_EQ(0, npuprof_trace_open(self->pa, &self->a, err, sizeof(err)));
	ASSERT_EQ(0, npuprof_trace_open(self->pb, &self->b, err, sizeof(err)));
}

FIXTURE_TEARDOWN(df)
{
	npuprof_trace_close(self->a);
	npuprof_trace_close(self->b);
	unlink(self->pa);
	unlink(self->pb);
	free(self->pa);
	free(self->pb);
}

#define F(out, line, col) ag_csv(out, line, col, self->buf, sizeof(self->buf))

TEST_F(df, rows)
{
	static const char *const want[][6] = {
		{ "npu", "CONV2D", "1500", "2500", "1000", "66.666667" },
		{ "host", "Quantize", "267", "467", "200", "74.906367" },
		{ "host", "inference", "3200", "3050", "-150", "-4.687500" },
		/* 1650 / 4 = 412.5 and 2250 / 4 = 562.5, rounded to ns */
		{ "phase", "CPU operators", "413", "563", "150", "36.319613" },
		{ "phase", "Other host work", "3538", "3388", "-150", "-4.239683" },
	};
	double worst = -1;
	char *out;
	int ret, i, j, lines;

	out = AG_CAPTURE(ret, npuprof_diff(self->a, self->b, out,
		NPUPROF_REPORT_OPTS(.format = NPUPROF_FORMAT_CSV,
			.min_delta_ns = 0), &worst));
	ASSERT_EQ(0, ret);
	/* a header, 1 latency + 8 phases + 3 opcodes + 7 span kinds */
	lines = ag_lines(out);
	ASSERT_EQ(20, lines);
	for (i = 0; i < 5; i++)
		for (j = 0; j < 6; j++)
			ASSERT_STREQ(want[i][j], F(out, i + 1, j));
	ASSERT_STREQ("2", F(out, 1, C_NA));
	ASSERT_STREQ("2", F(out, 1, C_NB));
	/* everything else unchanged, the latency too */
	for (i = 6; i < lines; i++)
		ASSERT_STREQ("0", F(out, i, C_DELTA));
	ASSERT_NE(NULL, strstr(out, "latency,mean,6750,6750,0,0.000000,4,4"));
	ASSERT_NE(NULL, strstr(out, "phase,Unexplained wait,1000,1000,0,0.000000,4,4"));
	ASSERT_TRUE(worst > 74.9063 && worst < 74.9064);
	free(out);
}

TEST_F(df, min_delta_and_same_trace)
{
	double worst = -1;
	char *out;
	int ret;

	/* only CONV2D's +1000 counts */
	out = AG_CAPTURE(ret, npuprof_diff(self->a, self->b, out,
		NPUPROF_REPORT_OPTS(.format = NPUPROF_FORMAT_JSON,
			.min_delta_ns = 500), &worst));
	ASSERT_EQ(0, ret);
	ASSERT_TRUE(worst > 66.6666 && worst < 66.6667);
	ASSERT_NE(NULL, strstr(out, "{\"kind\": \"npu\", \"name\": \"CONV2D\", \"a_ns\": 1500, \"b_ns\": 2500, \"delta_ns\": 1000, \"delta_pct\": 66.666667, \"a_count\": 2, \"b_count\": 2}"));
	free(out);
	/* B to A: the inference's self time grows, 3050 -> 3200 (+4.92%) */
	out = AG_CAPTURE(ret, npuprof_diff(self->b, self->a, out,
		NPUPROF_REPORT_OPTS(.format = NPUPROF_FORMAT_TABLE,
			.min_delta_ns = 0), &worst));
	ASSERT_EQ(0, ret);
	ASSERT_TRUE(worst > 4.9180 && worst < 4.9181);
	ASSERT_NE(NULL, strstr(out, "-1000"));
	free(out);
	ASSERT_EQ(-EINVAL, npuprof_diff(self->a, NULL, stdout,
		NPUPROF_REPORT_OPTS(.format = NPUPROF_FORMAT_CSV,
			.min_delta_ns = 0), NULL));
}

/* A type in one trace only has no delta */
TEST(one_sided)
{
	struct npuprof_trace *a, *b;
	struct npf_writer *w;
	char path[] = "/tmp/npuprof-df-empty-XXXXXX", err[256], buf[64];
	char *pa = ag_trace("df1", 2000, 500), *out;
	double worst = -1;
	int fd = mkstemp(path), ret;

	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, npf_writer_open(path, 4096, &w));
	ASSERT_EQ(0, npf_writer_close(w));
	ASSERT_EQ(0, npuprof_trace_open(path, &a, err, sizeof(err)));
	ASSERT_EQ(0, npuprof_trace_open(pa, &b, err, sizeof(err)));
	out = AG_CAPTURE(ret, npuprof_diff(a, b, out,
		NPUPROF_REPORT_OPTS(.format = NPUPROF_FORMAT_CSV,
			.min_delta_ns = 0), &worst));
	ASSERT_EQ(0, ret);
	ASSERT_NE(NULL, strstr(out, "npu,CONV2D,,1500,,,0,2"));
	ASSERT_STREQ("latency", ag_csv(out, 1, 0, buf, sizeof(buf)));
	ASSERT_TRUE(worst == 0);
	free(out);
	npuprof_trace_close(a);
	npuprof_trace_close(b);
	unlink(path);
	unlink(pa);
	free(pa);
}

TEST_HARNESS_MAIN
