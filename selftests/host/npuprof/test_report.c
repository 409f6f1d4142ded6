// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_report.c - npuprof_report() and npuprof_print_summary() on the
 * hand-computed synthetic trace of report_gen.h: the summary's exact
 * percentiles (the reference's own numbers), signed durations with
 * Total == Run + IoWait where the naive difference is smaller, the join
 * across both file orders, devices and processes, unmatched executions and
 * submits, losses, empty and corrupt traces. Every CSV, JSON and JSON
 * Lines output is parsed back by python3's csv and json modules.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "report_gen.h"
#include "clock.h"
#include "npuprof_analysis.h"
#include "report_util.h"
#include "trace.h"

/* Output of one report call into a malloc'ed string */
static char *report_str(struct npuprof_trace *t, unsigned int table,
			unsigned int format, int *ret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		abort();
	if (table)
		*ret = npuprof_report(t, f,
			NPUPROF_REPORT_OPTS(.table = table, .format = format));
	else
		*ret = npuprof_print_summary(t, f,
			NPUPROF_REPORT_OPTS(.format = format));
	fclose(f);
	return buf;
}

/* Output of @call, which writes to the stream "out", as a string */
#define RP_CAPTURE(call)						\
	({								\
		char *buf_ = NULL;					\
		size_t len_ = 0;					\
		FILE *out = open_memstream(&buf_, &len_);		\
									\
		if (!out)						\
			abort();					\
		EXPECT_EQ(0, (call));					\
		fclose(out);						\
		buf_;							\
	})

static const char py_csv[] =
"import csv, sys\n"
"with open(sys.argv[1], newline='', encoding='utf-8') as f:\n"
"    rows = list(csv.reader(f, strict=True))\n"
"head, rows = rows[0], rows[1:]\n"
"cols = [head.index(c) for c in sys.argv[2].split('|')]\n"
"for r in rows:\n"
"    assert len(r) == len(head), r\n"
"    print('|'.join(r[c] for c in cols))\n";

static const char py_json[] =
"import json, sys\n"
"text = open(sys.argv[1], encoding='utf-8').read()\n"
"if sys.argv[2] == 'json':\n"
"    rows = json.loads(text)\n"
"else:\n"
"    assert text == '' or text.endswith('\\n')\n"
"    rows = [json.loads(l) for l in text.split('\\n')[:-1]]\n"
"cols = sys.argv[3].split('|')\n"
"for r in rows:\n"
"    print('|'.join('null' if r[c] is None else str(r[c]) for c in cols))\n";

/*
 * Write @data to a file, run python3 -c @script FILE @a1 @a2 and return
 * its stdout (NULL when python failed).
 */
static char *py_parse(const char *script, const char *data, const char *a1,
		      const char *a2)
{
	char path[] = "/tmp/npuprof-report-py-XXXXXX";
	char *out = NULL, buf[4096];
	size_t len = 0, n;
	int fd = mkstemp(path), pfd[2], status;
	FILE *o;
	pid_t pid;

	if (fd < 0 || write(fd, data, strlen(data)) != (ssize_t)strlen(data))
		abort();
	close(fd);
	if (pipe(pfd))
		abort();
	pid = fork();
	if (!pid) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		execlp(gen_python(), "python3", "-c", script, path, a1, a2,
		       (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	o = open_memstream(&out, &len);
	while ((n = read(pfd[0], buf, sizeof(buf))) > 0 && n != (size_t)-1)
		fwrite(buf, 1, n, o);
	fclose(o);
	close(pfd[0]);
	waitpid(pid, &status, 0);
	unlink(path);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "# %s failed (status %d) on:\n%s\n", gen_python(),
			status, data);
		free(out);
		return NULL;
	}
	return out;
}

FIXTURE(rep) {
	char *path;
	struct npuprof_trace *t;
	int64_t b4, b6;		/* the bounds of npu5's two executions */
};

/* start.err + end.err of an execution of device 1 from @tick, @len long */
static int64_t bound_of(struct npuprof_trace *t, uint64_t tick, uint64_t len)
{
	struct npuprof_clock_map a, b;

	if (npuprof_trace_map(t, 1, tick, &a) || npuprof_trace_map(t, 1, tick + len, &b))
		abort();
	return (int64_t)(a.err_ns + b.err_ns);
}

FIXTURE_SETUP(rep)
{
	char err[256];

	self->path = gen_trace("rep");
	ASSERT_EQ(0, npuprof_trace_open(self->path, &self->t, err, sizeof(err)));
	self->b4 = bound_of(self->t, GEN_T0 + 20001000 - 1000000000ull, 2000);
	self->b6 = bound_of(self->t, GEN_T0 + 30000000 - 1000000000ull, 100000);
	/* the bounds are those of a fit to +-1 us brackets */
	ASSERT_GT(self->b4, 0);
	ASSERT_LE(self->b4, 10000);
}

FIXTURE_TEARDOWN(rep)
{
	npuprof_trace_close(self->t);
	unlink(self->path);
	free(self->path);
}

TEST_F(rep, summary_table)
{
	const struct npf_clock_fit *fit = npf_trace_fit(self->t, 1);
	char *out, *want;
	int ret;

	ASSERT_NE(NULL, fit);
	out = report_str(self->t, 0, NPUPROF_FORMAT_TABLE, &ret);
	ASSERT_EQ(0, ret);
	/* the reference's numbers: shared/seeds/002, print_summary() */
	ASSERT_LT(0, asprintf(&want,
"================================================\n"
"  Inference Results Summary\n"
"================================================\n"
"Inference counts                : 4\n"
"Min latency (ns)                : 1584494\n"
"Max latency (ns)                : 3027309\n"
"Mean latency (ns)               : 2136984\n"
"Median latency (ns)             : 1968066\n"
"90.0 percentile latency (ns)    : 2752525\n"
"95.0 percentile latency (ns)    : 2889917\n"
"97.0 percentile latency (ns)    : 2944874\n"
"99.0 percentile latency (ns)    : 2999831\n"
"99.9 percentile latency (ns)    : 3024561\n"
"================================================\n"
"  Trace Totals\n"
"================================================\n"
"NPU executions                  : 7\n"
"  joined to a submit span       : 5\n"
"  without a submit span         : 2\n"
"Submit spans without execution  : 1\n"
"NPU operator records            : 7\n"
"Host spans                      : 31\n"
"Records lost (ring full)        : 7\n"
"Records lost (device)           : 0\n"
"Records lost (host)             : 0\n"
"Host spans lost                 : 3\n"
"Clock fit bound (ns)            : %llu\n"
"Causality violations            : 1\n"
"  executions checked            : 2\n"
"  found by the recorder         : 1\n"
"Inconsistent device records     : 2\n"
"Damaged chunks skipped          : 0\n"
"  bytes                         : 0\n"
"Truncated                       : no\n",
		(unsigned long long)fit->err_ns));
	EXPECT_STREQ(want, out);
	free(want);
	free(out);
}

TEST_F(rep, summary_json)
{
	char *out, *got;
	int ret;

	out = report_str(self->t, 0, NPUPROF_FORMAT_JSON, &ret);
	ASSERT_EQ(0, ret);
	/* a JSON document of one object: the same numbers */
	got = py_parse("import json, sys\n"
		       "d = json.load(open(sys.argv[1]))\n"
		       "print(' '.join(str(d[k]) for k in sys.argv[2].split()))\n",
		       out, "inferences min_ns max_ns mean_ns median_ns p90_ns "
		       "p95_ns p97_ns p99_ns p99_9_ns executions "
		       "executions_unmatched submits_unmatched operators spans "
		       "lost_ring spans_lost violations inconsistent truncated",
		       NULL);
	ASSERT_NE(NULL, got);
	EXPECT_STREQ("4 1584494 3027309 2136984 1968066 2752525 2889917 "
		     "2944874 2999831 3024561 7 2 1 7 31 7 3 1 2 False\n", got);
	free(got);
	free(out);
}

TEST_F(rep, executions_table)
{
	char *out, *want;
	int ret;

	out = report_str(self->t, NPUPROF_TABLE_EXECUTIONS,
			 NPUPROF_FORMAT_TABLE, &ret);
	ASSERT_EQ(0, ret);
	/*
	 * Rows in join order: jobs 1 and 2 (ring first) when their SUBMIT
	 * spans come, jobs 3 and 4 when their records come, npu5's job 1,
	 * then the unmatched ones at the end. Job 1: Run 2 + IoWait 2 = 4,
	 * where 6 ticks (3 ns) - Run would give 1.
	 */
	ASSERT_LT(0, asprintf(&want,
"                                trace_id           span_id  pe_index  execution_index  NPU Total    NPU Run  NPU IoWait  Bound (+-ns)\n"
"0       aa000000000000000000000000000001  00000000000003eb         0                1          4          2           2             -\n"
"1       aa000000000000000000000000000002  000000000000044f         1                2     118134     108134       10000             -\n"
"2       aa000000000000000000000000000003  00000000000004b3         0                3          1          1           0             -\n"
"3       aa000000000000000000000000000004  0000000000000517         1                4          4          0           4             -\n"
"4       aa00000000000000000000000000004d  0000000000000007         0                1       2000       1500         500  %12lld\n"
"5                                      -                 -         0               99          4          2           2             -\n"
"6                                      -                 -         1                2     100000     100000           0  %12lld\n",
		(long long)self->b4, (long long)self->b6));
	EXPECT_STREQ(want, out);
	free(want);
	free(out);
}

TEST_F(rep, executions_csv_json)
{
	static const char cols[] = "trace_id|span_id|NPU Total|NPU Run|NPU IoWait|"
		"minor|job_id|pid|inference_span_id|violation";
	static const char want[] =
		"aa000000000000000000000000000001|00000000000003eb|4|2|2|3|1|100|00000000000003e8|0\n"
		"aa000000000000000000000000000002|000000000000044f|118134|108134|10000|3|2|100|000000000000044c|0\n"
		"aa000000000000000000000000000003|00000000000004b3|1|1|0|3|3|100|00000000000004b0|0\n"
		"aa000000000000000000000000000004|0000000000000517|4|0|4|3|4|100|0000000000000514|0\n"
		"aa00000000000000000000000000004d|0000000000000007|2000|1500|500|5|1|200|@|0\n"
		"@|@|4|2|2|3|99|100|@|0\n"
		"@|@|100000|100000|0|5|2|200|@|1\n";
	char *csv_want = strdup(want), *json_want = calloc(1, 2 * sizeof(want));
	char *p;
	char *out, *got;
	int ret;

	/* CSV writes nothing for a null, JSON null */
	for (p = csv_want; *p; p++)
		if (*p == '@')
			memmove(p, p + 1, strlen(p));
	strcpy(json_want, want);
	for (p = json_want; (p = strchr(p, '@'));) {
		memmove(p + 4, p + 1, strlen(p + 1) + 1);
		memcpy(p, "null", 4);
	}
	out = report_str(self->t, NPUPROF_TABLE_EXECUTIONS, NPUPROF_FORMAT_CSV, &ret);
	ASSERT_EQ(0, ret);
	got = py_parse(py_csv, out, cols, NULL);
	ASSERT_NE(NULL, got);
	EXPECT_STREQ(csv_want, got);
	free(got);
	free(out);
	out = report_str(self->t, NPUPROF_TABLE_EXECUTIONS, NPUPROF_FORMAT_JSON, &ret);
	ASSERT_EQ(0, ret);
	got = py_parse(py_json, out, "json", cols);
	ASSERT_NE(NULL, got);
	EXPECT_STREQ(json_want, got);
	free(got);
	free(out);
	out = report_str(self->t, NPUPROF_TABLE_EXECUTIONS, NPUPROF_FORMAT_JSONL, &ret);
	ASSERT_EQ(0, ret);
	got = py_parse(py_json, out, "jsonl", cols);
	ASSERT_NE(NULL, got);
	EXPECT_STREQ(json_want, got);
	free(got);
	free(out);
	free(csv_want);
	free(json_want);
}

TEST_F(rep, inferences)
{
	char *out, *got;
	int ret;

	out = report_str(self->t, NPUPROF_TABLE_INFERENCES, NPUPROF_FORMAT_TABLE, &ret);
	ASSERT_EQ(0, ret);
	EXPECT_STREQ(
"                                trace_id           span_id  thread.id         dur\n"
"0       aa000000000000000000000000000001  00000000000003e8        101     3027309\n"
"1       aa000000000000000000000000000002  000000000000044c        101     2111363\n"
"2       aa000000000000000000000000000003  00000000000004b0        101     1824769\n"
"3       aa000000000000000000000000000004  0000000000000514        101     1584494\n",
		out);
	free(out);
	/* each inference joined to its execution */
	out = report_str(self->t, NPUPROF_TABLE_INFERENCES, NPUPROF_FORMAT_JSONL, &ret);
	ASSERT_EQ(0, ret);
	got = py_parse(py_json, out, "jsonl",
		       "span_id|dur|pid|executions|npu_total_ns|unmatched_submits");
	ASSERT_NE(NULL, got);
	EXPECT_STREQ("00000000000003e8|3027309|100|1|4|0\n"
		     "000000000000044c|2111363|100|1|118134|0\n"
		     "00000000000004b0|1824769|100|1|1|0\n"
		     "0000000000000514|1584494|100|1|4|0\n", got);
	free(got);
	free(out);
}

TEST_F(rep, operators)
{
	char *out, *got;
	int ret;

	out = report_str(self->t, NPUPROF_TABLE_OPERATORS, NPUPROF_FORMAT_TABLE, &ret);
	ASSERT_EQ(0, ret);
	/* sorted by average, descending; ties by name; CLIP all skipped */
	EXPECT_STREQ(
"                          average elapsed(ns)   count\n"
"name\n"
"CONV2D                              10.333333       3\n"
"ADD                                  3.000000       1\n"
"PAD                                  3.000000       2\n"
"CLIP                                        -       0\n", out);
	free(out);
	out = report_str(self->t, NPUPROF_TABLE_OPERATORS, NPUPROF_FORMAT_CSV, &ret);
	ASSERT_EQ(0, ret);
	got = py_parse(py_csv, out, "name|average elapsed(ns)|count|total_ns|"
		       "average_iowait_ns|skipped", NULL);
	ASSERT_NE(NULL, got);
	EXPECT_STREQ("CONV2D|10.333333|3|31|0.000000|0\n"
		     "ADD|3.000000|1|3|1.000000|0\n"
		     "PAD|3.000000|2|6|0.000000|0\n"
		     "CLIP||0|0||1\n", got);
	free(got);
	free(out);
}

TEST_F(rep, op_records)
{
	char *out, *got;
	int ret;

	out = report_str(self->t, NPUPROF_TABLE_OP_RECORDS, NPUPROF_FORMAT_JSON, &ret);
	ASSERT_EQ(0, ret);
	got = py_parse(py_json, out, "json",
		       "name|op_index|dur|run|iowait|inconsistent|minor");
	ASSERT_NE(NULL, got);
	/* 31 ticks: 15.5 rounds to 16; ADD: run 4 ticks (2) + iowait 2 (1) */
	EXPECT_STREQ("CONV2D|0|5|5|0|0|3\n"
		     "CONV2D|1|10|10|0|0|3\n"
		     "PAD|2|2|2|0|0|3\n"
		     "ADD|3|3|2|1|0|3\n"
		     "CONV2D|4|16|16|0|0|3\n"
		     "PAD|5|4|4|0|0|3\n"
		     "CLIP|6|null|null|null|1|3\n", got);
	free(got);
	free(out);
}

TEST_F(rep, external)
{
	char *out, *got, want[2048];
	size_t n = 0;
	int ret, k;

	out = report_str(self->t, NPUPROF_TABLE_EXTERNAL, NPUPROF_FORMAT_TABLE, &ret);
	ASSERT_EQ(0, ret);
	EXPECT_EQ(0, strncmp(out,
"                                trace_id           span_id  thread.id        name  operator_index       dur\n"
"0       aa000000000000000000000000000001  00000000000003e9        101    Quantize               0       100\n"
"1       aa000000000000000000000000000001  00000000000003ea        101       Lower               0       200\n"
"2       aa000000000000000000000000000001  00000000000003ed        101     Unlower               0       300\n"
"3       aa000000000000000000000000000001  00000000000003ee        101  Dequantize               0       400\n",
			     strlen(out) < 500 ? strlen(out) : 500));
	free(out);
	out = report_str(self->t, NPUPROF_TABLE_EXTERNAL, NPUPROF_FORMAT_CSV, &ret);
	ASSERT_EQ(0, ret);
	got = py_parse(py_csv, out, "trace_id|name|thread.id|operator_index|dur", NULL);
	ASSERT_NE(NULL, got);
	for (k = 0; k < 4; k++)
		n += (size_t)snprintf(want + n, sizeof(want) - n,
			"aa00000000000000000000000000000%d|Quantize|101|0|%d\n"
			"aa00000000000000000000000000000%d|Lower|101|0|%d\n"
			"aa00000000000000000000000000000%d|Unlower|101|0|%d\n"
			"aa00000000000000000000000000000%d|Dequantize|101|0|%d\n",
			k + 1, 100 + k, k + 1, 200 + k, k + 1, 300 + k, k + 1,
			400 + k);
	EXPECT_STREQ(want, got);
	free(got);
	free(out);
}

TEST_F(rep, spans_quoting)
{
	char *out, *got;
	int ret;

	/* the label has a comma and quotes: CSV quotes it, JSON escapes it */
	out = report_str(self->t, NPUPROF_TABLE_SPANS, NPUPROF_FORMAT_CSV, &ret);
	ASSERT_EQ(0, ret);
	EXPECT_NE(NULL, strstr(out, "record,\"warm,up \"\"q\"\"\",100,101,"));
	got = py_parse(py_csv, out, "kind|name|job_id|minor|dur", NULL);
	ASSERT_NE(NULL, got);
	{
		static const char head[] = "record|warm,up \"q\"|||50000000\n"
			"Quantize||||100\nLower||||200\nsubmit||1|3|50\n"
			"wait||1|3|1000\n";

		EXPECT_EQ(0, strncmp(got, head, strlen(head)));
	}
	free(got);
	free(out);
	out = report_str(self->t, NPUPROF_TABLE_SPANS, NPUPROF_FORMAT_JSON, &ret);
	ASSERT_EQ(0, ret);
	got = py_parse(py_json, out, "json", "kind|name|error");
	ASSERT_NE(NULL, got);
	EXPECT_EQ(0, strncmp(got, "record|warm,up \"q\"|0\nQuantize|null|0\n", 36));
	/* 31 spans */
	{
		int lines = 0;
		char *p;

		for (p = got; (p = strchr(p, '\n')); p++)
			lines++;
		EXPECT_EQ(31, lines);
	}
	free(got);
	free(out);
}

/*
 * The options struct as libbpf's: NULL and zeroed fields are the defaults
 * (the inferences, aligned text), an older caller's smaller struct keeps
 * the defaults of what it lacks, a newer one's is refused when it sets
 * what this library does not know.
 */
TEST_F(rep, options_struct)
{
	struct {
		struct npuprof_report_opts o;
		uint64_t newer;
	} big;
	struct npuprof_report_opts old;
	char *def, *got;

	def = RP_CAPTURE(npuprof_report(self->t, out, NULL));
	ASSERT_NE(NULL, def);
	ASSERT_NE(NULL, strstr(def, "trace_id"));
	ASSERT_EQ(NULL, strstr(def, "start_ns"));	/* aligned text */
	got = RP_CAPTURE(npuprof_report(self->t, out,
					NPUPROF_REPORT_OPTS(.table = 0)));
	EXPECT_STREQ(def, got);
	free(got);
	/* a caller that knew the format alone: the default table */
	npuprof_report_opts_init(&old);
	old.sz = offsetof(struct npuprof_report_opts, table);
	old.format = NPUPROF_FORMAT_TABLE;
	old.table = NPUPROF_TABLE_SPANS;	/* beyond its sz: not read */
	got = RP_CAPTURE(npuprof_report(self->t, out, &old));
	EXPECT_STREQ(def, got);
	free(got);
	free(def);
	memset(&big, 0, sizeof(big));
	npuprof_report_opts_init(&big.o);
	big.o.sz = sizeof(big);
	free(RP_CAPTURE(npuprof_report(self->t, out, &big.o)));
	big.newer = 1;
	EXPECT_EQ(-E2BIG, npuprof_report(self->t, stdout, &big.o));
	EXPECT_EQ(-E2BIG, npuprof_print_summary(self->t, stdout, &big.o));
	EXPECT_EQ(-E2BIG, npuprof_print_breakdown(self->t, stdout, &big.o));
	old.sz = 4;
	EXPECT_EQ(-EINVAL, npuprof_report(self->t, stdout, &old));
}

/* The tables' names, the ones npuprof export names its files with */
TEST(table_names)
{
	static const char *const want[] = { NULL, "inferences", "executions",
		"operators", "external", "spans", "op_records", NULL };
	unsigned int t;

	for (t = 0; t < sizeof(want) / sizeof(want[0]); t++) {
		if (want[t]) {
			EXPECT_STREQ(want[t], npuprof_table_name(t));
		} else {
			EXPECT_EQ(NULL, npuprof_table_name(t));
		}
	}
	EXPECT_EQ(NULL, npuprof_table_name(~0u));
}

TEST_F(rep, bad_arguments)
{
	FILE *f = fopen("/dev/null", "w");

	ASSERT_NE(NULL, f);
	EXPECT_EQ(-EINVAL, npuprof_report(self->t, f,
		NPUPROF_REPORT_OPTS(.table = 7, .format = NPUPROF_FORMAT_CSV)));
	EXPECT_EQ(-EINVAL, npuprof_report(self->t, f,
		NPUPROF_REPORT_OPTS(.table = NPUPROF_TABLE_SPANS,
			.format = NPUPROF_FORMAT_CHROME)));
	EXPECT_EQ(-EINVAL, npuprof_print_summary(self->t, f,
		NPUPROF_REPORT_OPTS(.format = NPUPROF_FORMAT_CSV)));
	EXPECT_EQ(-EINVAL, npuprof_report(NULL, f,
		NPUPROF_REPORT_OPTS(.table = NPUPROF_TABLE_SPANS,
			.format = NPUPROF_FORMAT_CSV)));
	fclose(f);
	/* a stream that cannot be written: -EIO */
	f = fopen("/dev/full", "w");
	ASSERT_NE(NULL, f);
	EXPECT_EQ(-EIO, npuprof_report(self->t, f,
		NPUPROF_REPORT_OPTS(.table = NPUPROF_TABLE_SPANS,
			.format = NPUPROF_FORMAT_CSV)));
	fclose(f);
}

/*
 * NPUPROF_FORMAT_ROWS: a sink that prints what it is given as CSV must
 * print what the CSV format prints, cell for cell; several tables come
 * in one pass; a sink's error stops the report and is returned.
 */
struct sink_csv {
	FILE *f[NPUPROF_TABLE_OP_RECORDS + 1];
	const struct npuprof_column *cols;
	unsigned int ncols[NPUPROF_TABLE_OP_RECORDS + 1];
	unsigned int type[NPUPROF_TABLE_OP_RECORDS + 1][32];
	unsigned long rows, stop_at;
};

static int sink_cols(void *ctx, unsigned int table,
		     const struct npuprof_column *cols, unsigned int ncols)
{
	struct sink_csv *c = ctx;
	unsigned int i;

	if (table > NPUPROF_TABLE_OP_RECORDS || ncols > 32 || !c->f[table])
		return -ERANGE;
	c->ncols[table] = ncols;
	for (i = 0; i < ncols; i++) {
		fprintf(c->f[table], "%s%s", i ? "," : "", cols[i].name);
		c->type[table][i] = cols[i].type;
	}
	fputs("\r\n", c->f[table]);
	return 0;
}

static int sink_row(void *ctx, unsigned int table,
		    const struct npuprof_value *v)
{
	struct sink_csv *c = ctx;
	FILE *f = c->f[table];
	unsigned int i;

	if (c->stop_at && ++c->rows == c->stop_at)
		return -ECANCELED;
	for (i = 0; i < c->ncols[table]; i++) {
		if (i)
			fputc(',', f);
		if (v[i].null)
			continue;
		switch (c->type[table][i]) {
		case NPUPROF_COL_STR:
			if (strpbrk(v[i].s, ",\"\r\n")) {
				const char *p;

				fputc('"', f);
				for (p = v[i].s; *p; p++) {
					if (*p == '"')
						fputc('"', f);
					fputc(*p, f);
				}
				fputc('"', f);
			} else {
				fputs(v[i].s, f);
			}
			break;
		case NPUPROF_COL_I64:
			fprintf(f, "%" PRId64, v[i].i);
			break;
		case NPUPROF_COL_U64:
			fprintf(f, "%" PRIu64, v[i].u);
			break;
		default:
			fprintf(f, "%.6f", v[i].f);
			break;
		}
	}
	fputs("\r\n", f);
	return 0;
}

TEST_F(rep, row_sink)
{
	static const unsigned int tabs[] = { NPUPROF_TABLE_INFERENCES,
		NPUPROF_TABLE_EXECUTIONS, NPUPROF_TABLE_OPERATORS,
		NPUPROF_TABLE_EXTERNAL, NPUPROF_TABLE_SPANS,
		NPUPROF_TABLE_OP_RECORDS };
	char *buf[NPUPROF_TABLE_OP_RECORDS + 1] = { 0 };
	size_t len[NPUPROF_TABLE_OP_RECORDS + 1] = { 0 };
	struct sink_csv c = { 0 };
	struct npuprof_row_sink sink = { sink_cols, sink_row, &c };
	unsigned int i, t, mask = 0;
	char *want;
	int ret;

	for (i = 0; i < 6; i++) {
		t = tabs[i];
		c.f[t] = open_memstream(&buf[t], &len[t]);
		ASSERT_NE(NULL, c.f[t]);
		mask |= 1u << t;
	}
	/* every table in one pass */
	EXPECT_EQ(0, npuprof_report(self->t, NULL, NPUPROF_REPORT_OPTS(
		.format = NPUPROF_FORMAT_ROWS, .sink = &sink, .tables = mask)));
	for (i = 0; i < 6; i++) {
		t = tabs[i];
		fclose(c.f[t]);
		want = report_str(self->t, t, NPUPROF_FORMAT_CSV, &ret);
		ASSERT_EQ(0, ret);
		EXPECT_STREQ(want, buf[t]) TH_LOG("table %u", t);
		EXPECT_NE(NULL, strchr(strchr(want, '\n') + 1, '\n'))
			TH_LOG("table %u has rows", t);
		free(want);
		free(buf[t]);
	}
	/* the sink's error stops it, after as many rows as it took */
	memset(&c, 0, sizeof(c));
	c.f[NPUPROF_TABLE_SPANS] = fopen("/dev/null", "w");
	ASSERT_NE(NULL, c.f[NPUPROF_TABLE_SPANS]);
	c.stop_at = 3;
	EXPECT_EQ(-ECANCELED, npuprof_report(self->t, NULL, NPUPROF_REPORT_OPTS(
		.format = NPUPROF_FORMAT_ROWS, .sink = &sink,
		.table = NPUPROF_TABLE_SPANS)));
	EXPECT_EQ(3, c.rows);
	/* the columns callback's error too (it has no stream for table 0) */
	c.stop_at = 0;
	EXPECT_EQ(-ERANGE, npuprof_print_breakdown(self->t, NULL,
		NPUPROF_REPORT_OPTS(.format = NPUPROF_FORMAT_ROWS,
				    .sink = &sink)));
	fclose(c.f[NPUPROF_TABLE_SPANS]);
	/* no sink, a table the mask does not know, tables without ROWS */
	EXPECT_EQ(-EINVAL, npuprof_report(self->t, NULL, NPUPROF_REPORT_OPTS(
		.format = NPUPROF_FORMAT_ROWS)));
	EXPECT_EQ(-EINVAL, npuprof_report(self->t, NULL, NPUPROF_REPORT_OPTS(
		.format = NPUPROF_FORMAT_ROWS, .sink = &sink, .tables = 1u << 9)));
	EXPECT_EQ(-EINVAL, npuprof_report(self->t, stdout, NPUPROF_REPORT_OPTS(
		.format = NPUPROF_FORMAT_CSV, .tables = mask)));
	EXPECT_EQ(-EINVAL, npuprof_report(self->t, NULL, NPUPROF_REPORT_OPTS(
		.format = NPUPROF_FORMAT_CSV)));
}

/* The breakdown and analyze rows to a sink: table 0, as their CSV */
TEST_F(rep, row_sink_analysis)
{
	struct sink_csv c = { 0 };
	struct npuprof_row_sink sink = { sink_cols, sink_row, &c };
	struct npuprof_analyze_opts ao;
	char *buf = NULL, *want = NULL;
	size_t len = 0, wlen = 0;
	FILE *w;

	c.f[0] = open_memstream(&buf, &len);
	ASSERT_NE(NULL, c.f[0]);
	EXPECT_EQ(0, npuprof_print_breakdown(self->t, NULL, NPUPROF_REPORT_OPTS(
		.format = NPUPROF_FORMAT_ROWS, .sink = &sink)));
	fclose(c.f[0]);
	w = open_memstream(&want, &wlen);
	ASSERT_NE(NULL, w);
	EXPECT_EQ(0, npuprof_print_breakdown(self->t, w, NPUPROF_REPORT_OPTS(
		.format = NPUPROF_FORMAT_CSV)));
	fclose(w);
	EXPECT_STREQ(want, buf);
	free(buf);
	free(want);

	buf = want = NULL;
	c.f[0] = open_memstream(&buf, &len);
	ASSERT_NE(NULL, c.f[0]);
	npuprof_analyze_opts_init(&ao);
	ao.top = 0;
	ao.format = NPUPROF_FORMAT_ROWS;
	ao.sink = &sink;
	EXPECT_EQ(0, npuprof_analyze(self->t, NULL, &ao));
	fclose(c.f[0]);
	w = open_memstream(&want, &wlen);
	ASSERT_NE(NULL, w);
	ao.format = NPUPROF_FORMAT_CSV;
	ao.sink = NULL;
	EXPECT_EQ(0, npuprof_analyze(self->t, w, &ao));
	fclose(w);
	EXPECT_STREQ(want, buf);
	EXPECT_NE(NULL, strstr(buf, "CONV2D"));
	free(buf);
	free(want);
	/* a caller built before .sink: its smaller struct still works */
	ao.sz = offsetof(struct npuprof_analyze_opts, sink);
	w = fopen("/dev/null", "w");
	ASSERT_NE(NULL, w);
	EXPECT_EQ(0, npuprof_analyze(self->t, w, &ao));
	ao.sz = sizeof(ao);
	ao.format = NPUPROF_FORMAT_ROWS;
	EXPECT_EQ(-EINVAL, npuprof_analyze(self->t, w, &ao));	/* no sink */
	fclose(w);
}

TEST(percentiles)
{
	/* shared/seeds/001, sorted: the median and the percentiles shown */
	static const int64_t v[] = { 258540, 270625, 365199, 650018 };
	static const int64_t two[] = { 0, 1 };
	static const int64_t neg[] = { -7, -2 };
	static const int64_t one[] = { 42 };

	EXPECT_EQ(317912, npf_percentile(v, 4, 500));
	EXPECT_EQ(564572, npf_percentile(v, 4, 900));
	EXPECT_EQ(607295, npf_percentile(v, 4, 950));
	EXPECT_EQ(624384, npf_percentile(v, 4, 970));
	EXPECT_EQ(641473, npf_percentile(v, 4, 990));
	/* 649163.54: 001 truncated, we round (as 002 does) */
	EXPECT_EQ(649164, npf_percentile(v, 4, 999));
	EXPECT_EQ(258540, npf_percentile(v, 4, 0));
	EXPECT_EQ(650018, npf_percentile(v, 4, 1000));
	/* halves round up, negative values too */
	EXPECT_EQ(1, npf_percentile(two, 2, 500));
	EXPECT_EQ(0, npf_percentile(two, 2, 499));
	EXPECT_EQ(-4, npf_percentile(neg, 2, 600));	/* -4.0 */
	EXPECT_EQ(-4, npf_percentile(neg, 2, 500));	/* -4.5 */
	EXPECT_EQ(42, npf_percentile(one, 1, 999));
}

TEST(empty_trace)
{
	char *path = gen_empty("empty"), err[256], *out, *got;
	struct npuprof_trace *t;
	int ret;

	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err)));
	out = report_str(t, 0, NPUPROF_FORMAT_TABLE, &ret);
	ASSERT_EQ(0, ret);
	EXPECT_NE(NULL, strstr(out, "Inference counts                : 0\n"
			       "Min latency (ns)                : -\n"));
	EXPECT_NE(NULL, strstr(out, "NPU executions                  : 0\n"));
	EXPECT_NE(NULL, strstr(out, "Clock fit bound (ns)            : -\n"));
	free(out);
	out = report_str(t, 0, NPUPROF_FORMAT_JSON, &ret);
	ASSERT_EQ(0, ret);
	got = py_parse("import json, sys\nd = json.load(open(sys.argv[1]))\n"
		       "print(d['inferences'], d['median_ns'], d['p99_9_ns'], "
		       "d['clock_fit_err_ns'], d['violations_recorded'])\n",
		       out, NULL, NULL);
	ASSERT_NE(NULL, got);
	EXPECT_STREQ("0 None None None None\n", got);
	free(got);
	free(out);
	out = report_str(t, NPUPROF_TABLE_EXECUTIONS, NPUPROF_FORMAT_JSON, &ret);
	ASSERT_EQ(0, ret);
	EXPECT_STREQ("[]\n", out);
	free(out);
	out = report_str(t, NPUPROF_TABLE_INFERENCES, NPUPROF_FORMAT_CSV, &ret);
	ASSERT_EQ(0, ret);
	EXPECT_STREQ("trace_id,span_id,thread.id,dur,pid,start_ns,end_ns,"
		     "executions,npu_total_ns,unmatched_submits\r\n", out);
	free(out);
	out = report_str(t, NPUPROF_TABLE_OPERATORS, NPUPROF_FORMAT_JSONL, &ret);
	ASSERT_EQ(0, ret);
	EXPECT_STREQ("", out);
	free(out);
	npuprof_trace_close(t);
	unlink(path);
	free(path);
}

TEST(corrupt_trace)
{
	char *path = gen_trace("corrupt"), err[256], *out;
	struct npuprof_trace *t;
	FILE *f;
	int ret;

	/* a byte of the second chunk's payload: its CRC fails, the chunk
	 * is skipped and counted */
	f = fopen(path, "r+");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, fseek(f, 4096 + 200, SEEK_SET));
	fputc(0x5a, f);
	fclose(f);
	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err)));
	out = report_str(t, NPUPROF_TABLE_SPANS, NPUPROF_FORMAT_CSV, &ret);
	EXPECT_EQ(0, ret);
	free(out);
	/* the summary's totals say what was skipped */
	out = report_str(t, 0, NPUPROF_FORMAT_TABLE, &ret);
	EXPECT_EQ(0, ret);
	EXPECT_NE(NULL, strstr(out, "Damaged chunks skipped          : 1\n"))
		TH_LOG("%s", out);
	{
		struct npuprof_damage d;
		char line[128];

		EXPECT_EQ(1u, npuprof_trace_damage(t, &d, NULL));
		snprintf(line, sizeof(line),
			 "  bytes                         : %llu\n",
			 (unsigned long long)d.bytes);
		EXPECT_NE(NULL, strstr(out, line));
	}
	free(out);
	out = report_str(t, 0, NPUPROF_FORMAT_JSON, &ret);
	EXPECT_EQ(0, ret);
	EXPECT_NE(NULL, strstr(out, "\"damaged_chunks\": 1, \"damaged_bytes\": "))
		TH_LOG("%s", out);
	free(out);
	npuprof_trace_close(t);
	unlink(path);
	free(path);
}

TEST_HARNESS_MAIN
