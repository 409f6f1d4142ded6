// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of npu-model-gen's networks: deterministic bytes, files that
 * pass the runtime's validation, and programs that run under lib/npuref
 * with outputs that depend on the input and are not saturated constants.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "libnpu.h"
#include "modelgen.h"
#include "npu/npu_program.h"
#include "npu/npu_model_file.h"
#include "npuref.h"

struct host_run {
	struct npuref_buf slots[NPU_MODEL_MAX_SLOTS];
	unsigned int n;
	uint32_t prog_offset, prog_size;
};

static int host_init(struct host_run *r, const struct npu_model *m)
{
	const void *img;
	size_t isz;
	unsigned int i;

	memset(r, 0, sizeof(*r));
	r->n = npu_model_num_slots(m);
	for (i = 0; i < r->n; i++) {
		if (npu_model_slot(m, i, NULL, &r->slots[i].size))
			return -EINVAL;
		r->slots[i].base = calloc(1, r->slots[i].size);
		if (!r->slots[i].base)
			return -ENOMEM;
	}
	img = npu_model_const_image(m, &isz, &r->prog_offset, &r->prog_size);
	memcpy(r->slots[0].base, img, isz);
	return 0;
}

static void host_fini(struct host_run *r)
{
	unsigned int i;

	for (i = 0; i < r->n; i++)
		free(r->slots[i].base);
}

/* Quantize + Lower @x, run under npuref, Unlower the output into @y */
static int host_infer(struct host_run *r, const struct npu_model *m,
		      const float *x, uint8_t *y)
{
	const struct npu_tensor_desc *in = npu_model_input(m, 0);
	const struct npu_tensor_desc *out = npu_model_output(m, 0);
	uint8_t *q = malloc(in->count);
	uint16_t op;
	int ret;

	if (!q)
		return -ENOMEM;
	ret = npu_quantize(x, q, in->count, in->scale, in->zero_point);
	if (!ret)
		ret = npu_lower(q, (uint8_t *)r->slots[in->slot].base + in->offset,
				in->dev_size, in->dims, in->layout,
				(uint8_t)in->zero_point);
	free(q);
	if (ret)
		return ret;
	ret = npuref_run((uint8_t *)r->slots[0].base + r->prog_offset,
			 r->prog_size, r->slots, r->n, 0, &op);
	if (ret)
		return ret > 0 ? 1000 + ret : ret;
	return npu_unlower((uint8_t *)r->slots[out->slot].base + out->offset,
			   out->dev_size, y, out->dims, out->layout);
}

static void random_input(const struct npu_tensor_desc *in, float *x,
			 unsigned int seed)
{
	float lo = (0 - in->zero_point) * in->scale;
	float hi = (255 - in->zero_point) * in->scale;
	size_t i;

	for (i = 0; i < in->count; i++) {
		seed = seed * 1664525u + 1013904223u;
		x[i] = lo + (hi - lo) * (float)(seed >> 8) / 16777216.0f;
	}
}

static unsigned int distinct(const uint8_t *y, size_t n, unsigned int *sat)
{
	unsigned char seen[256] = { 0 };
	unsigned int d = 0;
	size_t i;

	*sat = 0;
	for (i = 0; i < n; i++) {
		if (!seen[y[i]]++)
			d++;
		if (y[i] == 0 || y[i] == 255)
			(*sat)++;
	}
	return d;
}

TEST(list)
{
	const struct mg_net *n;
	size_t count;

	n = mg_nets(&count);
	ASSERT_EQ(2, count);
	EXPECT_STREQ("mnist", n[0].name);
	EXPECT_STREQ("mobilenet-v1", n[1].name);
}

TEST(unknown_network)
{
	uint8_t *f;
	size_t s;
	char err[128];

	EXPECT_EQ(-ENOENT, mg_build("resnet", 1, &f, &s, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "resnet"));
}

TEST(mnist_deterministic)
{
	uint8_t *a, *b, *c;
	size_t sa, sb, sc;
	char err[128];

	ASSERT_EQ(0, mg_build("mnist", 1, &a, &sa, err, sizeof(err)));
	ASSERT_EQ(0, mg_build("mnist", 1, &b, &sb, err, sizeof(err)));
	ASSERT_EQ(0, mg_build("mnist", 2, &c, &sc, err, sizeof(err)));
	ASSERT_EQ(sa, sb);
	EXPECT_EQ(0, memcmp(a, b, sa));
	/* another seed: same structure, other weights */
	ASSERT_EQ(sa, sc);
	EXPECT_NE(0, memcmp(a, c, sa));
	free(a);
	free(b);
	free(c);
}

static void check_net(struct __test_metadata *_metadata, const char *name,
		      unsigned int ops_want, size_t out_count, int runs)
{
	const struct npu_tensor_desc *in, *out;
	struct npu_model *m;
	struct host_run hr;
	uint8_t *file, *y[3];
	float *x;
	size_t size;
	char err[256];
	unsigned int sat, d, i;
	const struct npu_prog_hdr *ph;

	ASSERT_EQ(0, mg_build(name, 1, &file, &size, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(0, npu_model_load_mem(file, size, &m, err, sizeof(err)))
		TH_LOG("%s", err);
	ph = (const void *)(file + ((struct npu_model_file_hdr *)file)->prog_off);
	EXPECT_EQ(ops_want, ph->n_ops);
	free(file);
	in = npu_model_input(m, 0);
	out = npu_model_output(m, 0);
	ASSERT_EQ(out_count, out->count);
	EXPECT_EQ(NPU_LAYOUT_NCHWC16, in->layout);
	x = malloc(in->count * sizeof(float));
	ASSERT_NE(NULL, x);
	ASSERT_EQ(0, host_init(&hr, m));
	for (i = 0; i < (unsigned int)runs; i++) {
		y[i] = malloc(out->count);
		ASSERT_NE(NULL, y[i]);
		random_input(in, x, 100 + i);
		ASSERT_EQ(0, host_infer(&hr, m, x, y[i]));
		d = distinct(y[i], out->count, &sat);
		TH_LOG("%s run %u: %u distinct outputs, %u saturated", name, i,
		       d, sat);
		/* logits spread over many values, few pinned at 0 or 255 */
		EXPECT_GE(d, out->count >= 100 ? 50 : out->count * 7 / 10);
		EXPECT_LE(sat, out->count / 20 + 1);
	}
	/* the output depends on the input */
	if (runs > 1)
		EXPECT_NE(0, memcmp(y[0], y[1], out->count));
	for (i = 0; i < (unsigned int)runs; i++)
		free(y[i]);
	host_fini(&hr);
	free(x);
	npu_model_free(m);
}

TEST(mnist_runs_on_npuref)
{
	/* conv, pool, conv, pool, reshape, fc */
	check_net(_metadata, "mnist", 6, 10, 3);
}

FIXTURE(slow) {
	int unused;
};

FIXTURE_SETUP(slow)
{
}

FIXTURE_TEARDOWN(slow)
{
}

TEST_F_TIMEOUT(slow, mobilenet_v1_runs_on_npuref, 600)
{
	/* conv + 13 * (dw + pw) + avgpool + reshape + fc */
	check_net(_metadata, "mobilenet-v1", 30, 1001, 2);
}

TEST_HARNESS_MAIN
