// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_layers.c - the layer table of a MODEL item (include/npu/
 * npu_model_layers.h, Documentation/npu/trace-file.rst "MODEL") through
 * the analysis library: read with the model (npf_model_parse()), a bad
 * table dropped alone with the reader's warning, and the layer names and
 * shapes in the reports, the exports and the row sink.
 *
 * The trace is memory_gen.h's mem_gen_jobs_write(): model 5, "tiny", two
 * operators, whose layers layers_gen.h describes (op0 "conv1/Conv",
 * op1 "fc/Gemm"); two jobs run it, so each operator has two records of
 * 5 ticks (5 ns at 1 GHz) and no MACs. The SQLite rows are checked in
 * test_sqlite.c (operator_memory).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "layers_gen.h"
#include "memory_gen.h"
#include "npuprof.h"
#include "npuprof_analysis.h"
#include "memuse.h"
#include "trace.h"

/* The body of model 5's item with @tail after its program; its length */
static size_t body_with(uint8_t *buf, const void *tail, size_t tail_len)
{
	struct mem_gen_body b;

	mem_gen_model_body(&b);
	memcpy(buf, &b, sizeof(b));
	if (tail_len)
		memcpy(buf + sizeof(b), tail, tail_len);
	return sizeof(b) + tail_len;
}

TEST(parse_with_layers)
{
	uint8_t buf[2048] __attribute__((aligned(8)));
	struct npf_model_mem mm;
	struct lay_table t;
	struct npf_layer l;
	struct npf_model *m;
	char err[160];
	size_t len;

	lay_gen_table(&t);
	len = body_with(buf, &t, LAY_SIZE);
	ASSERT_EQ(0, npf_model_parse(buf, len, &m, err, sizeof(err)));
	EXPECT_TRUE(npf_model_has_layers(m));
	EXPECT_STREQ("", npf_model_layers_error(m));
	npf_model_layer(m, 0, &l);
	EXPECT_STREQ(LAY_NAME0, l.name);
	EXPECT_STREQ(LAY_TYPE0, l.op_type);
	EXPECT_STREQ(LAY_IN0, l.in_shapes);
	EXPECT_STREQ(LAY_OUT0, l.out_shapes);
	EXPECT_EQ(LAY_MACS0, l.macs);
	EXPECT_EQ(LAY_WB0, l.weight_bytes);
	npf_model_layer(m, 1, &l);
	EXPECT_STREQ(LAY_NAME1, l.name);
	EXPECT_STREQ(LAY_TYPE1, l.op_type);
	EXPECT_STREQ(LAY_IN1, l.in_shapes);
	EXPECT_STREQ(LAY_OUT1, l.out_shapes);
	EXPECT_EQ(LAY_MACS1, l.macs);
	EXPECT_EQ(LAY_WB1, l.weight_bytes);
	/* out of range: empty */
	npf_model_layer(m, 2, &l);
	EXPECT_STREQ("", l.name);
	EXPECT_EQ(0u, l.macs);
	/* the memory figures are those of the model without a table */
	ASSERT_EQ(0, npf_model_mem(m, &mm));
	EXPECT_EQ(2000u, mm.peak_used);
	EXPECT_EQ(7424u, mm.alloc_bytes);
	npf_model_free(m);

	/* no bytes after the program (its padding aside): no table, no error */
	len = body_with(buf, NULL, 0);
	ASSERT_EQ(0, npf_model_parse(buf, len, &m, err, sizeof(err)));
	EXPECT_FALSE(npf_model_has_layers(m));
	EXPECT_STREQ("", npf_model_layers_error(m));
	npf_model_layer(m, 0, &l);
	EXPECT_STREQ("", l.name);
	EXPECT_STREQ("", l.in_shapes);
	npf_model_free(m);
	/* zero padding after the program: no table either */
	memset(buf + len, 0, 24);
	ASSERT_EQ(0, npf_model_parse(buf, len + 24, &m, err, sizeof(err)));
	EXPECT_FALSE(npf_model_has_layers(m));
	EXPECT_STREQ("", npf_model_layers_error(m));
	npf_model_free(m);
	/* NULL model: empty too (an operator whose job has no model) */
	npf_model_layer(NULL, 0, &l);
	EXPECT_STREQ("", l.op_type);
}

/* Model 5 with the damaged table @t (@len bytes): kept, layers dropped */
static int dropped(const void *t, size_t len, const char *want)
{
	uint8_t buf[2048] __attribute__((aligned(8)));
	struct npf_model_mem mm;
	struct npf_model *m;
	char err[160];
	int ret = npf_model_parse(buf, body_with(buf, t, len), &m, err,
				  sizeof(err));

	if (ret || !m) {
		fprintf(stderr, "# want \"%s\": ret %d, \"%s\"\n", want, ret,
			err);
		return -1;
	}
	ret = npf_model_has_layers(m) || npf_model_mem(m, &mm) ||
	      mm.peak_used != 2000 ||
	      strcmp(npf_model_layers_error(m), want);
	if (ret)
		fprintf(stderr, "# want \"%s\": \"%s\"\n", want,
			npf_model_layers_error(m));
	npf_model_free(m);
	return ret ? -1 : 0;
}

TEST(damaged_tables_dropped)
{
	struct lay_table t;
	uint8_t junk[24];

	lay_gen_table(&t);
	EXPECT_EQ(0, dropped(&t, 8, "shorter than its header"));
	t.h.magic = 0x12345678;
	EXPECT_EQ(0, dropped(&t, LAY_SIZE, "bad magic"));
	lay_gen_table(&t);
	t.h.version = 2;
	EXPECT_EQ(0, dropped(&t, LAY_SIZE, "unknown version"));
	lay_gen_table(&t);
	t.h.n_layers = 3;
	EXPECT_EQ(0, dropped(&t, LAY_SIZE,
			     "n_layers differs from the program's operators"));
	lay_gen_table(&t);
	EXPECT_EQ(0, dropped(&t, LAY_SIZE - 8,
			     "larger than the bytes that hold it"));
	lay_gen_table(&t);
	t.h.str_size = 0;
	EXPECT_EQ(0, dropped(&t, LAY_SIZE, "string area size out of range"));
	lay_gen_table(&t);
	t.str[LAY_STR_SIZE - 1] = 'x';
	EXPECT_EQ(0, dropped(&t, LAY_SIZE, "string area not NUL-delimited"));
	lay_gen_table(&t);
	t.d[1].name = LAY_STR_SIZE + 5;
	EXPECT_EQ(0, dropped(&t, LAY_SIZE,
			     "layer 1: name or op type outside the strings or empty"));
	lay_gen_table(&t);
	t.d[0].in[1].dtype = 9;
	EXPECT_EQ(0, dropped(&t, LAY_SIZE, "layer 0: unknown dtype"));
	lay_gen_table(&t);
	t.d[1].out.dims[3] = 7;
	EXPECT_EQ(0, dropped(&t, LAY_SIZE, "layer 1: bad dims"));
	lay_gen_table(&t);
	t.d[0].n_out = 2;
	EXPECT_EQ(0, dropped(&t, LAY_SIZE, "layer 0: too many shapes"));
	/* bytes after the program that are no table at all */
	memset(junk, 0xa5, sizeof(junk));
	EXPECT_EQ(0, dropped(junk, sizeof(junk), "bad magic"));
}

static char *tmp_path(const char *name)
{
	char *p;

	if (asprintf(&p, "/tmp/npuprof-layers-%d-%s", (int)getpid(), name) < 0)
		abort();
	return p;
}

TEST(trace_warns_and_keeps_the_model)
{
	char *path = tmp_path("bad.npuprof");
	struct npuprof_trace *t;
	const struct npf_model *m;
	struct lay_table tab;
	struct npf_layer l;
	const char *msg, *last;
	char err[256], want[64];

	lay_gen_table(&tab);
	tab.d[1].in[0].ndim = 5;
	mem_gen_jobs_write_tail(path, &tab, LAY_SIZE);
	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err)));
	ASSERT_EQ(1, npf_trace_load_models(t));
	EXPECT_EQ(0u, npf_trace_models_bad(t, NULL));
	EXPECT_EQ(1u, npf_trace_layers_bad(t, &msg));
	/* "PATH: offset N: model 5: layer table: why" */
	EXPECT_EQ(0, strncmp(msg, path, strlen(path)));
	EXPECT_NE(NULL, strstr(msg, ": offset "));
	snprintf(want, sizeof(want), ": model 5: layer table: %s",
		 "layer 1: ndim above 4");
	EXPECT_NE(NULL, strstr(msg, want));
	/* the public count and message: the same */
	EXPECT_EQ(1u, npuprof_trace_skipped(t, &last));
	EXPECT_STREQ(msg, last);
	m = npf_trace_model(t, 5);
	ASSERT_NE(NULL, m);
	EXPECT_FALSE(npf_model_has_layers(m));
	npf_model_layer(m, 0, &l);
	EXPECT_STREQ("", l.name);
	/* a second pass counts it once */
	ASSERT_EQ(1, npf_trace_load_models(t));
	EXPECT_EQ(1u, npf_trace_layers_bad(t, NULL));
	npuprof_trace_close(t);
	unlink(path);

	/* the sound table: no warning */
	mem_gen_jobs_write(path);
	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err)));
	ASSERT_EQ(1, npf_trace_load_models(t));
	EXPECT_EQ(0u, npf_trace_layers_bad(t, &msg));
	EXPECT_STREQ("", msg);
	EXPECT_EQ(0u, npuprof_trace_skipped(t, &last));
	EXPECT_STREQ("", last);
	EXPECT_TRUE(npf_model_has_layers(npf_trace_model(t, 5)));
	npuprof_trace_close(t);
	unlink(path);
	free(path);
}

/*
 * The capture's side (libnpuprof, npuprof_model_register() with .layers):
 * a session's MODEL item reads back with its layers, and a SUBMIT span's
 * model is the one they belong to
 */
TEST(captured_table_reads_back)
{
	static const char *const no_devices[] = { NULL };
	static const uint64_t slot_size[4] = { 4096, 1024, 256, 2048 };
	struct npuprof_model_desc d = { .sz = sizeof(d) };
	char *path = tmp_path("cap.npuprof"), err[256];
	struct npuprof_session *sess;
	struct npuprof_trace *t;
	struct mem_gen_body b;
	struct npuprof_opts o;
	struct lay_table tab;
	struct npf_layer l;
	uint32_t id = 0;

	mem_gen_model_body(&b);
	lay_gen_table(&tab);
	d.name = "tiny";
	d.program = b.prog;
	d.program_size = MEM_PROG_SIZE;
	d.n_slots = 4;
	d.slot_sizes = slot_size;
	d.layers = &tab;
	d.layers_size = LAY_SIZE;
	ASSERT_EQ(0, npuprof_model_register(&d, &id));
	npuprof_opts_init(&o);
	o.output = path;
	o.devices = no_devices;
	ASSERT_EQ(0, npuprof_session_create(&o, &sess));
	ASSERT_EQ(0, npuprof_session_start(sess));
	ASSERT_EQ(0, npuprof_session_stop(sess));
	npuprof_session_free(sess);
	EXPECT_EQ(0, npuprof_model_unregister(id));

	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err)));
	ASSERT_EQ(1, npf_trace_load_models(t));
	EXPECT_EQ(0u, npuprof_trace_skipped(t, NULL));
	ASSERT_TRUE(npf_model_has_layers(npf_trace_model(t, id)));
	npf_model_layer(npf_trace_model(t, id), 1, &l);
	EXPECT_STREQ(LAY_NAME1, l.name);
	EXPECT_STREQ(LAY_TYPE1, l.op_type);
	EXPECT_STREQ(LAY_IN1, l.in_shapes);
	EXPECT_STREQ(LAY_OUT1, l.out_shapes);
	EXPECT_EQ(LAY_MACS1, l.macs);
	EXPECT_EQ(LAY_WB1, l.weight_bytes);
	npuprof_trace_close(t);
	unlink(path);
	free(path);
}

/* ---- the reports ---- */

/* How often @needle occurs in @s */
static int count_of(const char *s, const char *needle)
{
	int n = 0;

	for (; (s = strstr(s, needle)); s += strlen(needle))
		n++;
	return n;
}

static char *report_of(struct npuprof_trace *t, unsigned int table,
		       unsigned int format)
{
	char *s = NULL;
	size_t len;
	FILE *f = open_memstream(&s, &len);

	if (!f || npuprof_report(t, f, NPUPROF_REPORT_OPTS(.table = table,
							   .format = format)))
		abort();
	fclose(f);
	return s;
}

static char *analyze_of(struct npuprof_trace *t, unsigned int agg,
			unsigned int by, unsigned int format)
{
	static const char *const npu[] = { "npu", NULL };
	struct npuprof_analyze_opts o;
	char *s = NULL;
	size_t len;
	FILE *f = open_memstream(&s, &len);

	npuprof_analyze_opts_init(&o);
	o.types = npu;
	o.aggregate = agg;
	o.aggregate_by = by;
	o.format = format;
	if (!f || npuprof_analyze(t, f, &o))
		abort();
	fclose(f);
	return s;
}

static char *chrome_of(struct npuprof_trace *t)
{
	char *s = NULL;
	size_t len;
	FILE *f = open_memstream(&s, &len);

	if (!f || npuprof_export_chrome(t, f, NULL))
		abort();
	fclose(f);
	return s;
}

/* The CSV text of layer @n's op_type, in_shapes and out_shapes */
#define LAY_CSV0	LAY_TYPE0 ",\"" LAY_IN0 "\",\"" LAY_OUT0 "\""
#define LAY_CSV1	LAY_TYPE1 ",\"" LAY_IN1 "\",\"" LAY_OUT1 "\""

FIXTURE(lay) {
	char *path;
	struct npuprof_trace *t;
};

FIXTURE_SETUP(lay)
{
	char err[256];

	self->path = tmp_path("jobs.npuprof");
	mem_gen_jobs_write(self->path);
	ASSERT_EQ(0, npuprof_trace_open(self->path, &self->t, err,
					sizeof(err)));
}

FIXTURE_TEARDOWN(lay)
{
	npuprof_trace_close(self->t);
	unlink(self->path);
	free(self->path);
}

TEST_F(lay, op_records)
{
	char *s = report_of(self->t, NPUPROF_TABLE_OP_RECORDS,
			    NPUPROF_FORMAT_CSV);

	EXPECT_EQ(0, strncmp(s, "minor,job_id,pe,exec_index,op_index,name,"
			     "layer,start_ns,", 49));
	EXPECT_NE(NULL, strstr(s, ",inconsistent,op_type,in_shapes,"
			       "out_shapes,model_id\r\n"));
	/* each job's two records, each with its layer */
	EXPECT_EQ(1, count_of(s, ",1,0,0,0,CONV2D," LAY_NAME0 ",10000010000,"));
	EXPECT_EQ(1, count_of(s, ",2,1,0,0,CONV2D," LAY_NAME0 ",10000010008,"));
	EXPECT_EQ(1, count_of(s, ",1,0,0,1,FC," LAY_NAME1 ",10000010010,"));
	EXPECT_EQ(1, count_of(s, ",2,1,0,1,FC," LAY_NAME1 ",10000010022,"));
	EXPECT_EQ(2, count_of(s, "," LAY_CSV0 ",5\r\n"));
	EXPECT_EQ(2, count_of(s, "," LAY_CSV1 ",5\r\n"));
	free(s);
	s = report_of(self->t, NPUPROF_TABLE_OP_RECORDS, NPUPROF_FORMAT_JSONL);
	EXPECT_EQ(2, count_of(s, "\"layer\": \"" LAY_NAME1 "\""));
	EXPECT_EQ(2, count_of(s, "\"op_type\": \"" LAY_TYPE0 "\", "
			      "\"in_shapes\": \"" LAY_IN0 "\", "
			      "\"out_shapes\": \"" LAY_OUT0 "\", "
			      "\"model_id\": 5}"));
	free(s);
	/* the text: the layer is a data column, shown when wide */
	s = report_of(self->t, NPUPROF_TABLE_OP_RECORDS, NPUPROF_FORMAT_TABLE);
	EXPECT_EQ(NULL, strstr(s, LAY_NAME0));
	free(s);
	s = report_of(self->t, NPUPROF_TABLE_OP_RECORDS, NPUPROF_FORMAT_WIDE);
	EXPECT_EQ(2, count_of(s, "  " LAY_NAME0 "  "));
	EXPECT_EQ(2, count_of(s, "  " LAY_IN1 "  "));
	EXPECT_NE(NULL, strstr(s, "  in_shapes  "));
	free(s);
}

TEST_F(lay, operators)
{
	char opc[2][160], *s;

	/* one row per layer operator; equal averages: by name */
	snprintf(opc[0], sizeof(opc[0]),
		 "CONV2D,5.000000,2," LAY_NAME0 ",%u,10,0.000000,0,"
		 LAY_CSV0 ",0,5,0\r\n", NPU_OP_CONV2D);
	snprintf(opc[1], sizeof(opc[1]),
		 "FC,5.000000,2," LAY_NAME1 ",%u,10,0.000000,0,"
		 LAY_CSV1 ",0,5,1\r\n", NPU_OP_FC);
	s = report_of(self->t, NPUPROF_TABLE_OPERATORS, NPUPROF_FORMAT_CSV);
	EXPECT_EQ(0, strncmp(s, "name,average elapsed(ns),count,layer,opcode,"
			     "total_ns,average_iowait_ns,skipped,op_type,"
			     "in_shapes,out_shapes,macs,model_id,op_index\r\n",
			     124));
	EXPECT_NE(NULL, strstr(s, opc[0]));
	EXPECT_NE(NULL, strstr(s, opc[1]));
	EXPECT_LT(strstr(s, opc[0]), strstr(s, opc[1]));
	EXPECT_EQ(3, count_of(s, "\r\n"));
	free(s);
	/* the text shows the layer column (as wide as its longest name), the
	 * shapes only when wide */
	s = report_of(self->t, NPUPROF_TABLE_OPERATORS, NPUPROF_FORMAT_TABLE);
	EXPECT_STREQ(
"                          average elapsed(ns)   count       layer\n"
"name\n"
"CONV2D                               5.000000       2  " LAY_NAME0 "\n"
"FC                                   5.000000       2     " LAY_NAME1 "\n", s);
	free(s);
	s = report_of(self->t, NPUPROF_TABLE_OPERATORS, NPUPROF_FORMAT_WIDE);
	EXPECT_NE(NULL, strstr(s, "  " LAY_IN0 "  " LAY_OUT0 "  "));
	free(s);
}

TEST_F(lay, analyze_by_layer)
{
	char *s;

	/* a row per record: its layer */
	s = analyze_of(self->t, NPUPROF_AGG_NONE, 0, NPUPROF_FORMAT_CSV);
	EXPECT_NE(NULL, strstr(s, ",start_ns,layer,op_type,in_shapes,"
			       "out_shapes\r\n"));
	EXPECT_EQ(2, count_of(s, "," LAY_NAME0 "," LAY_CSV0 "\r\n"));
	EXPECT_EQ(2, count_of(s, "," LAY_NAME1 "," LAY_CSV1 "\r\n"));
	free(s);
	/* by type: the key is the opcode, no layer */
	s = analyze_of(self->t, NPUPROF_AGG_SUM, NPUPROF_AGG_BY_TYPE,
		       NPUPROF_FORMAT_CSV);
	EXPECT_EQ(0, count_of(s, LAY_NAME0));
	EXPECT_EQ(1, count_of(s, "\r\nCONV2D,npu,2,10,50.000000,"));
	free(s);
	s = analyze_of(self->t, NPUPROF_AGG_SUM, NPUPROF_AGG_BY_LAYER,
		       NPUPROF_FORMAT_CSV);
	EXPECT_EQ(1, count_of(s, "\r\nCONV2D,npu,2,10,50.000000,"));
	EXPECT_EQ(1, count_of(s, "\r\nFC,npu,2,10,50.000000,"));
	EXPECT_EQ(1, count_of(s, "," LAY_NAME0 "," LAY_CSV0 "\r\n"));
	EXPECT_EQ(1, count_of(s, "," LAY_NAME1 "," LAY_CSV1 "\r\n"));
	free(s);
	/* the text: the layer ends each line */
	s = analyze_of(self->t, NPUPROF_AGG_SUM, NPUPROF_AGG_BY_LAYER,
		       NPUPROF_FORMAT_TABLE);
	/* as wide as its longest name, aligned */
	EXPECT_NE(NULL, strstr(s, "  gb_s       layer\n"));
	EXPECT_EQ(1, count_of(s, "     " LAY_NAME1 "\n"));
	EXPECT_EQ(1, count_of(s, "  " LAY_NAME0 "\n"));
	EXPECT_EQ(0, count_of(s, LAY_IN0));
	free(s);
	/* by shape: the key's columns, not the layer */
	s = analyze_of(self->t, NPUPROF_AGG_MEAN, NPUPROF_AGG_BY_SHAPE,
		       NPUPROF_FORMAT_CSV);
	EXPECT_EQ(1, count_of(s, "\r\nCONV2D,npu,2,5,25.000000,"));
	EXPECT_EQ(1, count_of(s, ",," LAY_CSV0 "\r\n"));
	EXPECT_EQ(1, count_of(s, ",," LAY_CSV1 "\r\n"));
	EXPECT_EQ(0, count_of(s, LAY_NAME0));
	free(s);
	/* the text of the shapes' rows ends with their key, not a layer */
	s = analyze_of(self->t, NPUPROF_AGG_MEAN, NPUPROF_AGG_BY_SHAPE,
		       NPUPROF_FORMAT_TABLE);
	EXPECT_NE(NULL, strstr(s, "  gb_s  "));
	EXPECT_NE(NULL, strstr(s, "in_shapes\n"));
	EXPECT_EQ(1, count_of(s, "  " LAY_IN0 "\n"));
	EXPECT_EQ(0, count_of(s, LAY_NAME0));
	free(s);
	/* --wide: every key column, no record ids (they are all null) */
	s = analyze_of(self->t, NPUPROF_AGG_SUM, NPUPROF_AGG_BY_LAYER,
		       NPUPROF_FORMAT_WIDE);
	EXPECT_EQ(0, count_of(s, "job_id"));
	EXPECT_EQ(0, count_of(s, "start_ns"));
	EXPECT_EQ(1, count_of(s, "out_shapes\n"));
	EXPECT_EQ(1, count_of(s, LAY_IN0));
	free(s);
	/* a record's row keeps them */
	s = analyze_of(self->t, NPUPROF_AGG_NONE, 0, NPUPROF_FORMAT_WIDE);
	EXPECT_EQ(1, count_of(s, "job_id"));
	free(s);
}

/* --type: a layer's name keeps its operators' records */
TEST_F(lay, analyze_type_is_a_layer)
{
	static const char *const one[] = { "FC/GEMM", NULL };
	struct npuprof_analyze_opts o;
	char *s = NULL;
	size_t len;
	FILE *f = open_memstream(&s, &len);

	ASSERT_NE(NULL, f);
	npuprof_analyze_opts_init(&o);
	o.types = one;
	o.format = NPUPROF_FORMAT_CSV;
	ASSERT_EQ(0, npuprof_analyze(self->t, f, &o));
	fclose(f);
	EXPECT_EQ(2, count_of(s, "\r\nFC,npu,1,5,"));
	EXPECT_EQ(3, count_of(s, "\r\n"));
	free(s);
}

TEST(analyze_by_shape_merges_layers)
{
	char *path = tmp_path("shape.npuprof"), err[256], *s;
	struct npuprof_trace *t;
	struct lay_table tab;

	/* fc/Gemm with conv1/Conv's op type and input shapes */
	lay_gen_table(&tab);
	tab.d[1].op_type = tab.d[0].op_type;
	tab.d[1].n_in = tab.d[0].n_in;
	memcpy(tab.d[1].in, tab.d[0].in, sizeof(tab.d[1].in));
	mem_gen_jobs_write_tail(path, &tab, LAY_SIZE);
	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err)));
	s = analyze_of(t, NPUPROF_AGG_SUM, NPUPROF_AGG_BY_SHAPE,
		       NPUPROF_FORMAT_CSV);
	/* one row of the 4 records, named after both opcodes */
	EXPECT_EQ(1, count_of(s, "\r\nCONV2D+FC,npu,4,20,100.000000,"));
	EXPECT_EQ(2, count_of(s, "\r\n"));
	free(s);
	s = analyze_of(t, NPUPROF_AGG_SUM, NPUPROF_AGG_BY_LAYER,
		       NPUPROF_FORMAT_CSV);
	EXPECT_EQ(3, count_of(s, "\r\n"));
	EXPECT_EQ(2, count_of(s, ",npu,2,10,50.000000,"));
	free(s);
	npuprof_trace_close(t);
	unlink(path);
	free(path);
}

/* A row sink keeping the op_records' layer and in_shapes, typed */
struct lay_sink {
	int layer, in_shapes;
	unsigned int types_ok;
	char got[4][128];
	unsigned int n;
};

static int lay_columns(void *ctx, unsigned int table,
		       const struct npuprof_column *cols, unsigned int ncols)
{
	struct lay_sink *x = ctx;
	unsigned int i;

	x->layer = x->in_shapes = -1;
	for (i = 0; i < ncols; i++) {
		if (!strcmp(cols[i].name, "layer"))
			x->layer = (int)i;
		if (!strcmp(cols[i].name, "in_shapes"))
			x->in_shapes = (int)i;
		if ((!strcmp(cols[i].name, "layer") ||
		     !strcmp(cols[i].name, "in_shapes")) &&
		    cols[i].type == NPUPROF_COL_STR)
			x->types_ok++;
	}
	return table == NPUPROF_TABLE_OP_RECORDS ? 0 : -EINVAL;
}

static int lay_row(void *ctx, unsigned int table,
		   const struct npuprof_value *v)
{
	struct lay_sink *x = ctx;

	if (x->layer < 0 || x->in_shapes < 0 || x->n == 4)
		return -ERANGE;
	snprintf(x->got[x->n++], sizeof(x->got[0]), "%s|%s", v[x->layer].s,
		 v[x->in_shapes].s);
	return 0;
}

TEST_F(lay, row_sink)
{
	struct lay_sink x = { 0 };
	const struct npuprof_row_sink sink = { lay_columns, lay_row, &x };
	unsigned int i, n0 = 0, n1 = 0;

	ASSERT_EQ(0, npuprof_report(self->t, NULL, NPUPROF_REPORT_OPTS(
		.table = NPUPROF_TABLE_OP_RECORDS,
		.format = NPUPROF_FORMAT_ROWS, .sink = &sink)));
	EXPECT_EQ(2u, x.types_ok);
	ASSERT_EQ(4u, x.n);
	for (i = 0; i < 4; i++) {
		n0 += !strcmp(x.got[i], LAY_NAME0 "|" LAY_IN0);
		n1 += !strcmp(x.got[i], LAY_NAME1 "|" LAY_IN1);
	}
	EXPECT_EQ(2u, n0);
	EXPECT_EQ(2u, n1);
}

TEST_F(lay, chrome_args)
{
	char *s = chrome_of(self->t);
	EXPECT_EQ(2, count_of(s, ",\"layer\":\"" LAY_NAME0 "\",\"op_type\":\""
			      LAY_TYPE0 "\",\"in_shapes\":\"" LAY_IN0
			      "\",\"out_shapes\":\"" LAY_OUT0 "\"}}"));
	EXPECT_EQ(2, count_of(s, ",\"layer\":\"" LAY_NAME1 "\",\"op_type\":\""
			      LAY_TYPE1 "\",\"in_shapes\":\"" LAY_IN1
			      "\",\"out_shapes\":\"" LAY_OUT1 "\"}}"));
	/* the operator's MACs were there already */
	EXPECT_LE(4, count_of(s, "\"macs\":"));
	free(s);
}

/*
 * Names no report expects: 250 two-byte characters (500 bytes: the Chrome
 * args cut them at 200 bytes, on a character boundary; the text's column
 * stays 40 wide), and quotes, a comma and a tab (escaped, quoted)
 */
TEST(awkward_names)
{
	char *path = tmp_path("awkward.npuprof"), err[256], *s, *p;
	static const char odd[] = "fc \"q\",x\t";
	struct npuprof_trace *t;
	struct lay_table tab;
	uint8_t buf[2048] __attribute__((aligned(8)));
	struct npu_layers_hdr *h = (struct npu_layers_hdr *)buf;
	struct npu_layer_desc *d = (struct npu_layer_desc *)(h + 1);
	char *str = (char *)(d + LAY_N), *q;
	size_t n, i;

	lay_gen_table(&tab);
	memcpy(h, &tab.h, sizeof(tab.h) + sizeof(tab.d));
	/* "" at 0; the long name at 1; the odd one; the op types */
	q = str;
	*q++ = 0;
	d[0].name = (uint32_t)(q - str);
	for (i = 0; i < 250; i++) {
		*q++ = (char)0xc3;
		*q++ = (char)0xa9;	/* U+00E9 */
	}
	*q++ = 0;
	d[1].name = (uint32_t)(q - str);
	q = stpcpy(q, odd) + 1;
	d[0].op_type = (uint32_t)(q - str);
	q = stpcpy(q, LAY_TYPE0) + 1;
	d[1].op_type = (uint32_t)(q - str);
	q = stpcpy(q, LAY_TYPE1) + 1;
	h->str_size = (uint32_t)(q - str);
	n = (size_t)(q - (char *)buf);
	ASSERT_EQ(NULL, npu_layers_check(buf, n, LAY_N, NULL));
	mem_gen_jobs_write_tail(path, buf, n);
	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err)));

	s = chrome_of(t);
	p = strstr(s, ",\"layer\":\"\xc3\xa9");
	ASSERT_NE(NULL, p);
	p += 10;
	q = strchr(p, '"');
	ASSERT_NE(NULL, q);
	EXPECT_EQ(200, q - p);		/* 100 whole characters */
	EXPECT_EQ(2, count_of(s, ",\"layer\":\"fc \\\"q\\\",x\\u0009\","));
	free(s);

	s = report_of(t, NPUPROF_TABLE_OPERATORS, NPUPROF_FORMAT_CSV);
	EXPECT_EQ(1, count_of(s, ",\"fc \"\"q\"\",x\t\","));
	free(s);
	s = report_of(t, NPUPROF_TABLE_OPERATORS, NPUPROF_FORMAT_JSON);
	EXPECT_EQ(1, count_of(s, "\"layer\": \"fc \\\"q\\\",x\\u0009\""));
	free(s);
	/* the text: the column 40 wide; the long name whole, sticking out */
	s = report_of(t, NPUPROF_TABLE_OPERATORS, NPUPROF_FORMAT_TABLE);
	snprintf(err, sizeof(err), "count  %40s\n", "layer");
	EXPECT_NE(NULL, strstr(s, err));
	EXPECT_EQ(250, count_of(s, "\xc3\xa9"));
	free(s);
	npuprof_trace_close(t);
	unlink(path);
	free(path);
}

/* A model without a table: "" in the reports, no layer args or column */
TEST(no_layer_table)
{
	char *path = tmp_path("nolayers.npuprof"), err[256], *s;
	struct npuprof_trace *t;

	mem_gen_jobs_write_tail(path, NULL, 0);
	ASSERT_EQ(0, npuprof_trace_open(path, &t, err, sizeof(err)));
	s = report_of(t, NPUPROF_TABLE_OP_RECORDS, NPUPROF_FORMAT_CSV);
	EXPECT_EQ(1, count_of(s, ",1,0,0,0,CONV2D,,10000010000,"));
	EXPECT_EQ(4, count_of(s, ",0,0,,,,5\r\n"));
	free(s);
	/* by opcode, as before the layer tables, without a layer column */
	s = report_of(t, NPUPROF_TABLE_OPERATORS, NPUPROF_FORMAT_TABLE);
	EXPECT_STREQ(
"                          average elapsed(ns)   count\n"
"name\n"
"CONV2D                               5.000000       2\n"
"FC                                   5.000000       2\n", s);
	free(s);
	s = analyze_of(t, NPUPROF_AGG_SUM, NPUPROF_AGG_BY_LAYER,
		       NPUPROF_FORMAT_TABLE);
	EXPECT_EQ(NULL, strstr(s, "layer"));
	free(s);
	s = chrome_of(t);
	EXPECT_EQ(NULL, strstr(s, "\"layer\""));
	free(s);
	npuprof_trace_close(t);
	unlink(path);
	free(path);
}

TEST_HARNESS_MAIN
