// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_analyze.c - npuprof_analyze() on the hand-computed trace of
 * analysis_gen.h: self times (operators' Total, spans less their
 * children), MACs, GMAC/s, the share of the device's peak, bytes, GB/s,
 * cumulative time; the type and time filters, aggregation by type (sum,
 * mean, max, min), ordering by a column either way, top N (with its
 * bounded buffer), bad options; CSV, JSON and the table.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "analysis_gen.h"
#include "analyze.h"
#include "npuprof_analysis.h"

/* CSV columns */
enum { C_NAME, C_WHERE, C_COUNT, C_SELF, C_SELF_PCT, C_CUM, C_CUM_PCT,
       C_MACS, C_GMACS, C_PEAK, C_BYTES, C_GBPS, C_MINOR, C_JOB, C_OPIDX,
       C_PE, C_START };

FIXTURE(an) {
	char *path;
	struct npuprof_trace *t;
	struct npuprof_analyze_opts o;
	char b[64];
};

FIXTURE_SETUP(an)
{
	char err[256];

	self->path = ag_trace("an", 2000, 500);
	ASSERT_EQ(0, npuprof_trace_open(self->path, &self->t, err, sizeof(err)));
	npuprof_analyze_opts_init(&self->o);
}

FIXTURE_TEARDOWN(an)
{
	npuprof_trace_close(self->t);
	unlink(self->path);
	free(self->path);
}

/* npuprof_analyze() of @o (NULL: the defaults) in format @fmt */
static int an_run(struct npuprof_trace *t, const struct npuprof_analyze_opts *o,
		  unsigned int fmt, FILE *out)
{
	struct npuprof_analyze_opts c;

	if (o)
		c = *o;
	else
		npuprof_analyze_opts_init(&c);
	c.format = fmt;
	return npuprof_analyze(t, out, &c);
}

static char *csv(struct npuprof_trace *t, const struct npuprof_analyze_opts *o,
		 int *ret)
{
	return AG_CAPTURE(*ret, an_run(t, o, NPUPROF_FORMAT_CSV, out));
}

#define F(out, line, col) ag_csv(out, line, col, self->b, sizeof(self->b))

TEST_F(an, defaults)
{
	struct npuprof_analyze_opts d;

	npuprof_analyze_opts_init(&d);
	ASSERT_EQ(sizeof(d), d.sz);
	ASSERT_EQ(20u, d.top);
	ASSERT_EQ(NPUPROF_AGG_NONE, d.aggregate);
	ASSERT_EQ(-1, d.max_ns);
}

TEST_F(an, aggregate_sum_by_type)
{
	static const char *const names[] = { "inference", "wait", "CONV2D",
		"submit", "Quantize", "Dequantize", "DWCONV2D", "Lower", "PAD",
		"Unlower" };
	static const char *const self_ns[] = { "12800", "11200", "3000",
		"1300", "800", "600", "500", "200", "100", "100" };
	char *out;
	int ret, i;

	self->o.top = 0;
	self->o.aggregate = NPUPROF_AGG_SUM;
	out = csv(self->t, &self->o, &ret);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(11, ag_lines(out));
	for (i = 0; i < 10; i++) {
		ASSERT_STREQ(names[i], F(out, i + 1, C_NAME));
		ASSERT_STREQ(self_ns[i], F(out, i + 1, C_SELF));
	}
	/* CONV2D: 2 records, 3000 ns, 384000 MACs = 128 GMAC/s = 50% of
	 * 256 GMAC/s, 6000 B = 2 GB/s; cumulative 12800 + 11200 + 3000 of
	 * the total 30600 */
	ASSERT_STREQ("npu", F(out, 3, C_WHERE));
	ASSERT_STREQ("2", F(out, 3, C_COUNT));
	ASSERT_STREQ("384000", F(out, 3, C_MACS));
	ASSERT_STREQ("128.000000", F(out, 3, C_GMACS));
	ASSERT_STREQ("50.000000", F(out, 3, C_PEAK));
	ASSERT_STREQ("6000", F(out, 3, C_BYTES));
	ASSERT_STREQ("2.000000", F(out, 3, C_GBPS));
	ASSERT_STREQ("27000", F(out, 3, C_CUM));
	ASSERT_STREQ("88.235294", F(out, 3, C_CUM_PCT));
	ASSERT_STREQ("9.803922", F(out, 3, C_SELF_PCT));
	ASSERT_STREQ("", F(out, 3, C_START));	/* a sum has no record */
	/* host rows have no MACs; the last row's cumulative is 100% */
	ASSERT_STREQ("host", F(out, 1, C_WHERE));
	ASSERT_STREQ("", F(out, 1, C_MACS));
	ASSERT_STREQ("", F(out, 1, C_GMACS));
	ASSERT_STREQ("30600", F(out, 10, C_CUM));
	ASSERT_STREQ("100.000000", F(out, 10, C_CUM_PCT));
	/* DWCONV2D 128 GMAC/s (50%), 20 GB/s; PAD 0 MACs, 10 GB/s */
	ASSERT_STREQ("50.000000", F(out, 7, C_PEAK));
	ASSERT_STREQ("20.000000", F(out, 7, C_GBPS));
	ASSERT_STREQ("0.000000", F(out, 9, C_GMACS));
	ASSERT_STREQ("10.000000", F(out, 9, C_GBPS));
	free(out);
}

TEST_F(an, top_npu_records)
{
	static const char *const types[] = { "NPU", NULL };
	char *out;
	int ret;

	self->o.top = 3;
	self->o.types = types;
	out = csv(self->t, &self->o, &ret);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(4, ag_lines(out));
	ASSERT_STREQ("CONV2D", F(out, 1, C_NAME));
	ASSERT_STREQ("2000", F(out, 1, C_SELF));
	ASSERT_STREQ("55.555556", F(out, 1, C_SELF_PCT));	/* of 3600 */
	ASSERT_STREQ("64.000000", F(out, 1, C_GMACS));
	ASSERT_STREQ("25.000000", F(out, 1, C_PEAK));
	ASSERT_STREQ("1.000000", F(out, 1, C_GBPS));
	ASSERT_STREQ("3", F(out, 1, C_MINOR));
	ASSERT_STREQ("1", F(out, 1, C_JOB));
	ASSERT_STREQ("1", F(out, 1, C_OPIDX));
	ASSERT_STREQ("0", F(out, 1, C_PE));
	ASSERT_EQ((long long)ag_t(0) + 2500, atoll(F(out, 1, C_START)));
	ASSERT_STREQ("CONV2D", F(out, 2, C_NAME));
	ASSERT_STREQ("1000", F(out, 2, C_SELF));
	ASSERT_STREQ("100.000000", F(out, 2, C_PEAK));
	ASSERT_STREQ("3000", F(out, 2, C_CUM));
	ASSERT_STREQ("83.333333", F(out, 2, C_CUM_PCT));
	ASSERT_STREQ("DWCONV2D", F(out, 3, C_NAME));
	ASSERT_STREQ("97.222222", F(out, 3, C_CUM_PCT));
	free(out);
}

/* top 1 over every record: the bounded buffer keeps the longest */
TEST_F(an, top_one)
{
	char *out;
	int ret;

	self->o.top = 1;
	out = csv(self->t, &self->o, &ret);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(2, ag_lines(out));
	ASSERT_STREQ("wait", F(out, 1, C_NAME));
	ASSERT_STREQ("5200", F(out, 1, C_SELF));
	ASSERT_STREQ("1", F(out, 1, C_JOB));
	free(out);
}

TEST_F(an, aggregate_mean_max_min)
{
	static const char *const types[] = { "quantize", NULL };
	char *out;
	int ret;

	self->o.types = types;
	self->o.aggregate = NPUPROF_AGG_MEAN;	/* (200 + 100 + 500) / 3 */
	out = csv(self->t, &self->o, &ret);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(2, ag_lines(out));
	ASSERT_STREQ("Quantize", F(out, 1, C_NAME));
	ASSERT_STREQ("3", F(out, 1, C_COUNT));
	ASSERT_STREQ("267", F(out, 1, C_SELF));
	free(out);
	self->o.aggregate = NPUPROF_AGG_MAX;	/* C's */
	out = csv(self->t, &self->o, &ret);
	ASSERT_STREQ("500", F(out, 1, C_SELF));
	ASSERT_STREQ("3", F(out, 1, C_COUNT));
	ASSERT_EQ((long long)ag_t(2) + 100, atoll(F(out, 1, C_START)));
	free(out);
	self->o.aggregate = NPUPROF_AGG_MIN;	/* B's */
	out = csv(self->t, &self->o, &ret);
	ASSERT_STREQ("100", F(out, 1, C_SELF));
	ASSERT_EQ((long long)ag_t(1) + 100, atoll(F(out, 1, C_START)));
	free(out);
}

/* 1 us <= self <= 3 us among host spans */
TEST_F(an, time_filter)
{
	static const char *const types[] = { "host", NULL };
	static const char *const want[][2] = { { "inference", "2500" },
		{ "wait", "2000" }, { "inference", "1900" }, { "submit", "1000" } };
	char *out;
	int ret, i;

	self->o.types = types;
	self->o.top = 0;
	self->o.min_ns = 1000;
	self->o.max_ns = 3000;
	out = csv(self->t, &self->o, &ret);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(5, ag_lines(out));
	for (i = 0; i < 4; i++) {
		ASSERT_STREQ(want[i][0], F(out, i + 1, C_NAME));
		ASSERT_STREQ(want[i][1], F(out, i + 1, C_SELF));
	}
	ASSERT_STREQ("100.000000", F(out, 4, C_CUM_PCT));
	free(out);
}

TEST_F(an, order_by)
{
	static const char *const npu[] = { "npu", NULL };
	static const char *const gm[] = { "0.000000", "64.000000", "128.000000",
		"256.000000" };
	char *out;
	int ret, i;

	self->o.types = npu;
	self->o.order_by = "+gmacs";
	out = csv(self->t, &self->o, &ret);
	ASSERT_EQ(0, ret);
	for (i = 0; i < 4; i++)
		ASSERT_STREQ(gm[i], F(out, i + 1, C_GMACS));
	free(out);
	self->o.order_by = "bandwidth";	/* profile_analyze's name */
	out = csv(self->t, &self->o, &ret);
	ASSERT_STREQ("DWCONV2D", F(out, 1, C_NAME));
	ASSERT_STREQ("PAD", F(out, 2, C_NAME));
	free(out);
	self->o.types = NULL;
	self->o.aggregate = NPUPROF_AGG_SUM;
	self->o.order_by = "+name";
	out = csv(self->t, &self->o, &ret);
	ASSERT_STREQ("CONV2D", F(out, 1, C_NAME));
	ASSERT_STREQ("DWCONV2D", F(out, 2, C_NAME));
	ASSERT_STREQ("Dequantize", F(out, 3, C_NAME));
	free(out);
	self->o.order_by = "count";
	out = csv(self->t, &self->o, &ret);
	ASSERT_STREQ("inference", F(out, 1, C_NAME));
	ASSERT_STREQ("4", F(out, 1, C_COUNT));
	free(out);
}

TEST_F(an, bad_options)
{
	self->o.order_by = "speed";
	ASSERT_EQ(-EINVAL, an_run(self->t, &self->o, NPUPROF_FORMAT_CSV, stdout));
	self->o.order_by = NULL;
	self->o.aggregate = 9;
	ASSERT_EQ(-EINVAL, an_run(self->t, &self->o, NPUPROF_FORMAT_CSV, stdout));
	self->o.aggregate = 0;
	self->o.sz = 8;
	ASSERT_EQ(-EINVAL, an_run(self->t, &self->o, NPUPROF_FORMAT_CSV, stdout));
	ASSERT_EQ(-EINVAL, an_run(self->t, NULL, NPUPROF_FORMAT_SQLITE, stdout));
}

TEST_F(an, json_and_table)
{
	char *out;
	int ret;

	self->o.aggregate = NPUPROF_AGG_SUM;
	self->o.top = 3;
	out = AG_CAPTURE(ret, an_run(self->t, &self->o, NPUPROF_FORMAT_JSON, out));
	ASSERT_EQ(0, ret);
	ASSERT_EQ('[', out[0]);
	ASSERT_NE(NULL, strstr(out, "{\"name\": \"CONV2D\", \"where\": \"npu\", \"count\": 2, \"self_ns\": 3000,"));
	ASSERT_NE(NULL, strstr(out, "\"macs\": null"));
	free(out);
	out = AG_CAPTURE(ret, an_run(self->t, &self->o, NPUPROF_FORMAT_TABLE, out));
	ASSERT_EQ(0, ret);
	ASSERT_EQ(4, ag_lines(out));
	ASSERT_NE(NULL, strstr(out, "self_ns"));
	ASSERT_NE(NULL, strstr(out, "12800"));
	ASSERT_EQ(NULL, strstr(out, "start_ns"));	/* a data column */
	free(out);
}

/*
 * Self times whatever the order of parent and children in the file
 * (ag_trace_order()): E 10000 - (400 + 200 + 5200 + 400) = 3800 with all
 * its children after it; F 8000 - (200 + 1000 + 5000) = 1800 with its
 * Quantize before it and the rest after; H 1000. E's Unlower comes 3 s
 * after E's window closed: not subtracted, a row of its own (100). Total
 * 3800 + 1800 + 1000 + Quantize 600 + submit 1200 + wait 10200 +
 * Dequantize 400 + Unlower 100 = 19100.
 */
TEST(children_after_their_parent)
{
	char *path = ag_trace_order("an-order"), err[256];
	struct npuprof_analyze_opts o;
	struct npuprof_trace *t;
	struct npf_an_row *rows = NULL;
	size_t n = 0, i;
	int64_t total = 0, inf = -1, wait = -1;

	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err)));
	npuprof_analyze_opts_init(&o);
	o.top = 0;
	o.aggregate = NPUPROF_AGG_SUM;
	ASSERT_EQ(0, npf_analyze_rows(t, &o, &rows, &n, &total));
	for (i = 0; i < n; i++) {
		if (!strcmp(rows[i].name, "inference")) {
			inf = rows[i].self;
			ASSERT_EQ(3u, rows[i].count);
		} else if (!strcmp(rows[i].name, "wait")) {
			wait = rows[i].self;
		}
	}
	ASSERT_EQ(6600, inf);
	ASSERT_EQ(10200, wait);
	ASSERT_EQ(19100, total);
	free(rows);
	npuprof_trace_close(t);
	unlink(path);
	free(path);
}

TEST_HARNESS_MAIN
