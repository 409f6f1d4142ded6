// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_analyze.c - npuprof_analyze() on the hand-computed trace of
 * analysis_gen.h: self times (operators' Total, spans less their
 * children), MACs, GMAC/s, the share of the device's peak, bytes, GB/s,
 * cumulative time; the type and time filters, aggregation by type (sum,
 * mean, max, min), ordering by a column either way, top N (with its
 * bounded buffer), bad options; CSV, JSON and the table; an operator
 * longer than 2^63 ticks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "analysis_gen.h"
#include "memory_gen.h"
#include "analyze.h"
#include "npuprof_analysis.h"

/* CSV columns */
enum { C_NAME, C_WHERE, C_COUNT, C_SELF, C_SELF_PCT, C_CUM, C_CUM_PCT,
       C_MACS, C_GMACS, C_PEAK, C_IOWAIT, C_IOWAIT_PCT, C_OVERLAP,
       C_CONTENDED, C_EXCESS, C_BYTES, C_GBPS, C_MINOR, C_JOB, C_OPIDX, C_PE, C_START,
       C_LAYER, C_OP_TYPE, C_IN_SHAPES, C_OUT_SHAPES };

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
	/* host rows have no MACs nor IoWait; the last row's cumulative is
	 * 100% */
	ASSERT_STREQ("host", F(out, 1, C_WHERE));
	ASSERT_STREQ("", F(out, 1, C_MACS));
	ASSERT_STREQ("", F(out, 1, C_IOWAIT));
	ASSERT_STREQ("", F(out, 1, C_IOWAIT_PCT));
	ASSERT_STREQ("", F(out, 1, C_CONTENDED));
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
	/* IoWait 200 of 1000; one PE: no overlap, nothing contended */
	ASSERT_STREQ("200", F(out, 2, C_IOWAIT));
	ASSERT_STREQ("20.000000", F(out, 2, C_IOWAIT_PCT));
	ASSERT_STREQ("0", F(out, 2, C_OVERLAP));
	ASSERT_STREQ("0", F(out, 2, C_CONTENDED));
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
	ASSERT_EQ(5, ag_lines(out));	/* header, 3 rows, the IoWait */
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

FIXTURE(ct) {
	char *path;
	struct npuprof_trace *t;
	struct npuprof_analyze_opts o;
	char b[64];
};

FIXTURE_SETUP(ct)
{
	char err[256];

	self->path = ag_trace_contend("ct");
	ASSERT_EQ(0, npuprof_trace_open(self->path, &self->t, err, sizeof(err)));
	npuprof_analyze_opts_init(&self->o);
	self->o.top = 0;
}

FIXTURE_TEARDOWN(ct)
{
	npuprof_trace_close(self->t);
	unlink(self->path);
	free(self->path);
}

/*
 * Each operator's IoWait, its overlap with the other PEs' executions and
 * the IoWait that must lie in it (analysis_gen.h, ag_trace_contend()),
 * ordered by the contended IoWait; ties by the IoWait, then the self time
 * (PAD's 4000 before CONV2D's 2000), then name and start
 */
TEST_F(ct, records)
{
	static const struct {
		const char *name, *self, *io, *pct, *ov, *cont, *ex, *job, *pe;
	} want[] = {
		{ "CONV2D", "5000", "2500", "50.000000", "5000", "2500", "2000",
		  "12", "1" },
		{ "CONV2D", "4000", "2000", "50.000000", "3000", "1000", "0",
		  "11", "0" },
		{ "CONV2D", "2000", "1500", "75.000000", "1300", "800", "1000",
		  "13", "0" },
		{ "DWCONV2D", "4000", "500", "12.500000", "4000", "500", "0",
		  "11", "0" },
		{ "PAD", "4000", "500", "12.500000", "2000", "0", "0", "12", "1" },
		{ "CONV2D", "2000", "500", "25.000000", "0", "0", "0", "11", "0" },
	};
	char *out;
	int ret;
	size_t i;

	self->o.order_by = "contended";
	out = csv(self->t, &self->o, &ret);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(7, ag_lines(out));
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		ASSERT_STREQ(want[i].name, F(out, i + 1, C_NAME));
		ASSERT_STREQ(want[i].self, F(out, i + 1, C_SELF));
		ASSERT_STREQ(want[i].io, F(out, i + 1, C_IOWAIT));
		ASSERT_STREQ(want[i].pct, F(out, i + 1, C_IOWAIT_PCT));
		ASSERT_STREQ(want[i].ov, F(out, i + 1, C_OVERLAP));
		ASSERT_STREQ(want[i].cont, F(out, i + 1, C_CONTENDED));
		ASSERT_STREQ(want[i].ex, F(out, i + 1, C_EXCESS));
		ASSERT_STREQ(want[i].job, F(out, i + 1, C_JOB));
		ASSERT_STREQ(want[i].pe, F(out, i + 1, C_PE));
	}
	free(out);
	/* ascending by IoWait: the 500s first, by name then start */
	self->o.order_by = "+iowait";
	out = csv(self->t, &self->o, &ret);
	ASSERT_STREQ("500", F(out, 1, C_IOWAIT));
	ASSERT_STREQ("0", F(out, 1, C_OVERLAP));	/* job 11 op 0 */
	ASSERT_STREQ("2500", F(out, 6, C_IOWAIT));
	free(out);
	/* by the excess: job 12's op 0, then job 13's (job 11's: 500) */
	self->o.order_by = "excess";
	out = csv(self->t, &self->o, &ret);
	ASSERT_STREQ("2000", F(out, 1, C_EXCESS));
	ASSERT_STREQ("12", F(out, 1, C_JOB));
	ASSERT_STREQ("1000", F(out, 2, C_EXCESS));
	ASSERT_STREQ("13", F(out, 2, C_JOB));
	/* no excess: by the contended IoWait (1000, 500), then the IoWait and
	 * self time (PAD 500/4000 before CONV2D 500/2000), not by name */
	ASSERT_STREQ("0", F(out, 3, C_EXCESS));
	ASSERT_STREQ("1000", F(out, 3, C_CONTENDED));
	ASSERT_STREQ("DWCONV2D", F(out, 4, C_NAME));
	ASSERT_STREQ("PAD", F(out, 5, C_NAME));
	ASSERT_STREQ("CONV2D", F(out, 6, C_NAME));
	free(out);
}

TEST_F(ct, by_type)
{
	char *out;
	int ret;

	self->o.aggregate = NPUPROF_AGG_SUM;
	out = csv(self->t, &self->o, &ret);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(4, ag_lines(out));
	ASSERT_STREQ("CONV2D", F(out, 1, C_NAME));
	ASSERT_STREQ("4", F(out, 1, C_COUNT));
	ASSERT_STREQ("13000", F(out, 1, C_SELF));
	ASSERT_STREQ("6500", F(out, 1, C_IOWAIT));
	ASSERT_STREQ("50.000000", F(out, 1, C_IOWAIT_PCT));
	ASSERT_STREQ("9300", F(out, 1, C_OVERLAP));
	ASSERT_STREQ("4300", F(out, 1, C_CONTENDED));
	ASSERT_STREQ("3000", F(out, 1, C_EXCESS));
	/* DWCONV2D and PAD: 4000 each, by name */
	ASSERT_STREQ("DWCONV2D", F(out, 2, C_NAME));
	ASSERT_STREQ("500", F(out, 2, C_CONTENDED));
	ASSERT_STREQ("PAD", F(out, 3, C_NAME));
	ASSERT_STREQ("2000", F(out, 3, C_OVERLAP));
	ASSERT_STREQ("0", F(out, 3, C_CONTENDED));
	free(out);
	/* means: 6500 / 4 = 1625, 9300 / 4 = 2325, 4300 / 4 = 1075 */
	self->o.aggregate = NPUPROF_AGG_MEAN;
	self->o.order_by = "+name";
	out = csv(self->t, &self->o, &ret);
	ASSERT_STREQ("CONV2D", F(out, 1, C_NAME));
	ASSERT_STREQ("3250", F(out, 1, C_SELF));
	ASSERT_STREQ("1625", F(out, 1, C_IOWAIT));
	ASSERT_STREQ("2325", F(out, 1, C_OVERLAP));
	ASSERT_STREQ("1075", F(out, 1, C_CONTENDED));
	ASSERT_STREQ("750", F(out, 1, C_EXCESS));
	free(out);
}

/* The table's last line sums the IoWait of the operators kept */
TEST_F(ct, table_trailer)
{
	static const char *const pad[] = { "PAD", NULL };
	static const char *const none[] = { "FC", NULL };
	char *out;
	int ret;

	self->o.top = 2;	/* the trailer counts every record kept */
	out = AG_CAPTURE(ret, an_run(self->t, &self->o, NPUPROF_FORMAT_TABLE,
				     out));
	ASSERT_EQ(0, ret);
	ASSERT_EQ(4, ag_lines(out));
	ASSERT_NE(NULL, strstr(out, "  iowait_ns  iowait_pct  contended_ns "
			       "  excess_ns"));
	ASSERT_EQ(NULL, strstr(out, "overlap_ns"));	/* a data column */
	ASSERT_NE(NULL, strstr(out, "\nNPU IoWait 7500 ns of 21000 ns (35.71%) "
			       "in 6 operator records; at least 4800 ns while "
			       "another PE ran (contended), which ran during "
			       "15300 ns; 3000 ns above each operator's least "
			       "IoWait (excess)\n"));
	free(out);
	self->o.types = pad;
	out = AG_CAPTURE(ret, an_run(self->t, &self->o, NPUPROF_FORMAT_WIDE,
				     out));
	ASSERT_NE(NULL, strstr(out, "overlap_ns"));
	ASSERT_NE(NULL, strstr(out, "\nNPU IoWait 500 ns of 4000 ns (12.50%) "
			       "in 1 operator records; at least 0 ns"));
	free(out);
	/* no trailer in the machine formats, nor without NPU records */
	out = csv(self->t, &self->o, &ret);
	ASSERT_EQ(NULL, strstr(out, "NPU IoWait"));
	free(out);
	self->o.types = none;	/* no row at all (no array to sort) */
	out = AG_CAPTURE(ret, an_run(self->t, &self->o, NPUPROF_FORMAT_TABLE,
				     out));
	ASSERT_EQ(0, ret);
	ASSERT_EQ(1, ag_lines(out));
	ASSERT_EQ(NULL, strstr(out, "NPU IoWait"));
	free(out);
}

/*
 * A damaged or extreme file: a device clock of 2^34 ticks per ns
 * (clock_hz 2^34 * 10^9, samples 100 ms apart from T0, exact), an
 * operator on PE 0 of 12 * 2^60 ticks (more than 2^63: 805306368 ns)
 * from tick 2^59 with 4 * 2^60 ticks of IoWait, and PE 1 executing
 * from 2^60 to 2^63 + 2^61: 9 * 2^60 ticks of overlap, more than
 * INT64_MAX. Nothing overflows: a row with overlap 3/4 of the operator
 * (603979776 ns), IoWait 1/3 (268435456 ns) and contended 4 - (12 - 9)
 * = 1 of 12 (67108864 ns), not an error.
 */
#define AN_TPN	(1ull << 34)		/* ticks per ns */

static char *an_trace_huge(void)
{
	struct npf_item_device d = { .info_size = sizeof(struct npu_info) };
	struct npu_info info = {
		.version = NPU_INFO_VERSION, .pe_count = 2, .minor = AG_MINOR,
		.clock_hz = AN_TPN * 1000000000, .macs_per_cycle = 1,
	};
	struct npf_writer *w;
	uint64_t s = 1ull << 59, u = 1ull << 60, h;
	char *path;

	if (asprintf(&path, "/tmp/npuprof-analysis-%d-huge", (int)getpid()) < 0 ||
	    npf_writer_open(path, 4096, &w))
		abort();
	snprintf(d.path, sizeof(d.path), "/dev/npu%u", AG_MINOR);
	ag_add(w, NPF_ITEM_DEVICE, &d, sizeof(d), &info, sizeof(info));
	for (h = 0; h < 1000000000; h += 100000000) {
		struct npu_trace_rec_clock c = {
			.hdr = { NPU_TRACE_REC_CLOCK, sizeof(c), 100 + h / 100000000 },
			.samples = 8, .width_ns = 2000,
			.host_before_ns = AG_T0 + h - 1000,
			.host_after_ns = AG_T0 + h + 1000,
			.device_tick = h * AN_TPN, .clock_hz = info.clock_hz,
		};

		ag_rec(w, &c);
	}
	ag_op_on(w, 0, 1, NPU_OP_CONV2D, 0, s, 12 * u, 4 * u, 1000, 1000);
	ag_exec_on(w, 0, 1, AG_T0, AG_T0 + 900000000, s, 8 * u, 4 * u);
	ag_exec_on(w, 1, 2, AG_T0, AG_T0 + 900000000, u, 8 * u + u, 0);
	if (npf_writer_close(w))
		abort();
	return path;
}

TEST(overlap_beyond_int64)
{
	struct npuprof_analyze_opts o;
	struct npuprof_trace *t;
	char err[256], b[64];
	char *path = an_trace_huge(), *out;
	int ret;

	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err)));
	npuprof_analyze_opts_init(&o);
	out = csv(t, &o, &ret);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(2, ag_lines(out));
	ASSERT_STREQ("CONV2D", ag_csv(out, 1, C_NAME, b, sizeof(b)));
	ASSERT_STREQ("805306368", ag_csv(out, 1, C_SELF, b, sizeof(b)));
	ASSERT_STREQ("268435456", ag_csv(out, 1, C_IOWAIT, b, sizeof(b)));
	ASSERT_STREQ("603979776", ag_csv(out, 1, C_OVERLAP, b, sizeof(b)));
	ASSERT_STREQ("67108864", ag_csv(out, 1, C_CONTENDED, b, sizeof(b)));
	free(out);
	npuprof_trace_close(t);
	unlink(path);
	free(path);
}

/*
 * The layers of memory_gen.h's trace (op 0 CONV2D of conv1/Conv, op 1 FC
 * of fc/Gemm, 5 ns each, in two jobs) with @same_name: both layers named
 * conv1/Conv; @same_shape: fc/Gemm with conv1/Conv's op type and inputs
 */
static char *mixed_of(bool same_name, bool same_shape, unsigned int agg,
		      unsigned int by)
{
	static const char *const npu[] = { "npu", NULL };
	char *path = NULL, err[256], *out;
	struct npuprof_analyze_opts o;
	struct npuprof_trace *t;
	struct lay_table tab;
	int ret;

	if (asprintf(&path, "/tmp/npuprof-analysis-%d-mixed", (int)getpid()) < 0)
		abort();
	lay_gen_table(&tab);
	if (same_name)
		tab.d[1].name = tab.d[0].name;
	if (same_shape) {
		tab.d[1].op_type = tab.d[0].op_type;
		tab.d[1].n_in = tab.d[0].n_in;
		memcpy(tab.d[1].in, tab.d[0].in, sizeof(tab.d[1].in));
	}
	mem_gen_jobs_write_tail(path, &tab, LAY_SIZE);
	if (npuprof_trace_open(path, &t, err, sizeof(err)))
		abort();
	npuprof_analyze_opts_init(&o);
	o.types = npu;
	o.aggregate = agg;
	o.aggregate_by = by;
	out = AG_CAPTURE(ret, an_run(t, &o, NPUPROF_FORMAT_CSV, out));
	if (ret)
		abort();
	npuprof_trace_close(t);
	unlink(path);
	free(path);
	return out;
}

/*
 * An aggregate whose records disagree says so: its name joins their
 * opcodes, a layer column they do not share is "mixed"; what they share
 * stays
 */
TEST(aggregate_of_mixed_records)
{
	char b[64];
	char *out;

#define M(line, col) ag_csv(out, line, col, b, sizeof(b))
	/* one layer name for both layers: CONV2D and FC, all columns differ */
	out = mixed_of(true, false, NPUPROF_AGG_SUM, NPUPROF_AGG_BY_LAYER);
	ASSERT_EQ(2, ag_lines(out));
	ASSERT_STREQ("CONV2D+FC", M(1, C_NAME));
	ASSERT_STREQ("4", M(1, C_COUNT));
	ASSERT_STREQ("20", M(1, C_SELF));
	ASSERT_STREQ(LAY_NAME0, M(1, C_LAYER));
	ASSERT_STREQ("mixed", M(1, C_OP_TYPE));
	ASSERT_STREQ("mixed", M(1, C_IN_SHAPES));
	ASSERT_STREQ("mixed", M(1, C_OUT_SHAPES));
	free(out);
	/* the same op type and inputs: by shape, only the outputs differ */
	out = mixed_of(false, true, NPUPROF_AGG_MEAN, NPUPROF_AGG_BY_SHAPE);
	ASSERT_EQ(2, ag_lines(out));
	ASSERT_STREQ("CONV2D+FC", M(1, C_NAME));
	ASSERT_STREQ("5", M(1, C_SELF));
	ASSERT_STREQ("", M(1, C_LAYER));
	ASSERT_STREQ(LAY_TYPE0, M(1, C_OP_TYPE));
	/* in_shapes, quoted (commas), then out_shapes */
	ASSERT_NE(NULL, strstr(out, ",," LAY_TYPE0 ",\"" LAY_IN0
			       "\",mixed\r\n"));
	free(out);
	/* records that agree keep their columns */
	out = mixed_of(false, false, NPUPROF_AGG_SUM, NPUPROF_AGG_BY_LAYER);
	ASSERT_EQ(3, ag_lines(out));
	ASSERT_EQ(NULL, strstr(out, "mixed"));
	ASSERT_EQ(NULL, strstr(out, "+FC"));
	ASSERT_NE(NULL, strstr(out, "," LAY_TYPE1 ",\"" LAY_IN1 "\",\""
			       LAY_OUT1 "\"\r\n"));
	free(out);
	/* max: the row is the record chosen, with its own columns */
	out = mixed_of(true, false, NPUPROF_AGG_MAX, NPUPROF_AGG_BY_LAYER);
	ASSERT_EQ(2, ag_lines(out));
	ASSERT_EQ(NULL, strstr(out, "mixed"));
	ASSERT_STREQ("4", M(1, C_COUNT));
	ASSERT_STREQ("5", M(1, C_SELF));
	free(out);
#undef M
}

TEST_HARNESS_MAIN
