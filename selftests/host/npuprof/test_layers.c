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
 * op1 "fc/Gemm"); two jobs run it, so each operator has two records.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "layers_gen.h"
#include "memory_gen.h"
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
	const char *msg;
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
	EXPECT_TRUE(npf_model_has_layers(npf_trace_model(t, 5)));
	npuprof_trace_close(t);
	unlink(path);
	free(path);
}

TEST_HARNESS_MAIN
