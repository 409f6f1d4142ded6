// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of npu-model-gen's networks: deterministic bytes, files that
 * pass the runtime's validation, and programs that run under lib/npuref
 * with outputs that depend on the input and are not saturated constants.
 * Their layer tables: the documented names and op types, shapes equal to
 * the program's tensors, MACs by program.rst's cost model. The parameters
 * dump: the weight and bias files are the constant blob's bytes, and the
 * scales of params.json give the model's requantization tables exactly.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libnpu.h"
#include "modelgen.h"
#include "npu/npu_program.h"
#include "npu/npu_model_file.h"
#include "npu/npu_model_layers.h"
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

static const char *const mnist_names[] = {
	"conv1", "pool1", "conv2", "pool2", "flatten", "fc",
};

static const char *const mobilenet_names[] = {
	"conv1",
	"conv_dw_1", "conv_pw_1", "conv_dw_2", "conv_pw_2", "conv_dw_3",
	"conv_pw_3", "conv_dw_4", "conv_pw_4", "conv_dw_5", "conv_pw_5",
	"conv_dw_6", "conv_pw_6", "conv_dw_7", "conv_pw_7", "conv_dw_8",
	"conv_pw_8", "conv_dw_9", "conv_pw_9", "conv_dw_10", "conv_pw_10",
	"conv_dw_11", "conv_pw_11", "conv_dw_12", "conv_pw_12", "conv_dw_13",
	"conv_pw_13", "avg_pool", "reshape", "fc",
};

static uint64_t prod(const uint32_t *d, unsigned int n)
{
	uint64_t p = 1;

	while (n--)
		p *= d[n];
	return p;
}

/* the program of a loaded model: its header, tensors and operators */
struct prog {
	const struct npu_prog_hdr *ph;
	const struct npu_prog_tensor *t;
	const struct npu_prog_op *ops;
	const uint8_t *img;
};

static void prog_of(const struct npu_model *m, struct prog *p)
{
	size_t sz;

	p->ph = npu_model_program(m, &sz);
	p->t = (const void *)((const uint8_t *)p->ph + p->ph->tensors_off);
	p->ops = (const void *)((const uint8_t *)p->ph + p->ph->ops_off);
	p->img = npu_model_const_image(m, NULL, NULL, NULL);
}

/* a layer shape equals program tensor @t (NHWC dims), of dtype @dt */
static int same_shape(const struct npu_layer_shape *s,
		      const struct npu_prog_tensor *t, unsigned int dt)
{
	return s->dtype == dt && s->ndim == t->ndim &&
	       !memcmp(s->dims, t->dims, t->ndim * sizeof(s->dims[0]));
}

static void check_layers(struct __test_metadata *_metadata, const char *net,
			 const char *const *names, unsigned int n,
			 uint64_t macs_want)
{
	const struct npu_layers_hdr *h;
	struct npu_model *m;
	uint64_t macs = 0;
	unsigned int i, first, cnt;
	struct prog p;
	uint8_t *file;
	size_t size;
	char err[256];

	ASSERT_EQ(0, mg_build(net, 1, &file, &size, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(0, npu_model_load_mem(file, size, &m, err, sizeof(err)))
		TH_LOG("%s", err);
	free(file);
	ASSERT_EQ(0, npu_model_layers(m, (const void **)&h, &size));
	prog_of(m, &p);
	ASSERT_EQ(n, h->n_layers);
	ASSERT_EQ(n, p.ph->n_ops);
	for (i = 0; i < n; i++) {
		const struct npu_layer_desc *d = npu_layers_desc(h, i);
		const struct npu_prog_op *op = &p.ops[i];
		const struct npu_prog_tensor *y = &p.t[op->out];
		const char *type = npu_layers_str(h, d->op_type);
		uint64_t want = 0, wb = 0;

		EXPECT_STREQ(names[i], npu_layers_str(h, d->name));
		ASSERT_EQ(0, npu_model_find_layer(m, names[i], &first, &cnt));
		EXPECT_EQ(i, first);
		EXPECT_EQ(1u, cnt);
		EXPECT_EQ(1u, d->n_out);
		EXPECT_TRUE(same_shape(&d->in[0], &p.t[op->in[0]],
				       NPU_LAYER_DT_U8)) TH_LOG("layer %u", i);
		EXPECT_TRUE(same_shape(&d->out, y, NPU_LAYER_DT_U8))
			TH_LOG("layer %u", i);
		switch (op->opcode) {
		case NPU_OP_CONV2D:
		case NPU_OP_DWCONV2D:
		case NPU_OP_FC:
			ASSERT_EQ(3u, d->n_in);
			EXPECT_TRUE(same_shape(&d->in[1], &p.t[op->in[1]],
					       NPU_LAYER_DT_I8));
			EXPECT_TRUE(same_shape(&d->in[2], &p.t[op->in[2]],
					       NPU_LAYER_DT_I32));
			/* N*OH*OW*(Cout*KH*KW*Cin | C*KH*KW), M*(N*K) */
			want = prod(y->dims, y->ndim - 1) *
			       prod(p.t[op->in[1]].dims, p.t[op->in[1]].ndim);
			wb = prod(p.t[op->in[1]].dims, p.t[op->in[1]].ndim) +
			     4 * p.t[op->in[2]].dims[0];
			break;
		case NPU_OP_MAXPOOL:
		case NPU_OP_AVGPOOL:
			want = prod(y->dims, 4) * op->u.conv.kh * op->u.conv.kw;
			/* fall through */
		default:
			EXPECT_EQ(1u, d->n_in);
		}
		EXPECT_EQ(want, d->macs) TH_LOG("layer %u", i);
		EXPECT_EQ(wb, d->weight_bytes) TH_LOG("layer %u", i);
		macs += d->macs;
		EXPECT_STREQ(op->opcode == NPU_OP_CONV2D ?
			     (strcmp(net, "mnist") ? "Conv2D+Relu6" : "Conv2D+Relu") :
			     op->opcode == NPU_OP_DWCONV2D ? "DepthwiseConv2D+Relu6" :
			     op->opcode == NPU_OP_MAXPOOL ? "MaxPool2D" :
			     op->opcode == NPU_OP_AVGPOOL ? "AveragePool2D" :
			     op->opcode == NPU_OP_RESHAPE ? "Reshape" :
			     "FullyConnected", type);
	}
	EXPECT_EQ(macs_want, macs);
	npu_model_free(m);
}

TEST(mnist_layers)
{
	char buf[128];
	const struct npu_layers_hdr *h;
	struct npu_model *m;
	uint8_t *file;
	size_t size;

	check_layers(_metadata, "mnist", mnist_names, 6, 1050560);
	/* the shapes as every report prints them */
	ASSERT_EQ(0, mg_build("mnist", 1, &file, &size, buf, sizeof(buf)));
	ASSERT_EQ(0, npu_model_load_mem(file, size, &m, buf, sizeof(buf)));
	free(file);
	ASSERT_EQ(0, npu_model_layers(m, (const void **)&h, NULL));
	npu_layer_shapes_fmt(npu_layers_desc(h, 2)->in, 3, buf, sizeof(buf));
	EXPECT_STREQ("u8[1,14,14,16] i8[32,3,3,16] i32[32]", buf);
	npu_layer_shapes_fmt(&npu_layers_desc(h, 4)->out, 1, buf, sizeof(buf));
	EXPECT_STREQ("u8[1,1568]", buf);
	npu_model_free(m);
}

/* Howard et al.: 569 million mult-adds; the 7x7 average pool's 50,176 too */
TEST(mobilenet_layers)
{
	check_layers(_metadata, "mobilenet-v1", mobilenet_names, 30,
		     568791552);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 &&
	    !fseek(f, 0, SEEK_SET) && (buf = malloc(n + 1))) {
		if (fread(buf, 1, n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		} else {
			buf[n] = 0;
			*len = n;
		}
	}
	fclose(f);
	return buf;
}

/* the number after @key in [@p, @end), or NAN */
static double num_after(const char *p, const char *end, const char *key)
{
	const char *k = strstr(p, key);

	return k && k < end ? strtod(k + strlen(key), NULL) : NAN;
}

/*
 * The dump of @net: per layer with weights, the files equal the constant
 * blob's bytes, and npu_quantize_multiplier((double)s_x * s_w[c] / s_y)
 * of the dumped float32 scales gives the model's rq table exactly.
 */
static void check_params(struct __test_metadata *_metadata, const char *net,
			 const char *const *names, unsigned int n)
{
	char dir[64], path[128], err[256];
	const char *p, *end, *prev_end;
	struct npu_model *m;
	unsigned int i, c, checked = 0;
	size_t size, jlen, blen;
	struct prog p_;
	uint8_t *file;
	char *json, *blob;
	float sx, sy;

	snprintf(dir, sizeof(dir), "/tmp/npu-params-%d", (int)getpid());
	ASSERT_EQ(0, mg_build_params(net, 1, dir, &file, &size, err,
				     sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, npu_model_load_mem(file, size, &m, err, sizeof(err)));
	free(file);
	prog_of(m, &p_);
	snprintf(path, sizeof(path), "%s/params.json", dir);
	json = slurp(path, &jlen);
	ASSERT_NE(NULL, json);
	p = strstr(json, "\"input\": {");
	ASSERT_NE(NULL, p);
	sx = (float)num_after(p, json + jlen, "\"scale\": ");
	EXPECT_EQ(npu_model_input(m, 0)->scale, sx);
	prev_end = p;
	for (i = 0; i < n; i++) {
		const struct npu_prog_op *op = &p_.ops[i];
		const struct npu_prog_tensor *y = &p_.t[op->out];
		const int32_t *rq;
		char key[64];

		snprintf(key, sizeof(key), "{\"name\": \"%s\"", names[i]);
		p = strstr(json, key);
		ASSERT_NE(NULL, p) TH_LOG("no layer %s", names[i]);
		/* in execution order */
		EXPECT_GT(p, prev_end);
		end = strstr(p, "}}");
		ASSERT_NE(NULL, end);
		prev_end = end;
		sy = (float)num_after(strstr(p, "\"out\": {"), end + 2,
				      "\"scale\": ");
		EXPECT_EQ(y->zero_point,
			  (int32_t)num_after(strstr(p, "\"out\": {"), end + 2,
					     "\"zero_point\": "));
		EXPECT_EQ(op->act_min, (int32_t)num_after(p, end, "\"act_min\": "));
		EXPECT_EQ(op->act_max, (int32_t)num_after(p, end, "\"act_max\": "));
		if (op->in[1] != NPU_PROG_NONE) {
			const struct npu_prog_tensor *w = &p_.t[op->in[1]];
			const struct npu_prog_tensor *b = &p_.t[op->in[2]];
			const char *q = strstr(p, "\"scales\": [");

			snprintf(path, sizeof(path), "%s/%s.weights.bin", dir,
				 names[i]);
			blob = slurp(path, &blen);
			ASSERT_NE(NULL, blob) TH_LOG("%s", path);
			ASSERT_EQ(prod(w->dims, w->ndim), blen);
			EXPECT_EQ(0, memcmp(blob, p_.img + w->offset, blen));
			free(blob);
			snprintf(path, sizeof(path), "%s/%s.bias.bin", dir,
				 names[i]);
			blob = slurp(path, &blen);
			ASSERT_NE(NULL, blob) TH_LOG("%s", path);
			ASSERT_EQ(4 * b->dims[0], blen);
			EXPECT_EQ(0, memcmp(blob, p_.img + b->offset, blen));
			free(blob);
			unlink(path);
			snprintf(path, sizeof(path), "%s/%s.weights.bin", dir,
				 names[i]);
			unlink(path);
			ASSERT_NE(NULL, q);
			ASSERT_LT(q, end);
			q += strlen("\"scales\": [");
			rq = (const int32_t *)(p_.img + p_.t[op->rq].offset);
			for (c = 0; c < b->dims[0]; c++) {
				char *e;
				float sw = strtof(q, &e);
				int32_t mul, sh;

				ASSERT_NE(q, e);
				q = e + 1;
				ASSERT_EQ(0, npu_quantize_multiplier((double)sx * sw / sy,
								     &mul, &sh));
				EXPECT_EQ(rq[2 * c], mul) TH_LOG("%s c %u", names[i], c);
				EXPECT_EQ(rq[2 * c + 1], sh) TH_LOG("%s c %u", names[i], c);
				checked++;
			}
			EXPECT_EQ(']', q[-1]);
		} else {
			/* pools and reshape keep the input's quantization */
			EXPECT_EQ(sx, sy);
		}
		sx = sy;
	}
	EXPECT_EQ(npu_model_output(m, 0)->scale, sy);
	TH_LOG("%s: %u requantization pairs reproduced", net, checked);
	EXPECT_GT(checked, 0u);
	snprintf(path, sizeof(path), "%s/params.json", dir);
	unlink(path);
	rmdir(dir);
	free(json);
	npu_model_free(m);
}

TEST(mnist_params)
{
	check_params(_metadata, "mnist", mnist_names, 6);
}

TEST(mobilenet_params)
{
	check_params(_metadata, "mobilenet-v1", mobilenet_names, 30);
}

TEST(params_dir_unwritable)
{
	uint8_t *file = (void *)1;
	size_t size;
	char err[256];

	EXPECT_EQ(-ENOENT, mg_build_params("mnist", 1, "/nonexistent/x/y",
					   &file, &size, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "/nonexistent/x/y"));
	EXPECT_EQ(NULL, file);
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
